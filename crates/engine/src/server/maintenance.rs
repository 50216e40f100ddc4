//! etcd's Maintenance service as etcd 3.4 answers it: Status (learners
//! too), Alarm, Hash, HashKV, Defragment, Snapshot and MoveLeader.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::errors::{internal, unexpected};
use super::forward::Answer;
use super::{errors, Shared, REQUEST_TIMEOUT};
use crate::node::Applied;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use crate::proto::etcdserverpb::maintenance_server::Maintenance;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::Store;

/// Runs a store operation that reads or writes the whole file off the async threads.
async fn on_store<T: Send + 'static>(
    s: &Shared,
    f: impl FnOnce(Store) -> crate::storage::Result<T> + Send + 'static,
) -> Result<T, Status> {
    let store = s.node.store().clone();
    tokio::task::spawn_blocking(move || f(store))
        .await
        .map_err(internal)?
        .map_err(internal)
}

/// etcd's name of an alarm type.
pub fn alarm_name(alarm: i32) -> &'static str {
    match epb::AlarmType::try_from(alarm) {
        Ok(epb::AlarmType::Nospace) => "NOSPACE",
        Ok(epb::AlarmType::Corrupt) => "CORRUPT",
        _ => "NONE",
    }
}

/// The version this node reports: the etcd API level it serves.
pub const VERSION: &str = "3.4.0";

/// How long MoveLeader waits for the target to lead: raft gives a transfer up
/// after an election timeout (the leader stays); three of them leave room for
/// the target to catch up first, and stay below a client's usual 5 s deadline.
fn transfer_wait(config: &crate::node::NodeConfig) -> std::time::Duration {
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
        let errors = store
            .state()
            .alarms()
            .into_iter()
            .map(|(member, alarm)| format!("memberID:{member} alarm:{} ", alarm_name(alarm)))
            .collect();
        Ok(Response::new(epb::StatusResponse {
            header: s.header(s.revision()),
            version: VERSION.to_string(),
            db_size,
            leader: view.leader_id,
            raft_index: view.commit,
            raft_term: view.term,
            raft_applied_index: view.applied,
            errors,
            db_size_in_use: store.db_size_in_use(),
            is_learner: view.is_learner(),
        }))
    }

    /// GET lists the raised alarms (of `memberID`, or all with 0; of the
    /// type asked, or all with NONE); ACTIVATE and DEACTIVATE go through
    /// raft and answer with the alarm they changed.
    async fn alarm(
        &self,
        req: Request<epb::AlarmRequest>,
    ) -> Result<Response<epb::AlarmResponse>, Status> {
        use epb::alarm_request::AlarmAction;
        let s = &self.0;
        let action = AlarmAction::try_from(req.get_ref().action)
            .map_err(|_| Status::invalid_argument("etcdserver: unknown alarm action"))?;
        // As etcd, every action goes through the leader: a list is
        // linearizable (a raised alarm is seen at once on every member).
        let answer = Answer::for_change(action != AlarmAction::Get);
        s.unary(
            req,
            answer,
            |ch, r| async move { MaintenanceClient::new(ch).alarm(r).await },
            |caller, r| async move {
                if action != AlarmAction::Get {
                    caller.admin(s).map_err(errors::raw_auth)?;
                }
                alarm_here(s, action, r).await
            },
        )
        .await
    }

    /// A hash of this member's whole replicated state.
    async fn hash(
        &self,
        req: Request<epb::HashRequest>,
    ) -> Result<Response<epb::HashResponse>, Status> {
        let s = &self.0;
        let caller = s.caller(&req).await?;
        caller.admin(s).map_err(errors::raw_auth)?;
        let hash = on_store(s, |store| Ok(store.state().hash())).await?;
        Ok(Response::new(epb::HashResponse {
            header: s.header(s.revision()),
            hash,
        }))
    }

    /// A hash of this member's key history up to a revision: equal on
    /// members that applied it.
    async fn hash_kv(
        &self,
        req: Request<epb::HashKvRequest>,
    ) -> Result<Response<epb::HashKvResponse>, Status> {
        let s = &self.0;
        let caller = s.caller(&req).await?;
        caller.admin(s).map_err(errors::raw_auth)?;
        let revision = req.into_inner().revision;
        let h = on_store(s, move |store| Ok(store.state().hash_kv(revision)))
            .await?
            .map_err(|r| errors::from_refusal(&r))?;
        Ok(Response::new(epb::HashKvResponse {
            header: s.header(h.revision),
            hash: h.hash,
            compact_revision: h.compact_revision,
        }))
    }

    /// Rewrites this member's state-machine file without its free pages.
    async fn defragment(
        &self,
        req: Request<epb::DefragmentRequest>,
    ) -> Result<Response<epb::DefragmentResponse>, Status> {
        let s = &self.0;
        let caller = s.caller(&req).await?;
        caller.admin(s).map_err(errors::raw_auth)?;
        on_store(s, |store| store.defragment()).await?;
        Ok(Response::new(epb::DefragmentResponse {
            // Unset, as etcd 3.4 leaves it.
            header: None,
        }))
    }

    type SnapshotStream = std::pin::Pin<
        Box<dyn futures_util::Stream<Item = Result<epb::SnapshotResponse, Status>> + Send>,
    >;

    /// Streams a point-in-time copy of this member's state machine as etcd
    /// does: an etcd 3.4 backend database with its SHA-256 trailer, which
    /// `etcdctl snapshot status/restore`, etcd itself and `memberctl
    /// snapshot restore` read.
    async fn snapshot(
        &self,
        req: Request<epb::SnapshotRequest>,
    ) -> Result<Response<Self::SnapshotStream>, Status> {
        let s = self.0.clone();
        let caller = s.caller(&req).await?;
        caller.admin(&s).map_err(errors::raw_auth)?;
        let store = s.node.store().clone();
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<epb::SnapshotResponse, Status>>(4);
        tokio::task::spawn_blocking(move || {
            // A receiver that went away ends it.
            let written = store.etcd_snapshot(VERSION, |blob, remaining| {
                // No header, as etcd's.
                let resp = epb::SnapshotResponse {
                    header: None,
                    remaining_bytes: remaining,
                    blob,
                };
                tx.blocking_send(Ok(resp)).is_ok()
            });
            if let Err(e) = written {
                let _ = tx.blocking_send(Err(Status::internal(format!(
                    "memberctl: cannot write the snapshot: {e}"
                ))));
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
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
        let caller = s.caller(&req).await?;
        caller.admin(s).map_err(errors::raw_auth)?;
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
            // Unset, as etcd 3.4 leaves it.
            header: None,
        }))
    }
}

