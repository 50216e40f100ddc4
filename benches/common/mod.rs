//! Helpers shared by the benchmarks: run the built binary, connect a KV client.

#![allow(dead_code)]

pub mod shaper;
pub mod sockets;

use std::path::Path;
use std::process::{Command, Stdio};

use std::time::Instant;

use memberctl::proto::etcdserverpb::kv_client::KvClient;
use memberctl::proto::etcdserverpb::PutRequest;
use serde_json::Value;

/// The built memberctl with `args`, on the local cluster in `dir` (no
/// endpoint from the environment), its stdin closed. `MEMBERCTL_BENCH_BIN`
/// names another memberctl binary (an earlier build, to compare with).
pub fn memberctl_command(dir: &Path, args: &[&str]) -> Command {
    let bin = std::env::var_os("MEMBERCTL_BENCH_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_memberctl").into());
    let mut c = Command::new(bin);
    c.args(args)
        .env("MEMBERCTL_CLUSTER_DIR", dir)
        .env_remove("MEMBERCTL_ENDPOINTS")
        .env_remove("ETCDCTL_ENDPOINTS")
        .stdin(Stdio::null());
    c
}

/// Runs the built memberctl with the local cluster in `dir`; its JSON output.
pub fn memberctl(dir: &Path, args: &[&str]) -> Value {
    let out = memberctl_command(dir, args)
        .args(["-w", "json"])
        .stderr(Stdio::inherit())
        .output()
        .expect("run memberctl");
    assert!(
        out.status.success(),
        "memberctl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// A runtime with two workers, as the benches use.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `cluster up` in `dir`: the cluster's client URLs.
pub fn cluster_up(dir: &Path) -> Vec<String> {
    let up = memberctl(dir, &["cluster", "up"]);
    up["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect()
}

/// How a table names a server: `engine`, or `etcd 3.6` for a minor version.
pub fn label(server: &str) -> String {
    if server == "engine" {
        "engine".into()
    } else {
        format!("etcd {server}")
    }
}

/// A fresh cluster of three members of a server, stopped when dropped.
pub struct Three {
    /// The client URLs, comma-separated.
    pub endpoints: String,
    /// The members' process IDs.
    pub pids: Vec<u32>,
    /// The engine's cluster: its folder (taken down on drop).
    engine: Option<(tempfile::TempDir, std::path::PathBuf)>,
    /// An etcd cluster (stopped on drop).
    _etcd: Option<crate::util::Etcd>,
}

impl Three {
    /// Three members of `server`: `engine` (`cluster up`) or an etcd minor
    /// version (the pinned or Debian's binary, etcd's default timing, with
    /// `etcd_flags`); the reason when that etcd is not available.
    pub fn up(server: &str, etcd_flags: Vec<&'static str>) -> Result<Three, String> {
        if server == "engine" {
            let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
            let dir = tmp.path().join("cluster");
            let endpoints = cluster_up(&dir).join(",");
            let state: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("cluster.json")).unwrap())
                    .unwrap();
            let pids = state["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|n| n["pid"].as_u64().map(|p| p as u32))
                .collect();
            return Ok(Three {
                endpoints,
                pids,
                engine: Some((tmp, dir)),
                _etcd: None,
            });
        }
        let bin = crate::util::versions::find(server)?;
        let c = crate::util::Etcd::start_with_flags(bin, 3, etcd_flags);
        Ok(Three {
            endpoints: c.endpoints(),
            pids: (0..3).filter_map(|i| c.pid(i)).collect(),
            engine: None,
            _etcd: Some(c),
        })
    }
}

impl Drop for Three {
    fn drop(&mut self) {
        if let Some((_tmp, dir)) = &self.engine {
            memberctl(dir, &["cluster", "down"]);
        }
    }
}

/// The leader's client URL and another member's, from `member status` on `endpoints`.
pub fn leader_and_follower(endpoints: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_memberctl"))
        .args(["--endpoints", endpoints, "member", "status", "-w", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let leader = v["leader"].as_str().unwrap().to_string();
    let url = |m: &Value| m["client_urls"][0].as_str().unwrap().to_string();
    let members = v["members"].as_array().unwrap();
    let l = members.iter().find(|m| m["id"] == leader.as_str()).unwrap();
    let f = members.iter().find(|m| m["id"] != leader.as_str()).unwrap();
    (url(l), url(f))
}

/// A KV client connected to `url`.
pub async fn client(url: &str) -> KvClient<tonic::transport::Channel> {
    let ch = tonic::transport::Endpoint::from_shared(url.to_string())
        .unwrap()
        .connect()
        .await
        .expect("connect");
    KvClient::new(ch)
}

/// The value size [`load`] writes.
pub const VALUE_SIZE: usize = 1024;

/// Loads `n` keys of [`VALUE_SIZE`] (`bench/00000000` …) with 64 concurrent writers;
/// returns the seconds taken. A put refused while the leader changes
/// ("etcdserver: leader changed", Unavailable) is sent again, at most 20
/// times: loading is not what is measured.
pub async fn load(url: &str, n: usize) -> f64 {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..64 {
        let mut c = client(url).await;
        tasks.push(tokio::spawn(async move {
            let mut i = w;
            while i < n {
                let req = PutRequest {
                    key: format!("bench/{i:08}").into_bytes(),
                    value: vec![b'x'; VALUE_SIZE],
                    ..Default::default()
                };
                let mut tries = 0;
                loop {
                    match c.put(req.clone()).await {
                        Ok(_) => break,
                        Err(s) if s.code() == tonic::Code::Unavailable && tries < 20 => {
                            tries += 1;
                            eprintln!("put {i}: {}; again", s.message());
                            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        }
                        Err(s) => panic!("put {i}: {s}"),
                    }
                }
                i += 64;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed().as_secs_f64()
}

/// Writes this bench's Markdown section to target/bench-report-NAME.md and
/// rebuilds target/bench-report.md from every section present.
pub fn publish(name: &str, section: &str) {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join(format!("bench-report-{name}.md")), section);
    let mut parts: Vec<_> = std::fs::read_dir(&target)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    parts.retain(|p: &std::path::PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("bench-report-") && n.ends_with(".md"))
    });
    parts.sort();
    let all: Vec<String> = parts
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let _ = std::fs::write(target.join("bench-report.md"), all.join("\n"));
}

/// A memory figure of `/proc/PID/status` (`VmRSS`, `VmHWM`, …) in MiB; 0
/// when the process or the field is gone.
pub fn status_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The names in the environment variable `var` (comma-separated), or in
/// `default`.
pub fn list(var: &str, default: &str) -> Vec<String> {
    std::env::var(var)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// How many rounds to run: `MEMBERCTL_BENCH_ROUNDS`, else `default` (at least 1).
pub fn rounds(default: usize) -> usize {
    std::env::var("MEMBERCTL_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// The median of `v` (sorted in place); 0 when empty.
pub fn median(v: &mut [f64]) -> f64 {
    crate::util::percentile(v, 0.5).unwrap_or(0.0)
}

/// (puts, failed, p99 ms, worst ms) of the samples issued inside `windows`.
pub fn window_stats(
    samples: &[crate::util::writer::Sample],
    windows: &[(std::time::Instant, std::time::Instant)],
) -> (usize, usize, f64, f64) {
    let inside: Vec<&crate::util::writer::Sample> = samples
        .iter()
        .filter(|s| windows.iter().any(|(a, b)| s.start >= *a && s.start < *b))
        .collect();
    let failed = inside.iter().filter(|s| !s.ok).count();
    let mut l: Vec<f64> = inside.iter().map(|s| s.ms).collect();
    let max = crate::util::percentile(&mut l, 1.0).unwrap_or(0.0);
    let p99 = crate::util::percentile(&mut l, 0.99).unwrap_or(max);
    (l.len(), failed, p99, max)
}
