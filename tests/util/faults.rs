//! Helpers for the fault tests: each node's own status and the leader's view
//! of a peer, the fault-injection RPC, the local cluster's nodes, kill -9 and
//! restart, and memberctl commands run as children so that a node can be
//! killed while they run.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use memberctl::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use memberctl::proto::etcdserverpb::StatusRequest;
use memberctl::proto::memberctl_v1::fault_client::FaultClient;
use memberctl::proto::memberctl_v1::membership_client::MembershipClient;
use memberctl::proto::memberctl_v1::{FaultPeers, GetProgressRequest, PeerProgress};
use serde_json::Value;

use super::local::{channel, runtime, Local};
use super::{wait_for, wait_for_every, Run};

/// A node's own view (etcd's Maintenance.Status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeStatus {
    pub member_id: u64,
    pub leader: u64,
    pub raft_term: u64,
    pub raft_index: u64,
    pub applied: u64,
    pub is_learner: bool,
}

/// Asks the node at `endpoint` for its status.
pub fn node_status(endpoint: &str) -> Result<NodeStatus, String> {
    runtime().block_on(async {
        let mut c = MaintenanceClient::new(channel(endpoint).await?);
        let r = tokio::time::timeout(Duration::from_secs(2), c.status(StatusRequest {}))
            .await
            .map_err(|_| "status timed out".to_string())?
            .map_err(|s| s.message().to_string())?
            .into_inner();
        Ok(NodeStatus {
            member_id: r.header.map_or(0, |h| h.member_id),
            leader: r.leader,
            raft_term: r.raft_term,
            raft_index: r.raft_index,
            applied: r.raft_applied_index,
            is_learner: r.is_learner,
        })
    })
}

/// Sends Maintenance.MoveLeader(target) to the member at `endpoint`; the
/// server's error text when it refuses.
pub fn move_leader(endpoint: &str, target: u64) -> Result<(), String> {
    runtime().block_on(async {
        let mut c = MaintenanceClient::new(channel(endpoint).await?);
        let req = memberctl::proto::etcdserverpb::MoveLeaderRequest { target_id: target };
        tokio::time::timeout(Duration::from_secs(10), c.move_leader(req))
            .await
            .map_err(|_| "move-leader timed out".to_string())?
            .map(|_| ())
            .map_err(|s| s.message().to_string())
    })
}

/// The member that one of `endpoints` answers as the leader, confirmed by that member itself.
pub fn leader_among(endpoints: &[String]) -> Option<NodeStatus> {
    endpoints
        .iter()
        .filter_map(|ep| node_status(ep).ok())
        .find(|s| s.leader != 0 && s.leader == s.member_id)
}

/// Peer `id`'s replication as the leader sees it (asked through `endpoint`).
pub fn progress_of(endpoint: &str, id: u64) -> Result<PeerProgress, String> {
    runtime().block_on(async {
        let mut c = MembershipClient::new(channel(endpoint).await?);
        let r = tokio::time::timeout(
            Duration::from_secs(2),
            c.get_progress(GetProgressRequest {}),
        )
        .await
        .map_err(|_| "progress timed out".to_string())?
        .map_err(|s| s.message().to_string())?
        .into_inner();
        r.peers
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| format!("the leader reports no progress for {id:016x}"))
    })
}

/// Makes the node at `endpoint` drop raft traffic to and from `peers`.
pub fn isolate(endpoint: &str, peers: &[u64]) -> Vec<u64> {
    fault(endpoint, peers, true)
}

/// Makes the node at `endpoint` deliver raft traffic to and from every peer again.
pub fn heal(endpoint: &str) -> Vec<u64> {
    fault(endpoint, &[], false)
}

/// Makes the raft log's disk of the node at `endpoint` fail (`kind`: 1 fsync
/// fails, 2 the disk is full; 0 heals).
pub fn disk_fault(endpoint: &str, kind: i32) {
    runtime()
        .block_on(async {
            let mut c = FaultClient::new(channel(endpoint).await?);
            c.disk(memberctl::proto::memberctl_v1::DiskFault { kind })
                .await
                .map(|_| ())
                .map_err(|s| s.message().to_string())
        })
        .unwrap_or_else(|e| panic!("disk fault injection at {endpoint}: {e}"))
}

