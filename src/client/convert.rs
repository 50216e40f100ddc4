//! Conversions between etcd's protobuf messages and memberctl's domain types, and gRPC status → [`ApiError`].

use crate::model::{
    Alarm, AlarmKind, Configuration, JointChange, Member, MemberId, MemberList, MemberStatus,
    PeerProgress, ProgressReport,
};
use crate::proto::etcdserverpb as pb;
use crate::proto::memberctl_v1 as mpb;
use crate::workflow::{ApiError, ApiErrorKind};

/// A protobuf member as a domain member.
pub fn member(m: pb::Member) -> Member {
    Member {
        id: MemberId(m.id),
        name: m.name,
        peer_urls: m.peer_ur_ls,
        client_urls: m.client_ur_ls,
        is_learner: m.is_learner,
    }
}

/// A response header and members as a domain member list.
pub fn member_list(header: Option<pb::ResponseHeader>, members: Vec<pb::Member>) -> MemberList {
    let cluster_id = header.map_or(0, |h| h.cluster_id);
    MemberList::new(
        MemberId(cluster_id),
        members.into_iter().map(member).collect(),
    )
}

/// A status response as a domain status.
pub fn status(s: pb::StatusResponse) -> MemberStatus {
    let (member_id, revision) = s.header.map_or((0, 0), |h| (h.member_id, h.revision));
    MemberStatus {
        member_id: MemberId(member_id),
        revision,
        db_size: u64::try_from(s.db_size).unwrap_or(0),
        db_size_in_use: u64::try_from(s.db_size_in_use).unwrap_or(0),
        leader: MemberId(s.leader),
        raft_term: s.raft_term,
        raft_index: s.raft_index,
        raft_applied_index: s.raft_applied_index,
        is_learner: s.is_learner,
        version: s.version,
        errors: s.errors,
    }
}

/// Etcd's alarm list as domain alarms.
pub fn alarms(r: pb::AlarmResponse) -> Vec<Alarm> {
    r.alarms
        .into_iter()
        .filter(|a| a.alarm != pb::AlarmType::None as i32)
        .map(|a| Alarm {
            member_id: MemberId(a.member_id),
            kind: match pb::AlarmType::try_from(a.alarm) {
                Ok(pb::AlarmType::Nospace) => AlarmKind::NoSpace,
                Ok(pb::AlarmType::Corrupt) => AlarmKind::Corrupt,
                _ => AlarmKind::Other(a.alarm),
            },
        })
        .collect()
}

fn ids(v: &[u64]) -> Vec<MemberId> {
    v.iter().map(|&i| MemberId(i)).collect()
}

/// The extension's configuration as a domain configuration.
pub fn configuration(c: mpb::Config) -> Configuration {
    Configuration {
        voters: ids(&c.voters),
        voters_outgoing: ids(&c.voters_outgoing),
        learners: ids(&c.learners),
        learners_next: ids(&c.learners_next),
        auto_leave: c.auto_leave,
    }
}

/// The extension's progress as a domain report.
pub fn progress(p: mpb::Progress) -> ProgressReport {
    ProgressReport {
        leader: MemberId(p.leader),
        last_index: p.last_index,
        peers: p
            .peers
            .into_iter()
            .map(|p| PeerProgress {
                id: MemberId(p.id),
                matched: p.match_index,
                next: p.next_index,
                state: p.state,
                is_learner: p.is_learner,
                recent_active: p.recent_active,
                pending_snapshot: p.pending_snapshot,
            })
            .collect(),
        first_index: p.first_index,
        snapshot_count: p.snapshot_count,
        catch_up_entries: p.catch_up_entries,
        checkpoint_bytes: p.checkpoint_bytes,
    }
}

/// A domain joint change as the extension's message.
pub fn joint_change(c: &JointChange) -> mpb::JointChange {
    use mpb::joint_change::Change as C;
    let change = match c {
        JointChange::AddLearner { name, peer_urls } => C::AddLearner(mpb::NewLearner {
            name: name.clone(),
            peer_urls: peer_urls.texts(),
        }),
        JointChange::Promote(id) => C::Promote(id.0),
        JointChange::Demote(id) => C::Demote(id.0),
        JointChange::Remove(id) => C::Remove(id.0),
    };
    mpb::JointChange {
        change: Some(change),
    }
}

