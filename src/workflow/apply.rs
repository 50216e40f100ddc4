//! `member apply`: reach a target membership in one resumable command. Each
//! step looks at the cluster first and plans again from what it finds, so a
//! run that was interrupted (Ctrl-C, kill -9, a lost answer) continues where
//! the cluster is, and a finished one reports that nothing is left to do.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::add::{self, AddOutcome, AddRequest};
use super::calc::apply_plan::{self, Action, ApplyPlan, Engine, TargetMember};
use super::calc::validate::{self, Resolver};
use super::catch_up::CatchUpSummary;
use super::health::Health;
use super::joint::{self, JointRequest};
use super::look;
use super::preflight::predicted_seconds;
use super::preflight::{Change, Check, Preflight};
use super::promote::wait_ready;
use super::remove::{self, RemoveRequest};
use super::start::{StartMember, Starting};
use super::update::UpdateRequest;
use super::{ApiErrorKind, Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberList, PeerUrls};

/// How long a run looks past lost answers in a row before it gives up: a
/// leader that removed itself, or one that handed its leadership over,
/// leaves the cluster without a leader for an election or two, longer on a
/// loaded machine.
const LOST_ANSWERS_FOR: Duration = Duration::from_secs(15);

/// Lost answers in a row: each one waits a little longer (200 ms doubling
/// to 1 s) before the run looks at the cluster again, until
/// [`LOST_ANSWERS_FOR`] has passed since the first.
#[derive(Default)]
struct LostAnswers {
    since: Option<Instant>,
    pause: Duration,
}

impl LostAnswers {
    /// Whether `e` is a lost answer to look past; if so, after the pause.
    async fn look_past(&mut self, e: &Error, observer: &dyn super::Observer) -> bool {
        if e.kind != ErrorKind::Unavailable {
            return false;
        }
        let now = Instant::now();
        let since = *self.since.get_or_insert(now);
        self.pause = (self.pause * 2).clamp(super::retry::FIRST_BACKOFF, super::retry::MAX_BACKOFF);
        if now + self.pause > since + LOST_ANSWERS_FOR {
            return false;
        }
        observer.notice(&format!("{e}; looking at the cluster again"));
        tokio::time::sleep(self.pause).await;
        true
    }

    /// An answer came: the next lost one starts a new count.
    fn answered(&mut self) {
        *self = Self::default();
    }
}

/// Where to go and how.
#[derive(Clone, Debug)]
pub struct ApplyRequest {
    /// The voters wanted.
    pub target: Vec<TargetMember>,
    /// Only print the plan.
    pub dry_run: bool,
    /// Allow a target of one member when the cluster has more.
    pub force: bool,
    /// How long to wait for each new member to start and catch up.
    pub timeout: Duration,
    /// Time between catch-up polls.
    pub poll_interval: Duration,
    /// The pre-flight checks, run once for the whole plan before its first step.
    pub preflight: Preflight,
}

/// A step that was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    /// The action's name (as in plans).
    pub action: &'static str,
    /// The member it acted on.
    pub member: String,
}

/// A finished `apply`.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The steps taken by this run (none: nothing was left to do).
    pub steps: Vec<Taken>,
    /// The membership at the end.
    pub list: MemberList,
    /// Each learner's catch-up this run waited for.
    pub catch_up: Vec<CatchUpSummary>,
}

