//! The kernel's TCP sockets asked for through netlink (`sock_diag`), as `ss` asks: only the states wanted, no text to parse.
//!
//! Reading `/proc/net/tcp` and `/proc/net/tcp6` makes the kernel walk and
//! print its whole socket table: about 7 ms on this machine with six sockets
//! in it, most of `member status`'s time. A `SOCK_DIAG_BY_FAMILY` request
//! for listening sockets only is answered in about 0.05 ms. Where netlink
//! is not allowed (some sandboxes), the caller falls back to /proc.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{FromRawFd, OwnedFd};

use super::source::Socket;

/// The kernel's `TCP_LISTEN` state.
const TCP_LISTEN: u8 = 10;
/// Every TCP state (`TCP_ESTABLISHED` 1 to `TCP_NEW_SYN_RECV` 12).
pub(super) const ALL_STATES: u32 = 0x1ffe;
/// Listening sockets only.
pub(super) const LISTENING: u32 = 1 << TCP_LISTEN;

/// `SOCK_DIAG_BY_FAMILY`.
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLMSG_ERROR`, `NLMSG_DONE`.
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
/// `NLM_F_REQUEST | NLM_F_DUMP`.
const DUMP_REQUEST: u16 = 0x1 | 0x300;
/// `struct nlmsghdr`.
const HEADER: usize = 16;
/// `struct inet_diag_msg`: family, state, timer, retrans, the socket's
/// id (ports, addresses, interface, cookie), expires, queues, uid, inode.
const MESSAGE: usize = 72;

/// The TCP sockets, IPv4 and IPv6, in the states of the mask `states`
/// (bit N for state N); `None` when netlink cannot be asked.
pub(super) fn tcp(states: u32) -> Option<Vec<Socket>> {
    let mut out = dump(libc::AF_INET as u8, states)?;
    out.extend(dump(libc::AF_INET6 as u8, states)?);
    Some(out)
}

/// One family's dump.
fn dump(family: u8, states: u32) -> Option<Vec<Socket>> {
    // SAFETY: socket(2) takes no pointers; a non-negative result is a new
    // descriptor this function alone owns.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let mut sock = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    sock.write_all(&request(family, states)).ok()?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = sock.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        let mut at = 0;
        while at + HEADER <= n {
            let len = u32::from_ne_bytes(buf[at..at + 4].try_into().ok()?) as usize;
            let kind = u16::from_ne_bytes(buf[at + 4..at + 6].try_into().ok()?);
            if len < HEADER || at + len > n {
                return None;
            }
            match kind {
                NLMSG_DONE => return Some(out),
                NLMSG_ERROR => return None,
                _ => out.extend(parse(&buf[at + HEADER..at + len])),
            }
            at += (len + 3) & !3;
        }
    }
}

/// A `SOCK_DIAG_BY_FAMILY` dump request for TCP sockets of `family` in `states`.
fn request(family: u8, states: u32) -> Vec<u8> {
    // nlmsghdr, then inet_diag_req_v2: family, protocol, ext, pad, states,
    // and an empty socket id (48 bytes): every socket.
    let len = HEADER + 8 + 48;
    let mut r = Vec::with_capacity(len);
    r.extend((len as u32).to_ne_bytes());
    r.extend(SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    r.extend(DUMP_REQUEST.to_ne_bytes());
    r.extend(1u32.to_ne_bytes()); // sequence
    r.extend(0u32.to_ne_bytes()); // to the kernel
    r.extend([family, libc::IPPROTO_TCP as u8, 0, 0]);
    r.extend(states.to_ne_bytes());
    r.resize(len, 0);
    r
}

/// One `inet_diag_msg`; ports and addresses in network order.
fn parse(m: &[u8]) -> Option<Socket> {
    if m.len() < MESSAGE {
        return None;
    }
    let addr = |at: usize| -> Option<IpAddr> {
        match m[0] as i32 {
            libc::AF_INET => Some(IpAddr::V4(Ipv4Addr::from(
                <[u8; 4]>::try_from(&m[at..at + 4]).ok()?,
            ))),
            libc::AF_INET6 => {
                let v6 = Ipv6Addr::from(<[u8; 16]>::try_from(&m[at..at + 16]).ok()?);
                Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4))
            }
            _ => None,
        }
    };
    let port = |at: usize| u16::from_be_bytes([m[at], m[at + 1]]);
    Some(Socket {
        local: SocketAddr::new(addr(8)?, port(4)),
        remote: SocketAddr::new(addr(24)?, port(6)),
        listening: m[1] == TCP_LISTEN,
        inode: u64::from(u32::from_ne_bytes(m[68..72].try_into().ok()?)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listener_and_a_connection_are_seen_as_proc_lists_them() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let conn = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        // Where netlink is refused the callers read /proc; here it must answer.
        let all = tcp(ALL_STATES).expect("netlink's sock_diag answers");
        let listening = tcp(LISTENING).unwrap();
        let me = l.local_addr().unwrap();
        assert!(listening.iter().any(|s| s.listening && s.local == me));
        assert!(listening.iter().all(|s| s.listening));
        let from = conn.local_addr().unwrap();
        let c = all
            .iter()
            .find(|s| s.local == from && s.remote == me)
            .expect("the connection");
        assert!(!c.listening);
        // The same inode as /proc gives.
        let proc = super::super::source::proc_tables();
        assert!(proc.iter().any(|s| s.local == from && s.inode == c.inode));
    }

    #[test]
    fn short_or_foreign_messages_are_skipped() {
        assert!(parse(&[0u8; 10]).is_none());
        let mut m = [0u8; MESSAGE];
        m[0] = 99;
        assert!(parse(&m).is_none());
    }
}
