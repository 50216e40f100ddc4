//! Durable storage of the embedded node (redb): the raft log, hard state, conf
//! state and log truncation point, plus the state machine ([`state`]); and
//! raft-rs's [`raft::Storage`] over it. Log appends are fsync'd before they
//! are acknowledged; entry reads stop at the size limit.

pub mod state;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use protobuf::Message as _;
use raft::eraftpb::{ConfState, Entry, HardState, Snapshot};
use raft::{GetEntriesContext, RaftState, StorageError};
use redb::{Database, Durability, ReadableTable, TableDefinition};

use crate::proto::memberctl_store_v1 as spb;

/// Log entries: index → 8-byte big-endian term followed by the encoded entry.
pub(crate) const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
/// Small named values (hard state, conf state, applied index, IDs …).
pub(crate) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// The key-value state machine: key → encoded `KvRecord`.
pub(crate) const KV: TableDefinition<&[u8], &[u8]> = TableDefinition::new("kv");
/// Member metadata: ID → encoded `MemberMeta`.
pub(crate) const MEMBERS: TableDefinition<u64, &[u8]> = TableDefinition::new("members");

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

fn u64_bytes(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

fn bytes_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_be_bytes(a)
}

/// What the store keeps in memory about the log.
#[derive(Clone, Debug, Default)]
struct Cache {
    hard_state: HardState,
    conf_state: ConfState,
    /// Index and term of the last entry removed from the log (snapshot or compaction).
    trunc_index: u64,
    trunc_term: u64,
    last_index: u64,
}

struct Inner {
    db: Database,
    cache: Mutex<Cache>,
    /// The last snapshot built for a follower, reused while it is recent enough.
    built: Mutex<Option<Snapshot>>,
    /// Whether a snapshot is being built in the background.
    building: AtomicBool,
}