/// Pauses (or resumes) the apply stage of the node at `endpoint`.
pub fn apply_fault(endpoint: &str, paused: bool) {
    runtime()
        .block_on(async {
            let mut c = FaultClient::new(channel(endpoint).await?);
            c.apply(memberctl::proto::memberctl_v1::ApplyFault { paused })
                .await
                .map(|_| ())
                .map_err(|s| s.message().to_string())
        })
        .unwrap_or_else(|e| panic!("apply fault injection at {endpoint}: {e}"))
}

/// Makes the node at `endpoint` wait `delay_ms` before each piece (about
/// 1 MiB) of every snapshot it sends; 0 ends it.
pub fn snapshot_fault(endpoint: &str, delay_ms: u32) {
    runtime()
        .block_on(async {
            let mut c = FaultClient::new(channel(endpoint).await?);
            c.snapshot(memberctl::proto::memberctl_v1::SnapshotFault {
                chunk_delay_ms: delay_ms,
            })
            .await
            .map(|_| ())
            .map_err(|s| s.message().to_string())
        })
        .unwrap_or_else(|e| panic!("snapshot fault injection at {endpoint}: {e}"))
}

fn fault(endpoint: &str, peers: &[u64], isolate: bool) -> Vec<u64> {
    runtime()
        .block_on(async {
            let mut c = FaultClient::new(channel(endpoint).await?);
            let req = FaultPeers {
                peer_ids: peers.to_vec(),
            };
            let r = if isolate {
                c.isolate(req).await
            } else {
                c.heal(req).await
            };
            r.map(|r| r.into_inner().isolated)
                .map_err(|s| s.message().to_string())
        })
        .unwrap_or_else(|e| panic!("fault injection at {endpoint}: {e}"))
}

/// One node of a local cluster as `cluster status` reports it.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub name: String,
    pub id: u64,
    pub client_url: String,
    pub pid: Option<u32>,
}

/// The recorded nodes whose member ID is known, and the leader's ID (0: none).
pub fn nodes(local: &Local) -> (Vec<NodeInfo>, u64) {
    let status = local.status();
    let hex = |v: &Value| u64::from_str_radix(v.as_str().unwrap_or(""), 16).ok();
    let nodes = status["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| {
            Some(NodeInfo {
                name: n["name"].as_str()?.to_string(),
                id: hex(&n["id"])?,
                client_url: n["client_url"].as_str()?.to_string(),
                pid: n["pid"].as_u64().map(|p| p as u32),
            })
        })
        .collect();
    (nodes, hex(&status["leader"]).unwrap_or(0))
}

/// The nodes, once a leader is known: (leader, the others).
pub fn leader_and_others(local: &Local) -> (NodeInfo, Vec<NodeInfo>) {
    wait_for(
        "the local cluster to name a leader",
        Duration::from_secs(20),
        || {
            let (nodes, leader) = nodes(local);
            let l = nodes.iter().find(|n| n.id == leader)?.clone();
            let others = nodes.into_iter().filter(|n| n.id != leader).collect();
            Some((l, others))
        },
    )
}

/// A recorded node's client URL and pid, straight from the state file (no command run).
pub fn recorded(local: &Local, name: &str) -> Option<(String, Option<u32>)> {
    let text = std::fs::read_to_string(local.dir().join("cluster.json")).ok()?;
    let state: Value = serde_json::from_str(&text).ok()?;
    let node = state["nodes"]
        .as_array()?
        .iter()
        .find(|n| n["name"] == name)?
        .clone();
    Some((
        node["client_url"].as_str()?.to_string(),
        node["pid"].as_u64().map(|p| p as u32),
    ))
}

