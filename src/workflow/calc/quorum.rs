//! Quorum arithmetic and the dry-run plans built from it: pure functions, no I/O.

use std::collections::HashSet;

use super::order::Order;
use crate::error::Error;
use crate::model::{MemberId, MemberList};

pub use crate::rules::quorum;

/// How many more voters may fail before `healthy` of `voters` can no longer form a
/// quorum; 0 when they already cannot.
pub fn fault_tolerance(voters: usize, healthy: usize) -> usize {
    if voters == 0 {
        return 0;
    }
    healthy.saturating_sub(quorum(voters))
}

/// Whether `healthy` of `voters` voters can decide.
pub fn has_quorum(voters: usize, healthy: usize) -> bool {
    voters > 0 && healthy >= quorum(voters)
}

/// One configuration in a dry-run plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanStep {
    /// What this configuration is ("before", "after add m4 as a learner", …).
    pub step: String,
    /// Its voters: hex IDs, or the name of a member not yet created.
    pub voters: Vec<String>,
    /// Its learners, labelled the same way.
    pub learners: Vec<String>,
    /// Voters of the outgoing configuration (joint steps only).
    pub voters_outgoing: Vec<String>,
    /// The votes it needs (of the incoming voters, when joint).
    pub quorum: usize,
    /// The votes it also needs of the outgoing voters (joint steps only).
    pub quorum_outgoing: Option<usize>,
    /// How many of its voters are reachable now.
    pub healthy_voters: usize,
    /// How many more voters may fail.
    pub fault_tolerance: usize,
}

/// A `--dry-run` plan: the configurations step by step and, for a change
/// whose order memberctl chooses from what the cluster shows (`member
/// replace`), that order and the rule that chose it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The configurations, "before" first.
    pub steps: Vec<PlanStep>,
    /// The order chosen and why (`None` for a change that has one order).
    pub order: Option<Order>,
}

impl From<Vec<PlanStep>> for Plan {
    fn from(steps: Vec<PlanStep>) -> Self {
        Plan { steps, order: None }
    }
}

/// A configuration under construction: voter and learner labels and which are healthy.
#[derive(Clone, Debug, Default)]
pub struct Config {
    voters: Vec<(String, bool)>,
    learners: Vec<String>,
}

impl Config {
    /// The configuration of `list`, with `reachable` telling which members answer.
    pub fn of(list: &MemberList, reachable: &HashSet<MemberId>) -> Self {
        let mut c = Config::default();
        for m in &list.members {
            if m.is_learner {
                c.learners.push(m.id.to_string());
            } else {
                c.voters.push((m.id.to_string(), reachable.contains(&m.id)));
            }
        }
        c
    }

    /// Adds a voter (`healthy` says whether it would answer).
    pub fn add_voter(&mut self, label: String, healthy: bool) {
        self.voters.push((label, healthy));
    }

    /// Adds a learner.
    pub fn add_learner(&mut self, label: String) {
        self.learners.push(label);
    }

    /// Removes a member, voter or learner.
    pub fn remove(&mut self, label: &str) {
        self.voters.retain(|(l, _)| l != label);
        self.learners.retain(|l| l != label);
    }

    /// Turns a learner into a voter.
    pub fn promote(&mut self, label: &str, healthy: bool) {
        self.learners.retain(|l| l != label);
        self.voters.push((label.to_string(), healthy));
    }

    /// The number of voters.
    pub fn voter_count(&self) -> usize {
        self.voters.len()
    }

    /// The number of healthy voters.
    pub fn healthy_count(&self) -> usize {
        self.voters.iter().filter(|(_, h)| *h).count()
    }

    /// This configuration as a plan step.
    pub fn step(&self, step: impl Into<String>) -> PlanStep {
        let voters = self.voter_count();
        let healthy = self.healthy_count();
        PlanStep {
            step: step.into(),
            voters: self.voters.iter().map(|(l, _)| l.clone()).collect(),
            voters_outgoing: vec![],
            learners: self.learners.clone(),
            quorum: quorum(voters),
            quorum_outgoing: None,
            healthy_voters: healthy,
            fault_tolerance: fault_tolerance(voters, healthy),
        }
    }
}

/// Safety rule 2: a voter may be added only while every voter is reachable,
/// because the new voter raises the quorum before it has any data.
pub fn check_voter_add(list: &MemberList, reachable: &HashSet<MemberId>) -> Result<(), Error> {
    let down: Vec<String> = list
        .voters()
        .filter(|m| !reachable.contains(&m.id))
        .map(|m| m.label())
        .collect();
    if down.is_empty() {
        return Ok(());
    }
    Err(Error::refused(format!(
        "refused by rule 2 (learner first): voter {} is unreachable, and adding a voter now \
         raises the quorum before the new member has any data; add it with --learner, \
         then promote it once it has caught up — but while a voter is down the server \
         refuses a learner's add too: a dead voter is replaced remove-first (`memberctl \
         member replace DEAD --name NEW --peer-urls URL`)",
        down.join(", ")
    )))
}

