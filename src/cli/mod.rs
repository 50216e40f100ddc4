//! Command-line definitions (clap derive): global flags, the command tree and
//! their value parsers; [`generate`] makes completions and man pages from them.
//! No work is done here.

mod autopilot;
mod cluster;
pub mod etcd_config;
pub mod etcd_flags;
pub mod etcdctl_env;
pub mod generate;
mod member;
mod node;
mod parse;
mod snapshot;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

pub use autopilot::AutopilotArgs;
pub use cluster::{
    ChaosArgs, ClusterCommand, DirArg, LinkArgs, RecoverArgs, RehearseArgs, StartNodeArgs, UpArgs,
};
pub use member::{
    AddArgs, ApplyArgs, CatchUpArgs, CheckArgs, CheckFor, JointCommand, JointEnterArgs,
    MemberCommand, MoveLeaderArgs, PeerTlsArgs, PromoteArgs, PruneArgs, RemoveArgs, ReplaceArgs,
    SkipCheckArgs, TargetArg, UpdateArgs,
};
pub use node::{ClusterState, InitialClusterArg, NodeCommand, RunArgs};
pub use parse::parse;
pub use snapshot::{RestoreArgs, SnapshotCommand};

/// Change the membership of an etcd (or memberctl) Raft cluster safely.
///
/// Every change is checked first: peer URLs are validated, new members join
/// as learners and are promoted only once caught up, and nothing is removed
/// that would leave the cluster without a quorum.
#[derive(Debug, Parser)]
#[command(
    name = "memberctl",
    version,
    propagate_version = true,
    max_term_width = 100
)]
#[command(after_help = EXIT_CODES_HELP, after_long_help = LONG_HELP)]
pub struct Cli {
    /// Flags every command accepts.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes, shown under `--help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes: 0 success (also node run of a member removed from its cluster: it
stops for good, as etcd's), 1 internal error, 2 usage, 3 refused by a validation
or safety rule (the cluster is unchanged), 4 timed out waiting, 5 cluster
unreachable or unavailable, 6 not supported by this server, 8 (member status)
the quorum is lost.";

/// The exit codes and environment variables, shown under `--help` and in the man page.
pub const LONG_HELP: &str = "\
Exit codes:
  0  success; also node run of a member removed from its cluster, as etcd's: it stops for
     good (its data directory is stale; the reason on standard error)
  1  internal error
  2  usage: bad arguments or flags
  3  refused by a validation or safety rule, client- or server-side (the cluster is unchanged)
  4  timed out waiting (learner catch-up, leader election)
  5  cluster unreachable or unavailable
  6  not supported by this server (joint consensus on etcd)
  8  member status: the cluster has lost its quorum (fewer voters answer than a quorum and
     none leads); the status is printed in full, the way back on standard error

Environment (a flag wins over MEMBERCTL_*, which wins over etcdctl's ETCDCTL_*):
  MEMBERCTL_ENDPOINTS, ETCDCTL_ENDPOINTS                       --endpoints
  MEMBERCTL_DIAL_TIMEOUT, ETCDCTL_DIAL_TIMEOUT                 --dial-timeout
  MEMBERCTL_COMMAND_TIMEOUT, ETCDCTL_COMMAND_TIMEOUT           --command-timeout
  MEMBERCTL_CACERT, ETCDCTL_CACERT                             --cacert
  MEMBERCTL_CERT, ETCDCTL_CERT                                 --cert
  MEMBERCTL_KEY, ETCDCTL_KEY                                   --key
  MEMBERCTL_INSECURE_SKIP_TLS_VERIFY, ETCDCTL_INSECURE_SKIP_TLS_VERIFY
                                                               --insecure-skip-tls-verify
  MEMBERCTL_USER, ETCDCTL_USER                                 --user
  MEMBERCTL_PASSWORD, ETCDCTL_PASSWORD                         --password
  MEMBERCTL_WRITE_OUT                                          -w/--write-out (not etcdctl's:
                                                               its formats differ)
  MEMBERCTL_CLUSTER_DIR                         the local test cluster's directory (default .memberctl)";

/// What `member list -w simple` prints, under its help (etcdctl's columns).
pub const MEMBER_LIST_SIMPLE_HELP: &str = "\
Simple output (-w simple), one line per member, comma-separated, as etcdctl's:
  ID, STATUS (started|unstarted), NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER";

/// What `member status -w simple` prints, under its help.
pub const MEMBER_STATUS_SIMPLE_HELP: &str = "\
Simple output (-w simple), one line per member, comma-separated ('-' when unknown):
  ID, NAME, REACHABLE (reachable|unreachable), ROLE (leader|follower|learner|- when it does
  not answer or names no leader), RAFT TERM, RAFT INDEX, APPLIED INDEX, IS LEARNER, LAG,
  STATE (the leader's view of its replication, engine only), VERSION,
  STATUS (leader|follower|learner|no_leader|unreachable), ERROR (last: it may hold commas)
then `cluster: voters=N quorum=N answering_voters=N fault_tolerance=N quorum_lost=true|false`.
Exits 8 when the quorum is lost (the way back is on standard error), else 0.";

/// What `cluster up|start-node|status|down -w simple` prints, under their help.
pub const CLUSTER_SIMPLE_HELP: &str = "\
Simple output (-w simple), one line per node, comma-separated ('-' when unknown):
  ID, STATUS (running|stopped|removed), NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER,
  IS LEADER, PID, LOG
then `endpoints: URL,...` (the running members), when there are any.";

/// Global flags, named as etcdctl names them; each is also read from `MEMBERCTL_<FLAG>`.
/// In every command's help they come after the command's own, under their own heading.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Client URLs of the cluster, comma-separated; each is tried in turn
    /// [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local
    /// cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]
    #[arg(long, global = true, value_delimiter = ',', value_name = "URLS")]
    pub endpoints: Vec<String>,

    /// How long to wait for a connection to an endpoint
    #[arg(long, global = true, env = "MEMBERCTL_DIAL_TIMEOUT", default_value = "2s",
          value_parser = parse_duration, value_name = "DURATION")]
    pub dial_timeout: Duration,

