//! The link proxy: a listener per member on the peer port it advertises, forwarding each connection to the port the member really listens on, its bytes paced through the queue of their member pair and direction.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::shaper::{Admission, Shaper};
use super::{source, LinkSpec, Sharing};

/// Bytes read from a socket at once: a chunk enters the queue whole.
const CHUNK: usize = 16 * 1024;
/// The name of the other end of a connection whose opener /proc could not name.
const UNKNOWN: &str = "?";
/// Chunks up to this size are small messages (heartbeats, votes, acks):
/// their delays are kept for [`Links::take_delays`].
pub const SMALL: usize = 1024;
/// Most delays kept per direction between two [`Links::take_delays`].
const DELAYS_KEPT: usize = 1 << 20;

/// One member behind the link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The member's name.
    pub member: String,
    /// Where the link listens for it: the host and port of its advertised peer URL.
    pub listen: SocketAddr,
    /// Where the member really listens for its peers.
    pub target: SocketAddr,
}

/// The queue of one direction of one member pair, shared by its connections.
type Queue = Arc<Mutex<Shaper>>;

/// A running link model: listeners, their connections and the queues of
/// every member pair. Dropping it stops the listeners and cuts the
/// connections.
pub struct Links {
    inner: Arc<Inner>,
}

struct Inner {
    spec: Mutex<LinkSpec>,
    /// Members whose links have settings of their own (a member far away).
    member_specs: Mutex<HashMap<String, LinkSpec>>,
    /// The delay (queue wait + one way) of every small chunk, per direction.
    delays: Mutex<HashMap<(String, String), Vec<Duration>>>,
    routes: Mutex<Vec<Route>>,
    /// The queue of each (from, to) direction of each member pair.
    queues: Mutex<HashMap<(String, String), Queue>>,
    /// Until when the links of a member (or of all: `None`) deliver nothing
    /// (a stalled path).
    stalled_until: Mutex<HashMap<Option<String>, Instant>>,
    /// Every socket the proxy holds, to cut on stop.
    sockets: Mutex<Vec<TcpStream>>,
    /// The last number given to a connection (its share of a queue).
    connections: AtomicU64,
    stopped: AtomicBool,
}

impl Links {
    /// A link model with no members yet.
    pub fn new(spec: LinkSpec) -> Links {
        Links {
            inner: Arc::new(Inner {
                spec: Mutex::new(spec),
                member_specs: Mutex::new(HashMap::new()),
                delays: Mutex::new(HashMap::new()),
                routes: Mutex::new(Vec::new()),
                queues: Mutex::new(HashMap::new()),
                stalled_until: Mutex::new(HashMap::new()),
                sockets: Mutex::new(Vec::new()),
                connections: AtomicU64::new(0),
                stopped: AtomicBool::new(false),
            }),
        }
    }

    /// The settings of every link.
    pub fn spec(&self) -> LinkSpec {
        *lock(&self.inner.spec)
    }

    /// Changes every link's settings from now on (a bench loads its data on
    /// a fast link, then measures on the profile's). Whether queues are
    /// shared (`shared=`) is taken when a connection opens: change it only
    /// before the first.
    pub fn set_spec(&self, spec: LinkSpec) {
        *lock(&self.inner.spec) = spec;
        let own = lock(&self.inner.member_specs);
        for ((from, to), q) in lock(&self.inner.queues).iter() {
            if !own.contains_key(from) && !own.contains_key(to) {
                lock(q).set_spec(spec);
            }
        }
    }

    /// Gives the links to and from `member` settings of their own from now
    /// on (a member in another region); the others keep theirs.
    pub fn set_member_spec(&self, member: &str, spec: LinkSpec) {
        lock(&self.inner.member_specs).insert(member.to_string(), spec);
        for ((from, to), q) in lock(&self.inner.queues).iter() {
            if from == member || to == member {
                lock(q).set_spec(spec);
            }
        }
    }

