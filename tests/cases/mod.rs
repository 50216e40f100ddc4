//! The integration tests, by subject, run inside the one integration test binary.

/// etcd's KV, Txn, Watch and Lease on the engine, etcdctl's outputs compared with real etcd's; lock and elect.
mod api;
/// `member apply` on the engine: grow, shrink, replace two, move hosts; kill -9 and rerun; refusals.
mod apply;
/// Authentication: against etcd per version; the engine's Auth service with etcdctl (vs etcd 3.4) and memberctl's --user.
mod auth;
/// `autopilot` on the engine: a dead follower replaced by the standby, by exactly one of two autopilots; --dry-run; no action without a quorum.
mod autopilot;
/// `autopilot` holding back on the engine: a voter only autopilot cannot reach (the leader hears it) is never removed; nothing while a joint configuration is open.
mod autopilot_hold;
/// `autopilot --listen-metrics`: its series (promtool-clean), /health, and the alert rules of docs/autopilot.md checked by promtool.
mod autopilot_metrics;
/// `autopilot` on the engine killed with kill -9 mid-replacement (its intent key seen; its joint configuration open): the other autopilot takes over and finishes it.
mod autopilot_takeover;
/// `autopilot --dead-after 10s` on the engine under a steady writer and the history recorder: a killed follower, then the killed leader, replaced in time; no write lost, linearizable.
mod autopilot_writes;
/// Malformed and hostile arguments against etcd 3.4 and the engine; the member list stays byte-identical.
mod bad_input;
/// The catch-up check's prediction against the catch-up (engine, etcd 3.4 and 3.5, over the link model); progress; a catch-up that cannot finish refused.
mod catch_up_plan;
/// With --client-cert-auth and authentication on, a request without a token runs as the user its client certificate names: the engine as etcd 3.4.
pub(crate) mod cert_user;
/// etcd's compaction hold on the engine: one snapshot for a busy learner behind a slow link; two without the hold after the send.
mod compaction_hold;
/// The engine: acknowledged writes survive kill -9 of every node; damaged store files are refused.
mod durability;
/// The engine's local cluster: learner flow, etcdctl against it, snapshot catch-up, a killed leader.
mod engine;
/// The learner flow, promote refusals and quorum-guard refusals against etcd, per version.
mod etcd;
/// `cluster up --etcd PATH`: the local cluster on the operator's own etcd (3.4, 3.6); what etcd lacks refused before anything is made.
mod etcd_flags;
/// Data directories etcdctl's snapshot restore made, on the engine as on etcd 3.4.
mod etcd_restored;
/// etcd's snapshot files: `snapshot status`/`save` agree with etcdctl's on 3.4–3.7; restore and `cluster up --from-snapshot` serve what etcd served; damaged files refused.
mod etcd_snapshot;
/// kill -9 at the dangerous moments of a membership change on the engine.
mod faults;
/// The engine's JSON gateway, call by call against etcd 3.4's and 3.5's.
mod gateway;
/// The committed completions and man pages match the CLI.
mod generated;
/// The engine's HTTP face: health checks and metrics vs etcd 3.5, promtool, Prometheus and etcd's no-leader alert.
mod http;
/// Explicit joint consensus on the engine: the seed's example, a leader killed while joint.
mod joint;
/// etcd's JWT auth tokens, --auth-token-ttl and --bcrypt-cost: the engine as etcd 3.4, each taking the other's tokens; bad options stop both at start.
mod jwt;
/// Leadership moved before the leader is removed or demoted, move-leader, names while a member starts.
mod leader;
/// `member update` of a learner on both sides of etcd#21694 (3.4, 3.5.30/3.5.31, 3.6.11/3.6.12, 3.7, the engine).
mod learner_update;
/// The link model: delay and bandwidth as set; `cluster up --link`.
mod link;
mod local_etcd;
/// etcd's Lock and Election services on the engine, interleaved with etcdctl lock and elect.
mod lock;
/// etcd's Maintenance on the engine with etcdctl (both endpoint forms) vs etcd; HashKV; quota; snapshots; the :authority repair.
mod maintenance;
/// A learner caught up by snapshot as /metrics shows it: etcd's snapshot and peer-byte series on both ends; GetProgress of the leader's log.
mod metrics_catch_up;
/// No cluster needed: help, usage errors, unreachable endpoints, environment, bad TLS files.
mod offline;
/// Partitions on the engine (--fault-injection): a minority leader, a cut-off learner.
mod partition;
/// The peer-tls check against etcd 3.4 with TLS peers: bad new-member certificates refused, a good one joins, a near expiry warns.
mod peer_tls;
/// Pre-flight checks: `member check`, a full etcd database and a second learner refused before anything is sent.
mod preflight;
/// `member prune` (a learner that never started removed, a caught-up one kept, dead voters and the minimum) and `promote --stable-for` on the engine.
mod prune;
/// Quorum loss on the engine: `--force-new-cluster` on a survivor, `cluster recover`, `member status`'s exit code and fault tolerance.
mod quorum_loss;
/// Quorum loss on etcd 3.4 and 3.6: `member status`'s diagnosis and exit code, the printed steps followed, the survivor restarted without the flag.
mod quorum_loss_etcd;
/// The README as a newcomer meets it: the demo scripts end to end, every shell block run as written.
mod readme;
/// `cluster rehearse`: a replacement rehearsed on the engine and on etcd 3.4 under a steady writer; report.json checked, report.html looked at in headless Chromium; refusals; a failed change reported.
mod rehearse;
/// The release artifacts: `scripts/release.sh`'s .deb installed into a scratch dpkg root, SHA256SUMS; the Kubernetes manifests through kubectl; Dockerfile and docs in agreement.
mod release;
/// A removed member always stops (etcd's "permanently removed") on the engine.
mod removed;
/// `member replace` on the engine (resumable) and against etcd, per version.
mod replace;
/// `member replace` where a machine died, per etcd version (and 3.5.29, 3.5.30, 3.6.10, 3.6.11) and on the engine under a writer: remove-first as planned, kill -9 after the removal and a rerun, five voters back to five; an add with one of five down judged as each side of etcd#21640 does; a live member of two replaced add-first.
mod replace_dead;
/// Linearizability on the engine: histories recorded under kill -9, partitions, membership changes and disk faults; the deliberate bugs caught.
mod robustness;
/// Linearizability against real etcd (3.4, and newer in the long profile): the same recorder and checker.
mod robustness_etcd;
/// etcd's limits (--max-txn-ops, --max-request-bytes) and automatic compaction: the engine as etcd 3.4.
mod server_limits;
/// The autopilot soak (issue #54): 5 voters, 2 standbys, two autopilots and `cluster chaos` on the engine; every invariant judged throughout; the figures of docs/soak.md.
mod soak;
/// Storage faults on the engine: kill -9 during a snapshot stream and during compaction and purge, a torn log tail.
mod storage;
/// add → start → promote → remove cycles on the engine under a steady writer.
mod stress;
/// TLS against etcd (per version) and on the engine.
mod tls;
/// The listeners' cipher suites, TLS versions and allowed client host name: the engine as etcd 3.4 and 3.6.
mod tls_policy;
/// Upgrades by replacing members: `--for upgrade` and the promotion rules on etcd 3.5.25, 3.5.34, 3.6.10, 3.6.
mod upgrade;
/// Watches and leases on the engine through leader changes, a snapshot join and a removal.
mod watch;

