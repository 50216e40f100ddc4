//! `member status`: every member's reachability, term, indexes and lag
//! behind the leader, the cluster's fault tolerance, and (recovery.rs) the
//! diagnosis of a lost quorum and the warning while a member still runs
//! with `--force-new-cluster`.

use futures_util::future::{join, join_all, select, Either};
use futures_util::FutureExt;

use super::calc::quorum::{fault_tolerance, quorum};
pub use super::calc::recovery::{forced_fact, forced_warning, QuorumLoss, FORCED_REMEDY};
use super::health::Health;
use super::{ApiError, MembershipApi};
use crate::error::Error;
use crate::model::{Member, MemberId, MemberList, MemberStatus, PeerProgress, StartFlags};

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
    /// How it was started (whether it runs with `--force-new-cluster`), read
    /// when it answered; `None` when it was not asked.
    pub start_flags: Option<Result<StartFlags, ApiError>>,
}

/// What a member is, as `member status` says it in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberState {
    /// It is the leader.
    Leader,
    /// A voter that answers and names a leader.
    Follower,
    /// A learner that answers and names a leader.
    Learner,
    /// It answers but names no leader (an election, or a lost quorum).
    NoLeader,
    /// It does not answer.
    Unreachable,
}

impl MemberState {
    /// The word printed: `leader`, `follower`, `learner`, `no_leader`, `unreachable`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberState::Leader => "leader",
            MemberState::Follower => "follower",
            MemberState::Learner => "learner",
            MemberState::NoLeader => "no_leader",
            MemberState::Unreachable => "unreachable",
        }
    }
}

impl StatusRow {
    /// Its state, `leader` being the cluster's leader.
    pub fn state(&self, leader: Option<MemberId>) -> MemberState {
        match &self.status {
            Err(_) => MemberState::Unreachable,
            Ok(_) if leader == Some(self.member.id) => MemberState::Leader,
            Ok(s) if s.leader.0 == 0 => MemberState::NoLeader,
            Ok(_) if self.member.is_learner => MemberState::Learner,
            Ok(_) => MemberState::Follower,
        }
    }

    /// Whether it runs with `--force-new-cluster`, as read.
    pub fn forced(&self) -> Option<&StartFlags> {
        match &self.start_flags {
            Some(Ok(f)) if f.force_new_cluster => Some(f),
            _ => None,
        }
    }
}

/// The voters, the quorum, the voters that answer memberctl, and how many
/// more of those may fail before no quorum is left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tolerance {
    /// Voters in the configuration.
    pub voters: usize,
    /// Voters needed to elect a leader and commit.
    pub quorum: usize,
    /// Voters that answered memberctl.
    pub answering: usize,
    /// Answering voters beyond the quorum: 0 with one voter of three down,
    /// and when the quorum is lost.
    pub fault_tolerance: usize,
}

impl Tolerance {
    /// The tolerance `rows` show.
    pub fn of(rows: &[StatusRow]) -> Tolerance {
        let voters = rows.iter().filter(|r| !r.member.is_learner).count();
        let answering = rows
            .iter()
            .filter(|r| !r.member.is_learner && r.status.is_ok())
            .count();
        Tolerance {
            voters,
            quorum: if voters == 0 { 0 } else { quorum(voters) },
            answering,
            fault_tolerance: fault_tolerance(voters, answering),
        }
    }
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
    /// Voters, quorum, answering voters and fault tolerance.
    pub tolerance: Tolerance,
}

impl ClusterStatus {
    /// What the operator must hear besides the table: a member still
    /// running with `--force-new-cluster`.
    pub fn warnings(&self) -> Vec<String> {
        let forced: Vec<(&Member, &StartFlags)> = self
            .rows
            .iter()
            .filter_map(|r| r.forced().map(|f| (&r.member, f)))
            .collect();
        forced_warning(&forced).into_iter().collect()
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
    // How each member that answers was started, while the leader is settled.
    let flags = join_all(health.list.members.iter().zip(&health.statuses).map(
        |(m, s)| async move {
            match s {
                Ok(_) if read_flags => Some(api.start_flags(m).await),
                _ => None,
            }
        },
    ));
    let ((leader, mut rows), flags) = join(rows(api, &health, &progress), flags).await;
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
            start_flags: None,
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
        // 2 of 5 voters answer: no tolerance left, and the learner does not count.
        let t = Tolerance::of(&rows);
        assert_eq!(
            (t.voters, t.quorum, t.answering, t.fault_tolerance),
            (5, 3, 2, 0)
        );
    }

    #[test]
    fn one_voter_of_three_down_leaves_no_fault_tolerance() {
        let mut rows = vec![
            row(1, "m1", Some((2, 9)), false),
            row(2, "m2", Some((2, 9)), false),
            row(3, "m3", None, false),
        ];
        let t = Tolerance::of(&rows);
        assert_eq!(
            (t.voters, t.quorum, t.answering, t.fault_tolerance),
            (3, 2, 2, 0)
        );
        rows[2] = row(3, "m3", Some((2, 9)), false);
        assert_eq!(Tolerance::of(&rows).fault_tolerance, 1);
    }

    #[test]
    fn a_member_that_does_not_answer_is_no_follower() {
        let mut follower = row(2, "m2", Some((2, 9)), false);
        follower.status.as_mut().unwrap().leader = MemberId(1);
        assert_eq!(follower.state(Some(MemberId(1))), MemberState::Follower);
        let leader = row(1, "m1", Some((2, 9)), false);
        assert_eq!(leader.state(Some(MemberId(1))), MemberState::Leader);
        // It answers, but names no leader.
        assert_eq!(
            row(3, "m3", Some((2, 9)), false).state(None),
            MemberState::NoLeader
        );
        assert_eq!(
            row(3, "m3", None, false).state(Some(MemberId(1))),
            MemberState::Unreachable
        );
        let mut learner = row(4, "l1", Some((2, 9)), true);
        learner.status.as_mut().unwrap().leader = MemberId(1);
        assert_eq!(learner.state(Some(MemberId(1))), MemberState::Learner);
    }
}