    /// The delays (queue wait and one-way delay) small messages (chunks of
    /// at most `SMALL` bytes) met since the last call, per direction
    /// (from, to); forgets them.
    pub fn take_delays(&self) -> HashMap<(String, String), Vec<Duration>> {
        std::mem::take(&mut *lock(&self.inner.delays))
    }

    /// The members behind the link.
    pub fn routes(&self) -> Vec<Route> {
        lock(&self.inner.routes).clone()
    }

    /// Puts `route`'s member behind the link: listens on `route.listen`
    /// (an error when the port is taken) and forwards to `route.target`.
    pub fn add(&self, route: Route) -> std::io::Result<()> {
        let listener = TcpListener::bind(route.listen)?;
        lock(&self.inner.routes).push(route.clone());
        let inner = self.inner.clone();
        std::thread::Builder::new()
            .name(format!("link-{}", route.member))
            .spawn(move || accept_loop(inner, listener, route))?;
        Ok(())
    }

    /// Every link delivers nothing for `how_long` (bytes wait, none is
    /// lost), as a path that stalls; connections stay open.
    /// With `member`, only the links to and from that member stall.
    pub fn stall(&self, member: Option<&str>, how_long: Duration) {
        lock(&self.inner.stalled_until)
            .insert(member.map(str::to_string), Instant::now() + how_long);
    }
}

