//! The gRPC series etcd serves (go-grpc-prometheus' names): every method
//! etcd serves with its type, the status codes, and one method's handles.

use std::time::Duration;

use prometheus::{Histogram, IntCounter};

/// gRPC status codes by number, as the go-grpc-prometheus middleware names them.
pub const GRPC_CODES: [&str; 17] = [
    "OK",
    "Canceled",
    "Unknown",
    "InvalidArgument",
    "DeadlineExceeded",
    "NotFound",
    "AlreadyExists",
    "PermissionDenied",
    "ResourceExhausted",
    "FailedPrecondition",
    "Aborted",
    "OutOfRange",
    "Unimplemented",
    "Internal",
    "Unavailable",
    "DataLoss",
    "Unauthenticated",
];

/// Every client method etcd serves: service, method, gRPC type (the series
/// start at zero, as etcd's, so that rates over them are defined at once).
pub const GRPC_METHODS: &[(&str, &str, &str)] = &[
    ("etcdserverpb.KV", "Range", "unary"),
    ("etcdserverpb.KV", "Put", "unary"),
    ("etcdserverpb.KV", "DeleteRange", "unary"),
    ("etcdserverpb.KV", "Txn", "unary"),
    ("etcdserverpb.KV", "Compact", "unary"),
    ("etcdserverpb.Watch", "Watch", "bidi_stream"),
    ("etcdserverpb.Lease", "LeaseGrant", "unary"),
    ("etcdserverpb.Lease", "LeaseRevoke", "unary"),
    ("etcdserverpb.Lease", "LeaseKeepAlive", "bidi_stream"),
    ("etcdserverpb.Lease", "LeaseTimeToLive", "unary"),
    ("etcdserverpb.Lease", "LeaseLeases", "unary"),
    ("etcdserverpb.Cluster", "MemberAdd", "unary"),
    ("etcdserverpb.Cluster", "MemberRemove", "unary"),
    ("etcdserverpb.Cluster", "MemberUpdate", "unary"),
    ("etcdserverpb.Cluster", "MemberList", "unary"),
    ("etcdserverpb.Cluster", "MemberPromote", "unary"),
    ("etcdserverpb.Maintenance", "Alarm", "unary"),
    ("etcdserverpb.Maintenance", "Status", "unary"),
    ("etcdserverpb.Maintenance", "Defragment", "unary"),
    ("etcdserverpb.Maintenance", "Hash", "unary"),
    ("etcdserverpb.Maintenance", "HashKV", "unary"),
    ("etcdserverpb.Maintenance", "Snapshot", "server_stream"),
    ("etcdserverpb.Maintenance", "MoveLeader", "unary"),
    ("etcdserverpb.Auth", "AuthEnable", "unary"),
    ("etcdserverpb.Auth", "AuthDisable", "unary"),
    ("etcdserverpb.Auth", "AuthStatus", "unary"),
    ("etcdserverpb.Auth", "Authenticate", "unary"),
    ("etcdserverpb.Auth", "UserAdd", "unary"),
    ("etcdserverpb.Auth", "UserGet", "unary"),
    ("etcdserverpb.Auth", "UserList", "unary"),
    ("etcdserverpb.Auth", "UserDelete", "unary"),
    ("etcdserverpb.Auth", "UserChangePassword", "unary"),
    ("etcdserverpb.Auth", "UserGrantRole", "unary"),
    ("etcdserverpb.Auth", "UserRevokeRole", "unary"),
    ("etcdserverpb.Auth", "RoleAdd", "unary"),
    ("etcdserverpb.Auth", "RoleGet", "unary"),
    ("etcdserverpb.Auth", "RoleList", "unary"),
    ("etcdserverpb.Auth", "RoleDelete", "unary"),
    ("etcdserverpb.Auth", "RoleGrantPermission", "unary"),
    ("etcdserverpb.Auth", "RoleRevokePermission", "unary"),
    ("v3lockpb.Lock", "Lock", "unary"),
    ("v3lockpb.Lock", "Unlock", "unary"),
    ("v3electionpb.Election", "Campaign", "unary"),
    ("v3electionpb.Election", "Proclaim", "unary"),
    ("v3electionpb.Election", "Leader", "unary"),
    ("v3electionpb.Election", "Observe", "server_stream"),
    ("v3electionpb.Election", "Resign", "unary"),
];

/// One etcd method's gRPC series, looked up once per call (by its path).
pub struct MethodSeries {
    pub(super) started: IntCounter,
    /// By status code.
    pub(super) handled: Vec<IntCounter>,
    pub(super) handling: Histogram,
}

impl MethodSeries {
    /// Counts a call started.
    pub fn started(&self) {
        self.started.inc();
    }

    /// Records a call finished with gRPC status `code` after `took`.
    pub fn done(&self, code: usize, took: Duration) {
        let unknown = 2;
        self.handled
            .get(code)
            .unwrap_or(&self.handled[unknown])
            .inc();
        self.handling.observe(took.as_secs_f64());
    }
}
