//! Loopback ports for the local cluster's nodes, reserved between being chosen and being bound.
//!
//! A port is chosen free (bound and released) well before its node binds
//! it: a restore, the link's start and the other nodes' starts come in
//! between. Another memberctl choosing meanwhile (a second `cluster up`,
//! a test beside this one) could pick the same port, and one of the two
//! nodes would fail with "address already in use". So every port memberctl
//! chooses is also written down, under a lock shared by every memberctl of
//! this user, in a directory of the system's temporary directory, and no
//! memberctl chooses a port written down in the last [`HELD_FOR`].

use std::fs::{File, OpenOptions};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::{Error, ErrorKind};

/// Ports below this are left to well-known and registered services.
const LOWEST_PORT: u16 = 10_000;

/// How long a chosen port stays reserved: longer than any start takes
/// (a restore of a large snapshot included). Once a node listens on it,
/// binding it fails anyway.
pub const HELD_FOR: Duration = Duration::from_secs(600);

/// A loopback port that is free now and reserved for the caller. It is
/// chosen below the kernel's ephemeral range when there is room: the node
/// binds it only later, and meanwhile any outgoing connection could be
/// given a port from that range.
pub fn free_port() -> Result<u16, Error> {
    Ok(free_ports(1)?[0])
}

/// `n` different loopback ports that are free now and reserved for the
/// caller (see the module's documentation).
pub fn free_ports(n: usize) -> Result<Vec<u16>, Error> {
    choose(&book_in(&std::env::temp_dir()), n)
}

/// The book of reserved ports of this user in temporary directory `temp`:
/// `memberctl-ports-UID`, one empty file per port, named by it (the demo
/// scripts' `scripts/ports.sh` reserves its ports there too).
pub fn book_in(temp: &Path) -> PathBuf {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let uid = unsafe { libc::geteuid() };
    temp.join(format!("memberctl-ports-{uid}"))
}

/// Chooses and reserves `n` ports in the reservation directory `dir`. When
/// the directory cannot be used (a read-only temporary directory), the
/// ports are chosen free but unreserved, as they were before reservations.
fn choose(dir: &Path, n: usize) -> Result<Vec<u16>, Error> {
    let book = Book::open(dir);
    // Each chosen port is held (bound) while the others are chosen, so
    // that none is given twice.
    let mut held: Vec<TcpListener> = Vec::with_capacity(n);
    let mut tries = 0;
    while held.len() < n {
        tries += 1;
        let listener = hold_free_port(tries > 100)?;
        let port = local_port(&listener)?;
        if book.as_ref().is_some_and(|b| !b.reserve(port)) {
            if tries > 1_000 {
                return Err(Error::new(
                    ErrorKind::Internal,
                    format!(
                        "cannot find a loopback port that no other memberctl reserved (see {})",
                        dir.display()
                    ),
                ));
            }
            continue;
        }
        held.push(listener);
    }
    held.iter().map(local_port).collect()
}

/// The port a listener is bound to.
fn local_port(l: &TcpListener) -> Result<u16, Error> {
    l.local_addr().map(|a| a.port()).map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot find a free loopback port: {e}"),
        )
    })
}

/// The lowest port the kernel gives outgoing connections (Linux's default when unreadable).
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// A listener on a free loopback port, below the ephemeral range when there
/// is room (and `anywhere` is false).
fn hold_free_port(anywhere: bool) -> Result<TcpListener, Error> {
    let low = ephemeral_low();
    if !anywhere && low > LOWEST_PORT + 1_000 {
        let mut rng = rand::thread_rng();
        for _ in 0..100 {
            let port = rand::Rng::gen_range(&mut rng, LOWEST_PORT..low);
            if let Ok(l) = TcpListener::bind(("127.0.0.1", port)) {
                return Ok(l);
            }
        }
    }
    TcpListener::bind("127.0.0.1:0").map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot find a free loopback port: {e}"),
        )
    })
}

/// The reservation directory, locked by this process while it chooses.
struct Book {
    /// The directory: one empty file per reserved port, named by the port;
    /// its modification time is when it was reserved.
    dir: PathBuf,
    /// The lock file, flock'ed exclusively until dropped.
    _lock: File,
}

impl Book {
    /// Takes the lock of `dir` (waiting for another memberctl that holds
    /// it) and forgets reservations older than [`HELD_FOR`]. None when the
    /// directory cannot be created or locked.
    fn open(dir: &Path) -> Option<Book> {
        use std::os::fd::AsRawFd;
        std::fs::create_dir_all(dir).ok()?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(".lock"))
            .ok()?;
        // SAFETY: flock(2) on a descriptor this value owns.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return None;
        }
        let book = Book {
            dir: dir.to_path_buf(),
            _lock: lock,
        };
        book.forget_expired();
        Some(book)
    }

    /// Reserves `port`; false when it is reserved already.
    fn reserve(&self, port: u16) -> bool {
        let path = self.dir.join(port.to_string());
        if path.exists() {
            return false;
        }
        // A reservation that cannot be written is not refused: the port
        // was free, and choosing must not fail for the book's sake.
        let _ = File::create(path);
        true
    }

    /// Removes the reservations made more than [`HELD_FOR`] ago.
    fn forget_expired(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        for e in entries.filter_map(Result::ok) {
            let is_port = e
                .file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u16>().is_ok());
            let expired = e
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > HELD_FOR);
            if is_port && expired {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports chosen one at a time are released at once, so without the
    /// book the same port comes back often (600 picks among ~22 000 ports:
    /// about eight repeats expected); with it, never.
    #[test]
    fn a_reserved_port_is_not_chosen_again() {
        let dir = std::env::temp_dir().join(format!("memberctl-ports-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..600 {
            let port = choose(&dir, 1).unwrap()[0];
            assert!(seen.insert(port), "port {port} was chosen twice");
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            601,
            "one reservation per port, and the lock"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A reservation older than HELD_FOR is forgotten when the book is opened.
    #[test]
    fn an_expired_reservation_is_forgotten() {
        let dir = std::env::temp_dir().join(format!("memberctl-ports-old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let port = choose(&dir, 1).unwrap()[0];
        let file = dir.join(port.to_string());
        let fresh = dir.join("10001");
        File::create(&fresh).unwrap();
        File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(SystemTime::now() - HELD_FOR - Duration::from_secs(1))
            .unwrap();
        let book = Book::open(&dir).unwrap();
        assert!(!file.exists(), "the expired reservation is gone");
        assert!(fresh.exists(), "a fresh one stays");
        assert!(book.reserve(port), "the port can be reserved again");
        assert!(!book.reserve(10001), "a reserved port cannot");
        drop(book);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
