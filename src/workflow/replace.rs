//! `member replace OLD --name NEW --peer-urls URL`: the whole replacement of a
//! member, resumable. Add NEW as a learner, wait until it has started and
//! caught up, then on the memberctl engine one joint change (promote NEW,
//! remove OLD) and leave; on etcd promote NEW, then remove OLD (rule 4 checked).
//! Each step looks at the cluster first, so running it again continues.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use tokio::time::Instant;

use super::add::{self, AddOutcome, AddRequest, AddedMember};
use super::catch_up::CatchUpSummary;
use super::health::Health;
use super::joint::{self, JointRequest};
use super::joint_calc::{self, RaftChange};
use super::leader;
use super::preflight::predicted_seconds;
use super::preflight::{self, Check, Preflight};
use super::promote::wait_ready;
use super::quorum::{Config, PlanStep};
use super::remove::{self, RemoveOutcome, RemoveRequest};
use super::resolve::{resolve, Purpose};
use super::start::{StartMember, Starting};
use super::validate;
use super::{ApiErrorKind, Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Configuration, Member, MemberId, MemberList, PeerUrls};

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
    /// How long to wait for the new member to start and catch up.
    pub timeout: Duration,
    /// Time between catch-up polls.
    pub poll_interval: Duration,
    /// The pre-flight checks, run once for the whole replacement before its first step.
    pub preflight: Preflight,
}

/// A replacement under way, after the new member was added.
#[derive(Clone, Debug)]
pub struct InProgress {
    /// The member being replaced.
    pub old: Member,
    /// The new member and how to start it.
    pub new: AddedMember,
    /// Whether the server is the memberctl engine (joint consensus available).
    pub engine: bool,
    /// The pre-flight checks the replacement passed (the catch-up check's
    /// prediction among them, when it made one).
    pub checks: Vec<Check>,
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
}

