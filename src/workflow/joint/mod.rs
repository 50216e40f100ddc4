//! `member joint enter|leave|status`: several membership changes in one
//! explicit joint configuration change, with safety rules 5–7 checked first.

mod ready;

use std::collections::{HashMap, HashSet};

use tokio::time::Instant;

use super::calc::configuration::{self, RaftChange};
use super::calc::joint::{check_leave, plan, step};
use super::calc::quorum::PlanStep;
use super::calc::validate::{self, Resolver};
use super::catch_up::CatchUpSummary;
use super::health::{gather_with_leader, Health};
use super::leader;
use super::preflight::{Change, Check, Preflight};
use super::resolve::{list_naming, resolve, Purpose};
use super::{ApiError, ApiErrorKind, Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Configuration, JointChange, Member, MemberId, MemberList, PeerUrl, PeerUrls};
use ready::{check_caught_up, wait_caught_up};

/// What `joint enter` should change.
#[derive(Clone, Debug, Default)]
pub struct JointRequest {
    /// New learners, as NAME=URL[,URL…].
    pub add_learners: Vec<String>,
    /// Learners to promote (name or ID).
    pub promote: Vec<String>,
    /// Voters to demote to learners.
    pub demote: Vec<String>,
    /// Members to remove.
    pub remove: Vec<String>,
    /// Only print the plan.
    pub dry_run: bool,
    /// Promote learners that have not caught up.
    pub force: bool,
    /// Wait for the learners to promote to catch up (false: `--no-wait`,
    /// rule 6 judged at once).
    pub wait: bool,
    /// How long to wait for named members to start, for the learners to
    /// catch up and for leadership to move.
    pub timeout: std::time::Duration,
    /// Time between catch-up polls.
    pub poll_interval: std::time::Duration,
    /// The pre-flight checks (run by default).
    pub preflight: Preflight,
}

