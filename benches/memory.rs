//! Memory as a measured line: each member's RSS (and how much of it is a mapped file) on 3 members of the engine, etcd 3.6 and 3.7, after loading N × 1 KiB keys, after writing every key once more (the gigabyte and its history), and after a compaction to the newest revision and a defragment of every member.
//!
//! Per server, in turn, a fresh cluster: N keys (`MEMBERCTL_BENCH_KEYS`,
//! default 1,000,000 ≈ 1 GB) written through the first member by 64
//! writers; each member's `VmRSS` and `RssFile` (etcd maps its bbolt file:
//! those pages are the file's and the kernel may drop them under pressure;
//! the engine's state is anonymous memory); every key written again; RSS;
//! then `etcdctl compact REV --physical` at the newest revision and
//! `etcdctl defrag` on every member; RSS. Ratios engine ÷ 3.6 and ÷ 3.7 per
//! line. etcd runs with an 8 GiB quota (its default, 2 GiB, stops the
//! second pass). `MEMBERCTL_BENCH_ROUNDS` rounds (default 1);
//! `MEMBERCTL_BENCH_SERVERS` (default `engine,3.6,3.7`). Markdown to stdout
//! and target/bench-report.md.

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::path::Path;

/// The lines measured, in order.
const LINES: [&str; 3] = [
    "loaded",
    "written twice (history)",
    "compacted + defragmented",
];

/// RSS of every member (MiB), and of it the mapped files'.
#[derive(Clone, Debug, Default)]
struct Rss {
    total: Vec<f64>,
    file: Vec<f64>,
}

impl Rss {
    fn of(pids: &[u32]) -> Rss {
        Rss {
            total: pids
                .iter()
                .map(|p| common::status_mib(*p, "VmRSS"))
                .collect(),
            file: pids
                .iter()
                .map(|p| common::status_mib(*p, "RssFile"))
                .collect(),
        }
    }

    fn sum(&self) -> f64 {
        self.total.iter().sum()
    }

    fn shown(&self) -> String {
        format!(
            "{:.0} MiB ({}; file {:.0})",
            self.sum(),
            self.total
                .iter()
                .map(|m| format!("{m:.0}"))
                .collect::<Vec<_>>()
                .join(" + "),
            self.file.iter().sum::<f64>()
        )
    }
}

/// etcdctl on `endpoints` with `args`, patient (a defragment of a gigabyte
/// takes longer than the tests' 30 s); its stdout.
fn etcdctl(ctl: &Path, endpoints: &str, args: &[&str]) -> String {
    util::run(
        std::process::Command::new(ctl)
            .env("ETCDCTL_API", "3")
            .env("ETCDCTL_COMMAND_TIMEOUT", "600s")
            .arg(format!("--endpoints={endpoints}"))
            .args(args),
    )
    .expect(0)
    .stdout
}

/// The three lines on `endpoints` (comma-separated) whose members are `pids`.
fn measure(ctl: &Path, endpoints: &str, pids: &[u32], keys: usize) -> Vec<Rss> {
    let first = endpoints.split(',').next().unwrap().to_string();
    let rt = common::runtime();
    let mut lines = Vec::new();
    let secs = rt.block_on(common::load(&first, keys));
    lines.push(Rss::of(pids));
    eprintln!("loaded {keys} keys in {secs:.1} s: {}", lines[0].shown());
    let secs = rt.block_on(common::load(&first, keys));
    lines.push(Rss::of(pids));
    eprintln!("wrote them again in {secs:.1} s: {}", lines[1].shown());
    let status: serde_json::Value =
        serde_json::from_str(&etcdctl(ctl, &first, &["endpoint", "status", "-w", "json"]))
            .expect("endpoint status JSON");
    let revision = status[0]["Status"]["header"]["revision"]
        .as_i64()
        .expect("a revision");
    etcdctl(
        ctl,
        &first,
        &["compact", &revision.to_string(), "--physical"],
    );
    etcdctl(ctl, endpoints, &["defrag"]);
    lines.push(Rss::of(pids));
    eprintln!("compacted and defragmented: {}", lines[2].shown());
    lines
}

/// The lines on a fresh 3-member cluster of `server` (`engine` or an etcd
/// minor version); the reason when that server is missing.
fn run_on(server: &str, ctl: &Path, keys: usize) -> Result<Vec<Rss>, String> {
    // etcd's default quota (2 GiB) would stop the second pass: 8 GiB, as
    // the engine's local cluster has none.
    let c = common::Three::up(server, vec!["--quota-backend-bytes", "8589934592"])?;
    Ok(measure(ctl, &c.endpoints, &c.pids, keys))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(ctl) = util::etcd::etcdctl_binary() else {
        println!("memory: skipped, etcdctl is not installed (apt-get install etcd-client)");
        return;
    };
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let rounds = common::rounds(1);
    let servers = common::list("MEMBERCTL_BENCH_SERVERS", "engine,3.6,3.7");
    let mut table = format!(
        "### Memory: RSS of 3 members, {keys} keys × 1 KiB (file: of it, mapped files' pages)\n\n\
         | round | server | {} |\n|---|---|---|---|---|\n",
        LINES.join(" | ")
    );
    let mut ratios = String::new();
    for round in 1..=rounds {
        let mut runs: Vec<(String, Vec<Rss>)> = Vec::new();
        for server in &servers {
            match run_on(server, &ctl, keys) {
                Ok(lines) => {
                    table.push_str(&format!(
                        "| {round} | {} | {} |\n",
                        common::label(server),
                        lines.iter().map(Rss::shown).collect::<Vec<_>>().join(" | ")
                    ));
                    runs.push((server.clone(), lines));
                }
                Err(why) => table.push_str(&format!(
                    "| {round} | {} | skipped: {why} | | |\n",
                    common::label(server)
                )),
            }
            eprintln!("{table}");
        }
        let Some((_, engine)) = runs.iter().find(|(s, _)| s == "engine") else {
            continue;
        };
        for (server, lines) in runs.iter().filter(|(s, _)| s != "engine") {
            let each: Vec<String> = LINES
                .iter()
                .zip(engine.iter().zip(lines))
                .map(|(name, (e, r))| format!("{name} {:.2}", e.sum() / r.sum().max(1.0)))
                .collect();
            ratios.push_str(&format!(
                "round {round}: engine ÷ {}: {}\n",
                common::label(server),
                each.join(", ")
            ));
        }
    }
    let report = format!("{table}\n{ratios}\nGoal: engine ÷ etcd 3.6 ≤ 1 on every line.\n");
    println!("{report}");
    common::publish("memory", &report);
}
