//! The raft thread: it owns the `RawNode`, ticks it, feeds it requests and
//! messages, and handles each `Ready` doing only raft's own work — send,
//! install a snapshot, hand committed entries to the apply stage
//! (configuration changes applied to raft on the way), persist entries and
//! hard state (one write, at most one fsync), send persisted messages,
//! advance. The apply stage reports how far it applied (`advance_apply_to`),
//! the checkpointer when the log may be compacted (unless a snapshot send
//! holds compaction back: `hold`).
//!
//! Each file one job: `start.rs` builds the node and its thread, this file
//! the loop; `requests.rs` what each request does, `ready.rs` each
//! `Ready`, `heartbeats.rs` the heartbeats' timing, `report.rs` what the
//! driver shows (the view, the leader's replication).

mod heartbeats;
mod ready;
mod report;
mod requests;
mod start;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use prost::Message as _;
use raft::eraftpb::ConfState;
use raft::{RawNode, StateRole};
use tokio::sync::{mpsc, watch};
use tokio::time::MissedTickBehavior;

use super::apply::Task;
use super::hold::CompactionHold;
use super::outbox::Outbox;
use super::pending::Reads;
use super::{NodeConfig, NodeError, Request, Role, View};
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{Store, StoreError};

pub use start::start;

/// Log entries kept after a compaction, so that slightly lagging followers
/// catch up from the log rather than by snapshot (etcd keeps 5000); fewer
/// when `--snapshot-count` is lower ([`catch_up_entries`]).
const KEEP_AFTER_COMPACTION: u64 = 5000;

/// The log entries kept after a compaction with `--snapshot-count`
/// `snapshot_count` (etcd's SnapshotCatchUpEntries, bounded by the count).
pub fn catch_up_entries(snapshot_count: u64) -> u64 {
    KEEP_AFTER_COMPACTION.min(snapshot_count)
}

/// Why the driver stopped.
#[derive(Debug)]
pub enum Stopped {
    /// Every handle was dropped.
    Shutdown,
    /// This member was removed from the cluster.
    Removed,
}

/// The raft thread's state: the `RawNode` and what the loop keeps beside it.
struct Driver {
    raw: RawNode<Store>,
    /// Raft's configuration, as committed entries reached it.
    conf: ConfState,
    store: Store,
    outbox: Arc<dyn Outbox>,
    config: Arc<NodeConfig>,
    /// Read-index requests raft has not confirmed, and proposal tags.
    reads: Reads,
    /// The apply stage's queue.
    apply: std::sync::mpsc::Sender<Task>,
    /// How far the apply stage has applied.
    applied: u64,
    /// The index of the configuration change that removed this member.
    removed_at: Option<u64>,
    view: watch::Sender<View>,
    /// When a message last arrived from each peer.
    heard: HashMap<u64, Instant>,
    /// When the heartbeats to each peer went that it has not answered yet,
    /// oldest first (answers come in order: each times its own round trip,
    /// also while the link queues them).
    heartbeats: HashMap<u64, std::collections::VecDeque<Instant>>,
    /// When the last heartbeat to each peer was handed to the transport,
    /// while this member leads (etcd's timeout detector).
    last_heartbeat: HashMap<u64, Instant>,
    /// The state's bytes when the apply stage last had a checkpoint written
    /// (or installed a snapshot), as the apply stage sets it.
    checkpoint_bytes: Arc<std::sync::atomic::AtomicU64>,
    /// Compaction held while snapshots are sent (and shortly after), and
    /// the newest compaction held back.
    hold: CompactionHold,
    /// Whether the cluster has this member's name and client URLs.
    published: bool,
    /// Ticks since this member last proposed its name and client URLs.
    ticks_since_publish: usize,
}

/// What handling a request says about the loop.
enum Next {
    Go,
    Stop(Result<Stopped, StoreError>),
}

impl Driver {
    async fn run(&mut self, mut rx: mpsc::Receiver<Request>) -> Result<Stopped, StoreError> {
        let mut interval = tokio::time::interval(self.config.heartbeat);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = interval.tick() => {
                    self.raw.tick();
                    self.ticks_since_publish = self.ticks_since_publish.saturating_add(1);
                }
                req = rx.recv() => {
                    let Some(req) = req else {
                        self.store.sync_log()?;
                        return Ok(Stopped::Shutdown);
                    };
                    if let Next::Stop(why) = self.handle(req)? {
                        return why;
                    }
                    // Take what else is waiting, boundedly, before the next ready.
                    for _ in 0..256 {
                        match rx.try_recv() {
                            Ok(req) => {
                                if let Next::Stop(why) = self.handle(req)? {
                                    return why;
                                }
                            }
                            Err(_) => break,
                        }
                    }
                }
            }
            // Until the cluster has it: proposed as soon as a leader is
            // known, then once per election timeout (a learner still
            // catching up cannot see it applied); looked for after every
            // tick and request, so that the member serves (and `cluster
            // start-node` returns) as soon as it is applied, not a tick
            // later.
            if !self.published {
                self.maybe_publish(self.ticks_since_publish >= self.config.election_ticks);
            }
            self.release_held()?;
            let was_leader = self.view.borrow().is_leader();
            self.on_ready()?;
            self.publish_view();
            if was_leader && !self.view.borrow().is_leader() {
                self.reads.lost_leadership(self.raw.raft.leader_id);
            }
            if !self.view.borrow().is_leader() {
                // A new term as leader times its heartbeats afresh.
                self.last_heartbeat.clear();
            }
        }
    }

    pub(super) fn role(&self) -> Role {
        match self.raw.raft.state {
            StateRole::Leader => Role::Leader,
            StateRole::Candidate | StateRole::PreCandidate => Role::Candidate,
            StateRole::Follower => Role::Follower,
        }
    }

    pub(super) fn not_leader(&self) -> Option<NodeError> {
        (self.raw.raft.state != StateRole::Leader).then_some(NodeError::NotLeader {
            leader: self.raw.raft.leader_id,
        })
    }

    /// Publishes this member's name and client URLs until the cluster has
    /// them: says so once it has, and proposes them again when `propose`.
    pub(super) fn maybe_publish(&mut self, propose: bool) {
        if self.raw.raft.leader_id == 0 {
            return;
        }
        let members = self.store.members();
        let Some(me) = members.iter().find(|m| m.id == self.config.id) else {
            return;
        };
        if me.name == self.config.name && me.client_urls == self.config.client_urls {
            self.published = true;
            // etcd's words at this moment (3.4's `etcdserver: published …`,
            // then `embed: ready to serve client requests`), which tools
            // written for etcd wait for in its log.
            let log = crate::log::logger();
            slog::info!(
                log,
                "published {{Name:{} ClientURLs:[{}]}} to cluster {:x}",
                me.name,
                me.client_urls.join(" "),
                self.store.cluster_id()
            );
            slog::info!(log, "ready to serve client requests");
            return;
        }
        if !propose {
            return;
        }
        let op = spb::command::Op::Publish(spb::Publish {
            id: self.config.id,
            name: self.config.name.clone(),
            client_urls: self.config.client_urls.clone(),
        });
        let data = spb::Command {
            tag: 0,
            op: Some(op),
        }
        .encode_to_vec();
        // A follower's proposal is forwarded to the leader by raft; one
        // dropped is proposed again at the next tick, not at once.
        self.ticks_since_publish = if self.raw.propose(vec![], data).is_ok() {
            0
        } else {
            self.config.election_ticks.saturating_sub(1)
        };
    }
}
