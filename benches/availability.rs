//! Availability during membership changes: a writer putting a key every 5 ms
//! while memberctl adds a learner, waits for its catch-up, promotes it and
//! removes it again (and, on the bundled engine, demotes it through a joint
//! configuration first), on the engine and on etcd 3.4 side by side, both
//! with a 100 ms heartbeat. Failed writes, p99 and worst latency per phase,
//! also in heartbeats. Then "remove the leader": a put every 20 ms through a
//! member that stays while the leader is removed, by memberctl (leadership
//! moved first) and by `etcdctl member remove` (the leader just goes), on the
//! engine and on etcd 3.4 and 3.6, etcd's default timing (1 s election
//! timeout). Markdown to stdout and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::Path;
use std::time::{Duration, Instant};

use common::client;
use memberctl::proto::etcdserverpb::PutRequest;
use serde_json::Value;
use util::writer::SteadyWriter;

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

/// One server kind's rows.
fn rows(kind: &str, samples: &[util::writer::Sample], phases: &Phases) -> String {
    let mut out = String::new();
    let mut all = Vec::new();
    for (name, windows) in &phases.0 {
        if *name != QUIET {
            all.extend_from_slice(windows);
        }
        let (n, failed, p99, max) = common::window_stats(samples, windows);
        out.push_str(&format!(
            "| {kind} | {name} | {n} | {failed} | {p99:.1} ms ({:.2} hb) | {max:.1} ms ({:.2} hb) |\n",
            p99 / HEARTBEAT_MS,
            max / HEARTBEAT_MS
        ));
    }
    let (n, failed, p99, max) = common::window_stats(samples, &all);
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
    let writer = SteadyWriter::start(vec![url], "writer/", Duration::from_millis(5));
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
    let samples = writer.finish().samples;
    ctl(&[], &["cluster", "down", "--dir", d]);
    rows("engine", &samples, &phases)
}

fn etcd(rt: &tokio::runtime::Runtime, bin: std::path::PathBuf) -> String {
    let mut c = util::Etcd::start_default_timing(bin, 3);
    let url = c.members[0].client_url();
    load(rt, &url);
    let writer = SteadyWriter::start(vec![url], "writer/", Duration::from_millis(5));
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
    let samples = writer.finish().samples;
    drop(c);
    rows("etcd 3.4", &samples, &phases)
}

/// Rounds of "remove the leader" per way of removing it and server.
const LEADER_ROUNDS: usize = 3;
/// The election timeout of the servers in "remove the leader", in ms.
const ELECTION_MS: f64 = 1000.0;

/// How a leader is removed.
#[derive(Clone, Copy, PartialEq)]
enum Remover {
    /// `memberctl member remove` (moves leadership first).
    Memberctl,
    /// `etcdctl member remove` (the leader is removed as it is).
    Etcdctl,
}

/// What one server kind needs for "remove the leader": how memberctl finds
/// it, and a way to bring a fourth voter in.
trait LeaderCluster {
    /// Environment that points memberctl at the cluster.
    fn env(&self) -> Vec<(String, String)>;
    /// Adds, starts and promotes a new voter called `name`.
    fn grow(&mut self, name: &str);
}

impl LeaderCluster for util::Etcd {
    fn env(&self) -> Vec<(String, String)> {
        vec![("MEMBERCTL_ENDPOINTS".into(), self.endpoints())]
    }
    fn grow(&mut self, name: &str) {
        let peer_port = util::free_port();
        let peer = format!("http://127.0.0.1:{peer_port}");
        let add = ["member", "add", name, "--learner", "--peer-urls", &peer];
        let added = ctl_at(self, &add);
        self.start_added(name, peer_port, added["initial_cluster"].as_str().unwrap());
        ctl_at(self, &["member", "promote", name, "--timeout", "60s"]);
    }
}

/// The engine's local cluster in `dir`.
struct EngineCluster(std::path::PathBuf);

impl LeaderCluster for EngineCluster {
    fn env(&self) -> Vec<(String, String)> {
        vec![(
            "MEMBERCTL_CLUSTER_DIR".into(),
            self.0.to_str().unwrap().to_string(),
        )]
    }
    fn grow(&mut self, name: &str) {
        let peer = format!("http://127.0.0.1:{}", util::free_port());
        ctl_at(
            self,
            &["member", "add", name, "--learner", "--peer-urls", &peer],
        );
        ctl_at(self, &["cluster", "start-node", name]);
        ctl_at(self, &["member", "promote", name, "--timeout", "60s"]);
    }
}

/// Runs memberctl against `c`; its JSON output.
fn ctl_at(c: &dyn LeaderCluster, args: &[&str]) -> Value {
    let env = c.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    ctl(&env, args)
}

/// The leader's hex ID and the client URLs of the reachable voters that stay
/// (the writer uses the first).
fn leader_and_stayers(c: &dyn LeaderCluster) -> (String, Vec<String>) {
    let status = ctl_at(c, &["member", "status"]);
    let leader = status["leader"].as_str().unwrap().to_string();
    let stayers = status["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["id"] != leader.as_str() && m["is_learner"] == false && m["reachable"] == true
        })
        .map(|m| m["client_urls"][0].as_str().unwrap().to_string())
        .collect();
    (leader, stayers)
}

