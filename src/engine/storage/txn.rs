//! etcd's transaction applied to the state machine: every comparison is
//! decided first against the state before the transaction, the chosen
//! branch is checked (leases, keys, revisions), and only then do its
//! operations run, all writes at one revision.

use super::mvcc::{self, RangeResult, Refusal};
use super::state::{Apply, At};
use super::Result;
use crate::proto::memberctl_store_v1 as spb;

/// What one operation of a transaction produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpResult {
    /// A range read.
    Range(RangeResult),
    /// A put: the revision it wrote, and the previous record when asked for.
    Put {
        /// The revision of the write.
        revision: i64,
        /// The previous record (when the put asked for it and the key existed).
        prev: Option<spb::KvRecord>,
    },
    /// A range deletion.
    Delete {
        /// The revision after it (unchanged when nothing was deleted).
        revision: i64,
        /// How many keys went.
        deleted: i64,
        /// Their records, when asked for.
        prev: Vec<spb::KvRecord>,
    },
    /// A nested transaction.
    Txn(TxnResult),
}

/// What a transaction produced.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TxnResult {
    /// Whether the comparisons held (the success branch ran).
    pub succeeded: bool,
    /// One result per operation of the branch that ran.
    pub responses: Vec<OpResult>,
    /// The store's revision after it.
    pub revision: i64,
}

type Outcome<T> = Result<std::result::Result<T, Refusal>>;

impl Apply<'_> {
    /// Applies a transaction; a refusal leaves the state machine unchanged.
    pub fn txn(&mut self, t: &spb::Txn) -> Outcome<TxnResult> {
        let mut path = Vec::new();
        self.path(t, &mut path)?;
        if let Err(r) = self.check(t, &path, &mut 0)? {
            return Ok(Err(r));
        }
        let mut at = self.at();
        let result = self.run(t, &path, &mut 0, &mut at);
        self.close(at);
        let mut result = match result? {
            Ok(r) => r,
            Err(r) => return Ok(Err(r)),
        };
        result.revision = self.revision();
        Ok(Ok(result))
    }

    /// The branch each transaction takes (this one, then its nested ones on
    /// the chosen branch, depth first), decided before anything is written.
    fn path(&self, t: &spb::Txn, path: &mut Vec<bool>) -> Result<()> {
        let ok = self.all_hold(&t.compare)?;
        path.push(ok);
        for op in if ok { &t.success } else { &t.failure } {
            if let Some(spb::op::Op::Txn(n)) = &op.op {
                self.path(n, path)?;
            }
        }
        Ok(())
    }

    /// etcd's checks of the chosen branch before it runs.
    fn check(&self, t: &spb::Txn, path: &[bool], i: &mut usize) -> Outcome<()> {
        let ok = path.get(*i).copied().unwrap_or(false);
        *i += 1;
        for op in if ok { &t.success } else { &t.failure } {
            match &op.op {
                Some(spb::op::Op::Put(p)) => {
                    if (p.ignore_value || p.ignore_lease) && mvcc::live(&self.kv, &p.key)?.is_none()
                    {
                        return Ok(Err(Refusal::KeyNotFound));
                    }
                    if p.lease != 0 && !self.lease_exists(p.lease)? {
                        return Ok(Err(Refusal::LeaseNotFound));
                    }
                }
                Some(spb::op::Op::Range(r)) => {
                    if let Err(e) =
                        mvcc::read_revision(r.revision, self.revision(), self.compacted())
                    {
                        return Ok(Err(e));
                    }
                }
                Some(spb::op::Op::Txn(n)) => {
                    if let Err(e) = self.check(n, path, i)? {
                        return Ok(Err(e));
                    }
                }
                Some(spb::op::Op::DeleteRange(_)) | None => {}
            }
        }
        Ok(Ok(()))
    }

    /// The revision reads see inside the transaction: its own once it wrote.
    fn now(&self, at: &At) -> i64 {
        if at.sub > 0 {
            at.revision
        } else {
            self.revision()
        }
    }

    fn run(
        &mut self,
        t: &spb::Txn,
        path: &[bool],
        i: &mut usize,
        at: &mut At,
    ) -> Outcome<TxnResult> {
        let ok = path.get(*i).copied().unwrap_or(false);
        *i += 1;
        let mut out = TxnResult {
            succeeded: ok,
            ..Default::default()
        };
        for op in if ok { &t.success } else { &t.failure } {
            let result = match &op.op {
                Some(spb::op::Op::Range(r)) => {
                    let now = self.now(at);
                    match mvcc::range(&self.kv, &self.revs, r, now, self.compacted())? {
                        Ok(found) => OpResult::Range(found),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Some(spb::op::Op::Put(p)) => {
                    let prev = self.current(&p.key)?;
                    let value = match (&prev, p.ignore_value) {
                        (Some(prev), true) => prev.value.clone(),
                        _ => p.value.clone(),
                    };
                    let lease = match (&prev, p.ignore_lease) {
                        (Some(prev), true) => prev.lease,
                        _ => p.lease,
                    };
                    let prev = self.write(at, &p.key, value, lease)?;
                    OpResult::Put {
                        revision: at.revision,
                        prev: prev.filter(|_| p.prev_kv),
                    }
                }
                Some(spb::op::Op::DeleteRange(d)) => {
                    let prev = self.delete(at, &d.key, &d.range_end)?;
                    OpResult::Delete {
                        revision: self.now(at),
                        deleted: prev.len() as i64,
                        prev: if d.prev_kv { prev } else { vec![] },
                    }
                }
                Some(spb::op::Op::Txn(n)) => match self.run(n, path, i, at)? {
                    Ok(mut r) => {
                        r.revision = self.now(at);
                        OpResult::Txn(r)
                    }
                    Err(e) => return Ok(Err(e)),
                },
                None => continue,
            };
            out.responses.push(result);
        }
        Ok(Ok(out))
    }
}

/// A transaction that only reads (every operation a range), decided and
/// read against one consistent read of the store.
fn read_only(
    kv: &impl mvcc::KvTable,
    revs: &impl mvcc::RevTable,
    t: &spb::Txn,
    current: i64,
    compacted: i64,
) -> Outcome<TxnResult> {
    let ok = mvcc::all_hold(kv, revs, &t.compare, current)?;
    let mut out = TxnResult {
        succeeded: ok,
        responses: vec![],
        revision: current,
    };
    for op in if ok { &t.success } else { &t.failure } {
        let Some(spb::op::Op::Range(r)) = &op.op else {
            return Err(super::StoreError(
                "a transaction served as a read holds a write".into(),
            ));
        };
        match mvcc::range(kv, revs, r, current, compacted)? {
            Ok(found) => out.responses.push(OpResult::Range(found)),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(out))
}

impl super::Store {
    /// Serves a transaction that only reads from the local state machine.
    pub fn read_txn(&self, t: &spb::Txn) -> Outcome<TxnResult> {
        let read = self.db().begin_read()?;
        let (current, compacted) = super::state::revisions(&read)?;
        let kv = read.open_table(mvcc::KV)?;
        let revs = read.open_table(mvcc::REVS)?;
        read_only(&kv, &revs, t, current, compacted)
    }
}
