//! The peer-facing raft transport service: delivers raft messages to the node; tells a joining node the members.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::Shared;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_server::Raft;

/// The `memberctl.v1.Raft` service.
pub struct RaftService(pub Arc<Shared>);

#[tonic::async_trait]
impl Raft for RaftService {
    async fn send(&self, req: Request<pb::RaftBatch>) -> Result<Response<pb::RaftAck>, Status> {
        for m in req.into_inner().messages {
            self.0
                .node
                .step(m)
                .await
                .map_err(|e| Status::unavailable(e.to_string()))?;
        }
        Ok(Response::new(pb::RaftAck {}))
    }

    async fn members(
        &self,
        _: Request<pb::MembersRequest>,
    ) -> Result<Response<pb::MembersResponse>, Status> {
        let members = self
            .0
            .node
            .store()
            .members()
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(pb::MembersResponse {
            cluster_id: self.0.cluster_id,
            members,
        }))
    }
}
