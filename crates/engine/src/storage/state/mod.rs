//! The state machine as the node holds it: the MVCC keyspace with its
//! history, leases, alarms, members, auth and the raft index it has applied,
//! in persistent (structurally shared) maps. A copy costs a few pointer
//! copies, so the apply stage hands readers, snapshots and checkpoints a
//! fixed state after every batch and goes on writing its own.
//!
//! The room's parts: reads at a revision ([`mvcc`]) and the services' reads
//! ([`reads`]); what applying does ([`writes`] for one batch, [`txn`],
//! [`auth`], [`maintenance`]: alarms and hashes). A `State` is a value: this
//! room does no I/O and knows no `Store` (the store publishes a state, writes
//! it to files and reads it back).

mod auth;
mod maintenance;
mod mvcc;
mod reads;
mod record;
mod txn;
mod writes;

pub use self::auth::{role, user, AuthRefusal, READ, READWRITE, ROOT, WRITE};
pub use self::maintenance::{adds_data, AlarmRecord, KvHash, NOSPACE};
pub use self::mvcc::{bounds, Change, RangeResult, Refusal};
pub use self::reads::LeaseInfo;
pub use self::record::{parse as parse_record, Record};
pub use self::txn::{OpResult, TxnResult};
pub use self::writes::Batch;

use std::sync::Arc;

use imbl::{OrdMap, OrdSet};
use raft::eraftpb::ConfState;

use crate::proto::memberctl_store_v1 as spb;

/// A key, shared by the tables that name it.
pub type Key = Arc<[u8]>;

/// Bytes a snapshot file spends on a record besides the record itself (its
/// field tag and length), counted into the state's size.
const RECORD_FRAMING: i64 = 4;

/// The replicated state machine at one applied index.
#[derive(Clone, Default)]
pub struct State {
    /// Live keys → their current record (with its value).
    pub(super) kv: OrdMap<Key, Arc<Record>>,
    /// Every kept revision of every key: (key, revision) → its record (a
    /// deletion is a tombstone record).
    pub(super) revs: OrdMap<(Key, u64), Arc<Record>>,
    /// The changes in revision order: (revision, sub) → key.
    pub(super) events: OrdMap<(u64, u32), Key>,
    /// Granted leases by ID.
    pub(super) leases: OrdMap<i64, spb::LeaseRecord>,
    /// Keys attached to leases: (lease ID, key).
    pub(super) lease_keys: OrdSet<(i64, Key)>,
    /// Raised alarms: (member ID, etcd's alarm type).
    pub(super) alarms: OrdSet<(u64, i32)>,
    /// Member metadata by ID.
    pub(super) members: OrdMap<u64, Arc<spb::MemberMeta>>,
    /// IDs of the members removed from this cluster (etcd's
    /// `members_removed`): their raft traffic is refused, for good.
    pub(super) removed: OrdSet<u64>,
    /// Users, roles and whether authentication is on.
    pub(super) auth: Arc<spb::AuthState>,
    /// The store's revision (0 before the first write; reads see 1).
    pub(super) revision: i64,
    /// The compacted revision.
    pub(super) compacted: i64,
    /// The last raft index applied.
    pub(super) applied: u64,
    /// Its term.
    pub(super) applied_term: u64,
    /// The raft configuration as of the applied index.
    pub(super) conf_state: Arc<ConfState>,
    /// The cluster this state belongs to.
    pub(super) cluster_id: u64,
    /// Bytes of the key history as a snapshot file holds it (etcd's
    /// dbSizeInUse): kept as records come and go.
    pub(super) bytes: i64,
}