    /// How long one request may take (and how long to retry "unhealthy cluster")
    #[arg(long, global = true, env = "MEMBERCTL_COMMAND_TIMEOUT", default_value = "5s",
          value_parser = parse_duration, value_name = "DURATION")]
    pub command_timeout: Duration,

    /// Output format [default: table on a terminal, simple otherwise]
    #[arg(
        short = 'w',
        long = "write-out",
        global = true,
        env = "MEMBERCTL_WRITE_OUT",
        value_enum,
        value_name = "FORMAT"
    )]
    pub write_out: Option<OutputFormat>,

    /// CA bundle to verify the servers' certificates (endpoints without a scheme then use https)
    #[arg(long, global = true, env = "MEMBERCTL_CACERT", value_name = "FILE")]
    pub cacert: Option<PathBuf>,

    /// Client certificate for TLS, for servers that require one (with --key)
    #[arg(long, global = true, env = "MEMBERCTL_CERT", value_name = "FILE")]
    pub cert: Option<PathBuf>,

    /// Client key for TLS (with --cert)
    #[arg(long, global = true, env = "MEMBERCTL_KEY", value_name = "FILE")]
    pub key: Option<PathBuf>,

    /// Encrypt but do not verify the servers' certificates (test clusters only)
    #[arg(long, global = true, env = "MEMBERCTL_INSECURE_SKIP_TLS_VERIFY")]
    pub insecure_skip_tls_verify: bool,

    /// User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)
    #[arg(long, global = true, env = "MEMBERCTL_USER", value_name = "USER")]
    pub user: Option<String>,

    /// Password for authentication
    #[arg(
        long,
        global = true,
        env = "MEMBERCTL_PASSWORD",
        value_name = "PASSWORD",
        hide_env_values = true
    )]
    pub password: Option<String>,
}

/// How results are written on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A table for people.
    Table,
    /// One JSON document with a stable schema, for scripts.
    Json,
    /// Plain lines, like etcdctl's default.
    Simple,
}

/// The top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List, add, promote, remove, update members and show their status.
    #[command(subcommand)]
    Member(MemberCommand),
    /// Run a member of the bundled Raft engine (serves etcd's API).
    #[command(subcommand)]
    Node(NodeCommand),
    /// A local test cluster of bundled-engine nodes, to rehearse changes.
    #[command(subcommand)]
    Cluster(ClusterCommand),
    /// Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster.
    Autopilot(AutopilotArgs),
    /// Save, check and restore snapshots of a member's state.
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Print the shell completion script for SHELL.
    Completion {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Parses durations such as `500ms`, `2s`, `5m` or `1h 30m`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e}; use a duration such as 500ms, 2s or 5m"))?;
    if d.is_zero() {
        return Err("a duration must be greater than zero".to_string());
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_parse_and_zero_is_refused() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
