//! The state machine's maintenance: alarms (raised and cleared through
//! raft), consistency hashes of the keyspace, and defragmentation (the file
//! rewritten with only what is live).

use std::collections::BTreeSet;

use prost::Message as _;
use redb::{ReadableTable, TableDefinition, TableHandle};

use super::layout::sync_dir;
use super::mvcc::{Refusal, EVENTS, KV, LEASES, LEASE_KEYS, REVS};
use super::state::revisions;
use super::state::Apply;
use super::{lock, open_db, Result, Store, MEMBERS, META};
use crate::proto::memberctl_store_v1 as spb;

/// Raised alarms: (member ID, etcd's alarm type) → ().
pub(crate) const ALARMS: TableDefinition<(u64, i32), ()> = TableDefinition::new("alarms");

/// How long a count of the bytes in use is reused.
const IN_USE_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// etcd's NOSPACE alarm type.
pub const NOSPACE: i32 = 1;

/// A raised alarm: the member and etcd's alarm type.
pub type AlarmRecord = (u64, i32);

impl Apply<'_> {
    /// Raises or clears an alarm; returns the alarm when it changed
    /// something (etcd answers with the alarms it changed).
    pub fn alarm(&mut self, a: &spb::Alarm) -> Result<Option<AlarmRecord>> {
        let mut t = self.write_txn().open_table(ALARMS)?;
        self.no_space = None;
        let key = (a.member_id, a.alarm);
        let changed = if a.activate {
            t.insert(key, ())?.is_none()
        } else {
            t.remove(key)?.is_some()
        };
        // etcd answers an activation with the alarm also when it was raised already.
        Ok((changed || a.activate).then_some(key))
    }

    /// Whether a NOSPACE alarm is raised: writes that add data are refused.
    /// Read once per transaction (every write of a batch asks).
    pub fn no_space(&mut self) -> Result<bool> {
        if let Some(v) = self.no_space {
            return Ok(v);
        }
        let v = has_no_space(&self.write_txn().open_table(ALARMS)?)?;
        self.no_space = Some(v);
        Ok(v)
    }
}

/// Whether a transaction is refused while a NOSPACE alarm is raised, as
/// etcd's capped applier refuses it: a put anywhere in it, or a write in a
/// transaction with comparisons or several operations. A lone delete (etcd's
/// DeleteRange) frees space and is served.
fn txn_adds_data(t: &spb::Txn) -> bool {
    fn walk(ops: &[spb::Op], out: &mut (bool, bool, usize)) {
        for op in ops {
            out.2 += 1;
            match &op.op {
                Some(spb::op::Op::Put(_)) => out.0 = true,
                Some(spb::op::Op::DeleteRange(_)) => out.1 = true,
                Some(spb::op::Op::Txn(t)) => {
                    out.2 += 1;
                    walk(&t.success, out);
                    walk(&t.failure, out);
                }
                _ => {}
            }
        }
    }
    let mut found = (false, false, 0);
    walk(&t.success, &mut found);
    walk(&t.failure, &mut found);
    let (puts, deletes, count) = found;
    puts || (deletes && (!t.compare.is_empty() || count > 1))
}

/// Whether a command adds data: refused while a NOSPACE alarm is raised,
/// and checked against the quota before it is proposed (puts, lease grants).
pub fn adds_data(op: &spb::command::Op) -> bool {
    match op {
        spb::command::Op::Txn(t) => txn_adds_data(t),
        spb::command::Op::LeaseGrant(_) => true,
        _ => false,
    }
}

fn has_no_space(t: &impl ReadableTable<(u64, i32), ()>) -> Result<bool> {
    for item in t.iter()? {
        if item?.0.value().1 == NOSPACE {
            return Ok(true);
        }
    }
    Ok(false)
}

/// CRC-32C (Castagnoli), as etcd hashes its keyspace.
pub struct Crc32c(u32);

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82f6_3b78
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

impl Crc32c {
    /// A new checksum.
    pub fn new() -> Self {
        Crc32c(!0)
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut c = self.0;
        for b in bytes {
            c = CRC_TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    /// The checksum of what was added.
    pub fn finish(&self) -> u32 {
        !self.0
    }
}

impl Default for Crc32c {
    fn default() -> Self {
        Self::new()
    }
}

/// What HashKV answers: the hash, the compacted revision and the current revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvHash {
    /// CRC-32C of every kept record at or below the revision asked for.
    pub hash: u32,
    /// The compacted revision.
    pub compact_revision: i64,
    /// The store's revision.
    pub revision: i64,
}

impl Store {
    /// Every raised alarm, by member.
    pub fn alarms(&self) -> Result<Vec<AlarmRecord>> {
        let read = self.db().begin_read()?;
        let mut out = Vec::new();
        for item in read.open_table(ALARMS)?.iter()? {
            out.push(item?.0.value());
        }
        Ok(out)
    }

    /// etcd's HashKV: a hash of the key history up to `revision` (0: the
    /// current one): equal on members that applied the same entries, so a
    /// real consistency check across members. etcd's errors for a revision
    /// in the future or below the compacted one.
    pub fn hash_kv(&self, revision: i64) -> Result<std::result::Result<KvHash, Refusal>> {
        let read = self.db().begin_read()?;
        let (current, compacted) = revisions(&read)?;
        let upto = if revision <= 0 { current } else { revision };
        if upto > current {
            return Ok(Err(Refusal::FutureRevision));
        }
        if revision > 0 && revision < compacted {
            return Ok(Err(Refusal::Compacted));
        }
        let mut crc = Crc32c::new();
        crc.update(REVS.name().as_bytes());
        hash_history(&read, upto, &mut crc)?;
        Ok(Ok(KvHash {
            hash: crc.finish(),
            compact_revision: compacted,
            revision: current,
        }))
    }

