//! Asks every member for its status at once and derives reachability and the leader.

use std::collections::HashSet;

use futures_util::future::join_all;

use super::{ApiError, MembershipApi};
use crate::model::{Member, MemberId, MemberList, MemberStatus};

/// The membership together with what each member answered.
#[derive(Clone, Debug)]
pub struct Health {
    /// The membership the statuses were taken for.
    pub list: MemberList,
    /// Each member's answer, in the list's order.
    pub statuses: Vec<Result<MemberStatus, ApiError>>,
}

impl Health {
    /// Asks every member of `list` for its status, concurrently.
    pub async fn gather<A: MembershipApi>(api: &A, list: MemberList) -> Health {
        let statuses = join_all(list.members.iter().map(|m| api.member_status(m))).await;
        Health { list, statuses }
    }

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

    /// Voters that did not answer.
    pub fn unreachable_voters(&self) -> Vec<&Member> {
        let up = self.reachable();
        self.list.voters().filter(|m| !up.contains(&m.id)).collect()
    }
}
