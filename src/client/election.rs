//! The [`Election`] implementation: etcd's Lease and Election (`v3electionpb`)
//! calls that autopilot's leadership rests on, and the KV calls of its
//! intent key, converted to domain values.

use std::time::Duration;

use super::Client;
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::kv_client::KvClient;
use crate::proto::etcdserverpb::lease_client::LeaseClient;
use crate::proto::v3electionpb as elpb;
use crate::proto::v3electionpb::election_client::ElectionClient;
use crate::workflow::autopilot::{Election, ElectionLeader, Leadership};
use crate::workflow::{ApiError, ApiErrorKind};

impl Election for Client {
    async fn lease_grant(&self, ttl: Duration) -> Result<i64, ApiError> {
        let ttl = ttl.as_secs().max(1) as i64;
        let r = self
            .call(false, |ch| async move {
                LeaseClient::new(ch)
                    .lease_grant(pb::LeaseGrantRequest { ttl, id: 0 })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        if !r.error.is_empty() {
            return Err(ApiError::new(ApiErrorKind::Refused, r.error));
        }
        Ok(r.id)
    }

    async fn lease_keep_alive(&self, lease: i64) -> Result<(), ApiError> {
        let r = self
            .call(true, |ch| async move {
                let once = tokio_stream::iter([pb::LeaseKeepAliveRequest { id: lease }]);
                let mut answers = LeaseClient::new(ch)
                    .lease_keep_alive(once)
                    .await?
                    .into_inner();
                answers.message().await
            })
            .await?;
        match r {
            Some(a) if a.ttl > 0 => Ok(()),
            _ => Err(ApiError::new(
                ApiErrorKind::NotFound,
                format!("lease {lease:x} has expired"),
            )),
        }
    }

    async fn lease_revoke(&self, lease: i64) -> Result<(), ApiError> {
        self.call(false, |ch| async move {
            LeaseClient::new(ch)
                .lease_revoke(pb::LeaseRevokeRequest { id: lease })
                .await
                .map(|_| ())
        })
        .await
    }

    async fn campaign(
        &self,
        election: &str,
        lease: i64,
        value: &str,
    ) -> Result<Leadership, ApiError> {
        let r = self
            .call(false, |ch| async move {
                ElectionClient::new(ch)
                    .campaign(elpb::CampaignRequest {
                        name: election.as_bytes().to_vec(),
                        lease,
                        value: value.as_bytes().to_vec(),
                    })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        let l = r.leader.unwrap_or_default();
        Ok(Leadership {
            name: String::from_utf8_lossy(&l.name).into_owned(),
            key: l.key,
            rev: l.rev,
            lease: l.lease,
        })
    }

    async fn election_leader(&self, election: &str) -> Result<Option<ElectionLeader>, ApiError> {
        let r = self
            .call(true, |ch| async move {
                ElectionClient::new(ch)
                    .leader(elpb::LeaderRequest {
                        name: election.as_bytes().to_vec(),
                    })
                    .await
                    .map(|r| r.into_inner())
            })
            .await;
        match r {
            Ok(r) => Ok(r.kv.map(|kv| ElectionLeader {
                value: String::from_utf8_lossy(&kv.value).into_owned(),
                lease: kv.lease,
            })),
            Err(e) if e.message.contains("no leader") => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn resign(&self, leadership: &Leadership) -> Result<(), ApiError> {
        let leader = elpb::LeaderKey {
            name: leadership.name.as_bytes().to_vec(),
            key: leadership.key.clone(),
            rev: leadership.rev,
            lease: leadership.lease,
        };
        self.call(false, |ch| {
            let leader = leader.clone();
            async move {
                ElectionClient::new(ch)
                    .resign(elpb::ResignRequest {
                        leader: Some(leader),
                    })
                    .await
                    .map(|_| ())
            }
        })
        .await
    }

    async fn kv_get(&self, key: &str) -> Result<Option<String>, ApiError> {
        let r = self
            .call(true, |ch| async move {
                KvClient::new(ch)
                    .range(pb::RangeRequest {
                        key: key.as_bytes().to_vec(),
                        ..Default::default()
                    })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(r.kvs
            .first()
            .map(|kv| String::from_utf8_lossy(&kv.value).into_owned()))
    }

    async fn kv_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError> {
        match value {
            Some(value) => {
                self.call(false, |ch| async move {
                    KvClient::new(ch)
                        .put(pb::PutRequest {
                            key: key.as_bytes().to_vec(),
                            value: value.as_bytes().to_vec(),
                            ..Default::default()
                        })
                        .await
                        .map(|_| ())
                })
                .await
            }
            None => {
                self.call(false, |ch| async move {
                    KvClient::new(ch)
                        .delete_range(pb::DeleteRangeRequest {
                            key: key.as_bytes().to_vec(),
                            ..Default::default()
                        })
                        .await
                        .map(|_| ())
                })
                .await
            }
        }
    }
}
