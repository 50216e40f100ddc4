//! Reads of the MVCC keyspace: live keys, every key's history by (key,
//! revision), the changes by (revision, sub), and etcd's reads at any
//! revision above the compacted one (Range, compares, watch replay).

use std::ops::Bound;
use std::sync::Arc;

use super::{Key, Record, State};
use crate::proto::memberctl_store_v1 as spb;

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
    pub kv: Arc<Record>,
    /// The key's record before the change, if it existed.
    pub prev: Option<Arc<Record>>,
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

/// The live keys of a range with their records, in key order.
pub(super) fn live_range<'s>(
    state: &'s State,
    key: &'s [u8],
    range_end: &'s [u8],
) -> impl Iterator<Item = (&'s Key, &'s Arc<Record>)> + 's {
    let empty = empty_range(key, range_end);
    state
        .kv
        .range::<_, [u8]>(bounds(key, range_end))
        .filter(move |_| !empty)
}

/// The keys attached to lease `id`.
pub(super) fn lease_keys(state: &State, id: i64) -> impl Iterator<Item = Key> + '_ {
    state
        .lease_keys
        .range((Bound::Included((id, Key::from(&[][..]))), Bound::Unbounded))
        .take_while(move |(lease, _)| *lease == id)
        .map(|(_, k)| k.clone())
}

/// The newest record of `key` at or below `revision`; None when the key did
/// not exist then (never written, or deleted).
pub(super) fn at(state: &State, key: &Key, revision: i64) -> Option<Arc<Record>> {
    let (found, rec) = state
        .revs
        .get_prev(&(key.clone(), revision.max(0) as u64))?;
    (found.0 == *key && !rec.tombstone).then(|| rec.clone())
}

