//! One learner's catch-up over the link model, measured against the `catch-up` check's prediction: the tests' and the bench's shared flow.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use memberctl::link::{LinkSpec, Links};
use serde_json::Value;

use super::writer::load;
use super::{check_named, free_port, memberctl, versions};

/// The link the data is loaded over: fast, the load is not measured.
pub const LOADING: &str = "rtt=100us,bandwidth=10gbit,queue=16mb";
/// The link the catch-up crosses in the tests: 40 Mbit/s is 5 MB/s.
pub const SHAPED: &str = "rtt=4ms,bandwidth=40mbit,queue=1mb";

/// A server binary and what runs it.
pub struct Server {
    bin: PathBuf,
    prefix: Vec<&'static str>,
}

pub fn engine() -> Server {
    Server {
        bin: PathBuf::from(super::bin()),
        prefix: vec!["node", "run"],
    }
}

pub fn etcd(version: &str) -> Server {
    Server {
        bin: versions::etcd_server(version),
        prefix: vec![],
    }
}

/// memberctl against `endpoint` with JSON out.
pub fn ctl(endpoint: &str, args: &[&str]) -> super::Run {
    let mut all = vec![
        "--endpoints",
        endpoint,
        "--command-timeout",
        "30s",
        "-w",
        "json",
    ];
    all.extend_from_slice(args);
    memberctl(&all)
}

/// The leader's client URL.
pub fn leader_url(c: &super::Etcd) -> String {
    let s = ctl(&c.endpoints(), &["member", "status"]).expect(0).json();
    let id = s["leader"].as_str().expect("a leader").to_string();
    let members = s["members"].as_array().unwrap();
    let l = members.iter().find(|m| m["id"] == id.as_str()).unwrap();
    l["client_urls"][0].as_str().unwrap().to_string()
}

/// One catch-up, measured.
pub struct Measured {
    /// The catch-up check's figures before the add.
    pub figures: Value,
    /// From the learner's start until `member promote` first found it ready.
    pub seconds: f64,
    /// `member promote`'s document.
    pub promoted: Value,
    /// Its progress lines (`{"catch_up": …}`).
    pub progress: Vec<Value>,
    /// Its other lines on stderr (notices).
    pub notices: Vec<String>,
    /// The keyspace's revision before the add and after the promote.
    pub revisions: (i64, i64),
}

/// The keyspace's revision at `url` (etcdctl's `endpoint status`).
fn revision(url: &str) -> i64 {
    let bin = super::etcd::require_etcdctl();
    let out = super::etcd::etcdctl(&bin, url, &["endpoint", "status", "-w", "json"]).expect(0);
    let doc: Value = serde_json::from_str(&out.stdout).expect("endpoint status is JSON");
    doc[0]["Status"]["header"]["revision"]
        .as_i64()
        .unwrap_or_else(|| panic!("no revision in {doc}"))
}

/// Three members of `server` (with `--snapshot-count` `count`, told to the
/// checks too), loaded with `keys` × `size` bytes on a fast link; then the
/// link is set to `link`, `settle` passes, and a learner is added, started
/// and promoted, the checks given the link's bandwidth.
pub fn catch_up(
    server: Server,
    count: Option<&'static str>,
    keys: usize,
    size: usize,
    link: &str,
    settle: std::time::Duration,
) -> Measured {
    let link = LinkSpec::parse(link).unwrap();
    let bandwidth = format!("{}bit", link.bandwidth_bits);
    let bandwidth = bandwidth.as_str();
    let flags = count.map_or(vec![], |n| vec!["--snapshot-count", n]);
    // etcd does not report its snapshot count: the check is told it.
    let told: Vec<&str> = count.map_or(vec![], |n| vec!["--snapshot-count", n]);
    let links = Arc::new(Links::new(LinkSpec::parse(LOADING).unwrap()));
    let mut c = super::Etcd::start_linked(server.bin, server.prefix, 3, flags, links.clone());
    let url = leader_url(&c);
    load(&url, "data/", keys, size);
    links.set_spec(link);
    // Time on the new link before the change (not synchronisation): the
    // engine's pacing takes the lowest round trip of the last 10 s as the
    // link's own, and the load's were on the fast link.
    std::thread::sleep(settle);
    let mut args = vec![
        "member",
        "check",
        "--for",
        "add",
        "--link-bandwidth",
        bandwidth,
    ];
    args.extend_from_slice(&told);
    let check = ctl(&url, &args).expect(0).json();
    let figures = check_named(&check, "catch-up")["figures"].clone();
    let before = revision(&url);
    let port = free_port();
    let peer = format!("http://127.0.0.1:{port}");
    let mut args = vec![
        "member",
        "add",
        "learner",
        "--learner",
        "--peer-urls",
        &peer,
        "--link-bandwidth",
        bandwidth,
    ];
    args.extend_from_slice(&told);
    let added = ctl(&url, &args).expect(0).json();
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    let start = Instant::now();
    c.start_added("learner", port, &initial);
    let mut args = vec![
        "member",
        "promote",
        &id,
        "--timeout",
        "3m",
        "--poll-interval",
        "100ms",
        "--link-bandwidth",
        bandwidth,
    ];
    args.extend_from_slice(&told);
    let promote = ctl(&url, &args);
    assert_eq!(
        promote.code,
        0,
        "member promote: {}\nthe learner's log (its end; the folder goes with the cluster):\n{}",
        promote.stderr.lines().last().unwrap_or_default(),
        c.log("learner")
    );
    let promoted = promote.json();
    // Caught up: until the first sample that found it ready (the promotion
    // after it, with etcd's retries, is not the catch-up's).
    let ready: f64 = promoted["catch_up"]["phases"]
        .as_array()
        .and_then(|p| p.last())
        .filter(|p| p["phase"] == "ready")
        .and_then(|p| p["seconds"].as_f64())
        .unwrap_or(0.0);
    let seconds = start.elapsed().as_secs_f64() - ready;
    let progress = promote
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("catch_up").is_some())
        .collect();
    let notices = promote
        .stderr
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_err())
        .map(str::to_string)
        .collect();
    Measured {
        figures,
        seconds,
        promoted,
        progress,
        notices,
        revisions: (before, revision(&url)),
    }
}
