//! Maintenance.Status, as etcd answers it (learners answer it too).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::Shared;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::maintenance_server::Maintenance;

/// The version this node reports: the etcd API level it serves.
pub const VERSION: &str = "3.4.0";

/// The etcd-compatible Maintenance service (Status only).
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
        let revision = store.revision().unwrap_or(1);
        let db_size = store.db_size(&s.node.config().data_dir);
        Ok(Response::new(epb::StatusResponse {
            header: s.header(revision),
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
}
