//! What a member's HTTP face says about its machine: the figures of its
//! Prometheus metrics the pre-flight checks read, its `/version`, and how it
//! was started ([`StartFlags`]).

use super::MemberId;

/// A Prometheus histogram as scraped: cumulative counts per upper bound,
/// since the member started.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    /// `(le, cumulative count)`, sorted by `le`; the last bound is `+Inf`.
    pub buckets: Vec<(f64, f64)>,
    /// Observations in all.
    pub count: f64,
    /// Their sum.
    pub sum: f64,
}

impl Histogram {
    /// The `q`-quantile (0 < q < 1), estimated as Prometheus'
    /// `histogram_quantile` does: find the bucket that holds the rank
    /// `q × count` and interpolate linearly inside it (the first bucket
    /// starts at 0). A rank in the `+Inf` bucket answers the highest finite
    /// bound: the estimate is then a lower bound. `None` without observations.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.buckets.last().map(|b| b.1)?;
        if total <= 0.0 || !(0.0..=1.0).contains(&q) {
            return None;
        }
        let rank = q * total;
        let mut lower = (0.0, 0.0);
        for &(le, cumulative) in &self.buckets {
            if cumulative >= rank {
                if le.is_infinite() {
                    return Some(lower.0);
                }
                let inside = cumulative - lower.1;
                if inside <= 0.0 {
                    return Some(le);
                }
                return Some(lower.0 + (le - lower.0) * (rank - lower.1) / inside);
            }
            lower = (le, cumulative);
        }
        Some(lower.0)
    }
}

/// Bytes for people: KiB below a MiB, else MiB.
pub fn mib(bytes: u64) -> String {
    if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// The figures of one member's `/metrics` the checks use (etcd's names).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerMetrics {
    /// `etcd_server_quota_backend_bytes`.
    pub quota_backend_bytes: Option<f64>,
    /// `etcd_disk_wal_fsync_duration_seconds`.
    pub wal_fsync: Option<Histogram>,
    /// `etcd_disk_backend_commit_duration_seconds`.
    pub backend_commit: Option<Histogram>,
    /// `etcd_network_peer_round_trip_time_seconds`, one per peer (`To`).
    pub peer_round_trip: Vec<(MemberId, Histogram)>,
    /// `etcd_server_leader_changes_seen_total`.
    pub leader_changes_seen: Option<f64>,
    /// `etcd_network_peer_sent_bytes_total`, one per peer (`To`).
    pub peer_sent_bytes: Vec<(MemberId, f64)>,
    /// `etcd_network_peer_received_bytes_total`, one per peer (`From`).
    /// etcd adds a snapshot's bytes once it is whole; the engine as they arrive.
    pub peer_received_bytes: Vec<(MemberId, f64)>,
    /// `etcd_network_snapshot_send_*`, one per peer (`To`).
    pub snapshot_sends: Vec<(MemberId, SnapshotTransfers)>,
    /// `etcd_network_snapshot_receive_*`, one per peer (`From`).
    pub snapshot_receives: Vec<(MemberId, SnapshotTransfers)>,
    /// `etcd_server_snapshot_apply_in_progress_total`: 1 while the member
    /// applies a snapshot it received.
    pub snapshot_apply_in_progress: Option<f64>,
    /// `etcd_server_proposals_committed_total` (a gauge in etcd: the
    /// committed index).
    pub proposals_committed: Option<f64>,
    /// `etcd_server_heartbeat_send_failures_total`.
    pub heartbeat_send_failures: Option<f64>,
    /// `etcd_server_slow_apply_total`.
    pub slow_applies: Option<f64>,
    /// `etcd_network_active_peers`, one per peer (`Remote`): 1 while the
    /// member's connection to it is up, 0 (or absent) when it is not.
    pub active_peers: Vec<(MemberId, f64)>,
}

impl ServerMetrics {
    /// The bytes received from all peers.
    pub fn received_bytes(&self) -> f64 {
        self.peer_received_bytes.iter().map(|(_, b)| b).sum()
    }

    /// Snapshot receives under way (`_inflights_total`), from any peer.
    pub fn receiving_snapshot(&self) -> bool {
        self.snapshot_receives.iter().any(|(_, t)| t.inflight > 0.0)
    }

    /// Whether the member's connection to `peer` is up: `false` when the
    /// series is 0 or absent (etcd drops a peer's series when it goes).
    pub fn peer_active(&self, peer: MemberId) -> bool {
        self.active_peers
            .iter()
            .any(|(p, v)| *p == peer && *v > 0.0)
    }

    /// Snapshots received whole, from any peer.
    pub fn snapshots_received(&self) -> f64 {
        self.snapshot_receives.iter().map(|(_, t)| t.success).sum()
    }
}

/// One direction's snapshot transfers with one peer, since the member
/// started (etcd's `etcd_network_snapshot_{send,receive}_*`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SnapshotTransfers {
    /// `_success`: transfers completed.
    pub success: f64,
    /// `_failures`: transfers that failed.
    pub failures: f64,
    /// `_inflights_total`: transfers under way.
    pub inflight: f64,
    /// `_total_duration_seconds`: how long the completed ones took.
    pub duration: Option<Histogram>,
}

/// A member's `/version`: its server version and the cluster's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerVersion {
    /// `etcdserver`.
    pub server: String,
    /// `etcdcluster`: the version the whole cluster runs at ("not_decided"
    /// while it is being decided).
    pub cluster: String,
}

/// How a member's server was started, as far as memberctl could read it:
/// whether `--force-new-cluster` is in effect, and where that was read. A
/// server started with it rewrites its membership at every start with the
/// same flags, removing every member added since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartFlags {
    /// Whether `--force-new-cluster` is set.
    pub force_new_cluster: bool,
    /// Where it was read, for people (`its command line (/debug/vars)`,
    /// `its environment (ETCD_FORCE_NEW_CLUSTER in /proc/PID/environ)`).
    pub source: String,
    /// Whether every place the server reads the flag from was read (its
    /// command line, and its environment or config file): false for an
    /// etcd elsewhere whose environment memberctl cannot see.
    pub complete: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(buckets: &[(f64, f64)]) -> Histogram {
        Histogram {
            buckets: buckets.to_vec(),
            count: buckets.last().map_or(0.0, |b| b.1),
            sum: 0.0,
        }
    }

    #[test]
    fn quantiles_interpolate_inside_the_bucket() {
        // 100 observations: 50 below 1 ms, 40 in (1, 2] ms, 10 in (2, 4] ms.
        let x = h(&[
            (0.001, 50.0),
            (0.002, 90.0),
            (0.004, 100.0),
            (f64::INFINITY, 100.0),
        ]);
        assert_eq!(x.quantile(0.5), Some(0.001));
        let p99 = x.quantile(0.99).unwrap();
        assert!((p99 - 0.0038).abs() < 1e-9, "{p99}");
        let p70 = x.quantile(0.7).unwrap();
        assert!((p70 - 0.0015).abs() < 1e-9, "{p70}");
    }

    #[test]
    fn a_rank_past_the_last_bound_is_that_bound_and_empty_is_none() {
        let x = h(&[(0.008, 1.0), (f64::INFINITY, 10.0)]);
        assert_eq!(x.quantile(0.99), Some(0.008));
        assert_eq!(
            h(&[(0.001, 0.0), (f64::INFINITY, 0.0)]).quantile(0.99),
            None
        );
        assert_eq!(Histogram::default().quantile(0.99), None);
    }
}
