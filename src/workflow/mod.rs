//! The safety workflows: validation, quorum arithmetic, catch-up polling and the
//! membership changes, written against the [`MembershipApi`] trait and plain
//! domain types so they run the same against etcd, the embedded node or a fake.

pub mod add;
pub mod apply;
pub mod autopilot;
pub mod calc;
pub mod catch_up;
pub mod cost;
pub mod health;
pub mod joint;
pub mod leader;
pub mod look;
pub mod preflight;
pub mod promote;
pub mod prune;
pub mod remove;
pub mod replace;
pub mod resolve;
pub mod retry;
pub mod start;
pub mod status;
pub mod update;

use std::time::Duration;

use crate::model::cert::PeerCertificate;
use crate::model::{
    Added, Alarm, Configuration, JointChange, Member, MemberId, MemberList, MemberStatus, PeerUrls,
    ProgressReport, ServerMetrics, ServerVersion, StartFlags,
};

pub use crate::model::{ApiError, ApiErrorKind};
pub use calc::validate::Resolver;
pub use catch_up::{CatchUpSample, CatchUpState};

/// What every membership change works with besides its request: the cluster,
/// where progress goes, how peer URL hosts resolve (rule 1), and how long one
/// request to the cluster may take (`--command-timeout`).
pub struct Ctx<'a, A> {
    /// The cluster.
    pub api: &'a A,
    /// Notices and progress for the operator (stderr).
    pub observer: &'a dyn Observer,
    /// Resolves peer URL hosts (rule 1).
    pub resolver: Resolver<'a>,
    /// The limit of one request (`--command-timeout`).
    pub command_timeout: Duration,
}

impl<A> Clone for Ctx<'_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for Ctx<'_, A> {}

