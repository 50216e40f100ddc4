//! What each request to the raft thread does: proposals and configuration
//! changes (tagged, tracked until applied), read-index requests, peers'
//! messages, the apply stage's and the checkpointer's reports, and the log
//! compaction they allow (unless a snapshot send holds it back).

use std::time::Instant;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::{Message, MessageType};
use raft::{SnapshotStatus, StateRole};
use tokio::sync::oneshot;

use super::{catch_up_entries, Driver, Next, Stopped};
use crate::node::apply::Task;
use crate::node::conf::conf_change;
use crate::node::{Applied, NodeError, Request};
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::StoreError;

impl Driver {
    /// Handles one request; whether the loop goes on.
    pub(super) fn handle(&mut self, req: Request) -> Result<Next, StoreError> {
        match req {
            Request::Propose(op, reply) => {
                if let Some(e) = self.not_leader() {
                    let _ = reply.send(Err(e));
                    return Ok(Next::Go);
                }
                let tag = self.reads.tag();
                let data = spb::Command { tag, op: Some(op) }.encode_to_vec();
                let proposed = self.raw.propose(vec![], data);
                self.track(proposed, tag, reply);
            }
            Request::ConfChange {
                changes,
                explicit,
                added,
                reply,
            } => {
                if let Some(e) = self.not_leader() {
                    let _ = reply.send(Err(e));
                    return Ok(Next::Go);
                }
                if self.raw.raft.has_pending_conf() {
                    let _ = reply.send(Err(NodeError::ChangeInProgress));
                    return Ok(Next::Go);
                }
                let tag = self.reads.tag();
                let cc = conf_change(&changes, explicit, spb::ConfContext { tag, added });
                let proposed = self.raw.propose_conf_change(vec![], cc);
                self.track(proposed, tag, reply);
            }
            Request::ReadIndex(reply) => {
                // A follower asks its leader (raft forwards the request);
                // without a leader there is nobody to ask.
                if self.raw.raft.leader_id == raft::INVALID_ID {
                    let _ = reply.send(Err(NodeError::NotLeader { leader: 0 }));
                    return Ok(Next::Go);
                }
                let ctx = self.reads.tag().to_be_bytes().to_vec();
                self.raw.read_index(ctx.clone());
                self.reads.requested(ctx, reply);
            }
            Request::Progress(reply) => {
                if let Some(e) = self.not_leader() {
                    let _ = reply.send(Err(e));
                    return Ok(Next::Go);
                }
                let _ = reply.send(Ok(self.replication()));
            }
            Request::TransferLeader(to) => {
                if self.raw.raft.state == StateRole::Leader {
                    self.raw.transfer_leader(to);
                }
            }
            Request::Step(bytes) => {
                if let Ok(m) = Message::parse_from_bytes(&bytes) {
                    self.heard.insert(m.from, Instant::now());
                    if m.get_msg_type() == MessageType::MsgHeartbeatResponse {
                        self.round_trip(m.from);
                    }
                    // Messages from unknown or removed peers are refused by raft; ignore.
                    let _ = self.raw.step(m);
                }
            }
            Request::Unreachable(peer) => {
                // Messages to it were dropped, heartbeats among them: the
                // answers to come no longer line up with these.
                self.heartbeats.remove(&peer);
                self.raw.report_unreachable(peer);
            }
            // Heartbeats to every peer, timed as the tick's are.
            Request::Ping => self.raw.ping(),
            Request::SnapshotDone(peer, ok) => {
                let status = if ok {
                    SnapshotStatus::Finish
                } else {
                    SnapshotStatus::Failure
                };
                self.raw.report_snapshot(peer, status);
                self.hold.sent(ok, Instant::now());
            }
            Request::EntriesFetched(context) => self.raw.on_entries_fetched(context),
            Request::Applied(index) => {
                if index > self.applied {
                    self.applied = index;
                    self.raw.advance_apply_to(index);
                }
                if self.removed_at.is_some_and(|at| self.applied >= at) {
                    return Ok(Next::Stop(Ok(Stopped::Removed)));
                }
            }
            Request::Checkpointed(index) => {
                // Up to the checkpoint, keeping a stretch for followers
                // slightly behind.
                let keep = catch_up_entries(self.config.snapshot_count);
                let to = index.saturating_sub(keep);
                match self.hold.checkpointed(to, Instant::now()) {
                    Some(to) => self.store.compact(to)?,
                    None => slog::info!(
                        crate::log::logger(),
                        "raft log compaction to {to} held: {} snapshot send(s) in flight, or one \
                         ended less than {:?} ago (etcd: skip compaction since there is an \
                         inflight snapshot)",
                        self.hold.inflight(),
                        self.hold.delay(),
                    ),
                }
            }
            Request::Failed(why) => return Ok(Next::Stop(Err(StoreError::other(why)))),
            Request::RemovedByPeer => return Ok(Next::Stop(Ok(Stopped::Removed))),
        }
        Ok(Next::Go)
    }

    /// Compacts the log to the newest compaction held back while snapshots
    /// were sent, once the hold has ended.
    pub(super) fn release_held(&mut self) -> Result<(), StoreError> {
        if let Some(to) = self.hold.due(Instant::now()) {
            slog::info!(
                crate::log::logger(),
                "raft log compaction to {to}, held while a snapshot was sent, applied"
            );
            self.store.compact(to)?;
        }
        Ok(())
    }

    /// Records a proposal just appended at the log's end, or fails its waiter.
    fn track(
        &mut self,
        proposed: raft::Result<()>,
        tag: u64,
        reply: oneshot::Sender<Result<Applied, NodeError>>,
    ) {
        match proposed {
            Ok(()) => {
                let index = self.raw.raft.raft_log.last_index();
                let _ = self.apply.send(Task::Proposed { index, tag, reply });
            }
            Err(_) => {
                let _ = reply.send(Err(NodeError::NotAppended));
            }
        }
    }
}
