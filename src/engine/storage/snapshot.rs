//! Snapshots as streams. The leader prepares one by opening a read of the
//! state machine (redb's reads are consistent and do not block writers), so
//! raft's loop copies nothing; the key history (every kept revision) is read in chunks only as the
//! stream to the follower takes them. The follower writes the chunks into a
//! new database file in `snap/` as they arrive and, once raft accepts the
//! snapshot, installs it by renaming that file over its state machine:
//! neither side holds the whole state in memory.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::{ConfState, Snapshot};
use redb::{Database, Durability, ReadTransaction, ReadableTable};

use super::layout::{sync_dir, Layout, FORMAT};
use super::maintenance::{alarm_records, ALARMS};
use super::mvcc::{EVENTS, KV, LEASES, LEASE_KEYS, REVS};
use super::{meta_u64_in, open_db, u64_bytes, Result, Store, StoreError, MEMBERS, META};
use crate::proto::memberctl_store_v1 as spb;

/// Bytes of keys in one chunk (about; a chunk holds whole records).
pub const CHUNK_BYTES: usize = 1 << 20;

/// A snapshot prepared for followers: its raft message and the read its
/// keys come from. The read is held here only until a stream takes it; then
/// only the streams hold it, so it ends with the last of them (an open redb
/// read keeps every page it sees from being reused).
pub(super) struct Outgoing {
    snapshot: Snapshot,
    read: Option<Arc<ReadTransaction>>,
    streaming: Weak<ReadTransaction>,
}

impl Outgoing {
    /// The read, while it is held here or by a stream.
    fn read(&self) -> Option<Arc<ReadTransaction>> {
        self.read.clone().or_else(|| self.streaming.upgrade())
    }
}

/// What a read of the state machine holds besides the keys: the snapshot
/// header, the applied index and term, and the conf state.
pub(super) fn read_header(
    read: &ReadTransaction,
) -> Result<(spb::SnapshotHeader, u64, u64, ConfState)> {
    let meta = read.open_table(META)?;
    let get = |k: &str| meta_u64_in(&meta, k);
    let cs = match meta.get("conf_state")? {
        Some(v) => ConfState::parse_from_bytes(v.value())?,
        None => ConfState::default(),
    };
    let mut members = Vec::new();
    for item in read.open_table(MEMBERS)?.iter()? {
        members.push(spb::MemberMeta::decode(item?.1.value())?);
    }
    let mut leases = Vec::new();
    for item in read.open_table(LEASES)?.iter()? {
        leases.push(spb::LeaseRecord::decode(item?.1.value())?);
    }
    let mut alarms = Vec::new();
    for item in read.open_table(ALARMS)?.iter()? {
        let (member_id, alarm) = item?.0.value();
        alarms.push(spb::AlarmRecord { member_id, alarm });
    }
    let header = spb::SnapshotHeader {
        format: FORMAT,
        cluster_id: get("cluster_id")?,
        revision: get("revision")?.max(1) as i64,
        members,
        compact_revision: get("compact_revision")? as i64,
        leases,
        alarms,
        auth: Some(super::auth::read_state(&meta)?),
    };
    Ok((header, get("applied")?, get("applied_term")?, cs))
}

/// Where the keys of a snapshot being sent come from.
pub struct SnapshotSource {
    pub(super) read: Arc<ReadTransaction>,
}

impl SnapshotSource {
    /// Reads the key history in (key, revision) order, in chunks of about
    /// [`CHUNK_BYTES`], handing each encoded `SnapshotChunk` to `emit`;
    /// returns how many records went, or None when `emit` returned false (the
    /// receiver went away) and it stopped.
    pub fn read(&self, mut emit: impl FnMut(Vec<u8>) -> bool) -> Result<Option<u64>> {
        let table = self.read.open_table(REVS)?;
        let mut keys = 0u64;
        let mut chunk = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
        for item in table.iter()? {
            let (_, v) = item?;
            // The stored value is an encoded KvRecord: it goes as it is, as
            // one element of `repeated KvRecord kvs = 1`.
            let record = v.value();
            prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut chunk);
            prost::encoding::encode_varint(record.len() as u64, &mut chunk);
            chunk.extend_from_slice(record);
            keys += 1;
            if chunk.len() >= CHUNK_BYTES
                && !emit(std::mem::replace(
                    &mut chunk,
                    Vec::with_capacity(CHUNK_BYTES + 64 * 1024),
                ))
            {
                return Ok(None);
            }
        }
        if !chunk.is_empty() && !emit(chunk) {
            return Ok(None);
        }
        Ok(Some(keys))
    }
}