/// The node's durable store; cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)?;
        let db = Database::create(dir.join("member.redb"))?;
        let txn = db.begin_write()?;
        {
            txn.open_table(LOG)?;
            txn.open_table(META)?;
            txn.open_table(KV)?;
            txn.open_table(MEMBERS)?;
        }
        txn.commit()?;
        let store = Store {
            inner: Arc::new(Inner {
                db,
                cache: Mutex::new(Cache::default()),
                built: Mutex::new(None),
                building: AtomicBool::new(false),
            }),
        };
        store.load_cache()?;
        Ok(store)
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        self.inner.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn db(&self) -> &Database {
        &self.inner.db
    }

    fn load_cache(&self) -> Result<()> {
        let r = self.inner.db.begin_read()?;
        let meta = r.open_table(META)?;
        let get =
            |k: &str| -> Result<Option<Vec<u8>>> { Ok(meta.get(k)?.map(|v| v.value().to_vec())) };
        let mut c = Cache::default();
        if let Some(b) = get("hard_state")? {
            c.hard_state = HardState::parse_from_bytes(&b)?;
        }
        if let Some(b) = get("conf_state")? {
            c.conf_state = ConfState::parse_from_bytes(&b)?;
        }
        c.trunc_index = get("trunc_index")?.map_or(0, |b| bytes_u64(&b));
        c.trunc_term = get("trunc_term")?.map_or(0, |b| bytes_u64(&b));
        let log = r.open_table(LOG)?;
        c.last_index = match log.last()? {
            Some((k, _)) => k.value(),
            None => c.trunc_index,
        };
        *self.cache() = c;
        Ok(())
    }

    /// A named value from META.
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let r = self.inner.db.begin_read()?;
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
        self.cache().last_index
    }

    /// The current conf state as last applied.
    pub fn conf_state(&self) -> ConfState {
        self.cache().conf_state.clone()
    }

    /// The persisted hard state.
    pub fn hard_state(&self) -> HardState {
        self.cache().hard_state.clone()
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
        let txn = self.inner.db.begin_write()?;
        {
            let mut meta = txn.open_table(META)?;
            meta.insert("cluster_id", u64_bytes(cluster_id).as_slice())?;
            meta.insert("member_id", u64_bytes(member_id).as_slice())?;
            meta.insert("hard_state", hs.write_to_bytes()?.as_slice())?;
            meta.insert("conf_state", cs.write_to_bytes()?.as_slice())?;
            for (k, v) in [
                ("trunc_index", 1u64),
                ("trunc_term", 1),
                ("applied", 1),
                ("applied_term", 1),
            ] {
                meta.insert(k, u64_bytes(v).as_slice())?;
            }
            let mut t = txn.open_table(MEMBERS)?;
            for m in members {
                t.insert(m.id, prost::Message::encode_to_vec(m).as_slice())?;
            }
        }
        txn.commit()?;
        self.load_cache()
    }

    /// Records the IDs of a member joining an existing cluster, and the
    /// members a peer told it of (so it can answer the leader); the state
    /// itself arrives from the leader (a snapshot, then the log).
    pub fn join(&self, cluster_id: u64, member_id: u64, members: &[spb::MemberMeta]) -> Result<()> {
        let txn = self.inner.db.begin_write()?;
        {
            let mut meta = txn.open_table(META)?;
            meta.insert("cluster_id", u64_bytes(cluster_id).as_slice())?;
            meta.insert("member_id", u64_bytes(member_id).as_slice())?;
            let mut t = txn.open_table(MEMBERS)?;
            for m in members {
                t.insert(m.id, prost::Message::encode_to_vec(m).as_slice())?;
            }
        }
        txn.commit()?;
        self.load_cache()
    }

    /// Appends `entries` (replacing any conflicting suffix) and the hard
    /// state in one transaction, fsync'd unless only the commit index moved.
    pub fn persist(&self, entries: &[Entry], hard_state: Option<&HardState>) -> Result<()> {
        if entries.is_empty() && hard_state.is_none() {
            return Ok(());
        }
        // Like etcd's raft (`MustSync`): entries, a new term or a vote must be
        // on disk before anything acknowledges them; a commit index alone need
        // not be (after a crash raft learns it again), and redb orders commits,
        // so the next fsync'd one carries it.
        let must_sync = !entries.is_empty()
            || hard_state.is_some_and(|hs| {
                let c = self.cache();
                hs.term != c.hard_state.term || hs.vote != c.hard_state.vote
            });
        let mut txn = self.inner.db.begin_write()?;
        txn.set_durability(if must_sync {
            Durability::Immediate
        } else {
            Durability::None
        });
        let mut last = self.cache().last_index;
        {
            let mut log = txn.open_table(LOG)?;
            if let Some(first) = entries.first() {
                if first.index <= last {
                    log.retain_in(first.index.., |_, _| false)?;
                }
                for e in entries {
                    let mut v = Vec::with_capacity(8 + e.compute_size() as usize);
                    v.extend_from_slice(&u64_bytes(e.term));
                    e.write_to_vec(&mut v)?;
                    log.insert(e.index, v.as_slice())?;
                }
                last = entries[entries.len() - 1].index;
            }
            if let Some(hs) = hard_state {
                let mut meta = txn.open_table(META)?;
                meta.insert("hard_state", hs.write_to_bytes()?.as_slice())?;
            }
        }
        txn.commit()?;
        let mut c = self.cache();
        c.last_index = last;
        if let Some(hs) = hard_state {
            c.hard_state = hs.clone();
        }
        Ok(())
    }

    /// Persists only the commit index of the hard state (after a light ready).
    pub fn set_commit(&self, commit: u64) -> Result<()> {
        let mut hs = self.hard_state();
        if hs.commit == commit {
            return Ok(());
        }
        hs.commit = commit;
        self.persist(&[], Some(&hs))
    }

    /// Drops log entries up to `index` (already applied and durable in the state machine).
    pub fn compact(&self, index: u64) -> Result<()> {
        let (trunc, last) = {
            let c = self.cache();
            (c.trunc_index, c.last_index)
        };
        if index <= trunc || index > last {
            return Ok(());
        }
        let term = raft::Storage::term(self, index).map_err(|e| StoreError(e.to_string()))?;
        let mut txn = self.inner.db.begin_write()?;
        txn.set_durability(Durability::Immediate);
        {
            let mut log = txn.open_table(LOG)?;
            log.retain_in(..=index, |_, _| false)?;
            let mut meta = txn.open_table(META)?;
            meta.insert("trunc_index", u64_bytes(index).as_slice())?;
            meta.insert("trunc_term", u64_bytes(term).as_slice())?;
        }
        txn.commit()?;
        let mut c = self.cache();
        c.trunc_index = index;
        c.trunc_term = term;
        Ok(())
    }

    /// Replaces everything with a snapshot received from the leader.
    pub fn apply_snapshot(&self, snap: &Snapshot) -> Result<()> {
        let md = snap.get_metadata();
        let data: spb::SnapshotData = prost::Message::decode(snap.get_data())?;
        let mut hs = self.hard_state();
        hs.commit = hs.commit.max(md.index);
        hs.term = hs.term.max(md.term);
        let mut txn = self.inner.db.begin_write()?;
        txn.set_durability(Durability::Immediate);
        {
            txn.open_table(LOG)?.retain(|_, _| false)?;
            state::restore(&txn, &data)?;
            let mut meta = txn.open_table(META)?;
            meta.insert("hard_state", hs.write_to_bytes()?.as_slice())?;
            meta.insert(
                "conf_state",
                md.get_conf_state().write_to_bytes()?.as_slice(),
            )?;
            for (k, v) in [
                ("trunc_index", md.index),
                ("trunc_term", md.term),
                ("applied", md.index),
                ("applied_term", md.term),
            ] {
                meta.insert(k, u64_bytes(v).as_slice())?;
            }
        }
        txn.commit()?;
        self.load_cache()
    }

    /// Records a new conf state (applied in the same transaction as the entry).
    pub(crate) fn set_cached_conf_state(&self, cs: ConfState) {
        self.cache().conf_state = cs;
    }

    /// Builds a snapshot of the state machine at its applied index.
    fn build_snapshot(&self) -> Result<Snapshot> {
        let r = self.inner.db.begin_read()?;
        let meta = r.open_table(META)?;
        let get = |k: &str| -> Result<u64> { Ok(meta.get(k)?.map_or(0, |v| bytes_u64(v.value()))) };
        let applied = get("applied")?;
        let applied_term = get("applied_term")?;
        let cs = match meta.get("conf_state")? {
            Some(v) => ConfState::parse_from_bytes(v.value())?,
            None => ConfState::default(),
        };
        let data = state::dump(&r, get("cluster_id")?)?;
        let mut snap = Snapshot::default();
        snap.set_data(prost::Message::encode_to_vec(&data).into());
        let md = snap.mut_metadata();
        md.index = applied;
        md.term = applied_term;
        md.set_conf_state(cs);
        Ok(snap)
    }
}

