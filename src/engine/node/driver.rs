//! The raft loop: one task owns the `RawNode`, ticks it, feeds it requests and
//! messages, and handles each `Ready` (send, snapshot, persist entries and
//! hard state, send persisted messages, apply committed, advance, apply,
//! advance_apply).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::Message;
use raft::{Config, ProgressState, RawNode, SnapshotStatus, StateRole};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::apply::{apply_entries, EventBatch};
use super::conf::{conf_change, conf_view};
use super::outbox::{encode, peer_list, Outbox};
use super::pending::Pending;
use super::tokens::{TokenEvent, Tokens};
use super::{Applied, Node, NodeConfig, NodeError, PeerProgress, Request, Role, View};
use crate::engine::storage::{Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

/// Log entries kept after a compaction, so that slightly lagging followers
/// catch up from the log rather than by snapshot (etcd keeps 5000).
const KEEP_AFTER_COMPACTION: u64 = 5000;
/// Largest raft message (entries per append).
const MAX_SIZE_PER_MSG: u64 = 1024 * 1024;
/// In-flight appends per follower: small, so a catching-up learner does not
/// crowd out a leader's other traffic.
const MAX_INFLIGHT_MSGS: usize = 4;
/// Mailbox size; senders wait when it is full.
const MAILBOX: usize = 4096;
/// Applied entries between two fsync'd applies (which bound what is applied
/// again after a crash, and let the log be compacted up to them).
const DURABLE_EVERY_ENTRIES: u64 = 1000;
/// Longest time between two fsync'd applies while entries are applied: redb
/// frees no page until a commit is fsync'd, so a long stretch of unsynced
/// commits piles up new pages that the next fsync then writes at once (5 s
/// of puts every 5 ms gave a 30 ms stall); like etcd's backend, which
/// commits every 100 ms.
const DURABLE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Why the driver stopped.
#[derive(Debug)]
pub enum Stopped {
    /// Every handle was dropped.
    Shutdown,
    /// This member was removed from the cluster.
    Removed,
}

/// Starts the node on `store`: returns its handle and the driver task.
pub fn start(
    config: NodeConfig,
    store: Store,
    outbox: Arc<dyn Outbox>,
) -> Result<(Node, JoinHandle<Result<Stopped, StoreError>>), StoreError> {
    let applied = store.applied()?;
    let raft_config = Config {
        id: config.id,
        election_tick: config.election_ticks,
        heartbeat_tick: 1,
        applied,
        max_size_per_msg: MAX_SIZE_PER_MSG,
        max_inflight_msgs: MAX_INFLIGHT_MSGS,
        check_quorum: true,
        pre_vote: true,
        ..Default::default()
    };
    raft_config
        .validate()
        .map_err(|e| StoreError(format!("raft config: {e}")))?;
    let logger = slog::Logger::root(slog::Discard, slog::o!());
    let mut raw = RawNode::new(&raft_config, store.clone(), &logger)
        .map_err(|e| StoreError(format!("raft: {e}")))?;
    if let Some(rank) = config.fresh_rank {
        // A new cluster: bring the first election forward (as etcd does),
        // staggered by rank so that one member usually wins the first round.
        let ticks = config.election_ticks;
        raw.raft.set_randomized_election_timeout(ticks);
        for _ in 0..ticks.saturating_sub(2 + 3 * rank) {
            raw.tick();
        }
    }
    outbox.peers(peer_list(&store)?);
    let (tx, rx) = mpsc::channel(MAILBOX);
    let (view_tx, view_rx) = watch::channel(View::default());
    let (events, _) = tokio::sync::broadcast::channel(super::EVENT_BATCHES);
    let config = Arc::new(config);
    let tokens = Arc::new(Tokens::default());
    let node = Node {
        tx,
        view: view_rx,
        events: events.clone(),
        store: store.clone(),
        config: config.clone(),
        tokens: tokens.clone(),
    };
    let driver = Driver {
        raw,
        store,
        outbox,
        config,
        pending: Pending::new(),
        applied,
        last_compaction: applied,
        last_durable: Instant::now(),
        view: view_tx,
        events,
        tokens,
        heard: HashMap::new(),
        published: false,
        ticks_since_publish: usize::MAX / 2,
    };
    driver.publish_view();
    Ok((node, run_on_own_thread(driver, rx)?))
}

/// Runs the driver on a thread of its own, with a single-threaded runtime.
/// The driver blocks on fsync: on a shared runtime worker, the tasks it
/// wakes (the transport's senders, the waiting clients) would sit in that
/// worker's queue until the fsync returned, serialising network and disk.
fn run_on_own_thread(
    mut driver: Driver,
    rx: mpsc::Receiver<Request>,
) -> Result<JoinHandle<Result<Stopped, StoreError>>, StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| StoreError(format!("raft driver runtime: {e}")))?;
    let (done_tx, done_rx) = oneshot::channel();
    let dir = driver.config.data_dir.clone();
    std::thread::Builder::new()
        .name("raft-driver".into())
        .spawn(move || {
            // raft-rs asserts its invariants by panicking; the one a member
            // meets in practice is a log that lost entries it had written
            // (or acknowledged): said as such, not as a crash.
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                runtime.block_on(driver.run(rx))
            }));
            let _ = done_tx.send(run.unwrap_or_else(|panic| {
                let what = crate::error::panic_message(panic.as_ref(), "an internal error");
                if crate::engine::storage::faults::sync_failed() {
                    return Err(StoreError(format!(
                        "raft log: fsync failed in {} ({what}): this member stopped so that it \
                         acknowledges nothing it did not persist; check the disk, then start \
                         the member again",
                        dir.display()
                    )));
                }
                Err(StoreError(format!(
                    "raft stopped this member ({what}): its raft log lacks entries it had \
                     written, so its data directory {} is damaged",
                    dir.display()
                )))
            }));
        })
        .map_err(|e| StoreError(format!("raft driver thread: {e}")))?;
    Ok(tokio::spawn(async move {
        done_rx
            .await
            .unwrap_or_else(|_| Err(StoreError("the raft driver thread panicked".into())))
    }))
}

