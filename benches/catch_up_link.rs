//! Learner catch-up over a link: the same change on the engine and on etcd 3.6, 3.7 and 3.4, every member pair behind the same link model — LAN (1 Gbit/s, 0.5 ms), region (200 Mbit/s, 10 ms), cross-region (50 Mbit/s, 60 ms, 4 MB queue) — or, to judge the model, behind the kernel's `tbf` on a namespace's loopback and the model set as that shaper.
//!
//! Per server and profile: three members with `--snapshot-count 10000` are
//! loaded with N × 1 KiB keys (default 100k ≈ 100 MB) on a fast link, then
//! the profile's link is set and runs 11 s; a writer puts through the leader every 20 ms;
//! after 5 s a learner is added, started (from the settings `member add`
//! printed) and promoted by `memberctl member promote`, which waits until it
//! has caught up. Reported: catch-up time (learner started → promoted) and
//! its ratio to the link floor (data ÷ bandwidth); the
//! writer's p50/p99/worst before and during the catch-up; leader changes
//! (the raft term's rise); and, as the link saw them, the delay of small
//! messages (≤ 1 KiB: heartbeats, votes, acks) from the leader to the
//! voters and to the learner, p99 during the catch-up — a heartbeat's round
//! trip is that and the way back; under the kernel's shaper instead, the
//! qdisc's backlog (p50 / max, sampled every 100 ms), its drops, and what a
//! small packet really waits in it (half a UDP probe's round trip, every
//! 10 ms, p50 / p99). Then
//! engine ÷ each etcd per profile.
//!
//! The `kernel-tbf` profile and its model twins (`model-tbf`,
//! `model-tbf-uplink`) run the whole bench in a network namespace of its
//! own (`unshare -rn`; loopback MTU 1500): there everything — every member
//! pair, both ways, and the writer's requests — crosses the one shaped
//! loopback; under `kernel-tbf-peers` only the members' traffic does (an
//! `htb` class with tbf's rate and queue; the clients' ports pass
//! unshaped), as through the model. `MEMBERCTL_BENCH_KEYS`, `MEMBERCTL_BENCH_ROUNDS` (default 1),
//! `MEMBERCTL_BENCH_PROFILES` (default lan, region, cross-region,
//! cross-region-uplink; or any of kernel-tbf, kernel-tbf-peers,
//! kernel-unshaped, model-tbf, model-tbf-uplink, model-tbf-uplink-short,
//! model-tbf-fair, model-tbf-all-bbr, model-tbf-all-cubic,
//! model-tbf-all-segments)
//! and `MEMBERCTL_BENCH_SERVERS` (default engine, 3.6, 3.7, 3.4) choose what
//! runs; `MEMBERCTL_BENCH_CC` sets TCP's congestion control in the
//! namespace (e.g. `reno`: how full a bulk sender keeps the queue depends on
//! it); `MEMBERCTL_BENCH_QUICKACK` (set) turns delayed ACKs off on the
//! namespace's loopback routes; `MEMBERCTL_BENCH_GSO=off` makes its
//! loopback send one segment per packet, as a link between hosts carries
//! them (by default TCP hands it up to 64 KiB at once, and TCP's small-queue
//! limit of two such packets per socket keeps 134 KiB standing in the
//! shaper under CUBIC); `MEMBERCTL_BENCH_TRACE_MS=N` prints every
//! put slower than N ms with its time from the learner's start;
//! `MEMBERCTL_BENCH_SS` (set) prints the TCP state of the connection that
//! carries the catch-up (`ss -tin`, sampled) beside what the shaped class
//! carried, and what every connection sent meanwhile, by port;
//! `MEMBERCTL_BENCH_DISK` (set) prints how each member's WAL fsyncs,
//! backend commits and peer round trips were spread during the catch-up
//! (their histograms' buckets, read from `/metrics` before and after);
//! `MEMBERCTL_BENCH_POLL` sets `member promote --poll-interval` (default
//! 100ms). Every
//! member's client port, the learner's too, is left unshaped under
//! `kernel-*-peers`. Prints a
//! Markdown table (also target/bench-report-catch-up-link.md).

use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use common::shaper::{self, Backlog, QueueProbe, Tbf};
use common::sockets::SocketSampler;
use memberctl::link::{LinkSpec, Links};
use serde_json::Value;
use util::writer::{Sample, SteadyWriter};

