//! Put latency and throughput through a 3-member cluster, the bundled engine
//! vs etcd 3.6 and 3.7 (the pinned servers) and Debian's 3.4 with the same
//! Rust client, and the floor measured in the same
//! run: fdatasync of a small write plus a loopback round trip. Single writer
//! (p50, p99, p99.9) and 64 concurrent writers (puts/s, p99 of their puts).
//! `MEMBERCTL_BENCH_ROUNDS` rounds (default 1), each with fresh clusters and
//! its own floor. Markdown to stdout and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{client, cluster_up, leader_and_follower, median, memberctl, runtime};
use memberctl::proto::etcdserverpb::PutRequest;

const SINGLE: usize = 2000;
const BATCH_WRITERS: usize = 64;
const BATCH_PUTS: usize = 12800;

/// What one cluster did.
#[derive(Clone, Copy)]
struct Figures {
    p50: f64,
    p99: f64,
    p999: f64,
    rate: f64,
    batch_p99: f64,
}

/// p50 of writing 4 KiB then fdatasync, in ms.
fn fsync_p50(dir: &std::path::Path) -> f64 {
    let mut f = std::fs::File::create(dir.join("fsync.tmp")).unwrap();
    let block = [7u8; 4096];
    let mut t = Vec::new();
    for _ in 0..200 {
        let s = Instant::now();
        f.write_all(&block).unwrap();
        f.sync_data().unwrap();
        t.push(s.elapsed().as_secs_f64() * 1000.0);
    }
    median(&mut t)
}

/// p50 of a 100-byte TCP round trip on loopback, in ms.
fn rtt_p50() -> f64 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let echo = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_nodelay(true).unwrap();
        let mut buf = [0u8; 100];
        while s.read_exact(&mut buf).is_ok() {
            if s.write_all(&buf).is_err() {
                break;
            }
        }
    });
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    c.set_nodelay(true).unwrap();
    let mut buf = [1u8; 100];
    let mut t = Vec::new();
    for _ in 0..1000 {
        let s = Instant::now();
        c.write_all(&buf).unwrap();
        c.read_exact(&mut buf).unwrap();
        t.push(s.elapsed().as_secs_f64() * 1000.0);
    }
    drop(c);
    let _ = echo.join();
    median(&mut t)
}

/// A single writer's latencies and the 64 writers' rate and p99 through `url`.
fn measure(rt: &tokio::runtime::Runtime, url: &str) -> Figures {
    rt.block_on(async {
        let mut c = client(url).await;
        let mut lat = Vec::new();
        for i in 0..SINGLE {
            let req = PutRequest {
                key: format!("single/{i}").into_bytes(),
                value: vec![1; 64],
                ..Default::default()
            };
            let s = Instant::now();
            tokio::time::timeout(Duration::from_secs(10), c.put(req))
                .await
                .expect("put in time")
                .expect("put");
            lat.push(s.elapsed().as_secs_f64() * 1000.0);
        }
        let start = Instant::now();
        let mut tasks = Vec::new();
        for w in 0..BATCH_WRITERS {
            let mut c = client(url).await;
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                for i in (w..BATCH_PUTS).step_by(BATCH_WRITERS) {
                    let req = PutRequest {
                        key: format!("batch/{i}").into_bytes(),
                        value: vec![1; 64],
                        ..Default::default()
                    };
                    let s = Instant::now();
                    c.put(req).await.expect("put");
                    lat.push(s.elapsed().as_secs_f64() * 1000.0);
                }
                lat
            }));
        }
        let mut batch = Vec::new();
        for t in tasks {
            batch.extend(t.await.unwrap());
        }
        let rate = BATCH_PUTS as f64 / start.elapsed().as_secs_f64();
        Figures {
            p50: util::percentile(&mut lat, 0.5).unwrap_or(0.0),
            p99: util::percentile(&mut lat, 0.99).unwrap_or(0.0),
            p999: util::percentile(&mut lat, 0.999).unwrap_or(0.0),
            rate,
            batch_p99: util::percentile(&mut batch, 0.99).unwrap_or(0.0),
        }
    })
}

/// The etcd servers measured beside the engine, in order: the releases
/// people run now (3.6, 3.7: the pinned binaries) and Debian's 3.4.
const ETCDS: [&str; 3] = ["3.6", "3.7", "3.4"];

fn main() {
    let rounds = common::rounds(1);
    let rt = runtime();
    let mut report = format!(
        "### Put latency and throughput (3 members, one Rust client; floor = fdatasync p50 + loopback RTT p50, measured in each round)\n\n| round | server | p50 | p99 | p99.9 | p50 ÷ floor | {BATCH_WRITERS} writers | their p99 |\n|---|---|---|---|---|---|---|---|\n"
    );
    let mut ratios = String::new();
    for round in 1..=rounds {
        let tmp = tempfile::tempdir().unwrap();
        let (fsync, rtt) = (fsync_p50(tmp.path()), rtt_p50());
        let floor = fsync + rtt;
        let dir = tmp.path().join("cluster");
        let eps = cluster_up(&dir);
        let engine = measure(&rt, &leader_and_follower(&eps.join(",")).0);
        memberctl(&dir, &["cluster", "down"]);
        let row = |name: &str, f: Figures| {
            format!(
                "| {round} | {name} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} (floor {floor:.2} ms) | {:.0} puts/s | {:.2} ms |\n",
                f.p50,
                f.p99,
                f.p999,
                f.p50 / floor,
                f.rate,
                f.batch_p99
            )
        };
        report.push_str(&row("engine", engine));
        for version in ETCDS {
            let Ok(bin) = util::versions::find(version) else {
                report.push_str(&format!(
                    "| {round} | etcd {version} | skipped: not available | | | | | |\n"
                ));
                continue;
            };
            let c = util::Etcd::start_default_timing(bin, 3);
            let e = measure(&rt, &leader_and_follower(&c.endpoints()).0);
            drop(c);
            report.push_str(&row(&format!("etcd {version}"), e));
            ratios.push_str(&format!(
                "round {round}: engine ÷ etcd {version}: p50 {:.2}, p99 {:.2}, p99.9 {:.2}, throughput {:.2}, {BATCH_WRITERS} writers' p99 {:.2}\n",
                engine.p50 / e.p50,
                engine.p99 / e.p99,
                engine.p999 / e.p999,
                engine.rate / e.rate,
                engine.batch_p99 / e.batch_p99
            ));
        }
        eprintln!("{report}\n{ratios}");
    }
    report.push_str(&format!("\n{ratios}"));
    report.push_str(
        "\nTargets: engine p50 ≤ etcd's and ≤ 2 × floor; p99 ≤ etcd's; 64 writers ≥ 1.5 × etcd.\n",
    );
    println!("{report}");
    common::publish("put", &report);
}
