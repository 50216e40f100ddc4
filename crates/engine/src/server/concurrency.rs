//! etcd's concurrency recipes (its client's `concurrency` package, which
//! etcd's own Lock and Election services run inside the server) on the
//! engine's KV service, called in-process with the caller's credentials:
//! a key per lease under a prefix, created if absent; the owner is the key
//! created first; a waiter waits until every key created before its own is
//! deleted. The same keys as `etcdctl lock` and `etcdctl elect`, so both
//! exclude each other.

use std::sync::Arc;

use tonic::{Request, Status};

use super::kv::KvService;
use super::Shared;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::kv_server::Kv;
use crate::proto::mvccpb::KeyValue;

/// KV calls made for one client request, with its caller's credentials.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    metadata: tonic::metadata::MetadataMap,
    extensions: tonic::Extensions,
}

/// The end of the range of keys with `prefix` (etcd's GetPrefixRangeEnd).
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    // All 0xff: to the end of the keyspace.
    vec![0]
}

/// The key of `lease` under `prefix` (`PREFIX/LEASE-IN-HEX`, as etcd's).
pub fn lease_key(name: &[u8], lease: i64) -> Vec<u8> {
    let mut key = name.to_vec();
    key.push(b'/');
    key.extend_from_slice(format!("{lease:x}").as_bytes());
    key
}

/// The prefix of election or lock `name`.
pub fn prefix(name: &[u8]) -> Vec<u8> {
    let mut p = name.to_vec();
    p.push(b'/');
    p
}

/// A compare on `key`'s create revision.
pub fn created_at(key: &[u8], revision: i64) -> epb::Compare {
    epb::Compare {
        result: epb::compare::CompareResult::Equal as i32,
        target: epb::compare::CompareTarget::Create as i32,
        key: key.to_vec(),
        target_union: Some(epb::compare::TargetUnion::CreateRevision(revision)),
        ..Default::default()
    }
}

/// A put of `key` as a transaction's operation.
pub fn put_op(key: &[u8], value: &[u8], lease: i64) -> epb::RequestOp {
    epb::RequestOp {
        request: Some(epb::request_op::Request::RequestPut(epb::PutRequest {
            key: key.to_vec(),
            value: value.to_vec(),
            lease,
            ..Default::default()
        })),
    }
}

/// A read of `key` as a transaction's operation.
pub fn get_op(key: &[u8]) -> epb::RequestOp {
    epb::RequestOp {
        request: Some(epb::request_op::Request::RequestRange(epb::RangeRequest {
            key: key.to_vec(),
            ..Default::default()
        })),
    }
}

/// A delete of `key` as a transaction's operation.
pub fn delete_op(key: &[u8]) -> epb::RequestOp {
    epb::RequestOp {
        request: Some(epb::request_op::Request::RequestDeleteRange(
            epb::DeleteRangeRequest {
                key: key.to_vec(),
                ..Default::default()
            },
        )),
    }
}

/// What [`Client::create`] found.
pub struct Created {
    /// The key's create revision (this caller's, or the one that was there).
    pub revision: i64,
    /// The value it had when it was there already.
    pub existing: Option<Vec<u8>>,
}

impl Client {
    /// KV calls with the credentials of `req`.
    pub fn of<T>(shared: &Arc<Shared>, req: &Request<T>) -> Client {
        Client {
            shared: shared.clone(),
            metadata: req.metadata().clone(),
            extensions: req.extensions().clone(),
        }
    }

    fn request<T>(&self, message: T) -> Request<T> {
        Request::from_parts(self.metadata.clone(), self.extensions.clone(), message)
    }

    fn kv(&self) -> KvService {
        KvService(self.shared.clone())
    }

    /// A transaction.
    pub async fn txn(&self, t: epb::TxnRequest) -> Result<epb::TxnResponse, Status> {
        Ok(self.kv().txn(self.request(t)).await?.into_inner())
    }

    /// A range read (linearizable unless `serializable`).
    pub async fn range(&self, r: epb::RangeRequest) -> Result<epb::RangeResponse, Status> {
        Ok(self.kv().range(self.request(r)).await?.into_inner())
    }

