//! etcd's periodic corruption check (`--corrupt-check-time`, etcd 3.4's `--experimental-corrupt-check-time`): every period the leader compares its hash of the key history with each peer's at its revision, and raises the cluster's CORRUPT alarm when a follower's differs at the same compaction (or is ahead of the leader's), as etcd 3.4's leader does.

use std::sync::Arc;
use std::time::Duration;

use super::Shared;
use crate::log;
use crate::proto::etcdserverpb as epb;
use crate::proto::memberctl_store_v1 as spb;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_client::RaftClient;

/// How long one peer may take to answer (a peer that does not is skipped).
const ASK: Duration = Duration::from_secs(2);

/// A member's key-value hash: the hash at a revision, its current revision
/// and its compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hashed {
    /// The hash.
    pub hash: u32,
    /// The member's current revision.
    pub revision: i64,
    /// The revision it compacted at.
    pub compact_revision: i64,
}

/// etcd 3.4's rules for a follower's hash against the leader's (pure):
/// `leader`'s hash at the revision asked and its compaction then,
/// `leader_now` its revision and compaction after a linearizable read that
/// followed the follower's answer; why the cluster is corrupt, if it is.
pub fn judge(leader: Hashed, leader_now: (i64, i64), follower: Hashed) -> Option<&'static str> {
    let (revision_now, compacted_now) = leader_now;
    if follower.revision > revision_now {
        return Some("revision from follower must be less than or equal to leader's");
    }
    if follower.compact_revision > compacted_now {
        return Some("compact revision from follower must be less than or equal to leader's");
    }
    if follower.compact_revision == leader.compact_revision && follower.hash != leader.hash {
        return Some("same compact revision then hashes must match");
    }
    None
}

/// Runs until the node stops: every `every` (0: never), the leader checks.
pub async fn run(shared: Arc<Shared>, every: Duration) {
    if every.is_zero() {
        return;
    }
    loop {
        tokio::time::sleep(every).await;
        if shared.node.view().is_leader() {
            check(&shared).await;
        }
    }
}

/// One check: each voter asked for its hash at the leader's revision.
async fn check(s: &Arc<Shared>) {
    let store = s.node.store().clone();
    let own = match tokio::task::spawn_blocking(move || store.state().hash_kv(0)).await {
        Ok(Ok(h)) => h,
        _ => return,
    };
    let me = s.node.view().id;
    let peers: Vec<_> = s
        .node
        .store()
        .members()
        .into_iter()
        .filter(|m| m.id != me)
        .collect();
    let mut answers = Vec::new();
    for m in peers {
        let Ok(channel) = s.channel_to(m.id) else {
            continue;
        };
        let request = pb::PeerHashKvRequest {
            revision: own.revision,
        };
        match tokio::time::timeout(ASK, RaftClient::new(channel).hash_kv(request)).await {
            Ok(Ok(r)) => answers.push((m.id, r.into_inner())),
            Ok(Err(status)) => {
                slog::warn!(log::logger(), "cannot fetch hash from remote peer";
                    "remote-peer-id" => format!("{:x}", m.id), "error" => status.message());
            }
            Err(_) => {}
        }
    }
    // As etcd: the followers' revisions are judged against the leader's
    // after a linearizable read (it has applied what they could have).
    if !matches!(
        tokio::time::timeout(ASK, s.node.read_index()).await,
        Ok(Ok(()))
    ) {
        return;
    }
    let state = s.node.store().state();
    let now = (state.revision(), state.compacted());
    let leader = Hashed {
        hash: own.hash,
        revision: own.revision,
        compact_revision: own.compact_revision,
    };
    for (id, r) in answers {
        let follower = Hashed {
            hash: r.hash,
            revision: r.revision,
            compact_revision: r.compact_revision,
        };
        if let Some(why) = judge(leader, now, follower) {
            slog::warn!(log::logger(), "{why}";
                "leader-revision" => now.0, "leader-hash" => own.hash,
                "follower-peer-id" => format!("{id:x}"), "follower-hash" => r.hash,
                "follower-revision" => r.revision);
            // As etcd (3.4.22 on): which member is corrupt is not clear, so
            // the alarm is the cluster's (member 0), raised once per check.
            let op = spb::command::Op::Alarm(spb::Alarm {
                activate: true,
                member_id: 0,
                alarm: epb::AlarmType::Corrupt as i32,
            });
            if let Err(e) = s.propose(op).await {
                slog::warn!(log::logger(), "cannot raise the CORRUPT alarm";
                    "error" => e.message());
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(hash: u32, revision: i64, compact_revision: i64) -> Hashed {
        Hashed {
            hash,
            revision,
            compact_revision,
        }
    }

    #[test]
    fn etcds_rules_for_a_followers_hash() {
        let leader = h(7, 20, 10);
        let now = (22, 10);
        assert_eq!(judge(leader, now, h(7, 20, 10)), None);
        // Behind, or compacted earlier: not comparable, not corrupt; ahead of
        // the hashed revision but not of the leader now: fine.
        assert_eq!(judge(leader, now, h(9, 18, 8)), None);
        assert_eq!(judge(leader, now, h(7, 22, 10)), None);
        assert!(judge(leader, now, h(8, 20, 10))
            .unwrap()
            .contains("hashes must match"));
        assert!(judge(leader, now, h(7, 23, 10))
            .unwrap()
            .contains("revision from follower"));
        assert!(judge(leader, now, h(7, 20, 12))
            .unwrap()
            .contains("compact revision"));
    }
}
