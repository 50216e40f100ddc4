//! The raft thread: it owns the `RawNode`, ticks it, feeds it requests and
//! messages, and handles each `Ready` doing only raft's own work — send,
//! install a snapshot, persist entries and hard state (one write, at most
//! one fsync), send persisted messages, hand committed entries to the apply
//! stage (configuration changes applied to raft on the way), advance. The
//! apply stage reports how far it applied (`advance_apply_to`), the
//! checkpointer when the log may be compacted (unless a snapshot send holds
//! compaction back: `hold`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::{ConfState, Entry, EntryType, Message, MessageType};
use raft::{Config, ProgressState, RawNode, SnapshotStatus, StateRole};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::apply::{ApplyStage, Task};
use super::commands::Committed;
use super::conf::{conf_change, conf_view};
use super::hold::{self, CompactionHold};
use super::outbox::{encode, peer_list, Outbox};
use super::pending::Reads;
use super::tokens::Tokens;
use super::{Applied, Node, NodeConfig, NodeError, PeerProgress, Replication, Request, Role, View};
use crate::engine::storage::{Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

/// Log entries kept after a compaction, so that slightly lagging followers
/// catch up from the log rather than by snapshot (etcd keeps 5000); fewer
/// when `--snapshot-count` is lower ([`catch_up_entries`]).
const KEEP_AFTER_COMPACTION: u64 = 5000;
/// Largest raft message (entries per append).
const MAX_SIZE_PER_MSG: u64 = 1024 * 1024;
/// In-flight appends per follower: small, so a catching-up learner does not
/// crowd out a leader's other traffic.
const MAX_INFLIGHT_MSGS: usize = 4;
/// A heartbeat unanswered for this long is taken as lost (which also bounds
/// the heartbeats kept per peer).
const HEARTBEAT_LOST: std::time::Duration = std::time::Duration::from_secs(2);
/// Mailbox size; senders wait when it is full.
const MAILBOX: usize = 4096;

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

/// Starts the node on `store`: returns its handle and the driver task.
pub fn start(
    config: NodeConfig,
    store: Store,
    outbox: Arc<dyn Outbox>,
) -> Result<(Node, JoinHandle<Result<Stopped, StoreError>>), StoreError> {
    let applied = store.applied();
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
        .map_err(|e| StoreError::other(format!("raft config: {e}")))?;
    let mut raw = RawNode::new(&raft_config, store.clone(), crate::engine::log::logger())
        .map_err(|e| StoreError::other(format!("raft: {e}")))?;
    if let Some(rank) = config.fresh_rank {
        // A new cluster: bring the first election forward (as etcd does),
        // staggered by rank so that one member usually wins the first round.
        let ticks = config.election_ticks;
        raw.raft.set_randomized_election_timeout(ticks);
        for _ in 0..ticks.saturating_sub(2 + 3 * rank) {
            raw.tick();
        }
    }
    let state = store.state();
    outbox.peers(peer_list(&state.members()));
    let (tx, rx) = mpsc::channel(MAILBOX);
    let notify = tx.downgrade();
    store.set_fetch_notify(Box::new(move |context| {
        if let Some(raft) = notify.upgrade() {
            let _ = raft.blocking_send(Request::EntriesFetched(context));
        }
    }));
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
    let (apply_tx, apply_rx) = std::sync::mpsc::channel();
    let checkpoint_bytes = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let stage = ApplyStage {
        state: (*state).clone(),
        store: store.clone(),
        raft: node.tx.downgrade(),
        events,
        tokens,
        outbox: outbox.clone(),
        snapshot_count: config.snapshot_count,
        checkpoint_bytes: checkpoint_bytes.clone(),
    };
    stage
        .start(apply_rx)
        .map_err(|e| StoreError::other(format!("apply thread: {e}")))?;
    let driver = Driver {
        raw,
        conf: state.conf_state().clone(),
        store,
        outbox,
        config,
        reads: Reads::new(),
        apply: apply_tx,
        applied,
        removed_at: None,
        view: view_tx,
        heard: HashMap::new(),
        heartbeats: HashMap::new(),
        last_heartbeat: HashMap::new(),
        checkpoint_bytes,
        hold: CompactionHold::new(hold::release_delay()),
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
        .map_err(|e| StoreError::other(format!("raft driver runtime: {e}")))?;
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
                if crate::engine::storage::log_sync_failed() {
                    return Err(StoreError::other(format!(
                        "raft log: fsync failed in {} ({what}): this member stopped so that it \
                         acknowledges nothing it did not persist; check the disk, then start \
                         the member again",
                        dir.display()
                    )));
                }
                Err(StoreError::damaged(format!(
                    "raft stopped this member ({what}): its raft log lacks entries it had \
                     written, so its data directory {} is damaged",
                    dir.display()
                )))
            }));
        })
        .map_err(|e| StoreError::other(format!("raft driver thread: {e}")))?;
    Ok(tokio::spawn(async move {
        done_rx
            .await
            .unwrap_or_else(|_| Err(StoreError::other("the raft driver thread panicked")))
    }))
}

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

