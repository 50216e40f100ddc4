//! The state machine's writes within one applied batch: key revisions,
//! deletions, compaction of the history, leases, member metadata, and the
//! applied index and conf state recorded with them.

use std::sync::Arc;

use raft::eraftpb::ConfState;

use super::mvcc::{self, Change, RangeResult, Refusal};
use super::{Key, Record, State};
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::values::Value;

/// One batch's writes: the changes to the state machine while one batch of
/// committed entries is applied (the apply stage's unit of work).
pub struct Batch<'s> {
    pub(super) state: &'s mut State,
    changes: Vec<Change>,
    /// Whether a NOSPACE alarm is raised, once read in this batch.
    pub(super) no_space: Option<bool>,
    applied_before: u64,
    /// Delete operations applied (etcd's count: a range deleting nothing
    /// counts, a lease's revocation counts one per key).
    delete_ops: u64,
}

/// Where the writes of one revision go: the revision and the next sub.
pub(super) struct At {
    pub(super) revision: i64,
    pub(super) sub: u32,
}

impl<'s> Batch<'s> {
    /// Starts applying to `state`.
    pub fn begin(state: &'s mut State) -> Self {
        let applied_before = state.applied;
        Batch {
            state,
            changes: Vec::new(),
            no_space: None,
            applied_before,
            delete_ops: 0,
        }
    }

    /// The applied index when the batch began: entries up to it are in the
    /// state machine already and must not be applied again.
    pub fn applied_before(&self) -> u64 {
        self.applied_before
    }

    /// The store's revision.
    pub fn revision(&self) -> i64 {
        self.state.revision()
    }

    /// The compacted revision.
    pub fn compacted(&self) -> i64 {
        self.state.compacted
    }

    /// Opens the next revision's writes.
    pub(super) fn at(&self) -> At {
        At {
            revision: self.state.revision() + 1,
            sub: 0,
        }
    }

    /// Closes a revision's writes: the store's revision moves when there were any.
    pub(super) fn close(&mut self, at: At) {
        if at.sub > 0 {
            self.state.revision = at.revision;
        }
    }

    /// The delete operations applied so far, as etcd counts them in
    /// `etcd_mvcc_delete_total` (measured on 3.4.23: a range that deletes
    /// nothing counts one, each delete of a transaction one, a revoked
    /// lease one per key).
    pub fn delete_ops(&self) -> u64 {
        self.delete_ops
    }

    /// The changes applied so far (for watchers), taken.
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    fn record_change(
        &mut self,
        at: &mut At,
        key: Key,
        kv: Record,
        prev: Option<Arc<Record>>,
    ) -> Arc<Record> {
        let rec = Arc::new(kv);
        self.state.insert_record(key, rec.clone());
        at.sub += 1;
        self.changes.push(Change {
            kv: rec.clone(),
            prev,
        });
        rec
    }

    /// The live record of `key`, with its value (shared, not copied).
    pub(super) fn current(&self, key: &[u8]) -> Option<Arc<Record>> {
        self.state.kv.get(key).cloned()
    }

    /// Writes `key` at `at` (value and lease as given); returns the previous record.
    pub(super) fn write(
        &mut self,
        at: &mut At,
        key: &[u8],
        value: Value,
        lease: i64,
    ) -> Option<Arc<Record>> {
        let prev = self.current(key);
        let k = self.state.key(key);
        let rec = Record {
            key: k.clone(),
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
            self.state.lease_keys.remove(&(old_lease, k.clone()));
        }
        if lease != 0 {
            self.state.lease_keys.insert((lease, k.clone()));
        }
        let rec = self.record_change(at, k.clone(), rec, prev.clone());
        self.state.kv.insert(k, rec);
        prev
    }

    /// Deletes the live keys of a range at `at`; returns their records
    /// (shared with the history, not copied: a range of many keys would
    /// otherwise hold their values once more per copy until applied).
    pub(super) fn delete(&mut self, at: &mut At, key: &[u8], range_end: &[u8]) -> Vec<Arc<Record>> {
        self.delete_ops += 1;
        let found: Vec<(Key, Arc<Record>)> = mvcc::live_range(self.state, key, range_end)
            .map(|(k, r)| (k.clone(), r.clone()))
            .collect();
        let mut prevs = Vec::with_capacity(found.len());
        for (k, prev) in found {
            if prev.lease != 0 {
                self.state.lease_keys.remove(&(prev.lease, k.clone()));
            }
            self.state.kv.remove(&k);
            let tomb = Record {
                key: k.clone(),
                mod_revision: at.revision,
                sub: at.sub,
                tombstone: true,
                ..Default::default()
            };
            self.record_change(at, k, tomb, Some(prev.clone()));
            prevs.push(prev);
        }
        prevs
    }

