//! `member replace OLD --name NEW --peer-urls URL`: the whole replacement of
//! a member, in the order the cluster calls for ([`order::decide`], rule 4):
//! a dead OLD is removed first, then NEW added as a learner, started, caught
//! up and promoted; a live OLD is replaced add-first (on the memberctl engine
//! one joint change promotes NEW and removes OLD; on etcd NEW is promoted,
//! then OLD removed). The steps ([`replacement::steps`], a calculator) are planned from where the
//! cluster is, so `--dry-run` prints what a run takes and a rerun continues
//! where an earlier one stopped. Before it removes a dead OLD it records the
//! replacement in the cluster's keyspace ([`INTENT`]): a rerun that finds OLD
//! gone and NEW not yet added goes on only when that record names both.

mod intent;
mod take;

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::calc::order::{self, First, Order};
use super::calc::quorum::Plan;
use super::calc::replacement::{self, Step, Where};
use super::calc::validate;
use super::catch_up::CatchUpSummary;
use super::health::Health;
use super::look::{self, Seen};
use super::preflight::{predicted_seconds, Check, Preflight};
use super::resolve::{resolve, Purpose};
use super::start::StartMember;
use super::{ApiErrorKind, Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Configuration, Member, MemberId, MemberList, PeerUrls};
use intent::recorded;
pub use intent::{Intent, INTENT};
use take::Running;

/// What to replace with what.
#[derive(Clone, Debug)]
pub struct ReplaceRequest {
    /// The member to replace (name or ID).
    pub old: String,
    /// The new member's name.
    pub name: String,
    /// The new member's peer URLs, read once.
    pub peer_urls: PeerUrls,
    /// Only print the plan.
    pub dry_run: bool,
    /// How long each wait may take: the new member's start and catch-up,
    /// and etcd's "unhealthy cluster" window after a member connects.
    pub timeout: Duration,
    /// Time between catch-up polls.
    pub poll_interval: Duration,
    /// The pre-flight checks, run once for the whole replacement before its first step.
    pub preflight: Preflight,
    /// Replace OLD only while it is dead (autopilot's replacement: an OLD
    /// that answers again, or that the leader hears again, is kept and
    /// nothing is done).
    pub only_dead: bool,
}

/// A finished replacement.
#[derive(Clone, Debug, PartialEq)]
pub struct Replaced {
    /// The member that was removed.
    pub removed: Member,
    /// The member that replaced it.
    pub member: Member,
    /// The membership after.
    pub list: MemberList,
    /// The new member's catch-up, when this run waited for it.
    pub catch_up: Option<CatchUpSummary>,
    /// The order and the rule that chose it (`None`: an earlier run had
    /// finished, nothing was left).
    pub order: Option<Order>,
    /// The steps this run took, by their names in the plan (a leadership
    /// transfer included when one was planned before a removal).
    pub steps: Vec<String>,
}

/// A replacement ready to run: where it stands and its steps.
#[derive(Clone, Debug)]
pub struct Going {
    /// The old member (when an earlier run removed it: as the intent names it).
    pub old: Member,
    /// Whether the old member is still a member.
    pub old_present: bool,
    /// The new member, once it is one.
    pub new: Option<Member>,
    /// The order and why.
    pub order: Order,
    /// The steps left.
    pub steps: Vec<Step>,
    /// The pre-flight checks the replacement passed (the catch-up check's
    /// prediction among them, when it made one).
    pub checks: Vec<Check>,
    /// The membership when it was planned.
    pub list: MemberList,
}