/// Safety rule 4: removing `target` must leave enough reachable voters for a quorum.
pub fn check_remove(
    list: &MemberList,
    reachable: &HashSet<MemberId>,
    target: MemberId,
) -> Result<(), Error> {
    let Some(member) = list.get(target) else {
        return Ok(());
    };
    if member.is_learner {
        return Ok(());
    }
    let voters_after = list.voters().count() - 1;
    if voters_after == 0 {
        return Err(Error::refused(format!(
            "refused by rule 4 (never remove into quorum loss): {} is the only voter; \
             add and promote another member first",
            member.label()
        )));
    }
    let healthy_after = list
        .voters()
        .filter(|m| m.id != target && reachable.contains(&m.id))
        .count();
    if has_quorum(voters_after, healthy_after) {
        return Ok(());
    }
    Err(Error::refused(format!(
        "refused by rule 4 (never remove into quorum loss): after removing {} the cluster \
         would have {voters_after} voters needing a quorum of {}, but only {healthy_after} of \
         them {} reachable; bring the unreachable members back (or remove an unreachable one \
         instead), or pass --force if you accept losing quorum",
        member.label(),
        quorum(voters_after),
        if healthy_after == 1 { "is" } else { "are" }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Member;

    fn list(voters: &[u64], learners: &[u64]) -> MemberList {
        let mut members = Vec::new();
        for &v in voters {
            members.push(Member {
                id: MemberId(v),
                name: format!("m{v}"),
                ..Default::default()
            });
        }
        for &l in learners {
            members.push(Member {
                id: MemberId(l),
                name: format!("m{l}"),
                is_learner: true,
                ..Default::default()
            });
        }
        MemberList::new(MemberId(99), members)
    }

    fn up(ids: &[u64]) -> HashSet<MemberId> {
        ids.iter().map(|&i| MemberId(i)).collect()
    }

    #[test]
    fn quorum_and_fault_tolerance() {
        let q: Vec<usize> = (1..=7).map(quorum).collect();
        assert_eq!(q, vec![1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(fault_tolerance(3, 3), 1);
        assert_eq!(fault_tolerance(4, 4), 1);
        assert_eq!(fault_tolerance(5, 5), 2);
        assert_eq!(fault_tolerance(3, 2), 0);
        assert_eq!(fault_tolerance(3, 1), 0);
        assert_eq!(fault_tolerance(0, 0), 0);
        assert!(has_quorum(3, 2));
        assert!(!has_quorum(4, 2));
        assert!(!has_quorum(0, 0));
    }

    #[test]
    fn voter_add_needs_every_voter_reachable() {
        let l = list(&[1, 2, 3], &[]);
        assert!(check_voter_add(&l, &up(&[1, 2, 3])).is_ok());
        let err = check_voter_add(&l, &up(&[1, 2])).unwrap_err();
        assert!(err.message.contains("--learner"), "{}", err.message);
        assert!(err.message.contains("m3"), "{}", err.message);
        // An unreachable learner does not block a voter add.
        let l = list(&[1, 2, 3], &[4]);
        assert!(check_voter_add(&l, &up(&[1, 2, 3])).is_ok());
    }

    #[test]
    fn remove_keeps_a_quorum_of_reachable_voters() {
        let l = list(&[1, 2, 3], &[]);
        // All up: removing any voter leaves 2 of 2.
        assert!(check_remove(&l, &up(&[1, 2, 3]), MemberId(2)).is_ok());
        // 3 down: removing 2 leaves 1 of 2 reachable, below the quorum of 2.
        assert!(check_remove(&l, &up(&[1, 2]), MemberId(2)).is_err());
        // Removing the unreachable one leaves 2 of 2.
        assert!(check_remove(&l, &up(&[1, 2]), MemberId(3)).is_ok());
        // The last voter is never removed.
        let one = list(&[1], &[]);
        assert!(check_remove(&one, &up(&[1]), MemberId(1)).is_err());
        // Learners can always go.
        let l = list(&[1, 2, 3], &[4]);
        assert!(check_remove(&l, &up(&[1]), MemberId(4)).is_ok());
        // 5 voters, 2 down: removing a healthy one leaves 2 of 4, below 3.
        let five = list(&[1, 2, 3, 4, 5], &[]);
        assert!(check_remove(&five, &up(&[1, 2, 3]), MemberId(1)).is_err());
        assert!(check_remove(&five, &up(&[1, 2, 3]), MemberId(5)).is_ok());
    }

    #[test]
    fn plan_steps_report_quorum_and_tolerance() {
        let l = list(&[1, 2, 3], &[]);
        let mut c = Config::of(&l, &up(&[1, 2, 3]));
        let before = c.step("before");
        assert_eq!(before.quorum, 2);
        assert_eq!(before.fault_tolerance, 1);
        c.add_voter("m4".into(), false);
        let after = c.step("after");
        assert_eq!(after.voters.len(), 4);
        assert_eq!(after.quorum, 3);
        assert_eq!(after.healthy_voters, 3);
        assert_eq!(after.fault_tolerance, 0);
        c.remove("m4");
        c.add_learner("m4".into());
        c.promote("m4", true);
        assert_eq!(c.step("x").fault_tolerance, 1);
        assert!(c.step("x").learners.is_empty());
    }
}