    /// Deletes `key`.
    pub async fn delete(&self, key: &[u8]) -> Result<epb::DeleteRangeResponse, Status> {
        let r = epb::DeleteRangeRequest {
            key: key.to_vec(),
            ..Default::default()
        };
        Ok(self.kv().delete_range(self.request(r)).await?.into_inner())
    }

    /// Puts `key` with `value` on `lease` unless it exists (then reads it).
    pub async fn create(&self, key: &[u8], value: &[u8], lease: i64) -> Result<Created, Status> {
        let t = self
            .txn(epb::TxnRequest {
                compare: vec![created_at(key, 0)],
                success: vec![put_op(key, value, lease)],
                failure: vec![get_op(key)],
            })
            .await?;
        if t.succeeded {
            let revision = t.header.as_ref().map_or(0, |h| h.revision);
            return Ok(Created {
                revision,
                existing: None,
            });
        }
        let kv = first_kv(&t).ok_or_else(|| Status::internal("etcdserver: key vanished"))?;
        Ok(Created {
            revision: kv.create_revision,
            existing: Some(kv.value),
        })
    }

    /// The key under `prefix` created first (the owner, the leader), or,
    /// with `before`, the newest created before that revision.
    pub async fn by_create(
        &self,
        prefix: &[u8],
        before: Option<i64>,
    ) -> Result<(Option<KeyValue>, Option<epb::ResponseHeader>), Status> {
        use epb::range_request::{SortOrder, SortTarget};
        let order = if before.is_some() {
            SortOrder::Descend
        } else {
            SortOrder::Ascend
        };
        let r = self
            .range(epb::RangeRequest {
                key: prefix.to_vec(),
                range_end: prefix_end(prefix),
                limit: 1,
                sort_order: order as i32,
                sort_target: SortTarget::Create as i32,
                max_create_revision: before.unwrap_or(0),
                ..Default::default()
            })
            .await?;
        Ok((r.kvs.into_iter().next(), r.header))
    }

    /// Waits until every key under `prefix` created at or before
    /// `max_revision` is deleted (etcd's waitDeletes).
    pub async fn wait_deletes(&self, prefix: &[u8], max_revision: i64) -> Result<(), Status> {
        loop {
            let (last, _) = self.by_create(prefix, Some(max_revision)).await?;
            let Some(last) = last else {
                return Ok(());
            };
            self.wait_deleted(&last.key).await?;
        }
    }

    /// Waits until `key` is gone from this member's store.
    pub async fn wait_deleted(&self, key: &[u8]) -> Result<(), Status> {
        let mut applied = self.shared.node.subscribe();
        let mut stopping = self.shared.stopping.clone();
        loop {
            let here = self
                .range(epb::RangeRequest {
                    key: key.to_vec(),
                    serializable: true,
                    count_only: true,
                    ..Default::default()
                })
                .await?;
            if here.count == 0 {
                return Ok(());
            }
            // Any applied change (or missed ones) looks again.
            tokio::select! {
                r = applied.recv() => {
                    if let Err(tokio::sync::broadcast::error::RecvError::Closed) = r {
                        return Err(Status::unavailable("etcdserver: server stopped"));
                    }
                }
                _ = stopping.wait_for(|s| *s) => {
                    return Err(Status::unavailable("etcdserver: server stopped"));
                }
            }
        }
    }
}

/// The first key-value a transaction's first operation read.
fn first_kv(t: &epb::TxnResponse) -> Option<KeyValue> {
    match t.responses.first()?.response.as_ref()? {
        epb::response_op::Response::ResponseRange(r) => r.kvs.first().cloned(),
        _ => None,
    }
}

/// Deletes `key` when dropped, unless disarmed: a waiter whose client went
/// away gives its place up, as etcd's does.
pub struct GiveUp {
    client: Option<Client>,
    key: Vec<u8>,
}

impl GiveUp {
    /// Deletes `key` with `client` if dropped armed.
    pub fn new(client: Client, key: Vec<u8>) -> GiveUp {
        GiveUp {
            client: Some(client),
            key,
        }
    }

    /// Keeps the key (the caller got what it waited for).
    pub fn disarm(mut self) {
        self.client = None;
    }
}

impl Drop for GiveUp {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let key = std::mem::take(&mut self.key);
            tokio::spawn(async move {
                let _ = client.delete(&key).await;
            });
        }
    }
}
