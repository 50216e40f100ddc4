//! The quorum planner: no step it allows leaves a configuration the reachable members could not decide in; joint changes need both majorities.

use std::collections::{BTreeSet, HashSet};

use proptest::prelude::*;

use super::config;
use crate::model::{Configuration, Member, MemberId, MemberList};
use crate::workflow::calc::configuration::{can_decide, enter, leave, RaftChange};
use crate::workflow::calc::joint::{check_leave, plan, step};
use crate::workflow::calc::quorum::{self, check_remove, check_voter_add};

/// Whether some majority of `voters` lies wholly within `reachable`, found by
/// trying every subset (independent of the counting under test). A
/// configuration without voters decides nothing here; the planner never makes one.
fn majority_reachable(voters: &[MemberId], reachable: &HashSet<MemberId>) -> bool {
    let n = voters.len();
    (0u32..1 << n).any(|mask| {
        let chosen: Vec<MemberId> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| voters[i])
            .collect();
        2 * chosen.len() > n && chosen.iter().all(|m| reachable.contains(m))
    })
}

/// Both majorities when joint, else the one.
fn decides(cfg: &Configuration, reachable: &HashSet<MemberId>) -> bool {
    majority_reachable(&cfg.voters, reachable)
        && (cfg.voters_outgoing.is_empty() || majority_reachable(&cfg.voters_outgoing, reachable))
}

fn ids(set: &BTreeSet<u64>) -> Vec<MemberId> {
    set.iter().map(|&i| MemberId(i)).collect()
}

fn up(set: &BTreeSet<u64>) -> HashSet<MemberId> {
    set.iter().map(|&i| MemberId(i)).collect()
}

/// A configuration that is not joint: 1-5 voters and disjoint learners, IDs 1-7.
fn simple_config() -> impl Strategy<Value = Configuration> {
    (
        prop::collection::btree_set(1u64..=7, 1..=5),
        prop::collection::btree_set(1u64..=7, 0..=3),
    )
        .prop_map(|(voters, learners)| Configuration {
            voters: ids(&voters),
            learners: ids(&learners.difference(&voters).copied().collect()),
            ..Default::default()
        })
}

fn changes() -> impl Strategy<Value = Vec<RaftChange>> {
    prop::collection::vec(
        (0u8..3, 1u64..=9).prop_map(|(k, id)| match k {
            0 => RaftChange::AddVoter(MemberId(id)),
            1 => RaftChange::AddLearner(MemberId(id)),
            _ => RaftChange::Remove(MemberId(id)),
        }),
        0..5,
    )
}

fn reachable() -> impl Strategy<Value = BTreeSet<u64>> {
    prop::collection::btree_set(1u64..=9, 0..=9)
}

fn set(v: &[MemberId]) -> BTreeSet<MemberId> {
    v.iter().copied().collect()
}

