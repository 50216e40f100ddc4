//! Outbound raft traffic: one bounded queue and one sender task per peer,
//! batching messages over one long-lived gRPC stream; snapshots go in calls
//! of their own beside it, their keys read in chunks only as fast as the
//! stream takes them. Failures are reported to raft (unreachable, snapshot
//! failed) so it backs off and retries. Also the [`Partition`] that
//! fault injection uses to drop raft traffic to and from chosen peers.
//! Records etcd's peer series as it goes: bytes as they leave (a snapshot's
//! piece by piece), snapshot sends, whether each peer's connection is up.
//! Each peer also gets a [`Prober`] timing round trips to it (engine::prober).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use tokio::sync::mpsc;
use tonic::transport::Channel;

use crate::dial::dial;
use crate::metrics::{self, PeerStatus, SnapshotSend};
use crate::node::{Node, Outbox, Outgoing};
use crate::pacing::{round_trips, Pacer};
use crate::prober::{Probe, Prober, PROBE_INTERVAL};
use crate::proto::memberctl_v1::raft_client::RaftClient;
use crate::proto::memberctl_v1::{RaftBatch, SnapshotPart};
use crate::storage::SnapshotSource;

/// Messages queued per peer before new ones are dropped (raft resends).
const QUEUE: usize = 1024;
/// Batches waiting in a peer's stream; when it is full the peer is not
/// reading, and is treated as unreachable.
const STREAM_QUEUE: usize = 256;
/// Messages sent in one request at most.
const BATCH: usize = 64;
/// Time a snapshot's stream may take.
const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(600);
/// Pieces of a snapshot read ahead of the stream (each the size its pace
/// allows: [`Pacer::piece`]).
const SNAPSHOT_READ_AHEAD: usize = 8;
/// Largest message accepted or sent (a batch of appends is a few MiB).
pub const MAX_MESSAGE: usize = 64 << 20;
/// HTTP/2 stream window between members (bytes), dialled and served.
pub const PEER_STREAM_WINDOW: u32 = 4 << 20;
/// HTTP/2 connection window between members (bytes), dialled and served.
pub const PEER_CONNECTION_WINDOW: u32 = 8 << 20;
/// The metadata key of a peer's answer that refuses a removed member's
/// traffic (its message says which member and cluster).
pub const REMOVED_MARK: &str = "memberctl-removed-member";

/// Whether `status` is a peer's refusal of a removed member's traffic.
pub fn is_removed_answer(status: &tonic::Status) -> bool {
    status.metadata().get(REMOVED_MARK).is_some()
}

struct Peer {
    urls: Vec<String>,
    queue: mpsc::Sender<Outgoing>,
    /// Whether its connection is up (etcd_network_active_peers); kept when
    /// its URLs change.
    status: Arc<PeerStatus>,
    /// Times round trips to it (stopped with it, or when its URLs change).
    _prober: Prober,
}

/// The peers whose raft traffic this node drops, both ways, as a network
/// partition would (fault injection, `--fault-injection`; empty otherwise).
/// Outgoing messages are dropped here and reported to raft as unreachable;
/// incoming ones by the raft service.
#[derive(Debug, Default)]
pub struct Partition {
    /// Whether any peer is isolated: a lock-free check on the hot path.
    active: AtomicBool,
    isolated: RwLock<BTreeSet<u64>>,
}

impl Partition {
    fn set(&self) -> std::sync::RwLockReadGuard<'_, BTreeSet<u64>> {
        self.isolated.read().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut BTreeSet<u64>)) -> Vec<u64> {
        let mut set = self.isolated.write().unwrap_or_else(|p| p.into_inner());
        f(&mut set);
        self.active.store(!set.is_empty(), Ordering::Release);
        set.iter().copied().collect()
    }

    /// Whether any peer is isolated.
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// Whether raft traffic to and from `peer` is dropped.
    pub fn blocks(&self, peer: u64) -> bool {
        self.is_active() && self.set().contains(&peer)
    }

    /// Drops raft traffic to and from `peers` too; returns every isolated peer.
    pub fn isolate(&self, peers: &[u64]) -> Vec<u64> {
        self.update(|set| set.extend(peers.iter().copied()))
    }

    /// Delivers raft traffic of `peers` again (of every peer when `peers` is
    /// empty); returns the peers still isolated.
    pub fn heal(&self, peers: &[u64]) -> Vec<u64> {
        self.update(|set| {
            if peers.is_empty() {
                set.clear();
            } else {
                set.retain(|p| !peers.contains(p));
            }
        })
    }
}

