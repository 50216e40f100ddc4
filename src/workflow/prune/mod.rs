//! `member prune`: removes the members that hold a place without doing its
//! work — learners that never started, learners whose index stood still
//! behind the leader's for `--stalled-for`, and (with `--dead-voters`)
//! voters that answered nothing for that long while the leader had lost them
//! too — one at a time through `member remove` (rule 4 and the pre-flight
//! checks), never leaving fewer voters than `--min-voters`.
//!
//! The workflow watches ([`look`] every `--poll-interval`), then judges what
//! it saw with a calculator over plain values (`calc::prune`: [`judge`],
//! [`may_remove_voter`]), then removes.

use std::time::Duration;

use tokio::time::Instant;

use super::calc::prune::removal_rank;
pub use super::calc::prune::{judge, may_remove_voter, Reason, Rules, Verdict, MIN_VOTERS};
pub use super::look::{look, Look, Seen};
use super::preflight::{Check, Preflight};
use super::remove::{self, RemoveOutcome, RemoveRequest};
use super::{Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberList};

/// What to prune and how long to watch.
#[derive(Clone, Debug)]
pub struct PruneRequest {
    /// How long a started learner's index (or a voter's silence) is watched
    /// (`--stalled-for`); zero: only learners that never started are removed.
    pub stalled_for: Duration,
    /// Time between two looks at the members.
    pub poll_interval: Duration,
    /// Also remove dead voters (`--dead-voters`).
    pub dead_voters: bool,
    /// The fewest voters to leave (`--min-voters`; never below [`MIN_VOTERS`]).
    pub min_voters: usize,
    /// Only say what would be removed.
    pub dry_run: bool,
    /// How long each removal may wait for leadership to move.
    pub timeout: Duration,
    /// The pre-flight checks of each removal.
    pub preflight: Preflight,
}

/// A member and why it was removed, kept or refused.
#[derive(Clone, Debug, PartialEq)]
pub struct PrunedMember {
    /// The member (as it was before any removal).
    pub member: Member,
    /// Why.
    pub reason: Reason,
}

/// What `member prune` did (or, `--dry-run`, would do).
#[derive(Clone, Debug, PartialEq)]
pub struct Pruned {
    /// Removed, in order (`--dry-run`: would be removed).
    pub removed: Vec<PrunedMember>,
    /// Kept, each with why.
    pub kept: Vec<PrunedMember>,
    /// Would have gone, but a rule refused it: the command exits 3.
    pub refused: Vec<PrunedMember>,
    /// The membership at the end.
    pub list: MemberList,
    /// How long the members were watched.
    pub watched: Duration,
    /// Nothing was changed.
    pub dry_run: bool,
    /// The pre-flight checks each removal passed, in order (warnings and
    /// skips included).
    pub checks: Vec<Check>,
}

/// Looks at the members every `poll_interval` until `stalled_for` has passed
/// (once when it is zero). A look that fails is told and skipped.
async fn watch<A: MembershipApi>(cx: &Ctx<'_, A>, req: &PruneRequest) -> Vec<Look> {
    let begin = Instant::now();
    let end = begin + req.stalled_for;
    let mut looks = Vec::new();
    if !req.stalled_for.is_zero() {
        cx.observer.notice(&format!(
            "watching the members for {} (--stalled-for)",
            humantime::format_duration(req.stalled_for)
        ));
    }
    loop {
        match look(cx.api, begin.elapsed()).await {
            Ok(l) => looks.push(l),
            Err(e) => cx.observer.notice(&format!(
                "could not look at the members: {e}; looking again"
            )),
        }
        let now = Instant::now();
        if now >= end {
            return looks;
        }
        tokio::time::sleep(req.poll_interval.min(end - now)).await;
    }
}

/// Runs `member prune`.
pub async fn prune<A: MembershipApi>(cx: &Ctx<'_, A>, req: &PruneRequest) -> Result<Pruned, Error> {
    let began = Instant::now();
    let looks = watch(cx, req).await;
    let watched = began.elapsed();
    let mut list = cx.api.member_list().await?;
    let rules = Rules {
        stalled_for: req.stalled_for,
        dead_voters: req.dead_voters,
    };
    let mut goes = Vec::new();
    let mut kept = Vec::new();
    for (member, verdict) in judge(&list, &looks, rules) {
        match verdict {
            Verdict::Remove(reason) => goes.push(PrunedMember { member, reason }),
            Verdict::Keep(reason) => kept.push(PrunedMember { member, reason }),
        }
    }
    goes.sort_by_key(|p| removal_rank(&p.member, &p.reason));
    let mut removed = Vec::new();
    let mut refused = Vec::new();
    let mut checks = Vec::new();
    let mut voters = list.voters().count();
    for p in goes {
        if p.member.is_voter() {
            if let Err(reason) = may_remove_voter(voters, req.min_voters) {
                refused.push(PrunedMember {
                    member: p.member,
                    reason,
                });
                continue;
            }
        }
        if req.dry_run {
            voters -= usize::from(p.member.is_voter());
            removed.push(p);
            continue;
        }
        cx.observer
            .notice(&format!("removing {}: {}", p.member.label(), p.reason));
        let remove = RemoveRequest {
            target: p.member.id.to_string(),
            dry_run: false,
            force: false,
            timeout: req.timeout,
            preflight: req.preflight.clone(),
        };
        match remove::remove(cx, &remove).await {
            Ok(RemoveOutcome::Removed {
                list: after,
                checks: passed,
                ..
            }) => {
                list = after;
                voters = list.voters().count();
                checks.extend(passed);
                removed.push(p);
            }
            Ok(RemoveOutcome::Plan { checks: passed, .. }) => {
                checks.extend(passed);
                removed.push(p);
            }
            Err(e) if e.kind == ErrorKind::Refused => {
                cx.observer
                    .notice(&format!("{} stays: {}", p.member.label(), e.message));
                refused.push(PrunedMember {
                    member: p.member,
                    reason: Reason::Refused(e.message),
                });
            }
            Err(e) => {
                let done: Vec<String> = removed.iter().map(|r| r.member.label()).collect();
                let what = if done.is_empty() {
                    format!("removing {}", p.member.label())
                } else {
                    format!(
                        "removing {} (after removing {})",
                        p.member.label(),
                        done.join(", ")
                    )
                };
                return Err(e.context(what));
            }
        }
    }
    Ok(Pruned {
        removed,
        kept,
        refused,
        list,
        watched,
        dry_run: req.dry_run,
        checks,
    })
}

#[cfg(test)]
mod tests;
