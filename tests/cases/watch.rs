//! Watches and leases on the engine through membership changes, with the
//! project's own client: no gap across a leader change and a learner's
//! join by snapshot, a watch on a removed member ends with an error, a lease
//! outlives a leader change and its keys go on every member when it expires.

use std::time::Duration;

use memberctl::proto::etcdserverpb as epb;
use memberctl::proto::etcdserverpb::kv_client::KvClient;
use memberctl::proto::etcdserverpb::lease_client::LeaseClient;
use memberctl::proto::etcdserverpb::watch_client::WatchClient;
use tokio::sync::mpsc;

use crate::util::faults::{leader_and_others, move_leader};
use crate::util::local::{channel, get_prefix, requests, runtime, watch_create, Local};
use crate::util::members::add_and_start;
use crate::util::wait_for;

/// Puts through `endpoint`; the revision of the write.
fn put_rev(endpoint: &str, key: &str, lease: i64) -> i64 {
    runtime().block_on(async {
        let mut c = KvClient::new(channel(endpoint).await.expect("connect"));
        let req = epb::PutRequest {
            key: key.into(),
            value: b"v".to_vec(),
            lease,
            ..Default::default()
        };
        let r = tokio::time::timeout(Duration::from_secs(10), c.put(req))
            .await
            .expect("put in time")
            .expect("put acknowledged");
        r.into_inner().header.expect("header").revision
    })
}

/// What a watch stream delivered: each event's revision, or how it ended.
enum Seen {
    Event(i64),
    Ended(Result<(), tonic::Status>),
}

/// Opens a watch of `prefix` at `endpoint` from `start` (0: from now) and
/// forwards what it sees; returns once the watch is created.
fn watch(endpoint: &str, prefix: &str, start: i64) -> mpsc::UnboundedReceiver<Seen> {
    let (tx, rx) = mpsc::unbounded_channel();
    let (created_tx, created_rx) = std::sync::mpsc::channel();
    let endpoint = endpoint.to_string();
    let mut end = prefix.as_bytes().to_vec();
    *end.last_mut().expect("a prefix") += 1;
    let create = epb::WatchRequest {
        request_union: Some(epb::watch_request::RequestUnion::CreateRequest(
            epb::WatchCreateRequest {
                key: prefix.into(),
                range_end: end,
                start_revision: start,
                ..Default::default()
            },
        )),
    };
    runtime().spawn(async move {
        let mut c = WatchClient::new(channel(&endpoint).await.expect("connect"));
        let (req_tx, req_rx) = mpsc::unbounded_channel();
        req_tx.send(create).expect("queue the create request");
        let reqs = requests(req_rx);
        let mut stream = c.watch(reqs).await.expect("watch stream").into_inner();
        loop {
            match stream.message().await {
                Ok(Some(r)) if r.created => {
                    let _ = created_tx.send(());
                }
                Ok(Some(r)) => {
                    for e in r.events {
                        let _ = tx.send(Seen::Event(e.kv.map_or(0, |kv| kv.mod_revision)));
                    }
                }
                Ok(None) => {
                    let _ = tx.send(Seen::Ended(Ok(())));
                    break;
                }
                Err(s) => {
                    let _ = tx.send(Seen::Ended(Err(s)));
                    break;
                }
            }
        }
        drop(req_tx);
    });
    created_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the watch is created");
    rx
}

