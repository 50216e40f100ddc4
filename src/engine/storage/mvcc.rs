//! The MVCC keyspace's tables and reads: live keys, every key's history by
//! (key, revision), an event index by (revision, sub), and reads at any
//! revision above the compacted one (etcd's Range, compares, watch replay).

use std::ops::Bound;

use prost::Message as _;
use redb::{ReadableTable, TableDefinition};

use super::Result;
use crate::proto::memberctl_store_v1 as spb;

/// Live keys: key → `KvRecord` without its value (read from [`REVS`]).
pub(crate) const KV: TableDefinition<&[u8], &[u8]> = TableDefinition::new("kv");
/// Every kept revision of every key: (key, revision) → whole `KvRecord`
/// (a deletion is a tombstone record).
pub(crate) const REVS: TableDefinition<(&[u8], u64), &[u8]> = TableDefinition::new("revs");
/// The changes in revision order: (revision, sub) → key.
pub(crate) const EVENTS: TableDefinition<(u64, u32), &[u8]> = TableDefinition::new("events");
/// Granted leases: ID → `LeaseRecord`.
pub(crate) const LEASES: TableDefinition<u64, &[u8]> = TableDefinition::new("leases");
/// Keys attached to leases: (lease ID, key).
pub(crate) const LEASE_KEYS: TableDefinition<(u64, &[u8]), ()> = TableDefinition::new("lease_keys");

/// A request that is refused when it is applied, the same way on every
/// member (the state machine is unchanged by it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A read or watch below the compacted revision.
    #[error("mvcc: required revision has been compacted")]
    Compacted,
    /// A read above the current revision.
    #[error("mvcc: required revision is a future revision")]
    FutureRevision,
    /// A put with a lease, or a revoke, of a lease that does not exist.
    #[error("requested lease not found")]
    LeaseNotFound,
    /// A grant with an ID in use.
    #[error("lease already exists")]
    LeaseExists,
    /// A put that keeps the value or lease of a key that does not exist.
    #[error("key not found")]
    KeyNotFound,
    /// A write that adds data while a NOSPACE alarm is raised.
    #[error("mvcc: database space exceeded")]
    NoSpace,
}

/// What a range read found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeResult {
    /// The records (up to the limit; without values when keys only).
    pub kvs: Vec<spb::KvRecord>,
    /// How many keys the range holds at the revision read.
    pub count: i64,
    /// Whether the limit cut the list.
    pub more: bool,
    /// The store's revision at the read.
    pub revision: i64,
}

/// One change to a key, as a watch delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The key's new record (a tombstone for a deletion: key and revision only).
    pub kv: spb::KvRecord,
    /// The key's record before the change, if it existed.
    pub prev: Option<spb::KvRecord>,
}

