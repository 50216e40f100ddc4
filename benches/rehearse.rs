//! How faithful the engine's rehearsal is: the same rehearsal — 100 MB, `--link rtt=60ms,bandwidth=50mbit,queue=4mb`, `cluster rehearse -- memberctl member replace` of a follower (its learner added, started, caught up and promoted, the follower removed) — on the engine and on etcd's own binaries (`cluster up --etcd`).
//!
//! The data: N × 1 KiB keys (default 100k ≈ 100 MB) written once into
//! Debian's etcd 3.4 and saved with `memberctl snapshot save`; the engine
//! and etcd 3.4 start from it (`cluster up --from-snapshot`). The pinned
//! etcd 3.6 and 3.7 binaries have no `etcdutl` beside them, which
//! `--from-snapshot` needs for etcd, so their clusters get the same keys
//! written through the leader on a fast link before the profile's link is
//! set (the table says which). Then 11 s on the link, leadership handed to
//! the member the writer writes through (the first endpoint) when another
//! leads, and the rehearsal (a writer at 50/s, 5 s before, 3 s after). Reported from its report.json:
//! catch-up time and its ratio to the link floor, the writer's p99 and
//! worst during the change, failed puts, leader changes; then engine ÷
//! each etcd. `MEMBERCTL_BENCH_KEYS`, `MEMBERCTL_BENCH_ROUNDS` (default 3)
//! and `MEMBERCTL_BENCH_SERVERS` (default engine, 3.4, 3.6) choose what
//! runs. Prints a Markdown table (also target/bench-report-rehearse.md);
//! each report.json is kept as target/bench-rehearse/SERVER-ROUND.json,
//! beside the members' logs (SERVER-ROUND/NAME.log), to read where the
//! slow puts fell.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use serde_json::Value;

/// The rehearsal's link.
const LINK: &str = "rtt=60ms,bandwidth=50mbit,queue=4mb";
/// The link keys are written over where no snapshot can be restored.
const LOADING: &str = "rtt=100us,bandwidth=10gbit,queue=16mb";
/// How long the cluster runs on the link before the rehearsal.
const SETTLE: Duration = Duration::from_secs(11);

/// memberctl on the local cluster in `dir`; its stdout, or why it failed.
fn run(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = common::memberctl_command(dir, args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "memberctl {args:?} exited {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The snapshot every server starts from: `keys` × 1 KiB written into
/// etcd 3.4 (Debian's), saved by memberctl.
fn snapshot(keys: usize, rt: &tokio::runtime::Runtime, into: &Path) -> PathBuf {
    let bin = util::versions::find("3.4").expect("etcd 3.4 makes the snapshot");
    let c = util::Etcd::start_default_timing(bin, 1);
    let url = c.endpoints();
    let s = rt.block_on(common::load(&url, keys));
    eprintln!("snapshot: {keys} keys written in {s:.1}s");
    let file = into.join("prod.db");
    let r = util::memberctl(&[
        "--endpoints",
        &url,
        "snapshot",
        "save",
        file.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "snapshot save: {}", r.stderr);
    drop(c);
    file
}

/// One rehearsal's figures, from its report.json.
struct Outcome {
    data: &'static str,
    catch_up: f64,
    floor_ratio: f64,
    p99: f64,
    worst: f64,
    failed: u64,
    leader_changes: u64,
}

fn rehearse(
    label: &str,
    round: usize,
    etcd: Option<&Path>,
    restore: bool,
    snap: &Path,
    keys: usize,
    rt: &tokio::runtime::Runtime,
) -> Result<Outcome, String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    let link = if restore { LINK } else { LOADING };
    let mut up = vec![
        "cluster",
        "up",
        "--nodes",
        "3",
        "--snapshot-count",
        "10000",
        "--link",
        link,
    ];
    let etcd_arg = etcd.map(|p| p.to_str().unwrap().to_string());
    if let Some(p) = &etcd_arg {
        up.extend(["--etcd", p]);
    }
    let snap_arg = snap.to_str().unwrap();
    if restore {
        up.extend(["--from-snapshot", snap_arg]);
    }
    let result = (|| {
        let st: Value = serde_json::from_str(&run(&dir, &[&up[..], &["-w", "json"]].concat())?)
            .map_err(|e| e.to_string())?;
        let endpoints: Vec<String> = st["endpoints"]
            .as_array()
            .ok_or("no endpoints")?
            .iter()
            .filter_map(|e| e.as_str().map(str::to_string))
            .collect();
        if !restore {
            let (leader, _) = common::leader_and_follower(&endpoints.join(","));
            let s = rt.block_on(common::load(&leader, keys));
            eprintln!("written {keys} keys in {s:.1}s");
            run(&dir, &["cluster", "link", "--set", LINK])?;
        }
        std::thread::sleep(SETTLE);
        // The writer writes through the first endpoint: that member leads on
        // every server, so the writers' path (one round trip to a quorum) is
        // the same on each (through a follower it is two).
        let status: Value = serde_json::from_str(&run(&dir, &["member", "status", "-w", "json"])?)
            .map_err(|e| e.to_string())?;
        let first = status["members"]
            .as_array()
            .ok_or("no members")?
            .iter()
            .find(|m| m["client_urls"][0] == endpoints[0].as_str())
            .ok_or("no member serves the first endpoint")?;
        if status["leader"] != first["id"] {
            let name = first["name"].as_str().ok_or("a member without a name")?;
            run(&dir, &["member", "move-leader", name])?;
        }
        let status: Value = serde_json::from_str(&run(&dir, &["member", "status", "-w", "json"])?)
            .map_err(|e| e.to_string())?;
        let leader = status["leader"].as_str().unwrap_or_default().to_string();
        let follower = status["members"]
            .as_array()
            .ok_or("no members")?
            .iter()
            .find(|m| m["id"] != leader.as_str())
            .and_then(|m| m["name"].as_str())
            .ok_or("no follower")?
            .to_string();
        let report = tmp.path().join("report");
        let peer = format!("http://127.0.0.1:{}", util::free_port());
        run(
            &dir,
            &[
                "cluster",
                "rehearse",
                "--report",
                report.to_str().unwrap(),
                "--writer-rate",
                "50/s",
                "--before",
                "5s",
                "--after",
                "3s",
                "--timeout",
                "15m",
                "--",
                "memberctl",
                "member",
                "replace",
                &follower,
                "--name",
                "fresh",
                "--peer-urls",
                &peer,
                "--start-local",
                "--timeout",
                "10m",
            ],
        )?;
        let bytes = std::fs::read(report.join("report.json")).map_err(|e| e.to_string())?;
        // Kept for reading later: target/bench-rehearse/LABEL-N.json.
        let kept = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-rehearse");
        let _ = std::fs::create_dir_all(&kept);
        let _ = std::fs::write(
            kept.join(format!("{}-{round}.json", label.replace(' ', "-"))),
            &bytes,
        );
        let r: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        let s = &r["summary"];
        let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        Ok(Outcome {
            data: if restore { "snapshot" } else { "written" },
            catch_up: f(&s["catch_up_seconds"]),
            floor_ratio: f(&s["catch_up_to_floor_ratio"]),
            p99: f(&s["during"]["p99_ms"]),
            worst: f(&s["during"]["max_ms"]),
            failed: s["failed_writes"].as_u64().unwrap_or(0),
            leader_changes: s["leader_changes"].as_u64().unwrap_or(0),
        })
    })();
    let _ = run(&dir, &["cluster", "down"]);
    keep_logs(&dir, &format!("{label}-{round}"));
    result
}

/// Copies the members' logs of `dir` to target/bench-rehearse/`name`/.
fn keep_logs(dir: &Path, name: &str) {
    let kept = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-rehearse")
        .join(name.replace(' ', "-"));
    let _ = std::fs::create_dir_all(&kept);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "log") {
            let _ = std::fs::copy(&path, kept.join(entry.file_name()));
        }
    }
}