    /// Puts a key alone (one revision); returns the new revision.
    #[cfg(test)]
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> i64 {
        let mut at = self.at();
        self.write(&mut at, key, Value::new(value), 0);
        self.close(at);
        self.revision()
    }

    /// Deletes a range alone; returns how many keys went and the revision after.
    #[cfg(test)]
    pub fn delete_range(&mut self, key: &[u8], range_end: &[u8]) -> (i64, i64) {
        let mut at = self.at();
        let gone = self.delete(&mut at, key, range_end).len() as i64;
        self.close(at);
        (gone, self.revision())
    }

    /// A range read within the batch (it sees the writes made before it).
    pub fn range(&self, r: &spb::Range) -> Result<RangeResult, Refusal> {
        mvcc::range(self.state, r)
    }

    /// Whether every comparison holds now.
    pub fn all_hold(&self, compares: &[spb::Compare]) -> bool {
        mvcc::all_hold(self.state, compares)
    }

    /// Removes history at and below `revision`: of each key written in
    /// between, only its newest record at or below it stays (none when
    /// that is a deletion), with its event.
    pub fn compact(&mut self, revision: i64) -> Result<(), Refusal> {
        let st = &mut *self.state;
        if revision <= st.compacted {
            return Err(Refusal::Compacted);
        }
        if revision > st.revision() {
            return Err(Refusal::FutureRevision);
        }
        let mut keys: Vec<Key> = st
            .events
            .range((st.compacted.max(0) as u64 + 1, 0u32)..=(revision as u64, u32::MAX))
            .map(|(_, k)| k.clone())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            let mut stale: Vec<u64> = st
                .revs
                .range((key.clone(), 0u64)..=(key.clone(), revision as u64))
                .map(|((_, rev), _)| *rev)
                .collect();
            // The newest record at or below the revision stays, unless it is
            // a deletion.
            if let Some(newest) = stale.pop() {
                let tomb = st
                    .revs
                    .get(&(key.clone(), newest))
                    .is_some_and(|r| r.tombstone);
                if tomb {
                    stale.push(newest);
                }
            }
            for rev in stale {
                st.remove_record(&key, rev);
            }
        }
        st.compacted = revision;
        Ok(())
    }

    /// Whether lease `id` exists.
    pub fn lease_exists(&self, id: i64) -> bool {
        self.state.leases.contains_key(&id)
    }

    /// Grants a lease.
    pub fn grant(&mut self, id: i64, ttl: i64) -> Result<(), Refusal> {
        if self.lease_exists(id) {
            return Err(Refusal::LeaseExists);
        }
        self.state.leases.insert(id, spb::LeaseRecord { id, ttl });
        Ok(())
    }

    /// Revokes a lease: its keys are deleted at one revision.
    pub fn revoke(&mut self, id: i64) -> Result<(), Refusal> {
        if !self.lease_exists(id) {
            return Err(Refusal::LeaseNotFound);
        }
        let keys: Vec<Key> = mvcc::lease_keys(self.state, id).collect();
        let mut at = self.at();
        for k in keys {
            self.delete(&mut at, &k, b"");
        }
        self.close(at);
        self.state.leases.remove(&id);
        Ok(())
    }

    /// A member's metadata.
    pub fn member(&self, id: u64) -> Option<spb::MemberMeta> {
        self.state.members.get(&id).map(|m| (**m).clone())
    }

    /// Writes a member's metadata.
    pub fn put_member(&mut self, m: &spb::MemberMeta) {
        self.state.members.insert(m.id, Arc::new(m.clone()));
    }

    /// Removes a member's metadata, and remembers its ID as removed for good.
    pub fn remove_member(&mut self, id: u64) {
        self.state.members.remove(&id);
        self.state.removed.insert(id);
    }

    /// Every member's metadata as the batch sees it.
    pub fn members(&self) -> Vec<spb::MemberMeta> {
        self.state.members()
    }

    /// Records the applied index and term, and (after a configuration
    /// change) the conf state.
    pub fn finish(self, applied: u64, applied_term: u64, conf_state: Option<&ConfState>) {
        self.state.applied = applied;
        self.state.applied_term = applied_term;
        if let Some(cs) = conf_state {
            self.state.conf_state = Arc::new(cs.clone());
        }
    }
}
