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

/// Asks the server behind `channel` who it is, within `within`. None when it
/// does not say in time (a learner catching up may hold its answer): the
/// connection is then used unverified, as etcdctl uses every connection.
pub(super) async fn identify(channel: AuthChannel, within: Duration) -> Option<Identity> {
    let mut client = MaintenanceClient::new(channel);
    let header = tokio::time::timeout(within, client.status(pb::StatusRequest {}))
        .await
        .ok()?
        .ok()?
        .into_inner()
        .header?;
    Some(Identity {
        cluster: header.cluster_id,
        member: header.member_id,
    })
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
