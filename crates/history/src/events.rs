//! The doubly linked list of call and return events walked by the search, with O(1)
//! removal and reinsertion (dancing links).

use super::keyed::KeyOp;

/// Marks "no node".
pub(crate) const NIL: usize = usize::MAX;

/// Node of the event list; node 0 is the head sentinel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// Previous node (`NIL` for the head).
    pub prev: usize,
    /// Next node (`NIL` at the end).
    pub next: usize,
    /// The operation (position in the searched slice); `NIL` for the head.
    pub op: usize,
    /// For a call node, its return node; `NIL` for return nodes and the head.
    pub ret: usize,
    /// Time of the event.
    pub time: u64,
}

/// Builds the event list of the operations at `positions`: calls and returns sorted by
/// time, a call before a return at equal times, ties among calls (and among returns) by
/// position.
pub(crate) fn build_list(ops: &[KeyOp], positions: &[usize]) -> Vec<Node> {
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(positions.len() * 2);
    for &i in positions {
        events.push((ops[i].call, 0, i));
        events.push((ops[i].ret, 1, i));
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
        time: 0,
    });
    for (k, &(time, kind, op)) in events.iter().enumerate() {
        let idx = k + 1;
        nodes.push(Node {
            prev: idx - 1,
            next: if idx == events.len() { NIL } else { idx + 1 },
            op,
            ret: if kind == 0 { ret_node[op] } else { NIL },
            time,
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

/// Time of the first return node at or after `from` (`u64::MAX` if none).
pub(crate) fn first_return(nodes: &[Node], mut from: usize) -> u64 {
    while let Some(node) = nodes.get(from) {
        if node.ret == NIL && node.op != NIL {
            return node.time;
        }
        from = node.next;
    }
    u64::MAX
}

/// Removes a call node and its return node.
pub(crate) fn lift(nodes: &mut [Node], call: usize) {
    let ret = nodes[call].ret;
    unlink(nodes, call);
    unlink(nodes, ret);
}

/// Undoes the matching [`lift`]; lifts must be undone in reverse order.
pub(crate) fn unlift(nodes: &mut [Node], call: usize) {
    let ret = nodes[call].ret;
    relink(nodes, ret);
    relink(nodes, call);
}
