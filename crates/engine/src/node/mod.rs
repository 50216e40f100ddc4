//! The embedded Raft node: the only owner of raft-rs's `RawNode`. The raft
//! thread runs the raft loop (`driver`) and hands committed entries to the
//! apply stage (`apply`, applying `commands` to the state machine), which
//! has checkpoints written (`checkpointer`); this handle talks to the raft
//! thread through a mailbox and publishes a read-only [`View`]. raft-rs
//! types stop here: the rest of the program sees plain domain types and
//! bytes.

mod apply;
mod checkpointer;
mod commands;
mod conf;
mod driver;
mod hold;
mod outbox;
mod pending;
mod tokens;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use crate::proto::memberctl_store_v1 as spb;
use crate::storage::Refusal;
use crate::storage::SnapshotStaging;
use crate::storage::TxnResult;
use crate::storage::{Store, StoreError};

pub use commands::EventBatch;
pub use driver::{catch_up_entries, start, Stopped};
pub use outbox::{Outbox, Outgoing};
pub use tokens::{TokenEvent, Tokens, TOKEN_TTL};

/// Applied batches of key changes kept for watchers that fall behind.
pub const EVENT_BATCHES: usize = 256;

/// How long a configuration change waits for an earlier one to be applied.
pub const CHANGE_WAIT: Duration = Duration::from_secs(2);

/// How the node runs.
#[derive(Clone, Debug)]
pub struct NodeConfig {
    /// This member's ID.
    pub id: u64,
    /// Its name (published to the cluster once it runs).
    pub name: String,
    /// Where its data lives.
    pub data_dir: PathBuf,
    /// Client URLs it advertises.
    pub client_urls: Vec<String>,
    /// Time between raft ticks (the heartbeat interval).
    pub heartbeat: Duration,
    /// Election timeout in ticks.
    pub election_ticks: usize,
    /// Compact the log every this many applied entries.
    pub snapshot_count: u64,
    /// Most learners the cluster may have at once.
    pub max_learners: usize,
    /// etcd's strict reconfiguration check: a voter change is refused when
    /// it would leave too few started voters or the leader cannot reach
    /// every voter (`--strict-reconfig-check`, on by default).
    pub strict_reconfig_check: bool,
    /// Most concurrent gRPC streams per client connection.
    pub max_concurrent_streams: u32,
    /// How often an idle watch that asked for progress notifications gets one.
    pub watch_progress_notify: Duration,
    /// How long a simple token lives after its last use (--auth-token-ttl).
    pub simple_token_ttl: Duration,
    /// Set when the store was just bootstrapped for a new cluster: the first
    /// election is brought forward, earliest for `rank` 0.
    pub fresh_rank: Option<usize>,
}

/// A node's role in raft.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Role {
    /// Follows a leader (or has none yet).
    #[default]
    Follower,
    /// Asking for (pre-)votes.
    Candidate,
    /// Leads the cluster.
    Leader,
}

/// The configuration in raft's terms (a joint configuration has outgoing voters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfView {
    /// Voters of the incoming configuration.
    pub voters: Vec<u64>,
    /// Voters of the outgoing configuration (non-empty while joint).
    pub voters_outgoing: Vec<u64>,
    /// Learners.
    pub learners: Vec<u64>,
    /// Voters that become learners when the joint configuration is left.
    pub learners_next: Vec<u64>,
    /// Whether the joint configuration is left automatically.
    pub auto_leave: bool,
}

/// What the node looks like now; refreshed by the driver after every step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// This member's ID.
    pub id: u64,
    /// The leader it knows of (0: none).
    pub leader_id: u64,
    /// Its role.
    pub role: Role,
    /// The current term.
    pub term: u64,
    /// The commit index.
    pub commit: u64,
    /// The applied index.
    pub applied: u64,
    /// The last index in its log.
    pub last_index: u64,
    /// The configuration as applied.
    pub conf: ConfView,
}

impl View {
    /// Whether this node is a learner.
    pub fn is_learner(&self) -> bool {
        self.conf.learners.contains(&self.id)
    }

    /// Whether this node leads.
    pub fn is_leader(&self) -> bool {
        self.role == Role::Leader
    }

    /// Whether the applied configuration leaves this member out (removed).
    pub fn is_removed(&self) -> bool {
        let c = &self.conf;
        !c.voters.is_empty()
            && ![&c.voters, &c.voters_outgoing, &c.learners]
                .iter()
                .any(|ids| ids.contains(&self.id))
    }
}

/// A peer's replication progress as the leader sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerProgress {
    /// The peer.
    pub id: u64,
    /// Highest index known to be replicated on it.
    pub matched: u64,
    /// Next index to send it.
    pub next: u64,
    /// "probe", "replicate" or "snapshot".
    pub state: String,
    /// Whether it is a learner.
    pub is_learner: bool,
    /// Index of the snapshot being sent to it (0: none).
    pub pending_snapshot: u64,
    /// How long ago this node last received a message from it (None: never;
    /// this node itself: zero).
    pub last_heard: Option<Duration>,
}