/// What raft makes of `cfg` and `changes` on enter, checked role by role.
fn check_enter(
    cfg: &Configuration,
    changes: &[RaftChange],
    joint: &Configuration,
) -> Result<(), TestCaseError> {
    let (incoming, outgoing) = (set(&joint.voters), set(&joint.voters_outgoing));
    let (learners, next) = (set(&joint.learners), set(&joint.learners_next));
    prop_assert_eq!(&outgoing, &set(&cfg.voters));
    prop_assert!(incoming.is_disjoint(&learners) && incoming.is_disjoint(&next));
    prop_assert!(learners.is_disjoint(&next) && next.is_subset(&outgoing));
    let changed: HashSet<MemberId> = changes
        .iter()
        .map(|c| match *c {
            RaftChange::AddVoter(i) | RaftChange::AddLearner(i) | RaftChange::Remove(i) => i,
        })
        .collect();
    for c in changes {
        match *c {
            RaftChange::AddVoter(i) => prop_assert!(incoming.contains(&i)),
            RaftChange::AddLearner(i) if outgoing.contains(&i) => prop_assert!(next.contains(&i)),
            RaftChange::AddLearner(i) => prop_assert!(learners.contains(&i)),
            RaftChange::Remove(i) => {
                prop_assert!(!incoming.contains(&i) && !learners.contains(&i) && !next.contains(&i))
            }
        }
    }
    for v in cfg.voters.iter().filter(|i| !changed.contains(i)) {
        prop_assert!(incoming.contains(v));
    }
    for l in cfg.learners.iter().filter(|i| !changed.contains(i)) {
        prop_assert!(learners.contains(l));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// `can_decide` is "a majority of each voter set is reachable", both when joint.
    #[test]
    fn can_decide_needs_both_majorities(
        incoming in prop::collection::btree_set(1u64..=7, 0..=6),
        outgoing in prop::collection::btree_set(1u64..=7, 0..=6),
        reachable in reachable(),
    ) {
        let cfg = Configuration {
            voters: ids(&incoming),
            voters_outgoing: ids(&outgoing),
            ..Default::default()
        };
        prop_assert_eq!(can_decide(&cfg, &up(&reachable)), decides(&cfg, &up(&reachable)));
    }

    /// `joint enter` is allowed exactly when raft accepts the change and the
    /// reachable members can decide in the joint and in the new configuration;
    /// what it plans is what raft makes of the changes, and leave undoes the joint.
    #[test]
    fn joint_planner_allows_only_decidable_steps(
        cfg in simple_config(),
        changes in changes(),
        reachable in reachable(),
    ) {
        let reachable = up(&reachable);
        let raft = enter(&cfg, &changes);
        match plan(&cfg, &changes, &reachable) {
            Ok((joint, after)) => {
                prop_assert!(joint.is_joint() && !after.is_joint());
                prop_assert!(decides(&joint, &reachable), "{:?} {:?}", joint, reachable);
                prop_assert!(decides(&after, &reachable), "{:?} {:?}", after, reachable);
                check_enter(&cfg, &changes, &joint)?;
                prop_assert_eq!(&after, &leave(&joint).unwrap());
                prop_assert_eq!(&after.voters, &joint.voters);
                let learners: BTreeSet<MemberId> =
                    joint.learners.iter().chain(&joint.learners_next).copied().collect();
                prop_assert_eq!(set(&after.learners), learners);
                // One change at a time: nothing more while joint.
                prop_assert!(plan(&joint, &changes, &reachable).is_err());
                prop_assert_eq!(check_leave(&joint, &reachable).is_ok(), true);
            }
            Err(e) => {
                prop_assert!(e.message.starts_with("refused"), "{}", e.message);
                if let Ok(joint) = raft {
                    let after = leave(&joint).unwrap();
                    prop_assert!(
                        !decides(&joint, &reachable) || !decides(&after, &reachable),
                        "refused a decidable step: {}", e.message
                    );
                    prop_assert!(e.message.contains("rule 7"), "{}", e.message);
                }
            }
        }
    }

    /// `joint leave` is allowed exactly when both majorities of the joint configuration are reachable.
    #[test]
    fn leave_needs_both_majorities(
        cfg in simple_config(),
        changes in changes(),
        reachable in reachable(),
    ) {
        let reachable = up(&reachable);
        if let Ok(joint) = enter(&cfg, &changes) {
            prop_assert_eq!(check_leave(&joint, &reachable).is_ok(), decides(&joint, &reachable));
        }
    }

    /// Rule 4: a removal is allowed exactly when the member is a learner (or
    /// unknown) or the voters left have a reachable majority.
    #[test]
    fn remove_keeps_a_reachable_majority(
        cfg in simple_config(),
        reachable in reachable(),
        target in 1u64..=8,
    ) {
        let reachable = up(&reachable);
        let member = |id: &MemberId, learner| Member {
            id: *id,
            name: format!("m{}", id.0),
            is_learner: learner,
            ..Default::default()
        };
        let members = cfg.voters.iter().map(|i| member(i, false))
            .chain(cfg.learners.iter().map(|i| member(i, true)))
            .collect();
        let list = MemberList::new(MemberId(99), members);
        let target = MemberId(target);
        let left: Vec<MemberId> = cfg.voters.iter().copied().filter(|i| *i != target).collect();
        let allowed = !cfg.voters.contains(&target) || majority_reachable(&left, &reachable);
        prop_assert_eq!(check_remove(&list, &reachable, target).is_ok(), allowed);

        // Rule 2: a voter add needs every voter reachable; the new voter, once it
        // answers, joins a configuration that can decide. Before it starts, only
        // a one-voter cluster cannot (1 of 2), which etcd allows too.
        let add = check_voter_add(&list, &reachable).is_ok();
        prop_assert_eq!(add, cfg.voters.iter().all(|v| reachable.contains(v)));
        if add {
            let new = MemberId(100);
            let mut voters = cfg.voters.clone();
            voters.push(new);
            let mut with_new = reachable.clone();
            with_new.insert(new);
            prop_assert!(majority_reachable(&voters, &with_new));
            prop_assert!(majority_reachable(&voters, &reachable) || cfg.voters.len() == 1);
        }
    }

    /// The fault tolerance a plan step reports is exact: losing any that many
    /// reachable voters keeps a quorum (both, when joint), losing one more can break it.
    #[test]
    fn fault_tolerance_is_exact(
        cfg in simple_config(),
        changes in changes(),
        reachable in reachable(),
    ) {
        let reachable = up(&reachable);
        let joint = enter(&cfg, &changes).unwrap_or_else(|_| cfg.clone());
        let labels = Default::default();
        for c in [&cfg, &joint] {
            if !decides(c, &reachable) {
                continue;
            }
            let ft = step("x", c, &reachable, &labels).fault_tolerance;
            let voters: BTreeSet<MemberId> =
                c.voters.iter().chain(&c.voters_outgoing).copied().collect();
            let alive: Vec<MemberId> =
                voters.into_iter().filter(|v| reachable.contains(v)).collect();
            let mut breaks_at = None;
            for mask in 0u32..1 << alive.len() {
                let lost: HashSet<MemberId> = (0..alive.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| alive[i])
                    .collect();
                let still: HashSet<MemberId> = reachable.difference(&lost).copied().collect();
                if !decides(c, &still) {
                    breaks_at = Some(breaks_at.map_or(lost.len(), |b: usize| b.min(lost.len())));
                }
            }
            prop_assert_eq!(Some(ft + 1), breaks_at, "{:?} {:?}", c, reachable);
            if !c.is_joint() {
                let healthy = c.voters.iter().filter(|v| reachable.contains(v)).count();
                prop_assert_eq!(ft, quorum::fault_tolerance(c.voters.len(), healthy));
            }
        }
    }
}
