//! A node's identity at first start: the member and cluster IDs every initial
//! member computes alike for a new cluster, or, joining an existing one, the ID
//! the other members gave it when it was added.

use std::time::Duration;

use crate::dial::PeerTls;

use super::error::{because, StartupError};
use super::{InitialCluster, NodeOptions};
use crate::proto::memberctl_store_v1 as spb;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_client::RaftClient;
use crate::storage::Store;

/// How long a joining node keeps asking its peers for the member list.
const JOIN_WAIT: Duration = Duration::from_secs(15);

/// The first 8 bytes of the SHA-1 of `bytes`, big-endian: how etcd makes its
/// member and cluster IDs (never 0, which raft cannot take).
fn sha1_id(bytes: &[u8]) -> u64 {
    let d = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&d.as_ref()[..8]);
    u64::from_be_bytes(first).max(1)
}

/// The ID of an initial member, as etcd derives it: the SHA-1 of its sorted
/// peer URLs joined, then the token (so the same flags give etcd's IDs).
pub fn initial_member_id(peer_urls: &[String], token: &str) -> u64 {
    let mut urls: Vec<&str> = peer_urls.iter().map(String::as_str).collect();
    urls.sort_unstable();
    let mut bytes = urls.concat().into_bytes();
    bytes.extend_from_slice(token.as_bytes());
    sha1_id(&bytes)
}

/// The cluster ID, as etcd derives it: the SHA-1 of the sorted member IDs,
/// each 8 bytes big-endian.
fn cluster_id(mut ids: Vec<u64>) -> u64 {
    ids.sort_unstable();
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_be_bytes()).collect();
    sha1_id(&bytes)
}

/// The IDs of a new cluster every initial member computes alike: (cluster
/// ID, this member's ID, every member's metadata sorted by ID), from etcd's
/// --name, --initial-cluster, --initial-advertise-peer-urls and token.
pub fn new_cluster(
    name: &str,
    initial_cluster: &InitialCluster,
    own_urls: &[String],
    token: &str,
) -> Result<(u64, u64, Vec<spb::MemberMeta>), StartupError> {
    let members = initial_cluster.members();
    let mut own_sorted = own_urls.to_vec();
    own_sorted.sort();
    let mut metas: Vec<spb::MemberMeta> = members
        .iter()
        .map(|(_, urls)| spb::MemberMeta {
            id: initial_member_id(urls, token),
            peer_urls: urls.clone(),
            ..Default::default()
        })
        .collect();
    metas.sort_by_key(|m| m.id);
    let mine = initial_cluster.urls_of(name).ok_or_else(|| {
        StartupError::Flags(format!(
            "--initial-cluster has no member named {name:?}; add {name}=<peer url>"
        ))
    })?;
    let mut mine_sorted = mine.to_vec();
    mine_sorted.sort();
    if mine_sorted != own_sorted {
        return Err(StartupError::Flags(format!(
            "--initial-cluster gives {name} the peer URLs {mine:?} but \
             --initial-advertise-peer-urls is {own_urls:?}; they must match"
        )));
    }
    let id = initial_member_id(mine, token);
    let cluster = cluster_id(metas.iter().map(|m| m.id).collect());
    Ok((cluster, id, metas))
}

