//! Per-key histories for the search: compiles each key's operations and resolves
//! operations of unknown outcome as far as the rest of the history allows.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::model::{KeyState, Step, Values};
use super::op::{Operation, Request, Response};

/// One operation of a key history, compiled for the search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyOp {
    /// Index into the full history.
    pub idx: usize,
    /// Call time.
    pub call: u64,
    /// Return time; `u64::MAX` when the outcome is unknown.
    pub ret: u64,
    /// Effect on the state set.
    pub step: Step,
}

/// The operations of one key, ordered by call time.
#[derive(Debug)]
pub(crate) struct KeyHistory {
    /// The key.
    pub key: String,
    /// Operations ordered by (call time, history index); failed gets are dropped.
    pub ops: Vec<KeyOp>,
    /// Interned values of this key.
    pub values: Values,
}

/// Compiles an operation; `None` when it says nothing (a failed get) or, defensively, when
/// its response does not match its request (validation rejects those beforehand).
fn compile(op: &Operation, values: &mut Values) -> Option<Step> {
    let answered = op.answered();
    let step = match (&op.request, &op.response) {
        (Request::Get, Response::Get { value, .. }) if answered => Step::Read {
            read: values.state(value.as_deref()),
            not: None,
        },
        (Request::Get, _) => return None,
        (Request::Put { value }, Response::Put { .. }) if answered => Step::Put(values.id(value)),
        (Request::Put { value }, _) => Step::MaybePut(values.id(value)),
        (Request::Delete, Response::Delete { deleted, .. }) if answered => Step::Delete {
            existed: *deleted >= 1,
        },
        (Request::Delete, _) => Step::MaybeDelete,
        (
            Request::Cas { expect, value },
            Response::Cas {
                succeeded,
                value: read,
                ..
            },
        ) if answered => {
            let expect = values.state(expect.as_deref());
            if *succeeded {
                Step::Cas {
                    expect,
                    value: values.id(value),
                }
            } else {
                Step::Read {
                    read: values.state(read.as_deref()),
                    not: Some(expect),
                }
            }
        }
        (Request::Cas { expect, value }, _) => Step::MaybeCas {
            expect: values.state(expect.as_deref()),
            value: values.id(value),
        },
    };
    op.response_matches().then_some(step)
}

/// Splits a history into per-key histories, keys in sorted order.
pub(crate) fn split_by_key(history: &[Operation]) -> Vec<KeyHistory> {
    let mut by_key: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.iter().enumerate() {
        by_key.entry(op.key.as_str()).or_default().push(i);
    }
    by_key
        .into_iter()
        .map(|(key, idxs)| build(key, &idxs, history))
        .collect()
}

fn build(key: &str, idxs: &[usize], history: &[Operation]) -> KeyHistory {
    let mut values = Values::default();
    let mut ops: Vec<KeyOp> = idxs
        .iter()
        .filter_map(|&idx| {
            let op = history.get(idx)?;
            let step = compile(op, &mut values)?;
            // `u64::MAX` is reserved for "never returned".
            let ret = match op.ret {
                Some(r) if op.answered() => r.min(u64::MAX - 1),
                _ => u64::MAX,
            };
            Some(KeyOp {
                idx,
                call: op.call,
                ret,
                step,
            })
        })
        .collect();
    resolve_unknown(&mut ops, &mut values);
    ops.sort_by_key(|o| (o.call, o.idx));
    KeyHistory {
        key: key.to_string(),
        ops,
        values,
    }
}

/// Narrows unanswered puts and cas (values are unique, so a value has one writer):
/// - a value some answered read returned, or some successful cas expected, proves its
///   writer took effect before that operation returned: the writer becomes an answered
///   write returning at the earliest such return;
/// - a value never read nor expected by anyone behaves like any other such value, so it
///   is replaced by one shared stand-in; and when no answered delete on the key reports
///   deleted 1 (the only operation such a value could enable), its writer is dropped:
///   never applying it is then always at least as good.
fn resolve_unknown(ops: &mut Vec<KeyOp>, values: &mut Values) {
    let mut proof: HashMap<KeyState, u64> = HashMap::new();
    let mut mentioned: HashSet<KeyState> = HashSet::new();
    let mut delete_existed = false;
    for op in ops.iter() {
        let seen = match op.step {
            Step::Read { read, .. } => Some(read),
            Step::Cas { expect, .. } => Some(expect),
            Step::MaybeCas { expect, .. } => {
                mentioned.insert(expect);
                None
            }
            Step::Delete { existed } => {
                delete_existed |= existed;
                None
            }
            _ => None,
        };
        if let Some(v) = seen {
            mentioned.insert(v);
            let t = proof.entry(v).or_insert(op.ret);
            *t = (*t).min(op.ret);
        }
    }
    let mut anon = None;
    ops.retain_mut(|op| {
        let (value, expect) = match op.step {
            Step::MaybePut(value) => (value, None),
            Step::MaybeCas { expect, value } => (value, Some(expect)),
            _ => return true,
        };
        if let Some(&t) = proof.get(&value) {
            // A proof before the call is impossible: keep the op unknown and let the
            // search refute the history.
            if t >= op.call {
                op.ret = t;
                op.step = match expect {
                    Some(expect) => Step::Cas { expect, value },
                    None => Step::Put(value),
                };
            }
            return true;
        }
        if mentioned.contains(&value) {
            return true;
        }
        if !delete_existed {
            return false;
        }
        let value = *anon.get_or_insert_with(|| values.anon());
        op.step = match expect {
            Some(expect) => Step::MaybeCas { expect, value },
            None => Step::MaybePut(value),
        };
        true
    });
}
