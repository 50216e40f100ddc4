//! Durable storage of the embedded node, in three rooms behind one door.
//!
//! - [`Store`] (this file) is the door: open, load and bootstrap, persist
//!   and compact the log (old files purged off the raft thread), publish
//!   the state the apply stage reached, checkpoints, the database's size and
//!   defragmentation; its snapshot face is in `snapshot_face.rs` and raft-rs's
//!   `raft::Storage` over it in `raft_storage.rs`. Beside it: `error.rs`
//!   (`StoreError` and its kinds, which startup branches on), `layout.rs`
//!   (the directory's layout and format), `faults.rs` (test clusters' fault
//!   switches).
//! - `log/`: the raft log (entries, hard state, truncation point) in
//!   raft-engine's segment files, its in-memory tail, old entries read off
//!   the raft thread, torn tails told from damage.
//! - `state/`: the state machine, a value in persistent maps (the MVCC
//!   keyspace with its history, leases, members, alarms, auth): its reads,
//!   writes, transactions, auth and maintenance.
//! - `values/`: where the state's values are kept (a spill arena of
//!   unnamed files, then the checkpoint's pages, mapped), so a member's
//!   memory is its keys and indexes plus what it reads.
//! - `files/`: snapshot files, checkpoints, raft snapshots streamed out and
//!   staged in, memberctl's older snapshot files, etcd's snapshot files both
//!   ways, `--force-new-cluster`.
//!
//! The rules of the house: `state/` does no I/O and knows no `Store` (nor
//! `log/` or `files/`; it keeps values through `values/`, as it would
//! through an allocator); `values/` knows nothing else of the store; `log/` knows nothing of the state machine; `files/`
//! never holds a `Store` (it takes a `Layout`, a `State` or the log);
//! nothing outside `storage/` names a module in here: every name it uses is
//! in the `pub use` list below.
//!
//! The log and the state are kept consistent by index: every entry is
//! fsync'd to the log before it is applied, a checkpoint records the index
//! it holds, and the log is compacted only up to the newest checkpoint.
//! After a crash the member loads its newest checkpoint and raft applies the
//! log from there.

mod error;
mod faults;
mod files;
mod layout;
mod log;
mod raft_storage;
mod snapshot_face;
mod state;
mod values;

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use raft::eraftpb::{ConfState, HardState};

use self::files::checkpoint;
use self::files::snapshot::{self, Outgoing, StagedSlot};
use self::layout::{Identity, Layout};
use self::log::RaftLog;
use crate::proto::memberctl_store_v1 as spb;

pub use self::error::{Result, StoreError, StoreErrorKind};
/// The fault switches of test clusters (`--fault-injection`).
pub use self::faults::{
    apply_paused, checkpoint_sync_failed, set_ack_before_fsync, set_apply_paused,
    set_disk as set_disk_fault, set_snapshot_chunk_delay, snapshot_chunk_delay,
    sync_failed as log_sync_failed, DiskFault, MAX_SNAPSHOT_CHUNK_DELAY,
};
pub use self::files::backup::{check as check_backup, BackupInfo, MAGIC as MEMBERCTL_MAGIC};
pub use self::files::force::Forced;
pub use self::files::from_etcd::RestoreError;
pub use self::files::snapshot::{SnapshotSource, SnapshotStaging};
pub use self::log::{conf_change, Notify};
pub use self::snapshot_face::{restore_etcd, StartsAt};
pub use self::state::{
    adds_data, bounds, conf_members, AlarmRecord, AuthRefusal, Batch, Change, KvHash, LeaseInfo,
    OpResult, RangeResult, Record, Refusal, State, TxnResult, NOSPACE,
};
/// etcd's auth store, as the services read it: users and roles by name,
/// the root's name and the permission types.
pub use self::state::{
    role as auth_role, user as auth_user, READ as PERM_READ, READWRITE as PERM_READWRITE,
    ROOT as AUTH_ROOT, WRITE as PERM_WRITE,
};

struct Inner {
    layout: Layout,
    /// The cluster's and this member's IDs, once bootstrapped or joined.
    identity: Mutex<Option<Identity>>,
    log: Mutex<RaftLog>,
    /// The state machine as the apply stage last published it.
    state: RwLock<Arc<State>>,
    /// The index of the newest checkpoint: the log is compacted only up to it.
    durable_applied: AtomicU64,
    /// The most the state has held since the start or the last
    /// defragmentation (etcd's dbSize).
    high_water: AtomicI64,
    /// Held while a checkpoint is written (one at a time).
    checkpointing: Mutex<()>,
    /// The snapshot last prepared for a follower, with the state it streams.
    outgoing: Mutex<Option<Outgoing>>,
    /// A snapshot received from the leader, waiting for raft to install it.
    staged: StagedSlot,
    /// The thread purging old log files, if one was started.
    purging: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Reads of old entries for lagging followers, off the raft thread.
    fetcher: log::Fetcher,
}

