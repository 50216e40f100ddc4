//! etcd's error texts and gRPC codes (3.4), and node errors mapped onto them:
//! every etcd text the engine answers is written here (the services' own
//! `memberctl:` refusals and internal errors stay beside the code that raises them).

use tonic::{Code, Status};

use crate::node::NodeError;
use crate::storage::AuthRefusal;
use crate::storage::Refusal;

fn status(code: Code, msg: &str) -> Status {
    Status::new(code, msg)
}

/// No leader is known.
pub fn no_leader() -> Status {
    status(Code::Unavailable, "etcdserver: no leader")
}
/// The leader changed while the request was on its way.
pub fn leader_changed() -> Status {
    status(Code::Unavailable, "etcdserver: leader changed")
}
/// Metadata on a refusal of a write that was certainly not applied (raft did
/// not append it, or it reached a member that no longer leads): the member
/// that forwarded it may send it again.
const NOT_APPLIED: &str = "memberctl-not-applied";
/// "leader changed" for a write that was certainly not applied.
pub fn not_applied() -> Status {
    let mut s = leader_changed();
    s.metadata_mut().insert(
        NOT_APPLIED,
        tonic::metadata::MetadataValue::from_static("1"),
    );
    s
}
/// Whether `s` refused a write that was certainly not applied.
pub fn is_not_applied(s: &Status) -> bool {
    s.metadata().contains_key(NOT_APPLIED)
}
/// The request was not applied in time.
pub fn timed_out() -> Status {
    status(Code::Unavailable, "etcdserver: request timed out")
}
/// Learners serve only Status and serializable reads (3.4 uses Unavailable).
pub fn not_for_learner() -> Status {
    status(
        Code::Unavailable,
        "etcdserver: rpc not supported for learner",
    )
}
/// A leader-only request reached a follower (MoveLeader).
pub fn not_leader() -> Status {
    status(Code::FailedPrecondition, "etcdserver: not leader")
}
/// MoveLeader to a member that is not a voter.
pub fn bad_leader_transferee() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: bad leader transferee",
    )
}
/// MoveLeader's target did not take over in time (etcd sends it as Unknown).
pub fn leader_transfer_timed_out() -> Status {
    status(
        Code::Unknown,
        "etcdserver: request timed out, leader transfer took too long",
    )
}
/// Unknown or removed member.
pub fn member_not_found() -> Status {
    status(Code::NotFound, "etcdserver: member not found")
}
/// A peer URL another member already has.
pub fn peer_url_exists() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: Peer URLs already exists",
    )
}
/// Unparsable member URLs.
pub fn bad_urls() -> Status {
    status(
        Code::InvalidArgument,
        "etcdserver: given member URLs are invalid",
    )
}
/// Promote of a voter.
pub fn not_learner() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: can only promote a learner member",
    )
}
/// Promote of a learner that has not caught up.
pub fn learner_not_ready() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: can only promote a learner member which is in sync with leader",
    )
}
/// The learner limit is reached.
pub fn too_many_learners() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: too many learner members in cluster",
    )
}
/// A voter change that would leave too few started voters (etcd sends it as Unknown).
pub fn not_enough_started() -> Status {
    status(
        Code::Unknown,
        "etcdserver: re-configuration failed due to not enough started members",
    )
}
/// The strict reconfiguration check: the leader is not in touch with every voter.
pub fn unhealthy() -> Status {
    status(Code::Unavailable, "etcdserver: unhealthy cluster")
}

/// A node error as the client sees it.
pub fn from_node(e: NodeError) -> Status {
    match e {
        NodeError::NotLeader { .. } | NodeError::NotAppended => not_applied(),
        NodeError::Dropped => leader_changed(),
        NodeError::ChangeInProgress => status(
            Code::FailedPrecondition,
            "etcdserver: another membership change is in progress; retry once it has been applied",
        ),
        NodeError::Stopped => status(Code::Unavailable, "etcdserver: server stopped"),
        NodeError::Storage(m) => status(Code::Internal, &format!("etcdserver: storage: {m}")),
    }
}

