//! etcd's Lease service: grant and revoke through raft, keep-alive and
//! time-to-live at the leader (followers pass them on), the list from local state.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};

use super::access::{Caller, Need};
use super::errors::unexpected;
use super::forward::{forwarded, Answer, Route};
use super::lessor::{min_ttl, MAX_TTL};
use super::{errors, Shared};
use crate::node::Applied;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::lease_client::LeaseClient;
use crate::proto::etcdserverpb::lease_server::Lease;
use crate::proto::memberctl_store_v1 as spb;
use tokio_stream::wrappers::ReceiverStream;

/// The etcd-compatible Lease service.
pub struct LeaseService(pub Arc<Shared>);

type KeepAliveStream =
    Pin<Box<dyn Stream<Item = Result<epb::LeaseKeepAliveResponse, Status>> + Send>>;

/// Responses queued per keep-alive stream.
const KEEP_ALIVE_QUEUE: usize = 16;

impl Shared {
    /// etcd's `hasleader` metadata (clients' `WithRequireLeader`, which
    /// etcdctl's watch sets): such a stream is refused while this member
    /// knows no leader.
    pub fn require_leader<T>(&self, req: &Request<T>) -> Result<(), Status> {
        let wanted = req
            .metadata()
            .get("hasleader")
            .is_some_and(|v| v.as_bytes() == b"true");
        if wanted && self.node.with_view(|v| v.leader_id == 0) {
            return Err(errors::no_leader());
        }
        Ok(())
    }

    /// Renews a lease at the leader: its TTL, or 0 when it does not exist.
    fn renew(&self, id: i64) -> Result<i64, Status> {
        match self.node.store().state().lease(id, false) {
            Some(l) => {
                self.lessor.renew(id, l.ttl, self.node.view().term);
                Ok(l.ttl)
            }
            None => Ok(0),
        }
    }
}

/// A keep-alive stream to the leader, for a follower's client.
struct Upstream {
    to: mpsc::Sender<epb::LeaseKeepAliveRequest>,
    from: Streaming<epb::LeaseKeepAliveResponse>,
}

impl Upstream {
    async fn open(ch: tonic::transport::Channel, caller: &Caller) -> Result<Upstream, Status> {
        let (to, rx) = mpsc::channel(KEEP_ALIVE_QUEUE);
        let mut req = Request::new(ReceiverStream::new(rx));
        *req.metadata_mut() = forwarded((), caller).metadata().clone();
        let from = LeaseClient::new(ch)
            .lease_keep_alive(req)
            .await?
            .into_inner();
        Ok(Upstream { to, from })
    }

    async fn ask(
        &mut self,
        req: epb::LeaseKeepAliveRequest,
    ) -> Result<epb::LeaseKeepAliveResponse, Status> {
        self.to
            .send(req)
            .await
            .map_err(|_| errors::leader_changed())?;
        match self.from.message().await? {
            Some(r) => Ok(r),
            None => Err(errors::leader_changed()),
        }
    }
}

/// Answers one keep-alive: here when this member leads, else at the leader
/// (over `upstream`, opened when needed and again after a leader change);
/// tried again, as a write is, when leadership moved on its way.
async fn keep_alive_once(
    s: &Shared,
    stream: &Request<()>,
    caller: &Caller,
    upstream: &tokio::sync::Mutex<Option<Upstream>>,
    req: epb::LeaseKeepAliveRequest,
) -> Result<epb::LeaseKeepAliveResponse, Status> {
    s.refuse_learner()?;
    let mut one = Request::new(req);
    *one.metadata_mut() = stream.metadata().clone();
    s.at_leader(one, Answer::Served, |route, req| async move {
        let mut upstream = upstream.lock().await;
        match route {
            Route::Here => {
                *upstream = None;
                caller.may_lease_keys(s, req.id, Need::Write)?;
                let header = s.header(s.revision());
                let ttl = s.renew(req.id)?;
                Ok(epb::LeaseKeepAliveResponse {
                    header,
                    id: req.id,
                    ttl,
                })
            }
            Route::Leader(ch) => {
                if upstream.is_none() {
                    *upstream = Some(Upstream::open(ch, caller).await?);
                }
                let result = match upstream.as_mut() {
                    Some(u) => u.ask(req).await,
                    None => Err(errors::leader_changed()),
                };
                if result.is_err() {
                    *upstream = None;
                }
                result
            }
        }
    })
    .await
}