/// The link the data is loaded over (fast: the load is not measured).
const LOADING: &str = "rtt=100us,bandwidth=10gbit,queue=16mb";
/// A profile's link: the link model's, or the kernel's shaper on the
/// namespace's loopback (the model then only forwards, on [`LOADING`]).
#[derive(Clone, Copy)]
enum Link {
    Model(&'static str),
    Kernel(Tbf),
    /// The kernel's shaper on the members' traffic only (the clients'
    /// requests pass unshaped, as through the model).
    KernelPeers(Tbf),
}

/// The kernel's shaper of issue 55's measurement: 50 Mbit/s, a 64 KiB
/// bucket, a 4 MiB queue.
const TBF: Tbf = Tbf {
    rate_bits: 50_000_000,
    burst_bytes: 64 * 1024,
    limit_bytes: 4 * 1024 * 1024,
};

/// The profiles: name and link; the first four by default.
const PROFILES: [(&str, Link); 14] = [
    ("lan", Link::Model("rtt=500us,bandwidth=1gbit,queue=1mb")),
    (
        "region",
        Link::Model("rtt=10ms,bandwidth=200mbit,queue=4mb"),
    ),
    (
        "cross-region",
        Link::Model("rtt=60ms,bandwidth=50mbit,queue=4mb"),
    ),
    // The leader's traffic to every peer through one queue: its uplink, as
    // in a namespace whose loopback is shaped.
    (
        "cross-region-uplink",
        Link::Model("rtt=60ms,bandwidth=50mbit,queue=4mb,shared=uplink"),
    ),
    // The kernel's shaper, and the model set as it: loopback's round trip,
    // its rate and queue, per pair or the sender's uplink.
    ("kernel-tbf", Link::Kernel(TBF)),
    // The same shaper on the members' traffic alone, as the model shapes it.
    ("kernel-tbf-peers", Link::KernelPeers(TBF)),
    // The same namespace with a shaper too fast to queue (10 Gbit/s): what
    // the namespace's loopback does to the writers without a slow link.
    (
        "kernel-unshaped",
        Link::Kernel(Tbf {
            rate_bits: 10_000_000_000,
            burst_bytes: 16 << 20,
            limit_bytes: 16 << 20,
        }),
    ),
    (
        "model-tbf",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb"),
    ),
    (
        "model-tbf-uplink",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb,shared=uplink"),
    ),
    // The same with the queue the kernel's sending host keeps (its qdisc's
    // backlog under tbf was at most 150–330 KiB: TCP's small-queue limit
    // holds each socket's bytes back rather than let the 4 MiB fill).
    (
        "model-tbf-uplink-short",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=256kb,shared=uplink"),
    ),
    // The sending host itself: its uplink's 4 MiB queue, connections taking
    // turns at it (each holding 1 ms of the rate, as TCP's small queues let
    // a socket hold of the qdisc under BBR).
    (
        "model-tbf-fair",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb,shared=uplink,per-connection=6250b"),
    ),
    // The namespace's loopback as it is: one queue for every member's
    // traffic both ways, each connection holding what it held of the qdisc
    // under BBR (1 ms of the rate) and under CUBIC (134–137 KiB, measured).
    (
        "model-tbf-all-bbr",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb,shared=all,per-connection=6250b"),
    ),
    (
        "model-tbf-all-cubic",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb,shared=all,per-connection=136kb"),
    ),
    // The same loopback sending one segment per packet
    // (`MEMBERCTL_BENCH_GSO=off`): under CUBIC the qdisc held 11–14 KiB.
    (
        "model-tbf-all-segments",
        Link::Model("rtt=100us,bandwidth=50mbit,queue=4mb,shared=all,per-connection=11kb"),
    ),
];
/// The profiles run unless `MEMBERCTL_BENCH_PROFILES` names others.
const DEFAULT_PROFILES: &str = "lan,region,cross-region,cross-region-uplink";
/// The servers beside the engine: the releases people run now (3.6, 3.7:
/// the pinned binaries) and Debian's 3.4.
const DEFAULT_SERVERS: &str = "engine,3.6,3.7,3.4";
/// The writer's pace.
const PACE: Duration = Duration::from_millis(20);
/// How long the cluster runs on the profile's link before the writer starts.
const SETTLE: Duration = Duration::from_secs(11);
/// How long the writer runs before the learner is added.
const BEFORE: Duration = Duration::from_secs(5);

/// One catch-up.
struct Outcome {
    server: String,
    seconds: f64,
    floor: f64,
    before: Latency,
    during: Latency,
    failed: usize,
    leader_changes: u64,
    to_voters_p99_ms: f64,
    to_learner_p99_ms: f64,
    /// Under the kernel's shaper: the qdisc's backlog (p50, max, bytes) and drops.
    qdisc: Option<(f64, f64, u64)>,
    /// Under the kernel's shaper: a small packet's crossing of its queue
    /// (half a UDP probe's round trip), p50 and p99, ms.
    crossing: Option<(f64, f64)>,
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

/// Loads `keys` keys through the leader of `c`.
fn load(c: &util::Etcd, server: &Server, keys: usize, rt: &tokio::runtime::Runtime) {
    let (_, url, _) = leader(c);
    let load_s = rt.block_on(common::load(&url, keys));
    eprintln!("{}: loaded {keys} keys in {load_s:.1}s", server.label);
}

/// One server to run: its label, binary and the arguments before the flags.
struct Server {
    label: String,
    bin: std::path::PathBuf,
    prefix: Vec<&'static str>,
}

fn catch_up(server: &Server, link: Link, keys: usize, rt: &tokio::runtime::Runtime) -> Outcome {
    let flags = vec!["--snapshot-count", "10000"];
    // The kernel's shaper alone: no model in the path (the members talk to
    // each other directly over the shaped loopback).
    let (mut c, links, bandwidth_bits) = match link {
        Link::Model(spec) => {
            let model = LinkSpec::parse(spec).unwrap();
            let mut loading = LinkSpec::parse(LOADING).unwrap();
            // Sharing is taken when a connection opens: the same from the start.
            loading.shared = model.shared;
            let links = Arc::new(Links::new(loading));
            let c = util::Etcd::start_linked(
                server.bin.clone(),
                server.prefix.clone(),
                3,
                flags,
                links.clone(),
            );
            load(&c, server, keys, rt);
            links.set_spec(model);
            (c, Some(links), model.bandwidth_bits as f64)
        }
        Link::Kernel(tbf) | Link::KernelPeers(tbf) => {
            let c = util::Etcd::start_direct(server.bin.clone(), server.prefix.clone(), 3, flags);
            load(&c, server, keys, rt);
            if matches!(link, Link::KernelPeers(_)) {
                let ports: Vec<u16> = c
                    .endpoints()
                    .split(',')
                    .filter_map(|u| u.rsplit(':').next()?.parse().ok())
                    .collect();
                assert_eq!(ports.len(), 3, "client ports of {}", c.endpoints());
                shaper::shape_peers(tbf, &ports);
            } else {
                shaper::shape(tbf);
            }
            (c, None, tbf.rate_bits as f64)
        }
    };
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
    if let Some(l) = &links {
        l.take_delays();
    }
    let kernel = matches!(link, Link::Kernel(_) | Link::KernelPeers(_));
    let backlog = kernel.then(Backlog::start);
    let probe = kernel.then(QueueProbe::start).flatten();
    let sockets = std::env::var_os("MEMBERCTL_BENCH_SS").map(|_| SocketSampler::start(peer_port));
    // The new member's clients (memberctl polling its catch-up) go
    // unshaped, as every other member's.
    let learner_client_port = util::free_port();
    if matches!(link, Link::KernelPeers(_)) {
        shaper::exempt(learner_client_port);
    }
    let disk = std::env::var_os("MEMBERCTL_BENCH_DISK").map(|_| member_histograms(&c));
    let poll = std::env::var("MEMBERCTL_BENCH_POLL").unwrap_or_else(|_| "100ms".into());
    let start = Instant::now();
    c.start_added_at("learner", peer_port, learner_client_port, &initial);
    ctl(
        &leader_url,
        &[
            "member",
            "promote",
            &id,
            "--timeout",
            "10m",
            "--poll-interval",
            &poll,
        ],
    );
    let end = Instant::now();
    if let Some(before) = disk {
        for (name, after) in member_histograms(&c) {
            let was = before
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, h)| h.clone());
            let delta: Vec<(String, f64)> = after
                .iter()
                .map(|(le, n)| {
                    let old = was
                        .as_ref()
                        .and_then(|w| w.iter().find(|(l, _)| l == le))
                        .map_or(0.0, |(_, v)| *v);
                    (le.clone(), n - old)
                })
                .collect();
            let text: Vec<String> = delta.iter().map(|(le, n)| format!("≤{le}: {n}")).collect();
            eprintln!("disk {} {name}: {}", server.label, text.join(", "));
        }
    }
    let qdisc = backlog.map(|b| {
        let (samples, drops) = b.stop();
        let mut kb: Vec<f64> = samples.iter().map(|b| *b as f64).collect();
        let p50 = util::percentile(&mut kb, 0.5).unwrap_or(0.0);
        let max = util::percentile(&mut kb, 1.0).unwrap_or(0.0);
        (p50, max, drops)
    });
    if let Some(s) = sockets {
        for l in s.stop() {
            eprintln!("ss {}: {l}", server.label);
        }
        for m in &c.members {
            eprintln!(
                "ss {}: {} client port {}, peer port {}",
                server.label, m.name, m.client_port, m.peer_port
            );
        }
        for l in c
            .log(&leader_name)
            .lines()
            .filter(|l| l.contains("snapshot to"))
        {
            eprintln!("ss {} leader: {l}", server.label);
        }
    }
    let crossing = probe.map(|p| {
        let mut ms: Vec<f64> = p.stop().iter().map(|d| d.as_secs_f64() * 500.0).collect();
        (
            util::percentile(&mut ms, 0.5).unwrap_or(0.0),
            util::percentile(&mut ms, 0.99).unwrap_or(0.0),
        )
    });
    let delays = links.as_ref().map(|l| l.take_delays()).unwrap_or_default();
    let written = writer.finish();
    let (_, _, term_after) = leader(&c);
    if kernel {
        shaper::unshape();
    }
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
    if let Some(slow) = std::env::var("MEMBERCTL_BENCH_TRACE_MS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
    {
        let at = |t: Instant| {
            if t >= start {
                (t - start).as_secs_f64() * 1000.0
            } else {
                -((start - t).as_secs_f64() * 1000.0)
            }
        };
        eprintln!(
            "trace {}: learner started at 0 ms, promoted at {:.0} ms",
            server.label,
            at(end)
        );
        for s in written.samples.iter().filter(|s| s.ms >= slow) {
            eprintln!(
                "trace {}: put at {:.0} ms took {:.1} ms",
                server.label,
                at(s.start),
                s.ms
            );
        }
    }
    let data_bits = (keys * common::VALUE_SIZE) as f64 * 8.0;
    let out = Outcome {
        server: server.label.clone(),
        seconds: (end - start).as_secs_f64(),
        floor: data_bits / bandwidth_bits,
        before: Latency::of(&before),
        during: Latency::of(&during),
        failed: during.iter().filter(|s| !s.ok).count(),
        leader_changes: term_after.saturating_sub(term_before),
        to_voters_p99_ms: p99_ms(&delays, &leader_name, &voters),
        to_learner_p99_ms: p99_ms(&delays, &leader_name, &["learner"]),
        qdisc,
        crossing,
    };
    eprintln!(
        "{}: caught up in {:.2}s (floor {:.2}s); writer p99 {:.1} → {:.1} ms, worst {:.1} → {:.1} ms; {} leader changes",
        out.server, out.seconds, out.floor, out.before.p99, out.during.p99, out.before.worst, out.during.worst, out.leader_changes
    );
    drop(c);
    drop(links);
    out
}

/// Each member's WAL fsync, backend commit and peer round-trip histograms
/// (cumulative bucket counts by upper bound, per labelled series), read from
/// its `/metrics`.
fn member_histograms(c: &util::Etcd) -> Vec<(String, Vec<(String, f64)>)> {
    let mut out: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    for m in &c.members {
        let Ok(answer) = util::http::try_get(&m.client_url(), "/metrics") else {
            continue;
        };
        for series in [
            "etcd_disk_wal_fsync_duration_seconds_bucket",
            "etcd_disk_backend_commit_duration_seconds_bucket",
            "etcd_network_peer_round_trip_time_seconds_bucket",
        ] {
            for l in answer.body.lines().filter(|l| l.starts_with(series)) {
                let Some(labels) = l.split('{').nth(1).and_then(|r| r.split('}').next()) else {
                    continue;
                };
                let le = labels
                    .split(',')
                    .find_map(|kv| kv.strip_prefix("le="))
                    .unwrap_or("")
                    .trim_matches('"')
                    .to_string();
                let rest: Vec<&str> = labels
                    .split(',')
                    .filter(|kv| !kv.starts_with("le="))
                    .collect();
                let Some(n) = l.rsplit(' ').next().and_then(|v| v.parse().ok()) else {
                    continue;
                };
                let key = format!(
                    "{} {} {}",
                    m.name,
                    &series[5..series.len() - 7],
                    rest.join(",")
                );
                match out.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, b)) => b.push((le, n)),
                    None => out.push((key, vec![(le, n)])),
                }
            }
        }
    }
    out
}