impl PeerProgress {
    /// Whether a message from it arrived within `window`.
    pub fn heard_within(&self, window: Duration) -> bool {
        self.last_heard.is_some_and(|t| t <= window)
    }
}

/// The leader's view of replication: every peer's progress, and what the
/// leader's log keeps (what decides whether a peer catches up from the log
/// or needs a snapshot).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replication {
    /// Every peer, the leader included, by ID.
    pub peers: Vec<PeerProgress>,
    /// The first index still in the leader's raft log: the entries before
    /// it went into a checkpoint, and a peer that needs them gets a snapshot.
    pub first_index: u64,
    /// The node's `--snapshot-count`: entries applied between two
    /// checkpoints at least.
    pub snapshot_count: u64,
    /// Entries kept in the log after a compaction ([`catch_up_entries`]).
    pub catch_up_entries: u64,
    /// The engine's second rule for a checkpoint: it also waits until the
    /// bytes of the entries applied since the last one reach this many
    /// (half the state's bytes at the last checkpoint).
    pub checkpoint_bytes: u64,
}

/// One member's change within a configuration change (several: a joint one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberChange {
    /// Add a voter, or promote a learner.
    AddVoter(u64),
    /// Add a learner, or demote a voter.
    AddLearner(u64),
    /// Remove a member.
    Remove(u64),
}

/// What an applied proposal produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A transaction (every key write is one).
    Txn(TxnResult),
    /// A compaction or lease change: the store's revision after it.
    Revision(i64),
    /// The state machine refused the command (it changed nothing).
    Refused(Refusal),
    /// A configuration change: the configuration after it.
    Conf(ConfView),
    /// An alarm raised or cleared (None: clearing one that was not raised).
    Alarm(Option<crate::storage::AlarmRecord>),
    /// An auth change: the auth revision after it, or why it was refused.
    Auth(Result<u64, crate::storage::AuthRefusal>),
    /// Anything else (member metadata).
    Done,
}

/// Why the node could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// This node is not the leader (it knows of `leader`, 0 if none).
    #[error("not the leader")]
    NotLeader {
        /// The leader it knows of.
        leader: u64,
    },
    /// The proposal was lost in a leader change or replaced.
    #[error("proposal dropped (leader changed)")]
    Dropped,
    /// Raft did not append the proposal (a leadership transfer is under way):
    /// it was not applied and may be proposed again.
    #[error("proposal not appended (leadership is moving)")]
    NotAppended,
    /// Another configuration change has not been applied yet.
    #[error("a configuration change is already in progress")]
    ChangeInProgress,
    /// The node has stopped.
    #[error("the node has stopped")]
    Stopped,
    /// Storage failed.
    #[error("{0}")]
    Storage(String),
}

/// A request to the driver task.
pub(crate) enum Request {
    Propose(
        spb::command::Op,
        oneshot::Sender<Result<Applied, NodeError>>,
    ),
    ConfChange {
        changes: Vec<MemberChange>,
        explicit: bool,
        added: Vec<spb::MemberMeta>,
        reply: oneshot::Sender<Result<Applied, NodeError>>,
    },
    ReadIndex(oneshot::Sender<Result<(), NodeError>>),
    Progress(oneshot::Sender<Result<Replication, NodeError>>),
    TransferLeader(u64),
    Step(Vec<u8>),
    Unreachable(u64),
    SnapshotDone(u64, bool),
    /// A paced snapshot stream wants a fresh round trip to every peer: the
    /// leader sends its heartbeats now, ahead of the next tick.
    Ping,
    /// Old entries raft asked for were read (see the store's fetcher).
    EntriesFetched(raft::GetEntriesContext),
    /// The apply stage applied (and published) up to this index.
    Applied(u64),
    /// A checkpoint at this index is durable: the log may be compacted.
    Checkpointed(u64),
    /// The apply stage or the checkpointer cannot go on: the member stops.
    Failed(String),
    /// A peer refused this member's traffic: it was removed from the cluster.
    RemovedByPeer,
}

/// The sender of an encoded raft message, if it decodes (the bytes stay
/// opaque outside the node).
pub fn message_sender(message: &[u8]) -> Option<u64> {
    use protobuf::Message as _;
    raft::eraftpb::Message::parse_from_bytes(message)
        .ok()
        .map(|m| m.from)
}

/// A handle on the running node; cheap to clone.
#[derive(Clone)]
pub struct Node {
    tx: mpsc::Sender<Request>,
    view: watch::Receiver<View>,
    events: tokio::sync::broadcast::Sender<Arc<EventBatch>>,
    store: Store,
    config: Arc<NodeConfig>,
    tokens: Arc<Tokens>,
}

impl Node {
    /// The simple tokens this member knows.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// The node's current view.
    pub fn view(&self) -> View {
        self.view.borrow().clone()
    }

