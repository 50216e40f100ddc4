//! etcd's transaction applied to the state machine: every comparison is
//! decided first against the state before the transaction, the chosen
//! branch is checked (leases, keys, revisions), and only then do its
//! operations run, all writes at one revision.

use std::sync::Arc;

use super::mvcc::{self, RangeResult, Refusal};
use super::writes::{At, Batch};
use super::{Record, State};
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::values::Value;
use crate::storage::StoreError;

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
        prev: Option<Arc<Record>>,
    },
    /// A range deletion.
    Delete {
        /// The revision after it (unchanged when nothing was deleted).
        revision: i64,
        /// How many keys went.
        deleted: i64,
        /// Their records, when asked for.
        prev: Vec<Arc<Record>>,
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

type Outcome<T> = Result<T, Refusal>;

impl Batch<'_> {
    /// Applies a transaction; a refusal leaves the state machine unchanged.
    pub fn txn(&mut self, t: &spb::Txn) -> Outcome<TxnResult> {
        let mut path = Vec::new();
        self.path(t, &mut path);
        self.check(t, &path, &mut 0)?;
        let mut at = self.at();
        let result = self.run(t, &path, &mut 0, &mut at);
        self.close(at);
        let mut result = result?;
        result.revision = self.revision();
        Ok(result)
    }

    /// The branch each transaction takes (this one, then its nested ones on
    /// the chosen branch, depth first), decided before anything is written.
    fn path(&self, t: &spb::Txn, path: &mut Vec<bool>) {
        let ok = self.all_hold(&t.compare);
        path.push(ok);
        for op in if ok { &t.success } else { &t.failure } {
            if let Some(spb::op::Op::Txn(n)) = &op.op {
                self.path(n, path);
            }
        }
    }

    /// etcd's checks of the chosen branch before it runs.
    fn check(&self, t: &spb::Txn, path: &[bool], i: &mut usize) -> Outcome<()> {
        let ok = path.get(*i).copied().unwrap_or(false);
        *i += 1;
        for op in if ok { &t.success } else { &t.failure } {
            match &op.op {
                Some(spb::op::Op::Put(p)) => {
                    if (p.ignore_value || p.ignore_lease) && self.current(&p.key).is_none() {
                        return Err(Refusal::KeyNotFound);
                    }
                    if p.lease != 0 && !self.lease_exists(p.lease) {
                        return Err(Refusal::LeaseNotFound);
                    }
                }
                Some(spb::op::Op::Range(r)) => {
                    mvcc::read_revision(r.revision, self.revision(), self.compacted())?;
                }
                Some(spb::op::Op::Txn(n)) => self.check(n, path, i)?,
                Some(spb::op::Op::DeleteRange(_)) | None => {}
            }
        }
        Ok(())
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
                    OpResult::Range(mvcc::range_with(self.state, r, now)?)
                }
                Some(spb::op::Op::Put(p)) => {
                    // Read here only to keep its value or lease; `write` reads it anyway.
                    let prev = if p.ignore_value || p.ignore_lease {
                        self.current(&p.key)
                    } else {
                        None
                    };
                    let value = match (&prev, p.ignore_value) {
                        (Some(prev), true) => prev.value.clone(),
                        _ => Value::new(&p.value),
                    };
                    let lease = match (&prev, p.ignore_lease) {
                        (Some(prev), true) => prev.lease,
                        _ => p.lease,
                    };
                    let prev = self.write(at, &p.key, value, lease);
                    OpResult::Put {
                        revision: at.revision,
                        prev: prev.filter(|_| p.prev_kv),
                    }
                }
                Some(spb::op::Op::DeleteRange(d)) => {
                    let prev = self.delete(at, &d.key, &d.range_end);
                    OpResult::Delete {
                        revision: self.now(at),
                        deleted: prev.len() as i64,
                        prev: if d.prev_kv { prev } else { vec![] },
                    }
                }
                Some(spb::op::Op::Txn(n)) => {
                    let mut r = self.run(n, path, i, at)?;
                    r.revision = self.now(at);
                    OpResult::Txn(r)
                }
                None => continue,
            };
            out.responses.push(result);
        }
        Ok(out)
    }
}

/// A transaction that only reads (every operation a range), decided and
/// read against one state; None when it holds a write.
fn read_only(state: &State, t: &spb::Txn) -> Option<Outcome<TxnResult>> {
    let ok = mvcc::all_hold(state, &t.compare);
    let mut out = TxnResult {
        succeeded: ok,
        responses: vec![],
        revision: state.revision(),
    };
    for op in if ok { &t.success } else { &t.failure } {
        let spb::op::Op::Range(r) = op.op.as_ref()? else {
            return None;
        };
        match mvcc::range(state, r) {
            Ok(found) => out.responses.push(OpResult::Range(found)),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(out))
}

impl State {
    /// Serves a transaction that only reads from this state.
    pub fn read_txn(&self, t: &spb::Txn) -> crate::storage::Result<Outcome<TxnResult>> {
        read_only(self, t)
            .ok_or_else(|| StoreError::other("a transaction served as a read holds a write"))
    }
}