/// `Alarm` at the leader (after a read index for GET): GET lists the raised alarms, ACTIVATE and
/// DEACTIVATE go through raft.
async fn alarm_here(
    s: &Shared,
    action: epb::alarm_request::AlarmAction,
    r: epb::AlarmRequest,
) -> Result<epb::AlarmResponse, Status> {
    use epb::alarm_request::AlarmAction;
    let member = |(member_id, alarm): (u64, i32)| epb::AlarmMember { member_id, alarm };
    let alarms = match action {
        AlarmAction::Get => s
            .node
            .store()
            .state()
            .alarms()
            .into_iter()
            .filter(|(m, a)| {
                (r.member_id == 0 || *m == r.member_id) && (r.alarm == 0 || *a == r.alarm)
            })
            .map(member)
            .collect(),
        // etcd: raising or clearing NONE does nothing and answers nothing.
        _ if r.alarm == epb::AlarmType::None as i32 => vec![],
        AlarmAction::Activate | AlarmAction::Deactivate => {
            let op = spb::command::Op::Alarm(spb::Alarm {
                activate: action == AlarmAction::Activate,
                member_id: r.member_id,
                alarm: r.alarm,
            });
            match s.propose(op).await? {
                Applied::Alarm(changed) => changed.into_iter().map(member).collect(),
                other => return Err(unexpected(other)),
            }
        }
    };
    Ok(epb::AlarmResponse {
        // Unset, as etcd 3.4 leaves it.
        header: None,
        alarms,
    })
}
