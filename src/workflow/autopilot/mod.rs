//! `memberctl autopilot`: a long-running watch that keeps a cluster whole.
//! Every `--interval` it looks at the cluster ([`observe`]), decides with a
//! calculator (`calc::autopilot`: [`decide`]) and, when it leads the autopilots of the
//! cluster (etcd's Election API, the [`Election`] trait), acts through the
//! existing workflows: `member replace` with a standby learner, `member
//! remove` of a dead voter or a stuck learner, `member joint leave` to finish
//! a replacement an earlier run left half-way. One action at a time; every
//! decision, and every decision not to act, is reported.

mod lease;

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

pub use self::lease::lease_ttl_warning;
use self::lease::Candidate;
pub use super::calc::autopilot::{
    decide, Action, Decision, Memory, Observation, Phase, Repeats, Reported, Settings, Why,
};
use super::joint;
use super::preflight::Preflight;
use super::promote::{self, PromoteRequest};
use super::prune;
use super::remove::{self, RemoveRequest};
use super::replace::{self, ReplaceRequest};
use super::start::Manual;
use super::{ApiError, ApiErrorKind, Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{MemberId, PeerUrls};

/// The prefix of autopilot's keys in the cluster's keyspace; the election
/// is held on [`ELECTION`].
pub const PREFIX: &str = "memberctl/autopilot/";

/// The election's name (etcd's Election API): the autopilots' keys are
/// `memberctl/autopilot/leader/<lease ID in hex>`.
pub const ELECTION: &str = "memberctl/autopilot/leader";

/// The key where the acting autopilot writes the replacement it is doing
/// (`replace DEAD STANDBY`, hex IDs) before it begins and deletes it once
/// done: a later autopilot that finds the standby a voter and the dead
/// voter still listed finishes the replacement (etcd's two steps).
pub const INTENT: &str = "memberctl/autopilot/intent";

/// The replacement an intent names: (dead voter, standby).
pub fn parse_intent(value: &str) -> Option<(MemberId, MemberId)> {
    let mut words = value.split_whitespace();
    if words.next()? != "replace" {
        return None;
    }
    let dead = words.next()?.parse().ok()?;
    let standby = words.next()?.parse().ok()?;
    Some((dead, standby))
}

/// The intent of replacing `dead` with `standby`.
pub fn intent(dead: MemberId, standby: MemberId) -> String {
    format!("replace {dead} {standby}")
}

/// Leadership won in the election.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leadership {
    /// The election's name.
    pub name: String,
    /// The leader's key.
    pub key: Vec<u8>,
    /// The key's creation revision.
    pub rev: i64,
    /// The lease the key is attached to.
    pub lease: i64,
}

/// The leader of an election, as etcd's Leader call answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElectionLeader {
    /// The value the leader proclaimed (an autopilot's name).
    pub value: String,
    /// The lease its key is attached to.
    pub lease: i64,
}

/// etcd's Lease and Election APIs, in domain terms (the client implements
/// them over gRPC; the memberctl engine and etcd serve both).
#[allow(async_fn_in_trait)]
pub trait Election {
    /// Grants a lease of `ttl`; returns its ID.
    async fn lease_grant(&self, ttl: Duration) -> Result<i64, ApiError>;
    /// Renews `lease` once; `NotFound` when it has expired.
    async fn lease_keep_alive(&self, lease: i64) -> Result<(), ApiError>;
    /// Revokes `lease` (its keys go with it).
    async fn lease_revoke(&self, lease: i64) -> Result<(), ApiError>;
    /// Campaigns in `election` with `lease`, proclaiming `value`; returns
    /// once this lease leads (or fails at the command timeout).
    async fn campaign(
        &self,
        election: &str,
        lease: i64,
        value: &str,
    ) -> Result<Leadership, ApiError>;
    /// Who leads `election`, if anyone.
    async fn election_leader(&self, election: &str) -> Result<Option<ElectionLeader>, ApiError>;
    /// Gives leadership up.
    async fn resign(&self, leadership: &Leadership) -> Result<(), ApiError>;
    /// The value of `key`, if it exists.
    async fn kv_get(&self, key: &str) -> Result<Option<String>, ApiError>;
    /// Puts `value` at `key` (`None`: deletes it).
    async fn kv_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError>;
}