/// Drops the heartbeats sent longer than [`HEARTBEAT_LOST`] before `now`.
fn forget_lost(sent: &mut std::collections::VecDeque<Instant>, now: Instant) {
    while sent
        .front()
        .is_some_and(|t| now.saturating_duration_since(*t) > HEARTBEAT_LOST)
    {
        sent.pop_front();
    }
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
                    self.ticks_since_publish += 1;
                    // Until the cluster has it: at once, then once per election
                    // timeout (a learner still catching up cannot see it applied).
                    if !self.published && self.ticks_since_publish >= self.config.election_ticks {
                        self.maybe_publish();
                    }
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

    fn handle(&mut self, req: Request) -> Result<Next, StoreError> {
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
                        crate::engine::log::logger(),
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
    fn release_held(&mut self) -> Result<(), StoreError> {
        if let Some(to) = self.hold.due(Instant::now()) {
            slog::info!(
                crate::engine::log::logger(),
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

    /// The leader's view of replication: each peer, and what its log keeps.
    fn replication(&self) -> Replication {
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
                recent_active: pr.recent_active,
                pending_snapshot: pr.pending_snapshot,
                last_heard: self.heard.get(&id).map(|t| t.elapsed()),
            })
            .collect();
        out.sort_by_key(|p| p.id);
        out
    }

    /// Publishes this member's name and client URLs (each tick, until the cluster has them).
    fn maybe_publish(&mut self) {
        if self.raw.raft.leader_id == 0 {
            return;
        }
        let members = self.store.members();
        let Some(me) = members.iter().find(|m| m.id == self.config.id) else {
            return;
        };
        if me.name == self.config.name && me.client_urls == self.config.client_urls {
            self.published = true;
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
        // A follower's proposal is forwarded to the leader by raft.
        if self.raw.propose(vec![], data).is_ok() {
            self.ticks_since_publish = 0;
        }
    }

    fn send(&mut self, messages: Vec<Message>) {
        if messages.is_empty() {
            return;
        }
        for m in &messages {
            if m.get_msg_type() == MessageType::MsgHeartbeat {
                let now = Instant::now();
                let sent = self.heartbeats.entry(m.to).or_default();
                forget_lost(sent, now);
                sent.push_back(now);
                self.heartbeat_on_time(m.to, now);
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

    /// etcd's timeout detector: a heartbeat to `to` handed out more than two
    /// heartbeat intervals after the one before it went late (the raft
    /// thread was held up, by a slow disk most likely), and counts in
    /// etcd_server_heartbeat_send_failures_total.
    fn heartbeat_on_time(&mut self, to: u64, now: Instant) {
        let limit = 2 * self.config.heartbeat;
        if let Some(last) = self.last_heartbeat.insert(to, now) {
            let gap = now.saturating_duration_since(last);
            if gap > limit {
                slog::warn!(
                    crate::engine::log::logger(),
                    "leader failed to send out heartbeat on time; took too long, leader is \
                     overloaded likely from slow disk";
                    "to" => format!("{to:x}"),
                    "heartbeat-interval" => format!("{:?}", self.config.heartbeat),
                    "expected-duration" => format!("{limit:?}"),
                    "exceeded-duration" => format!("{:?}", gap - limit),
                );
                crate::engine::metrics::heartbeat_send_failure();
            }
        }
    }

    /// Records the round trip of the heartbeat `peer` answered
    /// (etcd_network_peer_round_trip_time_seconds).
    fn round_trip(&mut self, peer: u64) {
        let now = Instant::now();
        // Heartbeats unanswered this long were lost on the way: the answer
        // is not theirs.
        let sent = self.heartbeats.get_mut(&peer).and_then(|s| {
            forget_lost(s, now);
            s.pop_front()
        });
        if let Some(sent) = sent {
            let rtt = now - sent;
            crate::engine::pacing::round_trips().record(peer, now, rtt);
            crate::engine::metrics::get()
                .peer_rtt
                .with_label_values(&[&format!("{peer:x}")])
                .observe(rtt.as_secs_f64());
        }
    }

    /// Handles one Ready.
    fn on_ready(&mut self) -> Result<(), StoreError> {
        if !self.raw.has_ready() {
            return Ok(());
        }
        let mut rd = self.raw.ready();
        self.send(rd.take_messages());
        if !rd.snapshot().is_empty() {
            // etcd_server_snapshot_apply_in_progress_total until the apply
            // stage has the state in place.
            let applying = crate::engine::metrics::ApplyingSnapshot::start();
            let state = self.store.apply_snapshot(rd.snapshot())?;
            let md = rd.snapshot().get_metadata();
            slog::info!(
                crate::engine::log::logger(),
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
        // Persist and acknowledge first, then hand over what committed: the
        // peers' answers are on the write path, applying is not (committed
        // entries handed out here are already on this member's disk).
        let committed = rd.take_committed_entries();
        self.store.persist(rd.entries(), rd.hs(), rd.must_sync())?;
        self.send(rd.take_persisted_messages());
        self.hand_off(committed)?;
        let mut light = self.raw.advance_append(rd);
        if let Some(commit) = light.commit_index() {
            self.store.set_commit(commit)?;
        }
        self.send(light.take_messages());
        self.hand_off(light.take_committed_entries())?;
        Ok(())
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
                    let cc = crate::engine::storage::conf_change(&entry)?;
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
        let member = crate::engine::storage::conf_members(cs).contains(&me);
        if !member && self.store.member_id() == Some(me) && index > 1 && !cs.voters.is_empty() {
            self.removed_at.get_or_insert(index);
        }
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
