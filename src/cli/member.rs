//! Command-line definitions of `memberctl member …`.

use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use super::parse_duration;
use crate::model::{PeerUrl, PeerUrls};
use crate::workflow::preflight::CheckName;

/// `memberctl member …` subcommands.
#[derive(Debug, Subcommand)]
pub enum MemberCommand {
    /// List the members of the cluster.
    #[command(after_help = super::MEMBER_LIST_SIMPLE_HELP)]
    List,
    /// Add a member, after checking its peer URLs (prefer --learner).
    Add(AddArgs),
    /// Promote a learner to a voter once it has caught up with the leader.
    Promote(PromoteArgs),
    /// Remove a member, unless the rest could not form a quorum.
    Remove(RemoveArgs),
    /// Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time.
    Prune(PruneArgs),
    /// Change a member's peer URLs, after checking them.
    Update(UpdateArgs),
    /// Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first.
    Replace(ReplaceArgs),
    /// Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume.
    Apply(ApplyArgs),
    /// Show each member's reachability, raft term, index, applied index, lag and version, and the fault tolerance.
    #[command(after_help = super::MEMBER_STATUS_SIMPLE_HELP)]
    Status,
    /// Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing.
    Check(CheckArgs),
    /// Hand leadership to another voter (by default the most caught-up one).
    MoveLeader(MoveLeaderArgs),
    /// Several changes at once through joint consensus (memberctl engine only).
    #[command(subcommand)]
    Joint(JointCommand),
}

/// `memberctl member joint …` subcommands.
#[derive(Debug, Subcommand)]
pub enum JointCommand {
    /// Enter a joint configuration with several changes in one step.
    Enter(JointEnterArgs),
    /// Leave the joint configuration (the new configuration takes over alone).
    Leave,
    /// Show the configuration: voters (incoming and outgoing), learners, learners-next.
    Status,
}

/// Arguments of `member joint enter`.
#[derive(Debug, Clone, Args)]
pub struct JointEnterArgs {
    /// Add a new learner, as NAME=URL[,URL...] (repeatable)
    #[arg(long, value_name = "NAME=URL")]
    pub add_learner: Vec<String>,
    /// Promote a caught-up learner to voter (repeatable)
    #[arg(long, value_name = "ID|NAME")]
    pub promote: Vec<String>,
    /// Demote a voter to learner (repeatable)
    #[arg(long, value_name = "ID|NAME")]
    pub demote: Vec<String>,
    /// Remove a member (repeatable)
    #[arg(long, value_name = "ID|NAME")]
    pub remove: Vec<String>,
    /// Check everything and print the plan (C_old, C_old∧C_new, C_new); change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Promote learners even if they have not caught up
    #[arg(long)]
    pub force: bool,
    /// Refuse at once (rule 6) a learner to promote that has not caught up, instead of waiting for it
    #[arg(long)]
    pub no_wait: bool,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
    /// How long and how often to wait for the learners to catch up (and for
    /// leadership to move).
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// How long a command waits for leadership to move away from a leader the
/// change removes, and (a promotion) for a learner named before it has started.
#[derive(Debug, Clone, Args)]
pub struct StartWaitArgs {
    /// How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)
    #[arg(long, default_value = "1m", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
}

/// Arguments of `member move-leader`.
#[derive(Debug, Clone, Args)]
pub struct MoveLeaderArgs {
    /// The voter to lead: its hex ID or its name (default: the most caught-up voter)
    #[arg(value_name = "ID|NAME")]
    pub target: Option<String>,
    /// How long to wait for leadership to move (and for a named learner to start).
    #[command(flatten)]
    pub wait: StartWaitArgs,
}

/// A member named by its hex ID or its name.
#[derive(Debug, Clone, Args)]
pub struct TargetArg {
    /// The member: its hex ID (as printed, 16 digits) or its name
    #[arg(value_name = "ID|NAME")]
    pub member: String,
}

/// Arguments of `member check`.
#[derive(Debug, Clone, Args)]
#[command(mut_args(peer_urls_for_check))]
pub struct CheckArgs {
    /// The change to check for (default: none in particular)
    #[arg(long = "for", value_enum, value_name = "CHANGE")]
    pub change: Option<CheckFor>,
    /// The member the change concerns (promote, remove, update, replace): its hex ID or its name; for upgrade, the etcd version to move to (e.g. 3.6)
    #[arg(value_name = "ID|NAME|VERSION", required_if_eq_any = [("change", "promote"), ("change", "remove"), ("change", "update"), ("change", "replace"), ("change", "upgrade")])]
    pub member: Option<String>,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
    /// The new member's peer URLs (optional here: for the peer-tls check).
    #[command(flatten)]
    pub peer_urls: PeerUrlsArg,
    /// What the peer-tls check is told.
    #[command(flatten)]
    pub peer_tls: PeerTlsArgs,
}

/// `--peer-urls` as `member check` takes it: optional, and only for the
/// peer-tls check of `--peer-cert` (every other arg as it is, in its place).
fn peer_urls_for_check(arg: clap::Arg) -> clap::Arg {
    if arg.get_id() != "peer_urls" {
        return arg;
    }
    arg.required(false)
        .requires("peer_cert")
        .help("The new member's peer URLs, for the peer-tls check of --peer-cert (comma-separated)")
}

/// The change `member check --for` checks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFor {
    /// Adding a learner (the safe way to add).
    Add,
    /// Adding a voter.
    AddVoter,
    /// Promoting the learner MEMBER.
    Promote,
    /// Removing MEMBER.
    Remove,
    /// Changing MEMBER's peer URLs.
    Update,
    /// Replacing MEMBER with a new member (add a learner, promote it, remove MEMBER).
    Replace,
    /// Moving the cluster to etcd VERSION by replacing (or restarting) members: one minor version at a time, every member first on the minimum patch release (3.5.26 before 3.6, 3.6.11 before 3.7).
    Upgrade,
}