fn holds(cs: &ConfState, id: u64) -> bool {
    cs.voters.contains(&id) || cs.learners.contains(&id) || cs.learners_next.contains(&id)
}

fn staged_name(index: u64, term: u64) -> String {
    format!("{index:020}-{term:020}.redb")
}

/// Removes snapshots staged before a restart (the leader sends again).
pub(super) fn clear_staged(layout: &Layout) -> Result<()> {
    let dir = layout.snap_dir();
    if dir.exists() {
        for e in std::fs::read_dir(&dir)? {
            std::fs::remove_file(e?.path())?;
        }
    } else {
        std::fs::create_dir_all(&dir)?;
    }
    Ok(())
}

impl Store {
    /// A snapshot at the applied index for `to`, or None while the state
    /// machine is behind `request_index` or its configuration lacks `to`.
    /// A recent one is reused (several learners share it).
    pub(super) fn prepare_snapshot(&self, request_index: u64, to: u64) -> Result<Option<Snapshot>> {
        let trunc = self.log().state().trunc_index;
        let mut outgoing = super::lock(&self.inner.outgoing);
        if let Some(o) = outgoing.as_mut() {
            let md = o.snapshot.get_metadata();
            let fits = md.index >= request_index && md.index >= trunc;
            if fits && holds(md.get_conf_state(), to) {
                if let Some(read) = o.read() {
                    o.read = Some(read);
                    return Ok(Some(o.snapshot.clone()));
                }
            }
        }
        let read = self.db().begin_read()?;
        let (snapshot, applied) = {
            let (header, applied, term, cs) = read_header(&read)?;
            if applied < request_index || applied < trunc || !holds(&cs, to) {
                return Ok(None);
            }
            let mut snap = Snapshot::default();
            snap.set_data(header.encode_to_vec().into());
            let md = snap.mut_metadata();
            md.index = applied;
            md.term = term;
            md.set_conf_state(cs);
            (snap, applied)
        };
        debug_assert!(applied > 0);
        let read = Arc::new(read);
        *outgoing = Some(Outgoing {
            snapshot: snapshot.clone(),
            streaming: Arc::downgrade(&read),
            read: Some(read),
        });
        Ok(Some(snapshot))
    }

    /// The source of the keys of the snapshot at `index` (`term`) prepared
    /// last, if it is that one.
    pub fn snapshot_source(&self, index: u64, term: u64) -> Option<SnapshotSource> {
        let mut outgoing = super::lock(&self.inner.outgoing);
        let o = outgoing.as_mut()?;
        let md = o.snapshot.get_metadata();
        if md.index != index || md.term != term {
            return None;
        }
        let read = o.read.take().or_else(|| o.streaming.upgrade())?;
        Some(SnapshotSource { read })
    }

