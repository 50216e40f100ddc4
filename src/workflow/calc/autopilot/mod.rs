//! Autopilot's judgement: a calculator from one observation of the cluster,
//! the settings and what earlier looks remembered to one [`Decision`]. It
//! asks nothing and changes nothing; the loop in `workflow::autopilot` acts on it.
//! Also what is reported of a decision ([`Reported`]) and which reports are
//! worth a line ([`Repeats`]).

use std::collections::HashMap;
use std::time::Duration;

use super::look::{Look, Seen};
use super::prune::{self, Reason, Rules, Verdict};
use crate::model::{Configuration, Member, MemberId, MemberList};
use crate::rules;

mod decision;
mod repeats;
mod reported;

pub use decision::{Action, Decision, Why};
pub use repeats::Repeats;
pub use reported::{Phase, Reported};

/// The thresholds autopilot decides with (its flags).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// How long a voter must stay unreachable before it counts as dead
    /// (`--dead-after`; the leader must have lost it too).
    pub dead_after: Duration,
    /// How long a learner must stay ready before it may take a dead voter's
    /// place (`--stable-for`).
    pub stable_for: Duration,
    /// The learners kept as standbys, by name (`--standby`); empty: any
    /// started learner that is ready.
    pub standby: Vec<String>,
    /// Remove a dead voter even without a standby, while the minimum holds
    /// (`--cleanup-dead`).
    pub cleanup_dead: bool,
    /// The fewest voters a removal may leave (`--min-voters`; never below
    /// [`prune::MIN_VOTERS`]).
    pub min_voters: usize,
    /// How long a learner's index must stand still before it is pruned
    /// (`--stalled-for`), as `member prune` judges it.
    pub stalled_for: Duration,
    /// Keep a standby: start one when there is none (`--start-standby`).
    pub start_standby: bool,
    /// The voters to keep (`--voters`): while fewer (a dead voter was
    /// removed without a standby to take its place), a ready standby is
    /// promoted. `None`: `--min-voters`, and only with `--cleanup-dead`.
    pub voters: Option<usize>,
    /// The learners the server takes (etcd's default,
    /// [`LEARNER_LIMIT`](super::preflight::LEARNER_LIMIT); `None`
    /// when the operator passes the `learners` check knowingly: the server
    /// was started with a higher `--max-learners`). At the limit, a standby
    /// is started beside a dead one only once the dead one is pruned.
    pub learner_limit: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            dead_after: Duration::from_secs(30),
            stable_for: Duration::from_secs(10),
            standby: Vec::new(),
            cleanup_dead: false,
            min_voters: prune::MIN_VOTERS,
            stalled_for: Duration::from_secs(60),
            start_standby: false,
            voters: None,
            learner_limit: Some(super::preflight::LEARNER_LIMIT),
        }
    }
}

/// One look at the cluster, as the loop gathered it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observation {
    /// The membership (`unconfirmed`: no leader confirmed it).
    pub list: MemberList,
    /// Every member as this look saw it (`member prune`'s look: who
    /// answered, whether the leader hears it, the indexes); `look.at` is
    /// the time since autopilot began.
    pub look: Look,
    /// The raft configuration (memberctl engine; `None` on etcd).
    pub config: Option<Configuration>,
    /// The replacement an autopilot began and did not finish, as its intent
    /// key tells: (dead voter, standby).
    pub intent: Option<(MemberId, MemberId)>,
}

/// What autopilot remembers from one look to the next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memory {
    /// The leader at the last look.
    pub leader: Option<MemberId>,
    /// Whether there has been a look before.
    pub looked: bool,
    /// Since when each member has not answered, without a break.
    pub unreachable_since: HashMap<MemberId, Duration>,
    /// Since when each learner has been ready, without a break.
    pub ready_since: HashMap<MemberId, Duration>,
    /// The looks within `--stalled-for` of the last (the prune judge's).
    pub looks: Vec<Look>,
}

impl Memory {
    /// Takes `obs` in: the next decision is made with it as the last look.
    pub fn remember(&mut self, obs: &Observation, settings: &Settings) {
        let at = obs.look.at;
        self.leader = obs.look.leader;
        self.looked = true;
        let mut unreachable = HashMap::new();
        let mut ready = HashMap::new();
        for seen in &obs.look.members {
            if !seen.answered {
                let since = self.unreachable_since.get(&seen.id).copied();
                unreachable.insert(seen.id, since.unwrap_or(at));
            }
            let learner = obs.list.get(seen.id).is_some_and(|m| m.is_learner);
            if learner && is_ready(seen, &obs.look) {
                let since = self.ready_since.get(&seen.id).copied();
                ready.insert(seen.id, since.unwrap_or(at));
            }
        }
        self.unreachable_since = unreachable;
        self.ready_since = ready;
        self.looks.push(obs.look.clone());
        // Keep the newest look that is at least --stalled-for old, and the later ones.
        let keep_from = self
            .looks
            .iter()
            .rposition(|l| at.saturating_sub(l.at) >= settings.stalled_for)
            .unwrap_or(0);
        self.looks.drain(..keep_from);
    }
}