/// What `joint enter` did, with the pre-flight checks it passed (warnings
/// and skips included; none when the caller ran them).
#[derive(Clone, Debug, PartialEq)]
pub enum JointOutcome {
    /// The configuration after entering, and the learners' catch-up.
    Entered {
        /// The joint configuration and the catch-up.
        entered: JointEntered,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// `--dry-run`: C_old, C_old∧C_new, C_new.
    Plan {
        /// The configurations, step by step.
        steps: Vec<PlanStep>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
}

/// A joint configuration entered.
#[derive(Clone, Debug, PartialEq)]
pub struct JointEntered {
    /// The configuration after entering (joint until `joint leave`).
    pub config: Configuration,
    /// Each promoted learner's catch-up as the wait saw it (empty with
    /// `--no-wait`, `--force` or no learner to promote).
    pub catch_up: Vec<CatchUpSummary>,
}

/// A server without the extension (etcd) gets a plain explanation.
fn unsupported(e: ApiError) -> Error {
    if e.kind == ApiErrorKind::Unimplemented {
        return Error::new(
            ErrorKind::Unsupported,
            "joint consensus needs the memberctl engine (memberctl node run / cluster up): etcd applies \
             one membership change at a time; use member add --learner, member promote and member \
             remove one after another",
        );
    }
    e.into()
}

/// `joint status`: the configuration.
pub async fn status<A: MembershipApi>(api: &A) -> Result<Configuration, Error> {
    api.get_config().await.map_err(unsupported)
}

/// The changes one `joint enter` request names, resolved against the member list.
#[derive(Default)]
struct Named {
    /// As the server takes them.
    changes: Vec<JointChange>,
    /// As the configuration calculator takes them (new learners get placeholder IDs).
    raft: Vec<RaftChange>,
    /// How plans name each member (new learners: `NAME (new)`).
    labels: HashMap<MemberId, String>,
}

impl Named {
    /// Resolves every flag of `req` against `list`; rule 1 judges the new
    /// learners' names and URLs, and each member may be named once.
    fn of(req: &JointRequest, list: &MemberList, resolver: Resolver<'_>) -> Result<Self, Error> {
        let mut named = Named::default();
        named.new_learners(req, list, resolver)?;
        named_once(req, list)?;
        named.existing(req, list)?;
        if named.changes.is_empty() {
            return Err(Error::usage(
                "give at least one of --add-learner, --promote, --demote, --remove",
            ));
        }
        for m in &list.members {
            named.labels.entry(m.id).or_insert_with(|| m.id.to_string());
        }
        Ok(named)
    }

    /// `--add-learner NAME=URL[,URL…]`, each judged by rule 1 as `member add` is.
    fn new_learners(
        &mut self,
        req: &JointRequest,
        list: &MemberList,
        resolver: Resolver<'_>,
    ) -> Result<(), Error> {
        let mut problems = Vec::new();
        let mut known: Vec<Member> = list.members.clone();
        for (i, spec) in req.add_learners.iter().enumerate() {
            let Some((name, urls)) = spec.split_once('=') else {
                return Err(Error::usage(format!(
                    "--add-learner {} is not NAME=URL[,URL...]",
                    validate::quoted(spec)
                )));
            };
            // Split as `member add --peer-urls` is, so that rule 1 judges both alike.
            let urls: PeerUrls = urls.split(',').map(PeerUrl::read).collect();
            problems.extend(validate::check_name(name, &known));
            problems.extend(validate::check_peer_urls(&urls, &known, None, resolver));
            let placeholder = MemberId(u64::MAX - i as u64);
            self.labels.insert(placeholder, format!("{name} (new)"));
            self.raft.push(RaftChange::AddLearner(placeholder));
            // Later new learners must not reuse this one's name or URLs.
            known.push(Member {
                id: placeholder,
                name: name.to_string(),
                peer_urls: urls.texts(),
                ..Default::default()
            });
            self.changes.push(JointChange::AddLearner {
                name: name.to_string(),
                peer_urls: urls,
            });
        }
        validate::refuse_problems(problems)
    }

    /// `--promote` (learners), `--demote` (voters) and `--remove`.
    fn existing(&mut self, req: &JointRequest, list: &MemberList) -> Result<(), Error> {
        for target in &req.promote {
            let m = resolve(list, target, Purpose::Promote)?;
            if !m.is_learner {
                return Err(Error::refused(format!(
                    "member {} is already a voter; --promote takes learners",
                    m.label()
                )));
            }
            self.raft.push(RaftChange::AddVoter(m.id));
            self.changes.push(JointChange::Promote(m.id));
        }
        for target in &req.demote {
            let m = resolve(list, target, Purpose::Demote)?;
            if m.is_learner {
                return Err(Error::refused(format!(
                    "member {} is already a learner; --demote takes voters",
                    m.label()
                )));
            }
            self.raft.push(RaftChange::AddLearner(m.id));
            self.changes.push(JointChange::Demote(m.id));
        }
        for target in &req.remove {
            let m = resolve(list, target, Purpose::JointRemove)?;
            self.raft.push(RaftChange::Remove(m.id));
            self.changes.push(JointChange::Remove(m.id));
        }
        Ok(())
    }

    /// The learners this change promotes.
    fn promoted(&self) -> Vec<MemberId> {
        self.raft
            .iter()
            .filter_map(|c| match c {
                RaftChange::AddVoter(id) => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// The members this change demotes or removes: the leader must not be one.
    fn leaving(&self) -> HashSet<MemberId> {
        self.changes
            .iter()
            .filter_map(|c| match c {
                JointChange::Demote(id) | JointChange::Remove(id) => Some(*id),
                _ => None,
            })
            .collect()
    }
}

/// Each member may take part in one change only: conflicting flags are a usage error.
fn named_once(req: &JointRequest, list: &MemberList) -> Result<(), Error> {
    let mut named: HashMap<MemberId, &str> = HashMap::new();
    let flags = [
        ("--promote", &req.promote, Purpose::Promote),
        ("--demote", &req.demote, Purpose::Demote),
        ("--remove", &req.remove, Purpose::JointRemove),
    ];
    for (flag, targets, purpose) in flags {
        for target in targets {
            let m = resolve(list, target, purpose)?;
            if let Some(before) = named.insert(m.id, flag) {
                let how = if before == flag {
                    format!("twice to {flag}")
                } else {
                    format!("to both {before} and {flag}")
                };
                return Err(Error::usage(format!(
                    "member {} is given {how}; name each member in one change only",
                    m.label()
                )));
            }
        }
    }
    Ok(())
}

/// The `--dry-run` plan: C_old, a leadership transfer when the leader
/// leaves, C_old∧C_new, C_new.
fn dry_run_steps(
    (cfg, joint, after): (&Configuration, &Configuration, &Configuration),
    health: &Health,
    named: &Named,
) -> Vec<PlanStep> {
    let reachable = health.reachable();
    let labels = &named.labels;
    let mut steps = vec![step("C_old (now)", cfg, &reachable, labels)];
    if let Some((from, to)) = leader::planned(health, &named.leaving()) {
        steps.push(step(
            &leader::step_name(&from, &to),
            cfg,
            &reachable,
            labels,
        ));
    }
    steps.push(step(
        "C_old∧C_new (after joint enter)",
        joint,
        &reachable,
        labels,
    ));
    steps.push(step("C_new (after joint leave)", after, &reachable, labels));
    steps
}

/// `joint enter`: checks, then one ConfChangeV2 with every change.
pub async fn enter<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &JointRequest,
) -> Result<JointOutcome, Error> {
    let (api, observer, resolver, command_timeout) =
        (cx.api, cx.observer, cx.resolver, cx.command_timeout);
    let cfg = api.get_config().await.map_err(unsupported)?;
    if cfg.is_joint() {
        return Err(Error::refused(
            "refused by rule 5 (one configuration change at a time): a joint configuration is still \
             open; finish it with `memberctl member joint leave` first",
        ));
    }
    let started = Instant::now();
    // Only learners to promote are waited for; a name no started member has
    // is refused at once for --demote and --remove.
    let targets: Vec<&str> = req.promote.iter().map(String::as_str).collect();
    let list = list_naming(api, observer, &targets, started + req.timeout).await?;
    let named = Named::of(req, &list, resolver)?;
    let promoted = named.promoted();
    let (list, catch_up) = if req.wait && !req.force && !req.dry_run && !promoted.is_empty() {
        wait_caught_up(api, observer, req, &list, &promoted, started).await?
    } else {
        check_caught_up(api, observer, &promoted, req.force).await?;
        (list, Vec::new())
    };

    let deadline = Instant::now() + command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    let (joint, after) = plan(&cfg, &named.raft, &health.reachable())?;
    let checks = req
        .preflight
        .run(api, observer, &health, &preflight_steps(&named.changes))
        .await?;
    if req.dry_run {
        let steps = dry_run_steps((&cfg, &joint, &after), &health, &named);
        return Ok(JointOutcome::Plan { steps, checks });
    }
    let transfer_deadline = (started + req.timeout).max(Instant::now() + command_timeout);
    leader::move_away(api, observer, &health, &named.leaving(), transfer_deadline).await?;
    let config = api.joint_enter(&named.changes).await.map_err(unsupported)?;
    Ok(JointOutcome::Entered {
        entered: JointEntered { config, catch_up },
        checks,
    })
}

/// The changes of one joint change as the pre-flight checks see them: taken
/// at once, so the promotions and removals come before the additions and
/// demotions (a learner promoted or removed in the same change frees its place).
fn preflight_steps(changes: &[JointChange]) -> Vec<Change> {
    let mut first = Vec::new();
    let mut then = Vec::new();
    for c in changes {
        match c {
            JointChange::AddLearner { .. } => then.push(Change::Add { learner: true }),
            JointChange::Demote(id) => then.push(Change::Demote(*id)),
            JointChange::Promote(id) => first.push(Change::Promote(*id)),
            JointChange::Remove(id) => first.push(Change::Remove(*id)),
        }
    }
    first.extend(then);
    first
}

/// `joint leave`: the empty ConfChangeV2, when joint and decidable.
pub async fn leave<A: MembershipApi>(cx: &Ctx<'_, A>) -> Result<Configuration, Error> {
    let (api, observer, command_timeout) = (cx.api, cx.observer, cx.command_timeout);
    let cfg = api.get_config().await.map_err(unsupported)?;
    if !cfg.is_joint() {
        return Err(Error::refused(
            "refused by rule 5: the configuration is not joint, so there is nothing to leave \
             (`memberctl member joint status` shows it)",
        ));
    }
    let list = api.member_list().await?;
    let deadline = Instant::now() + command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    check_leave(&cfg, &health.reachable())?;
    match api.joint_leave(&configuration::leaving(&cfg)).await {
        Ok(cfg) => Ok(cfg),
        // The answer may be lost after the leave was applied (the old leader
        // that forwarded it may have left the cluster): look before failing.
        Err(e)
            if matches!(
                e.kind,
                ApiErrorKind::Unavailable | ApiErrorKind::DeadlineExceeded
            ) =>
        {
            let deadline = Instant::now() + command_timeout;
            loop {
                if let Ok(now) = api.get_config().await {
                    if !now.is_joint() {
                        return Ok(now);
                    }
                }
                if Instant::now() >= deadline {
                    return Err(e.into());
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
        Err(e) => Err(unsupported(e)),
    }
}
