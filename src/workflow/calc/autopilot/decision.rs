//! What autopilot decided, as words for people and fields for scripts: the [`Action`], the reason for it ([`Why`]) and the [`Decision`] that carries both.

use std::fmt;
use std::time::Duration;

use crate::model::{Member, MemberId};
use crate::workflow::calc::prune::Reason;

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
    /// Remove a dead voter without a standby (`--cleanup-dead`); at the
    /// minimum, with `--start-standby`, the first step of a remove-first
    /// replacement ([`Why::RemoveFirst`]).
    RemoveDead {
        /// The dead voter.
        dead: Member,
    },
    /// Promote a ready standby while the voters are fewer than
    /// `--min-voters` (`--cleanup-dead`: the last step of a remove-first
    /// replacement).
    PromoteStandby {
        /// The ready learner.
        standby: Member,
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
            Action::PromoteStandby { .. } => "promote_standby",
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
            Action::PromoteStandby { standby } => Some(standby),
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
    /// A dead voter at the minimum, no standby ready, `--cleanup-dead` and
    /// `--start-standby`: removed first, a new standby started and promoted
    /// after (the server refuses every add while a voter is down).
    RemoveFirst {
        /// How long autopilot has not reached it.
        for_: Duration,
        /// The voters after the removal.
        voters_after: usize,
        /// The voters it keeps: `--voters`, at least `--min-voters`.
        min: usize,
    },
    /// Fewer voters than `--min-voters` (a dead one was removed first): a
    /// ready standby brings them back.
    Grow {
        /// The voters now.
        voters: usize,
        /// The voters it keeps: `--voters`, at least `--min-voters`.
        min: usize,
    },
    /// A replacement an earlier autopilot began: the standby is a voter,
    /// the dead voter still listed and still lost by the leader.
    Resume,
    /// A learner `member prune` would remove, and its reason.
    Pruned(Reason),
    /// No standby exists and `--start-standby` asks for one.
    NoStandbyKept,
    /// No live standby, but the learners listed (dead ones) fill the
    /// server's limit: another is started once they are pruned.
    LearnerLimit {
        /// The learners listed.
        learners: usize,
        /// The server's limit.
        limit: usize,
    },
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
            Why::RemoveFirst { .. } => "remove_first",
            Why::Grow { .. } => "grow",
            Why::Resume => "resume",
            Why::Pruned(_) => "prune",
            Why::NoStandbyKept => "no_standby_kept",
            Why::LearnerLimit { .. } => "learner_limit",
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
            Why::RemoveFirst {
                for_,
                voters_after,
                min,
            } => write!(
                f,
                "unreachable for {:.1} s and the leader has lost it too; no standby is ready, \
                 and the server refuses every add while a voter is down, so it is replaced \
                 remove-first: {voters_after} voters, below --min-voters {min} (the same fault \
                 tolerance: a dead voter tolerates nothing), until the standby --start-standby \
                 starts next is promoted",
                secs(for_)
            ),
            Why::Grow { voters, min } => write!(
                f,
                "{voters} voters, fewer than the {min} kept (--voters, at least --min-voters; \
                 a dead voter was removed first): a ready standby brings them back"
            ),
            Why::Resume => f.write_str(
                "an earlier autopilot began this replacement (its intent is recorded) and the \
                 standby is a voter already: only the dead voter's removal is left",
            ),
            Why::Pruned(r) => write!(f, "{r}"),
            Why::NoStandbyKept => f.write_str("no standby learner exists (--start-standby)"),
            Why::LearnerLimit { learners, limit } => write!(
                f,
                "no live standby, and the {learners} learner(s) listed fill the server's limit \
                 of {limit}: a standby is started once the dead one is pruned (--dead-after); \
                 on a server started with a higher --max-learners, pass --skip-check learners"
            ),
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
                "dead, but no standby learner is ready, and the server refuses every add \
                 (a learner's too) while a voter is down: a standby must exist before a \
                 failure; replace it remove-first (`memberctl member replace DEAD --name NEW \
                 --peer-urls URL`), or give --cleanup-dead (with --start-standby on a local \
                 cluster, autopilot does that replacement)",
            ),
            Why::BelowMinimum { voters_after, min } => write!(
                f,
                "dead, but removing it would leave {voters_after} voters, fewer than \
                 --min-voters {min}, and no new member can be started here: replace it \
                 remove-first (`memberctl member replace DEAD --name NEW --peer-urls URL`), or \
                 on a local cluster give --start-standby"
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

    pub(super) fn none_about(why: Why, m: &Member) -> Decision {
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
            (Action::PromoteStandby { standby }, _) => {
                format!("promoting standby {}: {}", standby.label(), self.why)
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