/// Where `prepare` got to.
#[derive(Clone, Debug)]
pub enum Prepared {
    /// `--dry-run`: the plan.
    Plan {
        /// The configurations, step by step.
        steps: Vec<PlanStep>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// The new member exists (as a learner or already a voter): go on with [`finish`].
    Started(InProgress),
    /// Nothing is left to do (an earlier run finished).
    Done(Replaced),
}

async fn engine_config<A: MembershipApi>(api: &A) -> Result<Option<Configuration>, Error> {
    match api.get_config().await {
        Ok(c) => Ok(Some(c)),
        Err(e) if e.kind == ApiErrorKind::Unimplemented => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn plan(
    list: &MemberList,
    health: &Health,
    old: &Member,
    req: &ReplaceRequest,
    engine: Option<&Configuration>,
) -> Vec<PlanStep> {
    let reachable = health.reachable();
    let new_label = format!("{} (new)", req.name);
    let mut config = Config::of(list, &reachable);
    let mut steps = vec![config.step("before")];
    config.add_learner(new_label.clone());
    steps.push(config.step(format!("after adding {} as a learner", req.name)));
    let transfer = leader::planned(health, &HashSet::from([old.id]))
        .map(|(from, to)| leader::step_name(&from, &to));
    match engine {
        Some(cfg) => {
            let placeholder = MemberId(u64::MAX);
            let mut with_learner = cfg.clone();
            with_learner.learners.push(placeholder);
            let labels: HashMap<MemberId, String> = list
                .members
                .iter()
                .map(|m| (m.id, m.id.to_string()))
                .chain([(placeholder, new_label.clone())])
                .collect();
            let changes = [
                RaftChange::AddVoter(placeholder),
                RaftChange::Remove(old.id),
            ];
            // The new member counts as reachable once it has started and caught up.
            let mut up = reachable.clone();
            up.insert(placeholder);
            if let Some(name) = transfer {
                steps.push(joint::step(&name, &with_learner, &reachable, &labels));
            }
            if let Ok(joint_cfg) = joint_calc::enter(&with_learner, &changes) {
                steps.push(joint::step(
                    "C_old∧C_new (joint: promote new, remove old)",
                    &joint_cfg,
                    &up,
                    &labels,
                ));
                if let Ok(after) = joint_calc::leave(&joint_cfg) {
                    steps.push(joint::step(
                        "C_new (after joint leave)",
                        &after,
                        &up,
                        &labels,
                    ));
                }
            }
        }
        None => {
            config.promote(&new_label, true);
            steps.push(config.step(format!("after promoting {}", req.name)));
            if let Some(name) = transfer {
                steps.push(config.step(name));
            }
            config.remove(&old.id.to_string());
            steps.push(config.step(format!("after removing {}", old.label())));
        }
    }
    steps
}

/// Resolves the members, plans (`--dry-run`), and adds the new member as a
/// learner unless an earlier run did.
pub async fn prepare<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &ReplaceRequest,
) -> Result<Prepared, Error> {
    let (api, observer, resolver) = (cx.api, cx.observer, cx.resolver);
    let list = api.member_list().await?;
    let engine = engine_config(api).await?;
    let existing = list
        .members
        .iter()
        .find(|m| req.peer_urls.same_as(&m.peer_urls))
        .cloned();
    if let Some(m) = &existing {
        // `same_as` compares parsed endpoints; the URLs as given must still pass rule 1.
        validate::refuse_problems(validate::check_peer_urls(
            &req.peer_urls,
            &list.members,
            Some(m.id),
            resolver,
        ))?;
    }
    let old = match resolve(&list, &req.old, Purpose::Replace) {
        Ok(m) => m.clone(),
        Err(e) => {
            // Already replaced by an earlier run?
            if let Some(new) = existing.filter(|m| m.is_voter()) {
                observer.notice(&format!(
                    "{} is gone and {} is a voter: nothing left to do",
                    req.old,
                    new.label()
                ));
                let removed = Member {
                    name: req.old.clone(),
                    ..Default::default()
                };
                return Ok(Prepared::Done(Replaced {
                    catch_up: None,
                    removed,
                    member: new,
                    list,
                }));
            }
            return Err(e);
        }
    };
    if existing.as_ref().is_some_and(|m| m.id == old.id) {
        return Err(Error::usage(format!(
            "{} already has these peer URLs: OLD and NEW would be the same member",
            old.label()
        )));
    }
    if existing.is_none() {
        validate::check_new_member(&req.name, &req.peer_urls, &list.members, resolver)?;
    }
    if let Some(m) = existing
        .as_ref()
        .filter(|m| m.started() && m.name != req.name)
    {
        return Err(Error::refused(format!(
            "peer URLs {} belong to member {}, which runs under another name than {}; give \
             the new member's own name and URLs",
            req.peer_urls,
            m.label(),
            validate::quoted(&req.name)
        )));
    }
    if let Some(m) = &existing {
        let others: Vec<Member> = list
            .members
            .iter()
            .filter(|o| o.id != m.id)
            .cloned()
            .collect();
        validate::refuse_problems(validate::check_name(&req.name, &others))?;
    }
    let health = Health::gather(api, list.clone()).await;
    let steps = preflight::replacing(old.id, existing.as_ref().map(|m| (m.id, m.is_learner)));
    let checks = req.preflight.run(api, observer, &health, &steps).await?;
    if req.dry_run {
        return Ok(Prepared::Plan {
            steps: plan(&list, &health, &old, req, engine.as_ref()),
            checks,
        });
    }
    let new = match existing {
        // Added by an earlier run (or by hand); it may have started since.
        Some(m) => AddedMember {
            initial_cluster: add::initial_cluster(&list, &m, &req.name),
            initial_cluster_state: "existing".into(),
            name: req.name.clone(),
            member: m,
            list,
            already_added: true,
        },
        None => {
            let add_req = AddRequest {
                name: req.name.clone(),
                peer_urls: req.peer_urls.clone(),
                learner: true,
                dry_run: false,
                preflight: Preflight::ByCaller,
            };
            match add::add(cx, &add_req).await? {
                AddOutcome::Added { added, .. } => added,
                AddOutcome::Plan { .. } => {
                    return Err(Error::new(
                        ErrorKind::Internal,
                        "add returned a plan without --dry-run",
                    ))
                }
            }
        }
    };
    Ok(Prepared::Started(InProgress {
        checks,
        old,
        new,
        engine: engine.is_some(),
    }))
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

/// Runs `member replace`: prepares (plan, or adds the new member unless an
/// earlier run did), has `starter` start the new member when it has not
/// started, then finishes the swap.
pub async fn run<A: MembershipApi, S: StartMember>(
    cx: &Ctx<'_, A>,
    req: &ReplaceRequest,
    starter: &S,
) -> Result<ReplaceOutcome, Error> {
    match prepare(cx, req).await? {
        Prepared::Plan { steps, checks } => Ok(ReplaceOutcome::Plan { steps, checks }),
        Prepared::Done(done) => Ok(ReplaceOutcome::Replaced {
            replaced: Box::new(done),
            checks: Vec::new(),
        }),
        Prepared::Started(state) => {
            if !state.new.member.started() {
                let new = Starting {
                    name: &state.new.name,
                    member: &state.new.member,
                    initial_cluster: &state.new.initial_cluster,
                    wait: req.timeout,
                };
                starter.start(&new, cx.observer).await?;
            }
            let replaced = finish(cx, req, &state).await?;
            Ok(ReplaceOutcome::Replaced {
                replaced: Box::new(replaced),
                checks: state.checks,
            })
        }
    }
}

/// What `member replace` did, with the pre-flight checks it passed
/// (warnings and skips included; none when an earlier run had finished).
#[derive(Clone, Debug)]
pub enum ReplaceOutcome {
    /// `--dry-run`: the plan.
    Plan {
        /// The configurations, step by step.
        steps: Vec<PlanStep>,
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

/// Waits for the new member, then swaps it in for the old one.
pub async fn finish<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &ReplaceRequest,
    state: &InProgress,
) -> Result<Replaced, Error> {
    let (api, observer) = (cx.api, cx.observer);
    let new = &state.new.member;
    let old = &state.old;
    let deadline = Instant::now() + req.timeout;
    let timing = (req.timeout, req.poll_interval, Duration::ZERO);
    let predicted = predicted_seconds(&state.checks);
    let mut catch_up = None;
    let mut list = if state.engine {
        // One joint change promotes the new member and removes the old one.
        let cfg = api.get_config().await?;
        if !cfg.is_joint() {
            let promote = !cfg.voters.contains(&new.id);
            if promote {
                let waited =
                    wait_ready(api, observer, new, timing, deadline, false, predicted).await;
                observer.catch_up_done();
                catch_up = Some(waited?.1);
            }
            let present = |v: &[MemberId]| v.contains(&old.id);
            let joint_req = JointRequest {
                promote: if promote {
                    vec![new.id.to_string()]
                } else {
                    vec![]
                },
                remove: if present(&cfg.voters) || present(&cfg.learners) {
                    vec![old.id.to_string()]
                } else {
                    vec![]
                },
                timeout: req.timeout,
                preflight: Preflight::ByCaller,
                ..Default::default()
            };
            if !joint_req.promote.is_empty() || !joint_req.remove.is_empty() {
                joint::enter(cx, &joint_req).await?;
            }
        }
        if api.get_config().await?.is_joint() {
            joint::leave(cx).await?;
        }
        list_without(api, old.id, Instant::now() + cx.command_timeout).await?
    } else {
        if new.is_learner {
            let waited = wait_ready(api, observer, new, timing, deadline, true, predicted).await;
            observer.catch_up_done();
            catch_up = Some(waited?.1);
        }
        api.member_list().await?
    };
    if !state.engine && list.get(old.id).is_some() {
        let remove_req = RemoveRequest {
            target: old.id.to_string(),
            dry_run: false,
            force: false,
            timeout: req.timeout,
            preflight: Preflight::ByCaller,
        };
        if let RemoveOutcome::Removed { list: after, .. } = remove::remove(cx, &remove_req).await? {
            list = after;
        }
    }
    let member = list.get(new.id).cloned().unwrap_or_else(|| new.clone());
    Ok(Replaced {
        removed: old.clone(),
        member,
        list,
        catch_up,
    })
}
