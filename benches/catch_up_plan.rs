//! The `catch-up` check's prediction against the catch-up it predicts: 20, 100 and 300 MB over a 50 Mbit/s, 20 ms link model, by snapshot (engine, etcd 3.6, 3.7, 3.5) and by the log (etcd 3.4), the check told the link's bandwidth; engine ÷ etcd 3.6 and ÷ 3.7 on the measured time.
//!
//! Each run: three members loaded on a fast link, the link set for 11 s, `member
//! check --for add` asked for its prediction, a learner added, started and
//! promoted; measured from the learner's start until `member promote`
//! first found it ready. By snapshot the members run `--snapshot-count 1000` and the data
//! is 3 kB values (enough entries that etcd compacts); by the log the
//! defaults and 100 kB values (etcd never compacts). `MEMBERCTL_BENCH_ROUNDS`
//! (default 1), `MEMBERCTL_BENCH_SIZES` (MB, default 20,100,300) and
//! `MEMBERCTL_BENCH_SERVERS` (engine, etcd-3.6, etcd-3.7, etcd-3.5,
//! etcd-3.4) choose what runs.
//! Prints a Markdown table (also target/bench-report-catch-up-plan.md).

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use util::catch_up::{catch_up, engine, etcd, Server};

/// The link of the bench: 50 Mbit/s (6.25 MB/s) and 20 ms, as between regions.
const LINK: &str = "rtt=20ms,bandwidth=50mbit,queue=4mb";

/// A server of the bench: its name, the catch-up path it is measured on,
/// and how to find it.
type Choice = (&'static str, &'static str, fn() -> Server);

/// Time on the bench's link before each change: the engine's pacing takes
/// the lowest round trip of the last 10 s as the link's own, and the load's
/// were on a fast link (as in benches/catch_up_link.rs).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(11);

/// The names in `var` (comma-separated), or every one.
fn chosen(var: &str, name: &str) -> bool {
    std::env::var(var).map_or(true, |v| v.split(',').any(|p| p.trim() == name))
}

fn main() {
    let rounds = common::rounds(1);
    let sizes: Vec<usize> = std::env::var("MEMBERCTL_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![20, 100, 300]);
    let servers: [Choice; 5] = [
        ("engine", "snapshot", engine),
        ("etcd-3.6", "snapshot", || etcd("3.6")),
        ("etcd-3.7", "snapshot", || etcd("3.7")),
        ("etcd-3.5", "snapshot", || etcd("3.5")),
        ("etcd-3.4", "log", || etcd("3.4")),
    ];
    let mut report = format!(
        "### The catch-up check's prediction against the catch-up, over a link model of {LINK}; learner started → first found ready by `member promote`\n\n"
    );
    for round in 1..=rounds {
        report.push_str(&format!(
            "\nRound {round}\n\n| server | path | data | predicted | measured | error |\n|---|---|---|---|---|---|\n"
        ));
        // Measured seconds by (server, MB), for the engine's ratios.
        let mut took: Vec<(&str, usize, f64)> = Vec::new();
        for (name, path, server) in servers {
            if !chosen("MEMBERCTL_BENCH_SERVERS", name) {
                continue;
            }
            for &mb in &sizes {
                let (count, keys, size) = if path == "snapshot" {
                    (Some("1000"), mb * 1_000_000 / 3000, 3000)
                } else {
                    (None, mb * 10, 100_000)
                };
                let m = catch_up(server(), count, keys, size, LINK, SETTLE);
                let predicted = m.figures["predicted_seconds"].as_f64().unwrap_or(f64::NAN);
                let error = (predicted - m.seconds) / m.seconds * 100.0;
                took.push((name, mb, m.seconds));
                report.push_str(&format!(
                    "| {name} | {} | {mb} MB ({:.0} MB to send) | {predicted:.2} s | {:.2} s | {error:+.0} % |\n",
                    m.figures["path"].as_str().unwrap_or("?"),
                    m.figures["bytes"].as_f64().unwrap_or(0.0) / 1e6,
                    m.seconds
                ));
                eprintln!("{report}");
            }
        }
        let engine_took = |mb: usize| took.iter().find(|t| t.0 == "engine" && t.1 == mb);
        for reference in ["etcd-3.6", "etcd-3.7"] {
            let ratios: Vec<String> = took
                .iter()
                .filter(|t| t.0 == reference)
                .filter_map(|t| engine_took(t.1).map(|e| format!("{} MB {:.2}", t.1, e.2 / t.2)))
                .collect();
            if !ratios.is_empty() {
                report.push_str(&format!(
                    "\nMeasured time, engine ÷ {reference}: {}\n",
                    ratios.join(", ")
                ));
            }
        }
    }
    println!("{report}");
    common::publish("catch-up-plan", &report);
}
