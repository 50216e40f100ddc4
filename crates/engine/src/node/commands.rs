//! What committed entries do to the state machine: commands (transactions,
//! compaction, leases, alarms, auth, member metadata) and configuration
//! changes (member metadata brought in line with raft's new configuration),
//! applied in one batch, each entry once and in index order; a command that
//! takes longer than etcd's warning threshold counts as a slow apply.

use std::collections::HashSet;

use prost::Message as _;
use raft::eraftpb::{ConfState, Entry, EntryType};

use super::conf::conf_view;
use super::tokens::TokenEvent;
use super::Applied;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::adds_data;
use crate::storage::Batch;
use crate::storage::{conf_members, State};
use crate::storage::{Change, Refusal};
use crate::storage::{Result, StoreError};

/// A committed entry on its way to the apply stage; a configuration change
/// carries the conf state raft reached with it.
pub struct Committed {
    /// The entry.
    pub entry: Entry,
    /// For a configuration change: raft's configuration after it.
    pub conf: Option<ConfState>,
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
#[derive(Default)]
pub struct AppliedBatch {
    /// Each entry's index, its proposal's tag (0: none) and its outcome.
    pub results: Vec<(u64, u64, Applied)>,
    /// Whether the members or their peer URLs changed.
    pub peers_changed: bool,
    /// The key changes (None when the revision did not move).
    pub events: Option<EventBatch>,
    /// What the batch did to the simple tokens.
    pub tokens: Vec<TokenEvent>,
    /// Bytes of the entries' data.
    pub bytes: u64,
}

fn apply_command(a: &mut Batch<'_>, cmd: spb::Command, out: &mut AppliedBatch) -> Applied {
    use spb::command::Op;
    let revision_or = |a: &Batch<'_>, r: std::result::Result<(), Refusal>| match r {
        Ok(()) => Applied::Revision(a.revision()),
        Err(e) => Applied::Refused(e),
    };
    if cmd.op.as_ref().is_some_and(adds_data) && a.no_space() {
        return Applied::Refused(Refusal::NoSpace);
    }
    match cmd.op {
        Some(Op::Alarm(alarm)) => Applied::Alarm(a.alarm(&alarm)),
        Some(Op::Auth(change)) => match a.auth(&change) {
            Ok(state) => {
                use spb::auth_change::Change as C;
                match change.change {
                    Some(C::UserDelete(user)) => out.tokens.push(TokenEvent::UserChanged(user)),
                    Some(C::UserChangePassword(u)) => {
                        out.tokens.push(TokenEvent::UserChanged(u.name))
                    }
                    Some(C::Disable(_)) => out.tokens.push(TokenEvent::Cleared),
                    _ => {}
                }
                Applied::Auth(Ok(state.revision))
            }
            Err(e) => Applied::Auth(Err(e)),
        },
        Some(Op::IssueToken(t)) => {
            out.tokens.push(TokenEvent::Issued {
                token: t.token,
                user: t.user,
            });
            Applied::Done
        }
        Some(Op::Txn(t)) => match a.txn(&t) {
            Ok(r) => Applied::Txn(r),
            Err(e) => Applied::Refused(e),
        },
        Some(Op::Compact(c)) => {
            let r = a.compact(c.revision);
            revision_or(a, r)
        }
        Some(Op::LeaseGrant(g)) => {
            let r = a.grant(g.id, g.ttl);
            revision_or(a, r)
        }
        Some(Op::LeaseRevoke(r)) => {
            let r = a.revoke(r.id);
            revision_or(a, r)
        }
        Some(Op::UpdateMember(u)) => {
            if let Some(mut m) = a.member(u.id) {
                m.peer_urls = u.peer_urls;
                a.put_member(&m);
                out.peers_changed = true;
            }
            Applied::Done
        }
        Some(Op::Publish(p)) => {
            if let Some(mut m) = a.member(p.id) {
                m.name = p.name;
                m.client_urls = p.client_urls;
                a.put_member(&m);
            }
            Applied::Done
        }
        None => Applied::Done,
    }
}