/// Whether a learner meets the readiness rule at this look: its applied
/// index (else the leader's match index for it) against the leader's.
pub fn is_ready(seen: &Seen, look: &Look) -> bool {
    if seen.snapshot {
        return false;
    }
    match (
        seen.applied,
        look.leader_applied,
        seen.matched,
        look.leader_last,
    ) {
        (Some(own), Some(leader), _, _) => rules::learner_ready(own, leader),
        (_, _, Some(matched), Some(last)) => rules::learner_ready(matched, last),
        _ => false,
    }
}

/// Whether enough voters are heard for a quorum, with a leader that
/// confirmed the membership.
fn has_quorum(obs: &Observation) -> bool {
    if obs.list.unconfirmed || obs.look.leader.is_none() {
        return false;
    }
    let voters: Vec<&Member> = obs.list.voters().collect();
    let heard = voters
        .iter()
        .filter(|m| seen(obs, m.id).is_some_and(Seen::heard))
        .count();
    heard >= rules::quorum(voters.len())
}

fn seen(obs: &Observation, id: MemberId) -> Option<&Seen> {
    obs.look.members.iter().find(|s| s.id == id)
}

/// The joint configuration an earlier replacement left, when the voters it
/// drops are all dead to the leader and it brings voters in.
fn joint_replacement(obs: &Observation, cfg: &Configuration) -> Option<Vec<Member>> {
    let dropped: Vec<MemberId> = cfg
        .voters_outgoing
        .iter()
        .filter(|v| !cfg.voters.contains(v))
        .copied()
        .collect();
    let brought = cfg.voters.iter().any(|v| !cfg.voters_outgoing.contains(v));
    let all_dead = dropped
        .iter()
        .all(|id| seen(obs, *id).is_some_and(Seen::dead));
    if dropped.is_empty() || !brought || !all_dead {
        return None;
    }
    let members = dropped
        .iter()
        .map(|id| {
            obs.list.get(*id).cloned().unwrap_or(Member {
                id: *id,
                ..Default::default()
            })
        })
        .collect();
    Some(members)
}

/// The standby that may take a dead voter's place: a started learner
/// (named by `--standby` when given) ready for `--stable-for` now.
fn standby<'a>(obs: &'a Observation, settings: &Settings, memory: &Memory) -> Option<&'a Member> {
    let at = obs.look.at;
    obs.list
        .members
        .iter()
        .filter(|m| m.is_learner && m.started())
        .filter(|m| settings.standby.is_empty() || settings.standby.contains(&m.name))
        .filter(|m| seen(obs, m.id).is_some_and(|s| is_ready(s, &obs.look)))
        .find(|m| {
            memory
                .ready_since
                .get(&m.id)
                .is_some_and(|since| at.saturating_sub(*since) >= settings.stable_for)
        })
}

/// Decides what to do about `obs`, with `memory` of the looks before it.
pub fn decide(obs: &Observation, settings: &Settings, memory: &Memory) -> Decision {
    if !has_quorum(obs) {
        return Decision::none(Why::NoQuorum);
    }
    if memory.looked && memory.leader != obs.look.leader {
        return Decision::none(Why::Election {
            from: memory.leader,
            to: obs.look.leader,
        });
    }
    if let Some(cfg) = obs.config.as_ref().filter(|c| c.is_joint()) {
        return match joint_replacement(obs, cfg) {
            Some(dead) => Decision {
                action: Action::FinishReplace { dead },
                why: Why::JointReplacing,
                about: None,
            },
            None => Decision::none(Why::JointOpen),
        };
    }
    if let Some(d) = resume(obs) {
        return d;
    }
    let at = obs.look.at;
    // Dead voters first: they cost fault tolerance.
    let mut waiting = None;
    for m in obs.list.voters() {
        let Some(s) = seen(obs, m.id) else { continue };
        if s.answered || Some(m.id) == obs.look.leader {
            continue;
        }
        let since = memory.unreachable_since.get(&m.id).copied().unwrap_or(at);
        let for_ = at.saturating_sub(since);
        let why = match s.leader_hears {
            Some(true) => Why::LeaderHearsIt,
            None => Why::LeaderUnknown,
            Some(false) if for_ < settings.dead_after => Why::Waiting {
                for_,
                dead_after: settings.dead_after,
            },
            Some(false) => {
                let why = Why::Dead { for_ };
                if let Some(standby) = standby(obs, settings, memory) {
                    return Decision {
                        action: Action::Replace {
                            dead: m.clone(),
                            standby: standby.clone(),
                        },
                        why,
                        about: None,
                    };
                }
                if !settings.cleanup_dead {
                    return Decision::none_about(Why::NoStandby, m);
                }
                let why =
                    match prune::may_remove_voter(obs.list.voters().count(), settings.min_voters) {
                        Ok(()) => why,
                        // A new member can be started: a remove-first replacement.
                        Err(Reason::BelowMinimum { voters_after, min })
                            if settings.start_standby =>
                        {
                            Why::RemoveFirst {
                                for_,
                                voters_after,
                                min,
                            }
                        }
                        Err(Reason::BelowMinimum { voters_after, min }) => {
                            return Decision::none_about(Why::BelowMinimum { voters_after, min }, m)
                        }
                        Err(_) => why,
                    };
                return Decision {
                    action: Action::RemoveDead { dead: m.clone() },
                    why,
                    about: None,
                };
            }
        };
        waiting.get_or_insert((why, m));
    }
    if let Some(d) = dead_learner(obs, settings, memory) {
        return d;
    }
    if let Some(d) = prune_learner(obs, settings, memory) {
        return d;
    }
    if let Some((why, m)) = waiting {
        return Decision::none_about(why, m);
    }
    if let Some(d) = grow(obs, settings, memory) {
        return d;
    }
    // A learner that is dead is no standby: another is started beside it
    // (it is pruned after --dead-after).
    let live_learner = obs
        .list
        .members
        .iter()
        .filter(|m| m.is_learner)
        .any(|m| !seen(obs, m.id).is_some_and(Seen::dead));
    let learners = obs.list.members.iter().filter(|m| m.is_learner).count();
    if let Some(limit) = settings.learner_limit.filter(|l| learners >= *l) {
        if settings.start_standby && !live_learner {
            return Decision::none(Why::LearnerLimit { learners, limit });
        }
    }
    if settings.start_standby && !live_learner {
        return Decision {
            action: Action::StartStandby,
            why: Why::NoStandbyKept,
            about: None,
        };
    }
    Decision::none(Why::Healthy)
}