/// The node's outbound connections.
pub struct Transport {
    node: Arc<OnceLock<Node>>,
    peers: Mutex<HashMap<u64, Peer>>,
    me: u64,
    tls: Option<crate::dial::PeerTls>,
    /// The runtime the senders run on (the raft driver has its own thread).
    runtime: tokio::runtime::Handle,
    /// Peers whose messages are dropped (fault injection).
    partition: Arc<Partition>,
}

impl Transport {
    /// A transport for member `me` (dialling https peers with `tls`), its
    /// senders on the current runtime, dropping the messages to the peers
    /// `partition` isolates; connect it to its node with [`Transport::attach`].
    pub fn new(me: u64, tls: Option<crate::dial::PeerTls>, partition: Arc<Partition>) -> Self {
        Transport {
            node: Arc::new(OnceLock::new()),
            peers: Mutex::new(HashMap::new()),
            me,
            tls,
            runtime: tokio::runtime::Handle::current(),
            partition,
        }
    }

    /// Gives the transport the node it reports failures to.
    pub fn attach(&self, node: Node) {
        let _ = self.node.set(node);
    }

    fn report(&self, m: &Outgoing) {
        report_failed(&self.node, m);
    }
}

impl Outbox for Transport {
    fn send(&self, messages: Vec<Outgoing>) {
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        for m in messages {
            if self.partition.blocks(m.to) {
                if let Some(p) = peers.get(&m.to) {
                    p.status.deactivate();
                }
                self.report(&m);
                continue;
            }
            match peers.get(&m.to) {
                Some(p) => {
                    if let Err(e) = p.queue.try_send(m) {
                        let m = match e {
                            mpsc::error::TrySendError::Full(m)
                            | mpsc::error::TrySendError::Closed(m) => m,
                        };
                        self.report(&m);
                    }
                }
                None => self.report(&m),
            }
        }
    }

    fn peers(&self, list: Vec<(u64, Vec<String>)>) {
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.retain(|id, p| {
            let kept = list.iter().any(|(i, _)| i == id);
            if !kept {
                p.status.removed();
            }
            kept
        });
        for (id, urls) in list {
            if id == self.me || urls.is_empty() {
                continue;
            }
            if peers.get(&id).is_some_and(|p| p.urls == urls) {
                continue;
            }
            // The peer's series are served from the start (empty; round
            // trips are timed by the prober, and the leader's heartbeats).
            let m = metrics::get();
            let to = metrics::peer(id);
            m.peer_sent_failures.with_label_values(&[&to]);
            m.peer_rtt.with_label_values(&[&to]);
            m.peer_sent_bytes.with_label_values(&[&to]);
            m.peer_received_bytes.with_label_values(&[&to]);
            let status = match peers.get(&id) {
                Some(p) => p.status.clone(),
                None => Arc::new(PeerStatus::new(self.me, id)),
            };
            let (tx, rx) = mpsc::channel(QUEUE);
            let node = self.node.clone();
            let sender = Sender {
                me: self.me,
                to: id,
                urls: urls.clone(),
                node,
                tls: self.tls.clone(),
                partition: self.partition.clone(),
                status: status.clone(),
            };
            self.runtime.spawn(peer_task(sender, rx));
            let _enter = self.runtime.enter();
            let prober = Prober::start(
                Probe {
                    me: self.me,
                    to: id,
                    urls: urls.clone(),
                    tls: self.tls.clone(),
                    blocked: {
                        let partition = self.partition.clone();
                        Arc::new(move || partition.blocks(id))
                    },
                    removed: {
                        let node = self.node.clone();
                        Arc::new(move || {
                            if let Some(node) = node.get() {
                                node.removed_by_peer();
                            }
                        })
                    },
                },
                PROBE_INTERVAL,
            );
            peers.insert(
                id,
                Peer {
                    urls,
                    queue: tx,
                    status,
                    _prober: prober,
                },
            );
        }
    }
}

/// Counts a failed send to `to` (etcd_network_peer_sent_failures_total).
fn sent_failure(to: u64) {
    metrics::get()
        .peer_sent_failures
        .with_label_values(&[&metrics::peer(to)])
        .inc();
}

/// Tells raft message `m` could not be sent (and, for a snapshot, that it
/// failed; a snapshot that never started counts as a failed send too); a
/// heartbeat among them is counted in etcd_server_heartbeat_send_failures_total.
fn report_failed(node: &OnceLock<Node>, m: &Outgoing) {
    let to = m.to;
    sent_failure(to);
    if m.heartbeat {
        metrics::heartbeat_send_failure();
    }
    if m.snapshot.is_some() {
        drop(SnapshotSend::start(to));
    }
    if let Some(node) = node.get() {
        node.report_unreachable(to);
        if m.snapshot.is_some() {
            node.report_snapshot(to, false);
        }
    }
}

