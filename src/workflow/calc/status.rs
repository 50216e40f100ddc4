//! `member status`'s rows judged: each member's state word, the cluster's fault tolerance, and the lost quorum the rows show. Asking the members is `workflow::status`'s.

use super::quorum::{fault_tolerance, quorum};
use super::recovery::{forced_warning, QuorumLoss};
use crate::model::{ApiError, Member, MemberId, MemberStatus, PeerProgress, StartFlags};

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
pub fn quorum_loss(rows: &[StatusRow], leader: Option<MemberId>) -> Option<QuorumLoss> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ApiErrorKind;

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
