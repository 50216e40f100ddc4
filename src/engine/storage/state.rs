//! The replicated state machine's writes within one transaction: key
//! revisions, leases, compaction, member metadata, the applied index and
//! conf state; and the store's reads of keys, history and leases.

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::ConfState;
use redb::{ReadableTable, Table, WriteTransaction};

use super::mvcc::{self, Change, RangeResult, Refusal, EVENTS, KV, LEASES, LEASE_KEYS, REVS};
use super::{meta_u64_in, u64_bytes, Result, Store, MEMBERS, META};
use crate::proto::memberctl_store_v1 as spb;

/// Changes to the state machine within one write transaction.
pub struct Apply<'t> {
    txn: &'t WriteTransaction,
    pub(super) kv: Table<'t, &'static [u8], &'static [u8]>,
    pub(super) revs: Table<'t, (&'static [u8], u64), &'static [u8]>,
    events: Table<'t, (u64, u32), &'static [u8]>,
    pub(super) leases: Table<'t, u64, &'static [u8]>,
    lease_keys: Table<'t, (u64, &'static [u8]), ()>,
    revision: i64,
    compacted: i64,
    applied: u64,
    changes: Vec<Change>,
    /// Whether a NOSPACE alarm is raised, once read in this transaction.
    pub(super) no_space: Option<bool>,
}

/// Where the writes of one revision go: the revision and the next sub.
pub(super) struct At {
    pub(super) revision: i64,
    pub(super) sub: u32,
}

impl<'t> Apply<'t> {
    /// Starts applying within `txn`.
    pub fn begin(txn: &'t WriteTransaction) -> Result<Self> {
        let (revision, compacted, applied) = {
            let meta = txn.open_table(META)?;
            let (revision, compacted) = revisions_in(&meta)?;
            (revision, compacted, meta_u64_in(&meta, "applied")?)
        };
        Ok(Apply {
            txn,
            kv: txn.open_table(KV)?,
            revs: txn.open_table(REVS)?,
            events: txn.open_table(EVENTS)?,
            leases: txn.open_table(LEASES)?,
            lease_keys: txn.open_table(LEASE_KEYS)?,
            revision,
            compacted,
            applied,
            changes: Vec::new(),
            no_space: None,
        })
    }

