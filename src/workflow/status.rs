//! `member status`: every member's reachability, term, indexes and lag behind the leader.

use futures_util::future::{join, join_all, select, Either};
use futures_util::FutureExt;

use super::health::Health;
use super::{ApiError, MembershipApi};
use crate::error::Error;
use crate::model::{Member, MemberId, MemberList, MemberStatus, PeerProgress};

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
    /// Set when no leader is known and too few voters answer to elect one.
    pub quorum_lost: Option<QuorumLoss>,
}

/// A lost quorum, as `member status` diagnoses it: which voters answer,
/// which survivor has the most of the log, and how to recover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuorumLoss {
    /// Voters in the configuration.
    pub voters: usize,
    /// Voters needed to elect a leader.
    pub quorum: usize,
    /// The voters that answer.
    pub answering: Vec<Member>,
    /// The voters that do not.
    pub lost: Vec<Member>,
    /// The answering voter with the most of the log (highest term, then
    /// index), with its term and index.
    pub survivor: Option<(Member, u64, u64)>,
}

impl QuorumLoss {
    /// The diagnosis and the recovery steps, with the exact commands.
    pub fn advice(&self) -> Vec<String> {
        let names = |ms: &[Member]| {
            if ms.is_empty() {
                "none".to_string()
            } else {
                ms.iter().map(Member::label).collect::<Vec<_>>().join(", ")
            }
        };
        let mut out = vec![format!(
            "quorum lost: {} of {} voters answer ({}), a quorum is {}: no leader can be \
             elected, so nothing can be written or changed; not answering: {}",
            self.answering.len(),
            self.voters,
            names(&self.answering),
            self.quorum,
            names(&self.lost)
        )];
        let Some((s, term, index)) = &self.survivor else {
            out.push(
                "no voter answers: start any that can start; if a majority is gone for good, \
                 recover from the one with the most of the log (see `member status` once it runs)"
                    .to_string(),
            );
            return out;
        };
        out.push(format!(
            "if the others are gone for good, recover from {} (term {term}, index {index}, the \
             most of the log among those that answer); writes acknowledged past what it holds \
             are lost:",
            s.label()
        ));
        out.push(format!(
            "  1. stop every member, then restart {} on its data directory with its usual flags \
             and --force-new-cluster (etcd and memberctl node run alike): it becomes the only member",
            s.label()
        ));
        for (i, m) in self
            .lost
            .iter()
            .chain(self.answering.iter().filter(|a| a.id != s.id))
            .enumerate()
        {
            out.push(format!(
                "  {}. memberctl member add {} --learner --peer-urls {}  (start it on an empty \
                 data directory as printed, then: memberctl member promote {})",
                i + 2,
                if m.name.is_empty() { "NAME" } else { &m.name },
                m.peer_urls.join(","),
                if m.name.is_empty() { "NAME" } else { &m.name },
            ));
        }
        out
    }
}

/// The lost quorum `rows` show, if they show one: no leader, and fewer
/// voters answering than a quorum.
fn quorum_loss(rows: &[StatusRow], leader: Option<MemberId>) -> Option<QuorumLoss> {
    if leader.is_some() {
        return None;
    }
    let voters: Vec<&StatusRow> = rows.iter().filter(|r| !r.member.is_learner).collect();
    let quorum = voters.len() / 2 + 1;
    let (answering, lost): (Vec<&StatusRow>, Vec<&StatusRow>) =
        voters.iter().partition(|r| r.status.is_ok());
    if voters.is_empty() || answering.len() >= quorum {
        return None;
    }
    let survivor = answering
        .iter()
        .filter_map(|r| r.status.as_ref().ok().map(|s| (r, s)))
        .max_by_key(|(_, s)| (s.raft_term, s.raft_index))
        .map(|(r, s)| (r.member.clone(), s.raft_term, s.raft_index));
    Some(QuorumLoss {
        voters: voters.len(),
        quorum,
        answering: answering.iter().map(|r| r.member.clone()).collect(),
        lost: lost.iter().map(|r| r.member.clone()).collect(),
        survivor,
    })
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
    let (leader, rows) = rows(api, &health, &progress).await;
    Ok(ClusterStatus {
        cluster_id: health.list.cluster_id,
        quorum_lost: quorum_loss(&rows, leader),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::ApiErrorKind;

    fn row(id: u64, name: &str, answer: Option<(u64, u64)>, learner: bool) -> StatusRow {
        StatusRow {
            member: Member {
                id: MemberId(id),
                name: name.into(),
                peer_urls: vec![format!("http://{name}:2380")],
                is_learner: learner,
                ..Default::default()
            },
            status: match answer {
                Some((raft_term, raft_index)) => Ok(MemberStatus {
                    member_id: MemberId(id),
                    raft_term,
                    raft_index,
                    ..Default::default()
                }),
                None => Err(ApiError::new(ApiErrorKind::Unavailable, "refused")),
            },
            lag: None,
            progress: None,
        }
    }

    #[test]
    fn a_lost_quorum_names_the_best_survivor_and_the_commands() {
        let rows = vec![
            row(1, "m1", Some((2, 9)), false),
            row(2, "m2", None, false),
            row(3, "m3", None, false),
            row(4, "m4", Some((3, 7)), false),
            row(5, "m5", None, false),
            // A learner neither counts nor is a survivor.
            row(6, "l1", Some((9, 99)), true),
        ];
        let q = quorum_loss(&rows, None).expect("2 of 5 voters answer");
        assert_eq!((q.voters, q.quorum), (5, 3));
        assert_eq!(q.answering.len(), 2);
        assert_eq!(q.lost.len(), 3);
        // The higher term wins over the higher index.
        let (s, term, index) = q.survivor.clone().unwrap();
        assert_eq!((s.name.as_str(), term, index), ("m4", 3, 7));
        let advice = q.advice().join("\n");
        assert!(advice.contains("--force-new-cluster"), "{advice}");
        for name in ["m1", "m2", "m3", "m5"] {
            assert!(
                advice.contains(&format!(
                    "memberctl member add {name} --learner --peer-urls http://{name}:2380"
                )),
                "{advice}"
            );
        }
        assert!(!advice.contains("member add m4"), "{advice}");
        // A leader, or a quorum that answers: no diagnosis.
        assert!(quorum_loss(&rows, Some(MemberId(1))).is_none());
        let mut healthy = rows.clone();
        healthy[1] = row(2, "m2", Some((2, 9)), false);
        assert!(quorum_loss(&healthy, None).is_none());
    }
}