fn main() {
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rounds = common::rounds(3);
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", "engine,3.4,3.6");
    let rt = common::runtime();
    let tmp = tempfile::tempdir().unwrap();
    let snap = snapshot(keys, &rt, tmp.path());
    let mut table = format!(
        "### One rehearsal on the engine and on etcd: {keys} keys × 1 KiB, `--link {LINK}`, `cluster rehearse --writer-rate 50/s -- memberctl member replace FOLLOWER --start-local`\n\n\
         | round | server | data | catch-up | ÷ link floor | writer p99 during | worst during | failed puts | leader changes |\n\
         |---|---|---|---|---|---|---|---|---|\n"
    );
    let mut ratios = String::new();
    for round in 1..=rounds {
        let mut outs: Vec<(String, Outcome)> = Vec::new();
        for server in &servers {
            let (label, etcd, restore) = if server == "engine" {
                ("engine".to_string(), None, true)
            } else {
                match util::versions::find(server) {
                    // Debian's etcd has etcdctl beside it; the pinned ones stand alone.
                    Ok(bin) => (format!("etcd {server}"), Some(bin), server == "3.4"),
                    Err(why) => {
                        table.push_str(&format!(
                            "| {round} | etcd {server} | skipped: {why} | | | | | | |\n"
                        ));
                        continue;
                    }
                }
            };
            match rehearse(&label, round, etcd.as_deref(), restore, &snap, keys, &rt) {
                Ok(o) => {
                    table.push_str(&format!(
                        "| {round} | {label} | {} | {:.1} s | {:.2} | {:.0} ms | {:.0} ms | {} | {} |\n",
                        o.data, o.catch_up, o.floor_ratio, o.p99, o.worst, o.failed, o.leader_changes
                    ));
                    outs.push((label, o));
                }
                Err(why) => table.push_str(&format!(
                    "| {round} | {label} | failed: {} | | | | | | |\n",
                    why.replace('\n', " ").replace('|', "/")
                )),
            }
            eprintln!("{table}");
        }
        if let Some((_, e)) = outs.iter().find(|(l, _)| l == "engine") {
            for (label, o) in outs.iter().filter(|(l, _)| l != "engine") {
                ratios.push_str(&format!(
                    "round {round}: engine ÷ {label}: catch-up {:.2}, writer p99 during {:.2}, worst during {:.2}\n",
                    e.catch_up / o.catch_up,
                    e.p99 / o.p99,
                    e.worst / o.worst
                ));
            }
        }
    }
    let report = format!("{table}\n{ratios}");
    println!("{report}");
    common::publish("rehearse", &report);
}