struct Driver {
    raw: RawNode<Store>,
    store: Store,
    outbox: Arc<dyn Outbox>,
    config: Arc<NodeConfig>,
    pending: Pending,
    applied: u64,
    last_compaction: u64,
    /// When an applied transaction was last fsync'd.
    last_durable: Instant,
    view: watch::Sender<View>,
    /// Applied key changes, for watchers.
    events: tokio::sync::broadcast::Sender<Arc<EventBatch>>,
    /// The simple tokens, followed as batches are applied.
    tokens: Arc<Tokens>,
    /// When a message last arrived from each peer.
    heard: HashMap<u64, Instant>,
    /// Whether the cluster has this member's name and client URLs.
    published: bool,
    /// Ticks since this member last proposed its name and client URLs.
    ticks_since_publish: usize,
}

impl Driver {
    async fn run(&mut self, mut rx: mpsc::Receiver<Request>) -> Result<Stopped, StoreError> {
        let mut interval = tokio::time::interval(self.config.heartbeat);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = interval.tick() => {
                    self.raw.tick();
                    self.ticks_since_publish += 1;
                    // Until the cluster has it: at once, then once per election
                    // timeout (a learner still catching up cannot see it applied).
                    if !self.published && self.ticks_since_publish >= self.config.election_ticks {
                        self.maybe_publish()?;
                    }
                }
                req = rx.recv() => {
                    let Some(req) = req else {
                        self.store.flush()?;
                        return Ok(Stopped::Shutdown);
                    };
                    self.handle(req);
                    // Take what else is waiting, boundedly, before the next ready.
                    for _ in 0..256 {
                        match rx.try_recv() {
                            Ok(req) => self.handle(req),
                            Err(_) => break,
                        }
                    }
                }
            }
            let was_leader = self.view.borrow().is_leader();
            if self.on_ready()? {
                return Ok(Stopped::Removed);
            }
            self.publish_view();
            if was_leader && !self.view.borrow().is_leader() {
                self.pending.lost_leadership(self.raw.raft.leader_id);
            }
        }
    }

    fn role(&self) -> Role {
        match self.raw.raft.state {
            StateRole::Leader => Role::Leader,
            StateRole::Candidate | StateRole::PreCandidate => Role::Candidate,
            StateRole::Follower => Role::Follower,
        }
    }

    fn not_leader(&self) -> Option<NodeError> {
        (self.raw.raft.state != StateRole::Leader).then_some(NodeError::NotLeader {
            leader: self.raw.raft.leader_id,
        })
    }

    fn handle(&mut self, req: Request) {
        match req {
            Request::Propose(op, reply) => {
                if let Some(e) = self.not_leader() {
                    let _ = reply.send(Err(e));
                    return;
                }
                let tag = self.pending.tag();
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
                    return;
                }
                if self.raw.raft.has_pending_conf() {
                    let _ = reply.send(Err(NodeError::ChangeInProgress));
                    return;
                }
                let tag = self.pending.tag();
                let cc = conf_change(&changes, explicit, spb::ConfContext { tag, added });
                let proposed = self.raw.propose_conf_change(vec![], cc);
                self.track(proposed, tag, reply);
            }
            Request::ReadIndex(reply) => {
                // A follower asks its leader (raft forwards the request);
                // without a leader there is nobody to ask.
                if self.raw.raft.leader_id == raft::INVALID_ID {
                    let _ = reply.send(Err(NodeError::NotLeader { leader: 0 }));
                    return;
                }
                let ctx = self.pending.tag().to_be_bytes().to_vec();
                self.raw.read_index(ctx.clone());
                self.pending.read_requested(ctx, reply);
            }
            Request::Progress(reply) => {
                if let Some(e) = self.not_leader() {
                    let _ = reply.send(Err(e));
                    return;
                }
                let _ = reply.send(Ok(self.progress()));
            }
            Request::TransferLeader(to) => {
                if self.raw.raft.state == StateRole::Leader {
                    self.raw.transfer_leader(to);
                }
            }
            Request::Step(bytes) => {
                if let Ok(m) = Message::parse_from_bytes(&bytes) {
                    self.heard.insert(m.from, Instant::now());
                    // Messages from unknown or removed peers are refused by raft; ignore.
                    let _ = self.raw.step(m);
                }
            }
            Request::Unreachable(peer) => self.raw.report_unreachable(peer),
            Request::SnapshotDone(peer, ok) => {
                let status = if ok {
                    SnapshotStatus::Finish
                } else {
                    SnapshotStatus::Failure
                };
                self.raw.report_snapshot(peer, status);
            }
        }
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
                self.pending.proposed(index, tag, reply);
            }
            Err(_) => {
                let _ = reply.send(Err(NodeError::NotAppended));
            }
        }
    }

    fn progress(&self) -> Vec<PeerProgress> {
        let learners = self.store.conf_state().learners;
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
                recent_active: pr.recent_active,
                pending_snapshot: pr.pending_snapshot,
                last_heard: self.heard.get(&id).map(|t| t.elapsed()),
            })
            .collect();
        out.sort_by_key(|p| p.id);
        out
    }

    /// Publishes this member's name and client URLs (each tick, until the cluster has them).
    fn maybe_publish(&mut self) -> Result<(), StoreError> {
        if self.raw.raft.leader_id == 0 {
            return Ok(());
        }
        let members = self.store.members()?;
        let Some(me) = members.iter().find(|m| m.id == self.config.id) else {
            return Ok(());
        };
        if me.name == self.config.name && me.client_urls == self.config.client_urls {
            self.published = true;
            return Ok(());
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
        // A follower's proposal is forwarded to the leader by raft.
        if self.raw.propose(vec![], data).is_ok() {
            self.ticks_since_publish = 0;
        }
        Ok(())
    }

    fn send(&mut self, messages: Vec<Message>) {
        if messages.is_empty() {
            return;
        }
        let (out, failed) = encode(&self.store, messages);
        self.outbox.send(out);
        for peer in failed {
            self.raw.report_snapshot(peer, SnapshotStatus::Failure);
        }
    }

    /// Handles one Ready; returns true when this member was removed.
    fn on_ready(&mut self) -> Result<bool, StoreError> {
        if !self.raw.has_ready() {
            return Ok(false);
        }
        let mut rd = self.raw.ready();
        self.send(rd.take_messages());
        let mut peers_changed = false;
        if !rd.snapshot().is_empty() {
            self.store.apply_snapshot(rd.snapshot())?;
            // The entries the snapshot replaced may have issued or ended tokens.
            self.tokens.apply(vec![TokenEvent::Cleared]);
            let index = rd.snapshot().get_metadata().index;
            eprintln!(
                "memberctl node: installed a snapshot from the leader at index {index} (term {})",
                rd.snapshot().get_metadata().term
            );
            self.applied = index;
            self.last_compaction = index;
            self.pending.snapshot_applied(index);
            peers_changed = true;
            // The revision jumped: watchers read what they missed from the
            // history the snapshot brought.
            let revision = self.store.revision()?;
            let _ = self.events.send(Arc::new(EventBatch {
                before: revision,
                after: revision,
                changes: vec![],
            }));
        }
        for rs in rd.take_read_states() {
            self.pending
                .read_confirmed(&rs.request_ctx, rs.index, self.applied);
        }
        // Persist and acknowledge first, then apply: the peers' answers are
        // on the write path, applying is not (committed entries handed out
        // here are already on this member's disk).
        let committed = rd.take_committed_entries();
        self.store.persist(rd.entries(), rd.hs(), rd.must_sync())?;
        self.send(rd.take_persisted_messages());
        peers_changed |= self.apply(committed)?;
        let mut light = self.raw.advance(rd);
        if let Some(commit) = light.commit_index() {
            self.store.set_commit(commit)?;
        }
        self.send(light.take_messages());
        peers_changed |= self.apply(light.take_committed_entries())?;
        self.raw.advance_apply();
        if peers_changed {
            self.outbox.peers(peer_list(&self.store)?);
            let cs = self.store.conf_state();
            let me = self.config.id;
            let member = cs
                .voters
                .iter()
                .chain(&cs.voters_outgoing)
                .chain(&cs.learners)
                .chain(&cs.learners_next)
                .any(|&id| id == me);
            if !member
                && self.store.member_id()? == Some(me)
                && self.applied > 1
                && !cs.voters.is_empty()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn apply(&mut self, entries: Vec<raft::eraftpb::Entry>) -> Result<bool, StoreError> {
        let Some(last) = entries.last().map(|e| e.index) else {
            return Ok(false);
        };
        let compact = last >= self.last_compaction + self.config.snapshot_count;
        let durable = compact
            || last >= self.store.durable_applied() + DURABLE_EVERY_ENTRIES
            || self.last_durable.elapsed() >= DURABLE_EVERY;
        let batch = apply_entries(
            &mut self.raw,
            &self.store,
            entries,
            &mut self.pending,
            durable,
        )?;
        if let Some(events) = batch.events {
            // No receiver is fine; a lagging one reads the history.
            let _ = self.events.send(Arc::new(events));
        }
        if !batch.tokens.is_empty() {
            self.tokens.apply(batch.tokens);
        }
        let changed = batch.conf_changed;
        self.applied = last;
        self.pending.applied_to(last);
        if durable {
            self.last_durable = Instant::now();
        }
        if compact {
            // Up to what is durably applied (this very batch), keeping a
            // stretch for followers slightly behind.
            let keep = KEEP_AFTER_COMPACTION.min(self.config.snapshot_count);
            self.store.compact(self.applied.saturating_sub(keep))?;
            self.last_compaction = self.applied;
        }
        Ok(changed)
    }

    fn publish_view(&self) {
        let r = &self.raw.raft;
        let view = View {
            id: self.config.id,
            leader_id: r.leader_id,
            role: self.role(),
            term: r.term,
            commit: r.raft_log.committed,
            applied: self.applied,
            last_index: r.raft_log.last_index(),
            conf: conf_view(&self.store.conf_state()),
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