/// Pre-flight checks to pass knowingly.
#[derive(Debug, Clone, Args)]
pub struct SkipCheckArgs {
    /// Pass this pre-flight check knowingly, saying so (repeatable)
    #[arg(long = "skip-check", value_name = "CHECK", value_parser = check_parser())]
    pub skip_check: Vec<CheckName>,
}

/// What the catch-up check is told (changes that add a member).
#[derive(Debug, Clone, Args)]
pub struct CatchUpArgs {
    /// Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster's --link, else measured from the leader's past snapshot sends, else 100 MB/s as etcd assumes]
    #[arg(long, value_name = "RATE", value_parser = parse_link_bandwidth)]
    pub link_bandwidth: Option<u64>,
    /// The members' --snapshot-count, for the catch-up check [default: the server version's: 100000 before 3.6, 10000 from 3.6; the engine reports its own]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_count: Option<u64>,
}

/// The new member's peer TLS files, for the peer-tls check (changes that add a member).
#[derive(Debug, Clone, Args)]
pub struct PeerTlsArgs {
    /// The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)
    #[arg(long, value_name = "FILE", requires = "peer_key")]
    pub peer_cert: Option<std::path::PathBuf>,
    /// The private key of --peer-cert (the new member's --peer-key-file, PEM)
    #[arg(long, value_name = "FILE", requires = "peer_cert")]
    pub peer_key: Option<std::path::PathBuf>,
    /// The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]
    #[arg(long, value_name = "FILE", requires = "peer_cert")]
    pub peer_trusted_ca: Option<std::path::PathBuf>,
}

fn parse_link_bandwidth(s: &str) -> Result<u64, String> {
    crate::link::parse_bandwidth(s).ok_or_else(|| {
        format!("{s:?} is not a bandwidth: write it as a number with kbit, mbit or gbit (per second), e.g. 100mbit")
    })
}

/// A duration as [`parse_duration`] reads it, zero allowed (`0s`: no wait).
pub(super) fn parse_duration_or_zero(s: &str) -> Result<Duration, String> {
    match humantime::parse_duration(s.trim()) {
        Ok(d) if d.is_zero() => Ok(d),
        _ => parse_duration(s),
    }
}

/// `--min-voters`: a whole number, at least [`MIN_VOTERS`](crate::workflow::prune::MIN_VOTERS).
pub(super) fn parse_min_voters(s: &str) -> Result<usize, String> {
    let min = crate::workflow::prune::MIN_VOTERS;
    match s.trim().parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "{s:?} is not a number of voters of at least {min}: prune never leaves fewer \
             than {min} voters, which can still lose one"
        )),
    }
}

/// `--skip-check`'s values: the checks' stable names, from
/// [`CheckName::ALL`] (help and completions list them).
fn check_parser() -> impl clap::builder::TypedValueParser<Value = CheckName> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = CheckName::ALL.iter().map(|c| c.as_str()).collect();
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<CheckName>())
}

/// `--peer-urls`, declared once: a member's peer URLs, each read once as it
/// is parsed ([`PeerUrl`]; rule 1 judges them all later, at once).
#[derive(Debug, Clone, Args)]
pub struct PeerUrlsArg {
    /// The peer URLs to give the member, comma-separated (scheme://host:port)
    #[arg(
        long,
        required = true,
        value_delimiter = ',',
        value_name = "URL[,URL...]"
    )]
    pub peer_urls: Vec<PeerUrl>,
}

impl PeerUrlsArg {
    /// The URLs given, as the workflows take them.
    pub fn urls(&self) -> PeerUrls {
        self.peer_urls.iter().cloned().collect()
    }
}

/// Arguments of `member add`.
#[derive(Debug, Clone, Args)]
pub struct AddArgs {
    /// Name of the new member (what it will be started with as --name)
    pub name: String,
    /// Its peer URLs.
    #[command(flatten)]
    pub peer_urls: PeerUrlsArg,
    /// Add as a non-voting learner (the safe way: promote it once caught up)
    #[arg(long)]
    pub learner: bool,
    /// Check everything and print the plan; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
    /// What the peer-tls check is told.
    #[command(flatten)]
    pub peer_tls: PeerTlsArgs,
}

