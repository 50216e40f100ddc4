//! A TCP proxy a test controls: it forwards a loopback port to a target
//! until it is cut, then turns into a black hole — connections open and new
//! ones accepted, but nothing delivered either way — as a path that drops
//! packets does (a client waits for its timeouts, nothing is refused).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A proxy from `127.0.0.1:PORT` to a target.
pub struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

struct Shared {
    cut: AtomicBool,
    stopped: AtomicBool,
    /// Bytes delivered (both ways) while not cut.
    forwarded: AtomicU64,
    /// Connections accepted in all.
    accepted: AtomicU64,
    /// Every socket it holds, shut down when the proxy goes.
    sockets: Mutex<Vec<TcpStream>>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards each connection to `target`.
    pub fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", super::free_port())).expect("proxy port");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            cut: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            forwarded: AtomicU64::new(0),
            accepted: AtomicU64::new(0),
            sockets: Mutex::new(Vec::new()),
        });
        let s = shared.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = conn else { continue };
                s.accepted.fetch_add(1, Ordering::SeqCst);
                s.hold(&client);
                // Cut: accepted, then nothing (the client's handshake waits).
                let server = if s.cut.load(Ordering::SeqCst) {
                    None
                } else {
                    TcpStream::connect_timeout(&target, Duration::from_secs(1)).ok()
                };
                match server {
                    Some(server) => {
                        s.hold(&server);
                        let (c, to) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                        pump(s.clone(), c, Some(to));
                        pump(s.clone(), server, Some(client));
                    }
                    None => pump(s.clone(), client, None),
                }
            }
        });
        Proxy { addr, shared }
    }

    /// The proxy's address as a client URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// From now on nothing gets through, either way, on any connection.
    pub fn cut(&self) {
        self.shared.cut.store(true, Ordering::SeqCst);
    }

    /// Bytes delivered so far (both ways).
    pub fn forwarded(&self) -> u64 {
        self.shared.forwarded.load(Ordering::SeqCst)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.shared.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        for s in self.shared.sockets.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        // Wake the accepting thread so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

impl Shared {
    fn hold(&self, s: &TcpStream) {
        if let Ok(c) = s.try_clone() {
            self.sockets.lock().unwrap().push(c);
        }
    }
}

/// Copies `from` to `to` on a thread of its own while the proxy is not cut;
/// once cut, reads and drops (`to` None: always drops).
fn pump(shared: Arc<Shared>, mut from: TcpStream, mut to: Option<TcpStream>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if shared.cut.load(Ordering::SeqCst) {
                continue;
            }
            let Some(out) = to.as_mut() else { continue };
            if out.write_all(&buf[..n]).is_err() {
                break;
            }
            shared.forwarded.fetch_add(n as u64, Ordering::SeqCst);
        }
        if !shared.cut.load(Ordering::SeqCst) {
            if let Some(out) = to {
                let _ = out.shutdown(Shutdown::Write);
            }
        }
    });
}
