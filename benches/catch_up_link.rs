//! Learner catch-up over a link: the same change on the engine and on etcd 3.4, every member pair behind the same link model, in three profiles — LAN (1 Gbit/s, 0.5 ms), region (200 Mbit/s, 10 ms), cross-region (50 Mbit/s, 60 ms, 4 MB queue).
//!
//! Per server and profile: three members with `--snapshot-count 10000` are
//! loaded with N × 1 KiB keys (default 100k ≈ 100 MB) on a fast link, then
//! the profile's link is set and runs 11 s; a writer puts through the leader every 20 ms;
//! after 5 s a learner is added, started (from the settings `member add`
//! printed) and promoted by `memberctl member promote`, which waits until it
//! has caught up. Reported: catch-up time (learner started → promoted) and
//! its ratio to the link floor (data ÷ bandwidth) and to etcd's; the
//! writer's p50/p99/worst before and during the catch-up; leader changes
//! (the raft term's rise); and, as the link saw them, the delay of small
//! messages (≤ 1 KiB: heartbeats, votes, acks) from the leader to the
//! voters and to the learner, p99 during the catch-up — a heartbeat's round
//! trip is that and the way back. `MEMBERCTL_BENCH_KEYS`,
//! `MEMBERCTL_BENCH_ROUNDS` (default 1), `MEMBERCTL_BENCH_PROFILES` (lan,
//! region, cross-region) and `MEMBERCTL_BENCH_SERVERS` (engine, etcd) choose
//! what runs. Prints a Markdown table (also target/bench-report-catch-up-link.md).

use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use memberctl::link::{LinkSpec, Links};
use serde_json::Value;
use util::writer::{Sample, SteadyWriter};

/// The link the data is loaded over (fast: the load is not measured).
const LOADING: &str = "rtt=100us,bandwidth=10gbit,queue=16mb";
/// The profiles: name and link.
const PROFILES: [(&str, &str); 4] = [
    ("lan", "rtt=500us,bandwidth=1gbit,queue=1mb"),
    ("region", "rtt=10ms,bandwidth=200mbit,queue=4mb"),
    ("cross-region", "rtt=60ms,bandwidth=50mbit,queue=4mb"),
    // The leader's traffic to every peer through one queue: its uplink, as
    // in a namespace whose loopback is shaped.
    (
        "cross-region-uplink",
        "rtt=60ms,bandwidth=50mbit,queue=4mb,shared=uplink",
    ),
];
/// The writer's pace.
const PACE: Duration = Duration::from_millis(20);
/// How long the cluster runs on the profile's link before the writer starts.
const SETTLE: Duration = Duration::from_secs(11);
/// How long the writer runs before the learner is added.
const BEFORE: Duration = Duration::from_secs(5);

/// One catch-up.
struct Outcome {
    server: &'static str,
    seconds: f64,
    floor: f64,
    before: Latency,
    during: Latency,
    failed: usize,
    leader_changes: u64,
    to_voters_p99_ms: f64,
    to_learner_p99_ms: f64,
}

/// p50, p99 and worst of a writer's puts, ms.
#[derive(Default)]
struct Latency {
    p50: f64,
    p99: f64,
    worst: f64,
}

impl Latency {
    fn of(samples: &[&Sample]) -> Latency {
        let mut ms: Vec<f64> = samples.iter().map(|s| s.ms).collect();
        Latency {
            p50: util::percentile(&mut ms, 0.5).unwrap_or(0.0),
            p99: util::percentile(&mut ms, 0.99).unwrap_or(0.0),
            worst: util::percentile(&mut ms, 1.0).unwrap_or(0.0),
        }
    }
}

/// memberctl against `endpoints`, JSON out; panics when it fails.
fn ctl(endpoints: &str, args: &[&str]) -> Value {
    let mut all = vec![
        "--endpoints",
        endpoints,
        "--command-timeout",
        "30s",
        "-w",
        "json",
    ];
    all.extend_from_slice(args);
    let r = util::memberctl(&all);
    assert_eq!(r.code, 0, "memberctl {args:?}: {}{}", r.stdout, r.stderr);
    r.json()
}

