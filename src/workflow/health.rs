//! Asks every member for its status at once and derives reachability and the leader; waits for a leader before changes.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::future::join_all;
use tokio::time::Instant;

use super::{ApiError, ApiErrorKind, MembershipApi, Observer};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId, MemberList, MemberStatus};

/// The membership together with what each member answered.
#[derive(Clone, Debug)]
pub struct Health {
    /// The membership the statuses were taken for.
    pub list: MemberList,
    /// Each member's answer, in the list's order.
    pub statuses: Vec<Result<MemberStatus, ApiError>>,
}

/// How long a learner is given to answer: etcd's learner holds its
/// requests until it has caught up (a snapshot can take minutes).
pub const LEARNER_WAIT: Duration = Duration::from_secs(1);

/// Asks `member` for its status, giving a learner [`LEARNER_WAIT`].
pub async fn status_of<A: MembershipApi>(
    api: &A,
    member: &Member,
) -> Result<MemberStatus, ApiError> {
    if !member.is_learner {
        return api.member_status(member).await;
    }
    match tokio::time::timeout(LEARNER_WAIT, api.member_status(member)).await {
        Ok(answer) => answer,
        Err(_) => Err(ApiError::new(
            ApiErrorKind::DeadlineExceeded,
            format!(
                "learner {} did not answer within {} s (a learner catching up answers once it \
                 has)",
                member.label(),
                LEARNER_WAIT.as_secs()
            ),
        )),
    }
}

impl Health {
    /// Asks every member of `list` for its status, concurrently (a learner
    /// has [`LEARNER_WAIT`] to answer).
    pub async fn gather<A: MembershipApi>(api: &A, list: MemberList) -> Health {
        let statuses = join_all(list.members.iter().map(|m| status_of(api, m))).await;
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

/// How often to look again while waiting for a leader.
const LEADER_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Gathers health until the reachable members name a leader that itself
/// answers, so that no change is sent into an election (etcd drops such a
/// proposal and never answers). Gives up at `deadline`.
pub async fn gather_with_leader<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    list: MemberList,
    deadline: Instant,
) -> Result<Health, Error> {
    let mut health = Health::gather(api, list).await;
    let mut told = false;
    while health.leader_status().is_none() {
        if Instant::now() + LEADER_POLL > deadline {
            return Err(Error::new(ErrorKind::Unavailable, health.no_leader()));
        }
        if !told {
            observer
                .notice("no reachable leader yet (an election may be under way); waiting for one");
            told = true;
        }
        tokio::time::sleep(LEADER_POLL).await;
        let list = api.member_list().await?;
        health = Health::gather(api, list).await;
    }
    Ok(health)
}
