//! Durable storage of the embedded node: the raft log (entries, hard state,
//! truncation point) in an append-only segmented log ([`log`], raft-engine)
//! with an in-memory tail ([`cache`]) and a torn-tail guard ([`guard`]); the state machine in redb:
//! the MVCC keyspace and leases ([`mvcc`], [`txn`]), members, applied index
//! and conf state ([`state`]); snapshots streamed in
//! chunks ([`snapshot`]); the directory's layout and format ([`layout`]); and
//! raft-rs's [`raft::Storage`] over them ([`raft_storage`]).
//!
//! The two stores are kept consistent by index: the state machine records the
//! index it applied in the same transaction as the change, applied
//! transactions are made durable now and then, and the log is compacted only
//! up to what is durably applied. After a crash the state machine is at its
//! last durable applied index and raft applies the log again from there.

pub mod auth;
pub mod backup;
pub mod cache;
pub mod faults;
pub mod guard;
pub mod layout;
pub mod log;
pub mod maintenance;
pub mod mvcc;
pub mod raft_storage;
pub mod snapshot;
pub mod state;
pub mod txn;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use protobuf::Message as _;
use raft::eraftpb::{ConfState, HardState};
use redb::{Database, Durability, ReadableTable, TableDefinition, WriteTransaction};

use self::layout::Layout;
use self::log::RaftLog;
use self::snapshot::Outgoing;
use crate::proto::memberctl_store_v1 as spb;

/// Small named values (conf state, applied index, IDs, revision …).
pub(crate) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Member metadata: ID → encoded `MemberMeta`.
pub(crate) const MEMBERS: TableDefinition<u64, &[u8]> = TableDefinition::new("members");
/// Memory redb may use for its page cache (the OS caches the file too).
const DB_CACHE_BYTES: usize = 64 << 20;

/// A storage failure; the node cannot go on safely after one.
#[derive(Debug, thiserror::Error)]
#[error("storage: {0}")]
pub struct StoreError(pub String);

macro_rules! from_err {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError(e.to_string())
            }
        }
    )*};
}
from_err!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    protobuf::ProtobufError,
    prost::DecodeError,
    std::io::Error
);

/// Result of storage operations.
pub type Result<T> = std::result::Result<T, StoreError>;

pub(crate) fn u64_bytes(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

pub(crate) fn bytes_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_be_bytes(a)
}

