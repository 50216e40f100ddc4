//! Minimal failing window of a non-linearizable key: bisects a short failing prefix and
//! renders the operations around its last one.

use super::check::Budget;
use super::describe::op_line;
use super::model::{KeyHistory, KeyOp};
use super::op::Operation;
use super::search::{search, Outcome, SearchResult};

/// Most operations shown in a window.
const MAX_WINDOW: usize = 20;

/// Bisects the prefix length (prefixes ordered by call time, each operation with its own
/// return) keeping "the shorter prefix passes, the longer fails", so the result fails
/// while the prefix one shorter passes.
fn failing_prefix(ops: &[KeyOp], budget: &Budget) -> (usize, Option<SearchResult>) {
    let (mut lo, mut hi) = (0, ops.len());
    let mut failing = None;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let result = search(&ops[..mid], &budget.limits(), true);
        if result.outcome == Outcome::Linearizable {
            lo = mid;
        } else {
            hi = mid;
            failing = Some(result);
        }
    }
    if failing.is_none() {
        failing = Some(search(&ops[..hi], &budget.limits(), true));
    }
    (hi, failing)
}

/// Positions (in call order) of the window inside `prefix`: its last operation, every
/// operation overlapping it, and the frontier of operations that returned before it was
/// called but after the latest call among those (the ones it must directly follow).
fn window_positions(prefix: &[KeyOp]) -> (Vec<usize>, bool) {
    let Some(last) = prefix.len().checked_sub(1) else {
        return (Vec::new(), false);
    };
    let call = prefix[last].call;
    let mut overlapping: Vec<usize> = (0..last).filter(|&j| prefix[j].ret >= call).collect();
    let before: Vec<usize> = (0..last).filter(|&j| prefix[j].ret < call).collect();
    let latest_call = before.iter().map(|&j| prefix[j].call).max().unwrap_or(0);
    let mut frontier: Vec<usize> = before
        .into_iter()
        .filter(|&j| prefix[j].ret >= latest_call)
        .collect();
    overlapping.sort_by_key(|&j| std::cmp::Reverse(prefix[j].call));
    frontier.sort_by_key(|&j| std::cmp::Reverse(prefix[j].ret));
    let mut chosen = vec![last];
    chosen.extend(overlapping);
    chosen.extend(frontier);
    let truncated = chosen.len() > MAX_WINDOW;
    chosen.truncate(MAX_WINDOW);
    chosen.sort_unstable();
    (chosen, truncated)
}

/// Describes why a key that failed the search is not linearizable.
pub(crate) fn explain(history: &[Operation], kh: &KeyHistory, budget: &Budget) -> String {
    let (len, result) = failing_prefix(&kh.ops, budget);
    let prefix = &kh.ops[..len];
    let (positions, truncated) = window_positions(prefix);
    let mut out = format!(
        "shortest failing prefix found: the first {len} of {} operations on key {:?} by call time (the first {} pass); window of {} operations around the last one{}:",
        kh.ops.len(),
        kh.key,
        len.saturating_sub(1),
        positions.len(),
        if truncated { ", truncated" } else { "" }
    );
    let deepest = result.as_ref().and_then(|r| r.deepest.as_ref());
    for &p in &positions {
        let covered = deepest.is_some_and(|d| d.linearized.contains(p));
        let Some(op) = history.get(prefix[p].idx) else {
            continue;
        };
        out.push_str(if covered { "\n    " } else { "\n  * " });
        out.push_str(&op_line(op));
    }
    if let Some(d) = deepest {
        out.push_str(&format!(
            "\nthe longest partial linearization of that prefix covers {} of {len} operations (* = not covered) and leaves the key at {}",
            d.depth,
            kh.values.describe(&d.states)
        ));
    }
    if result.is_some_and(|r| r.outcome == Outcome::OutOfBudget) {
        out.push_str("\n(the search budget ran out on this prefix; it may not be minimal)");
    }
    out
}