/// Prepares the store: (cluster ID, member ID, fresh rank for the first election).
pub(super) async fn prepare(
    opts: &NodeOptions,
    store: &Store,
    peer_tls: Option<&PeerTls>,
) -> Result<(u64, u64, Option<usize>), StartupError> {
    if let Some(id) = store.member_id() {
        return Ok((store.cluster_id(), id, None));
    }
    let members = opts.initial_cluster.members();
    let mut own_urls = opts.initial_advertise_peer_urls.clone();
    own_urls.sort();
    if !opts.join_existing {
        let (cluster_id, id, metas) = new_cluster(
            &opts.name,
            &opts.initial_cluster,
            &opts.initial_advertise_peer_urls,
            &opts.token,
        )?;
        store
            .bootstrap(cluster_id, id, &metas)
            .map_err(|e| StartupError::Store(because("cannot bootstrap the store", e)))?;
        let rank = metas.iter().position(|m| m.id == id);
        return Ok((cluster_id, id, rank));
    }
    // Joining: ask the other members who we are.
    let others: Vec<String> = members
        .iter()
        .filter(|(n, _)| *n != opts.name)
        .flat_map(|(_, urls)| urls.clone())
        .collect();
    if others.is_empty() {
        return Err(StartupError::Flags(
            "--initial-cluster-state existing needs the other members in --initial-cluster".into(),
        ));
    }
    let deadline = tokio::time::Instant::now() + JOIN_WAIT;
    let mut last_err = String::new();
    while tokio::time::Instant::now() < deadline {
        for url in &others {
            match ask_members(url, peer_tls).await {
                Ok(resp) => {
                    let me = resp.members.iter().find(|m| {
                        let mut u = m.peer_urls.clone();
                        u.sort();
                        u == own_urls
                    });
                    let Some(me) = me else {
                        return Err(StartupError::Join(format!(
                            "the cluster has no member with peer URLs {:?}: add it first with \
                             `memberctl member add {} --learner --peer-urls {}`",
                            opts.initial_advertise_peer_urls,
                            opts.name,
                            opts.initial_advertise_peer_urls.join(",")
                        )));
                    };
                    store
                        .join(resp.cluster_id, me.id, &resp.members)
                        .map_err(|e| StartupError::Store(because("cannot join the store", e)))?;
                    return Ok((resp.cluster_id, me.id, None));
                }
                Err(e) => last_err = format!("{url}: {e}"),
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(StartupError::Join(format!(
        "cannot reach any member of the existing cluster to join it ({last_err})"
    )))
}

/// Asks the member at peer `url` for the membership; why not, in words.
async fn ask_members(url: &str, tls: Option<&PeerTls>) -> Result<pb::MembersResponse, String> {
    const WAIT: Duration = Duration::from_secs(2);
    let mut ep = tonic::transport::Endpoint::from_shared(url.to_string())
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_secs(1));
    if let Some(tls) = tls.filter(|_| url.starts_with("https://")) {
        ep = tls.endpoint(ep).map_err(|e| e.to_string())?;
    }
    let ch = tokio::time::timeout(WAIT, ep.connect())
        .await
        .map_err(|_| "no connection within 2 s".to_string())?
        .map_err(|e| e.to_string())?;
    let resp = tokio::time::timeout(WAIT, RaftClient::new(ch).members(pb::MembersRequest {}))
        .await
        .map_err(|_| "no answer within 2 s".to_string())?
        .map_err(|s| s.message().to_string())?;
    Ok(resp.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_ids_are_stable_and_order_free() {
        let a = initial_member_id(&["http://a:1".into(), "http://b:2".into()], "t");
        let b = initial_member_id(&["http://b:2".into(), "http://a:1".into()], "t");
        assert_eq!(a, b);
        assert_ne!(a, initial_member_id(&["http://a:1".into()], "t"));
        assert_ne!(
            a,
            initial_member_id(&["http://a:1".into(), "http://b:2".into()], "u")
        );
    }

    #[test]
    fn ids_are_etcds_for_the_same_flags() {
        // etcd 3.4.23's IDs for --initial-cluster
        // a=http://127.0.0.1:24001,b=…:24002,c=…:24003 and its default token.
        let cluster = InitialCluster::parse(&[
            "a=http://127.0.0.1:24001".into(),
            "b=http://127.0.0.1:24002".into(),
            "c=http://127.0.0.1:24003".into(),
        ])
        .unwrap();
        let (cid, id, metas) = new_cluster(
            "c",
            &cluster,
            &["http://127.0.0.1:24003".into()],
            "etcd-cluster",
        )
        .unwrap();
        assert_eq!(format!("{cid:x}"), "1ca569cadbd48b4");
        assert_eq!(format!("{id:x}"), "87d0a3f8befc46a9");
        let ids: Vec<String> = metas.iter().map(|m| format!("{:x}", m.id)).collect();
        assert_eq!(
            ids,
            ["64674cd17a494f9e", "87d0a3f8befc46a9", "f2d07606010358ee"]
        );
    }
}