/// The servers named in `MEMBERCTL_BENCH_SERVERS`: the engine, or an etcd
/// minor version; a missing etcd is reported and skipped.
fn servers(report: &mut String) -> Vec<Server> {
    let mut out = Vec::new();
    for name in common::list("MEMBERCTL_BENCH_SERVERS", DEFAULT_SERVERS) {
        if name == "engine" {
            out.push(Server {
                label: "engine".into(),
                bin: std::path::PathBuf::from(util::bin()),
                prefix: vec!["node", "run"],
            });
            continue;
        }
        match util::versions::find(&name) {
            Ok(bin) => out.push(Server {
                label: format!("etcd {name}"),
                bin,
                prefix: vec![],
            }),
            Err(why) => report.push_str(&format!("etcd {name} skipped: {why}\n\n")),
        }
    }
    out
}

fn main() {
    let profiles = common::list("MEMBERCTL_BENCH_PROFILES", DEFAULT_PROFILES);
    let in_netns = profiles.iter().any(|p| p.contains("tbf"));
    if in_netns {
        if let Err(why) = shaper::enter_netns() {
            println!("catch_up_link: skipped, {why}");
            return;
        }
    }
    let keys: usize = std::env::var("MEMBERCTL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rounds = common::rounds(1);
    let rt = common::runtime();
    let mut report = format!(
        "### Learner catch-up over a link, {keys} keys × 1 KiB, the engine and etcd, every member pair behind the same link{}; a put every {} ms through the leader; learner started → promoted\n\n",
        if in_netns {
            format!(
                " (in a network namespace of its own, loopback MTU 1500, {}, TCP congestion control {})",
                shaper::segmentation(),
                shaper::congestion_control()
            )
        } else {
            String::new()
        },
        PACE.as_millis()
    );
    let servers = servers(&mut report);
    let mut ratios = String::new();
    for round in 1..=rounds {
        report.push_str(&format!(
            "\nRound {round}\n\n| profile | server | catch-up | ÷ link floor | writer p50 / p99 / worst before | during | failed puts | leader changes | small msgs leader → voters p99 | → learner p99 | qdisc backlog p50 / max, drops |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        ));
        for (name, link) in PROFILES {
            if !profiles.iter().any(|p| p == name) {
                continue;
            }
            let shown = match link {
                Link::Model(spec) => spec.to_string(),
                Link::Kernel(tbf) => format!("kernel {tbf}"),
                Link::KernelPeers(tbf) => format!("kernel {tbf}, members' traffic only (htb)"),
            };
            let outs: Vec<Outcome> = servers
                .iter()
                .map(|s| catch_up(s, link, keys, &rt))
                .collect();
            for o in &outs {
                let lat = |l: &Latency| format!("{:.1} / {:.1} / {:.1} ms", l.p50, l.p99, l.worst);
                let (voters, learner, qdisc) = match o.qdisc {
                    Some((p50, max, drops)) => (
                        "—".to_string(),
                        "—".to_string(),
                        format!(
                            "{:.0} / {:.0} KiB, {drops}; a small packet's crossing p50 / p99 {}",
                            p50 / 1024.0,
                            max / 1024.0,
                            o.crossing.map_or("—".into(), |(p50, p99)| format!(
                                "{p50:.1} / {p99:.1} ms"
                            ))
                        ),
                    ),
                    None => (
                        format!("{:.1} ms", o.to_voters_p99_ms),
                        format!("{:.1} ms", o.to_learner_p99_ms),
                        "—".to_string(),
                    ),
                };
                report.push_str(&format!(
                    "| {name} ({shown}) | {} | {:.2} s | {:.2} | {} | {} | {} | {} | {voters} | {learner} | {qdisc} |\n",
                    o.server,
                    o.seconds,
                    o.seconds / o.floor,
                    lat(&o.before),
                    lat(&o.during),
                    o.failed,
                    o.leader_changes,
                ));
            }
            if let Some(engine) = outs.iter().find(|o| o.server == "engine") {
                for e in outs.iter().filter(|o| o.server != "engine") {
                    ratios.push_str(&format!(
                        "round {round}, {name}: engine ÷ {}: catch-up {:.2}, writer p99 during {:.2}, worst during {:.2}\n",
                        e.server,
                        engine.seconds / e.seconds,
                        engine.during.p99 / e.during.p99,
                        engine.during.worst / e.during.worst,
                    ));
                }
            }
            eprintln!("{report}\n{ratios}");
        }
    }
    report.push_str(&format!("\n{ratios}"));
    report.push_str("\nTargets (medians of 3 rounds, every profile): 0 leader changes; writer p99 during ≤ 2 × before and worst ≤ etcd's; catch-up ≤ etcd's and ≤ 1.4 × the link floor. The model's twins of kernel-tbf within ±20 % of it on catch-up and writer p99 / worst.\n");
    println!("{report}");
    common::publish("catch-up-link", &report);
}
