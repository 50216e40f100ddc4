//! `member apply` under a steady writer (a put every 2 ms): the total time
//! and the writer's worst put for 3 → 5 and for a move to three new hosts,
//! on the bundled engine and, as the reference in the same run, on etcd 3.6
//! and 3.7 (the pinned servers) and Debian's 3.4 (new etcd members started
//! from the settings memberctl prints), in turn. `MEMBERCTL_BENCH_SERVERS`
//! (default engine, 3.6, 3.7, 3.4) and `MEMBERCTL_BENCH_ROUNDS` (default 1).
//! Prints a Markdown table with engine ÷ 3.6 and ÷ 3.7 per round (also
//! target/bench-report-apply.md).

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

fn row(round: usize, server: &str, change: &str, m: &Measured) -> String {
    format!(
        "| {round} | {server} | {change} | {:.2} s | {} | {} | {:.1} ms | {:.1} ms |",
        m.total.as_secs_f64(),
        m.puts,
        m.failed,
        m.p99_ms,
        m.worst_ms
    )
}

/// Engine ÷ `reference` for one change: total time, p99 and worst put.
fn ratio(change: &str, engine: &Measured, reference: &Measured) -> String {
    format!(
        "{change}: time {:.2}, p99 {:.2}, worst {:.2}",
        engine.total.as_secs_f64() / reference.total.as_secs_f64(),
        engine.p99_ms / reference.p99_ms,
        engine.worst_ms / reference.worst_ms
    )
}

fn main() {
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", "engine,3.6,3.7,3.4");
    let mut rows = Vec::new();
    let mut ratios = Vec::new();
    for round in 1..=common::rounds(1) {
        let mut measured: Vec<(String, Measured, Measured)> = Vec::new();
        for server in &servers {
            let (grow, moved) = if server == "engine" {
                engine()
            } else {
                match util::versions::find(server) {
                    Ok(bin) => etcd(&bin),
                    Err(why) => {
                        rows.push(format!(
                            "| {round} | {} | (not available: {why}) | | | | | |",
                            common::label(server)
                        ));
                        continue;
                    }
                }
            };
            rows.push(row(round, &common::label(server), "3 → 5", &grow));
            rows.push(row(
                round,
                &common::label(server),
                "move to 3 new hosts",
                &moved,
            ));
            measured.push((server.clone(), grow, moved));
        }
        let Some((_, eg, em)) = measured.iter().find(|(s, _, _)| s == "engine") else {
            continue;
        };
        for (server, g, m) in measured.iter().filter(|(s, _, _)| s != "engine") {
            ratios.push(format!(
                "round {round}: engine ÷ etcd {server}: {}; {}",
                ratio("3 → 5", eg, g),
                ratio("move", em, m)
            ));
        }
    }
    let section = format!(
        "## member apply under a writer (a put every 2 ms)\n\n\
         | round | server | change | total | puts | failed | p99 put | worst put |\n\
         |---|---|---|---|---|---|---|---|\n{}\n\n{}\n\n\
         The writer talks to the original members; in a move they are all removed, so puts \
         to a member just removed fail over to the next (counted as failed).\n",
        rows.join("\n"),
        ratios.join("\n\n")
    );
    println!("{section}");
    publish("apply", &section);
}