/// Every recorded node with a process: (name, client URL, pid), straight from the state file.
pub fn recorded_pids(local: &Local) -> Vec<(String, String, u32)> {
    let text = std::fs::read_to_string(local.dir().join("cluster.json")).expect("cluster.json");
    let state: Value = serde_json::from_str(&text).expect("cluster.json is JSON");
    state["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter_map(|n| {
            Some((
                n["name"].as_str()?.to_string(),
                n["client_url"].as_str()?.to_string(),
                n["pid"].as_u64()? as u32,
            ))
        })
        .collect()
}

/// Sends SIGKILL to all `pids` at once, then waits until each has exited.
pub fn kill9_all(pids: &[u32]) {
    for pid in pids {
        // SAFETY: sending a signal to a node process this test started.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    wait_for_every(
        "the killed nodes to exit",
        Duration::from_secs(10),
        Duration::from_millis(2),
        || pids.iter().all(|p| exited(*p)).then_some(()),
    );
}

/// Whether process `pid` is gone or a zombie, with every thread of it (as
/// `cluster up` judges it: a killed process whose main thread is a zombie
/// while others are still being torn down counts as running there).
pub fn exited(pid: u32) -> bool {
    let dead = |stat: &str| {
        std::fs::read_to_string(stat)
            .map(|s| {
                let state = s.rsplit(')').next().unwrap_or("").trim_start();
                state.starts_with(['Z', 'X', 'x'])
            })
            .unwrap_or(true)
    };
    match std::fs::read_dir(format!("/proc/{pid}/task")) {
        Ok(tasks) => tasks
            .filter_map(Result::ok)
            .all(|t| dead(&t.path().join("stat").to_string_lossy())),
        Err(_) => true,
    }
}

/// Restarts the stopped nodes of `local` with `cluster up`; panics with the logs when it fails.
pub fn restart(local: &Local) {
    let r = local.ctl(&["cluster", "up", "-w", "json"]);
    assert_eq!(r.code, 0, "cluster up: {}\n{}", r.stderr, local.logs());
}

/// memberctl run as a child process against a local cluster, its output in files.
pub struct Spawned {
    child: Child,
    what: String,
    stdout: PathBuf,
    stderr: PathBuf,
    _dir: tempfile::TempDir,
}

impl Spawned {
    /// Starts memberctl with `args` against the local cluster in `cluster_dir`.
    pub fn start(cluster_dir: &Path, args: &[&str]) -> Spawned {
        let dir = tempfile::tempdir().expect("temp dir");
        let (stdout, stderr) = (dir.path().join("stdout"), dir.path().join("stderr"));
        let file = |p: &Path| std::fs::File::create(p).expect("output file");
        let child = super::memberctl_command(args)
            .env("MEMBERCTL_CLUSTER_DIR", cluster_dir)
            .stdin(Stdio::null())
            .stdout(file(&stdout))
            .stderr(file(&stderr))
            .spawn()
            .expect("start memberctl");
        Spawned {
            child,
            what: args.join(" "),
            stdout,
            stderr,
            _dir: dir,
        }
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// What it wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits until it exits (killing it and panicking after `limit`).
    pub fn wait(mut self, limit: Duration) -> Run {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "`memberctl {}` did not finish within {limit:?}; stderr:\n{}",
                    self.what,
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Run {
            code: status.code().unwrap_or(-1),
            stdout: std::fs::read_to_string(&self.stdout).unwrap_or_default(),
            stderr: self.stderr(),
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `member list -w json` through the local cluster: (name or ID, is learner, started) per member, sorted.
pub fn members(local: &Local) -> Vec<(String, bool, bool)> {
    let r = local.ctl(&["member", "list", "-w", "json"]);
    assert_eq!(r.code, 0, "member list: {}", r.stderr);
    let mut out: Vec<(String, bool, bool)> = r.json()["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let name = m["name"].as_str().unwrap_or("");
            let label = if name.is_empty() {
                m["id"].as_str().unwrap_or("").to_string()
            } else {
                name.to_string()
            };
            (label, m["is_learner"] == true, m["started"] == true)
        })
        .collect();
    out.sort();
    out
}

/// The raft log's segment files in a node's data directory, oldest first.
pub fn log_files(data: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data.join("raft"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "raftlog"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
