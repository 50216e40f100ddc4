//! The checkpointer: a thread of its own that writes the states the apply
//! stage hands it as checkpoints, one at a time, and tells the raft thread
//! when one is durable (the log may then be compacted up to it) or that
//! writing it failed (the member stops).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::Request;
use crate::storage::State;
use crate::storage::{checkpoint_sync_failed, Store};

/// The apply stage's handle on the checkpointer.
pub struct Checkpointer {
    tx: SyncSender<Arc<State>>,
    busy: Arc<AtomicBool>,
}

impl Checkpointer {
    /// Starts the thread, writing into `store` and reporting to `raft`.
    pub fn start(store: Store, raft: mpsc::WeakSender<Request>) -> std::io::Result<Checkpointer> {
        let (tx, rx) = sync_channel::<Arc<State>>(1);
        let busy = Arc::new(AtomicBool::new(false));
        let flag = busy.clone();
        std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || {
                for state in rx {
                    let index = state.applied().0;
                    let report = match store.write_checkpoint(&state) {
                        Ok(()) => Request::Checkpointed(index),
                        Err(e) => Request::Failed(failure(&store, index, &e.message)),
                    };
                    drop(state);
                    flag.store(false, Ordering::Release);
                    let Some(raft) = raft.upgrade() else {
                        return;
                    };
                    if raft.blocking_send(report).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Checkpointer { tx, busy })
    }

    /// Has `state` written unless a checkpoint is being written; returns
    /// whether it was taken.
    pub fn write(&self, state: Arc<State>) -> bool {
        if self.busy.swap(true, Ordering::AcqRel) {
            return false;
        }
        if self.tx.try_send(state).is_err() {
            self.busy.store(false, Ordering::Release);
            return false;
        }
        true
    }
}

/// What the member says when a checkpoint could not be written.
fn failure(store: &Store, index: u64, what: &str) -> String {
    let dir = store.layout().snap_dir();
    if checkpoint_sync_failed() {
        return format!(
            "checkpoint at index {index}: fsync failed in {} ({what}): this member stopped so \
             that its log is never compacted past what is not on disk; its raft log holds \
             everything it acknowledged; check the disk, then start the member again",
            dir.display()
        );
    }
    format!(
        "checkpoint at index {index} could not be written in {} ({what}): this member \
         stopped; its raft log holds everything it acknowledged; check the disk (space, \
         permissions), then start the member again",
        dir.display()
    )
}