impl Drop for Links {
    fn drop(&mut self) {
        self.inner.stopped.store(true, Ordering::Release);
        for r in lock(&self.inner.routes).iter() {
            // Wakes the accept loop, which then sees it is stopped.
            let _ = TcpStream::connect_timeout(&r.listen, Duration::from_millis(200));
        }
        for s in lock(&self.inner.sockets).drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn accept_loop(inner: Arc<Inner>, listener: TcpListener, route: Route) {
    for conn in listener.incoming() {
        if inner.stopped.load(Ordering::Acquire) {
            return;
        }
        let Ok(client) = conn else { continue };
        let inner = inner.clone();
        let route = route.clone();
        let _ = std::thread::Builder::new()
            .name(format!("link-{}-conn", route.member))
            .spawn(move || connect(inner, client, route));
    }
}

/// Joins an accepted connection to its member, both ways through the
/// queues of the pair (opener → member, member → opener).
fn connect(inner: Arc<Inner>, client: TcpStream, route: Route) {
    let Ok(server) = TcpStream::connect_timeout(&route.target, Duration::from_secs(2)) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let members: Vec<(String, u16)> = lock(&inner.routes)
        .iter()
        .map(|r| (r.member.clone(), r.target.port()))
        .collect();
    let from = client
        .peer_addr()
        .ok()
        .and_then(|c| source::opener(c, route.listen, &members))
        .unwrap_or_else(|| UNKNOWN.to_string());
    let to = route.member.clone();
    {
        let mut sockets = lock(&inner.sockets);
        sockets.retain(|s| s.peer_addr().is_ok());
        for s in [&client, &server] {
            if let Ok(s) = s.try_clone() {
                sockets.push(s);
            }
        }
    }
    let (Ok(client2), Ok(server2)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let forward = queue(&inner, &from, &to);
    let back = queue(&inner, &to, &from);
    pump(
        inner.clone(),
        client,
        server,
        forward,
        (from.clone(), to.clone()),
    );
    pump(inner, server2, client2, back, (to, from));
}

fn queue(inner: &Inner, from: &str, to: &str) -> Queue {
    let spec = spec_between(inner, from, to);
    // Sharing an uplink: every peer of `from` behind one queue; sharing
    // all: everyone's traffic, both ways.
    let (from, to) = match spec.shared {
        Sharing::Pair => (from, to),
        Sharing::Uplink => (from, "*"),
        Sharing::All => ("*", "*"),
    };
    lock(&inner.queues)
        .entry((from.to_string(), to.to_string()))
        .or_insert_with(|| Arc::new(Mutex::new(Shaper::new(spec))))
        .clone()
}

/// The settings of the link between `from` and `to`: a member's own when
/// either has them, else every link's.
fn spec_between(inner: &Inner, from: &str, to: &str) -> LinkSpec {
    let own = lock(&inner.member_specs);
    own.get(from)
        .or_else(|| own.get(to))
        .copied()
        .unwrap_or_else(|| *lock(&inner.spec))
}

/// One direction of one connection: a reader that admits chunks into the
/// pair's queue (waiting while it is full), and a writer that delivers
/// each when it arrives.
fn pump(inner: Arc<Inner>, from: TcpStream, to: TcpStream, shaper: Queue, pair: (String, String)) {
    let spec = spec_between(&inner, &pair.0, &pair.1);
    let name = format!("{}>{}", pair.0, pair.1);
    // Room for what the queue and the wire hold, in chunks of any size.
    let in_flight =
        spec.queue_bytes + (spec.bandwidth_bits as f64 / 8.0 * spec.one_way.as_secs_f64()) as u64;
    let (tx, rx) = sync_channel::<(Instant, Vec<u8>)>((in_flight as usize / 1024).max(64));
    let recorder = inner.clone();
    let own = pair.clone();
    let reader = std::thread::Builder::new()
        .name(format!("link-{name}-in"))
        .spawn(move || read_side(from, shaper, tx, &recorder, own));
    if reader.is_ok() {
        let _ = std::thread::Builder::new()
            .name(format!("link-{name}-out"))
            .spawn(move || write_side(inner, to, rx, pair));
    }
}

/// Reads chunks from one side, admits each into the pair's queue (waiting
/// while it is full, or while this connection holds its share of it) and
/// hands it to the writer with its arrival time.
fn read_side(
    mut from: TcpStream,
    shaper: Queue,
    tx: SyncSender<(Instant, Vec<u8>)>,
    inner: &Inner,
    pair: (String, String),
) {
    let connection = inner.connections.fetch_add(1, Ordering::Relaxed) + 1;
    let mut buf = vec![0u8; CHUNK];
    loop {
        // With a per-connection limit a read is at most the connection's
        // share of the queue, as a socket puts at most that into a qdisc.
        let most = lock(&shaper)
            .share()
            .map_or(CHUNK, |s| (s as usize).min(CHUNK));
        let n = match from.read(&mut buf[..most]) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let read_at = Instant::now();
        let arrives = loop {
            let offered = lock(&shaper).offer(Instant::now(), connection, n as u64);
            match offered {
                Admission::Sent { arrives, .. } => break arrives,
                Admission::Wait(d) => std::thread::sleep(d),
            }
        };
        if n <= SMALL {
            let mut delays = lock(&inner.delays);
            let kept = delays.entry(pair.clone()).or_default();
            if kept.len() < DELAYS_KEPT {
                kept.push(arrives - read_at);
            }
        }
        if tx.send((arrives, buf[..n].to_vec())).is_err() {
            break;
        }
    }
    // The writer sees the channel close and ends its side.
}

/// Delivers each chunk to the other side when it arrives (later while the
/// link is stalled).
/// Until when the direction `pair` is stalled, if it is.
fn stalled(inner: &Inner, pair: &(String, String)) -> Option<Instant> {
    let stalls = lock(&inner.stalled_until);
    [None, Some(pair.0.clone()), Some(pair.1.clone())]
        .iter()
        .filter_map(|k| stalls.get(k).copied())
        .max()
}

fn write_side(
    inner: Arc<Inner>,
    mut to: TcpStream,
    rx: Receiver<(Instant, Vec<u8>)>,
    pair: (String, String),
) {
    while let Ok((arrives, bytes)) = rx.recv() {
        let at = stalled(&inner, &pair).map_or(arrives, |s| s.max(arrives));
        let now = Instant::now();
        if at > now {
            std::thread::sleep(at - now);
        }
        if to.write_all(&bytes).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