    /// etcd's Hash: a hash of the whole replicated state (key history,
    /// revisions, leases, alarms, members), not of the file's bytes.
    pub fn hash(&self) -> Result<u32> {
        let read = self.db().begin_read()?;
        let (current, compacted) = revisions(&read)?;
        let mut crc = Crc32c::new();
        crc.update(&current.to_be_bytes());
        crc.update(&compacted.to_be_bytes());
        hash_history(&read, current, &mut crc)?;
        for item in read.open_table(LEASES)?.iter()? {
            crc.update(item?.1.value());
        }
        for item in read.open_table(ALARMS)?.iter()? {
            let (member, alarm) = item?.0.value();
            crc.update(&member.to_be_bytes());
            crc.update(&alarm.to_be_bytes());
        }
        for item in read.open_table(MEMBERS)?.iter()? {
            let m = spb::MemberMeta::decode(item?.1.value())?;
            crc.update(&m.id.to_be_bytes());
            for u in &m.peer_urls {
                crc.update(u.as_bytes());
            }
            crc.update(&[u8::from(m.is_learner)]);
        }
        Ok(crc.finish())
    }

    /// etcd's Defragment: the state machine is rewritten into a new file
    /// holding only what is live, which then replaces it (freed pages of
    /// compacted history are given back to the file system). Writes wait
    /// meanwhile; reads go on from the old file. Returns the file's size
    /// before and after.
    pub fn defragment(&self) -> Result<(u64, u64)> {
        let _writer = lock(&self.inner.writer);
        let state = self.layout().state_file();
        let before = std::fs::metadata(&state)?.len();
        let fresh = state.with_extension("defrag");
        let _ = std::fs::remove_file(&fresh);
        {
            let old = self.db();
            let read = old.begin_read()?;
            let new = open_db(&fresh)?;
            let mut txn = new.begin_write()?;
            txn.set_durability(redb::Durability::Immediate);
            copy(&read, &txn, META)?;
            copy(&read, &txn, MEMBERS)?;
            copy(&read, &txn, KV)?;
            copy(&read, &txn, REVS)?;
            copy(&read, &txn, EVENTS)?;
            copy(&read, &txn, LEASES)?;
            copy(&read, &txn, LEASE_KEYS)?;
            copy(&read, &txn, ALARMS)?;
            txn.commit()?;
        }
        {
            let mut db = self.inner.db.write().unwrap_or_else(|p| p.into_inner());
            std::fs::rename(&fresh, &state)?;
            sync_dir(&self.layout().dir)?;
            *db = std::sync::Arc::new(open_db(&state)?);
        }
        *lock(&self.inner.in_use) = None;
        let after = std::fs::metadata(&state)?.len();
        Ok((before, after))
    }

    /// The bytes of the state machine's file in pages that hold data
    /// (etcd's dbSizeInUse); counted at most every 10 s (the
    /// count walks every table).
    pub fn db_size_in_use(&self) -> Result<i64> {
        let mut cached = lock(&self.inner.in_use);
        if let Some((at, bytes)) = *cached {
            if at.elapsed() < IN_USE_EVERY {
                return Ok(bytes);
            }
        }
        let db = self.db();
        let txn = db.begin_write()?;
        let stats = txn.stats()?;
        txn.abort()?;
        let bytes = (stats.allocated_pages() * stats.page_size() as u64) as i64;
        *cached = Some((std::time::Instant::now(), bytes));
        Ok(bytes)
    }

    /// Whether a NOSPACE alarm is raised.
    pub fn no_space(&self) -> Result<bool> {
        has_no_space(&self.db().begin_read()?.open_table(ALARMS)?)
    }
}

/// Adds every kept record of the key history at or below `upto` to `crc`,
/// in (key, revision) order.
fn hash_history(read: &redb::ReadTransaction, upto: i64, crc: &mut Crc32c) -> Result<()> {
    for item in read.open_table(REVS)?.iter()? {
        let (k, v) = item?;
        let (key, rev) = k.value();
        if rev as i64 > upto {
            continue;
        }
        crc.update(&(key.len() as u64).to_be_bytes());
        crc.update(key);
        crc.update(&rev.to_be_bytes());
        crc.update(v.value());
    }
    Ok(())
}

/// Copies a table's entries from a read into a write transaction.
fn copy<K: redb::Key + 'static, V: redb::Value + 'static>(
    from: &redb::ReadTransaction,
    to: &redb::WriteTransaction,
    def: TableDefinition<K, V>,
) -> Result<()> {
    let src = from.open_table(def)?;
    let mut dst = to.open_table(def)?;
    for item in src.iter()? {
        let (k, v) = item?;
        dst.insert(k.value(), v.value())?;
    }
    Ok(())
}

/// The alarms of a snapshot header, to store.
pub(super) fn alarm_records(header: &spb::SnapshotHeader) -> BTreeSet<AlarmRecord> {
    header
        .alarms
        .iter()
        .map(|a| (a.member_id, a.alarm))
        .collect()
}

#[cfg(test)]
#[path = "maintenance_tests.rs"]
mod tests;
