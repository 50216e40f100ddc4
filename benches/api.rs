//! Txn and Watch latency through a 3-member cluster, the bundled engine vs
//! etcd 3.6 and 3.7 (the pinned servers) and Debian's 3.4 with the same Rust
//! client in the same run: a compare-and-swap Txn at the leader (p50, p99),
//! and watch delivery (a put at the leader → its event at a watcher on
//! another member; p50, p99); then engine ÷ each etcd per round.
//! `MEMBERCTL_BENCH_SERVERS` (default engine, 3.6, 3.7, 3.4) and
//! `MEMBERCTL_BENCH_ROUNDS` (default 1) choose what runs. Markdown to stdout
//! and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::time::{Duration, Instant};

use common::{client, leader_and_follower, runtime};
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

/// The servers measured unless `MEMBERCTL_BENCH_SERVERS` names others.
const DEFAULT_SERVERS: &str = "engine,3.6,3.7,3.4";

/// One server's figures: ((txn p50, p99), (watch p50, p99)) in ms.
type Figures = ((f64, f64), (f64, f64));

fn main() {
    let rt = runtime();
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", DEFAULT_SERVERS);
    let rounds = common::rounds(1);
    let mut report = format!(
        "### Txn and watch latency (3 members, one Rust client, {ROUNDS} rounds each)\n\n| round | server | CAS txn p50 | CAS txn p99 | put → event at a follower's watcher p50 | p99 |\n|---|---|---|---|---|---|\n"
    );
    let mut ratios = String::new();
    for round in 1..=rounds {
        let mut figures: Vec<(String, Figures)> = Vec::new();
        for server in &servers {
            let label = common::label(server);
            match common::Three::up(server, vec![]) {
                Ok(three) => {
                    let (l, f) = leader_and_follower(&three.endpoints);
                    let ((t50, t99), (w50, w99)) = measure(&rt, &l, &f);
                    report.push_str(&format!(
                        "| {round} | {label} | {t50:.2} ms | {t99:.2} ms | {w50:.2} ms | {w99:.2} ms |\n"
                    ));
                    figures.push((label, ((t50, t99), (w50, w99))));
                }
                Err(why) => {
                    report.push_str(&format!("| {round} | {label} | skipped: {why} | | | |\n"))
                }
            }
        }
        if let Some((_, e)) = figures.iter().find(|(l, _)| l == "engine") {
            for (label, o) in figures.iter().filter(|(l, _)| l != "engine") {
                ratios.push_str(&format!(
                    "round {round}: engine ÷ {label}: txn p50 {:.2}, p99 {:.2}; watch p50 {:.2}, p99 {:.2} (target p50 ≤ 1.2)\n",
                    e.0 .0 / o.0 .0,
                    e.0 .1 / o.0 .1,
                    e.1 .0 / o.1 .0,
                    e.1 .1 / o.1 .1
                ));
            }
        }
    }
    let report = format!("{report}\n{ratios}");
    println!("{report}");
    common::publish("api", &report);
}