/// What a membership server can do, in domain terms. The client implements it
/// over gRPC; tests implement it with a fake.
#[allow(async_fn_in_trait)]
pub trait MembershipApi {
    /// The current membership.
    async fn member_list(&self) -> Result<MemberList, ApiError>;
    /// Adds a member with these peer URLs, as a learner or a voter.
    async fn member_add(&self, peer_urls: &PeerUrls, is_learner: bool) -> Result<Added, ApiError>;
    /// Removes a member; returns the membership after.
    async fn member_remove(&self, id: MemberId) -> Result<MemberList, ApiError>;
    /// Replaces a member's peer URLs; returns the membership after.
    async fn member_update(
        &self,
        id: MemberId,
        peer_urls: &PeerUrls,
    ) -> Result<MemberList, ApiError>;
    /// Promotes a learner to a voter; returns the membership after.
    async fn member_promote(&self, id: MemberId) -> Result<MemberList, ApiError>;
    /// Asks one member, through its own client URLs, for its status.
    async fn member_status(&self, member: &Member) -> Result<MemberStatus, ApiError>;
    /// Asks `leader`, through its own client URLs, to hand leadership to voter
    /// `target` (etcd's Maintenance.MoveLeader, served by the engine too);
    /// returns once the leader has seen `target` take over.
    async fn move_leader(&self, leader: &Member, target: MemberId) -> Result<(), ApiError>;
    /// The raft configuration (memberctl engine only; etcd: `Unimplemented`).
    async fn get_config(&self) -> Result<Configuration, ApiError>;
    /// The leader's view of replication (memberctl engine only).
    async fn get_progress(&self) -> Result<ProgressReport, ApiError>;
    /// Enters a joint configuration with all `changes` (memberctl engine only).
    async fn joint_enter(&self, changes: &[JointChange]) -> Result<Configuration, ApiError>;
    /// Leaves the joint configuration (memberctl engine only); the members
    /// it takes out (`leaving`) are asked last, as `member_remove`'s member.
    async fn joint_leave(&self, leaving: &[MemberId]) -> Result<Configuration, ApiError>;
    /// The alarms raised in the cluster (etcd's Maintenance.Alarm, action GET).
    async fn alarms(&self) -> Result<Vec<Alarm>, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            "this server lists no alarms",
        ))
    }
    /// `member`'s metrics (the figures the pre-flight checks use), read from
    /// `/metrics` at its first client URL, as etcd serves them.
    async fn server_metrics(&self, member: &Member) -> Result<ServerMetrics, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no metrics for {}", member.label()),
        ))
    }
    /// `member`'s `/version`: its server version and the cluster version.
    async fn server_version(&self, member: &Member) -> Result<ServerVersion, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no /version for {}", member.label()),
        ))
    }
    /// Starts reading how the servers at these endpoint URLs were started,
    /// while the caller asks for other things: a later
    /// [`start_flags`](Self::start_flags) of a member whose first client URL
    /// is one of them finds the reading under way. A hint; nothing to wait for.
    fn prefetch_start_flags(&self, _urls: &[String]) {}
    /// How `member` was started: whether it runs with `--force-new-cluster`
    /// (its command line from `/debug/vars` at its first client URL, as etcd
    /// serves it; for a process on this machine, /proc).
    async fn start_flags(&self, member: &Member) -> Result<StartFlags, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no start flags read for {}", member.label()),
        ))
    }
    /// The certificate chain (the member's own first) presented on the https
    /// peer URL `url`, read with a TLS handshake that accepts any
    /// certificate: only to read it, nothing is sent (the `peer-tls` check).
    async fn peer_certificates(&self, url: &str) -> Result<Vec<PeerCertificate>, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no peer certificate read at {url}"),
        ))
    }
    /// The value of `key` in the cluster's keyspace, if it is set: where
    /// `member replace` records the replacement it does (etcd's KV Range).
    async fn key_get(&self, key: &str) -> Result<Option<String>, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no keyspace to read {key} from"),
        ))
    }
    /// Sets `key` in the cluster's keyspace to `value` (`None`: deletes it).
    async fn key_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError> {
        let _ = value;
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no keyspace to write {key} to"),
        ))
    }
    /// Commits one entry that changes nothing (a lease granted and revoked
    /// at once): every member then has an entry to apply, which frees an
    /// etcd 3.6/3.7 learner held after its snapshot
    /// (`calc::catching_up::held_after_snapshot`).
    async fn commit_empty_entry(&self) -> Result<(), ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            "no lease to grant".to_string(),
        ))
    }
    /// The endpoints requests go to (none for a server without them): `member
    /// status` asks each for its status while it reads the member list.
    fn endpoint_urls(&self) -> Vec<String> {
        Vec::new()
    }
    /// Asks whichever member serves endpoint `url` (one of
    /// [`endpoint_urls`](Self::endpoint_urls)) for its status.
    async fn status_at(&self, url: &str) -> Result<MemberStatus, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            format!("no endpoint {url}"),
        ))
    }
    /// Which of [`endpoint_urls`](Self::endpoint_urls) is `member`'s first
    /// client URL, if any.
    fn endpoint_of(&self, _member: &Member) -> Option<usize> {
        None
    }
}

/// Receives what a workflow wants the operator to see while it runs (stderr):
/// notices and catch-up progress, nothing else. Results (the pre-flight
/// checks a change passed among them) come back by value in the workflow's
/// outcome; nothing here goes to stdout.
pub trait Observer {
    /// A one-line notice (a retry, a warning).
    fn notice(&self, message: &str);
    /// A new catch-up sample while waiting to promote.
    fn catch_up(&self, sample: &CatchUpSample);
    /// The catch-up wait is over (ready, or given up).
    fn catch_up_done(&self);
}

/// An observer that drops everything (tests, quiet runs).
pub struct Silent;

impl Observer for Silent {
    fn notice(&self, _: &str) {}
    fn catch_up(&self, _: &CatchUpSample) {}
    fn catch_up_done(&self) {}
}

#[cfg(test)]
pub(crate) mod fake;
#[cfg(test)]
mod props;
#[cfg(test)]
pub(crate) mod tests;
