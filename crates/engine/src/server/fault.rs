//! The fault-injection service (`memberctl.v1.Fault`), served only by a node
//! started with `--fault-injection` (test clusters): isolates chosen peers by
//! dropping the raft traffic to and from them, and heals.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::fault_server::Fault;
use crate::transport::Partition;

/// The `memberctl.v1.Fault` service.
pub struct FaultService {
    partition: Arc<Partition>,
    me: u64,
}

impl FaultService {
    /// The service of member `me`, changing `partition`.
    pub fn new(partition: Arc<Partition>, me: u64) -> Self {
        FaultService { partition, me }
    }

    fn state(&self, isolated: Vec<u64>) -> Response<pb::FaultState> {
        Response::new(pb::FaultState {
            member_id: self.me,
            isolated,
        })
    }
}

fn hex(ids: &[u64]) -> String {
    let ids: Vec<String> = ids.iter().map(|id| format!("{id:016x}")).collect();
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

#[tonic::async_trait]
impl Fault for FaultService {
    async fn isolate(
        &self,
        req: Request<pb::FaultPeers>,
    ) -> Result<Response<pb::FaultState>, Status> {
        let peers = req.into_inner().peer_ids;
        if peers.is_empty() || peers.contains(&0) {
            return Err(Status::invalid_argument(
                "memberctl: isolate needs the member IDs of the peers to cut off (non-zero)",
            ));
        }
        if peers.contains(&self.me) {
            return Err(Status::invalid_argument(format!(
                "memberctl: member {:016x} cannot be isolated from itself; name its peers",
                self.me
            )));
        }
        let isolated = self.partition.isolate(&peers);
        slog::info!(
            crate::log::logger(),
            "fault injection: dropping raft traffic to and from {}",
            hex(&isolated)
        );
        Ok(self.state(isolated))
    }

    async fn disk(&self, req: Request<pb::DiskFault>) -> Result<Response<pb::DiskFault>, Status> {
        use crate::storage::{set_disk_fault, DiskFault};
        let kind = req.into_inner().kind();
        let (fault, what) = match kind {
            pb::disk_fault::Kind::None => (DiskFault::None, "the raft log's disk works again"),
            pb::disk_fault::Kind::FsyncFails => (
                DiskFault::FsyncFails,
                "fsync of the raft log fails from now on",
            ),
            pb::disk_fault::Kind::DiskFull => (
                DiskFault::DiskFull,
                "the raft log's disk is full from now on",
            ),
            pb::disk_fault::Kind::CheckpointFsyncFails => (
                DiskFault::CheckpointFsyncFails,
                "fsync of checkpoints fails from now on",
            ),
        };
        set_disk_fault(fault);
        slog::info!(crate::log::logger(), "fault injection: {what}");
        Ok(Response::new(pb::DiskFault { kind: kind as i32 }))
    }

    async fn apply(
        &self,
        req: Request<pb::ApplyFault>,
    ) -> Result<Response<pb::ApplyFault>, Status> {
        let paused = req.into_inner().paused;
        crate::storage::set_apply_paused(paused);
        slog::info!(
            crate::log::logger(),
            "fault injection: the apply stage is {} from now on",
            if paused { "paused" } else { "resumed" }
        );
        Ok(Response::new(pb::ApplyFault { paused }))
    }

    async fn snapshot(
        &self,
        req: Request<pb::SnapshotFault>,
    ) -> Result<Response<pb::SnapshotFault>, Status> {
        let asked = std::time::Duration::from_millis(u64::from(req.into_inner().chunk_delay_ms));
        let faults = crate::storage::MAX_SNAPSHOT_CHUNK_DELAY;
        if asked > faults {
            return Err(Status::invalid_argument(format!(
                "a snapshot chunk delay of {asked:?} is longer than the {faults:?} allowed; ask for less"
            )));
        }
        crate::storage::set_snapshot_chunk_delay(asked);
        slog::info!(
            crate::log::logger(),
            "fault injection: snapshots sent wait {} ms before each piece from now on",
            asked.as_millis()
        );
        Ok(Response::new(pb::SnapshotFault {
            chunk_delay_ms: asked.as_millis() as u32,
        }))
    }

    async fn heal(&self, req: Request<pb::FaultPeers>) -> Result<Response<pb::FaultState>, Status> {
        let peers = req.into_inner().peer_ids;
        let isolated = self.partition.heal(&peers);
        slog::info!(
            crate::log::logger(),
            "fault injection: healed {}; still isolated: {}",
            if peers.is_empty() {
                "every peer".to_string()
            } else {
                hex(&peers)
            },
            hex(&isolated)
        );
        Ok(self.state(isolated))
    }
}
