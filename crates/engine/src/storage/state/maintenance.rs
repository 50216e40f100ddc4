//! The state machine's maintenance: alarms (raised and cleared through
//! raft) and consistency hashes of the keyspace. Its size as etcd reports
//! a database's, and defragmentation, are the store's (they write).

use prost::Message as _;

use super::mvcc::Refusal;
use super::writes::Batch;
use super::State;
use crate::etcd_db::Crc32c;
use crate::proto::memberctl_store_v1 as spb;

/// etcd's NOSPACE alarm type.
pub const NOSPACE: i32 = 1;

/// A raised alarm: the member and etcd's alarm type.
pub type AlarmRecord = (u64, i32);

impl Batch<'_> {
    /// Raises or clears an alarm; returns the alarm when it changed
    /// something (etcd answers with the alarms it changed).
    pub fn alarm(&mut self, a: &spb::Alarm) -> Option<AlarmRecord> {
        self.no_space = None;
        let key = (a.member_id, a.alarm);
        let changed = if a.activate {
            self.state.alarms.insert(key).is_none()
        } else {
            self.state.alarms.remove(&key).is_some()
        };
        // etcd answers an activation with the alarm also when it was raised already.
        (changed || a.activate).then_some(key)
    }

    /// Whether a NOSPACE alarm is raised: writes that add data are refused.
    /// Read once per batch (every write of a batch asks).
    pub fn no_space(&mut self) -> bool {
        if let Some(v) = self.no_space {
            return v;
        }
        let v = self.state.no_space();
        self.no_space = Some(v);
        v
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

impl State {
    /// etcd's HashKV: a hash of the key history up to `revision` (0: the
    /// current one): equal on members that applied the same entries, so a
    /// real consistency check across members. etcd's errors for a revision
    /// in the future or below the compacted one.
    pub fn hash_kv(&self, revision: i64) -> std::result::Result<KvHash, Refusal> {
        let (current, compacted) = (self.revision(), self.compacted());
        let upto = if revision <= 0 { current } else { revision };
        if upto > current {
            return Err(Refusal::FutureRevision);
        }
        if revision > 0 && revision < compacted {
            return Err(Refusal::Compacted);
        }
        let mut crc = Crc32c::new();
        crc.update(b"revs");
        hash_history(self, upto, &mut crc);
        // Every value was read: their pages go back to the page cache.
        crate::storage::values::release_all();
        Ok(KvHash {
            hash: crc.finish(),
            compact_revision: compacted,
            revision: current,
        })
    }

    /// etcd's Hash: a hash of the whole replicated state (key history,
    /// revisions, leases, alarms, members).
    pub fn hash(&self) -> u32 {
        let mut crc = Crc32c::new();
        crc.update(&self.revision().to_be_bytes());
        crc.update(&self.compacted().to_be_bytes());
        hash_history(self, self.revision(), &mut crc);
        for lease in self.leases.values() {
            crc.update(&lease.encode_to_vec());
        }
        for (member, alarm) in self.alarms.iter() {
            crc.update(&member.to_be_bytes());
            crc.update(&alarm.to_be_bytes());
        }
        for m in self.members.values() {
            crc.update(&m.id.to_be_bytes());
            for u in &m.peer_urls {
                crc.update(u.as_bytes());
            }
            crc.update(&[u8::from(m.is_learner)]);
        }
        crc.finish()
    }

    /// Whether a NOSPACE alarm is raised.
    pub fn no_space(&self) -> bool {
        self.alarms.iter().any(|(_, alarm)| *alarm == NOSPACE)
    }
}

/// Adds every kept record of the key history at or below `upto` to `crc`,
/// in (key, revision) order.
fn hash_history(state: &State, upto: i64, crc: &mut Crc32c) {
    let mut buf = Vec::new();
    for ((key, rev), rec) in state.revs.iter() {
        if *rev as i64 > upto {
            continue;
        }
        crc.update(&(key.len() as u64).to_be_bytes());
        crc.update(key);
        crc.update(&rev.to_be_bytes());
        buf.clear();
        rec.encode_raw(&mut buf);
        crc.update(&buf);
    }
}