fn store_err(e: StoreError) -> raft::Error {
    raft::Error::Store(StorageError::Other(Box::new(e)))
}

impl raft::Storage for Store {
    fn initial_state(&self) -> raft::Result<RaftState> {
        let c = self.cache();
        Ok(RaftState::new(c.hard_state.clone(), c.conf_state.clone()))
    }

    fn entries(
        &self,
        low: u64,
        high: u64,
        max_size: impl Into<Option<u64>>,
        _context: GetEntriesContext,
    ) -> raft::Result<Vec<Entry>> {
        let max_size = max_size.into().unwrap_or(u64::MAX);
        {
            let c = self.cache();
            if low <= c.trunc_index {
                return Err(raft::Error::Store(StorageError::Compacted));
            }
            if high > c.last_index + 1 {
                return Err(raft::Error::Store(StorageError::Unavailable));
            }
        }
        let read = || -> Result<Vec<Entry>> {
            let r = self.inner.db.begin_read()?;
            let log = r.open_table(LOG)?;
            let mut out = Vec::new();
            let mut size = 0u64;
            for item in log.range(low..high)? {
                let (_, v) = item?;
                let bytes = &v.value()[8..];
                size += bytes.len() as u64;
                // Stop at the limit, but always return at least one entry.
                if !out.is_empty() && size > max_size {
                    break;
                }
                out.push(Entry::parse_from_bytes(bytes)?);
            }
            Ok(out)
        };
        read().map_err(store_err)
    }

    fn term(&self, idx: u64) -> raft::Result<u64> {
        {
            let c = self.cache();
            if idx == c.trunc_index {
                return Ok(c.trunc_term);
            }
            if idx < c.trunc_index {
                return Err(raft::Error::Store(StorageError::Compacted));
            }
            if idx > c.last_index {
                return Err(raft::Error::Store(StorageError::Unavailable));
            }
        }
        let read = || -> Result<Option<u64>> {
            let r = self.inner.db.begin_read()?;
            let log = r.open_table(LOG)?;
            Ok(log.get(idx)?.map(|v| bytes_u64(&v.value()[..8])))
        };
        match read().map_err(store_err)? {
            Some(t) => Ok(t),
            None => Err(raft::Error::Store(StorageError::Unavailable)),
        }
    }

    fn first_index(&self) -> raft::Result<u64> {
        Ok(self.cache().trunc_index + 1)
    }

    fn last_index(&self) -> raft::Result<u64> {
        Ok(self.cache().last_index)
    }

    /// A snapshot at least as recent as `request_index`. Building one reads
    /// the whole state machine, so it happens on a background thread while
    /// raft is told to ask again (it does, on the peer's next response); the
    /// raft loop is never blocked by it.
    fn snapshot(&self, request_index: u64, to: u64) -> raft::Result<Snapshot> {
        let truncated = self.cache().trunc_index;
        if let Some(s) = self
            .inner
            .built
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            // Reusable only if recent enough, reaching the log that is kept
            // (the follower goes on from the log after it; raft-rs asks with
            // request_index 0), and taken after `to` joined: a member refuses
            // a snapshot whose configuration does not hold it.
            let md = s.get_metadata();
            let cs = md.get_conf_state();
            let holds = cs.voters.contains(&to)
                || cs.learners.contains(&to)
                || cs.learners_next.contains(&to);
            if md.index >= request_index && md.index >= truncated && holds {
                return Ok(s.clone());
            }
        }
        if !self.inner.building.swap(true, Ordering::AcqRel) {
            let store = self.clone();
            std::thread::spawn(move || {
                if let Ok(snap) = store.build_snapshot() {
                    *store.inner.built.lock().unwrap_or_else(|p| p.into_inner()) = Some(snap);
                }
                store.inner.building.store(false, Ordering::Release);
            });
        }
        Err(raft::Error::Store(
            StorageError::SnapshotTemporarilyUnavailable,
        ))
    }
}

#[cfg(test)]
mod tests;
