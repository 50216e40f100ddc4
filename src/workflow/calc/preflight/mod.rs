//! Pre-flight checks, the judges: whether the cluster can take a change now
//! (quorum, and the server's refusal of an add while a voter is down;
//! alarms, learners, versions, database, apply lag, disk, network, leader
//! stability, catch-up, peer certificates, a member left running with
//! `--force-new-cluster`), each a named result with the figures it read and
//! what to do. [`Facts`] is what the steps gathered (`workflow::preflight`),
//! [`evaluate`] judges it (`checks`, `server`, `versions` and the files named
//! after their check).

pub mod catch_up;
mod checks;
mod forced;
mod learner_update;
mod list;
pub mod peer_tls;
mod result;
mod server;
mod strict;
pub mod upgrade;
mod versions;

use std::time::Duration;

use super::health::Health;
use super::order::First;
use crate::model::{
    Alarm, ApiError, MemberId, MemberStatus, ProgressReport, ServerMetrics, ServerVersion,
    StartFlags,
};
pub use catch_up::{Bandwidth, BandwidthSource, CatchUpEstimate, CatchUpInputs, CatchUpPath};
pub use list::CheckName;
pub use peer_tls::{PeerRead, PeerTlsFacts, PeerTlsInputs, PEER_CERT_WARN_DAYS};
pub use result::{Check, Figure, Figures, Verdict};

/// Apply lag (committed − applied entries) that fails the check: etcd
/// refuses proposals beyond this gap.
pub const APPLY_FAIL: u64 = 5_000;
/// Apply lag that warns.
pub const APPLY_WARN: u64 = 1_000;
/// Free pages in the database file that are worth a defragmentation first.
pub const DB_FREE_WARN: u64 = 64 * 1024 * 1024;
/// Share of the quota (`etcd_server_quota_backend_bytes`) the database file
/// may fill before a change that adds data fails.
pub const DB_QUOTA_FAIL: f64 = 0.95;
/// Share of the quota that warns.
pub const DB_QUOTA_WARN: f64 = 0.80;
/// WAL fsync p99 (seconds) above which the disk warns (etcd's hardware guide: 10 ms).
pub const DISK_WAL_FSYNC_WARN: f64 = 0.010;
/// Backend commit p99 (seconds) above which the disk warns (etcd: 25 ms).
pub const DISK_BACKEND_COMMIT_WARN: f64 = 0.025;
/// Observations a latency histogram needs before its p99 is judged: with
/// fewer, the p99 is the slowest one or two (a member's first WAL writes,
/// which create and preallocate its files, are slow on any disk).
pub const DISK_MIN_OBSERVATIONS: f64 = 100.0;
/// Peer round trip p99 (seconds) above which the network warns: etcd's
/// default heartbeat interval, which its tuning guide sets near the round trip.
pub const NETWORK_RTT_WARN: f64 = 0.100;
/// How many learners etcd allows by default (`--max-learners`; 3.4: one).
pub const LEARNER_LIMIT: usize = 1;

/// One step of the change the checks are run for. A change is its steps in
/// order: one for `add`, `promote`, `remove`, `update`; several for
/// `replace`, `apply` and `joint enter` (whose steps are taken at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// No change: `member check` on its own.
    Inspect,
    /// Adding a member.
    Add {
        /// As a learner.
        learner: bool,
    },
    /// Promoting this learner.
    Promote(MemberId),
    /// Promoting a learner an earlier step of the same change adds.
    PromoteNew,
    /// Demoting this voter to a learner (joint consensus).
    Demote(MemberId),
    /// Removing this member.
    Remove(MemberId),
    /// Changing this member's peer URLs.
    Update(MemberId),
    /// Moving the cluster to this minor version (`member check --for
    /// upgrade`): members of that version added, promoted, old ones removed.
    Upgrade {
        /// (major, minor).
        to: (u64, u64),
    },
}