/// Every case of the integration binary.
pub fn all() -> Vec<crate::harness::Case> {
    [
        api::cases(),
        autopilot::cases(),
        autopilot_hold::cases(),
        autopilot_metrics::cases(),
        autopilot_takeover::cases(),
        autopilot_writes::cases(),
        apply::cases(),
        auth::cases(),
        bad_input::cases(),
        cert_user::cases(),
        compaction_hold::cases(),
        durability::cases(),
        catch_up_plan::cases(),
        engine::cases(),
        etcd_restored::cases(),
        etcd::cases(),
        etcd_snapshot::cases(),
        faults::cases(),
        gateway::cases(),
        generated::cases(),
        http::cases(),
        joint::cases(),
        jwt::cases(),
        link::cases(),
        etcd_flags::cases(),
        local_etcd::cases(),
        leader::cases(),
        lock::cases(),
        maintenance::cases(),
        metrics_catch_up::cases(),
        offline::cases(),
        partition::cases(),
        peer_tls::cases(),
        preflight::cases(),
        prune::cases(),
        quorum_loss::cases(),
        quorum_loss_etcd::cases(),
        readme::cases(),
        release::cases(),
        rehearse::cases(),
        removed::cases(),
        replace::cases(),
        replace_dead::cases(),
        soak::cases(),
        robustness::cases(),
        robustness_etcd::cases(),
        server_limits::cases(),
        storage::cases(),
        stress::cases(),
        tls::cases(),
        tls_policy::cases(),
        upgrade::cases(),
        learner_update::cases(),
        watch::cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
