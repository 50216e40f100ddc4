//! Applies committed entries to the state machine: commands, and configuration changes through `apply_conf_change`.

use std::collections::HashSet;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::{ConfChange, ConfChangeV2, ConfState, Entry, EntryType};
use raft::RawNode;
use raft_proto::ConfChangeI;

use super::conf::conf_view;
use super::pending::Pending;
use super::tokens::TokenEvent;
use super::Applied;
use crate::engine::storage::maintenance::adds_data;
use crate::engine::storage::mvcc::{Change, Refusal};
use crate::engine::storage::state::Apply;
use crate::engine::storage::{Result, Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

fn apply_command(
    a: &mut Apply<'_>,
    cmd: spb::Command,
    tokens: &mut Vec<TokenEvent>,
    auth_changed: &mut bool,
) -> Result<Applied> {
    use spb::command::Op;
    let revision_or = |a: &Apply<'_>, r: std::result::Result<(), Refusal>| match r {
        Ok(()) => Applied::Revision(a.revision()),
        Err(e) => Applied::Refused(e),
    };
    if cmd.op.as_ref().is_some_and(adds_data) && a.no_space()? {
        return Ok(Applied::Refused(Refusal::NoSpace));
    }
    Ok(match cmd.op {
        Some(Op::Alarm(alarm)) => Applied::Alarm(a.alarm(&alarm)?),
        Some(Op::Auth(change)) => match a.auth(&change)? {
            Ok(state) => {
                *auth_changed = true;
                use spb::auth_change::Change as C;
                match change.change {
                    Some(C::UserDelete(user)) => tokens.push(TokenEvent::UserChanged(user)),
                    Some(C::UserChangePassword(u)) => tokens.push(TokenEvent::UserChanged(u.name)),
                    Some(C::Disable(_)) => tokens.push(TokenEvent::Cleared),
                    _ => {}
                }
                Applied::Auth(Ok(state.revision))
            }
            Err(e) => Applied::Auth(Err(e)),
        },
        Some(Op::IssueToken(t)) => {
            tokens.push(TokenEvent::Issued {
                token: t.token,
                user: t.user,
            });
            Applied::Done
        }
        Some(Op::Txn(t)) => match a.txn(&t)? {
            Ok(r) => Applied::Txn(r),
            Err(e) => Applied::Refused(e),
        },
        Some(Op::Compact(c)) => {
            let r = a.compact(c.revision)?;
            revision_or(a, r)
        }
        Some(Op::LeaseGrant(g)) => {
            let r = a.grant(g.id, g.ttl)?;
            revision_or(a, r)
        }
        Some(Op::LeaseRevoke(r)) => {
            let r = a.revoke(r.id)?;
            revision_or(a, r)
        }
        Some(Op::UpdateMember(u)) => {
            if let Some(mut m) = a.member(u.id)? {
                m.peer_urls = u.peer_urls;
                a.put_member(&m)?;
            }
            Applied::Done
        }
        Some(Op::Publish(p)) => {
            if let Some(mut m) = a.member(p.id)? {
                m.name = p.name;
                m.client_urls = p.client_urls;
                a.put_member(&m)?;
            }
            Applied::Done
        }
        None => Applied::Done,
    })
}

/// Brings member metadata in line with a new conf state: new members from the
/// change's context, learner flags, removed members gone.
fn reconcile_members(
    a: &mut Apply<'_>,
    store_members: Vec<spb::MemberMeta>,
    ctx: &spb::ConfContext,
    cs: &ConfState,
) -> Result<()> {
    let all: HashSet<u64> = cs
        .voters
        .iter()
        .chain(&cs.voters_outgoing)
        .chain(&cs.learners)
        .chain(&cs.learners_next)
        .copied()
        .collect();
    let learners: HashSet<u64> = cs.learners.iter().copied().collect();
    for m in store_members {
        if !all.contains(&m.id) {
            a.remove_member(m.id)?;
        }
    }
    for added in &ctx.added {
        if all.contains(&added.id) && a.member(added.id)?.is_none() {
            a.put_member(added)?;
        }
    }
    for id in &all {
        if let Some(mut m) = a.member(*id)? {
            let learner = learners.contains(id);
            if m.is_learner != learner {
                m.is_learner = learner;
                a.put_member(&m)?;
            }
        }
    }
    Ok(())
}