/// How `--start-standby` gets a new standby learner: adds it and starts it
/// (the local test cluster).
#[allow(async_fn_in_trait)]
pub trait StandbyStarter {
    /// Adds a learner and starts it; returns its name.
    async fn start_standby<A: MembershipApi>(&self, cx: &Ctx<'_, A>) -> Result<String, Error>;
}

/// No `--start-standby`.
pub struct NoStandbyStarter;

impl StandbyStarter for NoStandbyStarter {
    async fn start_standby<A: MembershipApi>(&self, _: &Ctx<'_, A>) -> Result<String, Error> {
        Err(Error::new(
            ErrorKind::Unsupported,
            "--start-standby works only against the local test cluster",
        ))
    }
}

/// The autopilot's settings besides the decision thresholds.
#[derive(Clone, Debug)]
pub struct AutopilotRequest {
    /// The thresholds.
    pub settings: Settings,
    /// Time between two looks (`--interval`).
    pub interval: Duration,
    /// This autopilot's name in the election (`--name`).
    pub name: String,
    /// The election lease's time to live (`--lease-ttl`): how soon another
    /// autopilot takes over when this one dies.
    pub lease_ttl: Duration,
    /// Decide and report only.
    pub dry_run: bool,
    /// How long one action may wait (catch-up, leadership moves).
    pub timeout: Duration,
    /// Time between catch-up polls within an action.
    pub poll_interval: Duration,
    /// The pre-flight checks of each action.
    pub preflight: Preflight,
}

/// Receives every decision as it is made.
pub trait Reporter {
    /// One decision.
    fn report(&self, r: &Reported);
}

/// Looks at the cluster once: the membership, every member (as `member
/// prune` looks) and, on the memberctl engine, the raft configuration.
pub async fn observe<A: MembershipApi>(api: &A, at: Duration) -> Result<Observation, ApiError> {
    let list = api.member_list().await?;
    let look = prune::look(api, at).await?;
    let config = if list.unconfirmed {
        None
    } else {
        match api.get_config().await {
            Ok(c) => Some(c),
            Err(e) if e.kind == ApiErrorKind::Unimplemented => None,
            Err(e) => return Err(e),
        }
    };
    Ok(Observation {
        list,
        look,
        config,
        intent: None,
    })
}

/// Takes `action` through the workflows.
async fn act<A: MembershipApi, S: StandbyStarter>(
    cx: &Ctx<'_, A>,
    req: &AutopilotRequest,
    starter: &S,
    action: &Action,
) -> Result<(), Error> {
    let remove = |target: MemberId| RemoveRequest {
        target: target.to_string(),
        dry_run: false,
        force: false,
        timeout: req.timeout,
        preflight: req.preflight.clone(),
    };
    match action {
        Action::Replace { dead, standby } => {
            let replace = ReplaceRequest {
                old: dead.id.to_string(),
                name: standby.name.clone(),
                peer_urls: PeerUrls::read(&standby.peer_urls),
                dry_run: false,
                timeout: req.timeout,
                poll_interval: req.poll_interval,
                preflight: req.preflight.clone(),
                only_dead: true,
            };
            replace::run(cx, &replace, &Manual).await.map(|_| ())
        }
        Action::RemoveDead { dead } => remove::remove(cx, &remove(dead.id)).await.map(|_| ()),
        Action::PromoteStandby { standby } => {
            let promote = PromoteRequest {
                target: standby.id.to_string(),
                wait: true,
                timeout: req.timeout,
                poll_interval: req.poll_interval,
                stable_for: Duration::ZERO,
                preflight: req.preflight.clone(),
            };
            promote::promote(cx, &promote).await.map(|_| ())
        }
        Action::Prune { learner } => remove::remove(cx, &remove(learner.id)).await.map(|_| ()),
        Action::FinishReplace { .. } => joint::leave(cx).await.map(|_| ()),
        Action::StartStandby => starter.start_standby(cx).await.map(|_| ()),
        Action::None => Ok(()),
    }
}

/// The member a removal would remove: a dead voter (`remove_dead`, the
/// old voter of a `replace`) or a pruned learner.
fn removes(action: &Action) -> Option<MemberId> {
    match action {
        Action::Replace { dead, .. } | Action::RemoveDead { dead } => Some(dead.id),
        Action::Prune { learner } => Some(learner.id),
        _ => None,
    }
}

/// A fresh look (member list and health) right before a removal: `Err`
/// with the reason when the member to remove is gone already, or — when it
/// is to go for being dead or unreachable — answers again or is heard by
/// the leader again (a voter that came back meanwhile is not removed).
async fn still_dead<A: MembershipApi>(
    api: &A,
    decision: &Decision,
    at: Duration,
) -> Result<(), String> {
    let Some(id) = removes(&decision.action) else {
        return Ok(());
    };
    let obs = observe(api, at)
        .await
        .map_err(|e| format!("the look again before the removal failed: {e}; nothing removed"))?;
    if obs.list.unconfirmed {
        return Err("the look again before the removal found no leader; nothing removed".into());
    }
    let Some(member) = obs.list.get(id) else {
        return Err(format!(
            "{id} is no member any more (a look again before the removal); nothing removed"
        ));
    };
    // A learner pruned for standing still (or never starting) may answer.
    let for_dead = match &decision.why {
        Why::Pruned(r) => matches!(
            r,
            prune::Reason::Unreachable { .. } | prune::Reason::Dead { .. }
        ),
        _ => true,
    };
    if !for_dead {
        return Ok(());
    }
    match obs.look.members.iter().find(|s| s.id == id) {
        Some(s) if s.dead() => Ok(()),
        Some(s) if s.answered => Err(format!(
            "{} answers again (a look again before the removal); nothing removed",
            member.name
        )),
        _ => Err(format!(
            "the leader hears {} again, or cannot tell (a look again before the removal); \
             nothing removed",
            member.name
        )),
    }
}

/// Runs autopilot until `stop` is set (checked between actions).
pub async fn run<A: MembershipApi, E: Election, S: StandbyStarter>(
    cx: &Ctx<'_, A>,
    election: &E,
    req: &AutopilotRequest,
    starter: &S,
    reporter: &dyn Reporter,
    mut stop: watch::Receiver<bool>,
) -> Result<(), Error> {
    let mut candidate = Candidate::new(election, &req.name, req.lease_ttl);
    let began = Instant::now();
    let mut memory = Memory::default();
    loop {
        let at = began.elapsed();
        let report = |decision: Decision, phase: Phase, leader: Option<MemberId>| {
            reporter.report(&Reported {
                at,
                autopilot: req.name.clone(),
                leader,
                decision,
                phase,
            })
        };
        // A look may wait a --command-timeout on each member that does not
        // answer: the lease is kept alive meanwhile.
        let looked = candidate
            .looking(async {
                let mut obs = observe(cx.api, at).await?;
                obs.intent = election
                    .kv_get(INTENT)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|v| parse_intent(&v));
                Ok::<_, ApiError>(obs)
            })
            .await;
        match looked {
            Err(e) => report(Decision::none(Why::NoLook(e.message)), Phase::Decided, None),
            Ok(obs) => {
                let leader = obs.look.leader;
                let decision = decide(&obs, &req.settings, &memory);
                // An intent whose dead voter is gone is done.
                let stale = obs
                    .intent
                    .is_some_and(|(dead, _)| obs.list.get(dead).is_none() && !obs.list.unconfirmed);
                memory.remember(&obs, &req.settings);
                match candidate.lead().await {
                    // The election could not be read (no quorum): say why not to act.
                    Err(_) if !decision.acts() => report(decision, Phase::Decided, leader),
                    Err(e) => report(
                        Decision::none(Why::StandingBy {
                            leader: format!("unknown: the election could not be read: {e}"),
                        }),
                        Phase::StandingBy,
                        leader,
                    ),
                    Ok(Err(other)) => report(
                        Decision::none(Why::StandingBy { leader: other }),
                        Phase::StandingBy,
                        leader,
                    ),
                    Ok(Ok(())) if !decision.acts() => {
                        if stale && !req.dry_run {
                            let _ = election.kv_put(INTENT, None).await;
                        }
                        report(decision, Phase::Decided, leader)
                    }
                    // Leading only since this look was taken (a takeover): the
                    // look may predate the last actions of the autopilot that
                    // led before (a joint configuration it entered, a member
                    // it removed). Look again at once, now as the leader.
                    Ok(Ok(())) if !candidate.held => continue,
                    Ok(Ok(())) if req.dry_run => report(decision, Phase::DryRun, leader),
                    Ok(Ok(())) => {
                        report(decision.clone(), Phase::Decided, leader);
                        // Leadership must last the whole action: lost, the
                        // action stops and the next leader resumes from what
                        // the cluster shows.
                        let acted = candidate
                            .keeping(act_as_leader(cx, req, starter, election, &decision, began))
                            .await;
                        let phase = match acted {
                            Ok(Ok(())) => Phase::Done,
                            Ok(Err(why)) => Phase::Failed(why),
                            Err(lost) => Phase::Failed(lost.message),
                        };
                        if phase == Phase::Done && matches!(decision.action, Action::Replace { .. })
                        {
                            let _ = election.kv_put(INTENT, None).await;
                        }
                        report(decision, phase, leader);
                    }
                }
            }
        }
        if candidate.pause(&mut stop, req.interval).await {
            break;
        }
    }
    // Leaving: the lease's key goes with it, and another autopilot may lead at once.
    if let Some(lease) = candidate.lease {
        let _ = election.lease_revoke(lease).await;
    }
    Ok(())
}

/// The leader's steps for `decision`: the intent written first (for a
/// replacement), a look again before a removal, the action.
async fn act_as_leader<A: MembershipApi, E: Election, S: StandbyStarter>(
    cx: &Ctx<'_, A>,
    req: &AutopilotRequest,
    starter: &S,
    election: &E,
    decision: &Decision,
    began: Instant,
) -> Result<(), String> {
    if let Action::Replace { dead, standby } = &decision.action {
        let value = intent(dead.id, standby.id);
        election
            .kv_put(INTENT, Some(&value))
            .await
            .map_err(|e| format!("cannot write the intent {INTENT}: {e}"))?;
    }
    // A removal is decided on a look a moment old: look again, and remove
    // nothing that answers (or that the leader hears) now.
    still_dead(cx.api, decision, began.elapsed()).await?;
    act(cx, req, starter, &decision.action)
        .await
        .map_err(|e| e.message)
}

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
mod tests;
