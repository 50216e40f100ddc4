//! `member remove`: refuse (rule 4) a removal that would leave too few reachable voters; move leadership away first when the leader goes.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::calc::quorum::{self, Config, PlanStep};
use super::health::gather_with_leader;
use super::leader::{self, Moved};
use super::preflight::{Change, Check, Preflight};
use super::resolve::{resolve, Purpose};
use super::retry::send_change;
use super::{Ctx, MembershipApi};
use crate::error::Error;
use crate::model::{Member, MemberList};

/// What to remove and how.
#[derive(Clone, Debug)]
pub struct RemoveRequest {
    /// The member, by name or hex ID.
    pub target: String,
    /// Only print the plan.
    pub dry_run: bool,
    /// Skip rule 4.
    pub force: bool,
    /// How long to wait for a named member to start and for leadership to move.
    pub timeout: Duration,
    /// The pre-flight checks.
    pub preflight: Preflight,
}

/// What `member remove` did, with the pre-flight checks it passed (warnings
/// and skips included; none when the caller ran them).
#[derive(Clone, Debug, PartialEq)]
pub enum RemoveOutcome {
    /// The member is gone.
    Removed {
        /// The member that was removed.
        removed: Member,
        /// The membership after.
        list: MemberList,
        /// The leadership transfer done first, when the member led.
        moved: Option<Box<Moved>>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// `--dry-run`: the configurations before and after.
    Plan {
        /// Before, the leadership transfer when the member leads, and after.
        steps: Vec<PlanStep>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
}

/// Runs `member remove TARGET`. When the member leads, leadership is first
/// handed to the most caught-up voter that stays; if that fails, nothing is
/// removed.
pub async fn remove<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &RemoveRequest,
) -> Result<RemoveOutcome, Error> {
    let (api, observer) = (cx.api, cx.observer);
    let started = Instant::now();
    let list = api.member_list().await?;
    let member = resolve(&list, &req.target, Purpose::Remove)?.clone();
    let deadline = Instant::now() + cx.command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    let reachable = health.reachable();
    if let Err(refusal) = quorum::check_remove(&health.list, &reachable, member.id) {
        if !req.force {
            return Err(refusal);
        }
        observer.notice(&format!("--force: going on despite: {}", refusal.message));
    }
    let checks = req
        .preflight
        .run(api, observer, &health, &[Change::Remove(member.id)])
        .await?;
    let leaving = HashSet::from([member.id]);
    let mut config = Config::of(&health.list, &reachable);
    let mut plan = vec![config.step("before")];
    let transfer = leader::planned(&health, &leaving);
    if let Some((from, to)) = &transfer {
        plan.push(config.step(leader::step_name(from, to)));
    }
    config.remove(&member.id.to_string());
    plan.push(config.step(format!("after removing {}", member.label())));
    if req.dry_run {
        return Ok(RemoveOutcome::Plan {
            steps: plan,
            checks,
        });
    }
    let no_successor = health.leader() == Some(member.id) && transfer.is_none();
    let moved = if req.force && no_successor {
        observer.notice(
            "--force: no voter that stays is reachable to take over; removing the leader \
             without moving leadership first",
        );
        None
    } else {
        let transfer_deadline = (started + req.timeout).max(Instant::now() + cx.command_timeout);
        leader::move_away(api, observer, &health, &leaving, transfer_deadline)
            .await?
            .map(Box::new)
    };
    // etcd refuses a removal as "unhealthy cluster" for about 5 s after a
    // member connects (a new one just promoted): waited out within --timeout.
    let deadline = (started + req.timeout).max(Instant::now() + cx.command_timeout);
    let down: Vec<String> = health
        .unreachable_voters()
        .iter()
        .filter(|m| m.id != member.id)
        .map(|m| m.label())
        .collect();
    let result = send_change(
        observer,
        "member remove",
        &down,
        (deadline, "--timeout"),
        || api.member_remove(member.id),
    )
    .await;
    let list = match result {
        Ok(list) => list,
        // The answer may have been lost after the server applied the removal
        // (the member that took it stopped first: `server stopped`).
        Err(e) if e.kind == crate::ErrorKind::Unavailable => {
            let deadline = Instant::now() + cx.command_timeout;
            match confirm_gone(api, member.id, deadline).await {
                Some(list) => list,
                None => return Err(e),
            }
        }
        Err(e) => return Err(e),
    };
    Ok(RemoveOutcome::Removed {
        removed: member,
        list,
        moved,
        checks,
    })
}

/// How often [`confirm_gone`] reads the member list.
const GONE_POLL: Duration = Duration::from_millis(100);

/// After a lost answer to a removal: reads the member list (through any
/// member that answers) until member `id` is gone from it, or `deadline`
/// passes (None: the removal may not have happened). A member that has not
/// applied the removal yet may still list it for a moment.
async fn confirm_gone<A: MembershipApi>(
    api: &A,
    id: crate::model::MemberId,
    deadline: Instant,
) -> Option<MemberList> {
    loop {
        if let Ok(list) = api.member_list().await {
            if list.get(id).is_none() {
                return Some(list);
            }
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(GONE_POLL.min(deadline - Instant::now())).await;
    }
}
