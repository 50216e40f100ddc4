//! Minimal failing window of a non-linearizable key: bisects a short failing prefix and
//! renders the operations around its last one.

use super::describe::op_line;
use super::keyed::{KeyHistory, KeyOp};
use super::op::Operation;
use super::search::{search, Budget, Outcome, SearchResult};

/// Most operations shown in a window.
const MAX_WINDOW: usize = 20;

/// Bisects the prefix length (prefixes ordered by call time, each operation with its own
/// return) keeping "the shorter prefix passes, the longer fails", so the result fails
/// while the prefix one shorter passes.
fn failing_prefix(ops: &[KeyOp], budget: &Budget) -> (usize, SearchResult, bool) {
    let (mut lo, mut hi) = (0, ops.len());
    let mut failing = None;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let result = search(&ops[..mid], &budget.limits(), false);
        if result.outcome == Outcome::Linearizable {
            lo = mid;
        } else {
            hi = mid;
            failing = Some(result);
        }
    }
    // Rerun the failing prefix, tracking its longest partial linearization.
    let tracked = search(&ops[..hi], &budget.limits(), true);
    let ran_out = tracked.outcome == Outcome::OutOfBudget
        || failing.is_some_and(|f| f.outcome == Outcome::OutOfBudget);
    (hi, tracked, ran_out)
}

/// The operations shown for a failing prefix.
struct Window {
    /// Positions in the prefix, in call order.
    positions: Vec<usize>,
    /// Whether the window was cut to [`MAX_WINDOW`] operations.
    truncated: bool,
    /// Operations of unknown outcome left out because they were called before the window.
    older_unknown: usize,
}

/// The window inside `prefix`: its last operation, every operation overlapping it, and
/// the frontier of operations that returned before it was called but not before the
/// latest call among those (the ones it must directly follow). Operations of unknown
/// outcome overlap everything after their call; only those called within the window
/// (not before the frontier's latest call) are shown.
fn window(prefix: &[KeyOp]) -> Window {
    let Some(last) = prefix.len().checked_sub(1) else {
        return Window {
            positions: Vec::new(),
            truncated: false,
            older_unknown: 0,
        };
    };
    let call = prefix[last].call;
    let before: Vec<usize> = (0..last).filter(|&j| prefix[j].ret < call).collect();
    let latest_call = before.iter().map(|&j| prefix[j].call).max().unwrap_or(0);
    let unknown = |j: usize| prefix[j].ret == u64::MAX;
    let mut overlapping: Vec<usize> = (0..last)
        .filter(|&j| prefix[j].ret >= call && (!unknown(j) || prefix[j].call >= latest_call))
        .collect();
    let older_unknown = (0..last)
        .filter(|&j| unknown(j) && prefix[j].call < latest_call)
        .count();
    let mut frontier: Vec<usize> = before
        .into_iter()
        .filter(|&j| prefix[j].ret >= latest_call)
        .collect();
    overlapping.sort_by_key(|&j| std::cmp::Reverse(prefix[j].call));
    frontier.sort_by_key(|&j| std::cmp::Reverse(prefix[j].ret));
    let mut positions = vec![last];
    positions.extend(overlapping);
    positions.extend(frontier);
    let truncated = positions.len() > MAX_WINDOW;
    positions.truncate(MAX_WINDOW);
    positions.sort_unstable();
    Window {
        positions,
        truncated,
        older_unknown,
    }
}

/// Describes why a key that failed the search is not linearizable.
pub(crate) fn explain(history: &[Operation], kh: &KeyHistory, budget: &Budget) -> String {
    let (len, result, ran_out) = failing_prefix(&kh.ops, budget);
    let prefix = &kh.ops[..len];
    let w = window(prefix);
    let mut out = format!(
        "shortest failing prefix found: the first {len} of {} operations on key {:?} by call time (the first {} pass); window of {} operations around the last one{}:",
        kh.ops.len(),
        kh.key,
        len.saturating_sub(1),
        w.positions.len(),
        if w.truncated { ", truncated" } else { "" }
    );
    let deepest = result.deepest.as_ref();
    for &p in &w.positions {
        let covered = deepest.is_some_and(|d| d.covers(p)) || prefix[p].ret == u64::MAX;
        let Some(op) = history.get(prefix[p].idx) else {
            continue;
        };
        out.push_str(if covered { "\n    " } else { "\n  * " });
        out.push_str(&op_line(op));
    }
    if w.older_unknown > 0 {
        out.push_str(&format!(
            "\n    (and {} earlier operations of unknown outcome, still pending)",
            w.older_unknown
        ));
    }
    if let Some(d) = deepest {
        let answered = prefix.iter().filter(|o| o.ret != u64::MAX).count();
        out.push_str(&format!(
            "\nthe longest partial linearization of that prefix places {} of its {answered} operations with a known return (* = one it does not place) and leaves the key at {}",
            d.placed(),
            kh.values.describe(d.state)
        ));
    }
    if ran_out {
        out.push_str("\n(the search budget ran out on this prefix; it may not be minimal)");
    }
    out
}
