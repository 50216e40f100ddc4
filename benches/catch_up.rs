//! Learner catch-up on the bundled engine: a cluster holding N × 1 KiB keys
//! (default 100k ≈ 100 MB), a learner added, started and promoted, via a
//! snapshot and via the log, with a steady writer's latency measured
//! throughout; compared with this disk's fsync'd sequential write bandwidth
//! measured in the same run; the learner's peak RSS, and (on the log path,
//! where every entry is kept) the time the caught-up learner takes to start
//! again and answer. Prints a Markdown table (also
//! target/bench-report-catch-up.md). `MEMBERCTL_BENCH_KEYS` sets N,
//! `MEMBERCTL_BENCH_ROUNDS` how many times it all runs (default 1). etcd 3.6
//! and 3.7 (the pinned servers) and Debian's 3.4 go through the same steps
//! with the same data (`MEMBERCTL_BENCH_SERVERS`, default engine, 3.6, 3.7,
//! 3.4); engine ÷ each etcd's time per path follows each round's table.
//! `MEMBERCTL_BENCH_PATHS` picks some of the four runs (engine-snapshot,
//! engine-log, etcd-snapshot, etcd-log); `MEMBERCTL_BENCH_KEEP` (set)
//! keeps the engine's cluster directories, with every member's log.

use std::io::Write;
use std::time::{Duration, Instant};

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use common::{load, memberctl, VALUE_SIZE};
use util::writer::SteadyWriter;

/// The last key [`load`] writes of `n`.
fn last_key(n: usize) -> String {
    format!("bench/{:08}", n - 1)
}

/// MB/s of 1 MiB writes each followed by fdatasync, to a file in `dir`.
fn disk_bandwidth(dir: &std::path::Path) -> f64 {
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
    label: String,
    seconds: f64,
    mb: f64,
    writes: usize,
    failed: usize,
    max_ms: f64,
    p99_ms: f64,
    /// The learner's peak resident memory (VmHWM), MB.
    peak_rss_mb: f64,
    /// Bytes the learner passed to write calls (wchar), per byte of data.
    written_per_byte: f64,
    /// Stop → start → first answer of the caught-up learner (log path), ms.
    restart_ms: Option<f64>,
}

/// A process's peak resident set (VmHWM) in MB.
fn peak_rss_mb(pid: u32) -> f64 {
    common::status_mib(pid, "VmHWM")
}

