//! Command-line definitions of `memberctl cluster …` (the local test cluster).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

/// `memberctl cluster …` subcommands.
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one).
    #[command(after_help = super::CLUSTER_SIMPLE_HELP)]
    Up(UpArgs),
    /// Start the node of a member that `member add` has just added.
    #[command(after_help = super::CLUSTER_SIMPLE_HELP)]
    StartNode(StartNodeArgs),
    /// Show the local cluster's nodes, processes and leader.
    #[command(after_help = super::CLUSTER_SIMPLE_HELP)]
    Status(DirArg),
    /// Stop the local cluster's node processes (only those it started).
    #[command(after_help = super::CLUSTER_SIMPLE_HELP)]
    Down(DirArg),
    /// Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall
    Link(LinkArgs),
    /// Run the link model between the local cluster's members (started by `cluster up --link`)
    #[command(hide = true)]
    LinkServe(DirArg),
    /// Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault's start and end
    #[command(after_help = CHAOS_HELP)]
    Chaos(ChaosArgs),
    /// Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json
    #[command(after_help = REHEARSE_HELP)]
    Rehearse(RehearseArgs),
    /// Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members
    Recover(RecoverArgs),
}

/// `cluster rehearse --help`'s closing text.
const REHEARSE_HELP: &str = "The change is the command after `--`, a `memberctl member …` command (run as this memberctl, against the local cluster), e.g. `memberctl cluster rehearse --report out -- memberctl member replace n3 --name n4 --peer-urls http://127.0.0.1:23804 --start-local`. The writer puts a key (memberctl/rehearse/N) every 1/RATE seconds from --before the change until --after the cluster settled; every member's status and /metrics are sampled every 250 ms. --report DIR receives report.html (one self-contained page: the writer's latency, the new member's bytes against the catch-up check's prediction, the leader and its term, the change's steps) and report.json (every figure and the raw samples; schema in docs/commands.md). Exit code: 0 when the change succeeded, else the change's own (the report is written either way); 2 without a change after `--`, with a change that is not `memberctl member …`, or without a local cluster.";

/// Arguments of `cluster rehearse`.
#[derive(Debug, Clone, Args)]
pub struct RehearseArgs {
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// Puts per second of the steady writer (N or N/s)
    #[arg(long, default_value = "50/s", value_parser = parse_rate, value_name = "N/s")]
    pub writer_rate: f64,
    /// Bytes of each put's value
    #[arg(long, default_value_t = 256, value_name = "B")]
    pub value_size: usize,
    /// Directory for report.html and report.json (made if missing)
    #[arg(long, default_value = "rehearsal", value_name = "DIR")]
    pub report: PathBuf,
    /// How long the writer runs before the change
    #[arg(long, default_value = "3s", value_parser = super::parse_duration, value_name = "DURATION")]
    pub before: Duration,
    /// How long the writer runs after the cluster settled
    #[arg(long, default_value = "3s", value_parser = super::parse_duration, value_name = "DURATION")]
    pub after: Duration,
    /// The longest wait for the cluster to settle after the change (one leader, every member answering, their indexes close)
    #[arg(long, default_value = "30s", value_parser = super::parse_duration, value_name = "DURATION")]
    pub settle_timeout: Duration,
    /// The longest the change may run (it is stopped then)
    #[arg(long, default_value = "10m", value_parser = super::parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
    /// The change: `memberctl member …`, after `--`
    #[arg(last = true, value_name = "CHANGE")]
    pub change: Vec<String>,
}

/// `--writer-rate`'s value parser: "50" or "50/s".
fn parse_rate(s: &str) -> Result<f64, String> {
    let n = s.trim().trim_end_matches("/s");
    match n.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!(
            "{s:?} is not a rate; give puts per second above 0, e.g. 50/s"
        )),
    }
}

/// Arguments of `cluster recover`.
#[derive(Debug, Clone, Args)]
pub struct RecoverArgs {
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// The survivor to recover from (default: the one with the most of the log)
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,
    /// How long to wait for each member added back to start and catch up
    #[arg(long, default_value = "5m", value_parser = super::parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
}

/// `cluster chaos --help`'s closing text.
const CHAOS_HELP: &str = "Faults (--faults, comma-separated): kill (kill -9 of a member that does not lead, restarted from its data after), kill-leader, wipe (kill -9 and the data directory deleted; the member comes back empty once the cluster has removed it, or never), pause (SIGSTOP, then SIGCONT), stall (the links of a member deliver nothing; needs `cluster up --link`), slow (every link slower; needs --link), kill-autopilot (kill -9 of the acting autopilot of this cluster, known by its pid file in DIR/autopilots/, started again after). A fault starts every --every on average and lasts half to all of --hold. Never more voters down or cut off at once than the cluster can lose, (voters - 1) / 2, unless --break-quorum. The same --seed draws the same schedule. Each start and end is printed as it happens (-w json: one line each, {\"at_ms\", \"unix_ms\", \"seq\", \"fault\", \"phase\", \"member\", \"member_id\", \"voter\", \"detail\"}); faults still in progress end at --duration (or on SIGTERM/Ctrl-C).";

