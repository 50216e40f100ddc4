//! Availability during membership changes: a writer putting a key every 5 ms
//! while memberctl adds a learner, waits for its catch-up, promotes it and
//! removes it again (and, on the bundled engine, demotes it through a joint
//! configuration first), on the engine and on etcd 3.4 side by side, both
//! with a 100 ms heartbeat. Failed writes, p99 and worst latency per phase,
//! also in heartbeats. Markdown to stdout and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{client, SteadyWriter};
use memberctl::proto::etcdserverpb::PutRequest;
use serde_json::Value;

/// Keys loaded before the changes, so that catch-up has something to do.
const KEYS: usize = 5_000;
/// Rounds of the whole sequence per server kind.
const ROUNDS: usize = 3;
/// The reference phase: the writer alone.
const QUIET: &str = "no change (reference)";
/// The servers' heartbeat interval, in ms (both use 100 ms here).
const HEARTBEAT_MS: f64 = 100.0;

/// Runs memberctl with `env` and `args`; its JSON output (panics on failure).
fn ctl(env: &[(&str, &str)], args: &[&str]) -> Value {
    let mut c = util::memberctl_command(args);
    c.args(["-w", "json", "--command-timeout", "30s"]);
    for (k, v) in env {
        c.env(k, v);
    }
    let r = util::run(&mut c);
    assert_eq!(r.code, 0, "memberctl {args:?}: {}{}", r.stdout, r.stderr);
    r.json()
}

