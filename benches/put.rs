//! Put latency and throughput through a 3-member cluster, the bundled engine
//! vs etcd 3.6 and 3.7 (the pinned servers) and Debian's 3.4 with the same
//! Rust client, and the floor measured in the same
//! run: fdatasync of a small write plus a loopback round trip; and what this
//! machine allows a 3-member put on its one disk, measured too: the second of
//! three fdatasyncs started together plus two round trips. Single writer
//! (p50, p99, p99.9) and 64 concurrent writers (puts/s, p99 of their puts);
//! beside them the same client's serializable get p50 at the leader (the
//! client's round trip through the server, no consensus), so that what a
//! put adds to it shows. `MEMBERCTL_BENCH_ROUNDS` rounds (default 1), each
//! with fresh clusters and its own floor; `MEMBERCTL_BENCH_SERVERS` (default
//! `engine,3.6,3.7,3.4`) chooses the servers. Markdown to stdout and
//! target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{client, leader_and_follower, median, runtime};
use memberctl::proto::etcdserverpb::{PutRequest, RangeRequest};

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
    /// A serializable get's p50 at the same member.
    get_p50: f64,
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

/// p50 of the second of three fdatasyncs started together (4 KiB each, a
/// file each), in ms: what a 3-member cluster on this one disk waits for
/// before a put commits (the leader's and one follower's), when the
/// device serialises its cache flushes.
fn quorum_fsync_p50(dir: &std::path::Path) -> f64 {
    const ROUNDS: usize = 200;
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(3));
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let barrier = barrier.clone();
            let path = dir.join(format!("quorum-{i}.tmp"));
            std::thread::spawn(move || {
                let mut f = std::fs::File::create(path).unwrap();
                let block = [7u8; 4096];
                (0..ROUNDS)
                    .map(|_| {
                        barrier.wait();
                        let s = Instant::now();
                        f.write_all(&block).unwrap();
                        f.sync_data().unwrap();
                        (s, Instant::now())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let runs: Vec<Vec<(Instant, Instant)>> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    let mut t: Vec<f64> = (0..ROUNDS)
        .map(|r| {
            let start = runs.iter().map(|run| run[r].0).min().unwrap();
            let mut ends: Vec<Instant> = runs.iter().map(|run| run[r].1).collect();
            ends.sort();
            (ends[1] - start).as_secs_f64() * 1000.0
        })
        .collect();
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

/// How long one request took, in ms (it must be answered, within 10 s).
async fn timed<T>(
    what: &str,
    request: impl std::future::Future<Output = Result<T, tonic::Status>>,
) -> f64 {
    let s = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), request)
        .await
        .unwrap_or_else(|_| panic!("{what} in time"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    s.elapsed().as_secs_f64() * 1000.0
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
            lat.push(timed("put", c.put(req)).await);
        }
        let mut gets = Vec::new();
        for i in 0..SINGLE {
            let req = RangeRequest {
                key: format!("single/{i}").into_bytes(),
                serializable: true,
                ..Default::default()
            };
            gets.push(timed("get", c.range(req)).await);
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
            get_p50: util::percentile(&mut gets, 0.5).unwrap_or(0.0),
        }
    })
}

fn main() {
    let rounds = common::rounds(1);
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", "engine,3.6,3.7,3.4");
    let rt = runtime();
    let mut report = format!(
        "### Put latency and throughput (3 members, one Rust client; floor = fdatasync p50 + loopback RTT p50, measured in each round)\n\n| round | server | p50 | p99 | p99.9 | p50 ÷ floor | p50 ÷ this machine's floor | serializable get p50 | {BATCH_WRITERS} writers | their p99 |\n|---|---|---|---|---|---|---|---|---|---|\n"
    );
    let mut ratios = String::new();
    for round in 1..=rounds {
        let tmp = tempfile::tempdir().unwrap();
        let (fsync, rtt) = (fsync_p50(tmp.path()), rtt_p50());
        let floor = fsync + rtt;
        // What this machine allows a 3-member put: two round trips (client to
        // leader, leader to follower) and two of three members' fsyncs.
        let quorum = quorum_fsync_p50(tmp.path());
        let machine = quorum + 2.0 * rtt;
        let mut engine = None;
        for server in &servers {
            let name = common::label(server);
            let three = match common::Three::up(server, Vec::new()) {
                Ok(three) => three,
                Err(why) => {
                    report.push_str(&format!(
                        "| {round} | {name} | skipped: {why} | | | | | | | |\n"
                    ));
                    continue;
                }
            };
            let f = measure(&rt, &leader_and_follower(&three.endpoints).0);
            drop(three);
            report.push_str(&format!(
                "| {round} | {name} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} (floor {floor:.2} ms: fsync {fsync:.2}, rtt {rtt:.3}) | {:.2} ({machine:.2} ms: 2 of 3 fsyncs {quorum:.2}, 2 rtt) | {:.2} ms | {:.0} puts/s | {:.2} ms |\n",
                f.p50,
                f.p99,
                f.p999,
                f.p50 / floor,
                f.p50 / machine,
                f.get_p50,
                f.rate,
                f.batch_p99
            ));
            match engine {
                None if server == "engine" => engine = Some(f),
                Some(engine) => ratios.push_str(&format!(
                    "round {round}: engine ÷ {name}: p50 {:.2}, p99 {:.2}, p99.9 {:.2}, throughput {:.2}, {BATCH_WRITERS} writers' p99 {:.2}\n",
                    engine.p50 / f.p50,
                    engine.p99 / f.p99,
                    engine.p999 / f.p999,
                    engine.rate / f.rate,
                    engine.batch_p99 / f.batch_p99
                )),
                None => {}
            }
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