/// A started learner dead (it answers nothing and the leader has lost it)
/// for `--dead-after`: pruned as a dead voter would be removed, without
/// waiting for `--stalled-for` (a dead standby is never ready, and would
/// hold the place of one that could be).
fn dead_learner(obs: &Observation, settings: &Settings, memory: &Memory) -> Option<Decision> {
    let at = obs.look.at;
    obs.list
        .members
        .iter()
        .filter(|m| m.is_learner && m.started())
        .find_map(|m| {
            if !seen(obs, m.id)?.dead() {
                return None;
            }
            let since = memory.unreachable_since.get(&m.id).copied()?;
            let for_ = at.saturating_sub(since);
            (for_ >= settings.dead_after).then(|| Decision {
                action: Action::Prune { learner: m.clone() },
                why: Why::Pruned(Reason::Unreachable { watched: for_ }),
                about: None,
            })
        })
}

/// Fewer voters than it keeps — `--voters` (at least `--min-voters`), or
/// with `--cleanup-dead` alone `--min-voters` — (a dead one was removed
/// first) and a standby ready for `--stable-for`: promote it.
fn grow(obs: &Observation, settings: &Settings, memory: &Memory) -> Option<Decision> {
    let voters = obs.list.voters().count();
    let floor = settings.min_voters.max(prune::MIN_VOTERS);
    let min = settings.voters.map_or(floor, |v| v.max(floor));
    if (!settings.cleanup_dead && settings.voters.is_none()) || voters >= min {
        return None;
    }
    let standby = standby(obs, settings, memory)?;
    Some(Decision {
        action: Action::PromoteStandby {
            standby: standby.clone(),
        },
        why: Why::Grow { voters, min },
        about: None,
    })
}

/// The replacement an intent records, half done: the standby a voter, the
/// dead voter still listed, unreachable and lost by the leader.
fn resume(obs: &Observation) -> Option<Decision> {
    let (dead, standby) = obs.intent?;
    let standby = obs.list.get(standby).filter(|m| m.is_voter())?;
    let dead = obs.list.get(dead).filter(|m| m.is_voter())?;
    if !seen(obs, dead.id)?.dead() {
        return None;
    }
    Some(Decision {
        action: Action::Replace {
            dead: dead.clone(),
            standby: standby.clone(),
        },
        why: Why::Resume,
        about: None,
    })
}

/// The first learner `member prune`'s judge would remove over the looks of
/// the last `--stalled-for` (only once they span that long).
fn prune_learner(obs: &Observation, settings: &Settings, memory: &Memory) -> Option<Decision> {
    let mut looks = memory.looks.clone();
    looks.push(obs.look.clone());
    let first = looks.first()?;
    if obs.look.at.saturating_sub(first.at) < settings.stalled_for {
        return None;
    }
    let rules = Rules {
        stalled_for: settings.stalled_for,
        dead_voters: false,
    };
    let learners = MemberList {
        members: obs
            .list
            .members
            .iter()
            .filter(|m| m.is_learner && first.members.iter().any(|s| s.id == m.id))
            .cloned()
            .collect(),
        ..obs.list.clone()
    };
    prune::judge(&learners, &looks, rules)
        .into_iter()
        .find_map(|(m, v)| match v {
            Verdict::Remove(reason) => Some(Decision {
                action: Action::Prune { learner: m },
                why: Why::Pruned(reason),
                about: None,
            }),
            Verdict::Keep(_) => None,
        })
}
