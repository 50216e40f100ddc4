//! Autopilot's judgement: a calculator from one observation of the cluster,
//! the settings and what earlier looks remembered to one [`Decision`]. It
//! asks nothing and changes nothing; the loop in [`super`] acts on it.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use crate::model::{Configuration, Member, MemberId, MemberList};
use crate::rules;
use crate::workflow::prune::{self, Look, Reason, Rules, Seen, Verdict};

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

/// What autopilot does about what it saw.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Promote `standby`, then remove `dead` (as `member replace`).
    Replace {
        /// The dead voter.
        dead: Member,
        /// The ready learner that takes its place.
        standby: Member,
    },
    /// Remove a dead voter without a standby (`--cleanup-dead`).
    RemoveDead {
        /// The dead voter.
        dead: Member,
    },
    /// Finish a replacement an earlier run left in a joint configuration
    /// (the dead voter only in the outgoing voters): leave it.
    FinishReplace {
        /// The dead voters the joint configuration drops.
        dead: Vec<Member>,
    },
    /// Remove a learner as `member prune` would.
    Prune {
        /// The learner.
        learner: Member,
    },
    /// Add a learner and start it on the local cluster (`--start-standby`).
    StartStandby,
    /// Nothing.
    None,
}

impl Action {
    /// The action's name in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Action::Replace { .. } => "replace",
            Action::RemoveDead { .. } => "remove_dead",
            Action::FinishReplace { .. } => "finish_replace",
            Action::Prune { .. } => "prune",
            Action::StartStandby => "start_standby",
            Action::None => "none",
        }
    }

    /// The member the action is about, when one.
    pub fn member(&self) -> Option<&Member> {
        match self {
            Action::Replace { dead, .. } | Action::RemoveDead { dead } => Some(dead),
            Action::FinishReplace { dead } => dead.first(),
            Action::Prune { learner } => Some(learner),
            Action::StartStandby | Action::None => None,
        }
    }
}

/// Why autopilot acts, or does not.
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// A voter is dead: unreachable this long, and the leader has lost it.
    Dead {
        /// How long autopilot has not reached it.
        for_: Duration,
    },
    /// A replacement an earlier autopilot began: the standby is a voter,
    /// the dead voter still listed and still lost by the leader.
    Resume,
    /// A learner `member prune` would remove, and its reason.
    Pruned(Reason),
    /// No standby exists and `--start-standby` asks for one.
    NoStandbyKept,
    /// A joint configuration that replaces dead voters is open.
    JointReplacing,
    /// All is well.
    Healthy,
    /// No leader confirmed the membership, or too few voters are heard.
    NoQuorum,
    /// The leader changed since the last look.
    Election {
        /// The leader before.
        from: Option<MemberId>,
        /// Now.
        to: Option<MemberId>,
    },
    /// A joint configuration is open (rule 5).
    JointOpen,
    /// A voter does not answer, for less than `--dead-after` so far.
    Waiting {
        /// How long so far.
        for_: Duration,
        /// `--dead-after`.
        dead_after: Duration,
    },
    /// A voter does not answer autopilot, but the leader still hears it.
    LeaderHearsIt,
    /// A voter does not answer; whether the leader hears it is not known.
    LeaderUnknown,
    /// A dead voter, no standby ready, and `--cleanup-dead` not given.
    NoStandby,
    /// A dead voter, but removing it would go below the minimum.
    BelowMinimum {
        /// Voters after the removal.
        voters_after: usize,
        /// The minimum.
        min: usize,
    },
    /// Another autopilot leads the election; this one only watches.
    StandingBy {
        /// The leading autopilot's name.
        leader: String,
    },
    /// The cluster could not be looked at.
    NoLook(String),
}

impl Why {
    /// The reason's name in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Why::Dead { .. } => "dead",
            Why::Resume => "resume",
            Why::Pruned(_) => "prune",
            Why::NoStandbyKept => "no_standby_kept",
            Why::JointReplacing => "joint_replacing",
            Why::Healthy => "healthy",
            Why::NoQuorum => "no_quorum",
            Why::Election { .. } => "election",
            Why::JointOpen => "joint_open",
            Why::Waiting { .. } => "waiting",
            Why::LeaderHearsIt => "leader_hears_it",
            Why::LeaderUnknown => "leader_unknown",
            Why::NoStandby => "no_standby",
            Why::BelowMinimum { .. } => "below_minimum",
            Why::StandingBy { .. } => "standing_by",
            Why::NoLook(_) => "no_look",
        }
    }
}

