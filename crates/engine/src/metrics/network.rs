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

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the sample written exactly as `series` in `text`.
    fn sample(text: &str, series: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn snapshots_count_as_etcd_counts_them_by_peer() {
        // IDs no other test uses: the metrics are the process's.
        let (ok, failed) = (0x0abc_0001_u64, 0x0abc_0002_u64);
        let send = SnapshotSend::start(ok);
        sent_bytes(ok).inc_by(64 * 1024);
        let text = get().render(&Default::default());
        assert_eq!(
            sample(
                &text,
                "etcd_network_snapshot_send_inflights_total{To=\"abc0001\"}"
            ),
            Some(1.0)
        );
        send.succeeded();
        drop(SnapshotReceive::start(Some(failed)));
        drop(SnapshotReceive::start(None));
        let text = get().render(&Default::default());
        for (series, value) in [
            ("etcd_network_snapshot_send_inflights_total{To=\"abc0001\"}", 0.0),
            ("etcd_network_snapshot_send_success{To=\"abc0001\"}", 1.0),
            ("etcd_network_snapshot_send_total_duration_seconds_count{To=\"abc0001\"}", 1.0),
            ("etcd_network_snapshot_send_total_duration_seconds_bucket{To=\"abc0001\",le=\"51.2\"}", 1.0),
            ("etcd_network_peer_sent_bytes_total{To=\"abc0001\"}", 65536.0),
            ("etcd_network_snapshot_receive_failures{From=\"abc0002\"}", 1.0),
            ("etcd_network_snapshot_receive_inflights_total{From=\"abc0002\"}", 0.0),
            ("etcd_network_snapshot_receive_failures{From=\"UNKNOWN_SNAPSHOT_SENDER\"}", 1.0),
        ] {
            assert_eq!(sample(&text, series), Some(value), "{series}");
        }
        // etcd's buckets: 100 ms doubling ten times.
        assert!(text.contains(
            "etcd_network_snapshot_send_total_duration_seconds_bucket{To=\"abc0001\",le=\"0.1\"}"
        ));
        assert!(!text.contains("le=\"102.4\""));
        assert!(text.contains("# TYPE etcd_network_snapshot_send_success counter\n"));
        assert!(text.contains("# TYPE etcd_network_snapshot_receive_inflights_total gauge\n"));
    }

    #[test]
    fn a_peer_is_active_while_its_connection_is_up() {
        let status = PeerStatus::new(0x0abc_0010, 0x0abc_0011);
        let series = |name: &str| format!("{name}{{Local=\"abc0010\",Remote=\"abc0011\"}}");
        let value = |name: &str| sample(&get().render(&Default::default()), &series(name));
        assert_eq!(value("etcd_network_active_peers"), Some(0.0));
        status.activate();
        status.activate();
        assert_eq!(value("etcd_network_active_peers"), Some(1.0));
        status.deactivate();
        status.deactivate();
        assert_eq!(value("etcd_network_active_peers"), Some(0.0));
        assert_eq!(value("etcd_network_disconnected_peers_total"), Some(1.0));
        status.activate();
        status.removed();
        status.activate();
        assert_eq!(value("etcd_network_active_peers"), Some(0.0));
        assert_eq!(value("etcd_network_disconnected_peers_total"), Some(1.0));
    }

    #[test]
    fn only_applies_past_etcds_threshold_are_slow() {
        assert_eq!(slow_apply(Instant::now()), None);
        let long_ago = Instant::now() - WARN_APPLY_DURATION * 2;
        assert!(slow_apply(long_ago).is_some_and(|d| d > WARN_APPLY_DURATION));
    }
}
