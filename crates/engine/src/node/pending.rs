//! What waits for the log to move: tagged proposals by log index and reads
//! confirmed at an index (the apply stage answers both once it has applied
//! that far), and read-index requests raft has not confirmed yet (the raft
//! thread's).

use std::collections::{BTreeMap, HashMap};

use tokio::sync::oneshot;

use super::{Applied, NodeError};

pub(super) type Reply = oneshot::Sender<Result<Applied, NodeError>>;
pub(super) type ReadReply = oneshot::Sender<Result<(), NodeError>>;

/// Proposals and confirmed reads waiting to be applied (the apply stage's).
#[derive(Default)]
pub struct Pending {
    /// Log index → (tag of the proposal placed there, who waits).
    proposals: BTreeMap<u64, (u64, Reply)>,
    /// Reads that raft confirmed, waiting for the applied index to reach theirs.
    confirmed: Vec<(u64, ReadReply)>,
}

/// Read-index requests raft has not confirmed yet, and the tags of
/// proposals (the raft thread's).
#[derive(Default)]
pub struct Reads {
    next_tag: u64,
    /// Read-index requests sent to raft, by context.
    reads: HashMap<Vec<u8>, ReadReply>,
}

impl Reads {
    /// Requests whose tags start at a random point (tags from an earlier run
    /// of this node must not match new proposals).
    pub fn new() -> Self {
        Reads {
            next_tag: rand::random::<u64>() | 1,
            ..Default::default()
        }
    }

    /// A fresh proposal tag (never 0, which marks untagged entries).
    pub fn tag(&mut self) -> u64 {
        self.next_tag = self.next_tag.wrapping_add(1).max(1);
        self.next_tag
    }

    /// Records a read-index request sent with `ctx`.
    pub fn requested(&mut self, ctx: Vec<u8>, reply: ReadReply) {
        self.reads.insert(ctx, reply);
    }

    /// Raft confirmed the read `ctx`: who waits for it.
    pub fn confirmed(&mut self, ctx: &[u8]) -> Option<ReadReply> {
        self.reads.remove(ctx)
    }

    /// Leadership was lost: reads raft has not confirmed will never be.
    pub fn lost_leadership(&mut self, leader: u64) {
        for (_, r) in self.reads.drain() {
            let _ = r.send(Err(NodeError::NotLeader { leader }));
        }
    }
}

impl Pending {
    /// Records that the proposal `tag` was appended at `index`.
    pub fn proposed(&mut self, index: u64, tag: u64, reply: Reply) {
        if let Some((_, old)) = self.proposals.insert(index, (tag, reply)) {
            let _ = old.send(Err(NodeError::Dropped));
        }
    }

    /// The entry at `index` was applied carrying `tag` (0: none) with `result`.
    pub fn applied(&mut self, index: u64, tag: u64, result: Applied) {
        // Anything waiting below this index was overwritten by another leader.
        while let Some((&i, _)) = self.proposals.first_key_value() {
            if i >= index {
                break;
            }
            if let Some((_, (_, r))) = self.proposals.pop_first() {
                let _ = r.send(Err(NodeError::Dropped));
            }
        }
        if let Some((want, reply)) = self.proposals.remove(&index) {
            let outcome = if want == tag {
                Ok(result)
            } else {
                Err(NodeError::Dropped)
            };
            let _ = reply.send(outcome);
        }
    }

    /// A snapshot replaced the log up to `index`: outcomes there are unknown.
    pub fn snapshot_applied(&mut self, index: u64) {
        let rest = self.proposals.split_off(&(index + 1));
        for (_, (_, r)) in std::mem::replace(&mut self.proposals, rest) {
            let _ = r.send(Err(NodeError::Dropped));
        }
    }

    /// A read raft confirmed at `index`: answered once applied that far.
    pub fn read_at(&mut self, index: u64, reply: ReadReply) {
        self.confirmed.push((index, reply));
    }

    /// The applied index moved (and its state is published): release the
    /// reads it covers.
    pub fn applied_to(&mut self, applied: u64) {
        if self.confirmed.iter().all(|(i, _)| *i > applied) {
            return;
        }
        let (done, wait): (Vec<_>, Vec<_>) = std::mem::take(&mut self.confirmed)
            .into_iter()
            .partition(|(i, _)| *i <= applied);
        self.confirmed = wait;
        for (_, r) in done {
            let _ = r.send(Ok(()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposals_resolve_by_index_and_tag() {
        let mut p = Pending::default();
        let mut r = Reads::new();
        let (t1, mut r1) = oneshot::channel();
        let (t2, mut r2) = oneshot::channel();
        let (t3, mut r3) = oneshot::channel();
        let a = r.tag();
        let b = r.tag();
        let c = r.tag();
        p.proposed(5, a, t1);
        p.proposed(6, b, t2);
        p.proposed(8, c, t3);
        p.applied(5, a, Applied::Done);
        assert_eq!(r1.try_recv().unwrap(), Ok(Applied::Done));
        // Another leader's entry at 6 (an empty one): dropped.
        p.applied(6, 0, Applied::Done);
        assert_eq!(r2.try_recv().unwrap(), Err(NodeError::Dropped));
        // Skipping past 8 drops it too.
        p.applied(9, 0, Applied::Done);
        assert_eq!(r3.try_recv().unwrap(), Err(NodeError::Dropped));
    }

    #[test]
    fn reads_wait_for_the_applied_index() {
        let mut reads = Reads::new();
        let mut p = Pending::default();
        let (t, mut r) = oneshot::channel();
        reads.requested(b"x".to_vec(), t);
        let reply = reads.confirmed(b"x").unwrap();
        p.read_at(10, reply);
        p.applied_to(7);
        assert!(r.try_recv().is_err());
        p.applied_to(10);
        assert_eq!(r.try_recv().unwrap(), Ok(()));
        assert!(reads.confirmed(b"x").is_none());
    }
}
