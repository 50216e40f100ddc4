//! Wing–Gong / Lowe linearizability search with memoisation over one key's operations.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::time::Instant;

use super::bitset::{mix, Bits, Snapshot};
use super::model::{apply, KeyOp, KeyState, ABSENT};

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

/// The longest partial linearization met during a search.
#[derive(Debug, Clone)]
pub(crate) struct Deepest {
    /// Which operations (positions in the searched slice) it linearized.
    pub linearized: Bits,
    /// How many operations it linearized.
    pub depth: usize,
    /// The possible key states after it.
    pub states: Vec<KeyState>,
}

/// Result and cost of one search.
#[derive(Debug, Clone)]
pub(crate) struct SearchResult {
    /// How the search ended.
    pub outcome: Outcome,
    /// Model steps taken.
    pub steps: u64,
    /// Entries in the memo cache at the end (its peak).
    pub cache_entries: usize,
    /// Estimated bytes held by the memo cache at its peak.
    pub cache_bytes: usize,
    /// The longest partial linearization, when tracking was asked for.
    pub deepest: Option<Deepest>,
}

const NIL: usize = usize::MAX;

/// Node of the doubly linked event list; node 0 is the head sentinel.
#[derive(Debug, Clone, Copy)]
struct Node {
    prev: usize,
    next: usize,
    op: usize,
    /// For a call node, its return node; `NIL` for return nodes and the head.
    ret: usize,
}

/// Memo key: which operations are linearized plus the resulting state set.
#[derive(Debug, PartialEq, Eq)]
struct CacheKey {
    hash: u64,
    bits: Snapshot,
    states: Box<[KeyState]>,
}

impl Hash for CacheKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// Hasher for keys that are already well mixed.
#[derive(Default)]
struct PassHasher(u64);

impl Hasher for PassHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix(self.0 ^ v);
    }
}

fn states_hash(states: &[KeyState]) -> u64 {
    states
        .iter()
        .fold(0x51_7C_C1_B7_27_22_0A_95, |h, &s| mix(h ^ u64::from(s)))
}

/// Builds the event list: calls and returns sorted by time, a call before a return at
/// equal times.
fn build_list(ops: &[KeyOp]) -> Vec<Node> {
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(ops.len() * 2);
    for (i, op) in ops.iter().enumerate() {
        events.push((op.call, 0, i));
        events.push((op.ret, 1, i));
    }
    events.sort_unstable();
    let mut ret_node = vec![NIL; ops.len()];
    for (k, &(_, kind, op)) in events.iter().enumerate() {
        if kind == 1 {
            ret_node[op] = k + 1;
        }
    }
    let mut nodes = Vec::with_capacity(events.len() + 1);
    nodes.push(Node {
        prev: NIL,
        next: if events.is_empty() { NIL } else { 1 },
        op: NIL,
        ret: NIL,
    });
    for (k, &(_, kind, op)) in events.iter().enumerate() {
        let idx = k + 1;
        nodes.push(Node {
            prev: idx - 1,
            next: if idx == events.len() { NIL } else { idx + 1 },
            op,
            ret: if kind == 0 { ret_node[op] } else { NIL },
        });
    }
    nodes
}

fn unlink(nodes: &mut [Node], x: usize) {
    let Node { prev, next, .. } = nodes[x];
    nodes[prev].next = next;
    if next != NIL {
        nodes[next].prev = prev;
    }
}

fn relink(nodes: &mut [Node], x: usize) {
    let Node { prev, next, .. } = nodes[x];
    nodes[prev].next = x;
    if next != NIL {
        nodes[next].prev = x;
    }
}

/// Searches for a linearization of `ops` starting from an absent key.
pub(crate) fn search(ops: &[KeyOp], limits: &Limits, track: bool) -> SearchResult {
    let mut nodes = build_list(ops);
    let mut bits = Bits::new(ops.len());
    let mut states: Vec<KeyState> = vec![ABSENT];
    let mut stack: Vec<(usize, Vec<KeyState>)> = Vec::new();
    let mut cache: HashSet<CacheKey, BuildHasherDefault<PassHasher>> = HashSet::default();
    let mut cache_bytes = 0usize;
    let mut steps = 0u64;
    let mut deepest = track.then(|| Deepest {
        linearized: bits.clone(),
        depth: 0,
        states: states.clone(),
    });
    let mut cur = nodes[0].next;

    let outcome = loop {
        if nodes[0].next == NIL {
            break Outcome::Linearizable;
        }
        let Some(node) = nodes.get(cur).copied() else {
            // Unreachable: a pending operation's return node always ends the scan.
            break Outcome::NotLinearizable;
        };
        if node.ret != NIL {
            steps += 1;
            if steps > limits.max_steps
                || (steps % 1024 == 0 && limits.deadline.is_some_and(|d| Instant::now() >= d))
            {
                break Outcome::OutOfBudget;
            }
            if let Some(next_states) = apply(ops[node.op].step, &states) {
                bits.insert(node.op);
                let key = CacheKey {
                    hash: bits.hash() ^ states_hash(&next_states),
                    bits: bits.snapshot(),
                    states: next_states.as_slice().into(),
                };
                let size = std::mem::size_of::<CacheKey>()
                    + key.bits.tail.len() * 8
                    + key.states.len() * 4
                    + 33;
                if cache.insert(key) {
                    cache_bytes += size;
                    stack.push((cur, std::mem::replace(&mut states, next_states)));
                    unlink(&mut nodes, cur);
                    unlink(&mut nodes, node.ret);
                    if let Some(d) = deepest.as_mut().filter(|d| stack.len() > d.depth) {
                        d.linearized = bits.clone();
                        d.depth = stack.len();
                        d.states = states.clone();
                    }
                    cur = nodes[0].next;
                    continue;
                }
                bits.remove(node.op);
            }
            cur = node.next;
        } else {
            let Some((call, prev)) = stack.pop() else {
                break Outcome::NotLinearizable;
            };
            let call_node = nodes[call];
            bits.remove(call_node.op);
            states = prev;
            relink(&mut nodes, call_node.ret);
            relink(&mut nodes, call);
            cur = call_node.next;
        }
    };
    SearchResult {
        outcome,
        steps,
        cache_entries: cache.len(),
        cache_bytes: cache_bytes + cache.capacity(),
        deepest,
    }
}
