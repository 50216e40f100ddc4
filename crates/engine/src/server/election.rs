//! etcd's Election service (`v3electionpb.Election`) on etcd's election
//! recipe (see `concurrency`): the leader is the key under the election's
//! name created first; Campaign waits to become it, Proclaim and Resign act
//! only while the caller's key is still the one it won with, Observe streams
//! the leader's key-value as it changes.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use tonic::{Request, Response, Status};

use super::concurrency::{created_at, delete_op, lease_key, prefix, put_op, Client, GiveUp};
use super::Shared;
use crate::proto::etcdserverpb as epb;
use crate::proto::v3electionpb as elpb;
use crate::proto::v3electionpb::election_server::Election;

/// The Election service.
pub struct ElectionService(pub Arc<Shared>);

/// etcd's refusal of Proclaim by a caller that no longer leads.
fn not_leader() -> Status {
    Status::failed_precondition("etcdserver: election: not leader")
}

/// etcd's answer to Leader when nobody leads.
fn no_leader() -> Status {
    Status::failed_precondition("etcdserver: election: no leader")
}

/// Puts `value` on the leader's key while it is the one `leader` won with.
async fn proclaim(
    kv: &Client,
    leader: &elpb::LeaderKey,
    value: &[u8],
) -> Result<epb::TxnResponse, Status> {
    let t = kv
        .txn(epb::TxnRequest {
            compare: vec![created_at(&leader.key, leader.rev)],
            success: vec![put_op(&leader.key, value, leader.lease)],
            failure: vec![],
        })
        .await?;
    if !t.succeeded {
        return Err(not_leader());
    }
    Ok(t)
}

#[tonic::async_trait]
impl Election for ElectionService {
    async fn campaign(
        &self,
        req: Request<elpb::CampaignRequest>,
    ) -> Result<Response<elpb::CampaignResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let r = req.into_inner();
        let key = lease_key(&r.name, r.lease);
        let mine = kv.create(&key, &r.value, r.lease).await?;
        let leader = elpb::LeaderKey {
            name: r.name.clone(),
            key: key.clone(),
            rev: mine.revision,
            lease: r.lease,
        };
        // Campaigning again with a new value: the value is updated first.
        if mine
            .existing
            .as_deref()
            .is_some_and(|v| v != r.value.as_slice())
        {
            proclaim(&kv, &leader, &r.value).await?;
        }
        let give_up = GiveUp::new(kv.clone(), key);
        kv.wait_deletes(&prefix(&r.name), mine.revision - 1).await?;
        give_up.disarm();
        let (_, header) = kv.by_create(&prefix(&r.name), None).await?;
        Ok(Response::new(elpb::CampaignResponse {
            header,
            leader: Some(leader),
        }))
    }

    async fn proclaim(
        &self,
        req: Request<elpb::ProclaimRequest>,
    ) -> Result<Response<elpb::ProclaimResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let r = req.into_inner();
        let leader = r.leader.ok_or_else(not_leader)?;
        let t = proclaim(&kv, &leader, &r.value).await?;
        Ok(Response::new(elpb::ProclaimResponse { header: t.header }))
    }

    async fn leader(
        &self,
        req: Request<elpb::LeaderRequest>,
    ) -> Result<Response<elpb::LeaderResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let (first, header) = kv.by_create(&prefix(&req.get_ref().name), None).await?;
        let kv = first.ok_or_else(no_leader)?;
        Ok(Response::new(elpb::LeaderResponse {
            header,
            kv: Some(kv),
        }))
    }

    type ObserveStream =
        Pin<Box<dyn Stream<Item = Result<elpb::LeaderResponse, Status>> + Send + 'static>>;

    async fn observe(
        &self,
        req: Request<elpb::LeaderRequest>,
    ) -> Result<Response<Self::ObserveStream>, Status> {
        let kv = Client::of(&self.0, &req);
        let pfx = prefix(&req.get_ref().name);
        let shared = self.0.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        tokio::spawn(async move {
            let mut applied = shared.node.subscribe();
            let mut stopping = shared.stopping.clone();
            // The leader's key and revision last sent.
            let mut sent: Option<(Vec<u8>, i64)> = None;
            loop {
                match kv.by_create(&pfx, None).await {
                    Ok((Some(leader), header)) => {
                        let now = Some((leader.key.clone(), leader.mod_revision));
                        if now != sent {
                            sent = now;
                            let resp = elpb::LeaderResponse {
                                header,
                                kv: Some(leader),
                            };
                            if tx.send(Ok(resp)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Ok((None, _)) => {}
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                }
                tokio::select! {
                    r = applied.recv() => {
                        if let Err(tokio::sync::broadcast::error::RecvError::Closed) = r {
                            return;
                        }
                    }
                    _ = tx.closed() => return,
                    _ = stopping.wait_for(|s| *s) => return,
                }
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn resign(
        &self,
        req: Request<elpb::ResignRequest>,
    ) -> Result<Response<elpb::ResignResponse>, Status> {
        let kv = Client::of(&self.0, &req);
        let Some(leader) = req.into_inner().leader else {
            return Ok(Response::new(elpb::ResignResponse { header: None }));
        };
        let t = kv
            .txn(epb::TxnRequest {
                compare: vec![created_at(&leader.key, leader.rev)],
                success: vec![delete_op(&leader.key)],
                failure: vec![],
            })
            .await?;
        Ok(Response::new(elpb::ResignResponse { header: t.header }))
    }
}