/// The node's durable store; cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Store {
    /// Opens (or creates) the store in `dir`: checks the directory's format,
    /// opens the log, loads the newest checkpoint, and checks that the two
    /// meet (finishing a snapshot install a crash interrupted).
    pub fn open(dir: &Path) -> Result<Store> {
        let layout = Layout::new(dir);
        values::spill_in(&layout.dir);
        layout.check_or_create()?;
        let log = RaftLog::open(&layout.raft_dir())?;
        let identity = layout.identity()?;
        checkpoint::clear_partial(&layout)?;
        let fetcher = log::Fetcher::new(log.engine());
        let store = Store {
            inner: Arc::new(Inner {
                layout,
                identity: Mutex::new(identity),
                log: Mutex::new(log),
                state: RwLock::new(Arc::new(State::default())),
                durable_applied: AtomicU64::new(0),
                high_water: AtomicI64::new(0),
                checkpointing: Mutex::new(()),
                outgoing: Mutex::new(None),
                staged: StagedSlot::default(),
                purging: Mutex::new(None),
                fetcher,
            }),
        };
        if let Some(id) = identity {
            store.load(id)?;
        }
        Ok(store)
    }

    /// Loads the newest checkpoint of a member and checks it against the
    /// log: the log holds every entry after the checkpoint's index. Entries
    /// up to it were fsync'd to the log before they were applied, so a log
    /// that ends before it, or disagrees with it, lost what it had written.
    fn load(&self, id: Identity) -> Result<()> {
        let st = self.log().state().clone();
        let mut loaded =
            checkpoint::load_newest(self.layout()).map_err(|e| self.damaged(e.message))?;
        let applied = loaded.as_ref().map_or(0, |(_, s)| s.applied().0);
        if applied < st.trunc_index {
            // A crash while a snapshot was being installed: finish it.
            if !snapshot::resume_install(self.layout(), st.trunc_index, st.trunc_term)? {
                return Err(self.damaged(format!(
                    "the newest checkpoint holds the state at index {applied}, but the raft \
                     log starts after {}: the entries in between are lost",
                    st.trunc_index
                )));
            }
            loaded = checkpoint::load_newest(self.layout()).map_err(|e| self.damaged(e.message))?;
        }
        snapshot::clear_received(self.layout())?;
        let state = match loaded {
            Some((_, state)) => state,
            None => State::new(id.cluster_id),
        };
        let (applied, applied_term) = state.applied();
        if applied > 0 {
            let term = self.log().term(applied).ok();
            if applied > st.last_index || term != Some(applied_term) {
                return Err(self.damaged(format!(
                    "the raft log ends at index {} (term {} there), but the newest checkpoint \
                     holds the state at {applied} (term {applied_term}): the log lost entries \
                     it had written (a log file truncated or missing)",
                    st.last_index,
                    term.map_or("unknown".to_string(), |t| t.to_string()),
                )));
            }
        }
        self.inner.durable_applied.store(applied, Ordering::Release);
        self.publish(Arc::new(state));
        Ok(())
    }

    fn damaged(&self, what: String) -> StoreError {
        StoreError::damaged(format!(
            "{}: {what}; the directory is damaged",
            self.inner.layout.dir.display()
        ))
    }

    fn log(&self) -> MutexGuard<'_, RaftLog> {
        lock(&self.inner.log)
    }

    /// The data directory's layout.
    pub fn layout(&self) -> &Layout {
        &self.inner.layout
    }

    /// The state machine as last published: a fixed state, read without
    /// holding anything up.
    pub fn state(&self) -> Arc<State> {
        self.inner
            .state
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Publishes the state the apply stage has reached.
    pub fn publish(&self, state: Arc<State>) {
        let bytes = state.bytes();
        *self.inner.state.write().unwrap_or_else(|p| p.into_inner()) = state;
        self.inner.high_water.fetch_max(bytes, Ordering::AcqRel);
    }

    /// This member's ID, once the store has been bootstrapped or joined.
    pub fn member_id(&self) -> Option<u64> {
        lock(&self.inner.identity).map(|i| i.member_id)
    }

    /// The cluster ID (0 before the store was bootstrapped or joined).
    pub fn cluster_id(&self) -> u64 {
        lock(&self.inner.identity).map_or(0, |i| i.cluster_id)
    }

    /// The index of the last entry the published state has applied.
    pub fn applied(&self) -> u64 {
        self.state().applied().0
    }

    /// The last index in the log (or the truncation point when it is empty).
    pub fn last_index(&self) -> u64 {
        self.log().state().last_index
    }

    /// The conf state as of the published state.
    pub fn conf_state(&self) -> ConfState {
        self.state().conf_state().clone()
    }

    /// The hard state (its commit index as raft last reported it).
    pub fn hard_state(&self) -> HardState {
        self.log().state().hard_state.clone()
    }

    /// Every member's metadata, sorted by ID.
    pub fn members(&self) -> Vec<spb::MemberMeta> {
        self.state().members()
    }

    /// Bootstraps a member of a new cluster: every initial member writes the
    /// same state, a checkpoint at index 1 (term 1) holding the voters.
    pub fn bootstrap(
        &self,
        cluster_id: u64,
        member_id: u64,
        members: &[spb::MemberMeta],
    ) -> Result<()> {
        self.bootstrap_with(State::new(cluster_id), member_id, members)
    }

    /// Bootstraps a member of a new cluster whose state starts as `state`
    /// (its data; `members` become its membership, every one a voter): a
    /// checkpoint of it at index 1 (term 1), a log that starts after it.
    /// Refused on a store that already holds a member.
    fn bootstrap_with(
        &self,
        mut state: State,
        member_id: u64,
        members: &[spb::MemberMeta],
    ) -> Result<()> {
        if self.member_id().is_some() {
            return Err(StoreError::other(format!(
                "{} already holds a member: restore into a new data directory",
                self.layout().dir.display()
            )));
        }
        state.members = members
            .iter()
            .map(|m| (m.id, Arc::new(m.clone())))
            .collect();
        // A new cluster: the old one's removed members mean nothing here.
        state.removed = Default::default();
        state.conf_state = Arc::new(ConfState {
            voters: members.iter().map(|m| m.id).collect(),
            ..Default::default()
        });
        state.applied = 1;
        state.applied_term = 1;
        let hs = HardState {
            term: 1,
            commit: 1,
            ..Default::default()
        };
        self.log().reset(1, 1, &hs)?;
        self.write_checkpoint(&state)?;
        self.set_identity(state.cluster_id, member_id)?;
        self.publish(Arc::new(state));
        Ok(())
    }

    /// Records the IDs of a member joining an existing cluster, and the
    /// members a peer told it of (so it can answer the leader); the state
    /// itself arrives from the leader (a snapshot, then the log).
    pub fn join(&self, cluster_id: u64, member_id: u64, members: &[spb::MemberMeta]) -> Result<()> {
        let mut state = State::new(cluster_id);
        state.members = members
            .iter()
            .map(|m| (m.id, Arc::new(m.clone())))
            .collect();
        self.write_checkpoint(&state)?;
        self.set_identity(cluster_id, member_id)?;
        self.publish(Arc::new(state));
        Ok(())
    }

    fn set_identity(&self, cluster_id: u64, member_id: u64) -> Result<()> {
        let id = Identity {
            cluster_id,
            member_id,
        };
        self.layout().write_identity(id)?;
        *lock(&self.inner.identity) = Some(id);
        Ok(())
    }

    /// Appends `entries` (replacing any conflicting suffix) and the hard
    /// state in one write to the log, fdatasync'd when `sync` (raft's
    /// `must_sync`: entries, a new term or a vote).
    pub fn persist(
        &self,
        entries: &[raft::eraftpb::Entry],
        hard_state: Option<&HardState>,
        sync: bool,
    ) -> Result<()> {
        let append = || self.log().append(entries, hard_state, sync);
        let purge = if sync {
            let m = crate::metrics::get();
            crate::metrics::timed(&m.wal_fsync, append)?
        } else {
            append()?
        };
        if purge {
            self.purge();
        }
        Ok(())
    }

    /// Notes a new commit index (after a light ready); it is written with
    /// the next write to the log (after a crash raft learns it again).
    pub fn set_commit(&self, commit: u64) -> Result<()> {
        let mut hs = self.hard_state();
        if hs.commit == commit {
            return Ok(());
        }
        hs.commit = commit;
        self.persist(&[], Some(&hs), false)
    }

    /// The index of the newest checkpoint.
    pub fn durable_applied(&self) -> u64 {
        self.inner.durable_applied.load(Ordering::Acquire)
    }

    /// Drops log entries up to `index` (at most the newest checkpoint's).
    /// The drop is written with the log's next fsync'd write, and old
    /// segment files are purged after it on a thread of their own.
    pub fn compact(&self, index: u64) -> Result<()> {
        let index = index.min(self.durable_applied());
        self.log().compact(index)
    }

    /// Purges segment files that hold nothing live, on a thread of its own
    /// (unless one is at it already).
    fn purge(&self) {
        let mut purging = lock(&self.inner.purging);
        if purging.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        let engine = self.log().engine();
        // A failed purge (or none started) leaves files behind; the next retries.
        *purging = std::thread::Builder::new()
            .name("raft-log-purge".into())
            .spawn(move || {
                let _ = RaftLog::purge(&engine);
            })
            .ok();
    }

    /// Writes `state` as the newest checkpoint (the log first made durable
    /// up to it); the log may then be compacted up to its index.
    pub fn write_checkpoint(&self, state: &State) -> Result<()> {
        let _one = lock(&self.inner.checkpointing);
        let index = state.applied().0;
        if index > 0 && index < self.durable_applied() {
            // A newer one was written meanwhile.
            return Ok(());
        }
        self.log().sync()?;
        let m = crate::metrics::get();
        crate::metrics::timed(&m.backend_commit, || {
            checkpoint::write(self.layout(), state)
        })?;
        self.inner
            .durable_applied
            .fetch_max(index, Ordering::AcqRel);
        Ok(())
    }

    /// Makes everything applied durable: a checkpoint of the published state
    /// (etcd's physical compaction waits for this).
    pub fn flush(&self) -> Result<()> {
        let state = self.state();
        self.write_checkpoint(&state)
    }

    /// The size etcd reports as its database's (dbSize): the most the
    /// state has held since the member started or was last defragmented
    /// (a database file does not shrink when history is compacted).
    pub fn db_size(&self) -> i64 {
        let in_use = self.db_size_in_use();
        self.inner
            .high_water
            .fetch_max(in_use, std::sync::atomic::Ordering::AcqRel)
            .max(in_use)
    }

    /// How many live keys the state holds.
    pub fn key_count(&self) -> u64 {
        self.state().key_count()
    }

    /// The size of what the state holds (etcd's dbSizeInUse): its key
    /// history as a snapshot file holds it.
    pub fn db_size_in_use(&self) -> i64 {
        self.state().bytes()
    }

    /// etcd's Defragment: a new checkpoint of the state as it is now (only
    /// what is live) replaces the last one, the reported size comes down
    /// to what is in use, and the memory freed since (a compaction's history)
    /// goes back to the system. Returns the size before and after.
    pub fn defragment(&self) -> Result<(u64, u64)> {
        let before = self.db_size() as u64;
        let state = self.state();
        self.write_checkpoint(&state)?;
        let after = state.bytes();
        drop(state);
        self.inner
            .high_water
            .store(after, std::sync::atomic::Ordering::Release);
        give_back_free_memory();
        Ok((before, after as u64))
    }

    /// Sets what raft is told when old entries it asked for were read off
    /// its thread; until then they are read on it.
    pub fn set_fetch_notify(&self, notify: Notify) {
        self.inner.fetcher.set_notify(notify);
    }

    /// etcd's `--force-new-cluster`: rewrites the log so that member `me`
    /// is the cluster's only member (see `files::force`).
    pub fn force_new_cluster(&self, me: u64) -> Result<Forced> {
        files::force::force_new_cluster(&mut self.log(), &self.state(), me)
    }

    /// Writes what the log holds back (`--fault-ack-before-fsync`; nothing
    /// otherwise), before a clean stop.
    pub fn sync_log(&self) -> Result<()> {
        self.log().sync()
    }
}

/// Hands the heap's free memory back to the system, as etcd's defragment
/// gives back its file's free pages: glibc otherwise keeps what was freed
/// (a compacted history, say) for reuse, and it stays in the member's RSS.
fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl Drop for Inner {
    /// The log is closed only once its purge has ended (a store opened
    /// again on the directory finds it free).
    fn drop(&mut self) {
        if let Some(h) = lock(&self.purging).take() {
            let _ = h.join();
        }
    }
}

/// Applies `f` to the published state as the apply stage would, records
/// `applied` (term 2) and publishes the result (for the storage tests).
#[cfg(test)]
fn apply_published<T>(s: &Store, applied: u64, f: impl FnOnce(&mut Batch<'_>) -> T) -> T {
    let mut state = (*s.state()).clone();
    let mut a = Batch::begin(&mut state);
    let out = f(&mut a);
    a.finish(applied, 2, None);
    s.publish(Arc::new(state));
    out
}

#[cfg(test)]
mod tests;
