//! The apply stage: a thread of its own that takes the committed entries the
//! raft thread hands it, applies them to the state machine in batches (as
//! many as are waiting), publishes the state after each batch, and then
//! tells watchers, answers the proposals and reads waiting for it, tells
//! raft how far it applied and has checkpoints written. Nothing it does
//! holds up the raft thread, and nothing on it waits for a disk.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc};

use super::checkpointer::Checkpointer;
use super::commands::{apply_entries, Committed, EventBatch};
use super::outbox::{peer_list, Outbox};
use super::pending::{Pending, ReadReply, Reply};
use super::tokens::{TokenEvent, Tokens};
use super::Request;
use crate::metrics::ApplyingSnapshot;
use crate::storage::State;
use crate::storage::Store;

/// Entries applied in one batch at most (then the state is published).
const MAX_BATCH: usize = 8192;
/// Longest a paused apply stage (fault injection) stays paused.
const MAX_PAUSE: Duration = Duration::from_secs(120);

/// What the raft thread hands the apply stage, in log order.
pub enum Task {
    /// A proposal appended at `index` with `tag`, and who waits for it.
    Proposed {
        /// Its log index.
        index: u64,
        /// Its tag.
        tag: u64,
        /// Who waits.
        reply: Reply,
    },
    /// Committed entries, in index order.
    Committed(Vec<Committed>),
    /// A read raft confirmed at `index`: answered once applied that far.
    Read {
        /// The read index.
        index: u64,
        /// Who waits.
        reply: ReadReply,
    },
    /// A snapshot raft installed: its state replaces the state machine
    /// (etcd_server_snapshot_apply_in_progress_total until it has).
    Install(Box<State>, ApplyingSnapshot),
}

/// The apply stage's own state.
pub struct ApplyStage {
    /// The state machine being written.
    pub state: State,
    /// Where it is published.
    pub store: Store,
    /// The raft thread's mailbox (weak: the raft thread stops when every
    /// handle on the node is gone).
    pub raft: mpsc::WeakSender<Request>,
    /// Applied key changes, for watchers.
    pub events: broadcast::Sender<Arc<EventBatch>>,
    /// The simple tokens, followed as batches are applied.
    pub tokens: Arc<Tokens>,
    /// The transport, told when members' peer URLs change.
    pub outbox: Arc<dyn Outbox>,
    /// Applied entries between two checkpoints at least.
    pub snapshot_count: u64,
    /// The state's bytes at the last checkpoint asked for (or snapshot
    /// installed), for the leader's progress report.
    pub checkpoint_bytes: Arc<AtomicU64>,
}

/// When the last checkpoint was asked for, and what has been applied since.
struct Since {
    index: u64,
    bytes: i64,
    applied_bytes: u64,
}

