//! etcd's Lock service (`v3lockpb.Lock`): Lock waits until the caller's key
//! under the lock's name is the oldest there (etcd's mutex recipe, see
//! `concurrency`), then answers it; Unlock deletes it.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::concurrency::{lease_key, prefix, Client, GiveUp};
use super::Shared;
use crate::proto::v3lockpb as lpb;
use crate::proto::v3lockpb::lock_server::Lock;

/// The Lock service.
pub struct LockService(pub Arc<Shared>);

/// etcd's answer when the lock's key vanished while it waited (its lease ended).
pub fn session_expired() -> Status {
    Status::unknown("mutex: session is expired")
}

#[tonic::async_trait]
impl Lock for LockService {
    async fn lock(
        &self,
        req: Request<lpb::LockRequest>,
    ) -> Result<Response<lpb::LockResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let r = req.into_inner();
        let pfx = prefix(&r.name);
        let key = lease_key(&r.name, r.lease);
        let mine = kv.create(&key, b"", r.lease).await?;
        // A client that goes away while waiting gives its place up.
        let give_up = GiveUp::new(kv.clone(), key.clone());
        kv.wait_deletes(&pfx, mine.revision - 1).await?;
        let now = kv
            .range(crate::proto::etcdserverpb::RangeRequest {
                key: key.clone(),
                ..Default::default()
            })
            .await?;
        if now.kvs.is_empty() {
            give_up.disarm();
            return Err(session_expired());
        }
        give_up.disarm();
        Ok(Response::new(lpb::LockResponse {
            header: now.header,
            key,
        }))
    }

    async fn unlock(
        &self,
        req: Request<lpb::UnlockRequest>,
    ) -> Result<Response<lpb::UnlockResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let deleted = kv.delete(&req.get_ref().key).await?;
        Ok(Response::new(lpb::UnlockResponse {
            header: deleted.header,
        }))
    }
}