/// A request without a key.
pub fn empty_key() -> Status {
    status(Code::InvalidArgument, "etcdserver: key is not provided")
}
/// A put that keeps the value of a key that does not exist; an empty operation.
pub fn key_not_found() -> Status {
    status(Code::InvalidArgument, "etcdserver: key not found")
}
/// A put that keeps the old value but gives one.
pub fn value_provided() -> Status {
    status(Code::InvalidArgument, "etcdserver: value is provided")
}
/// A put that keeps the old lease but gives one.
pub fn lease_provided() -> Status {
    status(Code::InvalidArgument, "etcdserver: lease is provided")
}
/// A transaction with more operations than allowed.
pub fn too_many_ops() -> Status {
    status(
        Code::InvalidArgument,
        "etcdserver: too many operations in txn request",
    )
}
/// A transaction that writes a key twice.
pub fn duplicate_key() -> Status {
    status(
        Code::InvalidArgument,
        "etcdserver: duplicate key given in txn request",
    )
}
/// A sort order or target etcd does not know.
pub fn invalid_sort() -> Status {
    status(Code::InvalidArgument, "etcdserver: invalid sort option")
}
/// A write larger than a raft entry may be.
pub fn request_too_large() -> Status {
    status(Code::InvalidArgument, "etcdserver: request is too large")
}
/// A lease TTL above etcd's maximum.
pub fn lease_ttl_too_large() -> Status {
    status(Code::OutOfRange, "etcdserver: too large lease TTL")
}

/// A state machine's refusal as etcd answers it.
pub fn from_refusal(r: &Refusal) -> Status {
    match r {
        Refusal::Compacted => status(
            Code::OutOfRange,
            "etcdserver: mvcc: required revision has been compacted",
        ),
        Refusal::FutureRevision => status(
            Code::OutOfRange,
            "etcdserver: mvcc: required revision is a future revision",
        ),
        Refusal::LeaseNotFound => status(Code::NotFound, "etcdserver: requested lease not found"),
        Refusal::LeaseExists => {
            status(Code::FailedPrecondition, "etcdserver: lease already exists")
        }
        Refusal::KeyNotFound => key_not_found(),
        Refusal::NoSpace => no_space(),
    }
}

/// A write while the NOSPACE alarm is raised, or one that would pass the quota.
pub fn no_space() -> Status {
    status(
        Code::ResourceExhausted,
        "etcdserver: mvcc: database space exceeded",
    )
}
/// A request without a user while authentication is on.
pub fn user_empty() -> Status {
    status(Code::InvalidArgument, "etcdserver: user name is empty")
}
/// A user without permission for what it asked.
pub fn permission_denied() -> Status {
    status(Code::PermissionDenied, "etcdserver: permission denied")
}
/// A wrong user name or password.
pub fn auth_failed() -> Status {
    status(
        Code::InvalidArgument,
        "etcdserver: authentication failed, invalid user ID or password",
    )
}
/// A token this member does not know (expired, or issued before a restart).
pub fn invalid_auth_token() -> Status {
    status(Code::Unauthenticated, "etcdserver: invalid auth token")
}
/// A JWT issued before the auth store last changed (etcd 3.4 measured:
/// InvalidArgument, for a key request; the client authenticates again).
pub fn auth_old_revision() -> Status {
    status(
        Code::InvalidArgument,
        "etcdserver: revision of auth store is old",
    )
}
/// Authenticate while authentication is off.
pub fn auth_not_enabled() -> Status {
    status(
        Code::FailedPrecondition,
        "etcdserver: authentication is not enabled",
    )
}
/// A role grant without a permission.
pub fn permission_not_given() -> Status {
    status(Code::InvalidArgument, "etcdserver: permission not given")
}
/// What the state machine's refusal of an auth change is called by etcd.
pub fn from_auth_refusal(r: AuthRefusal) -> Status {
    let code = match r {
        AuthRefusal::UserEmpty | AuthRefusal::RoleEmpty | AuthRefusal::InvalidAuthMgmt => {
            Code::InvalidArgument
        }
        _ => Code::FailedPrecondition,
    };
    status(code, &format!("etcdserver: {r}"))
}
/// An auth refusal as etcd 3.4's Maintenance service answers it: the auth
/// store's own error, unconverted (code Unknown, "auth: ..." text).
pub fn raw_auth(s: Status) -> Status {
    let text = s
        .message()
        .strip_prefix("etcdserver: ")
        .unwrap_or(s.message());
    status(Code::Unknown, &format!("auth: {text}"))
}

/// An internal failure as the client sees it.
pub fn internal(e: impl std::fmt::Display) -> Status {
    Status::internal(format!("etcdserver: {e}"))
}

/// A result of another kind than the command's.
pub fn unexpected(a: crate::node::Applied) -> Status {
    internal(format!("unexpected result {a:?}"))
}
