//! Global revision invariants over all keys, checked in O(n log n) with sorted sweeps.

use std::collections::HashMap;

use super::op::Operation;

/// A broken rule, with the operations (indices into the history) that show it.
#[derive(Debug, Clone)]
pub(crate) struct Violation {
    /// Short name of the rule.
    pub rule: String,
    /// The rule in words, naming the operations involved.
    pub detail: String,
    /// Indices of the operations involved.
    pub ops: Vec<usize>,
}

/// Rule name: two different writes created the same revision.
pub(crate) const RULE_UNIQUE: &str = "write revisions must be unique";
/// Rule name: a write that started after another finished has a lower revision.
pub(crate) const RULE_REAL_TIME: &str = "write revisions must increase in real-time order";
/// Rule name: a client saw revisions go backwards.
pub(crate) const RULE_CLIENT: &str = "a client's response revisions must never decrease";
/// Rule name: a response revision is below that of a write that completed earlier.
pub(crate) const RULE_READ_REV: &str =
    "a response revision must not be lower than that of any write completed before the call";
/// Rule name: a read returned a value no write in the history wrote to that key.
pub(crate) const RULE_NOBODY: &str = "read a value nobody wrote";
/// Rule name: a read's mod revision differs from the revision its writer returned.
pub(crate) const RULE_MOD_REV: &str =
    "a read's mod revision must equal the revision returned by the write of that value";

/// Checks every global revision invariant; returns the first violation found.
pub(crate) fn check_invariants(history: &[Operation]) -> Option<Violation> {
    unique_write_revisions(history)
        .or_else(|| real_time_revisions(history))
        .or_else(|| client_revisions(history))
        .or_else(|| read_values(history))
}

fn name(op: &Operation) -> String {
    format!("{} {}", op.kind(), op.key)
}

fn unique_write_revisions(history: &[Operation]) -> Option<Violation> {
    let mut writes: Vec<(i64, usize)> = history
        .iter()
        .enumerate()
        .filter_map(|(i, op)| op.write_revision().map(|r| (r, i)))
        .collect();
    writes.sort_unstable();
    for pair in writes.windows(2) {
        let ((ra, a), (rb, b)) = (pair[0], pair[1]);
        if ra == rb {
            return Some(Violation {
                rule: RULE_UNIQUE.to_string(),
                detail: format!(
                    "{RULE_UNIQUE}: {} and {} both changed the store at revision {ra}",
                    name(&history[a]),
                    name(&history[b])
                ),
                ops: vec![a, b],
            });
        }
    }
    None
}

/// One sweep in call order, keeping the highest revision among writes that already
/// returned: a later write must exceed it, any other answered operation must reach it.
fn real_time_revisions(history: &[Operation]) -> Option<Violation> {
    let mut writes: Vec<(u64, i64, usize)> = history
        .iter()
        .enumerate()
        .filter_map(|(i, op)| Some((op.ret?, op.write_revision()?, i)))
        .collect();
    writes.sort_unstable();
    let mut answered: Vec<(u64, usize)> = history
        .iter()
        .enumerate()
        .filter(|(_, op)| op.answered())
        .map(|(i, op)| (op.call, i))
        .collect();
    answered.sort_unstable();

    let mut next = 0;
    let mut best: Option<(i64, usize)> = None;
    for &(call, b) in &answered {
        while next < writes.len() && writes[next].0 < call {
            let (_, rev, a) = writes[next];
            if best.is_none_or(|(r, _)| rev > r) {
                best = Some((rev, a));
            }
            next += 1;
        }
        let Some((max_rev, a)) = best else { continue };
        let op = &history[b];
        if let Some(rev) = op.write_revision() {
            if rev <= max_rev {
                return Some(Violation {
                    rule: RULE_REAL_TIME.to_string(),
                    detail: format!(
                        "{RULE_REAL_TIME}: {} returned before {} was called, yet has the higher revision ({max_rev} > {rev})",
                        name(&history[a]),
                        name(op)
                    ),
                    ops: vec![a, b],
                });
            }
        } else if let Some(rev) = op.header_revision() {
            if rev < max_rev {
                return Some(Violation {
                    rule: RULE_READ_REV.to_string(),
                    detail: format!(
                        "{RULE_READ_REV}: {} returned with revision {max_rev} before {} was called, yet the latter reports revision {rev}",
                        name(&history[a]),
                        name(op)
                    ),
                    ops: vec![a, b],
                });
            }
        }
    }
    None
}

fn client_revisions(history: &[Operation]) -> Option<Violation> {
    let mut order: Vec<(u64, u64, usize, i64)> = history
        .iter()
        .enumerate()
        .filter_map(|(i, op)| Some((op.client, op.call, i, op.header_revision()?)))
        .collect();
    order.sort_unstable();
    for pair in order.windows(2) {
        let ((ca, _, a, ra), (cb, _, b, rb)) = (pair[0], pair[1]);
        if ca == cb && rb < ra {
            return Some(Violation {
                rule: RULE_CLIENT.to_string(),
                detail: format!(
                    "{RULE_CLIENT}: client {ca} got revision {ra} from {}, then revision {rb} from the later {}",
                    name(&history[a]),
                    name(&history[b])
                ),
                ops: vec![a, b],
            });
        }
    }
    None
}

/// Every value a read returns must have been written to that key by some put or cas; when
/// the writer's answer is known, the read's mod revision must equal the writer's revision.
fn read_values(history: &[Operation]) -> Option<Violation> {
    let mut writers: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, op) in history.iter().enumerate() {
        if let Some(v) = op.written_value() {
            writers.insert((op.key.as_str(), v), i);
        }
    }
    for (b, op) in history.iter().enumerate() {
        let Some((value, mod_rev)) = op.read_value() else {
            continue;
        };
        let Some(&a) = writers.get(&(op.key.as_str(), value)) else {
            return Some(Violation {
                rule: RULE_NOBODY.to_string(),
                detail: format!(
                    "{RULE_NOBODY}: {} returned {value:?}, which no put or cas wrote to {}",
                    name(op),
                    op.key
                ),
                ops: vec![b],
            });
        };
        if let Some(rev) = history[a].write_revision() {
            if rev != mod_rev {
                return Some(Violation {
                    rule: RULE_MOD_REV.to_string(),
                    detail: format!(
                        "{RULE_MOD_REV}: {} wrote {value:?} at revision {rev}, but {} reports mod revision {mod_rev}",
                        name(&history[a]),
                        name(op)
                    ),
                    ops: vec![a, b],
                });
            }
        }
    }
    None
}
