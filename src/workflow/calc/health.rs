//! The membership together with what each member answered, and what follows from it alone: who answers, the leader, and why there is none. The asking is `workflow::health`'s.

use std::collections::HashSet;

use crate::model::{ApiError, Member, MemberId, MemberList, MemberStatus};

/// The membership together with what each member answered.
#[derive(Clone, Debug)]
pub struct Health {
    /// The membership the statuses were taken for.
    pub list: MemberList,
    /// Each member's answer, in the list's order.
    pub statuses: Vec<Result<MemberStatus, ApiError>>,
}

impl Health {
    /// The members that answered.
    pub fn reachable(&self) -> HashSet<MemberId> {
        self.list
            .members
            .iter()
            .zip(&self.statuses)
            .filter(|(_, s)| s.is_ok())
            .map(|(m, _)| m.id)
            .collect()
    }

    /// The member's answer.
    pub fn status_of(&self, id: MemberId) -> Option<&Result<MemberStatus, ApiError>> {
        self.list
            .members
            .iter()
            .position(|m| m.id == id)
            .map(|i| &self.statuses[i])
    }

    /// The leader named by the members with the highest term, if any names one.
    pub fn leader(&self) -> Option<MemberId> {
        self.statuses
            .iter()
            .filter_map(|s| s.as_ref().ok())
            .filter(|s| s.leader.0 != 0)
            .max_by_key(|s| s.raft_term)
            .map(|s| s.leader)
    }

    /// The leader's own status, if it answered.
    pub fn leader_status(&self) -> Option<&MemberStatus> {
        let leader = self.leader()?;
        self.status_of(leader)?.as_ref().ok()
    }

    /// Why a change cannot be made without a leader, and where to look: a
    /// lost quorum when fewer voters answer than a quorum, else an election
    /// that has not ended.
    pub fn no_leader(&self) -> String {
        let up = self.reachable();
        let voters: Vec<&Member> = self.list.voters().collect();
        let answering: Vec<String> = voters
            .iter()
            .filter(|m| up.contains(&m.id))
            .map(|m| m.label())
            .collect();
        let quorum = crate::rules::quorum(voters.len());
        let named = self.leader();
        let who = if answering.is_empty() {
            "none".to_string()
        } else {
            answering.join(", ")
        };
        if !voters.is_empty() && answering.len() < quorum {
            return match named {
                None => format!(
                    "the cluster has lost its quorum: {} of {} voters answer ({who}), a quorum \
                     is {quorum}, so no leader can be elected and no change can be made; \
                     `memberctl member status` shows which voters answer and the way back",
                    answering.len(),
                    voters.len(),
                ),
                Some(l) => format!(
                    "only {} of {} voters answer ({who}), fewer than a quorum ({quorum}), and \
                     the leader they name ({l}) does not: the quorum may be lost, or this \
                     machine cannot reach the others; `memberctl member status` says which",
                    answering.len(),
                    voters.len(),
                ),
            };
        }
        let named = named.map_or("none".to_string(), |l| l.to_string());
        format!(
            "no reachable leader (the members name: {named}); the cluster cannot accept a \
             change now: `memberctl member status` shows which members answer and which leads; \
             check that a quorum of members is up, or raise --command-timeout"
        )
    }

    /// Voters that did not answer.
    pub fn unreachable_voters(&self) -> Vec<&Member> {
        let up = self.reachable();
        self.list.voters().filter(|m| !up.contains(&m.id)).collect()
    }
}
