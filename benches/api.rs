//! Txn and Watch latency through a 3-member cluster, the bundled engine vs
//! etcd 3.4 with the same Rust client in the same run: a compare-and-swap
//! Txn at the leader (p50, p99), and watch delivery (a put at the leader →
//! its event at a watcher on another member; p50, p99). Markdown to stdout
//! and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::time::{Duration, Instant};

use common::{client, cluster_up, leader_and_follower, memberctl, runtime};
use memberctl::proto::etcdserverpb as epb;
use memberctl::proto::etcdserverpb::watch_client::WatchClient;

const ROUNDS: usize = 300;

fn p(v: &mut [f64], q: f64) -> f64 {
    util::percentile(v, q).unwrap_or(0.0)
}

/// ((txn p50, p99), (watch p50, p99)) in ms.
fn measure(rt: &tokio::runtime::Runtime, leader: &str, follower: &str) -> ((f64, f64), (f64, f64)) {
    rt.block_on(async {
        let mut c = client(leader).await;
        let put = |key: String| epb::PutRequest {
            key: key.into_bytes(),
            value: vec![1; 64],
            ..Default::default()
        };
        let first = c.put(put("cas".into())).await.expect("put").into_inner();
        let mut last = first.header.expect("header").revision;
        let mut txn = Vec::new();
        for i in 0..ROUNDS {
            let req = epb::TxnRequest {
                compare: vec![epb::Compare {
                    result: epb::compare::CompareResult::Equal as i32,
                    target: epb::compare::CompareTarget::Mod as i32,
                    key: b"cas".to_vec(),
                    target_union: Some(epb::compare::TargetUnion::ModRevision(last)),
                    range_end: vec![],
                }],
                success: vec![epb::RequestOp {
                    request: Some(epb::request_op::Request::RequestPut(put("cas".into()))),
                }],
                failure: vec![],
            };
            let s = Instant::now();
            let r = tokio::time::timeout(Duration::from_secs(10), c.txn(req))
                .await
                .expect("txn in time")
                .expect("txn")
                .into_inner();
            txn.push(s.elapsed().as_secs_f64() * 1000.0);
            assert!(r.succeeded, "compare-and-swap {i} failed");
            last = r.header.expect("header").revision;
        }

        let ch = tonic::transport::Endpoint::from_shared(follower.to_string())
            .unwrap()
            .connect()
            .await
            .expect("connect the watcher");
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(util::local::watch_create(b"wd/", b"wd0")).unwrap();
        let reqs = util::local::requests(rx);
        let mut stream = WatchClient::new(ch)
            .watch(reqs)
            .await
            .expect("watch")
            .into_inner();
        let created = stream
            .message()
            .await
            .expect("created")
            .expect("a response");
        assert!(created.created);
        let mut watch = Vec::new();
        for i in 0..ROUNDS {
            let key = format!("wd/{i}");
            let s = Instant::now();
            c.put(put(key.clone())).await.expect("put");
            loop {
                let r = tokio::time::timeout(Duration::from_secs(10), stream.message())
                    .await
                    .expect("event in time")
                    .expect("watch")
                    .expect("a response");
                if r.events
                    .iter()
                    .any(|e| e.kv.as_ref().is_some_and(|kv| kv.key == key.as_bytes()))
                {
                    break;
                }
            }
            watch.push(s.elapsed().as_secs_f64() * 1000.0);
        }
        drop(tx);
        (
            (p(&mut txn, 0.5), p(&mut txn, 0.99)),
            (p(&mut watch, 0.5), p(&mut watch, 0.99)),
        )
    })
}

fn main() {
    let rt = runtime();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    let eps = cluster_up(&dir);
    let (l, f) = leader_and_follower(&eps.join(","));
    let engine = measure(&rt, &l, &f);
    memberctl(&dir, &["cluster", "down"]);
    let etcd = util::etcd::etcd_binary().map(|bin| {
        let c = util::Etcd::start_default_timing(bin, 3);
        let (l, f) = leader_and_follower(&c.endpoints());
        let r = measure(&rt, &l, &f);
        drop(c);
        r
    });
    let mut report = format!(
        "### Txn and watch latency (3 members, one Rust client, {ROUNDS} rounds each)\n\n| | CAS txn p50 | CAS txn p99 | put → event at a follower's watcher p50 | p99 |\n|---|---|---|---|---|\n"
    );
    let row = |name: &str, ((t50, t99), (w50, w99)): ((f64, f64), (f64, f64))| {
        format!("| {name} | {t50:.2} ms | {t99:.2} ms | {w50:.2} ms | {w99:.2} ms |\n")
    };
    report.push_str(&row("engine", engine));
    match etcd {
        Some(e) => {
            report.push_str(&row("etcd 3.4", e));
            report.push_str(&format!(
                "\nengine ÷ etcd p50: txn {:.2}, watch {:.2} (target ≤ 1.2)\n",
                engine.0 .0 / e.0 .0,
                engine.1 .0 / e.1 .0
            ));
        }
        None => report.push_str("| etcd | skipped: etcd not installed | | | |\n"),
    }
    println!("{report}");
    common::publish("api", &report);
}