/// Removes the leader `rounds` times each way (growing the cluster back to 4
/// voters before each removal) and returns (way, puts, failed, worst ms) per way.
fn remove_leaders(
    c: &mut dyn LeaderCluster,
    etcdctl: Option<&Path>,
    tag: &str,
) -> Vec<(Remover, usize, usize, f64)> {
    let mut out = Vec::new();
    let ways = match etcdctl {
        Some(_) => vec![Remover::Memberctl, Remover::Etcdctl],
        None => vec![Remover::Memberctl],
    };
    for way in ways {
        let mut all = Vec::new();
        for round in 0..LEADER_ROUNDS {
            let name = format!(
                "{tag}{}{round}",
                if way == Remover::Memberctl { "m" } else { "e" }
            );
            c.grow(&name);
            let (leader, stayers) = leader_and_stayers(c);
            let writer = SteadyWriter::start(
                vec![stayers[0].clone()],
                "writer/",
                Duration::from_millis(20),
            );
            std::thread::sleep(Duration::from_millis(500)); // a quiet lead-in for the writer
            match (way, etcdctl) {
                (Remover::Etcdctl, Some(etcdctl)) => {
                    let others: Vec<&str> = stayers
                        .iter()
                        .map(|u| u.trim_start_matches("http://"))
                        .collect();
                    // As an operator would: again while etcd answers "unhealthy
                    // cluster" (the fourth member connected moments ago), boundedly.
                    let deadline = Instant::now() + Duration::from_secs(20);
                    loop {
                        let eps = others.join(",");
                        let r = util::etcdctl(etcdctl, &eps, &["member", "remove", &leader]);
                        if r.code == 0 {
                            break;
                        }
                        assert!(
                            r.stderr.contains("unhealthy cluster") && Instant::now() < deadline,
                            "etcdctl member remove: {}",
                            r.stderr
                        );
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
                _ => {
                    ctl_at(c, &["member", "remove", &leader]);
                }
            }
            // The election after a removed leader comes after the command returns.
            std::thread::sleep(Duration::from_millis(2500));
            all.extend(writer.finish().samples);
        }
        let failed = all.iter().filter(|s| !s.ok).count();
        let worst = all.iter().map(|s| s.ms).fold(0.0, f64::max);
        out.push((way, all.len(), failed, worst));
    }
    out
}

/// The "remove the leader" rows of one server kind.
fn leader_rows(kind: &str, results: &[(Remover, usize, usize, f64)]) -> String {
    let mut out = String::new();
    for (way, puts, failed, worst) in results {
        let how = match way {
            Remover::Memberctl => "memberctl member remove (moves leadership first)",
            Remover::Etcdctl => "etcdctl member remove",
        };
        out.push_str(&format!(
            "| {kind} | {how} | {puts} | {failed} | {worst:.1} ms | {:.2} |\n",
            worst / ELECTION_MS
        ));
    }
    out
}

/// "Remove the leader" on the engine and on each etcd server available.
fn leader_removal(tmp: &Path) -> String {
    let etcdctl = util::etcd::etcdctl_binary();
    let mut report = format!(
        "### Removing the leader (a put every 20 ms through a member that stays; {LEADER_ROUNDS} removals each way; election timeout 1 s)\n\n| server | how | puts | failed | worst | worst ÷ election timeout |\n|---|---|---|---|---|---|\n"
    );
    let d = tmp.join("leader-engine");
    let ds = d.to_str().unwrap();
    ctl(&[], &["cluster", "up", "--dir", ds]);
    let mut engine = EngineCluster(d.clone());
    let results = remove_leaders(&mut engine, etcdctl.as_deref(), "e");
    ctl(&[], &["cluster", "down", "--dir", ds]);
    report.push_str(&leader_rows("engine", &results));
    for version in ["3.4", "3.6"] {
        let Ok(bin) = util::versions::find(version) else {
            report.push_str(&format!(
                "| etcd {version} | skipped: not available | | | | |\n"
            ));
            continue;
        };
        let mut c = util::Etcd::start_default_timing(bin, 3);
        let results = remove_leaders(&mut c, etcdctl.as_deref(), "x");
        report.push_str(&leader_rows(&format!("etcd {version}"), &results));
    }
    report.push_str(
        "\nTarget: with memberctl, 0 failed writes and a worst put ≤ 0.2 × the election timeout.\n",
    );
    report
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
    match util::etcd::etcd_binary() {
        Some(bin) => report.push_str(&etcd(&rt, bin)),
        None => report.push_str("| etcd 3.4 | skipped: etcd not installed | | | | |\n"),
    }
    report.push_str("\nTarget: 0 failed writes on the engine, and its worst put during changes no higher than etcd's in the same run.\n\n");
    report.push_str(&leader_removal(tmp.path()));
    println!("{report}");
    common::publish("availability", &report);
}