impl Change {
    /// The revision of the change.
    pub fn revision(&self) -> i64 {
        self.kv.mod_revision
    }
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

/// Whether `range_end` ends a range below its key (an empty range).
fn empty_range(key: &[u8], range_end: &[u8]) -> bool {
    !range_end.is_empty() && range_end != [0] && range_end <= key
}

/// The live-keys table, read or written.
pub(crate) trait KvTable: ReadableTable<&'static [u8], &'static [u8]> {}
impl<T: ReadableTable<&'static [u8], &'static [u8]>> KvTable for T {}
/// The history table, read or written.
pub(crate) trait RevTable: ReadableTable<(&'static [u8], u64), &'static [u8]> {}
impl<T: ReadableTable<(&'static [u8], u64), &'static [u8]>> RevTable for T {}

/// The live record of `key` (without its value).
pub(crate) fn live(kv: &impl KvTable, key: &[u8]) -> Result<Option<spb::KvRecord>> {
    Ok(kv
        .get(key)?
        .map(|v| spb::KvRecord::decode(v.value()))
        .transpose()?)
}

/// The whole record of `key` at exactly `revision`.
pub(crate) fn record(revs: &impl RevTable, key: &[u8], revision: i64) -> Result<spb::KvRecord> {
    match revs.get((key, revision as u64))? {
        Some(v) => Ok(spb::KvRecord::decode(v.value())?),
        None => Err(super::StoreError(format!(
            "the history lacks revision {revision} of a live key"
        ))),
    }
}

/// The newest record of `key` at or below `revision`; None when the key did
/// not exist then (never written, or deleted).
pub(crate) fn at(revs: &impl RevTable, key: &[u8], revision: i64) -> Result<Option<spb::KvRecord>> {
    let last = revs
        .range((key, 0u64)..=(key, revision.max(0) as u64))?
        .next_back()
        .transpose()?;
    match last {
        Some((_, v)) => {
            let r = spb::KvRecord::decode(v.value())?;
            Ok((!r.tombstone).then_some(r))
        }
        None => Ok(None),
    }
}

/// Checks a read revision against the current and compacted ones; 0 (or
/// less) reads the current revision.
pub fn read_revision(
    wanted: i64,
    current: i64,
    compacted: i64,
) -> std::result::Result<i64, Refusal> {
    if wanted > current {
        return Err(Refusal::FutureRevision);
    }
    let rev = if wanted <= 0 { current } else { wanted };
    if rev < compacted {
        return Err(Refusal::Compacted);
    }
    Ok(rev)
}

/// Visits the keys of a range as they were at `revision` (the live table
/// when it is the current one), in key order, with their records (values
/// not yet read).
fn visit(
    kv: &impl KvTable,
    revs: &impl RevTable,
    key: &[u8],
    range_end: &[u8],
    revision: i64,
    current: i64,
    mut f: impl FnMut(spb::KvRecord),
) -> Result<()> {
    if empty_range(key, range_end) {
        return Ok(());
    }
    if revision == current {
        for item in kv.range::<&[u8]>(bounds(key, range_end))? {
            f(spb::KvRecord::decode(item?.1.value())?);
        }
        return Ok(());
    }
    if range_end.is_empty() {
        if let Some(r) = at(revs, key, revision)? {
            f(r);
        }
        return Ok(());
    }
    // Key by key: the first entry at or after `next`, then that key's newest
    // record at or below the revision, then past the key.
    let mut next: Vec<u8> = key.to_vec();
    let mut first = true;
    loop {
        let lower = if first {
            Bound::Included((next.as_slice(), 0u64))
        } else {
            Bound::Excluded((next.as_slice(), u64::MAX))
        };
        let upper = if range_end == [0] {
            Bound::Unbounded
        } else {
            Bound::Excluded((range_end, 0u64))
        };
        let found = revs.range((lower, upper))?.next().transpose()?;
        let Some((k, _)) = found else {
            return Ok(());
        };
        next = k.value().0.to_vec();
        first = false;
        if let Some(r) = at(revs, &next, revision)? {
            f(r);
        }
    }
}

/// etcd's Range over the tables: the keys of the range at the requested
/// revision, filtered, sorted and limited as etcd does (`count` is every key
/// of the range; `more` says the limit cut the list).
pub(crate) fn range(
    kv: &impl KvTable,
    revs: &impl RevTable,
    r: &spb::Range,
    current: i64,
    compacted: i64,
) -> Result<std::result::Result<RangeResult, Refusal>> {
    use spb::range::{SortOrder, SortTarget};
    let revision = match read_revision(r.revision, current, compacted) {
        Ok(rev) => rev,
        Err(e) => return Ok(Err(e)),
    };
    let filtered = r.min_mod_revision != 0
        || r.max_mod_revision != 0
        || r.min_create_revision != 0
        || r.max_create_revision != 0;
    let order = SortOrder::try_from(r.sort_order).unwrap_or(SortOrder::None);
    let target = SortTarget::try_from(r.sort_target).unwrap_or(SortTarget::Key);
    // Everything is fetched when it is sorted or filtered; otherwise one
    // past the limit, to know whether there is more.
    let fetch = if order != SortOrder::None || filtered || r.limit <= 0 {
        usize::MAX
    } else {
        r.limit as usize + 1
    };
    let mut out = RangeResult {
        revision: current,
        ..Default::default()
    };
    let mut kvs = Vec::new();
    visit(kv, revs, &r.key, &r.range_end, revision, current, |rec| {
        out.count += 1;
        if !r.count_only && kvs.len() < fetch {
            kvs.push(rec);
        }
    })?;
    if r.count_only {
        return Ok(Ok(out));
    }
    let keep = |k: &spb::KvRecord| {
        (r.min_mod_revision == 0 || k.mod_revision >= r.min_mod_revision)
            && (r.max_mod_revision == 0 || k.mod_revision <= r.max_mod_revision)
            && (r.min_create_revision == 0 || k.create_revision >= r.min_create_revision)
            && (r.max_create_revision == 0 || k.create_revision <= r.max_create_revision)
    };
    kvs.retain(keep);
    let with_values = |kvs: &mut Vec<spb::KvRecord>| -> Result<()> {
        for k in kvs.iter_mut() {
            if k.value.is_empty() && revision == current {
                k.value = record(revs, &k.key, k.mod_revision)?.value;
            }
        }
        Ok(())
    };
    let order = if target != SortTarget::Key && order == SortOrder::None {
        SortOrder::Ascend
    } else {
        order
    };
    if target == SortTarget::Value && !r.keys_only {
        with_values(&mut kvs)?;
    }
    if order != SortOrder::None {
        let key_of = |k: &spb::KvRecord| -> (i64, Vec<u8>) {
            match target {
                SortTarget::Key => (0, k.key.clone()),
                SortTarget::Version => (k.version, vec![]),
                SortTarget::Create => (k.create_revision, vec![]),
                SortTarget::Mod => (k.mod_revision, vec![]),
                SortTarget::Value => (0, k.value.clone()),
            }
        };
        if order == SortOrder::Descend {
            kvs.sort_by_key(|k| std::cmp::Reverse(key_of(k)));
        } else {
            kvs.sort_by_key(key_of);
        }
    }
    if r.limit > 0 && kvs.len() > r.limit as usize {
        kvs.truncate(r.limit as usize);
        out.more = true;
    }
    if r.keys_only {
        for k in &mut kvs {
            k.value.clear();
        }
    } else {
        with_values(&mut kvs)?;
    }
    for k in &mut kvs {
        k.sub = 0;
        k.tombstone = false;
    }
    out.kvs = kvs;
    Ok(Ok(out))
}

/// Whether every comparison holds (etcd's rule: all of them, in order).
pub(crate) fn all_hold(
    kv: &impl KvTable,
    revs: &impl RevTable,
    compares: &[spb::Compare],
    current: i64,
) -> Result<bool> {
    for c in compares {
        if !compare(kv, revs, c, current)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a comparison holds, as etcd decides it: on every key of its
/// range; a missing key compares as zeroes, except that a value comparison
/// on a missing key fails.
fn compare(
    kv: &impl KvTable,
    revs: &impl RevTable,
    c: &spb::Compare,
    current: i64,
) -> Result<bool> {
    use spb::compare::{Result as Cmp, Target};
    let target = Target::try_from(c.target).unwrap_or(Target::Version);
    let mut found = Vec::new();
    visit(kv, revs, &c.key, &c.range_end, current, current, |r| {
        found.push(r)
    })?;
    if found.is_empty() {
        if target == Target::Value {
            return Ok(false);
        }
        found.push(spb::KvRecord::default());
    }
    for k in &mut found {
        if target == Target::Value && k.mod_revision != 0 {
            k.value = record(revs, &k.key, k.mod_revision)?.value;
        }
        let ord = match target {
            Target::Version => k.version.cmp(&c.number),
            Target::Create => k.create_revision.cmp(&c.number),
            Target::Mod => k.mod_revision.cmp(&c.number),
            Target::Lease => k.lease.cmp(&c.number),
            Target::Value => k.value.as_slice().cmp(c.value.as_slice()),
        };
        let holds = match Cmp::try_from(c.result).unwrap_or(Cmp::Equal) {
            Cmp::Equal => ord.is_eq(),
            Cmp::NotEqual => ord.is_ne(),
            Cmp::Greater => ord.is_gt(),
            Cmp::Less => ord.is_lt(),
        };
        if !holds {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The changes from revision `from` on (at most about `max` of them, whole
/// revisions), with the previous record of each key when `prev`.
pub(crate) fn changes_since(
    events: &impl ReadableTable<(u64, u32), &'static [u8]>,
    revs: &impl RevTable,
    from: i64,
    max: usize,
    prev: bool,
) -> Result<Vec<Change>> {
    let mut out: Vec<Change> = Vec::new();
    for item in events.range((from.max(1) as u64, 0u32)..)? {
        let (k, key) = item?;
        let (rev, _) = k.value();
        if out.len() >= max && out.last().is_some_and(|c| c.revision() as u64 != rev) {
            break;
        }
        let key = key.value();
        let kv = record(revs, key, rev as i64)?;
        let prev = if prev {
            at(revs, key, rev as i64 - 1)?
        } else {
            None
        };
        out.push(Change { kv, prev });
    }
    Ok(out)
}
