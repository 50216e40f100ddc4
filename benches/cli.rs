//! Whole-process wall time of memberctl against etcdctl on the same 3-member
//! etcd — 3.6 and 3.7 (the pinned servers, the etcd people run now) and
//! Debian's 3.4, each with Debian's etcdctl 3.4 as the reference client, the
//! only etcdctl on the machine (member list, member status vs endpoint
//! status, also from the linker's output file for reference, member add
//! --dry-run with its pre-flight checks vs endpoint status; ≥ 20 alternating runs),
//! and start-up: `memberctl cluster up --nodes 3` to a leader vs a 3-member
//! etcd 3.6, 3.7 (the pinned servers) and 3.4 to healthy (≥ 5 alternating
//! runs). Medians and same-run ratios,
//! printed as Markdown and written to target/bench-report.md.
//! `MEMBERCTL_BENCH_ROUNDS` rounds (default 1), each with a fresh etcd.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::median;

const CLI_RUNS: usize = 25;
const START_RUNS: usize = 7;

/// Wall time of one run. The library path cargo sets for its own runs is
/// removed: a user's shell has none, and the loader would search it first.
fn time(cmd: &mut Command) -> f64 {
    let t = Instant::now();
    let out = cmd
        .env_remove("LD_LIBRARY_PATH")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run");
    assert!(out.success(), "{cmd:?} failed");
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let (Some(etcd), Some(etcdctl)) = (util::etcd::etcd_binary(), util::etcd::etcdctl_binary())
    else {
        println!("skipped: etcd not installed (Debian: apt-get install etcd-server etcd-client)");
        return;
    };
    let rounds = common::rounds(1);
    let installed = tempfile::tempdir().unwrap();
    let me = install(installed.path());
    // Start-up against the etcd people run now (the pinned 3.6 and 3.7) and
    // Debian's 3.4, whose etcdctl is the commands' reference.
    let mut servers = Vec::new();
    for v in ["3.6", "3.7"] {
        match util::versions::find(v) {
            Ok(bin) => servers.push((format!("etcd {v}"), bin)),
            Err(why) => println!("etcd {v} not available for the start-up line: {why}"),
        }
    }
    servers.push(("etcd 3.4".to_string(), etcd.clone()));
    let mut report = String::from("### CLI and start-up, memberctl vs etcd (same machine, same run; the commands against each server with etcdctl 3.4)\n\n| round | measure | memberctl | etcd | ratio | target |\n|---|---|---|---|---|---|\n");
    for round in 1..=rounds {
        for (name, bin) in &servers {
            report.push_str(&cli_round(round, &me, name, bin, &etcdctl));
        }
        report.push_str(&start_round(round, &me, &servers));
    }
    println!("{report}");
    common::publish("cli", &report);
}

/// The binary as a user runs it: a copy in `dir`, as `cargo install` makes.
/// The linker writes its output through a memory map, and the kernel then
/// holds that file in small pages, which cost every start ~0.25 ms more
/// than a copy does (docs/performance.md); etcdctl is an installed file too.
fn install(dir: &Path) -> PathBuf {
    let to = dir.join("memberctl");
    std::fs::copy(env!("CARGO_BIN_EXE_memberctl"), &to).expect("copy memberctl");
    to
}

/// One measured pair: label, the memberctl binary, its arguments, etcdctl's, the target.
type Pair<'a> = (&'a str, &'a Path, Vec<&'a str>, Vec<&'a str>, &'a str);

/// `member list`, `member status` (also from the linker's file) and `member
/// add --dry-run` against etcdctl on a fresh 3-member cluster of `etcd`
/// (`server` names it): one row each.
fn cli_round(round: usize, me: &Path, server: &str, etcd: &Path, etcdctl: &Path) -> String {
    let mut rows = String::new();
    let cluster = util::Etcd::start(etcd.to_path_buf(), 3);
    let eps = cluster.endpoints();
    let peer = format!("http://127.0.0.1:{}", util::free_port());
    let linked = Path::new(env!("CARGO_BIN_EXE_memberctl"));
    let pairs: [Pair; 4] = [
        (
            "`member list -w json`",
            me,
            vec!["member", "list", "-w", "json"],
            vec!["member", "list", "-w", "json"],
            "≤ 0.2",
        ),
        (
            "`member status` / `endpoint status` (-w json)",
            me,
            vec!["member", "status", "-w", "json"],
            vec!["endpoint", "status", "-w", "json"],
            "≤ 0.2",
        ),
        (
            "the same, run from the linker's output file (reference, not installed)",
            linked,
            vec!["member", "status", "-w", "json"],
            vec!["endpoint", "status", "-w", "json"],
            "—",
        ),
        (
            "`member add --learner --dry-run` with its pre-flight checks / `endpoint status`",
            me,
            vec![
                "member",
                "add",
                "n4",
                "--learner",
                "--peer-urls",
                &peer,
                "--dry-run",
                "-w",
                "json",
            ],
            vec!["endpoint", "status", "-w", "json"],
            "memberctl < 250 ms",
        ),
    ];
    for (label, bin, ours, theirs, target) in pairs {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..CLI_RUNS {
            a.push(time(
                Command::new(bin).arg("--endpoints").arg(&eps).args(&ours),
            ));
            b.push(time(
                Command::new(etcdctl)
                    .env("ETCDCTL_API", "3")
                    .arg(format!("--endpoints={eps}"))
                    .args(&theirs),
            ));
        }
        let (ma, mb) = (median(&mut a), median(&mut b));
        rows.push_str(&format!(
            "| {round} | {label} on {server}, median of {CLI_RUNS} | {ma:.1} ms | {mb:.1} ms | {:.2} | {target} |\n",
            ma / mb
        ));
    }
    rows
}

/// `cluster up --nodes 3` to a leader against a 3-member etcd to healthy: one row.
fn start_round(round: usize, me: &Path, servers: &[(String, PathBuf)]) -> String {
    let mut ours = Vec::new();
    let mut theirs: Vec<Vec<f64>> = vec![Vec::new(); servers.len()];
    for _ in 0..START_RUNS {
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let up = Command::new(me)
            .args(["cluster", "up", "--nodes", "3", "-w", "json", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        ours.push(t.elapsed().as_secs_f64() * 1000.0);
        // Down first, so that a failed start leaves no process behind.
        let _ = Command::new(me)
            .args(["cluster", "down", "--dir"])
            .arg(dir.path())
            .output();
        assert!(
            up.status.success(),
            "cluster up failed: {}",
            String::from_utf8_lossy(&up.stderr)
        );
        for ((_, etcd), times) in servers.iter().zip(theirs.iter_mut()) {
            let t = Instant::now();
            // Returns once a leader is elected and every member answers (polled every 20 ms).
            let c = util::Etcd::start_default_timing(etcd.to_path_buf(), 3);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            drop(c);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let mo = median(&mut ours);
    let mut rows = String::new();
    for ((name, _), times) in servers.iter().zip(theirs.iter_mut()) {
        let mt = median(times);
        rows.push_str(&format!(
            "| {round} | 3 members: launch → leader elected, all answering ({name}); median of {START_RUNS} | {mo:.0} ms | {mt:.0} ms | {:.2} | ≤ 0.5 |\n",
            mo / mt
        ));
    }
    rows
}