/// The key changes of one applied batch, for watchers: the store's revision
/// before and after, and every change in between in order. A batch whose
/// `before` is not where a watcher stands (a snapshot was installed, or it
/// missed batches) sends it to the store's history instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventBatch {
    /// The revision before the batch.
    pub before: i64,
    /// The revision after it.
    pub after: i64,
    /// The changes, in revision order.
    pub changes: Vec<Change>,
}

/// What applying a batch of entries did.
pub struct AppliedBatch {
    /// Whether the configuration changed.
    pub conf_changed: bool,
    /// The key changes (None when the revision did not move).
    pub events: Option<EventBatch>,
    /// What the batch did to the simple tokens.
    pub tokens: Vec<TokenEvent>,
}

/// Applies `entries` in one transaction, resolving waiters after it commits;
/// each entry is applied once, in index order, and its index recorded with it.
/// The transaction is fsync'd when `durable` (before compaction may rely on it).
pub fn apply_entries(
    raw: &mut RawNode<Store>,
    store: &Store,
    entries: Vec<Entry>,
    pending: &mut Pending,
    durable: bool,
) -> Result<AppliedBatch> {
    let Some(last) = entries.last() else {
        return Ok(AppliedBatch {
            conf_changed: false,
            events: None,
            tokens: Vec::new(),
        });
    };
    let (last_index, last_term) = (last.index, last.term);
    let mut results: Vec<(u64, u64, Applied)> = Vec::with_capacity(entries.len());
    let mut new_conf: Option<ConfState> = None;
    let mut events = EventBatch::default();
    let mut tokens = Vec::new();
    let mut auth_changed = false;
    store.apply_with(durable, |txn| {
        let mut a = Apply::begin(txn)?;
        events.before = a.revision();
        for e in entries {
            if e.index <= a.applied_before() {
                results.push((e.index, 0, Applied::Done));
                continue;
            }
            match e.get_entry_type() {
                EntryType::EntryNormal => {
                    if e.data.is_empty() {
                        results.push((e.index, 0, Applied::Done));
                        continue;
                    }
                    let cmd = spb::Command::decode(e.data.as_ref())?;
                    let tag = cmd.tag;
                    let applied = apply_command(&mut a, cmd, &mut tokens, &mut auth_changed)?;
                    results.push((e.index, tag, applied));
                }
                EntryType::EntryConfChange | EntryType::EntryConfChangeV2 => {
                    let cc: ConfChangeV2 = if e.get_entry_type() == EntryType::EntryConfChange {
                        ConfChange::parse_from_bytes(&e.data)?.into_v2()
                    } else {
                        ConfChangeV2::parse_from_bytes(&e.data)?
                    };
                    let ctx = spb::ConfContext::decode(cc.get_context()).unwrap_or_default();
                    let cs = raw
                        .apply_conf_change(&cc)
                        .map_err(|err| StoreError(format!("apply_conf_change: {err}")))?;
                    let members = a.members()?;
                    reconcile_members(&mut a, members, &ctx, &cs)?;
                    results.push((e.index, ctx.tag, Applied::Conf(conf_view(&cs))));
                    new_conf = Some(cs);
                }
            }
        }
        events.after = a.revision();
        events.changes = a.take_changes();
        a.finish(last_index, last_term, new_conf.as_ref())
    })?;
    if let Some(cs) = &new_conf {
        store.set_cached_conf_state(cs.clone());
    }
    if auth_changed {
        store.refresh_auth()?;
    }
    for (index, tag, result) in results {
        pending.applied(index, tag, result);
    }
    Ok(AppliedBatch {
        conf_changed: new_conf.is_some(),
        events: (events.after != events.before).then_some(events),
        tokens,
    })
}