/// The revisions seen until `want` of them came (at most `limit`).
fn events(rx: &mut mpsc::UnboundedReceiver<Seen>, want: usize, limit: Duration) -> Vec<i64> {
    let deadline = std::time::Instant::now() + limit;
    let mut got = Vec::new();
    while got.len() < want && std::time::Instant::now() < deadline {
        match rx.try_recv() {
            Ok(Seen::Event(rev)) => got.push(rev),
            Ok(Seen::Ended(r)) => panic!("the watch ended after {} events: {r:?}", got.len()),
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    got
}

/// A watch on a follower sees every write, once and in order, while the
/// leader moves and a learner joins by snapshot; a watch opened on that new
/// member from revision 1 replays the same history (the snapshot carried it).
fn watch_sees_every_revision_across_leader_change_and_snapshot_join() {
    let local = Local::up(&["--snapshot-count", "20"]);
    let (leader, others) = leader_and_others(&local);
    let mut on_follower = watch(&others[0].client_url, "w", 0);
    let mut written = Vec::new();
    for i in 0..240 {
        let ep = &local.endpoints()[i % 3];
        written.push(put_rev(ep, &format!("w{i:03}"), 0));
        if i == 80 {
            move_leader(&leader.client_url, others[1].id).expect("move the leader");
        }
        if i == 120 {
            add_and_start(&local, "late");
        }
    }
    let seen = events(&mut on_follower, written.len(), Duration::from_secs(20));
    assert_eq!(
        seen, written,
        "the follower's watch missed, repeated or reordered events"
    );

    let p = local.ctl(&["member", "promote", "late", "--timeout", "30s"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    let late = local.client_url("late");
    let mut replay = watch(&late, "w", 1);
    let replayed = events(&mut replay, written.len(), Duration::from_secs(20));
    assert_eq!(replayed, written, "the new member's history differs");
}

/// A watch on a member that is then removed ends with an error.
fn watch_on_a_removed_member_ends_with_an_error() {
    let local = Local::up(&[]);
    let (leader, others) = leader_and_others(&local);
    let mut w = watch(&others[0].client_url, "r", 0);
    put_rev(&leader.client_url, "r1", 0);
    assert_eq!(events(&mut w, 1, Duration::from_secs(10)).len(), 1);
    local.ctl(&["member", "remove", &others[0].name]).expect(0);
    let ended = wait_for("the watch to end", Duration::from_secs(20), || {
        match w.try_recv() {
            Ok(Seen::Ended(r)) => Some(r),
            _ => {
                std::thread::sleep(Duration::from_millis(20));
                None
            }
        }
    });
    let status = ended.expect_err("the stream ends with an error status");
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
}

fn lease_client(endpoint: &str) -> LeaseClient<tonic::transport::Channel> {
    runtime().block_on(async { LeaseClient::new(channel(endpoint).await.expect("connect")) })
}

/// A lease granted through a follower outlives a leader change (its TTL is
/// renewed, not shortened), is kept alive through a follower, and when it
/// expires its keys are gone on every member.
fn lease_survives_leader_change_and_expiry_deletes_keys_everywhere() {
    let local = Local::up(&[]);
    let (leader, others) = leader_and_others(&local);
    let mut c = lease_client(&others[0].client_url);
    let granted = runtime()
        .block_on(c.lease_grant(epb::LeaseGrantRequest { ttl: 4, id: 0 }))
        .expect("grant")
        .into_inner();
    assert_eq!(granted.ttl, 4);
    put_rev(&leader.client_url, "lk1", granted.id);
    put_rev(&others[1].client_url, "lk2", granted.id);
    move_leader(&leader.client_url, others[1].id).expect("move the leader");
    let ttl = runtime()
        .block_on(c.lease_time_to_live(epb::LeaseTimeToLiveRequest {
            id: granted.id,
            keys: true,
        }))
        .expect("time to live")
        .into_inner();
    assert!(ttl.ttl >= 3, "a leader change shortened the lease: {ttl:?}");
    assert_eq!(ttl.keys.len(), 2);
    // Kept alive through a follower (the old leader), as a client would.
    let mut k = lease_client(&leader.client_url);
    let answer = runtime().block_on(async {
        let (tx, rx) = mpsc::unbounded_channel();
        tx.send(epb::LeaseKeepAliveRequest { id: granted.id })
            .unwrap();
        let reqs = requests(rx);
        let mut s = k
            .lease_keep_alive(reqs)
            .await
            .expect("keep-alive")
            .into_inner();
        let r = s.message().await;
        drop(tx);
        r
    });
    assert_eq!(answer.expect("answer").expect("one").ttl, 4);
    for ep in local.endpoints() {
        assert_eq!(get_prefix(&ep, "lk").unwrap().len(), 2, "{ep}");
    }
    wait_for(
        "the lease's keys to go on every member",
        Duration::from_secs(20),
        || {
            local
                .endpoints()
                .iter()
                .all(|ep| get_prefix(ep, "lk").is_ok_and(|k| k.is_empty()))
                .then_some(())
        },
    );
    let left = runtime()
        .block_on(c.lease_leases(epb::LeaseLeasesRequest {}))
        .expect("leases")
        .into_inner();
    assert!(left.leases.is_empty(), "{left:?}");
}

/// The next response of a watch stream (at most 10 s away).
async fn next(s: &mut tonic::Streaming<epb::WatchResponse>) -> epb::WatchResponse {
    tokio::time::timeout(Duration::from_secs(10), s.message())
        .await
        .expect("a response in time")
        .expect("no error")
        .expect("the stream goes on")
}

/// One stream, several watches: IDs (automatic and the client's, a
/// duplicate refused as etcd refuses it), a NODELETE/NOPUT filter with
/// previous values, a progress request, idle progress notifications, cancel.
fn watch_ids_filters_progress_and_cancel_on_one_stream() {
    use epb::watch_create_request::FilterType;
    use epb::watch_request::RequestUnion;
    let local = Local::up_with_env(
        &[],
        &[("MEMBERCTL_WATCH_PROGRESS_NOTIFY_INTERVAL", "300ms")],
    );
    let ep = local.endpoints()[0].clone();
    let create = |key: &str, id: i64, filters: Vec<i32>, progress: bool| epb::WatchRequest {
        request_union: Some(RequestUnion::CreateRequest(epb::WatchCreateRequest {
            key: key.into(),
            range_end: if key == "p" { b"q".to_vec() } else { vec![] },
            watch_id: id,
            filters,
            prev_kv: true,
            progress_notify: progress,
            ..Default::default()
        })),
    };
    runtime().block_on(async {
        let mut c = WatchClient::new(channel(&ep).await.expect("connect"));
        let (tx, rx) = mpsc::unbounded_channel();
        let reqs = requests(rx);
        let mut s = c.watch(reqs).await.expect("watch").into_inner();
        tx.send(create("p", 0, vec![FilterType::Noput as i32], false))
            .unwrap();
        let a = next(&mut s).await;
        assert!(a.created && a.watch_id == 0, "{a:?}");
        tx.send(create("p1", 7, vec![], true)).unwrap();
        let b = next(&mut s).await;
        assert!(b.created && b.watch_id == 7, "{b:?}");
        tx.send(create("p2", 7, vec![], false)).unwrap();
        let dup = next(&mut s).await;
        assert!(dup.created && dup.canceled && dup.watch_id == -1, "{dup:?}");
        assert_eq!(
            dup.cancel_reason,
            "mvcc: duplicate watch ID provided on the WatchStream"
        );
        let mut kv = KvClient::new(channel(&ep).await.expect("connect"));
        let put = epb::PutRequest {
            key: b"p1".to_vec(),
            value: b"v".to_vec(),
            ..Default::default()
        };
        let put_at = kv
            .put(put)
            .await
            .expect("put")
            .into_inner()
            .header
            .unwrap()
            .revision;
        let del = epb::DeleteRangeRequest {
            key: b"p1".to_vec(),
            ..Default::default()
        };
        kv.delete_range(del).await.expect("delete");
        let mut kinds: Vec<(i64, i32, Option<Vec<u8>>)> = Vec::new();
        while kinds.len() < 3 {
            let r = next(&mut s).await;
            for e in r.events {
                kinds.push((r.watch_id, e.r#type, e.prev_kv.map(|p| p.value)));
            }
        }
        kinds.sort();
        assert_eq!(
            kinds,
            vec![
                (0, 1, Some(b"v".to_vec())),
                (7, 0, None),
                (7, 1, Some(b"v".to_vec()))
            ],
        );
        tx.send(epb::WatchRequest {
            request_union: Some(RequestUnion::ProgressRequest(epb::WatchProgressRequest {})),
        })
        .unwrap();
        let mut saw_progress = false;
        let mut saw_notify = false;
        while !(saw_progress && saw_notify) {
            let r = next(&mut s).await;
            assert!(r.events.is_empty(), "{r:?}");
            let rev = r.header.map_or(0, |h| h.revision);
            assert_eq!(rev, put_at + 1, "{r:?}");
            saw_progress |= r.watch_id == -1;
            saw_notify |= r.watch_id == 7;
        }
        tx.send(epb::WatchRequest {
            request_union: Some(RequestUnion::CancelRequest(epb::WatchCancelRequest {
                watch_id: 7,
            })),
        })
        .unwrap();
        loop {
            let r = next(&mut s).await;
            if r.canceled {
                assert_eq!(r.watch_id, 7);
                break;
            }
        }
    });
}

/// A watcher that does not read while 4000 writes of 2 KiB go on falls
/// behind the applied changes (its stream's buffers fill, then the node's
/// buffer of applied batches passes it: checked once by hand to happen),
/// and then reads what it missed from the history: every event arrives,
/// once and in order.
fn a_stalled_watcher_catches_up_from_history() {
    const PUTS: usize = 4000;
    const WRITERS: usize = 16;
    let local = Local::up(&[]);
    let (leader, _) = leader_and_others(&local);
    runtime().block_on(async {
        let mut c = WatchClient::new(channel(&leader.client_url).await.expect("connect"));
        let (tx, rx) = mpsc::unbounded_channel();
        tx.send(watch_create(b"s/", b"s0")).unwrap();
        let reqs = requests(rx);
        let mut s = c.watch(reqs).await.expect("watch").into_inner();
        assert!(next(&mut s).await.created);
        // Written by 16 writers while nobody reads the stream.
        let mut writers = Vec::new();
        for w in 0..WRITERS {
            let ch = channel(&leader.client_url).await.expect("connect");
            writers.push(tokio::spawn(async move {
                let mut kv = KvClient::new(ch);
                let mut revs = Vec::new();
                for i in (w..PUTS).step_by(WRITERS) {
                    let req = epb::PutRequest {
                        key: format!("s/{i:05}").into_bytes(),
                        value: vec![7; 2048],
                        ..Default::default()
                    };
                    let r = kv.put(req).await.expect("put").into_inner();
                    revs.push(r.header.expect("header").revision);
                }
                revs
            }));
        }
        let mut written = Vec::with_capacity(PUTS);
        for w in writers {
            written.extend(w.await.expect("writer"));
        }
        written.sort();
        let mut seen = Vec::with_capacity(PUTS);
        while seen.len() < PUTS {
            let r = next(&mut s).await;
            seen.extend(
                r.events
                    .iter()
                    .map(|e| e.kv.as_ref().map_or(0, |kv| kv.mod_revision)),
            );
        }
        assert_eq!(seen, written);
        drop(tx);
    });
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        watch_sees_every_revision_across_leader_change_and_snapshot_join,
        watch_on_a_removed_member_ends_with_an_error,
        lease_survives_leader_change_and_expiry_deletes_keys_everywhere,
        watch_ids_filters_progress_and_cancel_on_one_stream,
        a_stalled_watcher_catches_up_from_history,
    ]
}