impl ApplyStage {
    /// Runs the stage on a thread of its own until the raft thread goes away.
    pub fn start(self, tasks: Receiver<Task>) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("apply".into())
            .spawn(move || self.run(tasks))?;
        Ok(())
    }

    fn run(mut self, tasks: Receiver<Task>) {
        let checkpointer = match Checkpointer::start(self.store.clone(), self.raft.clone()) {
            Ok(c) => c,
            Err(e) => return self.fail(format!("checkpoint thread: {e}")),
        };
        let mut pending = Pending::default();
        let mut since = self.since_now(applied_index(&self.state));
        let mut published = self.store.state();
        while let Ok(first) = tasks.recv() {
            let mut batch: Vec<Committed> = Vec::new();
            let mut next = Some(first);
            while let Some(task) = next.take() {
                match task {
                    Task::Proposed { index, tag, reply } => pending.proposed(index, tag, reply),
                    Task::Read { index, reply } => pending.read_at(index, reply),
                    Task::Committed(mut entries) => batch.append(&mut entries),
                    Task::Install(state, applying) => {
                        if let Err(e) = self.apply(&mut batch, &mut pending, &mut published) {
                            return self.fail(e);
                        }
                        published = self.install(*state, &mut pending);
                        drop(applying);
                        since = self.since_now(applied_index(&self.state));
                    }
                }
                if batch.len() < MAX_BATCH {
                    next = tasks.try_recv().ok();
                }
            }
            since.applied_bytes += batch.iter().map(|c| c.entry.data.len() as u64).sum::<u64>();
            if let Err(e) = self.apply(&mut batch, &mut pending, &mut published) {
                return self.fail(e);
            }
            // A checkpoint once enough was applied since the last, and the
            // log since then holds at least half as much as the state: the
            // checkpoints then write at most twice what the log does.
            let (applied, _) = self.state.applied();
            if applied >= since.index + self.snapshot_count
                && since.applied_bytes.saturating_mul(2) >= since.bytes.max(0) as u64
                && checkpointer.write(published.clone())
            {
                since = self.since_now(applied);
            }
        }
    }

    /// A checkpoint's (or installed snapshot's) starting point at `index`,
    /// the state's bytes now published for the leader's progress report.
    fn since_now(&self, index: u64) -> Since {
        let bytes = self.state.bytes();
        self.checkpoint_bytes
            .store(bytes.max(0) as u64, Ordering::Release);
        Since {
            index,
            bytes,
            applied_bytes: 0,
        }
    }

    /// Applies `batch` (emptying it) and publishes the state, then answers
    /// what waited for it.
    fn apply(
        &mut self,
        batch: &mut Vec<Committed>,
        pending: &mut Pending,
        published: &mut Arc<State>,
    ) -> Result<(), String> {
        if batch.is_empty() {
            pending.applied_to(self.state.applied().0);
            return Ok(());
        }
        wait_while_paused();
        let done = apply_entries(&mut self.state, std::mem::take(batch))
            .map_err(|e| format!("applying committed entries: {}", e.message))?;
        *published = self.publish();
        if let Some(events) = done.events {
            // No receiver is fine; a lagging one reads the history.
            let _ = self.events.send(Arc::new(events));
        }
        if !done.tokens.is_empty() {
            self.tokens.apply(done.tokens);
        }
        if done.peers_changed {
            self.outbox.peers(peer_list(&self.state.members()));
        }
        for (index, tag, result) in done.results {
            pending.applied(index, tag, result);
        }
        let (applied, _) = self.state.applied();
        pending.applied_to(applied);
        self.tell(Request::Applied(applied));
        Ok(())
    }

    /// Publishes the state as applied so far: from here readers, watchers,
    /// snapshots and checkpoints see the batch. The engine's counterpart of
    /// etcd's backend commit (its batch transaction made the readers' and
    /// the disk's), timed into etcd_disk_backend_commit_duration_seconds: a
    /// fixed copy of the persistent maps (a few pointer copies) swapped into
    /// the store, waiting for readers that hold it for a moment. Nothing is
    /// written to disk here (the raft log holds what was applied, and
    /// checkpoints, timed into the same series, make the state durable).
    fn publish(&self) -> Arc<State> {
        let m = crate::metrics::get();
        crate::metrics::timed(&m.backend_commit, || {
            let published = Arc::new(self.state.clone());
            self.store.publish(published.clone());
            published
        })
    }

    /// Replaces the state machine with a snapshot's state.
    fn install(&mut self, state: State, pending: &mut Pending) -> Arc<State> {
        self.state = state;
        let (index, _) = self.state.applied();
        let published = Arc::new(self.state.clone());
        self.store.publish(published.clone());
        pending.snapshot_applied(index);
        pending.applied_to(index);
        // The entries the snapshot replaced may have issued or ended tokens.
        self.tokens.apply(vec![TokenEvent::Cleared]);
        // The revision jumped: watchers read what they missed from the
        // history the snapshot brought.
        let revision = self.state.revision();
        let _ = self.events.send(Arc::new(EventBatch {
            before: revision,
            after: revision,
            changes: vec![],
        }));
        self.outbox.peers(peer_list(&self.state.members()));
        self.tell(Request::Applied(index));
        published
    }

    /// Tells the raft thread, while it runs.
    fn tell(&self, req: Request) {
        if let Some(raft) = self.raft.upgrade() {
            let _ = raft.blocking_send(req);
        }
    }

    /// The state machine cannot go on: the raft thread stops the member.
    fn fail(self, why: String) {
        self.tell(Request::Failed(why));
    }
}

/// The index `state` has applied.
fn applied_index(state: &State) -> u64 {
    state.applied().0
}

/// Waits while fault injection pauses the apply stage (at most [`MAX_PAUSE`]).
fn wait_while_paused() {
    if !crate::storage::apply_paused() {
        return;
    }
    slog::info!(
        crate::log::logger(),
        "fault injection: the apply stage is paused"
    );
    let start = Instant::now();
    while crate::storage::apply_paused() && start.elapsed() < MAX_PAUSE {
        std::thread::sleep(Duration::from_millis(5));
    }
    slog::info!(crate::log::logger(), "the apply stage goes on");
}