/// A named u64 in a META table, read or written (0 when absent).
pub(crate) fn meta_u64_in(
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<u64> {
    Ok(meta.get(key)?.map_or(0, |v| bytes_u64(v.value())))
}

/// Opens (or creates) a state-machine database with its tables.
pub(crate) fn open_db(path: &Path) -> Result<Database> {
    let db = redb::Builder::new()
        .set_cache_size(DB_CACHE_BYTES)
        .create(path)?;
    let txn = db.begin_write()?;
    {
        txn.open_table(META)?;
        txn.open_table(MEMBERS)?;
        txn.open_table(mvcc::KV)?;
        txn.open_table(mvcc::REVS)?;
        txn.open_table(mvcc::EVENTS)?;
        txn.open_table(mvcc::LEASES)?;
        txn.open_table(mvcc::LEASE_KEYS)?;
        txn.open_table(maintenance::ALARMS)?;
    }
    txn.commit()?;
    Ok(db)
}

struct Inner {
    layout: Layout,
    /// The state machine; replaced whole when a snapshot is installed.
    db: RwLock<Arc<Database>>,
    log: Mutex<RaftLog>,
    /// The conf state as last applied.
    conf_state: Mutex<ConfState>,
    /// The applied index last made durable: the log is compacted only up to it.
    durable_applied: AtomicU64,
    /// The snapshot last prepared for a follower, with the read it streams from.
    outgoing: Mutex<Option<Outgoing>>,
    /// Whether old log files are being purged.
    purging: Arc<AtomicBool>,
    /// Held by whatever writes the state machine (applies, snapshot
    /// installs, defragmentation), so a file being replaced misses no write.
    writer: Mutex<()>,
    /// The bytes of the state machine's file in use, when last counted.
    in_use: Mutex<Option<(std::time::Instant, i64)>>,
    /// The auth state as last applied.
    auth: Mutex<Arc<crate::proto::memberctl_store_v1::AuthState>>,
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
    /// opens the log and the state machine, and brings them in line (a log
    /// that ends before the applied index starts again after it).
    pub fn open(dir: &Path) -> Result<Store> {
        let layout = Layout::new(dir);
        layout.check_or_create()?;
        let log = RaftLog::open(&layout.raft_dir())?;
        let db = open_db(&layout.state_file())?;
        let store = Store {
            inner: Arc::new(Inner {
                layout,
                db: RwLock::new(Arc::new(db)),
                log: Mutex::new(log),
                conf_state: Mutex::new(ConfState::default()),
                durable_applied: AtomicU64::new(0),
                outgoing: Mutex::new(None),
                purging: Arc::new(AtomicBool::new(false)),
                writer: Mutex::new(()),
                in_use: Mutex::new(None),
                auth: Mutex::new(Arc::default()),
            }),
        };
        // What a crash left applied but not durable is gone from redb: make
        // the state as opened durable, so compaction may rely on it.
        store.apply_with(true, |_| Ok(()))?;
        store.reconcile()?;
        store.refresh_auth()?;
        snapshot::clear_staged(store.layout())?;
        Ok(store)
    }

    /// Loads the conf state and checks that the log and the state machine
    /// meet: the log holds every entry after the applied index. Entries up to
    /// it were fsync'd to the log before they were applied, so a log that
    /// ends before it, or disagrees with it, lost what it had written.
    fn reconcile(&self) -> Result<()> {
        let mut applied = self.applied()?;
        let st = self.log().state().clone();
        // Not a member yet (or a crash during bootstrap or join, which run again).
        let member = self.member_id()?.is_some();
        if member && applied < st.trunc_index {
            // A crash while a snapshot was being installed: finish it.
            if !self.resume_install(st.trunc_index, st.trunc_term)? {
                return Err(self.damaged(format!(
                    "the state machine has applied up to {applied}, but the raft log starts \
                     after {}: the entries in between are lost",
                    st.trunc_index
                )));
            }
            applied = self.applied()?;
        }
        *lock(&self.inner.conf_state) = match self.meta("conf_state")? {
            Some(b) => ConfState::parse_from_bytes(&b)?,
            None => ConfState::default(),
        };
        self.inner.durable_applied.store(applied, Ordering::Release);
        if !member || applied == 0 {
            return Ok(());
        }
        let applied_term = self.meta_u64("applied_term")?;
        let term = self.log().term(applied).ok();
        if applied > st.last_index || term != Some(applied_term) {
            return Err(self.damaged(format!(
                "the raft log ends at index {} (term {} there), but the state machine has \
                 applied up to {applied} (term {applied_term}): the log lost entries it had \
                 written (a log file truncated or missing)",
                st.last_index,
                term.map_or("unknown".to_string(), |t| t.to_string()),
            )));
        }
        Ok(())
    }

    fn damaged(&self, what: String) -> StoreError {
        StoreError(format!(
            "{}: {what}; the directory is damaged",
            self.inner.layout.dir.display()
        ))
    }

    fn log(&self) -> MutexGuard<'_, RaftLog> {
        lock(&self.inner.log)
    }

    /// The state machine's database.
    pub(crate) fn db(&self) -> Arc<Database> {
        self.inner
            .db
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The data directory's layout.
    pub fn layout(&self) -> &Layout {
        &self.inner.layout
    }

    /// A named value from META.
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let r = self.db().begin_read()?;
        let meta = r.open_table(META)?;
        Ok(meta.get(key)?.map(|v| v.value().to_vec()))
    }

    /// A named u64 from META (0 when absent).
    pub fn meta_u64(&self, key: &str) -> Result<u64> {
        Ok(self.meta(key)?.map_or(0, |b| bytes_u64(&b)))
    }

    /// This member's ID, once the store has been bootstrapped or joined.
    pub fn member_id(&self) -> Result<Option<u64>> {
        Ok(self.meta("member_id")?.map(|b| bytes_u64(&b)))
    }

    /// The cluster ID.
    pub fn cluster_id(&self) -> Result<u64> {
        self.meta_u64("cluster_id")
    }

    /// The index of the last applied entry.
    pub fn applied(&self) -> Result<u64> {
        self.meta_u64("applied")
    }

    /// The last index in the log (or the truncation point when it is empty).
    pub fn last_index(&self) -> u64 {
        self.log().state().last_index
    }

    /// The current conf state as last applied.
    pub fn conf_state(&self) -> ConfState {
        lock(&self.inner.conf_state).clone()
    }

    /// The hard state (its commit index as raft last reported it).
    pub fn hard_state(&self) -> HardState {
        self.log().state().hard_state.clone()
    }

    /// Bootstraps a member of a new cluster: every initial member writes the
    /// same state, a snapshot point at index 1 (term 1) holding the voters.
    pub fn bootstrap(
        &self,
        cluster_id: u64,
        member_id: u64,
        members: &[spb::MemberMeta],
    ) -> Result<()> {
        let cs = ConfState {
            voters: members.iter().map(|m| m.id).collect(),
            ..Default::default()
        };
        let hs = HardState {
            term: 1,
            commit: 1,
            ..Default::default()
        };
        self.log().reset(1, 1, &hs)?;
        self.apply_with(true, |txn| {
            let mut meta = txn.open_table(META)?;
            meta.insert("cluster_id", u64_bytes(cluster_id).as_slice())?;
            meta.insert("member_id", u64_bytes(member_id).as_slice())?;
            meta.insert("conf_state", cs.write_to_bytes()?.as_slice())?;
            for (k, v) in [("applied", 1u64), ("applied_term", 1)] {
                meta.insert(k, u64_bytes(v).as_slice())?;
            }
            let mut t = txn.open_table(MEMBERS)?;
            for m in members {
                t.insert(m.id, prost::Message::encode_to_vec(m).as_slice())?;
            }
            Ok(())
        })?;
        self.reconcile()
    }

    /// Records the IDs of a member joining an existing cluster, and the
    /// members a peer told it of (so it can answer the leader); the state
    /// itself arrives from the leader (a snapshot, then the log).
    pub fn join(&self, cluster_id: u64, member_id: u64, members: &[spb::MemberMeta]) -> Result<()> {
        self.apply_with(true, |txn| {
            let mut meta = txn.open_table(META)?;
            meta.insert("cluster_id", u64_bytes(cluster_id).as_slice())?;
            meta.insert("member_id", u64_bytes(member_id).as_slice())?;
            let mut t = txn.open_table(MEMBERS)?;
            for m in members {
                t.insert(m.id, prost::Message::encode_to_vec(m).as_slice())?;
            }
            Ok(())
        })
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
        self.log().append(entries, hard_state, sync)
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

    /// The applied index last made durable.
    pub fn durable_applied(&self) -> u64 {
        self.inner.durable_applied.load(Ordering::Acquire)
    }

    /// Drops log entries up to `index`, which must be durably applied; old
    /// segment files are then purged on a thread of their own.
    pub fn compact(&self, index: u64) -> Result<()> {
        let index = index.min(self.durable_applied());
        let engine = {
            let mut log = self.log();
            log.compact(index)?;
            log.engine()
        };
        let purging = self.inner.purging.clone();
        if !purging.swap(true, Ordering::AcqRel) {
            let spawned = std::thread::Builder::new()
                .name("raft-log-purge".into())
                .spawn(move || {
                    // A failed purge leaves files behind; the next one retries.
                    let _ = RaftLog::purge(&engine);
                    purging.store(false, Ordering::Release);
                });
            if spawned.is_err() {
                self.inner.purging.store(false, Ordering::Release);
            }
        }
        Ok(())
    }

    /// Records a new conf state (applied in the same transaction as the entry).
    pub(crate) fn set_cached_conf_state(&self, cs: ConfState) {
        *lock(&self.inner.conf_state) = cs;
    }

    /// Runs `f` on a new write transaction of the state machine and commits
    /// it: fsync'd when `durable` (then the applied index it records is the
    /// new durable one), otherwise not (the log holds what it applied; after
    /// a crash raft applies it again from the last durable index).
    pub fn apply_with<T>(
        &self,
        durable: bool,
        f: impl FnOnce(&WriteTransaction) -> Result<T>,
    ) -> Result<T> {
        let _writer = lock(&self.inner.writer);
        if durable {
            self.log().sync()?;
        }
        let db = self.db();
        let mut txn = db.begin_write()?;
        if durable {
            txn.set_durability(Durability::Immediate);
            // Records the allocator state, so an open after a crash needs no
            // full repair.
            txn.set_quick_repair(true);
        } else {
            txn.set_durability(Durability::None);
        }
        let out = f(&txn)?;
        let applied = if durable {
            Some(meta_u64_in(&txn.open_table(META)?, "applied")?)
        } else {
            None
        };
        txn.commit()?;
        if let Some(applied) = applied {
            self.inner.durable_applied.store(applied, Ordering::Release);
        }
        Ok(out)
    }

    /// Makes everything applied durable (before a clean stop).
    pub fn flush(&self) -> Result<()> {
        self.apply_with(true, |_| Ok(()))
    }
}

#[cfg(test)]
mod tests;