/// The leader's name and client URL, and the highest raft term any member reports.
fn leader(c: &util::Etcd) -> (String, String, u64) {
    let s = ctl(&c.endpoints(), &["member", "status"]);
    let id = s["leader"].as_str().expect("a leader").to_string();
    let members = s["members"].as_array().unwrap();
    let term = members
        .iter()
        .filter_map(|m| m["raft_term"].as_u64())
        .max()
        .unwrap_or(0);
    let l = members.iter().find(|m| m["id"] == id.as_str()).unwrap();
    (
        l["name"].as_str().unwrap().to_string(),
        l["client_urls"][0].as_str().unwrap().to_string(),
        term,
    )
}

/// p99 of the delays of every direction from `from` to one of `to`, ms.
fn p99_ms(
    delays: &std::collections::HashMap<(String, String), Vec<Duration>>,
    from: &str,
    to: &[&str],
) -> f64 {
    let mut all: Vec<f64> = delays
        .iter()
        .filter(|((f, t), _)| f == from && to.contains(&t.as_str()))
        .flat_map(|(_, d)| d.iter().map(|d| d.as_secs_f64() * 1000.0))
        .collect();
    util::percentile(&mut all, 0.99).unwrap_or(0.0)
}

fn catch_up(
    server: &'static str,
    bin: std::path::PathBuf,
    prefix: Vec<&'static str>,
    link: LinkSpec,
    keys: usize,
    rt: &tokio::runtime::Runtime,
) -> Outcome {
    let mut loading = LinkSpec::parse(LOADING).unwrap();
    // Sharing is taken when a connection opens: the same from the start.
    loading.uplink = link.uplink;
    let links = Arc::new(Links::new(loading));
    let mut c = util::Etcd::start_linked(
        bin,
        prefix,
        3,
        vec!["--snapshot-count", "10000"],
        links.clone(),
    );
    let (_, url, _) = leader(&c);
    let load_s = rt.block_on(common::load(&url, keys));
    eprintln!("{server}: loaded {keys} keys in {load_s:.1}s");
    links.set_spec(link);
    // Settle on the new link: what the load left in flight drains, and the
    // round trips the servers measured on the fast link age out (the
    // engine's pacing takes the lowest of the last 10 s as the link's own).
    std::thread::sleep(SETTLE);
    let (leader_name, leader_url, term_before) = leader(&c);
    let writer = SteadyWriter::start(vec![leader_url.clone()], "writer/", PACE);
    std::thread::sleep(BEFORE);
    let peer_port = util::free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let added = ctl(
        &leader_url,
        &[
            "member",
            "add",
            "learner",
            "--learner",
            "--peer-urls",
            &peer,
        ],
    );
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    links.take_delays();
    let start = Instant::now();
    c.start_added("learner", peer_port, &initial);
    ctl(
        &leader_url,
        &[
            "member",
            "promote",
            &id,
            "--timeout",
            "10m",
            "--poll-interval",
            "100ms",
        ],
    );
    let end = Instant::now();
    let delays = links.take_delays();
    let written = writer.finish();
    let (_, _, term_after) = leader(&c);
    let voters: Vec<&str> = ["m1", "m2", "m3"]
        .into_iter()
        .filter(|m| *m != leader_name)
        .collect();
    let before: Vec<&Sample> = written.samples.iter().filter(|s| s.start < start).collect();
    let during: Vec<&Sample> = written
        .samples
        .iter()
        .filter(|s| s.start >= start && s.start < end)
        .collect();
    let data_bits = (keys * common::VALUE_SIZE) as f64 * 8.0;
    let out = Outcome {
        server,
        seconds: (end - start).as_secs_f64(),
        floor: data_bits / link.bandwidth_bits as f64,
        before: Latency::of(&before),
        during: Latency::of(&during),
        failed: during.iter().filter(|s| !s.ok).count(),
        leader_changes: term_after.saturating_sub(term_before),
        to_voters_p99_ms: p99_ms(&delays, &leader_name, &voters),
        to_learner_p99_ms: p99_ms(&delays, &leader_name, &["learner"]),
    };
    eprintln!(
        "{server}: caught up in {:.2}s (floor {:.2}s); writer p99 {:.1} → {:.1} ms, worst {:.1} → {:.1} ms; {} leader changes",
        out.seconds, out.floor, out.before.p99, out.during.p99, out.before.worst, out.during.worst, out.leader_changes
    );
    drop(c);
    drop(links);
    out
}