/// Where `prepare` got to.
#[derive(Clone, Debug)]
pub enum Prepared {
    /// `--dry-run`: the plan.
    Plan {
        /// The configurations, step by step, and the order chosen.
        plan: Plan,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// Planned, checked and ready to run ([`run`] takes the steps).
    Ready(Box<Going>),
    /// Nothing is left to do (an earlier run finished).
    Done(Box<Replaced>),
}

/// What `member replace` did, with the pre-flight checks it passed
/// (warnings and skips included; none when an earlier run had finished).
#[derive(Clone, Debug)]
pub enum ReplaceOutcome {
    /// `--dry-run`: the plan.
    Plan {
        /// The configurations, step by step, and the order chosen.
        plan: Plan,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// The replacement is complete.
    Replaced {
        /// What was replaced with what.
        replaced: Box<Replaced>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
}

async fn engine_config<A: MembershipApi>(api: &A) -> Result<Option<Configuration>, Error> {
    match api.get_config().await {
        Ok(c) => Ok(Some(c)),
        Err(e) if e.kind == ApiErrorKind::Unimplemented => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Checks the new member's name and peer URLs (rule 1) against the members
/// that will be there when it is added (`members`: without a dead OLD, which
/// goes first and may hand its name and URLs on); `new` is the new member when
/// it is one already (its own URLs and name allowed).
fn check_new(
    members: &[Member],
    req: &ReplaceRequest,
    new: Option<&Member>,
    resolver: validate::Resolver<'_>,
) -> Result<(), Error> {
    let Some(m) = new else {
        return validate::check_new_member(&req.name, &req.peer_urls, members, resolver);
    };
    // `same_as` compares parsed endpoints; the URLs as given must still pass rule 1.
    validate::refuse_problems(validate::check_peer_urls(
        &req.peer_urls,
        members,
        Some(m.id),
        resolver,
    ))?;
    if m.started() && m.name != req.name {
        return Err(Error::refused(format!(
            "peer URLs {} belong to member {}, which runs under another name than {}; give \
             the new member's own name and URLs",
            req.peer_urls,
            m.label(),
            validate::quoted(&req.name)
        )));
    }
    let others: Vec<Member> = members.iter().filter(|o| o.id != m.id).cloned().collect();
    validate::refuse_problems(validate::check_name(&req.name, &others))
}

/// Resolves the members, decides the order from what the cluster shows,
/// plans the steps left and runs the pre-flight checks for them; sends
/// nothing.
pub async fn prepare<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &ReplaceRequest,
) -> Result<Prepared, Error> {
    let (api, observer, resolver) = (cx.api, cx.observer, cx.resolver);
    let list = api.member_list().await?;
    let engine = engine_config(api).await?;
    let resolved = resolve(&list, &req.old, Purpose::Replace).cloned();
    let by_urls = list
        .members
        .iter()
        .find(|m| req.peer_urls.same_as(&m.peer_urls))
        .cloned();
    // The new member, when it is one already; OLD's own URLs given for NEW are
    // OLD's still (a dead OLD may hand them on: it is removed first).
    let takes_old_urls = matches!((&resolved, &by_urls), (Ok(o), Some(m)) if o.id == m.id);
    let new = by_urls.filter(|_| !takes_old_urls);
    let (old, old_present) = match resolved {
        Ok(m) => (m, true),
        Err(e) => match (recorded(api, req).await, &new) {
            // An earlier run removed OLD after recording this replacement.
            (Some(intent), _) => (intent.member(), false),
            // NEW is a member already and OLD is gone: what is left is NEW's.
            (None, Some(_)) => (
                Member {
                    name: req.old.clone(),
                    id: req.old.parse().unwrap_or_default(),
                    ..Default::default()
                },
                false,
            ),
            (None, None) => {
                let mut e = e;
                e.message = format!(
                    "{}; no earlier `member replace` of it is recorded ({INTENT} names no such \
                     replacement), so nothing is added",
                    e.message
                );
                return Err(e);
            }
        },
    };
    let health = Health::gather(api, list.clone()).await;
    let order = if old_present {
        let look = look::look_at(api, &health, Duration::ZERO).await;
        if req.only_dead && !look.seen(old.id).is_some_and(Seen::dead) {
            return Err(Error::new(
                ErrorKind::Refused,
                format!(
                    "{} is not dead any more (it answers, or the leader hears it): it is kept, \
                     and nothing was changed",
                    old.label()
                ),
            ));
        }
        order::decide(
            &old,
            look.seen(old.id),
            &req.name,
            new.as_ref(),
            engine.is_some(),
        )
    } else {
        Order {
            first: First::Remove,
            rule: format!(
                "{} is no longer a member: an earlier run removed it (a dead member goes \
                 first); what is left is {}'s",
                old.label(),
                req.name
            ),
        }
    };
    // NEW's name and URLs against the members there when it is added: a
    // dead OLD goes first, and may hand them on; a live one stays until NEW
    // has caught up, so NEW needs its own.
    let removed_first = old_present && order.first == First::Remove;
    if takes_old_urls && !removed_first {
        return Err(Error::usage(format!(
            "{} already has these peer URLs: OLD and NEW would be the same member (a live \
             member is replaced add-first, so the new one needs peer URLs of its own; a \
             dead one is removed first and may hand its URLs on)",
            old.label()
        )));
    }
    let members: Vec<Member> = list
        .members
        .iter()
        .filter(|m| !(removed_first && m.id == old.id))
        .cloned()
        .collect();
    check_new(&members, req, new.as_ref(), resolver)?;
    let w = Where {
        health: &health,
        old: old_present.then_some(&old),
        new: new.as_ref(),
        name: &req.name,
        first: order.first,
        engine: engine.as_ref(),
    };
    let (before, steps) = replacement::steps(&w);
    if steps.is_empty() {
        observer.notice(&format!(
            "{} is gone and {} is a voter: nothing left to do",
            req.old, req.name
        ));
        let _ = api.key_put(INTENT, None).await;
        let member = new.unwrap_or_default();
        return Ok(Prepared::Done(Box::new(Replaced {
            removed: old,
            member,
            list,
            catch_up: None,
            order: None,
            steps: Vec::new(),
        })));
    }
    let changes = replacement::changes(&steps, w.old, w.new);
    let checks = req.preflight.run(api, observer, &health, &changes).await?;
    if req.dry_run {
        let mut shown = vec![before];
        shown.extend(steps.iter().flat_map(|s| s.shows.iter().cloned()));
        return Ok(Prepared::Plan {
            plan: Plan {
                steps: shown,
                order: Some(order),
            },
            checks,
        });
    }
    Ok(Prepared::Ready(Box::new(Going {
        old,
        old_present,
        new,
        order,
        steps,
        checks,
        list,
    })))
}

/// The member list once it no longer shows `gone` (a member may answer from a
/// state that has not applied the change yet); an error if it still does at `deadline`.
async fn list_without<A: MembershipApi>(
    api: &A,
    gone: MemberId,
    deadline: Instant,
) -> Result<MemberList, Error> {
    loop {
        let list = api.member_list().await?;
        if list.get(gone).is_none() {
            return Ok(list);
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorKind::Internal,
                format!("member {gone} is still listed after the replacement; run `memberctl member replace` again to finish it"),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs `member replace`: prepares (the plan, or the steps left), then takes
/// each step, saying on stderr which one begins (`step N: …`).
pub async fn run<A: MembershipApi, S: StartMember>(
    cx: &Ctx<'_, A>,
    req: &ReplaceRequest,
    starter: &S,
) -> Result<ReplaceOutcome, Error> {
    let going = match prepare(cx, req).await? {
        Prepared::Plan { plan, checks } => return Ok(ReplaceOutcome::Plan { plan, checks }),
        Prepared::Done(replaced) => {
            return Ok(ReplaceOutcome::Replaced {
                replaced,
                checks: Vec::new(),
            })
        }
        Prepared::Ready(going) => going,
    };
    cx.observer
        .notice(&format!("replacing in this order: {}", going.order));
    let mut run = Running {
        cx,
        req,
        starter,
        new: going.new.clone(),
        started: HashSet::new(),
        predicted: predicted_seconds(&going.checks),
        catch_up: None,
        list: going.list.clone(),
    };
    let mut done = Vec::new();
    for (i, step) in going.steps.iter().enumerate() {
        let Some(end) = step.shows.last() else {
            continue;
        };
        cx.observer.notice(&format!(
            "step {}: {} (voters {}, quorum {}, fault tolerance {})",
            i + 1,
            end.step,
            end.voters.len(),
            end.quorum,
            end.fault_tolerance
        ));
        run.take(step.act, &going).await?;
        done.extend(step.shows.iter().map(|s| s.step.clone()));
    }
    if going.order.first == First::Remove {
        // Done: the record of it goes (a failure here only leaves a stale record).
        let _ = cx.api.key_put(INTENT, None).await;
    }
    let deadline = Instant::now() + cx.command_timeout;
    let list = list_without(cx.api, going.old.id, deadline).await?;
    let member = run
        .new
        .as_ref()
        .and_then(|n| list.get(n.id).cloned())
        .or(run.new)
        .unwrap_or_default();
    Ok(ReplaceOutcome::Replaced {
        replaced: Box::new(Replaced {
            removed: going.old.clone(),
            member,
            list,
            catch_up: run.catch_up,
            order: Some(going.order.clone()),
            steps: done,
        }),
        checks: going.checks.clone(),
    })
}

#[cfg(test)]
mod tests;