/// The record of `key` written at exactly `revision`.
pub(super) fn record(state: &State, key: &Key, revision: u64) -> Option<Arc<Record>> {
    state.revs.get(&(key.clone(), revision)).cloned()
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
/// when it is `current`, the newest), in key order.
fn visit(
    state: &State,
    key: &[u8],
    range_end: &[u8],
    revision: i64,
    current: i64,
    mut f: impl FnMut(&Arc<Record>),
) {
    if empty_range(key, range_end) {
        return;
    }
    if revision == current {
        for (_, r) in live_range(state, key, range_end) {
            f(r);
        }
        return;
    }
    if range_end.is_empty() {
        if let Some(r) = at(state, &Key::from(key), revision) {
            f(&r);
        }
        return;
    }
    // Key by key: the first record at or after `next`, then that key's
    // newest record at or below the revision, then past the key.
    let mut lower = Bound::Included((Key::from(key), 0u64));
    let upper = if range_end == [0] {
        Bound::Unbounded
    } else {
        Bound::Excluded((Key::from(range_end), 0u64))
    };
    loop {
        let next = state
            .revs
            .range((lower, upper.clone()))
            .next()
            .map(|((k, _), _)| k.clone());
        let Some(next) = next else {
            return;
        };
        if let Some(r) = at(state, &next, revision) {
            f(&r);
        }
        lower = Bound::Excluded((next, u64::MAX));
    }
}

/// etcd's Range over the state: the keys of the range at the requested
/// revision, filtered, sorted and limited as etcd does (`count` is every key
/// of the range; `more` says the limit cut the list).
pub(crate) fn range(state: &State, r: &spb::Range) -> Result<RangeResult, Refusal> {
    range_with(state, r, state.revision())
}

/// [`range`] where the newest revision is `current` (inside a transaction
/// that wrote, its own revision: the live table holds its writes).
pub(crate) fn range_with(
    state: &State,
    r: &spb::Range,
    current: i64,
) -> Result<RangeResult, Refusal> {
    use spb::range::{SortOrder, SortTarget};
    let revision = read_revision(r.revision, current, state.compacted)?;
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
    let mut kvs: Vec<Arc<Record>> = Vec::new();
    visit(state, &r.key, &r.range_end, revision, current, |rec| {
        out.count += 1;
        if !r.count_only && kvs.len() < fetch {
            kvs.push(rec.clone());
        }
    });
    if r.count_only {
        return Ok(out);
    }
    let keep = |k: &Arc<Record>| {
        (r.min_mod_revision == 0 || k.mod_revision >= r.min_mod_revision)
            && (r.max_mod_revision == 0 || k.mod_revision <= r.max_mod_revision)
            && (r.min_create_revision == 0 || k.create_revision >= r.min_create_revision)
            && (r.max_create_revision == 0 || k.create_revision <= r.max_create_revision)
    };
    kvs.retain(keep);
    let order = if target != SortTarget::Key && order == SortOrder::None {
        SortOrder::Ascend
    } else {
        order
    };
    if order != SortOrder::None {
        let key_of = |k: &Arc<Record>| -> (i64, Vec<u8>) {
            match target {
                SortTarget::Key => (0, k.key.to_vec()),
                SortTarget::Version => (k.version, vec![]),
                SortTarget::Create => (k.create_revision, vec![]),
                SortTarget::Mod => (k.mod_revision, vec![]),
                SortTarget::Value => (0, k.value.to_vec()),
            }
        };
        if order == SortOrder::Descend {
            kvs.sort_by_cached_key(|k| std::cmp::Reverse(key_of(k)));
        } else {
            kvs.sort_by_cached_key(key_of);
        }
    }
    if r.limit > 0 && kvs.len() > r.limit as usize {
        kvs.truncate(r.limit as usize);
        out.more = true;
    }
    out.kvs = kvs
        .into_iter()
        .map(|k| spb::KvRecord {
            key: k.key.to_vec(),
            value: if r.keys_only {
                Vec::new()
            } else {
                k.value.to_vec()
            },
            create_revision: k.create_revision,
            mod_revision: k.mod_revision,
            version: k.version,
            lease: k.lease,
            sub: 0,
            tombstone: false,
        })
        .collect();
    Ok(out)
}

/// Whether every comparison holds (etcd's rule: all of them, in order).
pub(crate) fn all_hold(state: &State, compares: &[spb::Compare]) -> bool {
    compares.iter().all(|c| compare(state, c))
}

/// Whether a comparison holds, as etcd decides it: on every key of its
/// range; a missing key compares as zeroes, except that a value comparison
/// on a missing key fails.
fn compare(state: &State, c: &spb::Compare) -> bool {
    use spb::compare::{Result as Cmp, Target};
    let target = Target::try_from(c.target).unwrap_or(Target::Version);
    let mut found: Vec<Arc<Record>> = Vec::new();
    let current = state.revision();
    visit(state, &c.key, &c.range_end, current, current, |r| {
        found.push(r.clone())
    });
    if found.is_empty() {
        if target == Target::Value {
            return false;
        }
        found.push(Arc::default());
    }
    found.iter().all(|k| {
        let ord = match target {
            Target::Version => k.version.cmp(&c.number),
            Target::Create => k.create_revision.cmp(&c.number),
            Target::Mod => k.mod_revision.cmp(&c.number),
            Target::Lease => k.lease.cmp(&c.number),
            Target::Value => k.value.get()[..].cmp(c.value.as_slice()),
        };
        match Cmp::try_from(c.result).unwrap_or(Cmp::Equal) {
            Cmp::Equal => ord.is_eq(),
            Cmp::NotEqual => ord.is_ne(),
            Cmp::Greater => ord.is_gt(),
            Cmp::Less => ord.is_lt(),
        }
    })
}

/// The changes from revision `from` on (about `max` of them, whole
/// revisions), and the revision they cover up to; `Err(Compacted)` when
/// `from` is below the compacted revision (etcd's rule: from the compacted
/// revision itself, the records kept at it are replayed).
pub(crate) fn changes_since(
    state: &State,
    from: i64,
    max: usize,
    prev: bool,
) -> Result<(Vec<Change>, i64), Refusal> {
    let current = state.revision();
    if from < state.compacted {
        return Err(Refusal::Compacted);
    }
    let mut out: Vec<Change> = Vec::new();
    for (&(rev, _), key) in state.events.range((from.max(1) as u64, 0u32)..) {
        if out.len() >= max && out.last().is_some_and(|c| c.revision() as u64 != rev) {
            break;
        }
        let Some(kv) = record(state, key, rev) else {
            continue;
        };
        let prev = if prev {
            at(state, key, rev as i64 - 1)
        } else {
            None
        };
        out.push(Change {
            kv: kv.clone(),
            prev,
        });
    }
    let upto = if out.len() >= max {
        out.last().map_or(current, |c| c.revision())
    } else {
        current
    };
    Ok((out, upto))
}
