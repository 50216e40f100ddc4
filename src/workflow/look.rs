//! Takes one look at the members ([`look_at`], [`look`]): their statuses,
//! and the leader's progress (engine) or `/metrics` (etcd); what a look
//! shows is judged in `calc::look`.

use std::time::Duration;

pub use super::calc::look::{from_parts, Look, Seen};
use super::health::Health;
use super::{ApiError, MembershipApi};

/// Looks at the members of `health`: the leader's progress for each
/// (engine) or the leader's `/metrics` (etcd), beside the statuses `health`
/// holds.
pub async fn look_at<A: MembershipApi>(api: &A, health: &Health, at: Duration) -> Look {
    let progress = api.get_progress().await.ok();
    let leader = progress
        .as_ref()
        .map(|p| p.leader)
        .filter(|l| l.0 != 0)
        .or_else(|| health.leader())
        .and_then(|l| health.list.get(l));
    let metrics = match leader {
        Some(l) if progress.is_none() => api.server_metrics(l).await.ok(),
        _ => None,
    };
    from_parts(health, progress.as_ref(), metrics.as_ref(), at)
}

/// Looks at every member once: its Status, the leader's progress for it
/// (engine) or the leader's `/metrics` (etcd). Fails only when the member
/// list cannot be read.
pub async fn look<A: MembershipApi>(api: &A, at: Duration) -> Result<Look, ApiError> {
    let list = api.member_list().await?;
    let health = Health::gather(api, list).await;
    Ok(look_at(api, &health, at).await)
}
