//! One look at the members: who answers memberctl, whether the leader hears
//! each one, and their indexes — and the one rule every workflow judges a
//! voter by from it ([`Seen::dead`]: autopilot, `member prune`, `member
//! replace`, `member apply`, and the pre-flight check of an add). Taking the
//! look is `workflow::look`'s.

use std::collections::HashSet;
use std::time::Duration;

use super::health::Health;
use crate::model::{MemberId, ProgressReport, ServerMetrics};

/// One member as one look saw it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The member.
    pub id: MemberId,
    /// It answered its Status.
    pub answered: bool,
    /// Its own applied index (its Status), when it answered.
    pub applied: Option<u64>,
    /// The leader's match index for it (memberctl engine).
    pub matched: Option<u64>,
    /// Whether the leader hears it: the engine's `recent_active`, or on
    /// etcd the leader's `etcd_network_active_peers` (0 or absent: no);
    /// `None` when the leader's view could not be read.
    pub leader_hears: Option<bool>,
    /// A snapshot was on its way to it.
    pub snapshot: bool,
}

impl Seen {
    /// Dead: it answers nothing **and** the leader has lost it too. The one
    /// rule for a dead member: autopilot and `member prune --dead-voters`
    /// remove a voter only when it held for their whole watch, `member
    /// replace` removes a dead voter before it adds the new member, `member
    /// apply` removes dead voters first. A member that does not answer while
    /// the leader still hears it (or while the leader's view is unknown) is
    /// not dead.
    pub fn dead(&self) -> bool {
        !self.answered && self.leader_hears == Some(false)
    }

    /// Heard: it answers, or the leader hears it. A quorum is counted over
    /// these; a voter that is not heard is down as far as the server's
    /// strict reconfiguration check can be told.
    pub fn heard(&self) -> bool {
        self.answered || self.leader_hears == Some(true)
    }
}

/// One look at the members.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Look {
    /// Time since the watch began.
    pub at: Duration,
    /// The leader, when known.
    pub leader: Option<MemberId>,
    /// The leader's applied index (its Status).
    pub leader_applied: Option<u64>,
    /// The leader's last log index (memberctl engine).
    pub leader_last: Option<u64>,
    /// Every member of the list at that moment.
    pub members: Vec<Seen>,
}

impl Look {
    /// How the look saw member `id`.
    pub fn seen(&self, id: MemberId) -> Option<&Seen> {
        self.members.iter().find(|s| s.id == id)
    }

    /// The members that are dead ([`Seen::dead`]).
    pub fn dead(&self) -> HashSet<MemberId> {
        self.members
            .iter()
            .filter(|s| s.dead())
            .map(|s| s.id)
            .collect()
    }
}

/// The look that `health` (the members' statuses), the leader's `progress`
/// (memberctl engine) and the leader's `metrics` (etcd: whom it hears) make,
/// at `at`. Pure: the pre-flight checks build it from what they gathered.
pub fn from_parts(
    health: &Health,
    progress: Option<&ProgressReport>,
    metrics: Option<&ServerMetrics>,
    at: Duration,
) -> Look {
    let list = &health.list;
    let leader = progress
        .map(|p| p.leader)
        .filter(|l| l.0 != 0)
        .or_else(|| health.leader());
    let leader_status = leader
        .and_then(|l| health.status_of(l))
        .and_then(|s| s.as_ref().ok());
    // etcd has no progress to ask: the leader's own /metrics tell whom it hears.
    let metrics = metrics.filter(|_| progress.is_none());
    let members = list
        .members
        .iter()
        .map(|m| {
            let status = health.status_of(m.id).and_then(|s| s.as_ref().ok());
            let peer = progress.and_then(|p| p.peers.iter().find(|p| p.id == m.id));
            let leader_hears = match (peer, metrics) {
                (Some(p), _) => Some(p.recent_active),
                _ if Some(m.id) == leader => Some(true),
                (None, Some(x)) => Some(x.peer_active(m.id)),
                (None, None) => None,
            };
            let sending = metrics.is_some_and(|x| {
                x.snapshot_sends
                    .iter()
                    .any(|(to, t)| *to == m.id && t.inflight > 0.0)
            });
            Seen {
                id: m.id,
                answered: status.is_some(),
                applied: status.map(|s| s.raft_applied_index),
                matched: peer.map(|p| p.matched),
                leader_hears,
                snapshot: sending || peer.is_some_and(|p| p.state == "snapshot"),
            }
        })
        .collect();
    Look {
        at,
        leader,
        leader_applied: leader_status.map(|s| s.raft_applied_index),
        leader_last: progress.map(|p| p.last_index),
        members,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(answered: bool, leader_hears: Option<bool>) -> Seen {
        Seen {
            id: MemberId(1),
            answered,
            leader_hears,
            ..Default::default()
        }
    }

    #[test]
    fn dead_is_silent_and_lost_by_the_leader() {
        assert!(seen(false, Some(false)).dead());
        assert!(!seen(false, Some(true)).dead(), "the leader hears it");
        assert!(!seen(false, None).dead(), "the leader's view is unknown");
        assert!(!seen(true, Some(false)).dead(), "it answers");
        assert!(seen(true, None).heard());
        assert!(seen(false, Some(true)).heard());
        assert!(!seen(false, None).heard());
        assert!(!seen(false, Some(false)).heard());
    }
}