/// What `member apply` did, with the pre-flight checks the whole way passed
/// (warnings and skips included; none when nothing was left to check).
#[derive(Clone, Debug)]
pub enum ApplyOutcome {
    /// `--dry-run`: the plan.
    Plan {
        /// The steps from the membership now to the target.
        plan: ApplyPlan,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// The target was reached.
    Applied {
        /// The steps taken and the membership at the end.
        applied: Applied,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
}

/// The refusals that need no cluster: an empty target, duplicate names or
/// URLs, URLs that are not `scheme://host:port`, a target of one without
/// `--force`.
fn check_target(req: &ApplyRequest, resolver: Resolver<'_>) -> Result<(), Error> {
    if req.target.is_empty() {
        return Err(Error::refused(
            "the target is empty: give the voters wanted with --target NAME=URL,… or \
             --target-file",
        ));
    }
    let mut problems = Vec::new();
    let mut names = HashSet::new();
    for t in &req.target {
        problems.extend(
            validate::check_name(&t.name, &[])
                .into_iter()
                .map(|p| format!("{}: {p}", t.name)),
        );
        if !names.insert(t.name.as_str()) {
            problems.push(format!(
                "member name {} is given twice; every member needs its own name",
                validate::quoted(&t.name)
            ));
        }
    }
    let all: PeerUrls = req
        .target
        .iter()
        .flat_map(|t| t.peer_urls.iter().cloned())
        .collect();
    problems.extend(validate::check_peer_urls(&all, &[], None, resolver));
    validate::refuse_problems(problems)
}

/// Whether the server is the memberctl engine (it answers GetConfig), and
/// then whether a joint configuration is open.
async fn engine_mode<A: MembershipApi>(api: &A) -> Result<Option<Engine>, Error> {
    match api.get_config().await {
        Ok(c) => Ok(Some(Engine {
            joint: c.is_joint(),
            learner_limit: usize::MAX,
            caught_up: HashSet::new(),
        })),
        Err(e) if e.kind == ApiErrorKind::Unimplemented => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Plans from what the cluster is now (on the engine, with joint changes).
async fn plan_now<A: MembershipApi>(
    api: &A,
    target: &[TargetMember],
    engine: Option<&mut Engine>,
) -> Result<(MemberList, ApplyPlan), Error> {
    let (health, plan) = plan_with_health(api, target, engine).await?;
    Ok((health.list, plan))
}

/// [`plan_now`], with the members' health it planned from.
async fn plan_with_health<A: MembershipApi>(
    api: &A,
    target: &[TargetMember],
    engine: Option<&mut Engine>,
) -> Result<(Health, ApplyPlan), Error> {
    let list = api.member_list().await?;
    let engine = match engine {
        Some(e) => {
            e.joint = api.get_config().await?.is_joint();
            Some(&*e)
        }
        None => None,
    };
    let health = Health::gather(api, list.clone()).await;
    // Dead voters go first: the one rule (silent, and the leader lost them too).
    let dead = look::look_at(api, &health, Duration::ZERO).await.dead();
    let plan = apply_plan::plan(
        &list,
        target,
        &health.reachable(),
        &dead,
        health.leader(),
        engine,
    );
    Ok((health, plan))
}

/// The membership changes of a plan, in order, as the pre-flight checks see them.
fn changes(plan: &ApplyPlan) -> Vec<Change> {
    let promote = |m: &Member| match m.id.0 {
        0 => Change::PromoteNew,
        _ => Change::Promote(m.id),
    };
    let mut out = Vec::new();
    for step in &plan.steps {
        match &step.action {
            Action::Update { member, .. } => out.push(Change::Update(member.id)),
            Action::AddLearner(_) => out.push(Change::Add { learner: true }),
            Action::Promote { member, .. } => out.push(promote(member)),
            Action::Remove(m) => out.push(Change::Remove(m.id)),
            Action::JointEnter { promote: p, remove } => {
                out.extend(p.iter().map(|(m, _)| promote(m)));
                out.extend(remove.iter().map(|m| Change::Remove(m.id)));
            }
            Action::MoveLeader { .. } | Action::CatchUp { .. } | Action::JointLeave => {}
        }
    }
    out
}

/// The refusals that depend on the cluster: a target of one without
/// `--force`, and a plan that needs an unreachable member to vote.
fn refuse(req: &ApplyRequest, list: &MemberList, plan: &ApplyPlan) -> Result<(), Error> {
    if req.target.len() == 1 && list.voters().count() > 1 && !req.force {
        return Err(Error::refused(format!(
            "a target of one member would leave the cluster of {} voters without fault \
             tolerance; pass --force if that is what you want",
            list.voters().count()
        )));
    }
    if let Some(step) = apply_plan::needs_unreachable(plan) {
        return Err(Error::refused(format!(
            "the plan would need an unreachable member to vote: after {} {}, {} of {} voters \
             answer and a quorum is {}; bring the unreachable members back or leave them out \
             of the target",
            step.action.name(),
            step.action.member(),
            step.healthy_after,
            step.voters_after,
            step.quorum_after
        )));
    }
    Ok(())
}

/// What taking a step came to.
enum Took {
    /// The step was taken.
    Done,
    /// The cluster takes no more learners now: plan with fewer at once.
    LearnerLimit,
    /// The learner has caught up.
    CaughtUp(crate::model::MemberId),
}

/// Runs `member apply`.
pub async fn run<A: MembershipApi, S: StartMember>(
    cx: &Ctx<'_, A>,
    req: &ApplyRequest,
    starter: &S,
) -> Result<ApplyOutcome, Error> {
    let (api, observer, resolver) = (cx.api, cx.observer, cx.resolver);
    check_target(req, resolver)?;
    let mut engine = match engine_mode(api).await {
        Ok(e) => e,
        Err(e) => {
            // The engine answers nothing without a leader: a plan that needs
            // members that are down is refused for that, not for this.
            let (list, plan) = plan_now(api, &req.target, None).await?;
            refuse(req, &list, &plan)?;
            return Err(e);
        }
    };
    let (health, plan) = plan_with_health(api, &req.target, engine.as_mut()).await?;
    let list = health.list.clone();
    refuse(req, &list, &plan)?;
    // Checked once for the whole way; what is left of a joint change (leave) needs none.
    let steps = changes(&plan);
    let mut checks = Vec::new();
    if !steps.is_empty() {
        checks = req.preflight.run(api, observer, &health, &steps).await?;
    }
    if req.dry_run {
        return Ok(ApplyOutcome::Plan { plan, checks });
    }
    if let Some(w) = &plan.warning {
        observer.notice(w);
    }
    let mut taken = Vec::new();
    let mut started_here = HashSet::new();
    let mut catch_ups = Watched {
        predicted: predicted_seconds(&checks),
        seen: Vec::new(),
    };
    let mut lost = LostAnswers::default();
    // Each step changes one member; a plan never has more steps than twice
    // the members involved, and a step repeated means it did not take (lost
    // answers are bounded by their own time, not counted here).
    let limit = 4 * (list.members.len() + req.target.len()) + 4;
    let mut tried = 0;
    while tried < limit {
        let (list, plan) = match plan_now(api, &req.target, engine.as_mut()).await {
            Ok(now) => now,
            Err(e) if lost.look_past(&e, observer).await => continue,
            Err(e) => return Err(e),
        };
        let Some(step) = plan.steps.first() else {
            return Ok(ApplyOutcome::Applied {
                applied: Applied {
                    steps: taken,
                    list,
                    catch_up: catch_ups.seen,
                },
                checks,
            });
        };
        observer.notice(&format!(
            "step {}: {} {} (voters after: {}, quorum {}, fault tolerance {})",
            taken.len() + 1,
            step.action.name(),
            step.action.member(),
            step.voters_after,
            step.quorum_after,
            step.fault_tolerance_after
        ));
        let took = match take(
            cx,
            req,
            starter,
            &list,
            &step.action,
            &mut started_here,
            &mut catch_ups,
        )
        .await
        {
            Ok(took) => {
                tried += 1;
                lost.answered();
                took
            }
            // A lost answer (the member that took the change was just
            // removed, the connection broke, or no leader yet): the step
            // may have been taken; look at the cluster again.
            Err(e) if lost.look_past(&e, observer).await => continue,
            Err(e) => return Err(e),
        };
        match (took, engine.as_mut()) {
            (Took::LearnerLimit, Some(e)) => {
                e.learner_limit = list.members.iter().filter(|m| m.is_learner).count();
                observer.notice(&format!(
                    "the cluster takes {} learner(s) at once: promoting those first",
                    e.learner_limit
                ));
                continue;
            }
            (Took::CaughtUp(id), Some(e)) => {
                e.caught_up.insert(id);
            }
            _ => {}
        }
        taken.push(Taken {
            action: step.action.name(),
            member: step.action.member(),
        });
    }
    Err(Error::new(
        ErrorKind::Internal,
        "the target was not reached after as many steps as the plan allows; run \
         `memberctl member apply` again, or look at `memberctl member list`",
    ))
}

/// The catch-ups a run waited for, and the check's prediction for each.
struct Watched {
    predicted: Option<f64>,
    seen: Vec<CatchUpSummary>,
}

/// Takes one step; `started_here` are the members this run started (or told
/// the operator to start), which are not started again; `watched` collects
/// the catch-ups it waits for.
async fn take<A: MembershipApi, S: StartMember>(
    cx: &Ctx<'_, A>,
    req: &ApplyRequest,
    starter: &S,
    list: &MemberList,
    action: &Action,
    started_here: &mut HashSet<crate::model::MemberId>,
    watched: &mut Watched,
) -> Result<Took, Error> {
    let (api, observer) = (cx.api, cx.observer);
    let starting = |name, member, initial_cluster| Starting {
        name,
        member,
        initial_cluster,
        wait: req.timeout,
    };
    match action {
        Action::Update { member, peer_urls } => {
            let update = UpdateRequest {
                target: member.id.to_string(),
                peer_urls: peer_urls.clone(),
                preflight: Preflight::ByCaller,
            };
            super::update::update(cx, &update).await?;
        }
        Action::AddLearner(t) => {
            let add_req = AddRequest {
                name: t.name.clone(),
                peer_urls: t.peer_urls.clone(),
                learner: true,
                dry_run: false,
                preflight: Preflight::ByCaller,
                window: Some(req.timeout),
            };
            let added = add::add(cx, &add_req).await;
            let learners = list.members.iter().any(|m| m.is_learner);
            match added {
                Err(e) if learners && e.message.contains("too many learner") => {
                    return Ok(Took::LearnerLimit)
                }
                Err(e) => return Err(e),
                Ok(AddOutcome::Added { added: a, .. }) => {
                    started_here.insert(a.member.id);
                    let new = starting(&a.name, &a.member, &a.initial_cluster);
                    starter.start(&new, observer).await?;
                }
                Ok(AddOutcome::Plan { .. }) => {
                    return Err(Error::new(
                        ErrorKind::Internal,
                        "add returned a plan without --dry-run",
                    ))
                }
            }
        }
        Action::Promote { member, name } | Action::CatchUp { member, name } => {
            // Added by an earlier run that did not see it start.
            if !member.started() && started_here.insert(member.id) {
                let initial = add::initial_cluster(list, member, name);
                starter
                    .start(&starting(name, member, &initial), observer)
                    .await?;
            }
            let deadline = Instant::now() + req.timeout;
            let timing = (req.timeout, req.poll_interval, Duration::ZERO);
            let promote = matches!(action, Action::Promote { .. });
            let waited = wait_ready(
                api,
                observer,
                member,
                timing,
                deadline,
                promote,
                watched.predicted,
            )
            .await;
            observer.catch_up_done();
            watched.seen.push(waited?.1);
            if !promote {
                return Ok(Took::CaughtUp(member.id));
            }
        }
        Action::JointEnter { promote, remove } => {
            let joint_req = JointRequest {
                promote: promote.iter().map(|(m, _)| m.id.to_string()).collect(),
                remove: remove.iter().map(|m| m.id.to_string()).collect(),
                timeout: req.timeout,
                preflight: Preflight::ByCaller,
                ..Default::default()
            };
            joint::enter(cx, &joint_req).await?;
        }
        Action::JointLeave => {
            joint::leave(cx).await?;
        }
        Action::MoveLeader { from, to } => {
            if let Err(e) = api.move_leader(from, to.id).await {
                // Leadership may have moved on its own: the next look decides.
                if e.kind != ApiErrorKind::Refused {
                    return Err(e.into());
                }
            }
        }
        Action::Remove(member) => {
            let remove_req = RemoveRequest {
                target: member.id.to_string(),
                dry_run: false,
                force: false,
                timeout: req.timeout,
                preflight: Preflight::ByCaller,
            };
            if let Err(e) = remove::remove(cx, &remove_req).await {
                // Gone already: an earlier answer that was lost had removed it
                // (the member that took it stopped), and a member list read
                // a moment later still showed it.
                if api.member_list().await?.get(member.id).is_some() {
                    return Err(e);
                }
            }
        }
    }
    Ok(Took::Done)
}
