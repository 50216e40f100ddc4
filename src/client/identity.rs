//! Whose server answers at a URL: each connection reads, as it opens, the
//! cluster and member it reaches (Maintenance.Status's header), so that
//! nothing is asked of or sent to another cluster's server that holds a dead
//! member's address, and a member's status is never another's.

use std::time::Duration;

use super::auth::AuthChannel;
use super::unavailable;
use crate::model::{Member, MemberId};
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use crate::workflow::ApiError;

/// The cluster and member a connection reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Identity {
    /// The cluster's ID (0: the server did not say).
    pub cluster: u64,
    /// The answering member's ID (0: the server did not say).
    pub member: u64,
}

/// Asks the server behind `channel` who it is, within `within`, and keeps
/// the whole answer (the member's status as the connection opened). Ok(None)
/// when it does not say in time (a learner catching up may hold its
/// answer) or answers with an error of its own: the connection is then used
/// unverified, as etcdctl uses every connection. Err when the connection
/// itself failed (a TLS server refusing the client's certificate breaks it
/// at the first request): the caller reports that as it reports a failed
/// dial.
pub(super) async fn identify(
    channel: AuthChannel,
    within: Duration,
) -> Result<Option<(Identity, pb::StatusResponse)>, tonic::Status> {
    let mut client = MaintenanceClient::new(channel);
    let answer = match tokio::time::timeout(within, client.status(pb::StatusRequest {})).await {
        Err(_) => return Ok(None),
        // The connection failed (transport errors come as these codes).
        Ok(Err(status))
            if matches!(
                status.code(),
                tonic::Code::Unavailable
                    | tonic::Code::Unknown
                    | tonic::Code::Internal
                    | tonic::Code::Cancelled
            ) =>
        {
            return Err(status)
        }
        Ok(Err(_)) => return Ok(None),
        Ok(Ok(answer)) => answer,
    };
    let answer = answer.into_inner();
    let Some(h) = answer.header.as_ref() else {
        return Ok(None);
    };
    let identity = Identity {
        cluster: h.cluster_id,
        member: h.member_id,
    };
    Ok(Some((identity, answer)))
}

/// A connection's one dial: tonic's channel would otherwise reconnect
/// underneath when the connection breaks, to whatever server holds the
/// address by then, unasked. A second dial is refused as a refused
/// connection (nothing was sent: a change may go to the next endpoint), and
/// the caller opens a new channel, which asks again who answers.
#[derive(Clone, Default)]
pub(super) struct OneDial(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl OneDial {
    /// Err for every dial after the first.
    pub(super) fn dial(&self) -> std::io::Result<()> {
        if self.0.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "connection refused: the connection broke, and memberctl opens a new one \
                 (asking who answers there) rather than reconnecting",
            ));
        }
        Ok(())
    }
}

/// Refuses a connection to `url` that reaches another cluster than
/// `pinned` (the cluster the command's first member list came from).
pub(super) fn other_cluster(
    url: &str,
    identity: Option<Identity>,
    pinned: Option<u64>,
) -> Option<ApiError> {
    let (Some(id), Some(ours)) = (identity, pinned) else {
        return None;
    };
    (id.cluster != 0 && ours != 0 && id.cluster != ours).then(|| {
        unavailable(format!(
            "{url} answers for cluster {:016x}, not for cluster {ours:016x} whose member list \
             this command works from: another cluster's server holds that address (a dead \
             member's machine or port given to another cluster?), so it is asked nothing: take it \
             out of --endpoints, and remove or replace the member whose address it was",
            id.cluster
        ))
    })
}

/// Refuses an answer at `url` given by another member than `member` (its
/// client URL held by a server that is not it): the member counts as
/// unreachable.
pub(super) fn other_member(url: &str, answered: u64, member: &Member) -> Option<ApiError> {
    (answered != 0 && member.id.0 != 0 && answered != member.id.0).then(|| {
        unavailable(format!(
            "{url} answers as member {}, not as {}: another server holds its client URL, so it \
             counts as unreachable; remove or replace it if it is gone",
            MemberId(answered),
            member.label(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(cluster: u64, member: u64) -> Option<Identity> {
        Some(Identity { cluster, member })
    }

    #[test]
    fn a_connection_dials_once() {
        let d = OneDial::default();
        assert!(d.dial().is_ok());
        let again = d.clone().dial().unwrap_err();
        assert_eq!(again.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(again.to_string().contains("connection refused"), "{again}");
    }

    #[test]
    fn another_clusters_server_is_refused_naming_both_clusters() {
        let e = other_cluster("http://h:2379", id(0xb, 7), Some(0xa)).expect("refused");
        assert!(e.message.contains("000000000000000b"), "{}", e.message);
        assert!(e.message.contains("000000000000000a"), "{}", e.message);
        assert!(e.message.contains("http://h:2379"), "{}", e.message);
    }

    #[test]
    fn the_same_cluster_or_an_unknown_identity_passes() {
        assert!(other_cluster("u", id(0xa, 7), Some(0xa)).is_none());
        assert!(other_cluster("u", None, Some(0xa)).is_none());
        assert!(other_cluster("u", id(0xb, 7), None).is_none());
        assert!(other_cluster("u", id(0, 7), Some(0xa)).is_none());
    }

    #[test]
    fn another_member_at_a_members_url_makes_it_unreachable() {
        let m = Member {
            id: MemberId(5),
            name: "m5".into(),
            ..Member::default()
        };
        let e = other_member("http://h:2379", 9, &m).expect("refused");
        assert!(e.message.contains("not as m5"), "{}", e.message);
        assert!(other_member("u", 5, &m).is_none());
        assert!(other_member("u", 0, &m).is_none());
    }
}
