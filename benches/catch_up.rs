//! Learner catch-up on the bundled engine: a cluster holding N × 1 KiB keys
//! (default 100k ≈ 100 MB), a learner added, started and promoted, via a
//! snapshot and via the log, with a steady writer's latency measured
//! throughout; compared with this disk's fsync'd sequential write bandwidth
//! measured in the same run. Prints a Markdown table (also
//! target/bench-report-catch-up.md). `MEMBERCTL_BENCH_KEYS` sets N.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use memberctl::proto::etcdserverpb::PutRequest;

mod common;

use common::{client, memberctl, SteadyWriter};

const VALUE_SIZE: usize = 1024;
const LOADERS: usize = 64;

/// Loads `n` keys of 1 KiB with `LOADERS` concurrent writers; returns the seconds taken.
async fn load(url: &str, n: usize) -> f64 {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..LOADERS {
        let mut c = client(url).await;
        tasks.push(tokio::spawn(async move {
            let mut i = w;
            while i < n {
                let req = PutRequest {
                    key: format!("bench/{i:08}").into_bytes(),
                    value: vec![b'x'; VALUE_SIZE],
                    ..Default::default()
                };
                c.put(req).await.expect("put");
                i += LOADERS;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed().as_secs_f64()
}

/// MB/s of 1 MiB writes each followed by fdatasync, to a file in `dir`.
fn disk_bandwidth(dir: &Path) -> f64 {
    let path = dir.join("bandwidth.tmp");
    let mut f = std::fs::File::create(&path).unwrap();
    let block = vec![7u8; 1 << 20];
    let start = Instant::now();
    for _ in 0..128 {
        f.write_all(&block).unwrap();
        f.sync_data().unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    drop(f);
    let _ = std::fs::remove_file(path);
    128.0 / secs
}

struct Run {
    label: &'static str,
    seconds: f64,
    mb: f64,
    writes: usize,
    max_ms: f64,
    p99_ms: f64,
}

fn catch_up(
    label: &'static str,
    snapshot_count: u64,
    keys: usize,
    rt: &tokio::runtime::Runtime,
) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    let snap = snapshot_count.to_string();
    let up = memberctl(&dir, &["cluster", "up", "--snapshot-count", &snap]);
    let url = up["endpoints"][0].as_str().unwrap().to_string();
    let load_s = rt.block_on(load(&url, keys));
    eprintln!("{label}: loaded {keys} keys in {load_s:.1}s");

    // A steady writer: one put every 10 ms, latency recorded.
    let writer = SteadyWriter::start(url.clone(), Duration::from_millis(10));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let peer = format!("http://127.0.0.1:{port}");
    memberctl(
        &dir,
        &[
            "member",
            "add",
            "learner",
            "--learner",
            "--peer-urls",
            &peer,
        ],
    );
    let start = Instant::now();
    memberctl(&dir, &["cluster", "start-node", "learner"]);
    memberctl(
        &dir,
        &[
            "member",
            "promote",
            "learner",
            "--timeout",
            "10m",
            "--poll-interval",
            "100ms",
        ],
    );
    let seconds = start.elapsed().as_secs_f64();
    let samples = writer.finish();
    memberctl(&dir, &["cluster", "down"]);
    if let Some((when, ms)) = samples.iter().max_by(|a, b| a.1.partial_cmp(&b.1).unwrap()) {
        let offset = when.saturating_duration_since(start).as_secs_f64();
        eprintln!("{label}: worst write {ms:.1} ms, issued {offset:.2} s after the learner was started (promoted at {seconds:.2} s)");
    }
    let mut l: Vec<f64> = samples.iter().map(|(_, ms)| *ms).collect();
    l.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p99 = l
        .get(((l.len() as f64) * 0.99) as usize)
        .copied()
        .unwrap_or(0.0);
    Run {
        label,
        seconds,
        mb: (keys * VALUE_SIZE) as f64 / 1e6,
        writes: l.len(),
        max_ms: l.last().copied().unwrap_or(0.0),
        p99_ms: p99,
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing else is accepted.
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_bandwidth(tmp.path());
    let runs = vec![
        catch_up(
            "engine, via snapshot (--snapshot-count 10000)",
            10_000,
            keys,
            &rt,
        ),
        catch_up(
            "engine, via the log (--snapshot-count 10000000)",
            10_000_000,
            keys,
            &rt,
        ),
    ];
    let mut report = String::new();
    report.push_str(&format!(
        "Learner catch-up, {keys} keys × 1 KiB; disk: {disk:.0} MB/s (1 MiB writes + fdatasync, same run)\n\n"
    ));
    report.push_str("| path | start → promoted | MB/s | ÷ disk MB/s | writer puts | writer max | writer p99 |\n|---|---|---|---|---|---|---|\n");
    for r in &runs {
        let rate = r.mb / r.seconds;
        report.push_str(&format!(
            "| {} | {:.2} s | {:.1} | {:.2} | {} | {:.1} ms | {:.1} ms |\n",
            r.label,
            r.seconds,
            rate,
            rate / disk,
            r.writes,
            r.max_ms,
            r.p99_ms
        ));
    }
    println!("{report}");
    common::publish("catch-up", &report);
}
