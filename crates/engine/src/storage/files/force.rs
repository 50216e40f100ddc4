//! etcd's `--force-new-cluster` on a member's own data: the way back from a
//! lost quorum. The member keeps what its log committed and makes itself the
//! only member by new configuration entries written (and fsync'd) into its
//! log before it serves; raft applies them as it starts, so the state
//! machine, the checkpoints and a new learner's snapshot all see a
//! one-member cluster, and the other members are remembered as removed.

use protobuf::Message as _;
use raft::eraftpb::{ConfChangeSingle, ConfChangeType, ConfChangeV2, Entry, EntryType};

use crate::storage::log::{conf_change, RaftLog};
use crate::storage::{conf_members, Result, State};

/// What `--force-new-cluster` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forced {
    /// The last index kept: the commit index the log recorded (writes known
    /// to be committed up to here are kept).
    pub kept_index: u64,
    /// Entries past it, not known to be committed: dropped, as etcd does.
    pub dropped: u64,
    /// The members removed from the configuration.
    pub removed: Vec<u64>,
}

/// A configuration change that raft applies as a simple one.
fn single(t: ConfChangeType, id: u64) -> ConfChangeV2 {
    let mut s = ConfChangeSingle::default();
    s.set_change_type(t);
    s.node_id = id;
    let mut cc = ConfChangeV2::default();
    cc.set_changes(vec![s].into());
    cc
}

/// Rewrites `log` so that member `me` is the cluster's only member, from
/// `state` (the newest checkpoint's): entries past the recorded commit index
/// are dropped; then a joint configuration is left (when the committed one
/// is joint), `me` made a voter and every other member removed, one simple
/// change per entry, all committed and fsync'd before this returns.
pub fn force_new_cluster(log: &mut RaftLog, state: &State, me: u64) -> Result<Forced> {
    let mut hs = log.state().hard_state.clone();
    let last = log.state().last_index;
    let commit = hs.commit.min(last);
    let applied = state.applied().0;
    let cs = state.conf_state();
    // The configuration at the commit index: the applied one, and the
    // committed changes not applied yet.
    let mut ids = conf_members(cs);
    let mut joint = !cs.voters_outgoing.is_empty();
    if commit > applied {
        let entries = log.entries(applied + 1, commit + 1, u64::MAX)?;
        for e in entries
            .iter()
            .filter(|e| e.get_entry_type() != EntryType::EntryNormal)
        {
            let cc = conf_change(e)?;
            if cc.leave_joint() {
                joint = false;
            } else {
                if cc.enter_joint().is_some() {
                    joint = true;
                }
                ids.extend(cc.get_changes().iter().map(|c| c.node_id));
            }
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let removed: Vec<u64> = ids.into_iter().filter(|&id| id != me).collect();
    let mut changes = Vec::new();
    if joint {
        changes.push(ConfChangeV2::default());
    }
    changes.push(single(ConfChangeType::AddNode, me));
    changes.extend(
        removed
            .iter()
            .map(|&id| single(ConfChangeType::RemoveNode, id)),
    );
    let entries: Vec<Entry> = changes
        .into_iter()
        .enumerate()
        .map(|(i, cc)| {
            let mut e = Entry::default();
            e.set_entry_type(EntryType::EntryConfChangeV2);
            e.index = commit + 1 + i as u64;
            e.term = hs.term;
            e.data = cc.write_to_bytes().unwrap_or_default().into();
            e
        })
        .collect();
    hs.commit = commit + entries.len() as u64;
    log.append(&entries, Some(&hs), true)?;
    Ok(Forced {
        kept_index: commit,
        dropped: last - commit,
        removed,
    })
}