    /// Starts receiving `snap` (from raft's snapshot message): a new database
    /// file holding its header, to which [`SnapshotStaging::write`] adds the keys.
    pub fn stage_snapshot(&self, snap: &Snapshot) -> Result<SnapshotStaging> {
        let header = spb::SnapshotHeader::decode(snap.get_data())?;
        if header.format != FORMAT {
            return Err(StoreError(format!(
                "snapshot in storage format {} refused: this member reads format {FORMAT}; run \
                 the same memberctl on every member",
                header.format
            )));
        }
        let cluster_id = self.cluster_id()?;
        if cluster_id != 0 && header.cluster_id != cluster_id {
            return Err(StoreError(format!(
                "snapshot of cluster {:x} refused: this member belongs to cluster {cluster_id:x}",
                header.cluster_id
            )));
        }
        let md = snap.get_metadata();
        let dir = self.layout().snap_dir();
        std::fs::create_dir_all(&dir)?;
        let name = staged_name(md.index, md.term);
        // Unique: a retried stream may start while the last one is ending.
        static STAGINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = STAGINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = dir.join(format!("{name}.{n}.partial"));
        let db = open_db(&partial)?;
        let txn = db.begin_write()?;
        {
            let mut meta = txn.open_table(META)?;
            let member_id = self.member_id()?.unwrap_or(0);
            for (k, v) in [
                ("cluster_id", header.cluster_id),
                ("member_id", member_id),
                ("applied", md.index),
                ("applied_term", md.term),
                ("revision", header.revision as u64),
                ("compact_revision", header.compact_revision as u64),
            ] {
                meta.insert(k, u64_bytes(v).as_slice())?;
            }
            meta.insert(
                "conf_state",
                md.get_conf_state().write_to_bytes()?.as_slice(),
            )?;
            if let Some(auth) = &header.auth {
                meta.insert(super::auth::AUTH_KEY, auth.encode_to_vec().as_slice())?;
            }
            let mut members = txn.open_table(MEMBERS)?;
            for m in &header.members {
                members.insert(m.id, m.encode_to_vec().as_slice())?;
            }
            let mut leases = txn.open_table(LEASES)?;
            for l in &header.leases {
                leases.insert(l.id as u64, l.encode_to_vec().as_slice())?;
            }
            let mut alarms = txn.open_table(ALARMS)?;
            for a in alarm_records(&header) {
                alarms.insert(a, ())?;
            }
        }
        txn.commit()?;
        Ok(SnapshotStaging {
            db: Some(db),
            txn: None,
            newest: None,
            uncommitted: 0,
            unsynced: 0,
            staged: dir.join(name),
            partial,
            dir,
            keys: 0,
        })
    }