/// Every member of a raft configuration: voters (incoming and outgoing)
/// and learners (now and next), each once, in that order.
pub fn conf_members(cs: &ConfState) -> Vec<u64> {
    let mut ids: Vec<u64> = Vec::new();
    for &id in cs
        .voters
        .iter()
        .chain(&cs.voters_outgoing)
        .chain(&cs.learners)
        .chain(&cs.learners_next)
    {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

impl State {
    /// An empty state of cluster `cluster_id`.
    pub fn new(cluster_id: u64) -> State {
        State {
            cluster_id,
            ..Default::default()
        }
    }

    /// How many live keys it holds.
    pub fn key_count(&self) -> u64 {
        self.kv.len() as u64
    }

    /// The store's revision (1 in an empty store, as etcd's).
    pub fn revision(&self) -> i64 {
        self.revision.max(1)
    }

    /// The compacted revision.
    pub fn compacted(&self) -> i64 {
        self.compacted
    }

    /// Moves the store's revision `by` revisions ahead and compacts the
    /// history at the new revision (`snapshot restore --bump-revision N
    /// --mark-compacted`, as etcdutl 3.6's): the next write gets a revision
    /// no client has seen, and every read or watch from an earlier revision
    /// is answered `compacted`. Returns the new revision; `None` (nothing
    /// changed) when `by` is not positive or the revision would not fit in
    /// an i64.
    pub fn bump_and_mark_compacted(&mut self, by: i64) -> Option<i64> {
        let to = self.revision().checked_add(by).filter(|_| by > 0)?;
        let before = self.revision;
        self.revision = to;
        // Past every revision compacted so far: it cannot be refused.
        if Batch::begin(self).compact(to).is_err() {
            self.revision = before;
            return None;
        }
        Some(to)
    }

    /// The last raft index applied, and its term.
    pub fn applied(&self) -> (u64, u64) {
        (self.applied, self.applied_term)
    }

    /// The raft configuration as of the applied index.
    pub fn conf_state(&self) -> &ConfState {
        &self.conf_state
    }

    /// The cluster ID.
    pub fn cluster_id(&self) -> u64 {
        self.cluster_id
    }

    /// Every member's metadata, sorted by ID.
    pub fn members(&self) -> Vec<spb::MemberMeta> {
        self.members.values().map(|m| (**m).clone()).collect()
    }

    /// IDs of the members removed from this cluster, sorted.
    pub fn removed(&self) -> Vec<u64> {
        self.removed.iter().copied().collect()
    }

    /// Whether member `id` was removed from this cluster.
    pub fn is_removed(&self, id: u64) -> bool {
        self.removed.contains(&id)
    }

    /// The auth state.
    pub fn auth(&self) -> Arc<spb::AuthState> {
        self.auth.clone()
    }

    /// Every raised alarm: (member ID, alarm type).
    pub fn alarms(&self) -> Vec<(u64, i32)> {
        self.alarms.iter().copied().collect()
    }

    /// Kept records of the key history (every revision of every key).
    pub fn records(&self) -> usize {
        self.revs.len()
    }

    /// Bytes of the key history as a snapshot file holds it.
    pub fn bytes(&self) -> i64 {
        self.bytes
    }

    /// Moves the values of its history to where `file` holds them: `at`
    /// gives, in the history's order, where each non-empty value begins in
    /// `file` (a checkpoint of this state, mapped). Returns how many moved;
    /// a position that does not fit leaves its value where it was.
    pub fn move_values(&self, file: &bytes::Bytes, at: &[u64]) -> usize {
        let mut at = at.iter();
        let mut moved = 0;
        for rec in self.revs.values() {
            let len = rec.value.len();
            if len == 0 {
                continue;
            }
            let Some(&start) = at.next() else {
                break;
            };
            let Some(end) = usize::try_from(start)
                .ok()
                .and_then(|s| s.checked_add(len))
                .filter(|e| *e <= file.len())
            else {
                continue;
            };
            if rec.value.move_to(file.slice(end - len..end)) {
                moved += 1;
            }
        }
        moved
    }

    /// Adds a record to the history (and its event), counting its bytes.
    pub(super) fn insert_record(&mut self, key: Key, rec: Arc<Record>) {
        let len = rec.encoded_len();
        self.insert_sized(key, rec, len);
    }

    /// [`State::insert_record`] for a record whose encoded size is known.
    pub(super) fn insert_sized(&mut self, key: Key, rec: Arc<Record>, len: usize) {
        self.bytes += len as i64 + RECORD_FRAMING;
        self.events
            .insert((rec.mod_revision as u64, rec.sub), key.clone());
        if let Some(old) = self.revs.insert((key, rec.mod_revision as u64), rec) {
            self.bytes -= old.encoded_len() as i64 + RECORD_FRAMING;
        }
    }

    /// Removes a record from the history (and its event).
    pub(super) fn remove_record(&mut self, key: &Key, revision: u64) {
        if let Some(old) = self.revs.remove(&(key.clone(), revision)) {
            self.bytes -= old.encoded_len() as i64 + RECORD_FRAMING;
            self.events.remove(&(revision, old.sub));
        }
    }

    /// The key as the tables hold it (shared), or a new one.
    pub(super) fn key(&self, key: &[u8]) -> Key {
        match self.kv.get_key_value(key) {
            Some((k, _)) => k.clone(),
            None => Arc::from(key),
        }
    }
}
