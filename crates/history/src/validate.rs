//! Well-formedness checks on a recorded history before any semantic checking.

use std::collections::HashMap;

use super::describe::op_ref;
use super::invariants::Violation;
use super::op::{Operation, Request, Response};

/// Returns the first malformation found in the history, if any.
pub(crate) fn validate(history: &[Operation]) -> Option<Violation> {
    for (i, op) in history.iter().enumerate() {
        if let Some(v) = check_one(i, op) {
            return Some(v);
        }
    }
    unique_values(history).or_else(|| sequential_clients(history))
}

fn malformed(i: usize, op: &Operation, what: &str) -> Violation {
    Violation {
        rule: format!("malformed operation: {what}"),
        detail: format!("{} is malformed: {what}", op_ref(op)),
        ops: vec![i],
    }
}

fn check_one(i: usize, op: &Operation) -> Option<Violation> {
    if let Some(ret) = op.ret {
        if ret < op.call {
            return Some(malformed(i, op, "it returned before it was called"));
        }
    }
    if !op.response_matches() {
        return Some(malformed(i, op, "the response does not match the request"));
    }
    if let Response::Delete { deleted, .. } = op.response {
        if !(0..=1).contains(&deleted) {
            return Some(malformed(
                i,
                op,
                "a delete of one key reports deleted 0 or 1",
            ));
        }
    }
    None
}

/// Written values must be unique over the whole history (the checker relies on it).
fn unique_values(history: &[Operation]) -> Option<Violation> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, op) in history.iter().enumerate() {
        let value = match &op.request {
            Request::Put { value } | Request::Cas { value, .. } => value.as_str(),
            _ => continue,
        };
        if let Some(&first) = seen.get(value) {
            return Some(Violation {
                rule: "written values must be unique".to_string(),
                detail: format!(
                    "written values must be unique: {} and {} both write {value:?}",
                    op_ref(&history[first]),
                    op_ref(op)
                ),
                ops: vec![first, i],
            });
        }
        seen.insert(value, i);
    }
    None
}

/// A client id issues one request at a time: an answered operation returns before the
/// same client's next call.
fn sequential_clients(history: &[Operation]) -> Option<Violation> {
    let mut order: Vec<usize> = (0..history.len()).collect();
    order.sort_by_key(|&i| (history[i].client, history[i].call, i));
    for pair in order.windows(2) {
        let (a, b) = (&history[pair[0]], &history[pair[1]]);
        if a.client != b.client {
            continue;
        }
        if let Some(ret) = a.ret {
            if ret > b.call {
                return Some(Violation {
                    rule: "a client's operations must not overlap".to_string(),
                    detail: format!(
                        "a client's operations must not overlap: {} returned after {} was called",
                        op_ref(a),
                        op_ref(b)
                    ),
                    ops: vec![pair[0], pair[1]],
                });
            }
        }
    }
    None
}