async fn connect(url: &str, tls: Option<&crate::dial::PeerTls>) -> Option<RaftClient<Channel>> {
    let windows = Some((PEER_STREAM_WINDOW, PEER_CONNECTION_WINDOW));
    Some(
        dial(url, tls, windows)
            .await?
            .max_encoding_message_size(MAX_MESSAGE)
            .max_decoding_message_size(MAX_MESSAGE),
    )
}

/// A long-lived `Raft.Stream` call to a peer: batches go out in order with no
/// round trip each. Broken once the call ends (the peer went away, refused a
/// batch, or the connection failed): the sender then reconnects and raft,
/// told the peer is unreachable, resends what was lost.
struct OpenStream {
    tx: mpsc::Sender<RaftBatch>,
    broken: Arc<AtomicBool>,
}

impl OpenStream {
    /// Opens a stream of batches to peer `to`; the peer's answer that this
    /// member was removed from the cluster stops the node. Each batch's
    /// messages are counted in etcd_network_peer_sent_bytes_total as the
    /// call takes it.
    fn open(mut client: RaftClient<Channel>, to: u64, node: Arc<OnceLock<Node>>) -> OpenStream {
        let (tx, rx) = mpsc::channel::<RaftBatch>(STREAM_QUEUE);
        let broken = Arc::new(AtomicBool::new(false));
        let flag = broken.clone();
        let sent = metrics::sent_bytes(to);
        let body = futures_util::stream::unfold(rx, move |mut rx| {
            let sent = sent.clone();
            async move {
                let batch = rx.recv().await?;
                sent.inc_by(batch.messages.iter().map(|m| m.len() as u64).sum());
                Some((batch, rx))
            }
        });
        tokio::spawn(async move {
            let r = client.stream(body).await;
            flag.store(true, Ordering::Release);
            if r.is_err_and(|s| is_removed_answer(&s)) {
                if let Some(node) = node.get() {
                    node.removed_by_peer();
                }
            }
        });
        OpenStream { tx, broken }
    }

    fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Acquire) || self.tx.is_closed()
    }
}

/// What one peer's sender task needs.
struct Sender {
    me: u64,
    /// The peer.
    to: u64,
    urls: Vec<String>,
    node: Arc<OnceLock<Node>>,
    tls: Option<crate::dial::PeerTls>,
    partition: Arc<Partition>,
    status: Arc<PeerStatus>,
}

/// Sends one peer's messages in order until its queue closes (the peer was removed).
async fn peer_task(sender: Sender, mut rx: mpsc::Receiver<Outgoing>) {
    let Sender {
        me,
        to,
        urls,
        node,
        tls,
        partition,
        status,
    } = sender;
    let mut client: Option<RaftClient<Channel>> = None;
    let mut stream: Option<OpenStream> = None;
    let mut url_index = 0;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        // Queued before the peer was isolated: dropped all the same.
        if batch.iter().any(|m| partition.blocks(m.to)) {
            status.deactivate();
            for m in &batch {
                report_failed(&node, m);
            }
            continue;
        }
        if stream.as_ref().is_some_and(OpenStream::is_broken) {
            status.deactivate();
            stream = None;
            client = None;
        }
        if client.is_none() {
            client = connect(&urls[url_index % urls.len()], tls.as_ref()).await;
            url_index += 1;
            if client.is_some() {
                status.activate();
            } else {
                status.deactivate();
            }
        }
        // Snapshots go beside the stream, each in a call of its own on a
        // connection of its own: what it has buffered on the way never
        // holds up the stream's heartbeats and appends.
        let mut messages = Vec::with_capacity(batch.len());
        let mut sent = Vec::with_capacity(batch.len());
        for m in batch {
            let Some(source) = m.snapshot else {
                messages.push(m.bytes);
                sent.push(Outgoing {
                    bytes: Vec::new(),
                    ..m
                });
                continue;
            };
            // The URL the stream last dialled.
            let url = urls[url_index.wrapping_sub(1) % urls.len()].clone();
            tokio::spawn(send_snapshot(
                (url, tls.clone()),
                m.to,
                m.bytes,
                source,
                (node.clone(), status.clone()),
            ));
        }
        if messages.is_empty() {
            continue;
        }
        let ok = match client.as_mut() {
            Some(c) => stream
                .get_or_insert_with(|| OpenStream::open(c.clone(), to, node.clone()))
                .tx
                .try_send(RaftBatch { messages, from: me })
                .is_ok(),
            None => false,
        };
        if !ok {
            status.deactivate();
            client = None;
            stream = None;
            for m in &sent {
                report_failed(&node, m);
            }
        }
    }
}

