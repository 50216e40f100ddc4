//! The peer-facing raft transport service: delivers raft messages to the node
//! (dropping those of peers isolated by fault injection); tells a joining node
//! the members.

use std::sync::Arc;

use protobuf::Message as _;
use tonic::{Request, Response, Status};

use super::Shared;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_server::Raft;

/// The `memberctl.v1.Raft` service.
pub struct RaftService(pub Arc<Shared>);

#[tonic::async_trait]
impl Raft for RaftService {
    async fn send(&self, req: Request<pb::RaftBatch>) -> Result<Response<pb::RaftAck>, Status> {
        let partition = self.0.partition.as_ref().filter(|p| p.is_active());
        for m in req.into_inner().messages {
            if partition.is_some_and(|p| sender(&m).is_some_and(|from| p.blocks(from))) {
                // As a partition would: the sender sees the peer unreachable.
                return Err(Status::unavailable(
                    "memberctl: raft traffic from this peer is dropped (fault injection)",
                ));
            }
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

/// The sender of an encoded raft message, if it decodes.
fn sender(message: &[u8]) -> Option<u64> {
    raft::eraftpb::Message::parse_from_bytes(message)
        .ok()
        .map(|m| m.from)
}