    /// Installs the snapshot raft accepted: the log starts after it, then
    /// its staged file becomes the state machine. A crash in between is
    /// finished at the next open.
    pub fn apply_snapshot(&self, snap: &Snapshot) -> Result<()> {
        let md = snap.get_metadata();
        let staged = self
            .layout()
            .snap_dir()
            .join(staged_name(md.index, md.term));
        if !staged.is_file() {
            return Err(StoreError(format!(
                "snapshot {} (term {}) was accepted by raft but not received: {} is missing",
                md.index,
                md.term,
                staged.display()
            )));
        }
        let mut hs = self.hard_state();
        hs.commit = hs.commit.max(md.index);
        hs.term = hs.term.max(md.term);
        self.log().reset(md.index, md.term, &hs)?;
        self.install_staged(&staged)?;
        self.set_cached_conf_state(md.get_conf_state().clone());
        self.inner
            .durable_applied
            .store(md.index, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Makes a staged snapshot the state machine, and drops other staged ones.
    fn install_staged(&self, staged: &std::path::Path) -> Result<()> {
        let state = self.layout().state_file();
        {
            let _writer = super::lock(&self.inner.writer);
            let mut db = self.inner.db.write().unwrap_or_else(|p| p.into_inner());
            std::fs::rename(staged, &state)?;
            sync_dir(&self.layout().dir)?;
            *db = Arc::new(open_db(&state)?);
        }
        self.refresh_auth()?;
        clear_staged(self.layout())
    }

    /// After a crash between the two steps of [`Store::apply_snapshot`]: when
    /// the log starts after the state machine's applied index and the
    /// snapshot it was reset for is staged, installs it. Returns whether it did.
    pub(super) fn resume_install(&self, trunc_index: u64, trunc_term: u64) -> Result<bool> {
        let staged = self
            .layout()
            .snap_dir()
            .join(staged_name(trunc_index, trunc_term));
        if !staged.is_file() {
            return Ok(false);
        }
        self.install_staged(&staged)?;
        Ok(true)
    }
}

/// A snapshot being received into its own file.
pub struct SnapshotStaging {
    db: Option<Database>,
    /// The newest record seen of the key being received: it is live unless
    /// a tombstone, once the next key begins.
    newest: Option<spb::KvRecord>,
    /// The transaction chunks go into, committed every [`STAGING_BATCH`] bytes.
    txn: Option<redb::WriteTransaction>,
    uncommitted: usize,
    /// Bytes written since the file was last synced.
    unsynced: usize,
    partial: PathBuf,
    staged: PathBuf,
    dir: PathBuf,
    keys: u64,
}

/// Bytes of chunks written in one transaction while staging: one commit per
/// chunk wrote the B-tree's right edge again each time (the learner wrote
/// 34% of its CPU time into the page cache); 4 MiB commits write ~4.1 bytes
/// per byte of data, no fewer with larger ones (redb's leaves end half full).
const STAGING_BATCH: usize = 4 << 20;
/// Bytes of chunks staged between two syncs of the staged file.
const STAGING_SYNC: usize = 16 << 20;

impl SnapshotStaging {
    /// Adds one encoded `SnapshotChunk`'s keys (not fsync'd:
    /// [`SnapshotStaging::finish`] syncs once).
    pub fn write(&mut self, chunk: &[u8]) -> Result<()> {
        let db = self
            .db
            .as_ref()
            .ok_or_else(|| StoreError("snapshot staging already finished".into()))?;
        if self.txn.is_none() {
            let mut txn = db.begin_write()?;
            txn.set_durability(Durability::None);
            self.txn = Some(txn);
        }
        if let Some(txn) = &self.txn {
            let mut revs = txn.open_table(REVS)?;
            let mut events = txn.open_table(EVENTS)?;
            let mut rest = chunk;
            while !rest.is_empty() {
                let record = next_record(&mut rest)?;
                let rec = spb::KvRecord::decode(record)?;
                let rev = rec.mod_revision as u64;
                revs.insert((rec.key.as_slice(), rev), record)?;
                events.insert((rev, rec.sub), rec.key.as_slice())?;
                self.keys += 1;
                if self.newest.as_ref().is_some_and(|n| n.key != rec.key) {
                    live_key(txn, self.newest.take())?;
                }
                self.newest = Some(rec);
            }
        }
        self.uncommitted += chunk.len();
        if self.uncommitted >= STAGING_BATCH {
            if let Some(txn) = self.txn.take() {
                txn.commit()?;
            }
            self.unsynced += self.uncommitted;
            self.uncommitted = 0;
        }
        // Written back as it goes: one fsync of the whole file at the end
        // would flood the disk shared with the cluster's log writes (the
        // leader's writer saw 120–147 ms stalls). Writeback is started, not
        // waited for.
        if self.unsynced >= STAGING_SYNC {
            start_writeback(&self.partial)?;
            self.unsynced = 0;
        }
        Ok(())
    }

    /// Keys received so far.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Makes the received snapshot durable and ready to install.
    pub fn finish(mut self) -> Result<()> {
        if let Some(db) = self.db.take() {
            let mut txn = match self.txn.take() {
                Some(txn) => txn,
                None => db.begin_write()?,
            };
            live_key(&txn, self.newest.take())?;
            txn.set_durability(Durability::Immediate);
            txn.set_quick_repair(true);
            txn.commit()?;
            drop(db);
        }
        std::fs::rename(&self.partial, &self.staged)?;
        sync_dir(&self.dir)
    }
}

impl Drop for SnapshotStaging {
    /// A snapshot not finished (the stream broke) leaves nothing behind.
    fn drop(&mut self) {
        drop(self.txn.take());
        if self.db.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// Records a key's newest received revision as live (with its lease),
/// unless it is a deletion.
fn live_key(txn: &redb::WriteTransaction, newest: Option<spb::KvRecord>) -> Result<()> {
    let Some(mut rec) = newest.filter(|r| !r.tombstone) else {
        return Ok(());
    };
    rec.value.clear();
    if rec.lease != 0 {
        txn.open_table(LEASE_KEYS)?
            .insert((rec.lease as u64, rec.key.as_slice()), ())?;
    }
    txn.open_table(KV)?
        .insert(rec.key.as_slice(), rec.encode_to_vec().as_slice())?;
    Ok(())
}

/// Starts writing a file's dirty pages back to disk without waiting for them
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`), so the final fsync has little left.
fn start_writeback(path: &std::path::Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path)?;
    // SAFETY: a valid open descriptor; offset 0 and length 0 mean the whole file.
    let r = unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    if r != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(())
}

/// Splits the next `KvRecord` (field 1, length-delimited) off an encoded chunk.
fn next_record<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8]> {
    let bad = || StoreError("snapshot chunk: malformed".into());
    let (tag, wire) = prost::encoding::decode_key(rest).map_err(|_| bad())?;
    if tag != 1 || wire != prost::encoding::WireType::LengthDelimited {
        return Err(bad());
    }
    let len = prost::encoding::decode_varint(rest).map_err(|_| bad())? as usize;
    if len > rest.len() {
        return Err(bad());
    }
    let (record, tail) = rest.split_at(len);
    *rest = tail;
    Ok(record)
}
