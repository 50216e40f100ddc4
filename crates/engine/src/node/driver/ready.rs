//! Each `Ready`, in the order of raft-rs's own examples: send, install a
//! snapshot, hand committed entries to the apply stage (configuration
//! changes applied to raft on the way), persist entries and hard state (one
//! write, at most one fsync), send the persisted messages, advance.

use raft::eraftpb::{Entry, EntryType, Message, MessageType};
use raft::SnapshotStatus;

use super::Driver;
use crate::node::apply::Task;
use crate::node::commands::Committed;
use crate::node::outbox::encode;
use crate::storage::StoreError;

impl Driver {
    /// Handles one Ready.
    pub(super) fn on_ready(&mut self) -> Result<(), StoreError> {
        if !self.raw.has_ready() {
            return Ok(());
        }
        let mut rd = self.raw.ready();
        // A leader's messages (appends, commits, heartbeats) go first: the
        // followers persist while it does.
        self.send(rd.take_messages());
        if !rd.snapshot().is_empty() {
            // etcd_server_snapshot_apply_in_progress_total until the apply
            // stage has the state in place.
            let applying = crate::metrics::ApplyingSnapshot::start();
            let state = self.store.apply_snapshot(rd.snapshot())?;
            let md = rd.snapshot().get_metadata();
            slog::info!(
                crate::log::logger(),
                "installed a snapshot from the leader at index {} (term {})",
                md.index,
                md.term
            );
            self.conf = md.get_conf_state().clone();
            self.hand(Task::Install(Box::new(state), applying));
        }
        for rs in rd.take_read_states() {
            if let Some(reply) = self.reads.confirmed(&rs.request_ctx) {
                self.hand(Task::Read {
                    index: rs.index,
                    reply,
                });
            }
        }
        // What committed goes to the apply stage before this Ready's entries
        // are persisted, as raft-rs's own examples order it: raft hands out
        // only entries already on this member's disk, so under load the
        // apply stage applies (and the leader answers its clients) while the
        // fsync of newer entries runs, instead of after it.
        self.hand_off(rd.take_committed_entries())?;
        self.store.persist(rd.entries(), rd.hs(), rd.must_sync())?;
        self.send(rd.take_persisted_messages());
        let mut light = self.raw.advance_append(rd);
        if let Some(commit) = light.commit_index() {
            self.store.set_commit(commit)?;
        }
        self.send(light.take_messages());
        self.hand_off(light.take_committed_entries())?;
        Ok(())
    }

    /// Hands `messages` to the transport (heartbeats timed, snapshots
    /// holding compaction back until they are done).
    fn send(&mut self, messages: Vec<Message>) {
        if messages.is_empty() {
            return;
        }
        for m in &messages {
            if m.get_msg_type() == MessageType::MsgHeartbeat {
                self.heartbeat_sent(m.to);
            }
        }
        let (out, failed) = encode(&self.store, messages);
        // Each snapshot handed to the transport comes back as one
        // SnapshotDone; compaction is held until then.
        for _ in out.iter().filter(|m| m.snapshot.is_some()) {
            self.hold.sending();
        }
        self.outbox.send(out);
        for peer in failed {
            self.raw.report_snapshot(peer, SnapshotStatus::Failure);
        }
    }

    fn hand(&self, task: Task) {
        // The stage ends only after this thread (it stops when we do).
        let _ = self.apply.send(task);
    }

    /// Hands committed entries to the apply stage; a configuration change is
    /// applied to raft on the way (in log order, once: committed entries are
    /// handed out once), its resulting conf state going with it.
    fn hand_off(&mut self, entries: Vec<Entry>) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            let conf = match entry.get_entry_type() {
                EntryType::EntryNormal => None,
                EntryType::EntryConfChange | EntryType::EntryConfChangeV2 => {
                    let cc = crate::storage::conf_change(&entry)?;
                    let cs = self
                        .raw
                        .apply_conf_change(&cc)
                        .map_err(|err| StoreError::other(format!("apply_conf_change: {err}")))?;
                    self.conf = cs.clone();
                    self.note_removal(entry.index);
                    Some(cs)
                }
            };
            out.push(Committed { entry, conf });
        }
        self.hand(Task::Committed(out));
        Ok(())
    }

    /// Notes when the configuration reached at `index` no longer holds this
    /// member: it stops once that entry is applied.
    fn note_removal(&mut self, index: u64) {
        let cs = &self.conf;
        let me = self.config.id;
        let member = crate::storage::conf_members(cs).contains(&me);
        if !member && self.store.member_id() == Some(me) && index > 1 && !cs.voters.is_empty() {
            self.removed_at.get_or_insert(index);
        }
    }
}
