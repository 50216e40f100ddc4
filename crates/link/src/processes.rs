//! The machine's listening TCP sockets and processes, read once for a whole command: which process listens on an address.
//!
//! Reading them costs: /proc lists every process, and finding the one that
//! holds a socket reads command lines and descriptor tables. A command that
//! asks about several members (`member status`) reads the table once and
//! asks it once per member ([`Processes::listening_pid`]).

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use super::diag;
use super::source::{holds_socket, sockets, Socket};

/// One process of the table: its ID, its /proc folder and its command line
/// (NUL-separated, as /proc gives it; None when it cannot be read).
#[derive(Debug)]
struct Process {
    pid: u32,
    dir: PathBuf,
    cmdline: Option<Vec<u8>>,
}

/// The listening sockets and the processes of this machine, as read at one
/// moment.
#[derive(Debug)]
pub struct Processes {
    listeners: Vec<Socket>,
    processes: Vec<Process>,
}

impl Processes {
    /// Reads the kernel's listening TCP sockets (netlink, or /proc where
    /// netlink is refused) and the processes /proc lists, with their
    /// command lines.
    pub fn read() -> Processes {
        let listeners = sockets(diag::LISTENING)
            .into_iter()
            .filter(|s| s.listening)
            .collect();
        let processes = std::fs::read_dir("/proc")
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|p| {
                        let pid = p.file_name().to_str()?.parse().ok()?;
                        let dir = p.path();
                        let cmdline = std::fs::read(dir.join("cmdline")).ok();
                        Some(Process { pid, dir, cmdline })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Processes {
            listeners,
            processes,
        }
    }

    /// A table that knows no process (where reading one failed).
    pub fn empty() -> Processes {
        Processes {
            listeners: Vec::new(),
            processes: Vec::new(),
        }
    }

    /// The process that listens on `addr` (a socket bound to that address,
    /// or to the wildcard address of its family and that port): its ID.
    /// None where the table cannot say (no such listener, or a process of
    /// another user whose descriptors cannot be read). `argv`, when known
    /// (the command line the server published), names the processes to look
    /// at first: only their descriptors are read when one of them holds the
    /// socket, not every process's.
    pub fn listening_pid(&self, addr: SocketAddr, argv: Option<&[String]>) -> Option<u32> {
        let wildcard = |ip: IpAddr| ip.is_unspecified();
        let inode = self
            .listeners
            .iter()
            .filter(|s| s.local.port() == addr.port())
            .find(|s| s.local.ip() == addr.ip() || wildcard(s.local.ip()))?
            .inode;
        let holds = |p: &&Process| holds_socket(&p.dir, inode);
        let runs = |p: &Process, argv: &[String]| {
            p.cmdline.as_deref().is_some_and(|raw| {
                let mut args = raw.split(|b| *b == 0).filter(|a| !a.is_empty());
                argv.iter().all(|a| args.next() == Some(a.as_bytes())) && args.next().is_none()
            })
        };
        let named: HashSet<u32> = argv
            .map(|argv| {
                self.processes
                    .iter()
                    .filter(|p| runs(p, argv))
                    .map(|p| p.pid)
                    .collect()
            })
            .unwrap_or_default();
        let first = self.processes.iter().filter(|p| named.contains(&p.pid));
        let rest = self.processes.iter().filter(|p| !named.contains(&p.pid));
        first.chain(rest).find(holds).map(|p| p.pid)
    }

    /// The command line of process `pid` as the table read it, one string
    /// per argument (None when the table lists no such process or could not
    /// read it).
    pub fn command_line(&self, pid: u32) -> Option<Vec<String>> {
        let raw = self
            .processes
            .iter()
            .find(|p| p.pid == pid)?
            .cmdline
            .as_ref()?;
        Some(
            raw.split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
        )
    }
}

/// The process on this machine that listens on `addr`, reading the table
/// for this one question ([`Processes::listening_pid`]; a command that
/// asks about several addresses reads it once).
pub fn listening_pid(addr: SocketAddr, argv: Option<&[String]>) -> Option<u32> {
    Processes::read().listening_pid(addr, argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listener_of_a_port_is_this_process() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let me = Some(std::process::id());
        assert_eq!(listening_pid(l.local_addr().unwrap(), None), me);
        // Named by its command line, or by another one (then every process
        // is looked at): the same answer, from one table read once.
        let table = Processes::read();
        let argv: Vec<String> = std::env::args().collect();
        assert_eq!(
            table.listening_pid(l.local_addr().unwrap(), Some(&argv)),
            me
        );
        assert_eq!(table.command_line(std::process::id()), Some(argv.clone()));
        let other = vec!["no-such-program".to_string()];
        assert_eq!(
            table.listening_pid(l.local_addr().unwrap(), Some(&other)),
            me
        );
        let port = l.local_addr().unwrap().port();
        drop(l);
        assert_eq!(
            listening_pid(SocketAddr::from(([127, 0, 0, 1], port)), None),
            None
        );
        // A listener opened after the table was read is not in it.
        let later = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(table.listening_pid(later.local_addr().unwrap(), None), None);
    }
}