#[tonic::async_trait]
impl Lease for LeaseService {
    async fn lease_grant(
        &self,
        req: Request<epb::LeaseGrantRequest>,
    ) -> Result<Response<epb::LeaseGrantResponse>, Status> {
        let s = &self.0;
        if req.get_ref().ttl > MAX_TTL {
            return Err(errors::lease_ttl_too_large());
        }
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { LeaseClient::new(ch).lease_grant(r).await },
            |_, r| async move {
                let mut id = r.id;
                while id == 0 {
                    id = rand::random::<i64>() & i64::MAX;
                }
                let ttl = r.ttl.max(min_ttl(s.node.config()));
                let op = spb::command::Op::LeaseGrant(spb::LeaseGrant { id, ttl });
                match s.propose(op).await? {
                    Applied::Revision(revision) => {
                        s.lessor.renew(id, ttl, s.node.view().term);
                        Ok(epb::LeaseGrantResponse {
                            header: s.header(revision),
                            id,
                            ttl,
                            error: String::new(),
                        })
                    }
                    other => Err(unexpected(other)),
                }
            },
        )
        .await
    }

    async fn lease_revoke(
        &self,
        req: Request<epb::LeaseRevokeRequest>,
    ) -> Result<Response<epb::LeaseRevokeResponse>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { LeaseClient::new(ch).lease_revoke(r).await },
            |caller, r| async move {
                caller.may_revoke(s, r.id)?;
                let op = spb::command::Op::LeaseRevoke(spb::LeaseRevoke { id: r.id });
                match s.propose(op).await? {
                    Applied::Revision(revision) => {
                        s.lessor.forget(r.id);
                        Ok(epb::LeaseRevokeResponse {
                            header: s.header(revision),
                        })
                    }
                    other => Err(unexpected(other)),
                }
            },
        )
        .await
    }

    type LeaseKeepAliveStream = KeepAliveStream;

    async fn lease_keep_alive(
        &self,
        req: Request<Streaming<epb::LeaseKeepAliveRequest>>,
    ) -> Result<Response<Self::LeaseKeepAliveStream>, Status> {
        let s = self.0.clone();
        s.require_leader(&req)?;
        // The stream's metadata (whether a follower passed it on), for routing.
        let mut stream = Request::new(());
        *stream.metadata_mut() = req.metadata().clone();
        let caller = s.caller(&req).await?;
        let mut inbound = req.into_inner();
        let (tx, rx) = mpsc::channel(KEEP_ALIVE_QUEUE);
        tokio::spawn(async move {
            let upstream = tokio::sync::Mutex::new(None);
            loop {
                let next = tokio::select! {
                    next = inbound.next() => next,
                    _ = tx.closed() => return,
                };
                let Some(Ok(req)) = next else {
                    return;
                };
                let answer = keep_alive_once(&s, &stream, &caller, &upstream, req).await;
                let end = answer.is_err();
                if tx.send(answer).await.is_err() || end {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn lease_time_to_live(
        &self,
        req: Request<epb::LeaseTimeToLiveRequest>,
    ) -> Result<Response<epb::LeaseTimeToLiveResponse>, Status> {
        let s = &self.0;
        // Retried like a write when leadership moves on its way (a read is
        // always safe to repeat).
        s.unary(
            req,
            Answer::Served,
            |ch, r| async move { LeaseClient::new(ch).lease_time_to_live(r).await },
            |caller, r| async move {
                caller.may_lease_keys(s, r.id, Need::Read)?;
                let header = s.header(s.revision());
                let found = s.node.store().state().lease(r.id, r.keys);
                Ok(match found {
                    Some(l) => epb::LeaseTimeToLiveResponse {
                        header,
                        id: r.id,
                        ttl: s.lessor.remaining(r.id).unwrap_or(l.ttl),
                        granted_ttl: l.ttl,
                        keys: l.keys,
                    },
                    None => epb::LeaseTimeToLiveResponse {
                        header,
                        id: r.id,
                        ttl: -1,
                        granted_ttl: 0,
                        keys: vec![],
                    },
                })
            },
        )
        .await
    }

    async fn lease_leases(
        &self,
        req: Request<epb::LeaseLeasesRequest>,
    ) -> Result<Response<epb::LeaseLeasesResponse>, Status> {
        let s = &self.0;
        s.refuse_learner()?;
        let leases = s.node.store().state().leases();
        let caller = s.caller(&req).await?;
        for l in &leases {
            caller.may_lease_keys(s, l.id, Need::Read)?;
        }
        Ok(Response::new(epb::LeaseLeasesResponse {
            header: s.header(s.revision()),
            leases: leases
                .into_iter()
                .map(|l| epb::LeaseStatus { id: l.id })
                .collect(),
        }))
    }
}
