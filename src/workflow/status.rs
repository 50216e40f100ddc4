//! `member status`: every member's reachability, term, indexes and lag behind the leader.

use super::health::Health;
use super::{ApiError, MembershipApi};
use crate::error::Error;
use crate::model::{Member, MemberId, MemberStatus, PeerProgress};

/// One member's row.
#[derive(Clone, Debug)]
pub struct StatusRow {
    /// The member.
    pub member: Member,
    /// What it answered.
    pub status: Result<MemberStatus, ApiError>,
    /// Entries behind the leader's index, when both are known.
    pub lag: Option<u64>,
    /// Its replication as the leader sees it (memberctl engine only).
    pub progress: Option<PeerProgress>,
}

/// The status of the whole cluster.
#[derive(Clone, Debug)]
pub struct ClusterStatus {
    /// The cluster ID.
    pub cluster_id: MemberId,
    /// The leader, if any member names one.
    pub leader: Option<MemberId>,
    /// One row per member, sorted by ID.
    pub rows: Vec<StatusRow>,
}

/// Runs `member status`.
pub async fn status<A: MembershipApi>(api: &A) -> Result<ClusterStatus, Error> {
    let list = api.member_list().await?;
    let health = Health::gather(api, list).await;
    let leader = health.leader();
    let leader_index = health.leader_status().map(|s| s.raft_index);
    // The leader's view of replication, where the server has it (not etcd).
    let progress = api
        .get_progress()
        .await
        .map(|p| p.peers)
        .unwrap_or_default();
    let rows = health
        .list
        .members
        .iter()
        .zip(&health.statuses)
        .map(|(m, s)| StatusRow {
            member: m.clone(),
            status: s.clone(),
            lag: match (leader_index, s) {
                (Some(l), Ok(s)) => Some(l.saturating_sub(s.raft_index)),
                _ => None,
            },
            progress: progress.iter().find(|p| p.id == m.id).cloned(),
        })
        .collect();
    Ok(ClusterStatus {
        cluster_id: health.list.cluster_id,
        leader,
        rows,
    })
}