    /// The write transaction.
    pub(super) fn write_txn(&self) -> &'t WriteTransaction {
        self.txn
    }

    /// The applied index when the transaction began: entries up to it are
    /// in the state machine already and must not be applied again.
    pub fn applied_before(&self) -> u64 {
        self.applied
    }

    /// The store's revision.
    pub fn revision(&self) -> i64 {
        self.revision
    }

    /// The compacted revision.
    pub fn compacted(&self) -> i64 {
        self.compacted
    }

    /// Opens the next revision's writes.
    pub(super) fn at(&self) -> At {
        At {
            revision: self.revision + 1,
            sub: 0,
        }
    }

    /// Closes a revision's writes: the store's revision moves when there were any.
    pub(super) fn close(&mut self, at: At) {
        if at.sub > 0 {
            self.revision = at.revision;
        }
    }

    /// The changes applied so far (for watchers), taken.
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    fn record_change(
        &mut self,
        at: &mut At,
        kv: &spb::KvRecord,
        prev: Option<spb::KvRecord>,
    ) -> Result<()> {
        self.revs.insert(
            (kv.key.as_slice(), at.revision as u64),
            kv.encode_to_vec().as_slice(),
        )?;
        self.events
            .insert((at.revision as u64, at.sub), kv.key.as_slice())?;
        at.sub += 1;
        self.changes.push(Change {
            kv: kv.clone(),
            prev,
        });
        Ok(())
    }

    /// The live record of `key`, with its value.
    pub(super) fn current(&self, key: &[u8]) -> Result<Option<spb::KvRecord>> {
        match mvcc::live(&self.kv, key)? {
            Some(r) => Ok(Some(mvcc::record(&self.revs, key, r.mod_revision)?)),
            None => Ok(None),
        }
    }

    /// Writes `key` at `at` (value and lease as given); returns the previous record.
    pub(super) fn write(
        &mut self,
        at: &mut At,
        key: &[u8],
        value: Vec<u8>,
        lease: i64,
    ) -> Result<Option<spb::KvRecord>> {
        let prev = self.current(key)?;
        let rec = spb::KvRecord {
            key: key.to_vec(),
            value,
            create_revision: prev.as_ref().map_or(at.revision, |p| p.create_revision),
            mod_revision: at.revision,
            version: prev.as_ref().map_or(1, |p| p.version + 1),
            lease,
            sub: at.sub,
            tombstone: false,
        };
        let old_lease = prev.as_ref().map_or(0, |p| p.lease);
        if old_lease != 0 && old_lease != lease {
            self.lease_keys.remove((old_lease as u64, key))?;
        }
        if lease != 0 {
            self.lease_keys.insert((lease as u64, key), ())?;
        }
        let live = spb::KvRecord {
            value: vec![],
            ..rec.clone()
        };
        self.kv.insert(key, live.encode_to_vec().as_slice())?;
        self.record_change(at, &rec, prev.clone())?;
        Ok(prev)
    }

    /// Deletes the live keys of a range at `at`; returns their records.
    pub(super) fn delete(
        &mut self,
        at: &mut At,
        key: &[u8],
        range_end: &[u8],
    ) -> Result<Vec<spb::KvRecord>> {
        let mut keys = Vec::new();
        for item in self.kv.range::<&[u8]>(mvcc::bounds(key, range_end))? {
            keys.push(item?.0.value().to_vec());
        }
        let mut prevs = Vec::with_capacity(keys.len());
        for k in keys {
            let Some(prev) = self.current(&k)? else {
                continue;
            };
            if prev.lease != 0 {
                self.lease_keys.remove((prev.lease as u64, k.as_slice()))?;
            }
            self.kv.remove(k.as_slice())?;
            let tomb = spb::KvRecord {
                key: k,
                mod_revision: at.revision,
                sub: at.sub,
                tombstone: true,
                ..Default::default()
            };
            self.record_change(at, &tomb, Some(prev.clone()))?;
            prevs.push(prev);
        }
        Ok(prevs)
    }

    /// Puts a key alone (one revision); returns the new revision.
    #[cfg(test)]
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<i64> {
        let mut at = self.at();
        self.write(&mut at, key, value.to_vec(), 0)?;
        self.close(at);
        Ok(self.revision)
    }

    /// Deletes a range alone; returns how many keys went and the revision after.
    #[cfg(test)]
    pub fn delete_range(&mut self, key: &[u8], range_end: &[u8]) -> Result<(i64, i64)> {
        let mut at = self.at();
        let gone = self.delete(&mut at, key, range_end)?.len() as i64;
        self.close(at);
        Ok((gone, self.revision))
    }

    /// A range read inside the transaction (it sees the writes made before it).
    pub fn range(&self, r: &spb::Range) -> Result<std::result::Result<RangeResult, Refusal>> {
        mvcc::range(&self.kv, &self.revs, r, self.revision, self.compacted)
    }

    /// Whether every comparison holds now.
    pub fn all_hold(&self, compares: &[spb::Compare]) -> Result<bool> {
        mvcc::all_hold(&self.kv, &self.revs, compares, self.revision)
    }

    /// Removes history at and below `revision`: of each key written in
    /// between, only its newest record at or below it stays (none when
    /// that is a deletion), with its event.
    pub fn compact(&mut self, revision: i64) -> Result<std::result::Result<(), Refusal>> {
        if revision <= self.compacted {
            return Ok(Err(Refusal::Compacted));
        }
        if revision > self.revision {
            return Ok(Err(Refusal::FutureRevision));
        }
        let mut keys = std::collections::BTreeSet::new();
        for item in self
            .events
            .range((self.compacted.max(0) as u64 + 1, 0u32)..=(revision as u64, u32::MAX))?
        {
            keys.insert(item?.1.value().to_vec());
        }
        for key in keys {
            let mut stale: Vec<(u64, u32)> = Vec::new();
            let mut newest: Option<(u64, spb::KvRecord)> = None;
            for item in self
                .revs
                .range((key.as_slice(), 0u64)..=(key.as_slice(), revision as u64))?
            {
                let (k, v) = item?;
                let rec = spb::KvRecord::decode(v.value())?;
                if let Some((rev, old)) = newest.replace((k.value().1, rec)) {
                    stale.push((rev, old.sub));
                }
            }
            if let Some((rev, rec)) = newest {
                if rec.tombstone {
                    stale.push((rev, rec.sub));
                }
            }
            for (rev, sub) in stale {
                self.revs.remove((key.as_slice(), rev))?;
                self.events.remove((rev, sub))?;
            }
        }
        self.compacted = revision;
        Ok(Ok(()))
    }

    /// Whether lease `id` exists.
    pub fn lease_exists(&self, id: i64) -> Result<bool> {
        Ok(self.leases.get(id as u64)?.is_some())
    }

    /// Grants a lease.
    pub fn grant(&mut self, id: i64, ttl: i64) -> Result<std::result::Result<(), Refusal>> {
        if self.lease_exists(id)? {
            return Ok(Err(Refusal::LeaseExists));
        }
        let rec = spb::LeaseRecord { id, ttl };
        self.leases
            .insert(id as u64, rec.encode_to_vec().as_slice())?;
        Ok(Ok(()))
    }

    /// Revokes a lease: its keys are deleted at one revision.
    pub fn revoke(&mut self, id: i64) -> Result<std::result::Result<(), Refusal>> {
        if !self.lease_exists(id)? {
            return Ok(Err(Refusal::LeaseNotFound));
        }
        let mut keys = Vec::new();
        for item in self
            .lease_keys
            .range((id as u64, &[][..])..(id as u64 + 1, &[][..]))?
        {
            keys.push(item?.0.value().1.to_vec());
        }
        let mut at = self.at();
        for k in keys {
            self.delete(&mut at, &k, b"")?;
        }
        self.close(at);
        self.leases.remove(id as u64)?;
        Ok(Ok(()))
    }

    /// A member's metadata.
    pub fn member(&self, id: u64) -> Result<Option<spb::MemberMeta>> {
        let t = self.txn.open_table(MEMBERS)?;
        let m = t
            .get(id)?
            .map(|v| spb::MemberMeta::decode(v.value()))
            .transpose()?;
        Ok(m)
    }

    /// Writes a member's metadata.
    pub fn put_member(&mut self, m: &spb::MemberMeta) -> Result<()> {
        self.txn
            .open_table(MEMBERS)?
            .insert(m.id, m.encode_to_vec().as_slice())?;
        Ok(())
    }

    /// Removes a member's metadata.
    pub fn remove_member(&mut self, id: u64) -> Result<()> {
        self.txn.open_table(MEMBERS)?.remove(id)?;
        Ok(())
    }

    /// Every member's metadata as this transaction sees it.
    pub fn members(&self) -> Result<Vec<spb::MemberMeta>> {
        let mut out = Vec::new();
        for item in self.txn.open_table(MEMBERS)?.iter()? {
            let (_, v) = item?;
            out.push(spb::MemberMeta::decode(v.value())?);
        }
        Ok(out)
    }

    /// Records the revision, the applied index and term, and (after a
    /// configuration change) the conf state.
    pub fn finish(
        self,
        applied: u64,
        applied_term: u64,
        conf_state: Option<&ConfState>,
    ) -> Result<()> {
        let mut meta = self.txn.open_table(META)?;
        meta.insert("revision", u64_bytes(self.revision as u64).as_slice())?;
        meta.insert(
            "compact_revision",
            u64_bytes(self.compacted as u64).as_slice(),
        )?;
        meta.insert("applied", u64_bytes(applied).as_slice())?;
        meta.insert("applied_term", u64_bytes(applied_term).as_slice())?;
        if let Some(cs) = conf_state {
            meta.insert("conf_state", cs.write_to_bytes()?.as_slice())?;
        }
        Ok(())
    }
}

