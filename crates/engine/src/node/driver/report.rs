//! What the driver shows the rest of the node: the view (role, term,
//! indexes, configuration) after every step, and the leader's replication
//! report (each peer's progress, what the log keeps).

use raft::ProgressState;

use super::{catch_up_entries, Driver};
use crate::node::conf::conf_view;
use crate::node::{PeerProgress, Replication, View};

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

    /// Each peer's progress as this leader tracks it, with how long ago a
    /// message from it arrived by the driver's own clock (this node: now).
    /// Not raft's `recent_active`: raft clears that flag for every peer at
    /// each quorum check and sets it again only at the peer's next message,
    /// so read at a random moment it says "not heard" for a live peer about
    /// one heartbeat interval in every election timeout.
    fn progress(&self) -> Vec<PeerProgress> {
        let learners = &self.conf.learners;
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
                pending_snapshot: pr.pending_snapshot,
                last_heard: match id == self.config.id {
                    true => Some(std::time::Duration::ZERO),
                    false => self.heard.get(&id).map(|t| t.elapsed()),
                },
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