/// The names in `var` (comma-separated), or every one of `all`.
fn chosen(var: &str, name: &str) -> bool {
    std::env::var(var).map_or(true, |v| v.split(',').any(|p| p.trim() == name))
}

fn main() {
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rounds = common::rounds(1);
    let rt = common::runtime();
    let memberctl_bin = std::path::PathBuf::from(util::bin());
    let etcd = util::etcd::etcd_binary();
    let mut report = format!(
        "### Learner catch-up over a link, {keys} keys × 1 KiB, engine vs etcd 3.4, every member pair behind the same link model; a put every {} ms through the leader; learner started → promoted\n\n",
        PACE.as_millis()
    );
    for round in 1..=rounds {
        report.push_str(&format!(
            "\nRound {round}\n\n| profile | server | catch-up | ÷ link floor | ÷ etcd's | writer p50 / p99 / worst before | during | failed puts | leader changes | small msgs leader → voters p99 | → learner p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        ));
        for (name, spec) in PROFILES {
            if !chosen("MEMBERCTL_BENCH_PROFILES", name) {
                continue;
            }
            let link = LinkSpec::parse(spec).unwrap();
            let mut outs = Vec::new();
            if chosen("MEMBERCTL_BENCH_SERVERS", "engine") {
                outs.push(catch_up(
                    "engine",
                    memberctl_bin.clone(),
                    vec!["node", "run"],
                    link,
                    keys,
                    &rt,
                ));
            }
            if chosen("MEMBERCTL_BENCH_SERVERS", "etcd") {
                match &etcd {
                    Some(bin) => outs.push(catch_up("etcd 3.4", bin.clone(), vec![], link, keys, &rt)),
                    None => report.push_str(&format!(
                        "| {name} ({link}) | etcd 3.4 | skipped: etcd not installed | | | | | | | | |\n"
                    )),
                }
            }
            let etcd_s = outs
                .iter()
                .find(|o| o.server.starts_with("etcd"))
                .map(|o| o.seconds);
            for o in &outs {
                let vs = match etcd_s {
                    Some(e) if !o.server.starts_with("etcd") => format!("{:.2}", o.seconds / e),
                    _ => String::new(),
                };
                let lat = |l: &Latency| format!("{:.1} / {:.1} / {:.1} ms", l.p50, l.p99, l.worst);
                report.push_str(&format!(
                    "| {name} ({link}) | {} | {:.2} s | {:.2} | {vs} | {} | {} | {} | {} | {:.1} ms | {:.1} ms |\n",
                    o.server,
                    o.seconds,
                    o.seconds / o.floor,
                    lat(&o.before),
                    lat(&o.during),
                    o.failed,
                    o.leader_changes,
                    o.to_voters_p99_ms,
                    o.to_learner_p99_ms,
                ));
            }
            eprintln!("{report}");
        }
    }
    report.push_str("\nTargets (medians of 3 rounds, every profile): 0 leader changes; writer p99 during ≤ 2 × before and worst ≤ etcd's; catch-up ≤ etcd's and ≤ 1.4 × the link floor.\n");
    println!("{report}");
    common::publish("catch-up-link", &report);
}
