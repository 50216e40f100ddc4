//! The engine's services: etcd's KV, Watch, Lease, Cluster, Maintenance,
//! Auth, Lock and Election for clients, with etcd's HTTP face (`http/`);
//! memberctl.v1 Membership (the extension), Raft (the transport, for peers)
//! and Fault (test clusters); forwarding to the leader (`forward.rs`).
//! `serve.rs` is the entry; the state every service shares is here, etcd's
//! errors in `errors.rs`. etcd's wire types end here; the node sees domain
//! values and memberctl.v1's stored formats.

mod access;
mod auth;
mod cluster;
mod compactor;
mod concurrency;
mod convert;
mod corruption;
mod election;
mod errors;
mod expiry;
mod fault;
mod forward;
mod http;
mod jwt;
mod kv;
mod lease;
mod lessor;
mod lock;
pub(crate) mod maintenance;
mod membership;
mod password;
mod raft;
mod serve;
mod validate;
mod watch;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tonic::Status;

use crate::node::{Applied, Node, NodeError, View};
use crate::proto::etcdserverpb as epb;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{adds_data, NOSPACE};
use crate::transport::Partition;

pub use compactor::AutoCompaction;
pub use jwt::{AuthToken, AuthTokenError};
pub use password::{BCRYPT_COSTS, BCRYPT_COST_DEFAULT};
pub use serve::{serve, Faults, Keepalive, Listeners, ServeTls, Settings};
pub use watch::progress_default as watch_progress_default;

/// etcd's default space quota (`--quota-backend-bytes` 0): 2 GiB.
pub const DEFAULT_QUOTA_BYTES: u64 = 2 << 30;

/// How long a proposal may take to be applied before the client is told it timed out
/// (etcd: 5 s plus two election timeouts).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(7);

/// What every service shares.
pub struct Shared {
    /// The node.
    pub node: Node,
    /// Connections to the leader for forwarded requests.
    pub forward: forward::Forwarder,
    /// The cluster's ID.
    pub cluster_id: u64,
    /// With fault injection on: the peers whose raft traffic is dropped.
    pub partition: Option<Arc<Partition>>,
    /// `--fault-stale-reads`: linearizable reads served locally (a bug on purpose).
    pub stale_reads: bool,
    /// The leader's lease clock.
    pub lessor: lessor::Lessor,
    /// Becomes true when the server stops (streams end with an error).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// What etcd's flags limit.
    pub limits: Limits,
    /// How users authenticate: the tokens and the password hashes' cost.
    pub auth: AuthOptions,
}

/// The limits etcd's flags set on what the server takes and keeps.
#[derive(Clone, Debug)]
pub struct Limits {
    /// --quota-backend-bytes (0: no quota).
    pub quota_bytes: u64,
    /// --max-request-bytes: the largest write request (etcd's default 1.5 MiB).
    pub max_request_bytes: usize,
    /// --max-txn-ops: the most operations in a transaction's branch (etcd's 128).
    pub max_txn_ops: usize,
    /// --auto-compaction-mode and --auto-compaction-retention.
    pub auto_compaction: AutoCompaction,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            quota_bytes: 0,
            max_request_bytes: validate::DEFAULT_MAX_REQUEST_BYTES,
            max_txn_ops: validate::DEFAULT_MAX_TXN_OPS,
            auto_compaction: AutoCompaction::Off,
        }
    }
}

impl Limits {
    /// The largest message a client may send: the request limit plus gRPC's
    /// overhead allowance, as etcd's server sets it.
    pub fn max_recv_bytes(&self) -> usize {
        self.max_request_bytes.saturating_add(512 * 1024)
    }
}

/// How users authenticate (etcd's --auth-token and --bcrypt-cost).
#[derive(Clone, Debug)]
pub struct AuthOptions {
    /// The tokens Authenticate issues and requests carry.
    pub token: AuthToken,
    /// bcrypt's cost for the passwords hashed here.
    pub bcrypt_cost: u32,
}

impl Default for AuthOptions {
    fn default() -> Self {
        AuthOptions {
            token: AuthToken::Simple,
            bcrypt_cost: BCRYPT_COST_DEFAULT,
        }
    }
}

impl Shared {
    /// A response header as etcd fills it.
    pub fn header(&self, revision: i64) -> Option<epb::ResponseHeader> {
        let (member_id, raft_term) = self.node.with_view(|v| (v.id, v.term));
        Some(epb::ResponseHeader {
            cluster_id: self.cluster_id,
            member_id,
            revision,
            raft_term,
        })
    }

