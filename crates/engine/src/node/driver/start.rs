//! Starting the raft thread: raft's configuration, the `RawNode` (its first
//! election brought forward in a new cluster), the apply stage, and the
//! thread of its own the driver runs on.

use std::collections::HashMap;
use std::sync::Arc;

use raft::{Config, RawNode};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::{Driver, Stopped};
use crate::node::apply::ApplyStage;
use crate::node::hold::{self, CompactionHold};
use crate::node::outbox::{peer_list, Outbox};
use crate::node::pending::Reads;
use crate::node::tokens::Tokens;
use crate::node::{Node, NodeConfig, Request, View};
use crate::storage::{Store, StoreError};

/// Largest raft message (entries per append).
const MAX_SIZE_PER_MSG: u64 = 1024 * 1024;
/// In-flight appends per follower: small, so a catching-up learner does not
/// crowd out a leader's other traffic.
const MAX_INFLIGHT_MSGS: usize = 4;
/// Mailbox size; senders wait when it is full.
const MAILBOX: usize = 4096;

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
    let mut raw = RawNode::new(&raft_config, store.clone(), crate::log::logger())
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
    let (events, _) = tokio::sync::broadcast::channel(crate::node::EVENT_BATCHES);
    let config = Arc::new(config);
    let tokens = Arc::new(Tokens::new(config.simple_token_ttl));
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
                if crate::storage::log_sync_failed() {
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
