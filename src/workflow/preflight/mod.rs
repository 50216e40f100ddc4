//! Pre-flight checks, the steps: [`gather`] reads what the checks need
//! (through the `MembershipApi`), [`enforce`] refuses a change when one
//! fails, [`Preflight`] runs them for a change and [`check`] for `member
//! check`. What the checks are and how each judges is the judges' wing's:
//! `calc::preflight` (its items re-exported here).

use std::time::Duration;

use futures_util::future::{join, join3, join_all};
use tokio::time::Instant;

use super::calc::order;
pub use super::calc::preflight::*;
use super::health::Health;
use super::look;
use super::resolve::{resolve, Purpose};
use super::{ApiError, MembershipApi, Observer};
use crate::error::Error;
use crate::model::Member;

/// Reads, concurrently, the alarms, every answering member's metrics and
/// start flags, the leader's `/version` (and, from the engine, its replication
/// progress); then the leader's status and metrics a second time (the
/// stability check compares the two readings; for a change that adds a
/// member, at least half a second later: the catch-up check reads the write
/// rate from them). The members' peer certificates are read at the same
/// time, each with a TLS handshake to its https peer URL.
pub async fn gather<A: MembershipApi>(
    api: &A,
    health: Health,
    steps: &[Change],
    options: &CheckOptions,
) -> Facts {
    let started = Instant::now();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let peers = join_all(peer_tls::to_read(&health.list.members).into_iter().map(
        |(member, label, url)| async move {
            let chain = api.peer_certificates(&url).await;
            PeerRead {
                member,
                label,
                url,
                chain,
            }
        },
    ));
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
    let flags = join_all(health.list.members.iter().zip(&health.statuses).map(
        |(m, s)| async move {
            match s {
                Ok(_) => api.start_flags(m).await,
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
    let progress = async {
        match &leader {
            Some(_) => api.get_progress().await.ok(),
            None => None,
        }
    };
    let ((alarms, metrics, version), (progress, peers, start_flags)) = join(
        join3(api.alarms(), metrics, version),
        join3(progress, peers, flags),
    )
    .await;
    if Change::catches_up(steps) {
        let least = Duration::from_secs_f64(catch_up::RATE_INTERVAL_SECONDS);
        tokio::time::sleep(least.saturating_sub(started.elapsed())).await;
    }
    let again_at = Instant::now();
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
        alarms,
        leader_again,
        metrics,
        start_flags,
        leader_metrics_again,
        version,
        metrics_interval: again_at.duration_since(started),
        progress,
        told: options.catch_up.clone(),
        peer_tls: PeerTlsFacts {
            told: options.peer_tls.clone(),
            https: peer_tls::uses_tls(&health.list.members),
            read: peers,
            now,
        },
        health,
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

/// How a change runs its checks: which it passes knowingly and what the
/// operator told the catch-up check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckOptions {
    /// Checks passed knowingly (`--skip-check`).
    pub skip: Vec<CheckName>,
    /// `--link-bandwidth`, `--snapshot-count`, or the local cluster's link.
    pub catch_up: CatchUpInputs,
    /// The new member's peer URLs and `--peer-cert`/`--peer-key`/`--peer-trusted-ca`.
    pub peer_tls: PeerTlsInputs,
}

/// Whether a change runs the pre-flight checks itself (by default it does,
/// passing none knowingly).
#[derive(Clone, Debug, PartialEq)]
pub enum Preflight {
    /// Run them with these options.
    Run(CheckOptions),
    /// Not here: a workflow that takes this step as part of a larger change
    /// (`member apply`, `member replace`) is responsible for them.
    ByCaller,
}

impl Default for Preflight {
    fn default() -> Self {
        Preflight::Run(CheckOptions::default())
    }
}

impl Preflight {
    /// Takes `bandwidth` for the catch-up estimate unless one was given.
    pub fn or_bandwidth(mut self, bandwidth: Option<Bandwidth>) -> Self {
        if let Preflight::Run(o) = &mut self {
            if o.catch_up.bandwidth.is_none() {
                o.catch_up.bandwidth = bandwidth;
            }
        }
        self
    }

    /// Runs the checks for the change made of `steps` unless the caller is
    /// responsible for them; returns the checks passed (warnings and skips
    /// included; none when the caller is responsible), for the change's outcome.
    pub async fn run<A: MembershipApi>(
        &self,
        api: &A,
        observer: &dyn Observer,
        health: &Health,
        steps: &[Change],
    ) -> Result<Vec<Check>, Error> {
        match self {
            Preflight::Run(options) => {
                let facts = gather(api, health.clone(), steps, options).await;
                enforce(evaluate(&facts, steps), &options.skip, observer)
            }
            Preflight::ByCaller => Ok(Vec::new()),
        }
    }

    /// The catch-up check's prediction for `steps`, judged but not enforced
    /// (nothing refused, nothing said): for a wait that comes before the
    /// checks themselves (`joint enter`, whose checks need the learners it
    /// promotes to answer). None when the caller is responsible for the
    /// checks, or when no prediction could be made.
    pub async fn predicted<A: MembershipApi>(
        &self,
        api: &A,
        health: &Health,
        steps: &[Change],
    ) -> Option<f64> {
        match self {
            Preflight::Run(options) => {
                let facts = gather(api, health.clone(), steps, options).await;
                predicted_seconds(&evaluate(&facts, steps))
            }
            Preflight::ByCaller => None,
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
    /// Moving the cluster to this version ("3.6"; a patch is ignored).
    Upgrade(String),
}

/// Runs `member check`: every check for `planned` (told what `options`
/// say; its skips are not used), nothing enforced.
pub async fn check<A: MembershipApi>(
    api: &A,
    planned: &Planned,
    options: &CheckOptions,
) -> Result<Vec<Check>, Error> {
    let list = api.member_list().await?;
    let health = Health::gather(api, list.clone()).await;
    let steps = match planned {
        Planned::Inspect => vec![Change::Inspect],
        Planned::Add { learner } => vec![Change::Add { learner: *learner }],
        Planned::Promote(t) => vec![Change::Promote(resolve(&list, t, Purpose::Promote)?.id)],
        Planned::Remove(t) => vec![Change::Remove(resolve(&list, t, Purpose::Remove)?.id)],
        Planned::Update(t) => vec![Change::Update(resolve(&list, t, Purpose::Update)?.id)],
        Planned::Replace(t) => {
            // The order `member replace` would choose: a dead voter goes first.
            let old = resolve(&list, t, Purpose::Replace)?;
            let look = look::look_at(api, &health, Duration::ZERO).await;
            let first = order::decide(old, look.seen(old.id), "NEW", None, false).first;
            replacing(old.id, None, first)
        }
        Planned::Upgrade(v) => {
            let to = upgrade::Release::parse(v).ok_or_else(|| {
                Error::usage(format!(
                    "--for upgrade {v}: not a version; give the etcd version to move to, \
                     e.g. `memberctl member check --for upgrade 3.6`"
                ))
            })?;
            vec![Change::Upgrade {
                to: to.minor_version(),
            }]
        }
    };
    let facts = gather(api, health, &steps, options).await;
    Ok(evaluate(&facts, &steps))
}

#[cfg(test)]
mod tests;
