//! The pure configuration calculator: what a joint change makes of a
//! configuration on enter and on leave (as raft-rs computes it), and joint
//! quorum arithmetic. No I/O.

use std::collections::{BTreeSet, HashSet};

use super::quorum::has_quorum;
use crate::model::{Configuration, MemberId};

/// A change in raft's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaftChange {
    /// Add a voter, or promote a learner.
    AddVoter(MemberId),
    /// Add a learner, or demote a voter.
    AddLearner(MemberId),
    /// Remove a member.
    Remove(MemberId),
}

impl RaftChange {
    fn id(self) -> MemberId {
        match self {
            RaftChange::AddVoter(i) | RaftChange::AddLearner(i) | RaftChange::Remove(i) => i,
        }
    }
}

fn set(v: &[MemberId]) -> BTreeSet<MemberId> {
    v.iter().copied().collect()
}

fn vec(s: BTreeSet<MemberId>) -> Vec<MemberId> {
    s.into_iter().collect()
}

/// The configuration after entering the joint configuration with `changes`
/// (explicit transition: no auto-leave). The outgoing voters are the current
/// voters; a demoted voter waits in `learners_next` until the leave.
pub fn enter(cfg: &Configuration, changes: &[RaftChange]) -> Result<Configuration, String> {
    if cfg.is_joint() {
        return Err("the configuration is already joint; leave it first".into());
    }
    if changes.is_empty() {
        return Err("a joint change needs at least one change".into());
    }
    let mut seen = HashSet::new();
    if let Some(dup) = changes.iter().find(|c| !seen.insert(c.id())) {
        return Err(format!(
            "member {} appears in more than one change",
            dup.id()
        ));
    }
    let outgoing = set(&cfg.voters);
    let mut incoming = outgoing.clone();
    let mut learners = set(&cfg.learners);
    let mut learners_next = BTreeSet::new();
    for c in changes {
        match *c {
            RaftChange::AddVoter(id) => {
                learners.remove(&id);
                learners_next.remove(&id);
                incoming.insert(id);
            }
            RaftChange::AddLearner(id) => {
                incoming.remove(&id);
                if outgoing.contains(&id) {
                    learners_next.insert(id);
                } else {
                    learners.insert(id);
                }
            }
            RaftChange::Remove(id) => {
                incoming.remove(&id);
                learners.remove(&id);
                learners_next.remove(&id);
            }
        }
    }
    if incoming.is_empty() {
        return Err("the change would leave no voter in the new configuration".into());
    }
    Ok(Configuration {
        voters: vec(incoming),
        voters_outgoing: vec(outgoing),
        learners: vec(learners),
        learners_next: vec(learners_next),
        auto_leave: false,
    })
}

/// The configuration after leaving the joint configuration.
pub fn leave(cfg: &Configuration) -> Result<Configuration, String> {
    if !cfg.is_joint() {
        return Err("the configuration is not joint; there is nothing to leave".into());
    }
    let mut learners = set(&cfg.learners);
    learners.extend(cfg.learners_next.iter().copied());
    Ok(Configuration {
        voters: cfg.voters.clone(),
        voters_outgoing: vec![],
        learners: vec(learners),
        learners_next: vec![],
        auto_leave: false,
    })
}

/// The members that leaving the joint configuration `cfg` takes out of the
/// cluster: outgoing voters that are neither incoming voters nor learners to
/// be (they stop as they apply the leave).
pub fn leaving(cfg: &Configuration) -> Vec<MemberId> {
    cfg.voters_outgoing
        .iter()
        .filter(|id| !cfg.voters.contains(id) && !cfg.learners_next.contains(id))
        .copied()
        .collect()
}

/// Whether the members in `reachable` can decide in `cfg` (joint: both majorities).
pub fn can_decide(cfg: &Configuration, reachable: &HashSet<MemberId>) -> bool {
    let side =
        |v: &[MemberId]| has_quorum(v.len(), v.iter().filter(|i| reachable.contains(i)).count());
    side(&cfg.voters) && (!cfg.is_joint() || side(&cfg.voters_outgoing))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u64]) -> Vec<MemberId> {
        v.iter().map(|&i| MemberId(i)).collect()
    }

    #[test]
    fn the_seed_example() {
        // voters {1,2}; add voter 3, demote 2, add learner 4.
        let cfg = Configuration {
            voters: ids(&[1, 2]),
            ..Default::default()
        };
        let changes = [
            RaftChange::AddVoter(MemberId(3)),
            RaftChange::AddLearner(MemberId(2)),
            RaftChange::AddLearner(MemberId(4)),
        ];
        let joint = enter(&cfg, &changes).unwrap();
        assert_eq!(joint.voters, ids(&[1, 3]));
        assert_eq!(joint.voters_outgoing, ids(&[1, 2]));
        assert_eq!(joint.learners, ids(&[4]));
        assert_eq!(joint.learners_next, ids(&[2]));
        assert!(!joint.auto_leave);
        assert!(leaving(&joint).is_empty(), "2 stays as a learner");
        let after = leave(&joint).unwrap();
        assert_eq!(after.voters, ids(&[1, 3]));
        assert!(after.voters_outgoing.is_empty());
        assert_eq!(after.learners, ids(&[2, 4]));
        assert!(after.learners_next.is_empty());
    }

    #[test]
    fn promote_and_remove() {
        let cfg = Configuration {
            voters: ids(&[1, 2, 3]),
            learners: ids(&[4]),
            ..Default::default()
        };
        let joint = enter(
            &cfg,
            &[
                RaftChange::AddVoter(MemberId(4)),
                RaftChange::Remove(MemberId(3)),
            ],
        )
        .unwrap();
        assert_eq!(joint.voters, ids(&[1, 2, 4]));
        assert_eq!(joint.voters_outgoing, ids(&[1, 2, 3]));
        assert!(joint.learners.is_empty());
        let after = leave(&joint).unwrap();
        assert_eq!(after.voters, ids(&[1, 2, 4]));
        assert!(after.learners.is_empty());
    }

    #[test]
    fn refusals() {
        let cfg = Configuration {
            voters: ids(&[1]),
            ..Default::default()
        };
        assert!(enter(&cfg, &[RaftChange::Remove(MemberId(1))]).is_err());
        assert!(enter(&cfg, &[]).is_err());
        assert!(leave(&cfg).is_err());
        let dup = [
            RaftChange::AddVoter(MemberId(2)),
            RaftChange::Remove(MemberId(2)),
        ];
        assert!(enter(&cfg, &dup).is_err());
        let joint = enter(&cfg, &[RaftChange::AddVoter(MemberId(2))]).unwrap();
        assert!(enter(&joint, &[RaftChange::AddVoter(MemberId(3))]).is_err());
    }

    #[test]
    fn joint_decisions_need_both_majorities() {
        let joint = Configuration {
            voters: ids(&[1, 3]),
            voters_outgoing: ids(&[1, 2]),
            ..Default::default()
        };
        let up = |v: &[u64]| v.iter().map(|&i| MemberId(i)).collect::<HashSet<_>>();
        assert!(can_decide(&joint, &up(&[1, 2, 3])));
        assert!(
            !can_decide(&joint, &up(&[1, 3])),
            "outgoing {{1,2}} has only 1"
        );
        assert!(!can_decide(&joint, &up(&[2, 3])), "neither side has 2");
        let simple = Configuration {
            voters: ids(&[1, 2, 3]),
            ..Default::default()
        };
        assert!(can_decide(&simple, &up(&[1, 2])));
    }
}
