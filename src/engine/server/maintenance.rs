//! Maintenance.Status (learners answer it too) and MoveLeader, as etcd answers them.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::{errors, Shared, REQUEST_TIMEOUT};
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::maintenance_server::Maintenance;

/// The version this node reports: the etcd API level it serves.
pub const VERSION: &str = "3.4.0";

/// How long MoveLeader waits for the target to lead: raft gives a transfer up
/// after an election timeout (the leader stays); three of them leave room for
/// the target to catch up first, and stay below a client's usual 5 s deadline.
fn transfer_wait(config: &crate::engine::node::NodeConfig) -> std::time::Duration {
    (config.heartbeat * config.election_ticks as u32 * 3).min(REQUEST_TIMEOUT)
}

/// The etcd-compatible Maintenance service (Status and MoveLeader).
pub struct MaintenanceService(pub Arc<Shared>);

#[tonic::async_trait]
impl Maintenance for MaintenanceService {
    async fn status(
        &self,
        _: Request<epb::StatusRequest>,
    ) -> Result<Response<epb::StatusResponse>, Status> {
        let s = &self.0;
        let view = s.node.view();
        let store = s.node.store();
        let db_size = store.db_size();
        Ok(Response::new(epb::StatusResponse {
            header: s.header(s.revision()),
            version: VERSION.to_string(),
            db_size,
            leader: view.leader_id,
            raft_index: view.commit,
            raft_term: view.term,
            raft_applied_index: view.applied,
            errors: vec![],
            db_size_in_use: db_size,
            is_learner: view.is_learner(),
        }))
    }

    /// As etcd: only the leader serves it; the target must be a voter of the
    /// configuration (a learner or unknown ID is a "bad leader transferee");
    /// moving to the leader itself succeeds at once. Answers once the target
    /// leads, or "leader transfer took too long" when it does not within the
    /// time [`transfer_wait`] allows.
    async fn move_leader(
        &self,
        req: Request<epb::MoveLeaderRequest>,
    ) -> Result<Response<epb::MoveLeaderResponse>, Status> {
        let s = &self.0;
        let target = req.into_inner().target_id;
        let view = s.node.view();
        if !view.is_leader() {
            return Err(errors::not_leader());
        }
        if !view.conf.voters.contains(&target) {
            return Err(errors::bad_leader_transferee());
        }
        if target != view.id {
            s.node.transfer_leader(target).await;
            let mut watch = s.node.watch();
            let moved = tokio::time::timeout(
                transfer_wait(s.node.config()),
                watch.wait_for(|v| v.leader_id == target),
            )
            .await;
            if !matches!(moved, Ok(Ok(_))) {
                return Err(errors::leader_transfer_timed_out());
            }
        }
        Ok(Response::new(epb::MoveLeaderResponse {
            header: s.header(s.revision()),
        }))
    }
}
