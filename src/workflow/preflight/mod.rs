//! Pre-flight checks: whether the cluster can take a change now (quorum,
//! alarms, learners, versions, database, apply lag, disk, network, leader
//! stability), each
//! a named result with the figures it read and what to do. [`gather`] reads
//! what the checks need, [`evaluate`] (pure: `checks` and `server`) judges it,
//! [`enforce`] refuses a change when one fails.

mod checks;
mod server;

use std::fmt;
use std::str::FromStr;

use futures_util::future::{join, join3, join_all};

use super::health::Health;
use super::resolve::{resolve, Purpose};
use super::{ApiError, MembershipApi, Observer};
use crate::error::Error;
use crate::model::{Alarm, Member, MemberId, MemberStatus, ServerMetrics, ServerVersion};

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

/// The checks, by their stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckName {
    /// A leader, and a majority of voters that answer.
    Quorum,
    /// Alarms raised (NOSPACE, CORRUPT).
    Alarms,
    /// Learners already in the cluster (etcd allows one by default).
    Learners,
    /// Server versions: one minor version, not an upgrade half done.
    Versions,
    /// Database size and free pages (a new member receives the whole file).
    Db,
    /// Entries committed but not applied, per member.
    Apply,
    /// WAL fsync and backend commit latencies (`/metrics`).
    Disk,
    /// Peer round trips (`/metrics`).
    Network,
    /// The leader and term stay the same while the checks run.
    Stability,
}

impl CheckName {
    /// Every check, in the order they are reported.
    pub const ALL: [CheckName; 9] = [
        CheckName::Quorum,
        CheckName::Alarms,
        CheckName::Learners,
        CheckName::Versions,
        CheckName::Db,
        CheckName::Apply,
        CheckName::Disk,
        CheckName::Network,
        CheckName::Stability,
    ];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckName::Quorum => "quorum",
            CheckName::Alarms => "alarms",
            CheckName::Learners => "learners",
            CheckName::Versions => "versions",
            CheckName::Db => "db",
            CheckName::Apply => "apply",
            CheckName::Disk => "disk",
            CheckName::Network => "network",
            CheckName::Stability => "stability",
        }
    }
}

impl fmt::Display for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CheckName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        CheckName::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = CheckName::ALL.iter().map(|c| c.as_str()).collect();
                format!(
                    "no check is named {s:?}; the checks are {}",
                    names.join(", ")
                )
            })
    }
}

/// A check's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Nothing in the way.
    Ok,
    /// Its source could not be read: never taken as ok.
    Unknown,
    /// The change may go ahead; read the detail.
    Warn,
    /// The change would hurt the cluster: refused.
    Fail,
}

impl Verdict {
    /// The result as printed: `ok`, `unknown`, `warn`, `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Unknown => "unknown",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Which check.
    pub name: CheckName,
    /// Its result.
    pub verdict: Verdict,
    /// The members it concerns (by label), if any.
    pub members: Vec<String>,
    /// What it read: the figures.
    pub detail: String,
    /// What to do (empty when nothing is to be done).
    pub remedy: String,
    /// Passed knowingly with `--skip-check`.
    pub skipped: bool,
}

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
}

impl Change {
    /// Whether every step of `steps` removes a member (a removal has its own
    /// quorum rule and does not grow the database).
    pub fn only_removals(steps: &[Change]) -> bool {
        !steps.is_empty() && steps.iter().all(|s| matches!(s, Change::Remove(_)))
    }