    /// The store's revision now.
    pub fn revision(&self) -> i64 {
        self.node.store().state().revision()
    }

    /// Waits for a proposal's outcome, at most [`REQUEST_TIMEOUT`].
    pub async fn wait<T>(
        &self,
        f: impl Future<Output = Result<T, NodeError>>,
    ) -> Result<T, tonic::Status> {
        match tokio::time::timeout(REQUEST_TIMEOUT, f).await {
            Ok(r) => r.map_err(errors::from_node),
            Err(_) => Err(errors::timed_out()),
        }
    }
}

/// How often [`Shared::applied_revision`] looks at the store without being woken.
const REVISION_LOOK: std::time::Duration = std::time::Duration::from_millis(100);

impl Shared {
    /// Waits (at most [`REQUEST_TIMEOUT`]) until this member has applied
    /// everything the leader had committed when asked: after a write the
    /// leader served for it. The write is done either way; a member that
    /// cannot catch up in time answers anyway.
    pub async fn catch_up(&self) {
        let _ = tokio::time::timeout(REQUEST_TIMEOUT, self.node.read_index()).await;
    }

    /// Waits (at most [`REQUEST_TIMEOUT`]) until this member's store has
    /// reached `revision`: after a key write the leader applied at it, this
    /// member has then applied it too. Woken by each applied batch and each
    /// new view, and looking at the store at least every 100 ms
    /// whatever it heard; it stops waiting when this member was removed or
    /// its node stopped (it will apply nothing more). The write is done
    /// either way; a member that cannot catch up in time answers anyway.
    pub async fn applied_revision(&self, revision: i64) {
        use tokio::sync::broadcast::error::RecvError;
        let mut applied = self.node.subscribe();
        let mut view = self.node.watch();
        let deadline = tokio::time::Instant::now() + REQUEST_TIMEOUT;
        loop {
            if self.node.store().state().revision() >= revision || view.borrow().is_removed() {
                return;
            }
            let wake = (tokio::time::Instant::now() + REVISION_LOOK).min(deadline);
            tokio::select! {
                r = applied.recv() => if matches!(r, Err(RecvError::Closed)) { return },
                r = view.changed() => if r.is_err() { return },
                _ = tokio::time::sleep_until(wake) => if wake >= deadline { return },
            }
        }
    }

    /// Learners serve only Status and serializable reads.
    pub fn refuse_learner(&self) -> Result<(), Status> {
        if self.node.with_view(View::is_learner) {
            return Err(errors::not_for_learner());
        }
        Ok(())
    }

    /// Proposes a state-machine command (this node leads) and waits for it
    /// to be applied; a command larger than a raft entry may be is refused.
    pub async fn propose(&self, op: spb::command::Op) -> Result<Applied, Status> {
        if op.encoded_len() > self.limits.max_request_bytes {
            return Err(errors::request_too_large());
        }
        self.check_quota(&op).await?;
        match self.wait(self.node.propose(op)).await? {
            Applied::Refused(r) => Err(errors::from_refusal(&r)),
            other => Ok(other),
        }
    }

    /// etcd's space quota: a write that adds data when the state machine's
    /// file would pass `--quota-backend-bytes` raises the NOSPACE alarm
    /// (through raft, for this member) and is refused.
    async fn check_quota(&self, op: &spb::command::Op) -> Result<(), Status> {
        if self.limits.quota_bytes == 0 || !adds_data(op) {
            return Ok(());
        }
        let store = self.node.store();
        if store.db_size() as u64 + op.encoded_len() as u64 <= self.limits.quota_bytes {
            return Ok(());
        }
        if !store.state().no_space() {
            let raise = spb::command::Op::Alarm(spb::Alarm {
                activate: true,
                member_id: self.node.view().id,
                alarm: NOSPACE,
            });
            self.wait(self.node.propose(raise)).await?;
        }
        Err(errors::no_space())
    }
}

/// A member's metadata in etcd's form.
pub fn etcd_member(m: &spb::MemberMeta) -> epb::Member {
    epb::Member {
        id: m.id,
        name: m.name.clone(),
        peer_ur_ls: m.peer_urls.clone(),
        client_ur_ls: m.client_urls.clone(),
        is_learner: m.is_learner,
    }
}
