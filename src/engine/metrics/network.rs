//! The peer network's and the server's own series, as etcd's rafthttp and
//! etcdserver record them: bytes to and from each peer, snapshots sent and
//! received (counted while they stream, timed when they end), whether a
//! peer's connection is up, a snapshot being installed, late or lost
//! heartbeats and slow applies. Peers are labelled as etcd prints member IDs
//! in its series (`types.ID.String()`: hexadecimal, no leading zeros).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use prometheus::IntCounter;

use super::get;

/// etcd's `--experimental-warning-apply-duration` default: an apply (or a
/// read-only range or transaction) that takes longer counts in
/// `etcd_server_slow_apply_total`.
pub const WARN_APPLY_DURATION: Duration = Duration::from_millis(100);

/// The `From` label of a snapshot whose sender is not known (etcd's
/// `unknownSnapshotSender`).
pub const UNKNOWN_SNAPSHOT_SENDER: &str = "UNKNOWN_SNAPSHOT_SENDER";

/// Member `id` as etcd's peer labels write it (`To`, `From`, `Remote`).
pub fn peer(id: u64) -> String {
    format!("{id:x}")
}

/// etcd_network_peer_sent_bytes_total of peer `to`, to add to as bytes go.
pub fn sent_bytes(to: u64) -> IntCounter {
    get().peer_sent_bytes.with_label_values(&[&peer(to)])
}

/// etcd_network_peer_received_bytes_total of peer `from`, to add to as bytes come.
pub fn received_bytes(from: u64) -> IntCounter {
    get().peer_received_bytes.with_label_values(&[&peer(from)])
}

/// Counts a heartbeat that went late or could not be sent
/// (etcd_server_heartbeat_send_failures_total).
pub fn heartbeat_send_failure() {
    get().heartbeat_send_failures.inc();
}

/// Counts an apply that took longer than [`WARN_APPLY_DURATION`] since
/// `started` (etcd_server_slow_apply_total); returns how long it took when
/// it did, for the caller's warning.
pub fn slow_apply(started: Instant) -> Option<Duration> {
    let took = started.elapsed();
    if took <= WARN_APPLY_DURATION {
        return None;
    }
    get().slow_apply.inc();
    Some(took)
}

/// Times a read-only range or transaction, as etcd's `warnOfExpensiveReadOnly…`
/// does: counted in etcd_server_slow_apply_total when dropped after more than
/// [`WARN_APPLY_DURATION`].
pub struct SlowRead(Instant);

impl SlowRead {
    /// Starts timing.
    pub fn start() -> SlowRead {
        SlowRead(Instant::now())
    }
}

impl Drop for SlowRead {
    fn drop(&mut self) {
        slow_apply(self.0);
    }
}

/// How one snapshot's stream ends, for the send or the receive side.
struct Transfer {
    peer: String,
    started: Instant,
    succeeded: bool,
    send: bool,
}

impl Transfer {
    fn start(peer: String, send: bool) -> Transfer {
        let m = get();
        let inflight = if send {
            &m.snapshot_send_inflights
        } else {
            &m.snapshot_receive_inflights
        };
        inflight.with_label_values(&[&peer]).inc();
        Transfer {
            peer,
            started: Instant::now(),
            succeeded: false,
            send,
        }
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        let m = get();
        let label = [self.peer.as_str()];
        let (inflight, success, failures, seconds) = if self.send {
            (
                &m.snapshot_send_inflights,
                &m.snapshot_send_success,
                &m.snapshot_send_failures,
                &m.snapshot_send_seconds,
            )
        } else {
            (
                &m.snapshot_receive_inflights,
                &m.snapshot_receive_success,
                &m.snapshot_receive_failures,
                &m.snapshot_receive_seconds,
            )
        };
        inflight.with_label_values(&label).dec();
        if self.succeeded {
            success.with_label_values(&label).inc();
            seconds
                .with_label_values(&label)
                .observe(self.started.elapsed().as_secs_f64());
        } else {
            failures.with_label_values(&label).inc();
        }
    }
}

/// A snapshot being sent to a peer: in etcd_network_snapshot_send_inflights_total
/// until dropped, then counted as a success (timed in
/// etcd_network_snapshot_send_total_duration_seconds) if [`SnapshotSend::succeeded`]
/// was called, else as a failure.
pub struct SnapshotSend(Transfer);

impl SnapshotSend {
    /// A snapshot to `to` starts.
    pub fn start(to: u64) -> SnapshotSend {
        SnapshotSend(Transfer::start(peer(to), true))
    }

    /// The peer took it whole.
    pub fn succeeded(mut self) {
        self.0.succeeded = true;
    }
}

/// A snapshot being received from a peer: as [`SnapshotSend`], on the
/// receive side's series (etcd_network_snapshot_receive_…).
pub struct SnapshotReceive(Transfer);

impl SnapshotReceive {
    /// A snapshot from `from` (None: unknown sender) starts.
    pub fn start(from: Option<u64>) -> SnapshotReceive {
        let label = from.map_or_else(|| UNKNOWN_SNAPSHOT_SENDER.to_string(), peer);
        SnapshotReceive(Transfer::start(label, false))
    }

    /// It was received whole and handed to raft.
    pub fn succeeded(mut self) {
        self.0.succeeded = true;
    }
}

/// A received snapshot being installed into the state
/// (etcd_server_snapshot_apply_in_progress_total is 1 until dropped).
pub struct ApplyingSnapshot(());

impl ApplyingSnapshot {
    /// The install starts.
    pub fn start() -> ApplyingSnapshot {
        get().snapshot_apply_in_progress.inc();
        ApplyingSnapshot(())
    }
}

impl Drop for ApplyingSnapshot {
    fn drop(&mut self) {
        get().snapshot_apply_in_progress.dec();
    }
}

/// Whether the connection to one peer is up, as etcd's `peerStatus`:
/// etcd_network_active_peers{Local,Remote} is 1 while it is, and
/// etcd_network_disconnected_peers_total counts each time it went down.
pub struct PeerStatus {
    local: String,
    remote: String,
    active: AtomicBool,
    removed: AtomicBool,
}

impl PeerStatus {
    /// The connection from `local` to `remote`, not yet up (its series
    /// served at 0 from now on).
    pub fn new(local: u64, remote: u64) -> PeerStatus {
        let status = PeerStatus {
            local: peer(local),
            remote: peer(remote),
            active: AtomicBool::new(false),
            removed: AtomicBool::new(false),
        };
        status.set(0);
        status
    }

    fn set(&self, value: i64) {
        get()
            .active_peers
            .with_label_values(&[&self.local, &self.remote])
            .set(value);
    }

    /// A connection to the peer is up, or a message or snapshot reached it.
    pub fn activate(&self) {
        if self.removed.load(Ordering::Acquire) {
            return;
        }
        if !self.active.swap(true, Ordering::AcqRel) {
            self.set(1);
        }
    }

    /// Connecting or sending to the peer failed.
    pub fn deactivate(&self) {
        if self.active.swap(false, Ordering::AcqRel) {
            self.set(0);
            get()
                .disconnected_peers
                .with_label_values(&[&self.local, &self.remote])
                .inc();
        }
    }

    /// The peer left the cluster: its gauge goes (and stays) at 0, which is
    /// not counted as a disconnection.
    pub fn removed(&self) {
        self.removed.store(true, Ordering::Release);
        if self.active.swap(false, Ordering::AcqRel) {
            self.set(0);
        }
    }
}
