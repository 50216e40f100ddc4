//! `member remove`: refuse (rule 4) a removal that would leave too few reachable voters.

use tokio::time::Instant;

use super::health::gather_with_leader;
use super::quorum::{self, Config, PlanStep};
use super::resolve::resolve;
use super::retry::send_change;
use super::{MembershipApi, Observer};
use crate::error::Error;
use crate::model::{Member, MemberList};

/// What `member remove` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoveOutcome {
    /// The member is gone.
    Removed {
        /// The member that was removed.
        removed: Member,
        /// The membership after.
        list: MemberList,
    },
    /// `--dry-run`: the configurations before and after.
    Plan(Vec<PlanStep>),
}

/// Runs `member remove TARGET`.
pub async fn remove<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    target: &str,
    dry_run: bool,
    force: bool,
    command_timeout: std::time::Duration,
) -> Result<RemoveOutcome, Error> {
    let list = api.member_list().await?;
    let member = resolve(&list, target)?.clone();
    let deadline = Instant::now() + command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    let reachable = health.reachable();
    if let Err(refusal) = quorum::check_remove(&health.list, &reachable, member.id) {
        if !force {
            return Err(refusal);
        }
        observer.notice(&format!("--force: going on despite: {}", refusal.message));
    }
    let mut config = Config::of(&health.list, &reachable);
    let before = config.step("before");
    config.remove(&member.id.to_string());
    let after = config.step(format!("after removing {}", member.label()));
    if dry_run {
        return Ok(RemoveOutcome::Plan(vec![before, after]));
    }
    let down: Vec<String> = health
        .unreachable_voters()
        .iter()
        .filter(|m| m.id != member.id)
        .map(|m| m.label())
        .collect();
    let result = send_change(observer, "member remove", &down, deadline, || {
        api.member_remove(member.id)
    })
    .await;
    let list = match result {
        Ok(list) => list,
        // The answer may have been lost after the server applied the removal.
        Err(e) if e.kind == crate::ErrorKind::Unavailable => match api.member_list().await {
            Ok(list) if list.get(member.id).is_none() => list,
            _ => return Err(e),
        },
        Err(e) => return Err(e),
    };
    Ok(RemoveOutcome::Removed {
        removed: member,
        list,
    })
}
