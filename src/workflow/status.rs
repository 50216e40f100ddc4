//! `member status`: every member's reachability, term, indexes and lag behind the leader.

use futures_util::future::{join, join_all, select, Either};
use futures_util::FutureExt;

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

/// Runs `member status`: every endpoint's status and the leader's view of
/// replication are asked for while the member list is read; then the members
/// no endpoint answered for are asked.
pub async fn status<A: MembershipApi>(api: &A) -> Result<ClusterStatus, Error> {
    let urls = api.endpoint_urls();
    let early: Vec<_> = urls.iter().map(|u| api.status_at(u).shared()).collect();
    let (list, progress) = {
        let first = std::pin::pin!(join(api.member_list(), api.get_progress()));
        let ahead = std::pin::pin!(join_all(early.iter().cloned()));
        match select(first, ahead).await {
            // An endpoint still to answer is waited for below, not asked again.
            Either::Left((both, _)) => both,
            Either::Right((_, first)) => first.await,
        }
    };
    let list = list?;
    let statuses = join_all(list.members.iter().map(|m| {
        let early = api.endpoint_of(m).map(|i| early[i].clone());
        async move {
            match early {
                Some(answer) => match answer.await {
                    Ok(s) if s.member_id == m.id => Ok(s),
                    // The endpoint is some other member now, or did not
                    // answer and the member has other URLs: ask it.
                    Ok(_) => api.member_status(m).await,
                    Err(_) if m.client_urls.len() > 1 => api.member_status(m).await,
                    Err(e) => Err(e),
                },
                None => api.member_status(m).await,
            }
        }
    }))
    .await;
    let health = Health { list, statuses };
    // The leader's view of replication, where the server has it (not etcd).
    let progress = progress.map(|p| p.peers).unwrap_or_default();
    let leader = health.leader();
    let leader_index = health.leader_status().map(|s| s.raft_index);
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
