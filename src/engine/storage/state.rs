//! The replicated state machine in the store: keys with etcd's revision
//! bookkeeping, member metadata, the applied index and conf state.

use std::ops::Bound;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::ConfState;
use redb::{ReadableTable, WriteTransaction};

use super::{bytes_u64, u64_bytes, Result, Store, KV, MEMBERS, META};
use crate::proto::memberctl_store_v1 as spb;

/// Changes to the state machine within one write transaction.
pub struct Apply<'t> {
    txn: &'t WriteTransaction,
    revision: i64,
    applied: u64,
}

/// The key range `[key, range_end)` in etcd's conventions: an empty end means
/// the key alone, `\0` means every key from `key` on.
pub fn bounds<'a>(key: &'a [u8], range_end: &'a [u8]) -> (Bound<&'a [u8]>, Bound<&'a [u8]>) {
    if range_end.is_empty() {
        (Bound::Included(key), Bound::Included(key))
    } else if range_end == [0] {
        (Bound::Included(key), Bound::Unbounded)
    } else {
        (Bound::Included(key), Bound::Excluded(range_end))
    }
}

impl<'t> Apply<'t> {
    /// Starts applying within `txn`.
    pub fn begin(txn: &'t WriteTransaction) -> Result<Self> {
        let meta = txn.open_table(META)?;
        let revision = meta
            .get("revision")?
            .map_or(1, |v| bytes_u64(v.value()) as i64);
        let applied = meta.get("applied")?.map_or(0, |v| bytes_u64(v.value()));
        Ok(Apply {
            txn,
            revision,
            applied,
        })
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

    /// Puts a key; returns the new revision and the previous record.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(i64, Option<spb::KvRecord>)> {
        let mut kv = self.txn.open_table(KV)?;
        let prev = kv
            .get(key)?
            .map(|v| spb::KvRecord::decode(v.value()))
            .transpose()?;
        self.revision += 1;
        let rec = spb::KvRecord {
            key: key.to_vec(),
            value: value.to_vec(),
            create_revision: prev.as_ref().map_or(self.revision, |p| p.create_revision),
            mod_revision: self.revision,
            version: prev.as_ref().map_or(1, |p| p.version + 1),
        };
        kv.insert(key, rec.encode_to_vec().as_slice())?;
        Ok((self.revision, prev))
    }

    /// Deletes a range; returns how many keys went and the revision after.
    pub fn delete_range(&mut self, key: &[u8], range_end: &[u8]) -> Result<(i64, i64)> {
        let mut kv = self.txn.open_table(KV)?;
        let keys: Vec<Vec<u8>> = kv
            .range::<&[u8]>(bounds(key, range_end))?
            .map(|r| r.map(|(k, _)| k.value().to_vec()))
            .collect::<std::result::Result<_, _>>()?;
        for k in &keys {
            kv.remove(k.as_slice())?;
        }
        if !keys.is_empty() {
            self.revision += 1;
        }
        Ok((keys.len() as i64, self.revision))
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
        meta.insert("applied", u64_bytes(applied).as_slice())?;
        meta.insert("applied_term", u64_bytes(applied_term).as_slice())?;
        if let Some(cs) = conf_state {
            meta.insert("conf_state", cs.write_to_bytes()?.as_slice())?;
        }
        Ok(())
    }
}

/// What a range read found.
#[derive(Clone, Debug, Default)]
pub struct RangeResult {
    /// The records (up to the limit).
    pub kvs: Vec<spb::KvRecord>,
    /// How many keys the range holds.
    pub count: i64,
    /// Whether the limit cut the list.
    pub more: bool,
    /// The store's revision at the read.
    pub revision: i64,
}

impl Store {
    /// Reads a key range from the local state machine.
    pub fn range(
        &self,
        key: &[u8],
        range_end: &[u8],
        limit: i64,
        count_only: bool,
    ) -> Result<RangeResult> {
        let r = self.db().begin_read()?;
        let meta = r.open_table(META)?;
        let revision = meta
            .get("revision")?
            .map_or(1, |v| bytes_u64(v.value()) as i64);
        let kv = r.open_table(KV)?;
        let mut out = RangeResult {
            revision,
            ..Default::default()
        };
        for item in kv.range::<&[u8]>(bounds(key, range_end))? {
            let (_, v) = item?;
            out.count += 1;
            if count_only {
                continue;
            }
            if limit > 0 && out.kvs.len() as i64 >= limit {
                out.more = true;
                continue;
            }
            out.kvs.push(spb::KvRecord::decode(v.value())?);
        }
        Ok(out)
    }

    /// The store's revision.
    pub fn revision(&self) -> Result<i64> {
        Ok(self.meta_u64("revision")?.max(1) as i64)
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

impl Apply<'_> {
    /// Every member's metadata as this transaction sees it.
    pub fn members(&self) -> Result<Vec<spb::MemberMeta>> {
        let mut out = Vec::new();
        for item in self.txn.open_table(MEMBERS)?.iter()? {
            let (_, v) = item?;
            out.push(spb::MemberMeta::decode(v.value())?);
        }
        Ok(out)
    }
}