/// Arguments of `member promote`.
#[derive(Debug, Clone, Args)]
pub struct PromoteArgs {
    /// The member.
    #[command(flatten)]
    pub target: TargetArg,
    /// Promote at once instead of waiting for the learner to catch up
    #[arg(long, conflicts_with = "stable_for")]
    pub no_wait: bool,
    /// Promote only once the learner has met the readiness rule without a break for this long (a sample that is not ready starts it again)
    #[arg(long, default_value = "0s", value_parser = parse_duration_or_zero, value_name = "DURATION")]
    pub stable_for: Duration,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
    /// How long and how often to wait for catch-up.
    #[command(flatten)]
    pub wait: WaitArgs,
}

/// How long and how often to wait for a learner to catch up.
#[derive(Debug, Clone, Args)]
pub struct WaitArgs {
    /// How long to wait for the learner to start, catch up and be promoted
    #[arg(long, default_value = "5m", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
    /// How often to poll the learner's and the leader's progress
    #[arg(long, default_value = "500ms", value_parser = parse_duration, value_name = "DURATION")]
    pub poll_interval: Duration,
}

/// Arguments of `member remove`.
#[derive(Debug, Clone, Args)]
pub struct RemoveArgs {
    /// The member.
    #[command(flatten)]
    pub target: TargetArg,
    /// Check everything and print the plan; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Remove even if the remaining reachable voters could not form a quorum
    #[arg(long)]
    pub force: bool,
    /// How long to wait for leadership to move (and for a named learner to start).
    #[command(flatten)]
    pub wait: StartWaitArgs,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
}

/// Arguments of `member prune`.
#[derive(Debug, Clone, Args)]
pub struct PruneArgs {
    /// Watch the members this long first: a started learner whose index stands still behind the leader's all along goes (0s: only learners that never started go, at once)
    #[arg(long, default_value = "1m", value_parser = parse_duration_or_zero, value_name = "DURATION")]
    pub stalled_for: Duration,
    /// How often to look at every member while watching
    #[arg(long, default_value = "1s", value_parser = parse_duration, value_name = "DURATION")]
    pub poll_interval: Duration,
    /// Also remove voters that answer nothing for --stalled-for while the leader has lost them too
    #[arg(long)]
    pub dead_voters: bool,
    /// The fewest voters to leave when removing dead voters (at least 3, which can still lose one)
    #[arg(long, default_value_t = 3, value_parser = parse_min_voters, value_name = "N", requires = "dead_voters")]
    pub min_voters: usize,
    /// List what would be removed and why; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// How long each removal may wait for leadership to move.
    #[command(flatten)]
    pub wait: StartWaitArgs,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
}

/// Arguments of `member update`.
#[derive(Debug, Clone, Args)]
pub struct UpdateArgs {
    /// The member.
    #[command(flatten)]
    pub target: TargetArg,
    /// Its new peer URLs.
    #[command(flatten)]
    pub peer_urls: PeerUrlsArg,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
}

/// Arguments of `member replace`.
#[derive(Debug, Clone, Args)]
pub struct ReplaceArgs {
    /// The member to replace: its hex ID or its name
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The new member's name
    #[arg(long, value_name = "NEW")]
    pub name: String,
    /// The new member's peer URLs.
    #[command(flatten)]
    pub peer_urls: PeerUrlsArg,
    /// Check everything and print the plan with quorum and fault tolerance per step, and the rule that chose its order; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// How long and how often to wait for catch-up.
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Start the new member on the local test cluster (as `cluster start-node` does)
    #[arg(long)]
    pub start_local: bool,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
    /// What the peer-tls check is told.
    #[command(flatten)]
    pub peer_tls: PeerTlsArgs,
}

/// Arguments of `member apply`.
#[derive(Debug, Clone, Args)]
pub struct ApplyArgs {
    /// The voters wanted, as NAME=PEER_URL, comma-separated (repeatable)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAME=URL",
        required_unless_present = "target_file",
        conflicts_with = "target_file"
    )]
    pub target: Vec<String>,
    /// The voters wanted, from a file: one NAME=URL[,URL...] a line, or JSON {"members":[{"name","peer_urls"}]}
    #[arg(long, value_name = "FILE")]
    pub target_file: Option<std::path::PathBuf>,
    /// Check everything and print the plan with voters, quorum and fault tolerance after each step; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Allow a target of one member when the cluster has more
    #[arg(long)]
    pub force: bool,
    /// How long and how often to wait for each new member.
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Start new members on the local test cluster (as `cluster start-node` does)
    #[arg(long)]
    pub start_local: bool,
    /// Pre-flight checks to pass knowingly.
    #[command(flatten)]
    pub checks: SkipCheckArgs,
    /// What the catch-up check is told.
    #[command(flatten)]
    pub catch_up: CatchUpArgs,
}