/// Classifies a gRPC status by etcd's error texts (stable since 3.4) and codes.
pub fn api_error(s: &tonic::Status) -> ApiError {
    use tonic::Code;
    let msg = s.message();
    let kind = if msg.contains("unhealthy cluster") {
        ApiErrorKind::Unhealthy
    } else if msg.contains("learner member which is in sync with leader") {
        ApiErrorKind::LearnerNotReady
    } else if msg.contains("can only promote a learner member") {
        ApiErrorKind::NotLearner
    } else if msg.contains("rpc not supported for learner")
        || msg.starts_with("transport error")
        || msg.contains("leader transfer took too long")
        || msg == "raft: stopped"
    {
        // "transport error": the connection broke (or a TLS peer refused us);
        // a leader transfer that took too long comes as Unknown from etcd, and
        // so does "raft: stopped" from a member that was just removed.
        ApiErrorKind::Unavailable
    } else {
        match s.code() {
            Code::NotFound => ApiErrorKind::NotFound,
            Code::Unavailable => ApiErrorKind::Unavailable,
            Code::DeadlineExceeded | Code::Cancelled => ApiErrorKind::DeadlineExceeded,
            Code::Unimplemented => ApiErrorKind::Unimplemented,
            Code::FailedPrecondition
            | Code::InvalidArgument
            | Code::AlreadyExists
            | Code::OutOfRange
            | Code::ResourceExhausted
            | Code::PermissionDenied
            | Code::Unauthenticated => ApiErrorKind::Refused,
            _ if msg.contains("not enough started members") => ApiErrorKind::Refused,
            _ => ApiErrorKind::Other,
        }
    };
    let message = if msg.is_empty() {
        format!("server answered {:?}", s.code())
    } else {
        msg.to_string()
    };
    ApiError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::{Code, Status};

    #[test]
    fn etcd_errors_are_classified() {
        let k = |c, m: &str| api_error(&Status::new(c, m)).kind;
        assert_eq!(
            k(Code::Unavailable, "etcdserver: unhealthy cluster"),
            ApiErrorKind::Unhealthy
        );
        assert_eq!(
            k(
                Code::FailedPrecondition,
                "etcdserver: can only promote a learner member which is in sync with leader"
            ),
            ApiErrorKind::LearnerNotReady
        );
        assert_eq!(
            k(
                Code::FailedPrecondition,
                "etcdserver: can only promote a learner member"
            ),
            ApiErrorKind::NotLearner
        );
        assert_eq!(
            k(Code::NotFound, "etcdserver: member not found"),
            ApiErrorKind::NotFound
        );
        assert_eq!(
            k(
                Code::FailedPrecondition,
                "etcdserver: rpc not supported for learner"
            ),
            ApiErrorKind::Unavailable
        );
        assert_eq!(
            k(
                Code::Unknown,
                "etcdserver: re-configuration failed due to not enough started members"
            ),
            ApiErrorKind::Refused
        );
        assert_eq!(
            k(
                Code::FailedPrecondition,
                "etcdserver: Peer URLs already exists"
            ),
            ApiErrorKind::Refused
        );
        assert_eq!(k(Code::Unimplemented, ""), ApiErrorKind::Unimplemented);
        assert_eq!(k(Code::Internal, "x"), ApiErrorKind::Other);
    }

    #[test]
    fn members_convert_and_sort() {
        let l = member_list(
            Some(pb::ResponseHeader {
                cluster_id: 5,
                ..Default::default()
            }),
            vec![
                pb::Member {
                    id: 9,
                    name: "b".into(),
                    ..Default::default()
                },
                pb::Member {
                    id: 2,
                    is_learner: true,
                    peer_ur_ls: vec!["http://h:1".into()],
                    ..Default::default()
                },
            ],
        );
        assert_eq!(l.cluster_id, MemberId(5));
        assert_eq!(l.members[0].id, MemberId(2));
        assert!(l.members[0].is_learner);
        assert_eq!(l.members[0].peer_urls, vec!["http://h:1".to_string()]);
    }
}
