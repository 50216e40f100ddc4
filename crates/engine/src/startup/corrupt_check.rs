//! etcd's initial corruption check (`--initial-corrupt-check`, etcd's `--experimental-initial-corrupt-check`): before a member that has data serves, its hash of the key history at its revision is compared with each peer's at that revision; a difference stops it.

use std::time::Duration;

use crate::dial::PeerTls;

use super::error::{because, StartupError};
use crate::log;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_client::RaftClient;
use crate::storage::Store;

/// How long one peer may take to answer (a peer that does not is skipped, as etcd skips it).
const ASK: Duration = Duration::from_secs(2);

/// What one peer said, against this member's own hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerHash {
    /// The same hash at the same compaction.
    Same,
    /// A different hash at the same compaction: one of the two is corrupt.
    Differs {
        /// The peer's hash.
        theirs: u32,
    },
    /// Not comparable (the peer compacted differently, is behind, or did not answer): why.
    Unchecked(String),
}

/// This member's hash and what each peer (by name) said: Ok when no peer
/// differs, else the error that stops the member.
pub fn judge(
    me: u64,
    revision: i64,
    ours: u32,
    peers: &[(String, PeerHash)],
) -> Result<(), String> {
    let differs: Vec<String> = peers
        .iter()
        .filter_map(|(name, h)| match h {
            PeerHash::Differs { theirs } => Some(format!("{name} has {theirs:08x}")),
            _ => None,
        })
        .collect();
    if differs.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{me:016x} found data inconsistency with peers: its key-value hash at revision {revision} is \
         {ours:08x}, {}; it does not serve. Restore this member from a snapshot of a healthy one, \
         or remove it and add it back empty (memberctl member replace)",
        differs.join(", ")
    ))
}

/// Compares member `me`'s `store` with every peer (at once, each within
/// [`ASK`]) before it serves; logs the peers it could not check; an error
/// when one differs.
pub async fn check(store: &Store, me: u64, tls: Option<&PeerTls>) -> Result<(), StartupError> {
    let hashed = store.clone();
    let own = tokio::task::spawn_blocking(move || hashed.state().hash_kv(0))
        .await
        .map_err(|e| StartupError::Store(because("the corruption check failed", e)))?
        .map_err(|r| {
            StartupError::Store(because("the corruption check failed", format!("{r:?}")))
        })?;
    let peers: Vec<_> = store
        .members()
        .into_iter()
        .filter(|m| m.id != me && !m.peer_urls.is_empty())
        .collect();
    let asks = peers.iter().map(|m| async {
        let mut last = String::from("no peer URL");
        for url in &m.peer_urls {
            match ask(url, tls, own.revision).await {
                Ok(r) if r.compact_revision != own.compact_revision => {
                    return PeerHash::Unchecked(format!(
                        "compacted at {} where this member is at {}",
                        r.compact_revision, own.compact_revision
                    ))
                }
                Ok(r) if r.hash == own.hash => return PeerHash::Same,
                Ok(r) => return PeerHash::Differs { theirs: r.hash },
                Err(why) => last = format!("{url}: {why}"),
            }
        }
        PeerHash::Unchecked(last)
    });
    let said: Vec<(String, PeerHash)> = peers
        .iter()
        .map(|m| m.name.clone())
        .zip(futures_util::future::join_all(asks).await)
        .collect();
    for (name, h) in &said {
        if let PeerHash::Unchecked(why) = h {
            slog::warn!(
                log::logger(),
                "initial corruption check: cannot check against {name}: {why}"
            );
        }
    }
    judge(me, own.revision, own.hash, &said).map_err(StartupError::Corrupt)?;
    let same = said.iter().filter(|(_, h)| *h == PeerHash::Same).count();
    slog::info!(
        log::logger(),
        "initial corruption checking passed; no corruption (hash {:08x} at revision {}, the same on {same} of {} peers)",
        own.hash,
        own.revision,
        said.len()
    );
    Ok(())
}

/// Asks the peer at `url` for its hash up to `revision`.
async fn ask(
    url: &str,
    tls: Option<&PeerTls>,
    revision: i64,
) -> Result<pb::PeerHashKvResponse, String> {
    let mut ep = tonic::transport::Endpoint::from_shared(url.to_string())
        .map_err(|e| e.to_string())?
        .connect_timeout(ASK);
    if let Some(tls) = tls.filter(|_| url.starts_with("https://")) {
        ep = tls.endpoint(ep).map_err(|e| e.to_string())?;
    }
    let call = async {
        let ch = ep.connect().await.map_err(|e| e.to_string())?;
        RaftClient::new(ch)
            .hash_kv(pb::PeerHashKvRequest { revision })
            .await
            .map(tonic::Response::into_inner)
            .map_err(|s| s.message().to_string())
    };
    tokio::time::timeout(ASK, call)
        .await
        .map_err(|_| format!("no answer within {} s", ASK.as_secs()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_that_differs_stops_the_member_and_the_rest_do_not() {
        let peers = |h: PeerHash| vec![("m2".to_string(), PeerHash::Same), ("m3".to_string(), h)];
        assert!(judge(1, 10, 0xabc, &peers(PeerHash::Same)).is_ok());
        assert!(judge(1, 10, 0xabc, &peers(PeerHash::Unchecked("down".into()))).is_ok());
        let e = judge(1, 10, 0xabc, &peers(PeerHash::Differs { theirs: 0xdef })).unwrap_err();
        assert!(
            e.starts_with("0000000000000001 found data inconsistency with peers"),
            "{e}"
        );
        assert!(
            e.contains("m3 has 00000def") && e.contains("revision 10"),
            "{e}"
        );
    }
}