/// A lease as stored, with the keys attached to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaseInfo {
    /// The lease's ID.
    pub id: i64,
    /// Its granted TTL in seconds.
    pub ttl: i64,
    /// Keys attached to it (when asked for).
    pub keys: Vec<Vec<u8>>,
}

impl Store {
    /// etcd's Range on the local state machine (at the request's revision).
    pub fn range(&self, r: &spb::Range) -> Result<std::result::Result<RangeResult, Refusal>> {
        let read = self.db().begin_read()?;
        let (current, compacted) = revisions(&read)?;
        let kv = read.open_table(KV)?;
        let revs = read.open_table(REVS)?;
        mvcc::range(&kv, &revs, r, current, compacted)
    }

    /// The changes from revision `from` on (about `max` of them, whole
    /// revisions), and the revision they cover up to; `Err(Compacted)` when
    /// `from` is below the compacted revision (etcd's rule: from the
    /// compacted revision itself, the records kept at it are replayed).
    pub fn changes_since(
        &self,
        from: i64,
        max: usize,
        prev: bool,
    ) -> Result<std::result::Result<(Vec<Change>, i64), Refusal>> {
        let read = self.db().begin_read()?;
        let (current, compacted) = revisions(&read)?;
        if from < compacted {
            return Ok(Err(Refusal::Compacted));
        }
        let events = read.open_table(EVENTS)?;
        let revs = read.open_table(REVS)?;
        let changes = mvcc::changes_since(&events, &revs, from, max, prev)?;
        let upto = if changes.len() >= max {
            changes.last().map_or(current, |c| c.revision())
        } else {
            current
        };
        Ok(Ok((changes, upto)))
    }