    /// Reads the view in place, without copying it (its configuration
    /// included): for the few fields each request needs.
    pub fn with_view<T>(&self, read: impl FnOnce(&View) -> T) -> T {
        read(&self.view.borrow())
    }

    /// A receiver that sees every new view.
    pub fn watch(&self) -> watch::Receiver<View> {
        self.view.clone()
    }

    /// A receiver of every applied batch of key changes from now on (it
    /// lags, and must read the store's history, when it falls
    /// [`EVENT_BATCHES`] batches behind).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Arc<EventBatch>> {
        self.events.subscribe()
    }

    /// The store (for local reads).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The node's configuration.
    pub fn config(&self) -> &NodeConfig {
        &self.config
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, NodeError>>) -> Request,
    ) -> Result<T, NodeError> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(make(tx))
            .await
            .map_err(|_| NodeError::Stopped)?;
        rx.await.map_err(|_| NodeError::Stopped)?
    }

    /// Proposes a state-machine command (leader only) and waits until it is applied here.
    pub async fn propose(&self, op: spb::command::Op) -> Result<Applied, NodeError> {
        let _pending = crate::metrics::Pending::start();
        let result = self.ask(|tx| Request::Propose(op, tx)).await;
        if matches!(
            result,
            Err(NodeError::Dropped
                | NodeError::NotAppended
                | NodeError::Stopped
                | NodeError::Storage(_))
        ) {
            crate::metrics::get().proposals_failed.inc();
        }
        result
    }

    /// Proposes a configuration change (leader only) and waits until it is
    /// applied. While an earlier change is still being applied (or a new
    /// leader has not yet applied its first entry), it waits for that, at most
    /// [`CHANGE_WAIT`], rather than failing at once.
    pub async fn change_conf(
        &self,
        changes: Vec<MemberChange>,
        explicit: bool,
        added: Vec<spb::MemberMeta>,
    ) -> Result<Applied, NodeError> {
        let deadline = tokio::time::Instant::now() + CHANGE_WAIT;
        loop {
            let result = self
                .ask(|reply| Request::ConfChange {
                    changes: changes.clone(),
                    explicit,
                    added: added.clone(),
                    reply,
                })
                .await;
            match result {
                Err(NodeError::ChangeInProgress) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                other => return other,
            }
        }
    }

    /// Waits until this node has applied everything the leader had committed
    /// when asked (the leader confirms its leadership first; a follower asks
    /// its leader): a linearizable read may then be served here. Refused
    /// while no leader is known.
    pub async fn read_index(&self) -> Result<(), NodeError> {
        self.ask(Request::ReadIndex).await
    }

    /// The leader's view of every peer's replication, and of its log (leader only).
    pub async fn progress(&self) -> Result<Replication, NodeError> {
        self.ask(Request::Progress).await
    }

    /// Asks the leader to hand leadership to `to` (a voter).
    pub async fn transfer_leader(&self, to: u64) {
        let _ = self.tx.send(Request::TransferLeader(to)).await;
    }

    /// Delivers an encoded raft message from a peer.
    pub async fn step(&self, message: Vec<u8>) -> Result<(), NodeError> {
        self.tx
            .send(Request::Step(message))
            .await
            .map_err(|_| NodeError::Stopped)
    }

    /// Starts storing a snapshot a peer sends, from its encoded raft message
    /// (blocking: it creates a file).
    pub fn stage_snapshot(&self, message: &[u8]) -> Result<SnapshotStaging, StoreError> {
        use protobuf::Message as _;
        let m = raft::eraftpb::Message::parse_from_bytes(message)?;
        if m.get_msg_type() != raft::eraftpb::MessageType::MsgSnapshot {
            return Err(StoreError::other(format!(
                "a snapshot stream began with a {:?} message",
                m.get_msg_type()
            )));
        }
        let md = m.get_snapshot().get_metadata();
        slog::info!(
            crate::log::logger(),
            "receiving a snapshot from the leader at index {} (term {})",
            md.index,
            md.term
        );
        self.store.stage_snapshot(m.get_snapshot())
    }

    /// A peer refused this member's raft traffic because it was removed from
    /// the cluster (the member may have missed its own removal): it stops.
    pub fn removed_by_peer(&self) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(Request::RemovedByPeer).await;
        });
    }

    /// Tells raft that `peer` could not be reached.
    pub fn report_unreachable(&self, peer: u64) {
        let _ = self.tx.try_send(Request::Unreachable(peer));
    }

    /// Asks the leader for a heartbeat to every peer now, ahead of the next
    /// tick: a paced snapshot stream on a short link reads the queues from
    /// their round trips sooner than the heartbeat interval would let it
    /// (see `engine::pacing`). Dropped when the raft thread is busy; does
    /// nothing on a member that does not lead.
    pub fn ping(&self) {
        let _ = self.tx.try_send(Request::Ping);
    }

    /// Tells raft how sending a snapshot to `peer` ended.
    pub fn report_snapshot(&self, peer: u64, ok: bool) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(Request::SnapshotDone(peer, ok)).await;
        });
    }
}
