//! etcd's Lock and Election services on the engine, interleaved with
//! `etcdctl lock` and `etcdctl elect` (etcd's client-side recipes on the
//! same keys): a lock held through the service keeps etcdctl waiting until
//! it is unlocked, and the other way round; a leader elected through the
//! service is the one `etcdctl elect -l` observes, proclaims reach it, and
//! etcdctl's candidate leads once the service's leader resigns.

use std::time::Duration;

use memberctl::proto::etcdserverpb::lease_client::LeaseClient;
use memberctl::proto::etcdserverpb::LeaseGrantRequest;
use memberctl::proto::v3electionpb::election_client::ElectionClient;
use memberctl::proto::v3electionpb::{
    CampaignRequest, LeaderKey, LeaderRequest, ProclaimRequest, ResignRequest,
};
use memberctl::proto::v3lockpb::lock_client::LockClient;
use memberctl::proto::v3lockpb::{LockRequest, UnlockRequest};
use tonic::transport::Channel;

use crate::util::local::{self, channel, runtime, Local};
use crate::util::streamed::Streamed;
use crate::util::{self, wait_for};

const LIMIT: Duration = Duration::from_secs(15);

fn connect(endpoint: &str) -> Channel {
    runtime().block_on(channel(endpoint)).expect("connect")
}

/// A lease of `ttl` seconds.
fn lease(ch: &Channel, ttl: i64) -> i64 {
    runtime()
        .block_on(LeaseClient::new(ch.clone()).lease_grant(LeaseGrantRequest { ttl, id: 0 }))
        .expect("lease grant")
        .into_inner()
        .id
}

/// How many keys are under `prefix` (the lock's holder and waiters).
fn keys_under(endpoint: &str, prefix: &str) -> usize {
    local::get_prefix_linearizable(endpoint, prefix)
        .expect("range")
        .len()
}

fn the_lock_service_and_etcdctl_lock_exclude_each_other() {
    let etcdctl = util::require_etcdctl();
    let local = Local::up(&[]);
    let eps = local.endpoints();
    let ch = connect(&eps[0]);
    let mut locks = LockClient::new(ch.clone());

    // Held through the service: etcdctl waits (its key queued behind ours).
    let held = runtime()
        .block_on(locks.lock(LockRequest {
            name: b"L".to_vec(),
            lease: lease(&ch, 30),
        }))
        .expect("lock")
        .into_inner();
    assert!(held.key.starts_with(b"L/"), "{:?}", held.key);
    let waiter = Streamed::start(&etcdctl, &eps[1], &["lock", "L"]);
    wait_for(
        "etcdctl to queue behind the service's holder",
        LIMIT,
        || (keys_under(&eps[0], "L/") == 2).then_some(()),
    );
    assert!(
        waiter.take(1, Duration::from_millis(500)).is_empty(),
        "etcdctl got the lock the service holds"
    );
    runtime()
        .block_on(locks.unlock(UnlockRequest { key: held.key }))
        .expect("unlock");
    let got = waiter.take(1, LIMIT);
    assert_eq!(got.len(), 1, "etcdctl did not get the lock after Unlock");
    assert!(got[0].starts_with("L/"), "{got:?}");

    // Held by etcdctl: the service's Lock waits until etcdctl lets go.
    let mut second = LockClient::new(connect(&eps[2]));
    let lease2 = lease(&ch, 30);
    let pending = runtime().spawn(async move {
        second
            .lock(LockRequest {
                name: b"L".to_vec(),
                lease: lease2,
            })
            .await
    });
    wait_for("the service's Lock to queue", LIMIT, || {
        (keys_under(&eps[0], "L/") == 2).then_some(())
    });
    assert!(
        !pending.is_finished(),
        "Lock returned while etcdctl holds it"
    );
    // SIGTERM: etcdctl unlocks (revokes its session) and exits.
    // SAFETY: a signal to the etcdctl this test started.
    unsafe { libc::kill(waiter.pid() as i32, libc::SIGTERM) };
    let got = runtime()
        .block_on(async { tokio::time::timeout(LIMIT, pending).await })
        .expect("Lock returned within the limit")
        .expect("task")
        .expect("lock");
    assert!(got.into_inner().key.starts_with(b"L/"));
}

fn the_election_service_and_etcdctl_elect_see_the_same_leader() {
    let etcdctl = util::require_etcdctl();
    let local = Local::up(&[]);
    let eps = local.endpoints();
    let ch = connect(&eps[0]);
    let mut election = ElectionClient::new(ch.clone());
    let id = lease(&ch, 30);
    let won = runtime()
        .block_on(election.campaign(CampaignRequest {
            name: b"E".to_vec(),
            lease: id,
            value: b"rust".to_vec(),
        }))
        .expect("campaign")
        .into_inner()
        .leader
        .expect("a leader key");
    assert_eq!(won.lease, id);

    // etcdctl observes the service's leader and its proclamation.
    let observer = Streamed::start(&etcdctl, &eps[1], &["elect", "-l", "E"]);
    assert_eq!(
        observer.take(2, LIMIT),
        vec!["E/".to_string() + &format!("{id:x}"), "rust".into()]
    );
    runtime()
        .block_on(election.proclaim(ProclaimRequest {
            leader: Some(won.clone()),
            value: b"rust2".to_vec(),
        }))
        .expect("proclaim");
    assert_eq!(observer.take(2, LIMIT)[1], "rust2");

    // etcdctl's candidate waits behind the service's leader, then leads.
    let candidate = Streamed::start(&etcdctl, &eps[2], &["elect", "E", "other"]);
    wait_for("etcdctl's candidate to queue", LIMIT, || {
        (keys_under(&eps[0], "E/") == 2).then_some(())
    });
    assert!(candidate.take(1, Duration::from_millis(500)).is_empty());
    let leader = |e: &mut ElectionClient<Channel>| {
        let kv = runtime()
            .block_on(e.leader(LeaderRequest {
                name: b"E".to_vec(),
            }))
            .expect("leader")
            .into_inner()
            .kv
            .expect("kv");
        String::from_utf8(kv.value).unwrap()
    };
    assert_eq!(leader(&mut election), "rust2");
    // A stale leader key cannot proclaim.
    let stale = LeaderKey {
        rev: won.rev - 1,
        ..won.clone()
    };
    let refused = runtime()
        .block_on(election.proclaim(ProclaimRequest {
            leader: Some(stale),
            value: b"x".to_vec(),
        }))
        .expect_err("a stale leader proclaimed");
    assert_eq!(refused.message(), "etcdserver: election: not leader");
    runtime()
        .block_on(election.resign(ResignRequest { leader: Some(won) }))
        .expect("resign");
    let got = candidate.take(1, LIMIT);
    assert_eq!(got.len(), 1, "etcdctl's candidate did not lead");
    assert_eq!(observer.take(2, LIMIT)[1], "other");
    assert_eq!(leader(&mut election), "other");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        the_lock_service_and_etcdctl_lock_exclude_each_other: [Etcdctl],
        the_election_service_and_etcdctl_elect_see_the_same_leader: [Etcdctl],
    ]
}
