//! Whom leadership goes to: the leader as the members name it, whether a voter can take over, and the one a transfer away from a leaving leader picks. The transfer itself is `workflow::leader`'s.

use std::collections::HashSet;

use super::health::Health;
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId};

/// The name of the plan step for a transfer before a change (the
/// configuration stays as it is).
pub fn step_name(from: &Member, to: &Member) -> String {
    format!("move leadership from {} to {}", from.label(), to.label())
}

/// The voter a transfer away from the leader would pick now, if the leader is
/// among `leaving` (for `--dry-run`).
pub fn planned(health: &Health, leaving: &HashSet<MemberId>) -> Option<(Member, Member)> {
    let leader = leader_member(health).ok()?;
    if !leaving.contains(&leader.id) {
        return None;
    }
    best_transferee(health, leaving).map(|to| (leader, to))
}

/// The leading member, as the reachable members name it.
pub fn leader_member(health: &Health) -> Result<Member, Error> {
    health
        .leader()
        .and_then(|id| health.list.get(id))
        .cloned()
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Unavailable,
                "no member names a leader; the cluster cannot move leadership now: check that \
                 a quorum of members is up",
            )
        })
}

/// Refuses a target that cannot lead: a learner or an unreachable member.
pub fn check_transferee(health: &Health, m: &Member) -> Result<(), Error> {
    if m.is_learner {
        return Err(Error::refused(format!(
            "member {} is a learner and cannot lead; promote it first (`memberctl member \
             promote {}`)",
            m.label(),
            m.id
        )));
    }
    if !health.reachable().contains(&m.id) {
        return Err(Error::refused(format!(
            "member {} does not answer, so it cannot take over; bring it back or choose \
             another voter",
            m.label()
        )));
    }
    Ok(())
}

/// The reachable voter outside `leaving` with the most of the log (highest
/// applied, then raft index): the one that can take over soonest.
pub fn best_transferee(health: &Health, leaving: &HashSet<MemberId>) -> Option<Member> {
    health
        .list
        .voters()
        .filter(|m| !leaving.contains(&m.id))
        .filter_map(|m| match health.status_of(m.id) {
            Some(Ok(s)) => Some((m, s)),
            _ => None,
        })
        .max_by_key(|(m, s)| (s.raft_applied_index, s.raft_index, std::cmp::Reverse(m.id)))
        .map(|(m, _)| m.clone())
}
