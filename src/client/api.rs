//! The [`MembershipApi`] implementation: each domain call as one etcd (or memberctl.v1) request, converted both ways.

use futures_util::future::{select, Either};

use super::{convert, metrics, Client};
use crate::model::cert::PeerCertificate;
use crate::model::{
    Added, Alarm, Configuration, JointChange, Member, MemberId, MemberList, MemberStatus, PeerUrls,
    ProgressReport, ServerMetrics, ServerVersion, StartFlags,
};
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::cluster_client::ClusterClient;
use crate::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use crate::proto::memberctl_v1 as mpb;
use crate::proto::memberctl_v1::membership_client::MembershipClient;
use crate::workflow::{ApiError, ApiErrorKind, MembershipApi};

impl MembershipApi for Client {
    fn endpoint_urls(&self) -> Vec<String> {
        self.endpoints.clone()
    }

    async fn status_at(&self, url: &str) -> Result<MemberStatus, ApiError> {
        self.status_once(url).await.map(convert::status)
    }

    async fn key_get(&self, key: &str) -> Result<Option<String>, ApiError> {
        crate::workflow::autopilot::Election::kv_get(self, key).await
    }

    async fn key_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError> {
        crate::workflow::autopilot::Election::kv_put(self, key, value).await
    }

    async fn commit_empty_entry(&self) -> Result<(), ApiError> {
        use crate::workflow::autopilot::Election;
        // A lease with no key: granting it and revoking it are two entries
        // that touch no key and no revision.
        let lease = self.lease_grant(std::time::Duration::from_secs(60)).await?;
        self.lease_revoke(lease).await
    }

    fn endpoint_of(&self, member: &Member) -> Option<usize> {
        let first = self.member_url(member.client_urls.first()?).ok()?;
        self.endpoints.iter().position(|e| *e == first)
    }

    /// Asks for a linearizable list (etcd ≥ 3.5 and the memberctl engine
    /// confirm it with the leader; 3.4 ignores the flag); without a leader,
    /// falls back to a member's local view so status stays available.
    async fn member_list(&self) -> Result<MemberList, ApiError> {
        let list = |linearizable: bool| {
            self.call(true, move |ch| async move {
                ClusterClient::new(ch)
                    .member_list(pb::MemberListRequest { linearizable })
                    .await
                    .map(|r| r.into_inner())
            })
        };
        // Without a leader a linearizable list waits out the command
        // timeout; the member's own (serializable) view is asked at the same
        // time, so falling back to it costs no second timeout (a hung
        // endpoint answers neither within one).
        let fallback = |e: &ApiError| {
            matches!(
                e.kind,
                ApiErrorKind::Unavailable | ApiErrorKind::DeadlineExceeded
            )
        };
        let (r, unconfirmed) = match select(Box::pin(list(true)), Box::pin(list(false))).await {
            Either::Left((Ok(r), _)) => (r, false),
            Either::Left((Err(e), own)) if fallback(&e) => (own.await?, true),
            Either::Left((Err(e), _)) => return Err(e),
            Either::Right((own, confirmed)) => match confirmed.await {
                Ok(r) => (r, false),
                Err(e) if fallback(&e) => (own?, true),
                Err(e) => return Err(e),
            },
        };
        let mut list = convert::member_list(r.header, r.members);
        list.unconfirmed = unconfirmed;
        self.learn(&list);
        Ok(list)
    }

    async fn member_add(&self, peer_urls: &PeerUrls, is_learner: bool) -> Result<Added, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = pb::MemberAddRequest {
                    peer_ur_ls: peer_urls.texts(),
                    is_learner,
                };
                ClusterClient::new(ch)
                    .member_add(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        let list = convert::member_list(r.header, r.members);
        let member = r.member.map(convert::member).unwrap_or_default();
        // The add response's member lacks some fields; prefer the list's copy.
        let member = list.get(member.id).cloned().unwrap_or(member);
        Ok(Added { member, list })
    }

