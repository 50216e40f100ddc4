//! The peer-facing raft transport service: delivers raft messages to the node
//! (dropping those of peers isolated by fault injection); tells a joining node
//! the members.

use std::sync::Arc;

use tokio::sync::watch;
use tonic::{Request, Response, Status, Streaming};

use super::Shared;
use crate::engine::node::message_sender;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_server::Raft;

/// The `memberctl.v1.Raft` service; its streams end when the watch turns
/// true (the server is stopping: a graceful shutdown waits for every call).
pub struct RaftService(pub Arc<Shared>, pub watch::Receiver<bool>);

impl RaftService {
    /// Hands a batch's messages to the node, in order.
    async fn deliver(&self, batch: pb::RaftBatch) -> Result<(), Status> {
        let partition = self.0.partition.as_ref().filter(|p| p.is_active());
        for m in batch.messages {
            if partition.is_some_and(|p| message_sender(&m).is_some_and(|from| p.blocks(from))) {
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
        Ok(())
    }
}

#[tonic::async_trait]
impl Raft for RaftService {
    async fn send(&self, req: Request<pb::RaftBatch>) -> Result<Response<pb::RaftAck>, Status> {
        self.deliver(req.into_inner()).await?;
        Ok(Response::new(pb::RaftAck {}))
    }

    async fn stream(
        &self,
        req: Request<Streaming<pb::RaftBatch>>,
    ) -> Result<Response<pb::RaftAck>, Status> {
        let mut batches = req.into_inner();
        let stop = stopping(self.1.clone());
        tokio::pin!(stop);
        loop {
            tokio::select! {
                batch = batches.message() => match batch? {
                    Some(batch) => self.deliver(batch).await?,
                    None => break,
                },
                () = &mut stop => {
                    return Err(Status::unavailable("memberctl: this member is stopping"));
                }
            }
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

/// Resolves once `stop` turns true.
async fn stopping(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}
