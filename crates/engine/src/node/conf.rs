//! The configuration in raft's terms and in the node's: a conf state as a
//! [`ConfView`], and a change as raft's `ConfChangeV2`.

use prost::Message as _;
use raft::eraftpb::{
    ConfChangeSingle, ConfChangeTransition, ConfChangeType, ConfChangeV2, ConfState,
};

use super::{ConfView, MemberChange};
use crate::proto::memberctl_store_v1 as spb;

/// The configuration view of a raft conf state.
pub fn conf_view(cs: &ConfState) -> ConfView {
    let sorted = |v: &[u64]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    ConfView {
        voters: sorted(&cs.voters),
        voters_outgoing: sorted(&cs.voters_outgoing),
        learners: sorted(&cs.learners),
        learners_next: sorted(&cs.learners_next),
        auto_leave: cs.auto_leave,
    }
}

/// A ConfChangeV2 with `changes`, carrying `ctx`; explicit joint transition when asked.
pub fn conf_change(
    changes: &[MemberChange],
    explicit: bool,
    ctx: spb::ConfContext,
) -> ConfChangeV2 {
    let mut cc = ConfChangeV2::default();
    let singles: Vec<ConfChangeSingle> = changes
        .iter()
        .map(|c| {
            let mut s = ConfChangeSingle::default();
            let (t, id) = match *c {
                MemberChange::AddVoter(id) => (ConfChangeType::AddNode, id),
                MemberChange::AddLearner(id) => (ConfChangeType::AddLearnerNode, id),
                MemberChange::Remove(id) => (ConfChangeType::RemoveNode, id),
            };
            s.set_change_type(t);
            s.node_id = id;
            s
        })
        .collect();
    cc.set_changes(singles.into());
    if explicit {
        cc.set_transition(ConfChangeTransition::Explicit);
    }
    cc.set_context(ctx.encode_to_vec().into());
    cc
}