fn secs(d: &Duration) -> f64 {
    d.as_secs_f64()
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Dead { for_ } => write!(
                f,
                "unreachable for {:.1} s and the leader has lost it too",
                secs(for_)
            ),
            Why::Resume => f.write_str(
                "an earlier autopilot began this replacement (its intent is recorded) and the \
                 standby is a voter already: only the dead voter's removal is left",
            ),
            Why::Pruned(r) => write!(f, "{r}"),
            Why::NoStandbyKept => f.write_str("no standby learner exists (--start-standby)"),
            Why::JointReplacing => f.write_str(
                "a joint configuration that drops only dead voters is open: an earlier \
                 replacement stopped half-way",
            ),
            Why::Healthy => f.write_str("every member answers; nothing to do"),
            Why::NoQuorum => f.write_str(
                "no quorum: no leader confirms the membership; see `memberctl member status`",
            ),
            Why::Election { from, to } => {
                let name = |l: &Option<MemberId>| l.map_or("none".to_string(), |l| l.to_string());
                write!(
                    f,
                    "the leader changed ({} -> {}): waiting for the next look",
                    name(from),
                    name(to)
                )
            }
            Why::JointOpen => f.write_str(
                "a joint configuration is open (rule 5): finish it with `memberctl member joint leave`",
            ),
            Why::Waiting { for_, dead_after } => write!(
                f,
                "unreachable for {:.1} s, not yet --dead-after {:.1} s",
                secs(for_),
                secs(dead_after)
            ),
            Why::LeaderHearsIt => f.write_str(
                "autopilot cannot reach it, but the leader still hears it: never touched; \
                 check the network between autopilot and it",
            ),
            Why::LeaderUnknown => f.write_str(
                "it does not answer, but whether the leader has lost it could not be read: \
                 never touched",
            ),
            Why::NoStandby => f.write_str(
                "dead, but no standby learner is ready: add one (`memberctl member add \
                 --learner`) or give --cleanup-dead",
            ),
            Why::BelowMinimum { voters_after, min } => write!(
                f,
                "dead, but removing it would leave {voters_after} voters, fewer than \
                 --min-voters {min}: add a standby learner to replace it"
            ),
            Why::StandingBy { leader } => {
                write!(f, "standing by ({leader} leads the autopilot election)")
            }
            Why::NoLook(e) => write!(f, "could not look at the cluster: {e}"),
        }
    }
}

/// One decision: what to do and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// What.
    pub action: Action,
    /// Why (for [`Action::None`]: why not).
    pub why: Why,
    /// The member the reason is about, when one (a voter it waits for).
    pub about: Option<Member>,
}

impl Decision {
    /// No action, for `why`.
    pub fn none(why: Why) -> Decision {
        Decision {
            action: Action::None,
            why,
            about: None,
        }
    }

    fn none_about(why: Why, m: &Member) -> Decision {
        Decision {
            action: Action::None,
            why,
            about: Some(m.clone()),
        }
    }

    /// Whether it changes something.
    pub fn acts(&self) -> bool {
        self.action != Action::None
    }

    /// The sentence a person reads (stderr).
    pub fn sentence(&self) -> String {
        let about = self
            .about
            .as_ref()
            .or(self.action.member())
            .map(|m| m.label());
        match (&self.action, about) {
            (Action::Replace { dead, standby }, _) => format!(
                "replacing {} with standby {}: {}",
                dead.label(),
                standby.label(),
                self.why
            ),
            (Action::RemoveDead { dead }, _) => {
                format!(
                    "removing dead voter {} (--cleanup-dead): {}",
                    dead.label(),
                    self.why
                )
            }
            (Action::FinishReplace { dead }, _) => format!(
                "finishing the replacement of {}: {}",
                dead.iter()
                    .map(Member::label)
                    .collect::<Vec<_>>()
                    .join(", "),
                self.why
            ),
            (Action::Prune { learner }, _) => {
                format!("pruning learner {}: {}", learner.label(), self.why)
            }
            (Action::StartStandby, _) => format!("starting a standby learner: {}", self.why),
            (Action::None, Some(m)) => format!("no action on {m}: {}", self.why),
            (Action::None, None) => format!("no action: {}", self.why),
        }
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
        .filter(|m| seen(obs, m.id).is_some_and(|s| s.answered || s.leader_hears == Some(true)))
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
        .all(|id| seen(obs, *id).is_some_and(|s| !s.answered && s.leader_hears == Some(false)));
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
                if let Err(Reason::BelowMinimum { voters_after, min }) =
                    prune::may_remove_voter(obs.list.voters().count(), settings.min_voters)
                {
                    return Decision::none_about(Why::BelowMinimum { voters_after, min }, m);
                }
                return Decision {
                    action: Action::RemoveDead { dead: m.clone() },
                    why,
                    about: None,
                };
            }
        };
        waiting.get_or_insert((why, m));
    }
    if let Some(d) = prune_learner(obs, settings, memory) {
        return d;
    }
    if let Some((why, m)) = waiting {
        return Decision::none_about(why, m);
    }
    if settings.start_standby && !obs.list.members.iter().any(|m| m.is_learner) {
        return Decision {
            action: Action::StartStandby,
            why: Why::NoStandbyKept,
            about: None,
        };
    }
    Decision::none(Why::Healthy)
}

/// The replacement an intent records, half done: the standby a voter, the
/// dead voter still listed, unreachable and lost by the leader.
fn resume(obs: &Observation) -> Option<Decision> {
    let (dead, standby) = obs.intent?;
    let standby = obs.list.get(standby).filter(|m| m.is_voter())?;
    let dead = obs.list.get(dead).filter(|m| m.is_voter())?;
    let s = seen(obs, dead.id)?;
    if s.answered || s.leader_hears != Some(false) {
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