    async fn member_remove(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let r = self
            .call_avoiding(&[id], false, |ch| async move {
                ClusterClient::new(ch)
                    .member_remove(pb::MemberRemoveRequest { id: id.0 })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_update(
        &self,
        id: MemberId,
        peer_urls: &PeerUrls,
    ) -> Result<MemberList, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = pb::MemberUpdateRequest {
                    id: id.0,
                    peer_ur_ls: peer_urls.texts(),
                };
                ClusterClient::new(ch)
                    .member_update(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_promote(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let r = self
            .call(false, |ch| async move {
                ClusterClient::new(ch)
                    .member_promote(pb::MemberPromoteRequest { id: id.0 })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_status(&self, member: &Member) -> Result<MemberStatus, ApiError> {
        self.at_member(member, |ch| async move {
            MaintenanceClient::new(ch)
                .status(pb::StatusRequest {})
                .await
                .map(|r| r.into_inner())
        })
        .await
        .map(convert::status)
    }

    async fn move_leader(&self, leader: &Member, target: MemberId) -> Result<(), ApiError> {
        self.at_member(leader, |ch| async move {
            MaintenanceClient::new(ch)
                .move_leader(pb::MoveLeaderRequest {
                    target_id: target.0,
                })
                .await
                .map(|_| ())
        })
        .await
    }

    async fn get_config(&self) -> Result<Configuration, ApiError> {
        let r = self
            .call(true, |ch| async move {
                MembershipClient::new(ch)
                    .get_config(mpb::GetConfigRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
    }

    async fn alarms(&self) -> Result<Vec<Alarm>, ApiError> {
        let r = self
            .call(true, |ch| async move {
                MaintenanceClient::new(ch)
                    .alarm(pb::AlarmRequest {
                        action: pb::alarm_request::AlarmAction::Get as i32,
                        member_id: 0,
                        alarm: pb::AlarmType::None as i32,
                    })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::alarms(r))
    }

    async fn server_metrics(&self, member: &Member) -> Result<ServerMetrics, ApiError> {
        let text = self.http_get(member, "/metrics").await?;
        Ok(metrics::parse_metrics(&text))
    }

    fn prefetch_start_flags(&self, urls: &[String]) {
        for url in urls {
            drop(self.start_flags_of(url));
        }
    }

    async fn start_flags(&self, member: &Member) -> Result<StartFlags, ApiError> {
        let Some(url) = member.client_urls.first() else {
            return Err(super::unavailable(format!(
                "{}: its command line cannot be read: it has no client URL (not started)",
                member.label()
            )));
        };
        let read = self.start_flags_of(url).await;
        super::start_flags::judge_member(member, &read)
    }

    async fn peer_certificates(&self, url: &str) -> Result<Vec<PeerCertificate>, ApiError> {
        super::peer_tls::read_chain(url, super::peer_tls::HANDSHAKE_TIMEOUT)
            .await
            .map_err(super::unavailable)
    }

    async fn server_version(&self, member: &Member) -> Result<ServerVersion, ApiError> {
        let text = self.http_get(member, "/version").await?;
        metrics::parse_version(&text).map_err(|e| {
            ApiError::new(
                ApiErrorKind::Unavailable,
                format!("{}: {e}", member.label()),
            )
        })
    }

    async fn get_progress(&self) -> Result<ProgressReport, ApiError> {
        let r = self
            .call(true, |ch| async move {
                MembershipClient::new(ch)
                    .get_progress(mpb::GetProgressRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::progress(r))
    }

    async fn joint_enter(&self, changes: &[JointChange]) -> Result<Configuration, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = mpb::JointEnterRequest {
                    changes: changes.iter().map(convert::joint_change).collect(),
                };
                MembershipClient::new(ch)
                    .joint_enter(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
    }

    async fn joint_leave(&self, leaving: &[MemberId]) -> Result<Configuration, ApiError> {
        // The voters the leave takes out stop as they apply it and may not
        // get its answer out: another member is asked first.
        let r = self
            .call_avoiding(leaving, false, |ch| async move {
                MembershipClient::new(ch)
                    .joint_leave(mpb::JointLeaveRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
    }
}
