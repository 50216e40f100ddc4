//! The engine's Prometheus metrics under etcd's names, types, labels and
//! units: counters and histograms recorded where the work happens (the raft
//! log's fsync, checkpoints, proposals, the gRPC layer, peer round trips,
//! the peer network's bytes and snapshots: network.rs), gauges read from the
//! node when scraped, rendered in Prometheus' text format. One set per
//! process, as etcd's (a node is one process).

mod grpc;
mod network;

use std::collections::HashMap;
use std::sync::LazyLock;

pub use grpc::MethodSeries;
use grpc::GRPC_CODES;
pub(crate) use grpc::GRPC_METHODS;
pub use network::{
    heartbeat_send_failure, peer, received_bytes, sent_bytes, slow_apply, ApplyingSnapshot,
    PeerStatus, SlowRead, SnapshotReceive, SnapshotSend, UNKNOWN_SNAPSHOT_SENDER,
    WARN_APPLY_DURATION,
};
use prometheus::{
    exponential_buckets, Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, HistogramVec,
    IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// The metrics of this process.
pub struct Metrics {
    registry: Registry,
    /// etcd_server_leader_changes_seen_total
    pub leader_changes: IntCounter,
    /// etcd_server_proposals_failed_total
    pub proposals_failed: IntCounter,
    /// etcd_mvcc_put_total: key writes applied by this process (each put,
    /// also within a transaction).
    pub mvcc_puts: IntCounter,
    /// etcd_mvcc_delete_total: delete operations applied by this process,
    /// as etcd counts them (see `Batch::delete_ops`).
    pub mvcc_deletes: IntCounter,
    /// etcd_server_proposals_pending
    pub proposals_pending: IntGauge,
    /// etcd_disk_wal_fsync_duration_seconds: a raft log write with its fdatasync.
    pub wal_fsync: Histogram,
    /// etcd_disk_backend_commit_duration_seconds: each applied batch's
    /// publish (the apply stage's commit point) and each checkpoint of the
    /// state machine.
    pub backend_commit: Histogram,
    /// etcd_network_peer_round_trip_time_seconds, by peer (`To`).
    pub peer_rtt: HistogramVec,
    /// etcd_network_peer_sent_failures_total, by peer (`To`).
    pub peer_sent_failures: IntCounterVec,
    /// etcd_network_peer_sent_bytes_total, by peer (`To`): raft messages as
    /// they go on a peer's stream, snapshots piece by piece.
    pub peer_sent_bytes: IntCounterVec,
    /// etcd_network_peer_received_bytes_total, by peer (`From`): raft
    /// messages as they are delivered, snapshots piece by piece.
    pub peer_received_bytes: IntCounterVec,
    /// etcd_network_snapshot_send_success, by peer (`To`).
    pub snapshot_send_success: IntCounterVec,
    /// etcd_network_snapshot_send_failures, by peer (`To`).
    pub snapshot_send_failures: IntCounterVec,
    /// etcd_network_snapshot_send_inflights_total, by peer (`To`).
    pub snapshot_send_inflights: IntGaugeVec,
    /// etcd_network_snapshot_send_total_duration_seconds, by peer (`To`):
    /// a snapshot sent whole, from its start to the peer's answer.
    pub snapshot_send_seconds: HistogramVec,
    /// etcd_network_snapshot_receive_success, by peer (`From`).
    pub snapshot_receive_success: IntCounterVec,
    /// etcd_network_snapshot_receive_failures, by peer (`From`).
    pub snapshot_receive_failures: IntCounterVec,
    /// etcd_network_snapshot_receive_inflights_total, by peer (`From`).
    pub snapshot_receive_inflights: IntGaugeVec,
    /// etcd_network_snapshot_receive_total_duration_seconds, by peer
    /// (`From`): a snapshot received whole and handed to raft.
    pub snapshot_receive_seconds: HistogramVec,
    /// etcd_network_active_peers, by `Local` and `Remote`: 1 while the
    /// connection to the peer is up.
    pub active_peers: IntGaugeVec,
    /// etcd_network_disconnected_peers_total, by `Local` and `Remote`.
    pub disconnected_peers: IntCounterVec,
    /// etcd_server_snapshot_apply_in_progress_total: 1 while a received
    /// snapshot is installed.
    pub snapshot_apply_in_progress: IntGauge,
    /// etcd_server_heartbeat_send_failures_total: heartbeats that went late
    /// (etcd's rule) or could not be sent.
    pub heartbeat_send_failures: IntCounter,
    /// etcd_server_slow_apply_total: applies (and read-only ranges and
    /// transactions) slower than [`WARN_APPLY_DURATION`].
    pub slow_apply: IntCounter,
    /// grpc_server_started_total
    pub grpc_started: IntCounterVec,
    /// grpc_server_handled_total
    pub grpc_handled: IntCounterVec,
    /// grpc_server_handling_seconds
    pub grpc_handling: HistogramVec,
    /// etcd_network_client_grpc_received_bytes_total
    pub grpc_received_bytes: IntCounter,
    /// etcd_network_client_grpc_sent_bytes_total
    pub grpc_sent_bytes: IntCounter,
    /// etcd_server_health_success
    pub health_success: IntCounter,
    /// etcd_server_health_failures
    pub health_failures: IntCounter,
    /// By path (`/etcdserverpb.KV/Range`).
    methods: HashMap<String, MethodSeries>,
    gauges: Gauges,
    /// One render at a time: the gauges are set from its scrape, then read.
    rendering: std::sync::Mutex<()>,
}

/// Gauges set from a [`Scrape`] when scraped.
struct Gauges {
    has_leader: IntGauge,
    is_leader: IntGauge,
    is_learner: IntGauge,
    committed: IntGauge,
    applied: IntGauge,
    db_total: IntGauge,
    db_total_debugging: IntGauge,
    db_in_use: IntGauge,
    quota: IntGauge,
    server_id: GaugeVec,
    server_version: GaugeVec,
    cluster_version: GaugeVec,
    open_read_txns: Gauge,
    keys: IntGauge,
}

/// What the node looks like when scraped.
#[derive(Clone, Debug, Default)]
pub struct Scrape {
    /// This member's ID.
    pub id: u64,
    /// A leader is known.
    pub has_leader: bool,
    /// This member leads.
    pub is_leader: bool,
    /// This member is a learner.
    pub is_learner: bool,
    /// The commit index.
    pub committed: u64,
    /// The applied index.
    pub applied: u64,
    /// The store's size (etcd's dbSize).
    pub db_size: u64,
    /// The part in use (etcd's dbSizeInUse).
    pub db_size_in_use: u64,
    /// Live keys in the store.
    pub keys: u64,
    /// The space quota.
    pub quota_bytes: u64,
    /// The version this server reports.
    pub server_version: String,
    /// The cluster's version (major.minor).
    pub cluster_version: String,
}

fn counter(r: &Registry, name: &str, help: &str) -> IntCounter {
    let c = IntCounter::new(name, help).expect("a valid metric");
    r.register(Box::new(c.clone())).expect("registered once");
    c
}

fn counter_vec(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let c = IntCounterVec::new(Opts::new(name, help), labels).expect("a valid metric");
    r.register(Box::new(c.clone())).expect("registered once");
    c
}

fn gauge(r: &Registry, name: &str, help: &str) -> IntGauge {
    let g = IntGauge::new(name, help).expect("a valid metric");
    r.register(Box::new(g.clone())).expect("registered once");
    g
}

fn int_gauge_vec(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let g = IntGaugeVec::new(Opts::new(name, help), labels).expect("a valid metric");
    r.register(Box::new(g.clone())).expect("registered once");
    g
}

fn gauge_vec(r: &Registry, name: &str, help: &str, label: &str) -> GaugeVec {
    let g = GaugeVec::new(Opts::new(name, help), &[label]).expect("a valid metric");
    r.register(Box::new(g.clone())).expect("registered once");
    g
}

fn histogram(r: &Registry, name: &str, help: &str, buckets: Vec<f64>) -> Histogram {
    let h = Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
        .expect("a valid metric");
    r.register(Box::new(h.clone())).expect("registered once");
    h
}

fn histogram_vec(
    r: &Registry,
    name: &str,
    help: &str,
    buckets: Vec<f64>,
    labels: &[&str],
) -> HistogramVec {
    let h = HistogramVec::new(HistogramOpts::new(name, help).buckets(buckets), labels)
        .expect("a valid metric");
    r.register(Box::new(h.clone())).expect("registered once");
    h
}

impl Metrics {
    fn new() -> Metrics {
        let r = Registry::new();
        // etcd's disk histograms: 1 ms doubling to ~8 s.
        let disk = || exponential_buckets(0.001, 2.0, 14).expect("valid buckets");
        // etcd's snapshot histograms: 100 ms doubling to 51.2 s.
        let snapshot = || exponential_buckets(0.1, 2.0, 10).expect("valid buckets");
        let grpc_labels = ["grpc_type", "grpc_service", "grpc_method"];
        let mut m = Metrics {
            leader_changes: counter(
                &r,
                "etcd_server_leader_changes_seen_total",
                "The number of leader changes seen.",
            ),
            proposals_failed: counter(
                &r,
                "etcd_server_proposals_failed_total",
                "The total number of failed proposals seen.",
            ),
            mvcc_puts: counter(
                &r,
                "etcd_mvcc_put_total",
                "Total number of puts seen by this member.",
            ),
            mvcc_deletes: counter(
                &r,
                "etcd_mvcc_delete_total",
                "Total number of deletes seen by this member.",
            ),
            proposals_pending: gauge(
                &r,
                "etcd_server_proposals_pending",
                "The current number of pending proposals to commit.",
            ),
            wal_fsync: histogram(
                &r,
                "etcd_disk_wal_fsync_duration_seconds",
                "The latency distributions of fsync called by WAL.",
                disk(),
            ),
            backend_commit: histogram(
                &r,
                "etcd_disk_backend_commit_duration_seconds",
                "The latency distributions of commit called by backend.",
                disk(),
            ),
            peer_rtt: histogram_vec(
                &r,
                "etcd_network_peer_round_trip_time_seconds",
                "Round-Trip-Time histogram between peers",
                exponential_buckets(0.0001, 2.0, 16).expect("valid buckets"),
                &["To"],
            ),
            peer_sent_failures: counter_vec(
                &r,
                "etcd_network_peer_sent_failures_total",
                "The total number of send failures from peers.",
                &["To"],
            ),
            peer_sent_bytes: counter_vec(
                &r,
                "etcd_network_peer_sent_bytes_total",
                "The total number of bytes sent to peers.",
                &["To"],
            ),
            peer_received_bytes: counter_vec(
                &r,
                "etcd_network_peer_received_bytes_total",
                "The total number of bytes received from peers.",
                &["From"],
            ),
            snapshot_send_success: counter_vec(
                &r,
                "etcd_network_snapshot_send_success",
                "Total number of successful snapshot sends",
                &["To"],
            ),
            snapshot_send_failures: counter_vec(
                &r,
                "etcd_network_snapshot_send_failures",
                "Total number of snapshot send failures",
                &["To"],
            ),
            snapshot_send_inflights: int_gauge_vec(
                &r,
                "etcd_network_snapshot_send_inflights_total",
                "Total number of inflight snapshot sends",
                &["To"],
            ),
            snapshot_send_seconds: histogram_vec(
                &r,
                "etcd_network_snapshot_send_total_duration_seconds",
                "Total latency distributions of v3 snapshot sends",
                snapshot(),
                &["To"],
            ),
            snapshot_receive_success: counter_vec(
                &r,
                "etcd_network_snapshot_receive_success",
                "Total number of successful snapshot receives",
                &["From"],
            ),
            snapshot_receive_failures: counter_vec(
                &r,
                "etcd_network_snapshot_receive_failures",
                "Total number of snapshot receive failures",
                &["From"],
            ),
            snapshot_receive_inflights: int_gauge_vec(
                &r,
                "etcd_network_snapshot_receive_inflights_total",
                "Total number of inflight snapshot receives",
                &["From"],
            ),
            snapshot_receive_seconds: histogram_vec(
                &r,
                "etcd_network_snapshot_receive_total_duration_seconds",
                "Total latency distributions of v3 snapshot receives",
                snapshot(),
                &["From"],
            ),
            active_peers: int_gauge_vec(
                &r,
                "etcd_network_active_peers",
                "The current number of active peer connections.",
                &["Local", "Remote"],
            ),
            disconnected_peers: counter_vec(
                &r,
                "etcd_network_disconnected_peers_total",
                "The total number of disconnected peers.",
                &["Local", "Remote"],
            ),
            snapshot_apply_in_progress: gauge(
                &r,
                "etcd_server_snapshot_apply_in_progress_total",
                "1 if the server is applying the incoming snapshot. 0 if none.",
            ),
            heartbeat_send_failures: counter(
                &r,
                "etcd_server_heartbeat_send_failures_total",
                "The total number of leader heartbeat send failures (likely overloaded from slow disk).",
            ),
            slow_apply: counter(
                &r,
                "etcd_server_slow_apply_total",
                "The total number of slow apply requests (likely overloaded from slow disk).",
            ),
            grpc_started: counter_vec(
                &r,
                "grpc_server_started_total",
                "Total number of RPCs started on the server.",
                &grpc_labels,
            ),
            grpc_handled: counter_vec(
                &r,
                "grpc_server_handled_total",
                "Total number of RPCs completed on the server, regardless of success or failure.",
                &["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
            ),
            grpc_handling: histogram_vec(
                &r,
                "grpc_server_handling_seconds",
                "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
                prometheus::DEFAULT_BUCKETS.to_vec(),
                &grpc_labels,
            ),
            grpc_received_bytes: counter(
                &r,
                "etcd_network_client_grpc_received_bytes_total",
                "The total number of bytes received from grpc clients.",
            ),
            grpc_sent_bytes: counter(
                &r,
                "etcd_network_client_grpc_sent_bytes_total",
                "The total number of bytes sent to grpc clients.",
            ),
            health_success: counter(
                &r,
                "etcd_server_health_success",
                "The total number of successful health checks",
            ),
            health_failures: counter(
                &r,
                "etcd_server_health_failures",
                "The total number of failed health checks",
            ),
            methods: HashMap::new(),
            rendering: std::sync::Mutex::new(()),
            gauges: Gauges {
                has_leader: gauge(
                    &r,
                    "etcd_server_has_leader",
                    "Whether or not a leader exists. 1 is existence, 0 is not.",
                ),
                is_leader: gauge(
                    &r,
                    "etcd_server_is_leader",
                    "Whether or not this member is a leader. 1 if is, 0 otherwise.",
                ),
                is_learner: gauge(
                    &r,
                    "etcd_server_is_learner",
                    "Whether or not this member is a learner. 1 if is, 0 otherwise.",
                ),
                committed: gauge(
                    &r,
                    "etcd_server_proposals_committed_total",
                    "The total number of consensus proposals committed.",
                ),
                applied: gauge(
                    &r,
                    "etcd_server_proposals_applied_total",
                    "The total number of consensus proposals applied.",
                ),
                db_total: gauge(
                    &r,
                    "etcd_mvcc_db_total_size_in_bytes",
                    "Total size of the underlying database physically allocated in bytes.",
                ),
                db_total_debugging: gauge(
                    &r,
                    "etcd_debugging_mvcc_db_total_size_in_bytes",
                    "Total size of the underlying database physically allocated in bytes.",
                ),
                db_in_use: gauge(
                    &r,
                    "etcd_mvcc_db_total_size_in_use_in_bytes",
                    "Total size of the underlying database logically in use in bytes.",
                ),
                quota: gauge(
                    &r,
                    "etcd_server_quota_backend_bytes",
                    "Current backend storage quota size in bytes.",
                ),
                server_id: gauge_vec(
                    &r,
                    "etcd_server_id",
                    "Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.",
                    "server_id",
                ),
                server_version: gauge_vec(
                    &r,
                    "etcd_server_version",
                    "Which version is running. 1 for 'server_version' label with current version.",
                    "server_version",
                ),
                cluster_version: gauge_vec(
                    &r,
                    "etcd_cluster_version",
                    "Which version is running. 1 for 'cluster_version' label with current cluster version",
                    "cluster_version",
                ),
                keys: gauge(
                    &r,
                    "etcd_debugging_mvcc_keys_total",
                    "Total number of keys.",
                ),
                open_read_txns: {
                    let g = Gauge::new(
                        "etcd_mvcc_db_open_read_transactions",
                        "The number of currently open read transactions",
                    )
                    .expect("a valid metric");
                    r.register(Box::new(g.clone())).expect("registered once");
                    g
                },
            },
            registry: r,
        };
        let process = prometheus::process_collector::ProcessCollector::for_self();
        // Only where /proc is readable; the other series stay served.
        let _ = m.registry.register(Box::new(process));
        for (service, method, kind) in GRPC_METHODS {
            let series = MethodSeries {
                started: m.grpc_started.with_label_values(&[kind, service, method]),
                handled: GRPC_CODES
                    .iter()
                    .map(|code| {
                        m.grpc_handled
                            .with_label_values(&[kind, service, method, code])
                    })
                    .collect(),
                handling: m.grpc_handling.with_label_values(&[kind, service, method]),
            };
            m.methods.insert(format!("/{service}/{method}"), series);
        }
        m
    }

    /// The series of the etcd method at `path` (None for memberctl's own).
    pub fn method(&self, path: &str) -> Option<&MethodSeries> {
        self.methods.get(path)
    }

    /// Every series, in Prometheus' text format, the gauges set from `now`.
    pub fn render(&self, now: &Scrape) -> String {
        // Two scrapes at once would mix their gauges.
        let _one = self.rendering.lock().unwrap_or_else(|p| p.into_inner());
        let g = &self.gauges;
        let flag = |b: bool| i64::from(b);
        let int = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        g.has_leader.set(flag(now.has_leader));
        g.is_leader.set(flag(now.is_leader));
        g.is_learner.set(flag(now.is_learner));
        g.committed.set(int(now.committed));
        g.applied.set(int(now.applied));
        g.db_total.set(int(now.db_size));
        g.db_total_debugging.set(int(now.db_size));
        g.db_in_use.set(int(now.db_size_in_use));
        g.keys.set(int(now.keys));
        g.quota.set(int(now.quota_bytes));
        g.open_read_txns.set(0.0);
        g.server_id.reset();
        g.server_id
            .with_label_values(&[&format!("{:x}", now.id)])
            .set(1.0);
        g.server_version.reset();
        g.server_version
            .with_label_values(&[&now.server_version])
            .set(1.0);
        g.cluster_version.reset();
        g.cluster_version
            .with_label_values(&[&now.cluster_version])
            .set(1.0);
        let mut out = Vec::new();
        // Encoding into memory fails only on a broken metric, which new() rules out.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// This process's metrics.
pub fn get() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// A proposal under way (etcd_server_proposals_pending), until dropped.
pub struct Pending(());

impl Pending {
    /// Counts a proposal as pending.
    pub fn start() -> Pending {
        get().proposals_pending.inc();
        Pending(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        get().proposals_pending.dec();
    }
}

/// Times `f` into `histogram`.
pub fn timed<T>(histogram: &Histogram, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let out = f();
    histogram.observe(start.elapsed().as_secs_f64());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_names_etcds_series_with_their_types() {
        let m = get();
        let range = m.method("/etcdserverpb.KV/Range").expect("served");
        range.started();
        range.done(0, std::time::Duration::from_millis(3));
        assert!(m.method("/memberctl.v1.Membership/Progress").is_none());
        let text = m.render(&Scrape {
            id: 0xabc,
            has_leader: true,
            quota_bytes: 2 << 30,
            server_version: "3.4.0".into(),
            cluster_version: "3.4.0".into(),
            ..Scrape::default()
        });
        for (name, kind) in [
            ("etcd_server_has_leader", "gauge"),
            ("etcd_server_proposals_committed_total", "gauge"),
            ("etcd_disk_wal_fsync_duration_seconds", "histogram"),
            ("grpc_server_handled_total", "counter"),
            ("grpc_server_handling_seconds", "histogram"),
        ] {
            assert!(
                text.contains(&format!("# TYPE {name} {kind}\n")),
                "{name} {kind} missing"
            );
        }
        assert!(text.contains("etcd_server_has_leader 1\n"));
        assert!(text.contains("etcd_server_id{server_id=\"abc\"} 1\n"));
        assert!(text.contains("etcd_server_quota_backend_bytes 2147483648\n"));
        assert!(text.contains(
            "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Range\",grpc_service=\"etcdserverpb.KV\",grpc_type=\"unary\"} 1\n"
        ));
        assert!(text.contains(
            "grpc_server_started_total{grpc_method=\"Watch\",grpc_service=\"etcdserverpb.Watch\",grpc_type=\"bidi_stream\"} 0\n"
        ));
    }
}
