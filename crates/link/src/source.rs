//! Which member opened a connection: the process that owns the connecting socket, and the member whose peer port that process listens on (Linux's /proc).
//!
//! The proxy sees only `127.0.0.1:<ephemeral port>` as the other end of an
//! accepted connection; every member connects from the same address. The
//! kernel knows more: its socket table (asked through netlink, [`super::diag`],
//! or read from /proc/net/tcp) maps the connecting socket to an inode,
//! /proc/PID/fd says which process holds that inode, and the same process
//! holds the listening socket of its member's peer port. Read once per
//! accepted connection (peers keep their connections open). Where /proc
//! cannot say (another system, another user's process), the source is
//! unknown and the connection gets a link of its own kind.

use std::collections::HashSet;

use super::diag;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// One TCP socket of the kernel's table.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Socket {
    /// Its own address.
    pub(super) local: SocketAddr,
    /// The other end's (the unspecified address for a listener).
    pub(super) remote: SocketAddr,
    /// Whether it listens.
    pub(super) listening: bool,
    /// Its inode, as `/proc/PID/fd` links name it (`socket:[N]`).
    pub(super) inode: u64,
}

/// The member (from `members`: name and the port its peer listener
/// really listens on) whose process opened the connection `client` →
/// `server`, if /proc says.
pub fn opener(client: SocketAddr, server: SocketAddr, members: &[(String, u16)]) -> Option<String> {
    let sockets = sockets(diag::ALL_STATES);
    let conn = sockets
        .iter()
        .find(|s| s.local == client && s.remote == server && !s.listening)?
        .inode;
    let listeners: Vec<(&str, u64)> = members
        .iter()
        .filter_map(|(name, port)| {
            sockets
                .iter()
                .find(|s| s.listening && s.local.port() == *port)
                .map(|s| (name.as_str(), s.inode))
        })
        .collect();
    let procs = std::fs::read_dir("/proc").ok()?;
    for p in procs.flatten() {
        let name = p.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let held = held_sockets(&p.path());
        if held.contains(&conn) {
            return listeners
                .iter()
                .find(|(_, inode)| held.contains(inode))
                .map(|(name, _)| name.to_string());
        }
    }
    None
}

/// The socket inodes a process holds (none when its fds cannot be read).
pub(super) fn held_sockets(proc_dir: &std::path::Path) -> HashSet<u64> {
    socket_inodes(proc_dir).collect()
}

/// Whether a process holds the socket `inode`: its descriptors read in
/// order only until it is found (a server opens its listeners early: a
/// one-member etcd 3.4's are its descriptors 7 and 8 of 17).
pub(super) fn holds_socket(proc_dir: &std::path::Path, inode: u64) -> bool {
    socket_inodes(proc_dir).any(|held| held == inode)
}

/// The socket inodes of a process's descriptors, read one at a time.
fn socket_inodes(proc_dir: &std::path::Path) -> impl Iterator<Item = u64> {
    std::fs::read_dir(proc_dir.join("fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|target| {
            let t = target.to_string_lossy();
            t.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
}

/// The TCP sockets in `states` (a mask of the kernel's states), IPv4 and
/// IPv6: asked through netlink, or read from /proc where netlink is refused.
pub(super) fn sockets(states: u32) -> Vec<Socket> {
    diag::tcp(states).unwrap_or_else(proc_tables)
}

/// Every TCP socket /proc/net/tcp{,6} lists.
pub(super) fn proc_tables() -> Vec<Socket> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(parse_line)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One line of /proc/net/tcp: `sl local rem st … uid timeout inode`.
fn parse_line(line: &str) -> Option<Socket> {
    let f: Vec<&str> = line.split_whitespace().collect();
    Some(Socket {
        local: parse_addr(f.get(1)?)?,
        remote: parse_addr(f.get(2)?)?,
        listening: *f.get(3)? == "0A",
        inode: f.get(9)?.parse().ok()?,
    })
}

/// `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6), as the kernel
/// prints them: the address in 32-bit words of host (little-endian) order.
fn parse_addr(s: &str) -> Option<SocketAddr> {
    let (ip, port) = s.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> {
        let w = u32::from_str_radix(ip.get(i * 8..i * 8 + 8)?, 16).ok()?;
        Some(w.to_le_bytes())
    };
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            let v6 = Ipv6Addr::from(b);
            v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_addresses_parse() {
        assert_eq!(
            parse_addr("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_addr("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        assert_eq!(
            parse_addr("0000000000000000FFFF00000100007F:0050"),
            Some("127.0.0.1:80".parse().unwrap())
        );
        let s = parse_line("   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0").unwrap();
        assert!(s.listening);
        assert_eq!(s.inode, 12345);
    }

    #[test]
    fn the_opener_of_a_connection_is_the_process_that_listens_on_its_port() {
        // This process listens on one port and connects to another: the
        // connection is attributed to the member whose port this process holds.
        let mine = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let theirs = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let conn = std::net::TcpStream::connect(theirs.local_addr().unwrap()).unwrap();
        let (_accepted, client) = theirs.accept().unwrap();
        let members = vec![
            ("other".to_string(), 1),
            ("me".to_string(), mine.local_addr().unwrap().port()),
        ];
        assert_eq!(
            opener(client, theirs.local_addr().unwrap(), &members).as_deref(),
            Some("me")
        );
        assert_eq!(
            opener(client, theirs.local_addr().unwrap(), &members[..1]),
            None
        );
        drop(conn);
    }
}
