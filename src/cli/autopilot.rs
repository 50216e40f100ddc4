//! `memberctl autopilot`'s arguments: the thresholds it decides with, how
//! often it looks, its name in the election among autopilots.

use std::time::Duration;

use clap::Args;

use super::member::{parse_duration_or_zero, parse_min_voters};
use super::{parse_duration, SkipCheckArgs};

/// Arguments of `memberctl autopilot`.
#[derive(Debug, Clone, Args)]
pub struct AutopilotArgs {
    /// Time between two looks at the cluster
    #[arg(long, default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub interval: Duration,
    /// A decision is printed when it changes; the same decision again only once this long (0: every look)
    #[arg(long, default_value = "5m", value_parser = parse_duration_or_zero, value_name = "DURATION")]
    pub heartbeat: Duration,
    /// A voter unreachable this long, that the leader has lost too, is dead
    #[arg(long, default_value = "30s", value_parser = parse_duration, value_name = "DURATION")]
    pub dead_after: Duration,
    /// The learners kept as standbys, by name (repeatable) [default: any started learner]
    #[arg(long, value_name = "NAME", num_args = 1..)]
    pub standby: Vec<String>,
    /// How long a standby must have been ready (caught up) without a break before it takes a dead voter's place
    #[arg(long, default_value = "10s", value_parser = parse_duration_or_zero, value_name = "DURATION")]
    pub stable_for: Duration,
    /// Remove a dead voter even without a standby, while --min-voters remain
    #[arg(long)]
    pub cleanup_dead: bool,
    /// The fewest voters a removal may leave (at least 3, which can still lose one)
    #[arg(long, default_value_t = 3, value_parser = parse_min_voters, value_name = "N")]
    pub min_voters: usize,
    /// The voters to keep: while fewer (a dead voter was removed without a ready standby), a ready standby is promoted [default: --min-voters, with --cleanup-dead only]
    #[arg(long, value_name = "N")]
    pub voters: Option<usize>,
    /// A started learner whose index stands still behind the leader's this long is pruned, as `member prune` does
    #[arg(long, default_value = "1m", value_parser = parse_duration, value_name = "DURATION")]
    pub stalled_for: Duration,
    /// On the local test cluster: when no learner exists, add one and start it (`member add --learner` + `cluster start-node`)
    #[arg(long)]
    pub start_standby: bool,
    /// This autopilot's name in the election among autopilots (key prefix memberctl/autopilot/) [default: HOST-PID]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The election lease's time to live: how soon another autopilot takes over when this one dies
    #[arg(long, default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub lease_ttl: Duration,
    /// Decide and report every decision; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// How long one action may wait (a standby's catch-up, leadership moves)
    #[arg(long, default_value = "1m", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
    /// Serve Prometheus metrics (/metrics) and a health check (/health) on this address, e.g. 127.0.0.1:9479
    #[arg(long, value_name = "ADDR")]
    pub listen_metrics: Option<std::net::SocketAddr>,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
}