    /// The store's revision and compacted revision.
    pub fn revisions(&self) -> Result<(i64, i64)> {
        revisions(&self.db().begin_read()?)
    }

    /// The store's revision.
    pub fn revision(&self) -> Result<i64> {
        Ok(self.revisions()?.0)
    }

    /// A lease, with its keys when `keys`.
    pub fn lease(&self, id: i64, keys: bool) -> Result<Option<LeaseInfo>> {
        let read = self.db().begin_read()?;
        let leases = read.open_table(LEASES)?;
        let Some(v) = leases.get(id as u64)? else {
            return Ok(None);
        };
        let rec = spb::LeaseRecord::decode(v.value())?;
        let mut info = LeaseInfo {
            id: rec.id,
            ttl: rec.ttl,
            keys: vec![],
        };
        if keys {
            let t = read.open_table(LEASE_KEYS)?;
            for item in t.range((id as u64, &[][..])..(id as u64 + 1, &[][..]))? {
                info.keys.push(item?.0.value().1.to_vec());
            }
        }
        Ok(Some(info))
    }

    /// Every lease (without keys), by ID.
    pub fn leases(&self) -> Result<Vec<LeaseInfo>> {
        let read = self.db().begin_read()?;
        let mut out = Vec::new();
        for item in read.open_table(LEASES)?.iter()? {
            let rec = spb::LeaseRecord::decode(item?.1.value())?;
            out.push(LeaseInfo {
                id: rec.id,
                ttl: rec.ttl,
                keys: vec![],
            });
        }
        Ok(out)
    }

    /// Every member's metadata, sorted by ID.
    pub fn members(&self) -> Result<Vec<spb::MemberMeta>> {
        let r = self.db().begin_read()?;
        let mut out = Vec::new();
        for item in r.open_table(MEMBERS)?.iter()? {
            let (_, v) = item?;
            out.push(spb::MemberMeta::decode(v.value())?);
        }
        Ok(out)
    }

    /// The size of the state machine's database file in bytes.
    pub fn db_size(&self) -> i64 {
        std::fs::metadata(self.layout().state_file()).map_or(0, |m| m.len() as i64)
    }
}

/// The revision and compacted revision a read sees.
pub(super) fn revisions(read: &redb::ReadTransaction) -> Result<(i64, i64)> {
    revisions_in(&read.open_table(META)?)
}

/// The revision (1 in an empty store) and compacted revision in a META table.
fn revisions_in(meta: &impl ReadableTable<&'static str, &'static [u8]>) -> Result<(i64, i64)> {
    Ok((
        meta_u64_in(meta, "revision")?.max(1) as i64,
        meta_u64_in(meta, "compact_revision")? as i64,
    ))
}
