//! KV Range / Put / DeleteRange with etcd's semantics: writes through raft on the
//! leader, linearizable reads after a read index, serializable reads local.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::errors;
use super::forward::{forwarded, Route};
use super::Shared;
use crate::engine::node::Applied;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::kv_client::KvClient;
use crate::proto::etcdserverpb::kv_server::Kv;
use crate::proto::memberctl_store_v1 as spb;
use crate::proto::mvccpb;

/// The etcd-compatible KV service (Range, Put, DeleteRange).
pub struct KvService(pub Arc<Shared>);

fn kv(r: spb::KvRecord, keys_only: bool) -> mvccpb::KeyValue {
    mvccpb::KeyValue {
        key: r.key,
        create_revision: r.create_revision,
        mod_revision: r.mod_revision,
        version: r.version,
        value: if keys_only { vec![] } else { r.value },
        lease: 0,
    }
}

fn internal(e: impl std::fmt::Display) -> Status {
    Status::internal(format!("etcdserver: {e}"))
}

impl Shared {
    /// Learners serve only Status and serializable reads.
    pub fn refuse_learner(&self) -> Result<(), Status> {
        if self.node.view().is_learner() {
            return Err(errors::not_for_learner());
        }
        Ok(())
    }
}

#[tonic::async_trait]
impl Kv for KvService {
    async fn range(
        &self,
        req: Request<epb::RangeRequest>,
    ) -> Result<Response<epb::RangeResponse>, Status> {
        let s = &self.0;
        if !req.get_ref().serializable {
            s.refuse_learner()?;
            match s.route(&req).await? {
                Route::Leader(ch) => {
                    return KvClient::new(ch).range(forwarded(req.into_inner())).await
                }
                Route::Here => s.wait(s.node.read_index()).await?,
            }
        }
        let r = req.into_inner();
        let found = s
            .node
            .store()
            .range(&r.key, &r.range_end, r.limit, r.count_only)
            .map_err(internal)?;
        Ok(Response::new(epb::RangeResponse {
            header: s.header(found.revision),
            kvs: found.kvs.into_iter().map(|k| kv(k, r.keys_only)).collect(),
            more: found.more,
            count: found.count,
        }))
    }

    async fn put(
        &self,
        req: Request<epb::PutRequest>,
    ) -> Result<Response<epb::PutResponse>, Status> {
        let s = &self.0;
        s.refuse_learner()?;
        s.write(req, |route, r| async move {
            if let Route::Leader(ch) = route {
                return KvClient::new(ch).put(forwarded(r)).await;
            }
            let op = spb::command::Op::Put(spb::Put {
                key: r.key,
                value: r.value,
            });
            match s.wait(s.node.propose(op)).await? {
                Applied::Put { revision, prev } => Ok(Response::new(epb::PutResponse {
                    header: s.header(revision),
                    prev_kv: if r.prev_kv {
                        prev.map(|p| kv(p, false))
                    } else {
                        None
                    },
                })),
                other => Err(internal(format!("unexpected result {other:?}"))),
            }
        })
        .await
    }

    async fn delete_range(
        &self,
        req: Request<epb::DeleteRangeRequest>,
    ) -> Result<Response<epb::DeleteRangeResponse>, Status> {
        let s = &self.0;
        s.refuse_learner()?;
        s.write(req, |route, r| async move {
            if let Route::Leader(ch) = route {
                return KvClient::new(ch).delete_range(forwarded(r)).await;
            }
            let prev = if r.prev_kv {
                let found = s
                    .node
                    .store()
                    .range(&r.key, &r.range_end, 0, false)
                    .map_err(internal)?;
                found.kvs.into_iter().map(|k| kv(k, false)).collect()
            } else {
                vec![]
            };
            let op = spb::command::Op::DeleteRange(spb::DeleteRange {
                key: r.key,
                range_end: r.range_end,
            });
            match s.wait(s.node.propose(op)).await? {
                Applied::Deleted { deleted, revision } => {
                    Ok(Response::new(epb::DeleteRangeResponse {
                        header: s.header(revision),
                        deleted,
                        prev_kvs: prev,
                    }))
                }
                other => Err(internal(format!("unexpected result {other:?}"))),
            }
        })
        .await
    }
}
