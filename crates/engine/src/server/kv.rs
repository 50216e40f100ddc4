//! KV Range / Put / DeleteRange / Txn / Compact with etcd's semantics:
//! writes through raft on the leader, linearizable reads after a read index,
//! serializable reads local.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::errors::{internal, unexpected};
use super::forward::Answer;
use super::{convert, errors, validate, Shared};
use crate::node::Applied;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::kv_client::KvClient;
use crate::proto::etcdserverpb::kv_server::Kv;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{OpResult, TxnResult};

/// The etcd-compatible KV service.
pub struct KvService(pub Arc<Shared>);

impl Shared {
    /// Applies a transaction (this node leads).
    async fn propose_txn(&self, t: spb::Txn) -> Result<TxnResult, Status> {
        match self.propose(spb::command::Op::Txn(t)).await? {
            Applied::Txn(r) => Ok(r),
            other => Err(unexpected(other)),
        }
    }
}

/// The only operation's result of a one-operation transaction.
fn only(t: TxnResult) -> Result<(i64, OpResult), Status> {
    let revision = t.revision;
    t.responses
        .into_iter()
        .next()
        .map(|r| (revision, r))
        .ok_or_else(|| internal("a transaction of one operation answered none"))
}

#[tonic::async_trait]
impl Kv for KvService {
    async fn range(
        &self,
        req: Request<epb::RangeRequest>,
    ) -> Result<Response<epb::RangeResponse>, Status> {
        let s = &self.0;
        // Timed whole, as etcd times a range (etcd_server_slow_apply_total).
        let _slow = crate::metrics::SlowRead::start();
        validate::range(req.get_ref())?;
        let local = |r: epb::RangeRequest| {
            let found = s
                .node
                .store()
                .state()
                .range(&convert::range(&r))
                .map_err(|e| errors::from_refusal(&e))?;
            let header = s.header(found.revision);
            Ok(convert::range_response(found, header))
        };
        if req.get_ref().serializable || s.stale_reads {
            // (--fault-stale-reads, a bug on purpose: no ReadIndex.)
            s.caller(&req).await?.may_range(s, req.get_ref())?;
            return local(req.into_inner()).map(Response::new);
        }
        // Linearizable: confirmed by the leader (here, or where it is
        // passed on), and tried again when leadership moves on its way.
        s.unary(
            req,
            Answer::Served,
            |ch, r| async move { KvClient::new(ch).range(r).await },
            |caller, r| async move {
                caller.may_range(s, &r)?;
                local(r)
            },
        )
        .await
    }

    async fn put(
        &self,
        req: Request<epb::PutRequest>,
    ) -> Result<Response<epb::PutResponse>, Status> {
        let s = &self.0;
        validate::put(req.get_ref())?;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { KvClient::new(ch).put(r).await },
            |caller, r| async move {
                caller.may_put(s, &r)?;
                let t = convert::single(spb::op::Op::Put(convert::put(r)));
                match only(s.propose_txn(t).await?)? {
                    (revision, OpResult::Put { prev, .. }) => Ok(epb::PutResponse {
                        header: s.header(revision),
                        prev_kv: prev.as_deref().map(convert::kv_shared),
                    }),
                    (_, other) => Err(internal(format!("unexpected result {other:?}"))),
                }
            },
        )
        .await
    }

    async fn delete_range(
        &self,
        req: Request<epb::DeleteRangeRequest>,
    ) -> Result<Response<epb::DeleteRangeResponse>, Status> {
        let s = &self.0;
        validate::delete(req.get_ref())?;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { KvClient::new(ch).delete_range(r).await },
            |caller, r| async move {
                caller.may_delete(s, &r)?;
                let t = convert::single(spb::op::Op::DeleteRange(convert::delete(r)));
                match only(s.propose_txn(t).await?)? {
                    (revision, OpResult::Delete { deleted, prev, .. }) => {
                        Ok(epb::DeleteRangeResponse {
                            header: s.header(revision),
                            deleted,
                            prev_kvs: prev.iter().map(|p| convert::kv_shared(p)).collect(),
                        })
                    }
                    (_, other) => Err(internal(format!("unexpected result {other:?}"))),
                }
            },
        )
        .await
    }

    async fn txn(
        &self,
        req: Request<epb::TxnRequest>,
    ) -> Result<Response<epb::TxnResponse>, Status> {
        let s = &self.0;
        validate::txn(req.get_ref(), self.0.limits.max_txn_ops)?;
        if !validate::read_only(req.get_ref()) {
            return s
                .unary(
                    req,
                    Answer::Applied,
                    |ch, r| async move { KvClient::new(ch).txn(r).await },
                    |caller, r| async move {
                        caller.may_txn(s, &r)?;
                        let result = s.propose_txn(convert::txn(r)).await?;
                        let header = s.header(result.revision);
                        Ok(convert::txn_response(result, header))
                    },
                )
                .await;
        }
        // A read-only transaction is timed whole, as etcd times one.
        let _slow = crate::metrics::SlowRead::start();
        let local = |t: epb::TxnRequest| {
            let r = s
                .node
                .store()
                .state()
                .read_txn(&convert::txn(t))
                .map_err(internal)?
                .map_err(|e| errors::from_refusal(&e))?;
            let header = s.header(r.revision);
            Ok(convert::txn_response(r, header))
        };
        if validate::serializable(req.get_ref()) || s.stale_reads {
            s.caller(&req).await?.may_txn(s, req.get_ref())?;
            return local(req.into_inner()).map(Response::new);
        }
        s.unary(
            req,
            Answer::Served,
            |ch, t| async move { KvClient::new(ch).txn(t).await },
            |caller, t| async move {
                caller.may_txn(s, &t)?;
                local(t)
            },
        )
        .await
    }

    async fn compact(
        &self,
        req: Request<epb::CompactionRequest>,
    ) -> Result<Response<epb::CompactionResponse>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { KvClient::new(ch).compact(r).await },
            |_, r| async move {
                let op = spb::command::Op::Compact(spb::Compact {
                    revision: r.revision,
                });
                let revision = match s.propose(op).await? {
                    Applied::Revision(rev) => rev,
                    other => return Err(unexpected(other)),
                };
                if r.physical {
                    // The history went in the applied transaction; make it durable.
                    let store = s.node.store().clone();
                    tokio::task::spawn_blocking(move || store.flush())
                        .await
                        .map_err(internal)?
                        .map_err(internal)?;
                }
                Ok(epb::CompactionResponse {
                    header: s.header(revision),
                })
            },
        )
        .await
    }
}
