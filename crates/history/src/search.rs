//! Wing–Gong / Lowe linearizability search with memoisation over one key's operations.
//!
//! Answered operations are walked as call/return events in a linked list: the earliest
//! pending calls are tried, an accepted one is lifted out and pushed on a stack, and
//! reaching the return of an operation not yet linearized backtracks. Operations of
//! unknown outcome are not in the list: the [`Pool`] applies them lazily, right before
//! an answered operation that needs them.

use std::time::{Duration, Instant};

use super::bitset::Bits;
use super::events::{build_list, first_return, lift, unlift, Node, NIL};
use super::keyed::KeyOp;
use super::memo::Memo;
use super::model::{transition, KeyState, ABSENT};
use super::pool::{Alternative, Pool};

/// Search limits, applied to each key separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most model steps one key's search may take.
    pub max_steps: u64,
    /// Most wall-clock time one key's search may take.
    pub max_time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_steps: 20_000_000,
            max_time: Duration::from_secs(60),
        }
    }
}

impl Budget {
    /// The search limits for one key, starting now.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_steps: self.max_steps,
            deadline: Instant::now().checked_add(self.max_time),
        }
    }
}

/// Stop conditions for one search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Most model steps allowed.
    pub max_steps: u64,
    /// Wall-clock deadline, if any.
    pub deadline: Option<Instant>,
}

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A linearization was found.
    Linearizable,
    /// Every order was ruled out.
    NotLinearizable,
    /// The limits were reached first.
    OutOfBudget,
}

/// One linearized answered operation with the unknown-outcome ones applied before it.
#[derive(Debug, Clone)]
struct Frame {
    call: usize,
    prev: KeyState,
    alternative: usize,
    taken: Vec<(usize, usize)>,
}

/// The longest partial linearization met during a search.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deepest {
    /// Operations it linearized, in order (positions in the searched slice).
    pub order: Vec<usize>,
    /// The key state after it.
    pub state: KeyState,
    /// Answered operations it linearized.
    depth: usize,
    /// Stack frames known to match the start of `order`, and the length they cover.
    agree: usize,
    agree_len: usize,
}

impl Deepest {
    /// Number of operations with a known return it placed.
    pub(crate) fn placed(&self) -> usize {
        self.depth
    }

    /// Whether the operation at `pos` is part of it.
    pub(crate) fn covers(&self, pos: usize) -> bool {
        self.order.contains(&pos)
    }

    fn pushed(&mut self, nodes: &[Node], stack: &[Frame], state: KeyState) {
        if stack.len() <= self.depth {
            return;
        }
        self.order.truncate(self.agree_len);
        for frame in &stack[self.agree..] {
            self.order.extend(frame.taken.iter().map(|&(_, m)| m));
            self.order.push(nodes[frame.call].op);
        }
        self.depth = stack.len();
        self.agree = stack.len();
        self.agree_len = self.order.len();
        self.state = state;
    }

    fn popped(&mut self, stack: &[Frame]) {
        if stack.len() < self.agree {
            self.agree = stack.len();
            self.agree_len = stack.iter().map(|f| f.taken.len() + 1).sum();
        }
    }
}

/// Result and cost of one search.
#[derive(Debug, Clone)]
pub(crate) struct SearchResult {
    /// How the search ended.
    pub outcome: Outcome,
    /// Model steps taken.
    pub steps: u64,
    /// States recorded in the memo (its peak).
    pub cache_entries: usize,
    /// Estimated bytes held by the memo at its peak.
    pub cache_bytes: usize,
    /// The longest partial linearization, when tracking was asked for.
    pub deepest: Option<Deepest>,
}

/// Ways to run the operation at call node `cur` from `state`: directly if possible
/// (that dominates any other way), else after unknown-outcome operations.
fn alternatives(
    ops: &[KeyOp],
    nodes: &[Node],
    cur: usize,
    state: KeyState,
    pool: &Pool,
) -> Vec<Alternative> {
    let step = ops[nodes[cur].op].step;
    if transition(step, state).is_some() {
        return vec![Alternative {
            path: Vec::new(),
            state,
        }];
    }
    if pool.is_empty() {
        return Vec::new();
    }
    pool.alternatives(ops, state, step, first_return(nodes, cur))
}

/// Searches for a linearization of `ops` (ordered by call time) from an absent key.
pub(crate) fn search(ops: &[KeyOp], limits: &Limits, track: bool) -> SearchResult {
    let (unknown, answered): (Vec<usize>, Vec<usize>) =
        (0..ops.len()).partition(|&i| ops[i].ret == u64::MAX && ops[i].step.is_maybe());
    let mut pool = Pool::new(ops, &unknown);
    let mut nodes = build_list(ops, &answered);
    // Answered operations get consecutive bits so the linearized set stays compact.
    let mut slot = vec![0; ops.len()];
    for (k, &i) in answered.iter().enumerate() {
        slot[i] = k;
    }
    let mut main = Bits::new(answered.len());
    let mut extra = Bits::new(pool.size);
    let mut state = ABSENT;
    let mut stack: Vec<Frame> = Vec::new();
    let mut memo = Memo::default();
    let mut steps = 0u64;
    let mut deepest = track.then(Deepest::default);
    let mut cur = nodes[0].next;
    let mut resume = 0;

    let outcome = 'search: loop {
        if nodes[0].next == NIL {
            break Outcome::Linearizable;
        }
        let Some(node) = nodes.get(cur).copied() else {
            // Unreachable: a pending operation's return node always ends the scan.
            break Outcome::NotLinearizable;
        };
        if node.ret == NIL {
            let Some(frame) = stack.pop() else {
                break Outcome::NotLinearizable;
            };
            main.remove(slot[nodes[frame.call].op]);
            pool.give_back(&frame.taken, &mut extra);
            state = frame.prev;
            unlift(&mut nodes, frame.call);
            if let Some(d) = deepest.as_mut() {
                d.popped(&stack);
            }
            cur = frame.call;
            resume = frame.alternative + 1;
            continue;
        }
        let alts = alternatives(ops, &nodes, cur, state, &pool);
        for (k, alt) in alts.iter().enumerate().skip(resume) {
            steps += 1;
            if steps > limits.max_steps
                || (steps & 0x3FF == 0 && limits.deadline.is_some_and(|d| Instant::now() >= d))
            {
                break 'search Outcome::OutOfBudget;
            }
            let Some(next) = transition(ops[node.op].step, alt.state) else {
                continue;
            };
            main.insert(slot[node.op]);
            let taken = pool.take(&alt.path, &mut extra);
            if memo.visit(&main, &extra, next) {
                stack.push(Frame {
                    call: cur,
                    prev: std::mem::replace(&mut state, next),
                    alternative: k,
                    taken,
                });
                lift(&mut nodes, cur);
                if let Some(d) = deepest.as_mut() {
                    d.pushed(&nodes, &stack, state);
                }
                cur = nodes[0].next;
                resume = 0;
                continue 'search;
            }
            pool.give_back(&taken, &mut extra);
            main.remove(slot[node.op]);
        }
        resume = 0;
        cur = node.next;
    };
    SearchResult {
        outcome,
        steps,
        cache_entries: memo.entries(),
        cache_bytes: memo.bytes(),
        deepest,
    }
}