    /// Whether `steps` bring data to a member that did not vote (an add or a
    /// promotion), or check for no change in particular.
    pub fn grows(steps: &[Change]) -> bool {
        steps.is_empty()
            || steps.iter().any(|s| {
                matches!(
                    s,
                    Change::Inspect | Change::Add { .. } | Change::Promote(_) | Change::PromoteNew
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
    /// The leader's metrics read again, with `leader_again`.
    pub leader_metrics_again: Option<Result<ServerMetrics, ApiError>>,
    /// The leader's `/version` (the cluster version).
    pub version: Option<Result<ServerVersion, ApiError>>,
}

/// Reads, concurrently, the alarms, every answering member's metrics and
/// the leader's `/version`; then the leader's status and metrics a second
/// time (the stability check compares the two readings).
pub async fn gather<A: MembershipApi>(api: &A, health: Health) -> Facts {
    let leader: Option<Member> = health.leader().and_then(|id| health.list.get(id).cloned());
    let metrics = join_all(health.list.members.iter().zip(&health.statuses).map(
        |(m, s)| async move {
            match s {
                Ok(_) => api.server_metrics(m).await,
                Err(e) => Err(ApiError::new(
                    e.kind,
                    format!("not read: its status did not answer ({})", e.message),
                )),
            }
        },
    ));
    let version = async {
        match &leader {
            Some(m) => Some(api.server_version(m).await),
            None => None,
        }
    };
    let (alarms, metrics, version) = join3(api.alarms(), metrics, version).await;
    let first_read = |m: &Member| {
        let i = health.list.members.iter().position(|x| x.id == m.id);
        i.and_then(|i| metrics.get(i)).is_some_and(Result::is_ok)
    };
    let (leader_again, leader_metrics_again) = match &leader {
        // Metrics that could not be read once are not waited for again.
        Some(m) if first_read(m) => {
            let (s, x) = join(api.member_status(m), api.server_metrics(m)).await;
            (Some(s), Some(x))
        }
        Some(m) => (Some(api.member_status(m).await), None),
        None => (None, None),
    };
    Facts {
        health,
        alarms,
        leader_again,
        metrics,
        leader_metrics_again,
        version,
    }
}

/// Applies the checks' results to a change: passes the ones named in `skip`
/// (saying so, with what they found), reports warnings, and refuses when one
/// fails. Unknowns neither refuse nor print: `member check` shows them.
pub fn enforce(
    mut checks: Vec<Check>,
    skip: &[CheckName],
    observer: &dyn Observer,
) -> Result<Vec<Check>, Error> {
    let mut failed = Vec::new();
    for c in &mut checks {
        if skip.contains(&c.name) {
            c.skipped = true;
            observer.notice(&format!(
                "check {} skipped as asked (--skip-check {}); it found: {}: {}",
                c.name, c.name, c.verdict, c.detail
            ));
            continue;
        }
        match c.verdict {
            Verdict::Fail => failed.push(c.clone()),
            Verdict::Warn => observer.notice(&format!(
                "warning: check {}: {}{}",
                c.name,
                c.detail,
                if c.remedy.is_empty() {
                    String::new()
                } else {
                    format!("; {}", c.remedy)
                }
            )),
            Verdict::Unknown | Verdict::Ok => {}
        }
    }
    if failed.is_empty() {
        return Ok(checks);
    }
    let lines: Vec<String> = failed
        .iter()
        .map(|c| {
            format!(
                "check {} failed: {}; what to do: {}",
                c.name, c.detail, c.remedy
            )
        })
        .collect();
    Err(Error::refused(format!(
        "refused by the pre-flight checks (nothing was sent): {}; to pass a check knowingly: \
         --skip-check NAME",
        lines.join("; ")
    )))
}

/// Whether a change runs the pre-flight checks itself (by default it does,
/// passing none knowingly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Preflight {
    /// Run them, passing these checks knowingly (`--skip-check`).
    Run(Vec<CheckName>),
    /// Not here: a workflow that takes this step as part of a larger change
    /// (`member apply`, `member replace`) is responsible for them.
    ByCaller,
}

impl Default for Preflight {
    fn default() -> Self {
        Preflight::Run(Vec::new())
    }
}

impl Preflight {
    /// Runs the checks for the change made of `steps` unless the caller is
    /// responsible for them.
    pub async fn run<A: MembershipApi>(
        &self,
        api: &A,
        observer: &dyn Observer,
        health: &Health,
        steps: &[Change],
    ) -> Result<Vec<Check>, Error> {
        match self {
            Preflight::Run(skip) => {
                let facts = gather(api, health.clone()).await;
                let checks = enforce(evaluate(&facts, steps), skip, observer)?;
                observer.checked(&checks);
                Ok(checks)
            }
            Preflight::ByCaller => Ok(Vec::new()),
        }
    }
}

/// The change `member check --for` names, with the member as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Planned {
    /// No change in particular.
    Inspect,
    /// Adding a member.
    Add {
        /// As a learner.
        learner: bool,
    },
    /// Promoting this learner (ID or name).
    Promote(String),
    /// Removing this member (ID or name).
    Remove(String),
    /// Changing this member's peer URLs (ID or name).
    Update(String),
    /// Replacing this member with a new one (ID or name).
    Replace(String),
}

/// Runs `member check`: every check for `planned`, nothing enforced.
pub async fn check<A: MembershipApi>(api: &A, planned: &Planned) -> Result<Vec<Check>, Error> {
    let list = api.member_list().await?;
    let steps = match planned {
        Planned::Inspect => vec![Change::Inspect],
        Planned::Add { learner } => vec![Change::Add { learner: *learner }],
        Planned::Promote(t) => vec![Change::Promote(resolve(&list, t, Purpose::Promote)?.id)],
        Planned::Remove(t) => vec![Change::Remove(resolve(&list, t, Purpose::Remove)?.id)],
        Planned::Update(t) => vec![Change::Update(resolve(&list, t, Purpose::Update)?.id)],
        Planned::Replace(t) => replacing(resolve(&list, t, Purpose::Replace)?.id, None).to_vec(),
    };
    let health = Health::gather(api, list).await;
    let facts = gather(api, health).await;
    Ok(evaluate(&facts, &steps))
}

/// The steps of replacing `old`: add a learner, promote it, remove `old`; or,
/// when an earlier run added the new member already (`added`, whether it is
/// still a learner), what is left of them.
pub fn replacing(old: MemberId, added: Option<(MemberId, bool)>) -> Vec<Change> {
    match added {
        None => vec![
            Change::Add { learner: true },
            Change::PromoteNew,
            Change::Remove(old),
        ],
        Some((new, true)) => vec![Change::Promote(new), Change::Remove(old)],
        Some((_, false)) => vec![Change::Remove(old)],
    }
}

/// Evaluates every check for the change made of `steps` (in order): the
/// membership's (`checks`), then the servers' figures (`server`).
pub fn evaluate(facts: &Facts, steps: &[Change]) -> Vec<Check> {
    vec![
        checks::quorum(facts, steps),
        checks::alarms(facts, steps),
        checks::learners(facts, steps),
        server::versions(facts),
        server::db(facts, steps),
        checks::apply(facts),
        server::disk(facts),
        server::network(facts),
        server::stability(facts),
    ]
}

#[cfg(test)]
mod tests;