/// Streams one snapshot to a peer on a connection of its own: its raft
/// message, then its keys in pieces read on a blocking thread a few pieces
/// ahead of the stream, at the pace [`Pacer`] sets, then the last part;
/// reports the outcome to raft. Each part's bytes count in
/// etcd_network_peer_sent_bytes_total as the call takes it (etcd adds a
/// snapshot's whole size once it is sent), the snapshot in etcd's
/// etcd_network_snapshot_send_* series.
async fn send_snapshot(
    (url, tls): (String, Option<crate::dial::PeerTls>),
    to: u64,
    message: Vec<u8>,
    source: SnapshotSource,
    (node, status): (Arc<OnceLock<Node>>, Arc<PeerStatus>),
) {
    let sending = SnapshotSend::start(to);
    let Some(mut client) = connect(&url, tls.as_ref()).await else {
        sent_failure(to);
        status.deactivate();
        if let Some(node) = node.get() {
            node.report_unreachable(to);
            node.report_snapshot(to, false);
        }
        return;
    };
    let (tx, rx) = mpsc::channel::<SnapshotPart>(SNAPSHOT_READ_AHEAD);
    let first = SnapshotPart {
        message,
        ..Default::default()
    };
    let leader = node.clone();
    let reader = tokio::task::spawn_blocking(move || {
        if tx.blocking_send(first).is_err() {
            return false;
        }
        let started = std::time::Instant::now();
        let mut pacer = Pacer::new(started);
        let (mut sent, mut lowest, mut highest) = (0usize, f64::MAX, 0f64);
        let read = source.read(|chunk| {
            let delay = crate::storage::snapshot_chunk_delay();
            if !delay.is_zero() {
                std::thread::sleep(delay);
            }
            // Paced: the stream yields to the heartbeats, votes and appends
            // that share its links (see engine::pacing), in pieces the size
            // its rate allows.
            let mut rest = bytes::Bytes::from(chunk);
            while !rest.is_empty() {
                let now = std::time::Instant::now();
                if pacer.due(now) {
                    pacer.observe(now, round_trips().queueing(now, to));
                    // No newer round trip to change the rate by: asked for.
                    if pacer.wants_ping(now) {
                        if let Some(leader) = leader.get() {
                            leader.ping();
                        }
                    }
                }
                let piece = rest.split_to(pacer.piece().min(rest.len()));
                let wait = pacer.wait(now, piece.len());
                if !wait.is_zero() {
                    std::thread::sleep(wait);
                }
                sent += piece.len();
                lowest = lowest.min(pacer.rate());
                highest = highest.max(pacer.rate());
                let part = SnapshotPart {
                    chunk: piece,
                    ..Default::default()
                };
                if tx.blocking_send(part).is_err() {
                    return false;
                }
            }
            true
        });
        let secs = started.elapsed().as_secs_f64();
        slog::info!(
            crate::log::logger(),
            "snapshot to {to:x}: {:.1} MB read out in {secs:.1} s ({:.1} Mbit/s), paced between {:.1} and {:.1} Mbit/s",
            sent as f64 / 1e6,
            sent as f64 * 8.0 / 1e6 / secs.max(1e-3),
            lowest.min(highest) * 8.0 / 1e6,
            highest * 8.0 / 1e6,
        );
        match read {
            Some(keys) => tx
                .blocking_send(SnapshotPart {
                    last: true,
                    keys,
                    ..Default::default()
                })
                .is_ok(),
            _ => false,
        }
    });
    let sent_bytes = metrics::sent_bytes(to);
    let body = futures_util::stream::unfold(rx, move |mut rx| {
        let sent_bytes = sent_bytes.clone();
        async move {
            let part = rx.recv().await?;
            sent_bytes.inc_by((part.message.len() + part.chunk.len()) as u64);
            Some((part, rx))
        }
    });
    let answer = tokio::time::timeout(SNAPSHOT_TIMEOUT, client.snapshot(body)).await;
    let sent = matches!(answer, Ok(Ok(_)));
    let read = reader.await.unwrap_or(false);
    let ok = sent && read;
    if ok {
        status.activate();
        sending.succeeded();
    } else {
        status.deactivate();
        drop(sending);
    }
    if let Some(node) = node.get() {
        if matches!(&answer, Ok(Err(s)) if is_removed_answer(s)) {
            node.removed_by_peer();
        }
        if !ok {
            sent_failure(to);
            node.report_unreachable(to);
        }
        node.report_snapshot(to, ok);
    }
}
