//! `member apply` under a steady writer (a put every 2 ms): the total time
//! and the writer's worst put for 3 → 5 and for a move to three new hosts,
//! on the bundled engine and, as the reference in the same run, on etcd
//! (new etcd members started from the settings memberctl prints). Prints a
//! Markdown table (also target/bench-report-apply.md).

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{memberctl, publish, window_stats};
use util::operator::{apply_args, run_starting_members, target_of as target};
use util::writer::SteadyWriter;

/// One measured change.
struct Measured {
    total: Duration,
    puts: usize,
    failed: usize,
    worst_ms: f64,
    p99_ms: f64,
}

/// Runs `change` under a writer on `endpoints`; its time and the writer's puts.
fn measured(endpoints: Vec<String>, change: impl FnOnce()) -> Measured {
    let writer = SteadyWriter::start(endpoints, "bench/", Duration::from_millis(2));
    writer.wait_for_writes(50);
    let start = Instant::now();
    change();
    let end = Instant::now();
    let written = writer.finish();
    let (puts, failed, p99_ms, worst_ms) = window_stats(&written.samples, &[(start, end)]);
    Measured {
        total: end - start,
        puts,
        failed,
        worst_ms,
        p99_ms,
    }
}

fn engine_apply(dir: &Path, target: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_memberctl"))
        .args(["member", "apply", "--target", target, "--start-local"])
        .args(["--timeout", "120s", "-w", "json"])
        .env("MEMBERCTL_CLUSTER_DIR", dir)
        .env_remove("MEMBERCTL_ENDPOINTS")
        .env_remove("ETCDCTL_ENDPOINTS")
        .output()
        .expect("run memberctl");
    assert!(
        out.status.success(),
        "member apply failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// (3 → 5, move) on a fresh local cluster each.
fn engine() -> (Measured, Measured) {
    let run = |keep: &[&str], new: &[&str]| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cluster");
        let up = memberctl(&dir, &["cluster", "up", "--max-learners", "3"]);
        let endpoints: Vec<String> = up["endpoints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        let list = memberctl(&dir, &["member", "list"]);
        let t = target(&list, keep, new);
        let m = measured(endpoints, || engine_apply(&dir, &t));
        memberctl(&dir, &["cluster", "down"]);
        m
    };
    (
        run(&["n1", "n2", "n3"], &["n4", "n5"]),
        run(&[], &["n6", "n7", "n8"]),
    )
}

/// (3 → 5, move) on a fresh etcd cluster each.
fn etcd(bin: &Path) -> (Measured, Measured) {
    let run = |keep: &[&str], new: &[&str]| {
        let mut c = util::Etcd::start_default_timing(bin.to_path_buf(), 3);
        let endpoints: Vec<String> = c.members.iter().map(|m| m.client_url()).collect();
        let t = target(&c.list(), keep, new);
        let args = apply_args(&c, &t);
        measured(endpoints, || {
            let (code, _, log) = run_starting_members(&mut c, &args);
            assert_eq!(code, 0, "{log}");
        })
    };
    (
        run(&["m1", "m2", "m3"], &["m4", "m5"]),
        run(&[], &["m6", "m7", "m8"]),
    )
}

fn row(server: &str, change: &str, m: &Measured) -> String {
    format!(
        "| {server} | {change} | {:.2} s | {} | {} | {:.1} ms | {:.1} ms |",
        m.total.as_secs_f64(),
        m.puts,
        m.failed,
        m.p99_ms,
        m.worst_ms
    )
}

fn main() {
    let (grow, moved) = engine();
    let mut rows = vec![
        row("engine", "3 → 5", &grow),
        row("engine", "move to 3 new hosts", &moved),
    ];
    match util::etcd::etcd_binary() {
        Some(bin) => {
            let (grow, moved) = etcd(&bin);
            rows.push(row("etcd", "3 → 5", &grow));
            rows.push(row("etcd", "move to 3 new hosts", &moved));
        }
        None => rows.push("| etcd | (not installed: no reference) | | | | | |".into()),
    }
    let section = format!(
        "## member apply under a writer (a put every 2 ms)\n\n\
         | server | change | total | puts | failed | p99 put | worst put |\n\
         |---|---|---|---|---|---|---|\n{}\n\n\
         The writer talks to the original members; in a move they are all removed, so puts \
         to a member just removed fail over to the next (counted as failed).\n",
        rows.join("\n")
    );
    println!("{section}");
    publish("apply", &section);
}
