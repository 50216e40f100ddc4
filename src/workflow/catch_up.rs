//! Samples how far a learner is behind the leader, and etcd's readiness rule for promotion.

use std::time::Duration;

use tokio::time::Instant;

use super::{ApiError, ApiErrorKind, MembershipApi};
use crate::model::{MemberId, MemberList};

pub use crate::rules::learner_ready as is_ready;

/// Where a learner stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUpState {
    /// It has not started (no name published, or it does not answer).
    NotStarted,
    /// It answers but is below the readiness rule.
    CatchingUp,
    /// It meets the readiness rule.
    Ready,
    /// It meets the readiness rule by its match index, but the leader has
    /// not heard from it recently (cut off, or stopped): not promoted, since
    /// it would be a voter the quorum cannot count on.
    Unreachable,
    /// It is a voter already (someone promoted it).
    Promoted,
}

impl CatchUpState {
    /// A short word for people.
    pub fn as_str(self) -> &'static str {
        match self {
            CatchUpState::NotStarted => "not started",
            CatchUpState::CatchingUp => "catching up",
            CatchUpState::Ready => "ready",
            CatchUpState::Unreachable => "unreachable",
            CatchUpState::Promoted => "promoted",
        }
    }
}

/// One observation of a learner's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct CatchUpSample {
    /// The learner.
    pub member: MemberId,
    /// Its label for messages.
    pub label: String,
    /// Where it stands.
    pub state: CatchUpState,
    /// Its raft index, when it answered.
    pub learner_index: Option<u64>,
    /// The leader's raft index, when known.
    pub leader_index: Option<u64>,
    /// Entries it is behind, when both are known.
    pub lag: Option<u64>,
    /// Entries per second it gained since the previous sample.
    pub rate: Option<f64>,
    /// Its replication state as the leader sees it (probe, replicate,
    /// snapshot), when the server reports progress (memberctl engine).
    pub progress_state: Option<String>,
    /// Time since the wait began.
    pub elapsed: Duration,
}

/// Takes successive samples of one learner, remembering the last for the rate.
pub struct CatchUp {
    id: MemberId,
    started: Instant,
    last: Option<(Instant, u64)>,
    /// Whether the server answers GetProgress (the exact match index).
    progress: bool,
}

impl CatchUp {
    /// Starts watching learner `id`.
    pub fn new(id: MemberId) -> Self {
        CatchUp {
            id,
            started: Instant::now(),
            last: None,
            progress: true,
        }
    }

    /// Looks at the learner and the leader once: the leader's own view of
    /// the learner's match index when the server reports progress (memberctl
    /// engine), else each member's Status (etcd: the learner's raft index).
    /// Fails only when the member is gone or the cluster cannot be reached.
    pub async fn sample<A: MembershipApi>(
        &mut self,
        api: &A,
    ) -> Result<(CatchUpSample, MemberList), ApiError> {
        let list = api.member_list().await?;
        let Some(member) = list.get(self.id).cloned() else {
            return Err(ApiError::new(
                ApiErrorKind::NotFound,
                format!(
                    "member {} is no longer in the cluster (was it removed?)",
                    self.id
                ),
            ));
        };
        let mut sample = CatchUpSample {
            member: self.id,
            label: member.label(),
            state: CatchUpState::NotStarted,
            learner_index: None,
            leader_index: None,
            lag: None,
            rate: None,
            progress_state: None,
            elapsed: self.started.elapsed(),
        };
        if !member.is_learner {
            sample.state = CatchUpState::Promoted;
            return Ok((sample, list));
        }
        let mut indexes = None;
        let mut active = true;
        if self.progress {
            match api.get_progress().await {
                Ok(p) => {
                    if let Some(peer) = p.peers.iter().find(|p| p.id == self.id) {
                        sample.progress_state = Some(peer.state.clone());
                        active = peer.recent_active;
                        if member.started() || peer.matched > 0 {
                            indexes = Some((peer.matched, Some(p.last_index)));
                        }
                    }
                }
                Err(e) if e.kind == ApiErrorKind::Unimplemented => self.progress = false,
                Err(_) => {}
            }
        }
        if indexes.is_none() && sample.progress_state.is_none() && member.started() {
            if let Ok(own) = api.member_status(&member).await {
                indexes = Some((own.raft_index, leader_index(api, &list, own.leader).await));
            }
        }
        let Some((own_index, leader)) = indexes else {
            return Ok((sample, list));
        };
        sample.learner_index = Some(own_index);
        sample.state = CatchUpState::CatchingUp;
        sample.leader_index = leader;
        if let Some(leader) = leader {
            sample.lag = Some(leader.saturating_sub(own_index));
            if is_ready(own_index, leader) {
                sample.state = if active {
                    CatchUpState::Ready
                } else {
                    CatchUpState::Unreachable
                };
            }
        }
        let now = Instant::now();
        if let Some((t, i)) = self.last {
            let secs = now.duration_since(t).as_secs_f64();
            if secs > 0.0 {
                sample.rate = Some(own_index.saturating_sub(i) as f64 / secs);
            }
        }
        self.last = Some((now, own_index));
        Ok((sample, list))
    }
}

/// The leader's raft index: ask the leader the learner named, else any voter
/// that names a leader.
async fn leader_index<A: MembershipApi>(api: &A, list: &MemberList, hint: MemberId) -> Option<u64> {
    if let Some(l) = list.get(hint) {
        if let Ok(s) = api.member_status(l).await {
            return Some(s.raft_index);
        }
    }
    for v in list.voters() {
        let Ok(s) = api.member_status(v).await else {
            continue;
        };
        if s.leader == s.member_id && s.leader.0 != 0 {
            return Some(s.raft_index);
        }
        if let Some(l) = list.get(s.leader).filter(|l| l.id != v.id) {
            if let Ok(ls) = api.member_status(l).await {
                return Some(ls.raft_index);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_rule_is_ninety_percent() {
        assert!(is_ready(90, 100));
        assert!(!is_ready(89, 100));
        assert!(is_ready(100, 100));
        assert!(is_ready(9, 10));
        assert!(!is_ready(0, 0));
        assert!(!is_ready(0, 5));
    }
}
