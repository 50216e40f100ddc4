//! What the driver shows the rest of the node: the view (role, term,
//! indexes, configuration) after every step, and the leader's replication
//! report (each peer's progress, what the log keeps).

use raft::ProgressState;

use super::{catch_up_entries, Driver};
use crate::engine::node::conf::conf_view;
use crate::engine::node::{PeerProgress, Replication, View};

impl Driver {
    /// The leader's view of replication: each peer, and what its log keeps.
    pub(super) fn replication(&self) -> Replication {
        Replication {
            peers: self.progress(),
            first_index: self.raw.raft.raft_log.first_index(),
            snapshot_count: self.config.snapshot_count,
            catch_up_entries: catch_up_entries(self.config.snapshot_count),
            checkpoint_bytes: self
                .checkpoint_bytes
                .load(std::sync::atomic::Ordering::Acquire)
                / 2,
        }
    }

    /// Each peer's progress as this leader tracks it. `recent_active` is
    /// "a message from it arrived within one election timeout", from the
    /// driver's own clock: raft's flag of that name is cleared for every peer
    /// at each quorum check and set again only by the peer's next message, so
    /// read at a random moment it says "not heard" for a live peer about one
    /// heartbeat interval in every election timeout.
    fn progress(&self) -> Vec<PeerProgress> {
        let learners = &self.conf.learners;
        let window = self.config.heartbeat * self.config.election_ticks as u32;
        let heard_within = |id: &u64| self.heard.get(id).is_some_and(|t| t.elapsed() <= window);
        let mut out: Vec<PeerProgress> = self
            .raw
            .raft
            .prs()
            .iter()
            .map(|(&id, pr)| PeerProgress {
                id,
                matched: pr.matched,
                next: pr.next_idx,
                state: match pr.state {
                    ProgressState::Probe => "probe",
                    ProgressState::Replicate => "replicate",
                    ProgressState::Snapshot => "snapshot",
                }
                .to_string(),
                is_learner: learners.contains(&id),
                recent_active: id == self.config.id || heard_within(&id),
                pending_snapshot: pr.pending_snapshot,
                last_heard: self.heard.get(&id).map(|t| t.elapsed()),
            })
            .collect();
        out.sort_by_key(|p| p.id);
        out
    }

    /// Publishes the view, when it changed.
    pub(super) fn publish_view(&self) {
        let r = &self.raw.raft;
        let view = View {
            id: self.config.id,
            leader_id: r.leader_id,
            role: self.role(),
            term: r.term,
            commit: r.raft_log.committed,
            applied: self.applied,
            last_index: r.raft_log.last_index(),
            conf: conf_view(&self.conf),
        };
        self.view.send_if_modified(|v| {
            if *v == view {
                false
            } else {
                *v = view;
                true
            }
        });
    }
}