impl Change {
    /// Whether every step of `steps` removes a member (a removal has its own
    /// quorum rule and does not grow the database).
    pub fn only_removals(steps: &[Change]) -> bool {
        !steps.is_empty() && steps.iter().all(|s| matches!(s, Change::Remove(_)))
    }

    /// Whether `steps` add a member, or check for no change in particular
    /// (the catch-up check is then judged).
    pub fn adds(steps: &[Change]) -> bool {
        steps.iter().any(|s| {
            matches!(
                s,
                Change::Add { .. } | Change::Inspect | Change::Upgrade { .. }
            )
        })
    }

    /// Whether `steps` add a member or promote a learner: a catch-up is
    /// estimated (and judged only when they add one).
    pub fn catches_up(steps: &[Change]) -> bool {
        Change::adds(steps)
            || steps
                .iter()
                .any(|s| matches!(s, Change::Promote(_) | Change::PromoteNew))
    }

    /// Whether `steps` bring data to a member that did not vote (an add or a
    /// promotion), or check for no change in particular.
    pub fn grows(steps: &[Change]) -> bool {
        steps.is_empty()
            || steps.iter().any(|s| {
                matches!(
                    s,
                    Change::Inspect
                        | Change::Upgrade { .. }
                        | Change::Add { .. }
                        | Change::Promote(_)
                        | Change::PromoteNew
                )
            })
    }
}

/// What the checks read.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The membership and every member's status (first reading).
    pub health: Health,
    /// The alarms raised.
    pub alarms: Result<Vec<Alarm>, ApiError>,
    /// The leader's status read again after the metrics.
    pub leader_again: Option<Result<MemberStatus, ApiError>>,
    /// Each member's metrics, in the order of `health.list.members` (not read
    /// from a member whose status did not answer).
    pub metrics: Vec<Result<ServerMetrics, ApiError>>,
    /// How each member was started (`--force-new-cluster`), in the order of
    /// `health.list.members` (not read from a member whose status did not answer).
    pub start_flags: Vec<Result<StartFlags, ApiError>>,
    /// The leader's metrics read again, with `leader_again`.
    pub leader_metrics_again: Option<Result<ServerMetrics, ApiError>>,
    /// The leader's `/version` (the cluster version).
    pub version: Option<Result<ServerVersion, ApiError>>,
    /// Time between the first reading of the leader's metrics and the second.
    pub metrics_interval: Duration,
    /// The leader's view of replication (the engine only).
    pub progress: Option<ProgressReport>,
    /// What the operator told the catch-up check.
    pub told: CatchUpInputs,
    /// The peer certificates read, and what the operator told the
    /// `peer-tls` check.
    pub peer_tls: PeerTlsFacts,
}

/// The catch-up check's prediction among `checks`, if it made one.
pub fn predicted_seconds(checks: &[Check]) -> Option<f64> {
    checks
        .iter()
        .find(|c| c.name == CheckName::CatchUp)
        .and_then(|c| c.figures.get("predicted_seconds"))
}

/// The steps of replacing `old` in the order `first` (`member replace`'s
/// rule, [`super::order::decide`]): add a learner, promote it, remove `old`; or
/// (a dead `old`) remove it, then add and promote; or, when an earlier run
/// added the new member already (`added`, whether it is still a learner),
/// what is left of them.
pub fn replacing(old: MemberId, added: Option<(MemberId, bool)>, first: First) -> Vec<Change> {
    let mut steps = match added {
        None => vec![Change::Add { learner: true }, Change::PromoteNew],
        Some((new, true)) => vec![Change::Promote(new)],
        Some((_, false)) => vec![],
    };
    match first {
        First::Remove => steps.insert(0, Change::Remove(old)),
        First::Add => steps.push(Change::Remove(old)),
    }
    steps
}

/// Evaluates every check for the change made of `steps` (in order), in the
/// order of [`CheckName::ALL`]: each judge of the one list (`list.rs`) that
/// concerns the change.
pub fn evaluate(facts: &Facts, steps: &[Change]) -> Vec<Check> {
    list::JUDGES
        .iter()
        .filter_map(|judge| judge(facts, steps))
        .collect()
}
