//! The peer-facing raft transport service: delivers raft messages to the node
//! (dropping those of peers isolated by fault injection), receives snapshots
//! into the store chunk by chunk; tells a joining node the members; answers
//! the peers' probes (their round trips, as etcd's `/raft/probing`). Records
//! etcd's receive-side series: bytes from each peer as they are delivered (a
//! snapshot's piece by piece), snapshot receives.

use std::sync::Arc;

use tokio::sync::watch;
use tonic::{Request, Response, Status, Streaming};

use super::{errors, Shared};
use crate::metrics::{self, SnapshotReceive, UNKNOWN_SNAPSHOT_SENDER};
use crate::node::message_sender;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_server::Raft;
use crate::storage::StoreError;
use crate::transport::REMOVED_MARK;

/// The `memberctl.v1.Raft` service; its streams end when the watch turns
/// true (the server is stopping: a graceful shutdown waits for every call).
pub struct RaftService(pub Arc<Shared>, pub watch::Receiver<bool>);

impl RaftService {
    /// Hands a batch's messages to the node, in order; refuses the batch of
    /// a member removed from the cluster.
    async fn deliver(&self, batch: pb::RaftBatch) -> Result<(), Status> {
        self.refuse_removed(batch.from)?;
        let partition = self.0.partition.as_ref().filter(|p| p.is_active());
        let received = metrics::received_bytes(batch.from);
        for m in batch.messages {
            if partition.is_some_and(|p| message_sender(&m).is_some_and(|from| p.blocks(from))) {
                // As a partition would: the sender sees the peer unreachable.
                return Err(Status::unavailable(
                    "memberctl: raft traffic from this peer is dropped (fault injection)",
                ));
            }
            received.inc_by(m.len() as u64);
            self.0
                .node
                .step(m)
                .await
                .map_err(|e| Status::unavailable(e.to_string()))?;
        }
        Ok(())
    }
}

impl RaftService {
    /// etcd's answer to a removed member (its peers answer 410 Gone and it
    /// stops): a refusal marked so that the sender's transport stops it.
    fn refuse_removed(&self, from: u64) -> Result<(), Status> {
        if from == 0 || !self.0.node.store().state().is_removed(from) {
            return Ok(());
        }
        let mut status = Status::failed_precondition(format!(
            "memberctl: member {from:016x} was removed from cluster {:016x}; it must stop",
            self.0.cluster_id
        ));
        status.metadata_mut().insert(
            REMOVED_MARK,
            tonic::metadata::MetadataValue::from_static("1"),
        );
        Err(status)
    }
}

/// Runs blocking store work off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Status::internal(format!("memberctl: snapshot writer: {e}")))?
        .map_err(|e| Status::internal(format!("memberctl: {e}")))
}

#[tonic::async_trait]
impl Raft for RaftService {
    /// Receives a snapshot: writes it to a file and reads its state as it
    /// arrives (a few pieces in memory at most: the stream's window holds
    /// the sender back), checks it whole and makes it durable, then hands
    /// raft the message. An incomplete stream leaves nothing behind.
    async fn snapshot(
        &self,
        req: Request<Streaming<pb::SnapshotPart>>,
    ) -> Result<Response<pb::RaftAck>, Status> {
        let mut parts = req.into_inner();
        let first = match parts.message().await {
            Ok(Some(first)) => first,
            failed => {
                metrics::get()
                    .snapshot_receive_failures
                    .with_label_values(&[UNKNOWN_SNAPSHOT_SENDER])
                    .inc();
                return Err(failed.err().unwrap_or_else(|| {
                    Status::invalid_argument("memberctl: empty snapshot stream")
                }));
            }
        };
        let sender = message_sender(&first.message);
        // Until it is handed to raft whole, or it fails (dropped early).
        let receiving = SnapshotReceive::start(sender);
        let received = sender.map(metrics::received_bytes);
        let count = |n: usize| {
            if let Some(r) = &received {
                r.inc_by(n as u64);
            }
        };
        self.refuse_removed(sender.unwrap_or(0))?;
        let partition = self.0.partition.as_ref().filter(|p| p.is_active());
        if partition.is_some_and(|p| sender.is_some_and(|f| p.blocks(f))) {
            return Err(Status::unavailable(
                "memberctl: raft traffic from this peer is dropped (fault injection)",
            ));
        }
        count(first.message.len());
        let node = self.0.node.clone();
        let message = first.message;
        let head = message.clone();
        let mut staging = blocking(move || node.stage_snapshot(&head)).await?;
        let stop = stopping(self.1.clone());
        tokio::pin!(stop);
        loop {
            let part = tokio::select! {
                part = parts.message() => part?,
                () = &mut stop => {
                    return Err(Status::unavailable("memberctl: this member is stopping"));
                }
            };
            let Some(part) = part else {
                return Err(Status::aborted(
                    "memberctl: the snapshot stream ended before its last part",
                ));
            };
            count(part.chunk.len());
            if part.last {
                break;
            }
            staging
                .write(part.chunk)
                .await
                .map_err(|e| Status::internal(format!("memberctl: {e}")))?;
        }
        blocking(move || staging.finish()).await?;
        self.0
            .node
            .step(message)
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        receiving.succeeded();
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

    /// etcd's `/raft/probing`: answered at once, without the node, so that
    /// the prober's round trip is the network's and the listener's; the
    /// probes of a peer whose raft traffic is dropped (fault injection) are
    /// refused, as a partition would lose them.
    async fn probe(
        &self,
        req: Request<pb::ProbeRequest>,
    ) -> Result<Response<pb::ProbeResponse>, Status> {
        let from = req.into_inner().from;
        // A removed member's probes are refused as its raft traffic is.
        self.refuse_removed(from)?;
        if self
            .0
            .partition
            .as_ref()
            .is_some_and(|p| from != 0 && p.blocks(from))
        {
            return Err(Status::unavailable(
                "memberctl: raft traffic from this peer is dropped (fault injection)",
            ));
        }
        Ok(Response::new(pb::ProbeResponse {}))
    }

    async fn hash_kv(
        &self,
        req: Request<pb::PeerHashKvRequest>,
    ) -> Result<Response<pb::PeerHashKvResponse>, Status> {
        let revision = req.into_inner().revision;
        let store = self.0.node.store().clone();
        let h = tokio::task::spawn_blocking(move || store.state().hash_kv(revision))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(|r| errors::from_refusal(&r))?;
        Ok(Response::new(pb::PeerHashKvResponse {
            hash: h.hash,
            compact_revision: h.compact_revision,
            revision: h.revision,
            member_id: self.0.node.view().id,
        }))
    }

    async fn members(
        &self,
        _: Request<pb::MembersRequest>,
    ) -> Result<Response<pb::MembersResponse>, Status> {
        let members = self.0.node.store().members();
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