/// Brings member metadata in line with a new conf state: new members from the
/// change's context, learner flags, removed members gone.
fn reconcile_members(a: &mut Batch<'_>, ctx: &spb::ConfContext, cs: &ConfState) {
    let all: HashSet<u64> = conf_members(cs).into_iter().collect();
    let learners: HashSet<u64> = cs.learners.iter().copied().collect();
    for m in a.members() {
        if !all.contains(&m.id) {
            a.remove_member(m.id);
        }
    }
    for added in &ctx.added {
        if all.contains(&added.id) && a.member(added.id).is_none() {
            a.put_member(added);
        }
    }
    for id in &all {
        if let Some(mut m) = a.member(*id) {
            let learner = learners.contains(id);
            if m.is_learner != learner {
                m.is_learner = learner;
                a.put_member(&m);
            }
        }
    }
}

/// The context a configuration change entry carries.
fn conf_context(e: &Entry) -> Result<spb::ConfContext> {
    let cc = crate::storage::conf_change(e)?;
    Ok(spb::ConfContext::decode(cc.get_context()).unwrap_or_default())
}

/// Applies `entries` to `state`; each entry is applied once, in index
/// order, and the last one's index recorded with them.
pub fn apply_entries(state: &mut State, entries: Vec<Committed>) -> Result<AppliedBatch> {
    let mut out = AppliedBatch::default();
    let Some((last_index, last_term)) = entries.last().map(|c| (c.entry.index, c.entry.term))
    else {
        return Ok(out);
    };
    let mut a = Batch::begin(state);
    let mut events = EventBatch {
        before: a.revision(),
        ..Default::default()
    };
    let mut new_conf: Option<ConfState> = None;
    for Committed { entry: e, conf } in entries {
        out.bytes += e.data.len() as u64;
        if e.index <= a.applied_before() {
            out.results.push((e.index, 0, Applied::Done));
            continue;
        }
        match e.get_entry_type() {
            EntryType::EntryNormal => {
                if e.data.is_empty() {
                    out.results.push((e.index, 0, Applied::Done));
                    continue;
                }
                // Timed as etcd times each request it applies.
                let started = std::time::Instant::now();
                let cmd = spb::Command::decode(e.data.as_ref())?;
                let tag = cmd.tag;
                let applied = apply_command(&mut a, cmd, &mut out);
                if let Some(took) = crate::metrics::slow_apply(started) {
                    slog::warn!(
                        crate::log::logger(),
                        "apply request took too long";
                        "took" => format!("{took:?}"),
                        "expected-duration" => format!("{:?}", crate::metrics::WARN_APPLY_DURATION),
                        "index" => e.index,
                    );
                }
                out.results.push((e.index, tag, applied));
            }
            EntryType::EntryConfChange | EntryType::EntryConfChangeV2 => {
                let ctx = conf_context(&e)?;
                let cs = conf.ok_or_else(|| {
                    StoreError::other(format!(
                        "configuration change at index {} reached the state machine without \
                         raft's configuration",
                        e.index
                    ))
                })?;
                reconcile_members(&mut a, &ctx, &cs);
                out.results
                    .push((e.index, ctx.tag, Applied::Conf(conf_view(&cs))));
                out.peers_changed = true;
                new_conf = Some(cs);
            }
        }
    }
    events.after = a.revision();
    events.changes = a.take_changes();
    let puts = events.changes.iter().filter(|c| !c.kv.tombstone).count() as u64;
    let m = crate::metrics::get();
    m.mvcc_puts.inc_by(puts);
    m.mvcc_deletes.inc_by(a.delete_ops());
    a.finish(last_index, last_term, new_conf.as_ref());
    out.events = (events.after != events.before).then_some(events);
    Ok(out)
}
