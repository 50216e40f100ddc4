//! The state's reads for the services: etcd's Range, the history a watch
//! replays, leases and revisions; the services read them from the state
//! last published (a fixed state: a read never waits for a write, nor a
//! write for a read).

use super::mvcc::{self, Change, RangeResult, Refusal};
use super::State;
use crate::proto::memberctl_store_v1 as spb;

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

impl State {
    /// etcd's Range on the local state machine (at the request's revision).
    pub fn range(&self, r: &spb::Range) -> Result<RangeResult, Refusal> {
        mvcc::range(self, r)
    }

    /// The changes from revision `from` on (about `max` of them, whole
    /// revisions), and the revision they cover up to; `Err(Compacted)` when
    /// `from` is below the compacted revision.
    pub fn changes_since(
        &self,
        from: i64,
        max: usize,
        prev: bool,
    ) -> Result<(Vec<Change>, i64), Refusal> {
        mvcc::changes_since(self, from, max, prev)
    }

    /// The store's revision and compacted revision.
    pub fn revisions(&self) -> (i64, i64) {
        (self.revision(), self.compacted())
    }

    /// A lease, with its keys when `keys`.
    pub fn lease(&self, id: i64, keys: bool) -> Option<LeaseInfo> {
        let rec = self.leases.get(&id)?;
        Some(LeaseInfo {
            id: rec.id,
            ttl: rec.ttl,
            keys: if keys {
                mvcc::lease_keys(self, id).map(|k| k.to_vec()).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// Every lease (without keys), by ID.
    pub fn leases(&self) -> Vec<LeaseInfo> {
        self.leases
            .values()
            .map(|rec| LeaseInfo {
                id: rec.id,
                ttl: rec.ttl,
                keys: Vec::new(),
            })
            .collect()
    }
}
