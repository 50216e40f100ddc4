//! Put latency and throughput through a 3-member cluster, the bundled engine
//! vs etcd 3.4 with the same Rust client, and the floor measured in the same
//! run: fdatasync of a small write plus a loopback round trip. Single writer
//! (p50, p99) and 64 concurrent writers (puts/s). Markdown to stdout and
//! target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{client, cluster_up, leader_and_follower, median, memberctl, runtime};
use memberctl::proto::etcdserverpb::PutRequest;

const SINGLE: usize = 400;
const BATCH_WRITERS: usize = 64;
const BATCH_PUTS: usize = 6400;

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

/// (p50 ms, p99 ms, batched puts/s) through `url`.
fn measure(rt: &tokio::runtime::Runtime, url: &str) -> (f64, f64, f64) {
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
                for i in (w..BATCH_PUTS).step_by(BATCH_WRITERS) {
                    let req = PutRequest {
                        key: format!("batch/{i}").into_bytes(),
                        value: vec![1; 64],
                        ..Default::default()
                    };
                    c.put(req).await.expect("put");
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let rate = BATCH_PUTS as f64 / start.elapsed().as_secs_f64();
        let p50 = util::percentile(&mut lat, 0.5).unwrap_or(0.0);
        let p99 = util::percentile(&mut lat, 0.99).unwrap_or(0.0);
        (p50, p99, rate)
    })
}

fn main() {
    let rt = runtime();
    let tmp = tempfile::tempdir().unwrap();
    let (fsync, rtt) = (fsync_p50(tmp.path()), rtt_p50());
    let floor = fsync + rtt;
    let dir = tmp.path().join("cluster");
    let eps = cluster_up(&dir);
    let engine = measure(&rt, &leader_and_follower(&eps.join(",")).0);
    memberctl(&dir, &["cluster", "down"]);
    let etcd = util::etcd_binary().map(|bin| {
        let c = util::Etcd::start_default_timing(bin, 3);
        let r = measure(&rt, &leader_and_follower(&c.endpoints()).0);
        drop(c);
        r
    });
    let mut report = format!(
        "### Put latency and throughput (3 members, one Rust client; floor = fdatasync p50 {fsync:.2} ms + loopback RTT p50 {rtt:.3} ms = {floor:.2} ms)\n\n| | p50 | p99 | p50 ÷ floor | {BATCH_WRITERS} writers |\n|---|---|---|---|---|\n"
    );
    let row = |name: &str, (p50, p99, rate): (f64, f64, f64)| {
        format!(
            "| {name} | {p50:.2} ms | {p99:.2} ms | {:.2} | {rate:.0} puts/s |\n",
            p50 / floor
        )
    };
    report.push_str(&row("engine", engine));
    match etcd {
        Some(e) => {
            report.push_str(&row("etcd 3.4", e));
            report.push_str(&format!(
                "\nengine ÷ etcd: p50 {:.2}, throughput {:.2}\n",
                engine.0 / e.0,
                engine.2 / e.2
            ));
        }
        None => report.push_str("| etcd | skipped: etcd not installed | | | |\n"),
    }
    report.push_str("\nTarget: engine p50 ≤ 2 × floor.\n");
    println!("{report}");
    common::publish("put", &report);
}