/// Arguments of `cluster chaos`.
#[derive(Debug, Clone, Args)]
pub struct ChaosArgs {
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// The seed of every random draw: the same seed replays the same schedule [default: from the clock, printed on stderr]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// How long to inject faults; those in progress end then
    #[arg(long, default_value = "1m", value_parser = super::parse_duration, value_name = "DURATION")]
    pub duration: Duration,
    /// The faults to draw from, comma-separated [default: all; stall and slow only with a link]
    #[arg(long, value_name = "FAULTS", value_delimiter = ',', value_parser = parse_fault)]
    pub faults: Vec<crate::testcluster::chaos::FaultKind>,
    /// The most faults in progress at once
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub max_concurrent: usize,
    /// Allow more voters down or cut off at once than the cluster can lose (its quorum goes)
    #[arg(long)]
    pub break_quorum: bool,
    /// The mean time between the starts of two faults
    #[arg(long, default_value = "15s", value_parser = super::parse_duration, value_name = "DURATION")]
    pub every: Duration,
    /// The longest a fault lasts (each lasts half to all of it)
    #[arg(long, default_value = "20s", value_parser = super::parse_duration, value_name = "DURATION")]
    pub hold: Duration,
}

/// `--faults`' value parser.
fn parse_fault(s: &str) -> Result<crate::testcluster::chaos::FaultKind, String> {
    use crate::testcluster::chaos::FaultKind;
    FaultKind::parse(s.trim()).ok_or_else(|| {
        let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("no fault {s:?}; the faults are {}", names.join(", "))
    })
}

/// The cluster directory.
#[derive(Debug, Clone, Args)]
pub struct DirArg {
    /// Directory holding the cluster's state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Arguments of `cluster up`.
#[derive(Debug, Clone, Args)]
pub struct UpArgs {
    /// Number of members
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub nodes: usize,
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// Most learners the cluster may have at once
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub max_learners: usize,
    /// Compact each node's raft log every this many applied entries
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub snapshot_count: u64,
    /// Refuse writes that add data (etcd's NOSPACE alarm) once a node's state-machine file would pass this many bytes; 0: etcd's default, 2 GiB
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub quota_backend_bytes: u64,
    /// Time between heartbeats of every node, in milliseconds
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub heartbeat_interval: u64,
    /// Election timeout of every node, in milliseconds
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub election_timeout: u64,
    /// Test clusters only: start every node with --fault-injection (kept in the cluster's state, so start-node and restarts use it too)
    #[arg(long)]
    pub fault_injection: bool,
    /// Test clusters only, a deliberate bug: start every node with --fault-stale-reads (local linearizable reads)
    #[arg(long, requires = "fault_injection")]
    pub fault_stale_reads: bool,
    /// Test clusters only, a deliberate bug: start every node with --fault-ack-before-fsync (acknowledged log writes held in memory)
    #[arg(long, requires = "fault_injection")]
    pub fault_ack_before_fsync: bool,
    /// Start a new cluster holding the data of this snapshot file: `etcdctl snapshot save` of an etcd (3.4-3.7) or a memberctl snapshot; every node is restored from it
    #[arg(long, value_name = "FILE")]
    pub from_snapshot: Option<PathBuf>,
    /// With --from-snapshot: restore an etcd database that has no SHA-256 trailer (copied from a data directory), unchecked
    #[arg(long, requires = "from_snapshot")]
    pub skip_hash_check: bool,
    /// Put a link between every pair of members, both ways: round trip, bandwidth and queue, e.g. rtt=40ms,bandwidth=50mbit,queue=4mb; add shared=uplink for one queue per sending member instead of one per pair (shared=all: one for everyone), per-connection=SIZE for the most of a queue one connection may hold, so that connections take turns as on a sending host, instead of one FIFO as at a router (a rehearsal on the operator's own link; kept across restarts, honoured by start-node)
    #[arg(long, value_name = "SPEC", value_parser = parse_link)]
    pub link: Option<crate::link::LinkSpec>,
    /// Run the members on this etcd server binary (3.4-3.7, e.g. "$(command -v etcd)") instead of memberctl's engine: a rehearsal on the operator's own etcd (kept across restarts; --from-snapshot restores with the etcdutl or etcdctl beside it)
    #[arg(long, value_name = "PATH")]
    pub etcd: Option<PathBuf>,
    /// With --etcd: give every member this etcd flag too, after memberctl's (repeatable; a flag and its value as one word: --etcd-flag=--auto-compaction-retention=1); the flags memberctl sets itself are refused
    #[arg(
        long,
        value_name = "FLAG",
        requires = "etcd",
        allow_hyphen_values = true
    )]
    pub etcd_flag: Vec<String>,
}

/// Arguments of `cluster link`.
#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("change").required(true).multiple(true))]
pub struct LinkArgs {
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// New settings for every member pair from now on, e.g. rtt=60ms,bandwidth=50mbit,queue=4mb
    #[arg(long, value_name = "SPEC", value_parser = parse_link, group = "change")]
    pub set: Option<crate::link::LinkSpec>,
    /// Deliver nothing for this long (nothing is lost: bytes wait), as a path that stalls
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, group = "change")]
    pub stall: Option<Duration>,
    /// With --stall: only the links to and from this node
    #[arg(long, value_name = "NAME", requires = "stall")]
    pub node: Option<String>,
}

/// Arguments of `cluster start-node`.
#[derive(Debug, Clone, Args)]
pub struct StartNodeArgs {
    /// The name the member was added with
    pub name: String,
    /// The cluster directory.
    #[command(flatten)]
    pub dir: DirArg,
    /// Which added member, when several are waiting to start
    #[arg(long, value_name = "URL")]
    pub peer_url: Option<String>,
}

/// `--link`'s value parser.
fn parse_link(s: &str) -> Result<crate::link::LinkSpec, String> {
    crate::link::LinkSpec::parse(s).map_err(|e| e.to_string())
}