/// Puts `KEYS` keys of 1 KiB through `url` with 16 writers.
fn load(rt: &tokio::runtime::Runtime, url: &str) {
    rt.block_on(async {
        let mut tasks = Vec::new();
        for w in 0..16 {
            let mut c = client(url).await;
            tasks.push(tokio::spawn(async move {
                for i in (w..KEYS).step_by(16) {
                    let req = PutRequest {
                        key: format!("load/{i:06}").into_bytes(),
                        value: vec![b'x'; 1024],
                        ..Default::default()
                    };
                    c.put(req).await.expect("load put");
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// The phases of one server kind: name → windows in which they ran.
#[derive(Default)]
struct Phases(Vec<(&'static str, Vec<(Instant, Instant)>)>);

impl Phases {
    /// Runs `f`, recording its window under `name`.
    fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let window = (start, Instant::now());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, w)) => w.push(window),
            None => self.0.push((name, vec![window])),
        }
        out
    }
}

/// (puts, failed, p99 ms, max ms) of the samples inside `windows`.
fn stats(samples: &[common::Sample], windows: &[(Instant, Instant)]) -> (usize, usize, f64, f64) {
    let inside: Vec<&common::Sample> = samples
        .iter()
        .filter(|s| windows.iter().any(|(a, b)| s.start >= *a && s.start < *b))
        .collect();
    let failed = inside.iter().filter(|s| !s.ok).count();
    let mut l: Vec<f64> = inside.iter().map(|s| s.ms).collect();
    l.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let max = l.last().copied().unwrap_or(0.0);
    let p99 = l
        .get(((l.len() as f64) * 0.99) as usize)
        .copied()
        .unwrap_or(max);
    (l.len(), failed, p99, max)
}

/// One server kind's rows.
fn rows(kind: &str, samples: &[common::Sample], phases: &Phases) -> String {
    let mut out = String::new();
    let mut all = Vec::new();
    for (name, windows) in &phases.0 {
        if *name != QUIET {
            all.extend_from_slice(windows);
        }
        let (n, failed, p99, max) = stats(samples, windows);
        out.push_str(&format!(
            "| {kind} | {name} | {n} | {failed} | {p99:.1} ms ({:.2} hb) | {max:.1} ms ({:.2} hb) |\n",
            p99 / HEARTBEAT_MS,
            max / HEARTBEAT_MS
        ));
    }
    let (n, failed, p99, max) = stats(samples, &all);
    out.push_str(&format!(
        "| {kind} | **all changes** | {n} | {failed} | {p99:.1} ms ({:.2} hb) | {max:.1} ms ({:.2} hb) |\n",
        p99 / HEARTBEAT_MS,
        max / HEARTBEAT_MS
    ));
    out
}

/// The writer's quiet reference window: `secs` with no change under way.
fn quiet(phases: &mut Phases, secs: u64) {
    phases.time(QUIET, || std::thread::sleep(Duration::from_secs(secs)));
}

fn engine(rt: &tokio::runtime::Runtime, dir: &Path) -> String {
    let d = dir.to_str().unwrap();
    let env = [("MEMBERCTL_CLUSTER_DIR", d)];
    let up = ctl(&[], &["cluster", "up", "--dir", d]);
    let url = up["endpoints"][0].as_str().unwrap().to_string();
    load(rt, &url);
    let writer = SteadyWriter::start(url, Duration::from_millis(5));
    let mut phases = Phases::default();
    quiet(&mut phases, 2);
    for round in 0..ROUNDS {
        let name = format!("a{round}");
        let peer = format!("http://127.0.0.1:{}", util::free_port());
        phases.time("add learner", || {
            ctl(
                &env,
                &["member", "add", &name, "--learner", "--peer-urls", &peer],
            )
        });
        phases.time("start + catch-up + promote", || {
            ctl(&env, &["cluster", "start-node", &name]);
            ctl(&env, &["member", "promote", &name, "--timeout", "60s"])
        });
        phases.time("joint enter (demote)", || {
            ctl(&env, &["member", "joint", "enter", "--demote", &name])
        });
        phases.time("joint leave", || ctl(&env, &["member", "joint", "leave"]));
        phases.time("remove", || ctl(&env, &["member", "remove", &name]));
    }
    let samples = writer.finish();
    ctl(&[], &["cluster", "down", "--dir", d]);
    rows("engine", &samples, &phases)
}

fn etcd(rt: &tokio::runtime::Runtime, bin: std::path::PathBuf) -> String {
    let mut c = util::Etcd::start_default_timing(bin, 3);
    let url = c.members[0].client_url();
    load(rt, &url);
    let writer = SteadyWriter::start(url, Duration::from_millis(5));
    let mut phases = Phases::default();
    quiet(&mut phases, 2);
    for round in 0..ROUNDS {
        let name = format!("a{round}");
        let peer_port = util::free_port();
        let peer = format!("http://127.0.0.1:{peer_port}");
        let eps = c.endpoints();
        let env = [("MEMBERCTL_ENDPOINTS", eps.as_str())];
        let added = phases.time("add learner", || {
            ctl(
                &env,
                &["member", "add", &name, "--learner", "--peer-urls", &peer],
            )
        });
        let initial = added["initial_cluster"].as_str().unwrap().to_string();
        // etcd names a learner only once it serves: use its ID.
        let id = added["member"]["id"].as_str().unwrap().to_string();
        let i = phases.time("start + catch-up + promote", || {
            let i = c.start_added(&name, peer_port, &initial);
            ctl(&env, &["member", "promote", &id, "--timeout", "60s"]);
            i
        });
        phases.time("remove", || ctl(&env, &["member", "remove", &id]));
        c.kill(i);
    }
    let samples = writer.finish();
    drop(c);
    rows("etcd 3.4", &samples, &phases)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut report = format!(
        "### Availability during membership changes (a put every 5 ms; {KEYS} × 1 KiB loaded; {ROUNDS} rounds; heartbeat 100 ms = 1 hb)\n\n| server | phase | puts | failed | p99 | worst |\n|---|---|---|---|---|---|\n"
    );
    report.push_str(&engine(&rt, &tmp.path().join("engine")));
    match util::etcd_binary() {
        Some(bin) => report.push_str(&etcd(&rt, bin)),
        None => report.push_str("| etcd 3.4 | skipped: etcd not installed | | | | |\n"),
    }
    report.push_str("\nTarget: 0 failed writes on the engine, and its worst put during changes no higher than etcd's in the same run.\n");
    println!("{report}");
    common::publish("availability", &report);
}
