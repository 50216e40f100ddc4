//! `member status`: asks every member for its reachability, term, indexes
//! and lag behind the leader, and how it was started; the rows, the
//! cluster's fault tolerance and the diagnosis of a lost quorum are judged
//! in `calc::status` and `calc::recovery` (their items re-exported here).

use futures_util::future::{join, join_all, select, Either};
use futures_util::FutureExt;

pub use super::calc::recovery::{forced_fact, forced_warning, QuorumLoss, FORCED_REMEDY};
use super::calc::status::quorum_loss;
pub use super::calc::status::{ClusterStatus, MemberState, StatusRow, Tolerance};
use super::health::Health;
use super::MembershipApi;
use crate::error::Error;
use crate::model::{MemberId, MemberList, PeerProgress};

/// Runs `member status`: every endpoint's status and the leader's view of
/// replication are asked for while the member list is read; then the members
/// no endpoint answered for are asked, and how each member that answers was
/// started ([`StatusRow::start_flags`]).
pub async fn status<A: MembershipApi>(api: &A) -> Result<ClusterStatus, Error> {
    gather(api, true).await
}

/// [`status`] without asking how the members were started (the local
/// cluster's own reports).
pub async fn status_without_flags<A: MembershipApi>(api: &A) -> Result<ClusterStatus, Error> {
    gather(api, false).await
}

async fn gather<A: MembershipApi>(api: &A, read_flags: bool) -> Result<ClusterStatus, Error> {
    let urls = api.endpoint_urls();
    if read_flags {
        // Read while the connections open and the members are listed.
        api.prefetch_start_flags(&urls);
    }
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
    // Each member's status, and how it was started read at the same time:
    // kept only for a member that answers, and not waited for when it does not.
    let asked = join_all(list.members.iter().map(|m| {
        let early = api.endpoint_of(m).map(|i| early[i].clone());
        async move {
            let status = std::pin::pin!(async {
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
            });
            if !read_flags {
                return (status.await, None);
            }
            let flags = std::pin::pin!(api.start_flags(m));
            match select(status, flags).await {
                Either::Left((s, flags)) => {
                    let f = match &s {
                        Ok(_) => Some(flags.await),
                        Err(_) => None,
                    };
                    (s, f)
                }
                Either::Right((f, status)) => (status.await, Some(f)),
            }
        }
    }))
    .await;
    let (statuses, flags): (Vec<_>, Vec<_>) = asked.into_iter().unzip();
    let health = Health { list, statuses };
    // The leader's view of replication, where the server has it (not etcd).
    let progress = progress.map(|p| p.peers).unwrap_or_default();
    let (leader, mut rows) = rows(api, &health, &progress).await;
    for (r, f) in rows.iter_mut().zip(flags) {
        // A member that stopped answering on the recheck was asked before.
        r.start_flags = if r.status.is_ok() { f } else { None };
    }
    Ok(ClusterStatus {
        cluster_id: health.list.cluster_id,
        quorum_lost: quorum_loss(&rows, leader),
        tolerance: Tolerance::of(&rows),
        leader,
        rows,
    })
}

/// One row per member (lag behind the leader, its replication as the
/// leader sees it), and the leader — rechecked when it may be stale.
async fn rows<A: MembershipApi>(
    api: &A,
    health: &Health,
    progress: &[PeerProgress],
) -> (Option<MemberId>, Vec<StatusRow>) {
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
            start_flags: None,
        })
        .collect();
    recheck_unseen_leader(api, leader, rows).await
}

/// The lost quorum behind a member list no leader confirmed, if that is
/// why: every member's status asked (the list is not read again).
pub async fn diagnose<A: MembershipApi>(api: &A, list: &MemberList) -> Option<QuorumLoss> {
    let statuses = join_all(list.members.iter().map(|m| api.member_status(m))).await;
    let health = Health {
        list: list.clone(),
        statuses,
    };
    let (leader, rows) = rows(api, &health, &[]).await;
    quorum_loss(&rows, leader)
}

/// How long the members that answer are asked again whether they still
/// have the leader that does not answer (more than an election timeout).
const LEADER_RECHECK: std::time::Duration = std::time::Duration::from_secs(3);

/// When fewer voters than a quorum answer but a leader is named, the name
/// may be stale (a leader that just died is named by its followers until an
/// election timeout passes, and a leader cut off from its quorum leads until
/// check-quorum steps it down) or this client may not reach members that
/// live: the members that answer are asked again, boundedly; once none
/// names a leader, there is none.
async fn recheck_unseen_leader<A: MembershipApi>(
    api: &A,
    leader: Option<MemberId>,
    mut rows: Vec<StatusRow>,
) -> (Option<MemberId>, Vec<StatusRow>) {
    if leader.is_none() {
        return (leader, rows);
    }
    let voters = rows.iter().filter(|r| !r.member.is_learner).count();
    let answering = rows
        .iter()
        .filter(|r| !r.member.is_learner && r.status.is_ok())
        .count();
    if answering > voters / 2 || answering == 0 {
        return (leader, rows);
    }
    let deadline = std::time::Instant::now() + LEADER_RECHECK;
    while std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let again = join_all(
            rows.iter()
                .filter(|r| r.status.is_ok())
                .map(|r| api.member_status(&r.member)),
        )
        .await;
        if again
            .iter()
            .all(|s| s.as_ref().is_ok_and(|s| s.leader.0 == 0))
        {
            let mut fresh = again.into_iter();
            for r in rows.iter_mut().filter(|r| r.status.is_ok()) {
                if let Some(s) = fresh.next() {
                    r.status = s;
                }
            }
            return (None, rows);
        }
    }
    (leader, rows)
}
