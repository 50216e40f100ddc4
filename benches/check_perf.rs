//! etcd's own yardstick: `etcdctl check perf` (Debian's etcdctl 3.4) at
//! loads s, m and l against 3 members of the bundled engine, etcd 3.6 and
//! 3.7 (the pinned servers) and etcd 3.4 (Debian's), one fresh cluster per
//! run, the servers alternating within each round: the verdict, throughput,
//! slowest request and spread as etcdctl prints them, and each member's RSS
//! after the run (check perf ends by deleting every key it wrote, so the
//! figure holds the history and that deletion's peak). Ratios engine ÷ 3.6
//! and ÷ 3.7 per load and round. `MEMBERCTL_BENCH_ROUNDS` rounds (default
//! 3); `MEMBERCTL_CHECK_PERF_LOADS` (default `s,m,l`) and
//! `MEMBERCTL_CHECK_PERF_SERVERS` (default `engine,3.6,3.7,3.4`) narrow it.
//! A server that is not available is said so in its row. Markdown to stdout
//! and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::Path;
use std::process::Command;

/// What one run of `check perf` printed, and the members' RSS afterwards.
#[derive(Clone, Debug, Default)]
struct Measured {
    passed: bool,
    throughput: Option<f64>,
    slowest_s: Option<f64>,
    stddev_s: Option<f64>,
    rss_mib: Vec<f64>,
}

impl Measured {
    fn rss_total(&self) -> f64 {
        self.rss_mib.iter().sum()
    }
}

/// The figure that ends a verdict line (`… 674`, `… 0.786915s`), its unit dropped.
fn figure(line: &str) -> Option<f64> {
    let tail = line.rsplit([':', ' ']).find(|w| !w.is_empty())?;
    let num: String = tail
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse().ok()
}

/// Reads `check perf`'s verdict lines (`PASS: Throughput is 989 writes/s`,
/// `FAIL: Slowest request took too long: 0.78s`, …).
fn parse(out: &str) -> Measured {
    let mut run = Measured::default();
    for line in out.lines().map(str::trim) {
        if line.contains("Throughput") {
            run.throughput = figure(line.trim_end_matches(" writes/s"));
        } else if line.contains("Slowest request") {
            run.slowest_s = figure(line);
        } else if line.contains("Stddev") {
            run.stddev_s = figure(line);
        } else if line == "PASS" {
            run.passed = true;
        }
    }
    run
}

/// `etcdctl check perf --load LOAD` against `endpoints`, then the RSS of `pids`.
fn check_perf(etcdctl: &Path, endpoints: &str, load: &str, pids: &[u32]) -> Measured {
    let out = Command::new(etcdctl)
        .args(["--endpoints", endpoints, "check", "perf", "--load", load])
        .env("ETCDCTL_API", "3")
        .output()
        .expect("run etcdctl check perf");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let mut run = parse(&text);
    if run.throughput.is_none() {
        eprintln!("check perf printed no verdict:\n{text}");
    }
    run.rss_mib = pids
        .iter()
        .map(|p| common::status_mib(*p, "VmRSS"))
        .collect();
    run
}

/// One run on a fresh 3-member cluster of `server` (`engine` or an etcd
/// minor version); None with the reason when that server is missing.
fn run_on(server: &str, etcdctl: &Path, load: &str) -> Result<Measured, String> {
    let c = common::Three::up(server, Vec::new())?;
    Ok(check_perf(etcdctl, &c.endpoints, load, &c.pids))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(etcdctl) = util::etcd::etcdctl_binary() else {
        println!("check_perf: skipped, etcdctl is not installed (apt-get install etcd-client)");
        return;
    };
    let rounds = common::rounds(3);
    let loads = common::list("MEMBERCTL_CHECK_PERF_LOADS", "s,m,l");
    let servers = common::list("MEMBERCTL_CHECK_PERF_SERVERS", "engine,3.6,3.7,3.4");
    let mut table = String::from(
        "### `etcdctl check perf` (etcdctl 3.4, 3 members on loopback, a fresh cluster per run)\n\n\
         | round | load | server | result | throughput | slowest | stddev | RSS of the 3 members after |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let mut ratios = String::new();
    let f = |v: Option<f64>, unit: &str, scale: f64| {
        v.map_or("—".to_string(), |x| format!("{:.0}{unit}", x * scale))
    };
    for round in 1..=rounds {
        for load in &loads {
            let mut runs: Vec<(String, Measured)> = Vec::new();
            for server in &servers {
                match run_on(server, &etcdctl, load) {
                    Ok(r) => {
                        table.push_str(&format!(
                            "| {round} | {load} | {} | {} | {} | {} | {} | {:.0} MiB ({}) |\n",
                            common::label(server),
                            if r.passed { "PASS" } else { "FAIL" },
                            f(r.throughput, "/s", 1.0),
                            f(r.slowest_s, " ms", 1000.0),
                            f(r.stddev_s, " ms", 1000.0),
                            r.rss_total(),
                            r.rss_mib
                                .iter()
                                .map(|m| format!("{m:.0}"))
                                .collect::<Vec<_>>()
                                .join(" + ")
                        ));
                        runs.push((server.clone(), r));
                    }
                    Err(why) => table.push_str(&format!(
                        "| {round} | {load} | {} | skipped: {why} | | | | |\n",
                        common::label(server)
                    )),
                }
                eprintln!("{table}");
            }
            let engine = runs.iter().find(|(s, _)| s == "engine").map(|(_, r)| r);
            for (server, r) in runs.iter().filter(|(s, _)| s != "engine") {
                let Some(e) = engine else { continue };
                let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                    _ => "—".into(),
                };
                ratios.push_str(&format!(
                    "round {round}, load {load}: engine ÷ {}: RSS {:.2}, throughput {}, slowest {}\n",
                    common::label(server),
                    e.rss_total() / r.rss_total().max(1.0),
                    ratio(e.throughput, r.throughput),
                    ratio(e.slowest_s, r.slowest_s),
                ));
            }
        }
    }
    let report = format!("{table}\n{ratios}\nGoal: RSS ratio ≤ 1 against 3.6 and 3.7; throughput ≥ 1, slowest ≤ 1.\n");
    println!("{report}");
    common::publish("check_perf", &report);
}