/// Bytes a process has passed to write calls (wchar of /proc/PID/io).
fn written_bytes(pid: u32) -> f64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// Milliseconds from `start` until `url` answers a serializable range with
/// `key` (the last key loaded: the member answers with all of its data).
/// `log`, when given, is printed if it never does.
fn until_answers(
    url: &str,
    key: &str,
    start: Instant,
    rt: &tokio::runtime::Runtime,
    log: Option<&std::path::Path>,
) -> f64 {
    rt.block_on(async {
        let deadline = start + Duration::from_secs(120);
        loop {
            if let Ok(ch) = tonic::transport::Endpoint::from_shared(url.to_string())
                .unwrap()
                .connect_timeout(Duration::from_millis(200))
                .connect()
                .await
            {
                let mut c = memberctl::proto::etcdserverpb::kv_client::KvClient::new(ch);
                let req = memberctl::proto::etcdserverpb::RangeRequest {
                    key: key.as_bytes().to_vec(),
                    serializable: true,
                    ..Default::default()
                };
                if c.range(req).await.is_ok_and(|r| r.into_inner().count == 1) {
                    return start.elapsed().as_secs_f64() * 1000.0;
                }
            }
            assert!(
                Instant::now() < deadline,
                "{url} did not answer within 120 s{}",
                log.map(|p| format!(
                    "; its log:\n{}",
                    std::fs::read_to_string(p).unwrap_or_default()
                ))
                .unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

impl Run {
    /// Summarises a catch-up that took `seconds` from `start`, with the writer's `samples`.
    fn new(
        label: &str,
        keys: usize,
        start: Instant,
        seconds: f64,
        samples: &[util::writer::Sample],
    ) -> Run {
        if let Some(w) = samples
            .iter()
            .max_by(|a, b| a.ms.partial_cmp(&b.ms).unwrap())
        {
            let offset = w.start.saturating_duration_since(start).as_secs_f64();
            eprintln!(
                "{label}: worst write {:.1} ms, issued {offset:.2} s after the learner was started (promoted at {seconds:.2} s)",
                w.ms
            );
        }
        let mut l: Vec<f64> = samples.iter().map(|s| s.ms).collect();
        let p99 = util::percentile(&mut l, 0.99).unwrap_or(0.0);
        Run {
            label: label.to_string(),
            seconds,
            mb: (keys * VALUE_SIZE) as f64 / 1e6,
            writes: l.len(),
            failed: samples.iter().filter(|s| !s.ok).count(),
            max_ms: l.last().copied().unwrap_or(0.0),
            p99_ms: p99,
            peak_rss_mb: 0.0,
            written_per_byte: 0.0,
            restart_ms: None,
        }
    }
}

/// How the engine's learner is caught up.
#[derive(Clone, Copy, PartialEq)]
enum Path {
    /// Added after the load: a new member always starts from a snapshot of
    /// the whole state (the engine's log begins after its bootstrap).
    Snapshot,
    /// Added, started and stopped before the load, restarted after it: the
    /// leader kept every entry (no compaction), so it is sent the log.
    Log,
}

/// The bundled engine: `cluster up`, load, then a learner started and promoted.
fn engine(label: &'static str, path: Path, keys: usize, rt: &tokio::runtime::Runtime) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    // MEMBERCTL_BENCH_KEEP: the cluster's directory (members' logs) stays.
    let _tmp = if std::env::var_os("MEMBERCTL_BENCH_KEEP").is_some() {
        eprintln!("{label}: keeping {}", tmp.keep().display());
        None
    } else {
        Some(tmp)
    };
    let snap = match path {
        Path::Snapshot => "10000",
        Path::Log => "10000000",
    };
    let up = memberctl(&dir, &["cluster", "up", "--snapshot-count", snap]);
    let url = up["endpoints"][0].as_str().unwrap().to_string();
    let peer = format!("http://127.0.0.1:{}", util::free_port());
    let add = [
        "member",
        "add",
        "learner",
        "--learner",
        "--peer-urls",
        &peer,
    ];
    if path == Path::Log {
        memberctl(&dir, &add);
        memberctl(&dir, &["cluster", "start-node", "learner"]);
        stop_learner(&dir);
    }
    let load_s = rt.block_on(load(&url, keys));
    eprintln!("{label}: loaded {keys} keys in {load_s:.1}s");

    // A steady writer: one put every 10 ms, latency recorded.
    let writer = SteadyWriter::start(vec![url.clone()], "writer/", Duration::from_millis(10));
    if path == Path::Snapshot {
        memberctl(&dir, &add);
    }
    // From the learner's start, as for etcd (member add's own checks are
    // not the catch-up).
    let start = Instant::now();
    match path {
        Path::Snapshot => {
            memberctl(&dir, &["cluster", "start-node", "learner"]);
        }
        // Restarts the stopped learner from its data.
        Path::Log => {
            memberctl(&dir, &["cluster", "up"]);
        }
    }
    memberctl(&dir, &PROMOTE);
    let seconds = start.elapsed().as_secs_f64();
    let samples = writer.finish().samples;
    let pid = learner_pid(&dir).expect("the learner runs");
    let mut run = Run::new(label, keys, start, seconds, &samples);
    run.peak_rss_mb = peak_rss_mb(pid);
    run.written_per_byte = written_bytes(pid) / (run.mb * 1e6);
    if path == Path::Log {
        // SAFETY: kill(2) on a process this bench started.
        unsafe { libc::kill(pid as i32, libc::SIGTERM) };
        util::wait_for("the learner to stop", Duration::from_secs(30), || {
            learner_pid(&dir).is_none().then_some(())
        });
        let learner_url = memberctl(&dir, &["cluster", "status"])["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == "learner")
            .and_then(|n| n["client_url"].as_str())
            .unwrap()
            .to_string();
        let t = Instant::now();
        memberctl(&dir, &["cluster", "up"]);
        run.restart_ms = Some(until_answers(
            &learner_url,
            &last_key(keys),
            t,
            rt,
            Some(&dir.join("learner.log")),
        ));
    }
    memberctl(&dir, &["cluster", "down"]);
    run
}

/// The local cluster's learner process, while it runs.
fn learner_pid(dir: &std::path::Path) -> Option<u32> {
    let s = memberctl(dir, &["cluster", "status"]);
    s["nodes"]
        .as_array()?
        .iter()
        .find(|n| n["name"] == "learner" && n["running"] == true)?["pid"]
        .as_u64()
        .map(|p| p as u32)
}

/// Kills the local cluster's learner and waits (boundedly) until it is gone.
fn stop_learner(dir: &std::path::Path) {
    let pid = learner_pid(dir).expect("the learner runs");
    // SAFETY: kill(2) on a process this bench started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    util::wait_for("the learner to stop", Duration::from_secs(10), || {
        learner_pid(dir).is_none().then_some(())
    });
}

/// memberctl's promote, waiting as long as catch-up takes.
const PROMOTE: [&str; 7] = [
    "member",
    "promote",
    "learner",
    "--timeout",
    "10m",
    "--poll-interval",
    "100ms",
];

/// etcd 3.4 with the same data and the same steps (memberctl drives both).
fn etcd(
    label: &str,
    snapshot_count: &'static str,
    keys: usize,
    rt: &tokio::runtime::Runtime,
    bin: std::path::PathBuf,
) -> Run {
    let mut c = util::Etcd::start_with_flags(bin, 3, vec!["--snapshot-count", snapshot_count]);
    let url = c.members[0].client_url();
    let load_s = rt.block_on(load(&url, keys));
    eprintln!("{label}: loaded {keys} keys in {load_s:.1}s");
    let writer = SteadyWriter::start(vec![url.clone()], "writer/", Duration::from_millis(10));
    let peer_port = util::free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let ctl = |args: &[&str]| -> serde_json::Value {
        let mut all = vec![
            "--endpoints",
            &url,
            "--command-timeout",
            "30s",
            "-w",
            "json",
        ];
        all.extend_from_slice(args);
        let r = util::memberctl(&all);
        assert_eq!(r.code, 0, "memberctl {args:?}: {}{}", r.stdout, r.stderr);
        r.json()
    };
    let added = ctl(&[
        "member",
        "add",
        "learner",
        "--learner",
        "--peer-urls",
        &peer,
    ]);
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    // etcd names a learner only once it serves: promote by ID.
    let id = added["member"]["id"].as_str().unwrap().to_string();
    let mut promote = PROMOTE;
    promote[2] = &id;
    let start = Instant::now();
    let i = c.start_added("learner", peer_port, &initial);
    ctl(&promote);
    let seconds = start.elapsed().as_secs_f64();
    let samples = writer.finish().samples;
    let mut run = Run::new(label, keys, start, seconds, &samples);
    run.peak_rss_mb = c.pid(i).map_or(0.0, peak_rss_mb);
    run.written_per_byte = c.pid(i).map_or(0.0, written_bytes) / (run.mb * 1e6);
    if snapshot_count == "10000000" {
        c.stop(i);
        let t = Instant::now();
        c.restart(i);
        run.restart_ms = Some(until_answers(
            &c.members[i].client_url(),
            &last_key(keys),
            t,
            rt,
            None,
        ));
    }
    drop(c);
    run
}

/// Whether `path` runs: `MEMBERCTL_BENCH_PATHS` lists those wanted
/// (engine-snapshot, engine-log, etcd-snapshot, etcd-log; all by default).
fn wanted(path: &str) -> bool {
    std::env::var("MEMBERCTL_BENCH_PATHS").map_or(true, |v| v.split(',').any(|p| p.trim() == path))
}

fn main() {
    // `cargo bench` passes --bench; nothing else is accepted.
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rounds = common::rounds(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut report = format!(
        "### Learner catch-up, {keys} keys × 1 KiB, learner started → promoted; snapshot path: learner added after the load, --snapshot-count 10000; log path: --snapshot-count 10000000, the engine's learner started and stopped before the load, etcd's added after it; a put every 10 ms throughout; peak RSS of the learner; restart: the caught-up learner (log path: every entry kept) stopped, started, until a serializable read answers with the last key loaded\n\n"
    );
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", "engine,3.6,3.7,3.4");
    for round in 1..=rounds {
        let tmp = tempfile::tempdir().unwrap();
        let disk = disk_bandwidth(tmp.path());
        let mut runs = Vec::new();
        let mut skipped = String::new();
        let engine_wanted = servers.iter().any(|s| s == "engine");
        if engine_wanted && wanted("engine-snapshot") {
            runs.push(engine("engine, via snapshot", Path::Snapshot, keys, &rt));
        }
        if engine_wanted && wanted("engine-log") {
            runs.push(engine("engine, via the log", Path::Log, keys, &rt));
        }
        for server in servers.iter().filter(|s| *s != "engine") {
            let bin = match util::versions::find(server) {
                Ok(bin) => bin,
                Err(why) => {
                    skipped.push_str(&format!("etcd {server}: skipped, {why}\n"));
                    continue;
                }
            };
            if wanted("etcd-snapshot") {
                runs.push(etcd(
                    &format!("etcd {server}, via snapshot"),
                    "10000",
                    keys,
                    &rt,
                    bin.clone(),
                ));
            }
            if wanted("etcd-log") {
                runs.push(etcd(
                    &format!("etcd {server}, via the log"),
                    "10000000",
                    keys,
                    &rt,
                    bin,
                ));
            }
        }
        report.push_str(&table(round, disk, &runs));
        report.push_str(&ratios(&runs));
        report.push_str(&skipped);
        eprintln!("{report}");
    }
    report.push_str("\nTargets: the engine ≥ 0.35 × disk and ≤ 0.5 × etcd's time; writer worst no higher than etcd's on the same path.\n");
    println!("{report}");
    common::publish("catch-up", &report);
}

/// Engine ÷ each etcd's time, per path (snapshot, log).
fn ratios(runs: &[Run]) -> String {
    let mut out = String::new();
    for path in ["snapshot", "the log"] {
        let Some(e) = runs
            .iter()
            .find(|r| r.label.starts_with("engine") && r.label.ends_with(path))
        else {
            continue;
        };
        for o in runs
            .iter()
            .filter(|r| r.label.starts_with("etcd") && r.label.ends_with(path))
        {
            let name = o.label.split(',').next().unwrap_or(&o.label);
            out.push_str(&format!(
                "engine ÷ {name} via {path}: time {:.2}, writer p99 {:.2}, worst {:.2}, peak RSS {:.2}\n",
                e.seconds / o.seconds,
                e.p99_ms / o.p99_ms,
                e.max_ms / o.max_ms,
                e.peak_rss_mb / o.peak_rss_mb,
            ));
        }
    }
    out
}

/// One round's table (÷ etcd's time: the first etcd of the run on the same path).
fn table(round: usize, disk: f64, runs: &[Run]) -> String {
    let mut out = format!(
        "\nRound {round}: disk {disk:.0} MB/s (1 MiB writes + fdatasync, same run)\n\n| path | start → promoted | MB/s | ÷ disk | ÷ etcd's time | writer puts | failed | writer p99 | writer max | learner peak RSS | learner bytes written ÷ data | restart → answer |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in runs {
        let rate = r.mb / r.seconds;
        let path = if r.label.ends_with("snapshot") {
            "snapshot"
        } else {
            "log"
        };
        let vs_etcd = runs
            .iter()
            .find(|e| e.label.starts_with("etcd") && e.label.ends_with(path))
            .filter(|_| !r.label.starts_with("etcd"))
            .map_or("".to_string(), |e| format!("{:.2}", r.seconds / e.seconds));
        let restart = r
            .restart_ms
            .map_or(String::new(), |ms| format!("{ms:.0} ms"));
        out.push_str(&format!(
            "| {} | {:.2} s | {:.1} | {:.2} | {vs_etcd} | {} | {} | {:.1} ms | {:.1} ms | {:.0} MB | {:.1} | {restart} |\n",
            r.label,
            r.seconds,
            rate,
            rate / disk,
            r.writes,
            r.failed,
            r.p99_ms,
            r.max_ms,
            r.peak_rss_mb,
            r.written_per_byte,
        ));
    }
    out
}
