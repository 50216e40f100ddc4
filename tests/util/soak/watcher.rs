//! The soak's watcher: every half second it reads the cluster as its
//! leader sees it (the member list, and the leader's progress: whom it
//! hears, each follower's match index; on etcd, which has no progress
//! service, every member's own Status stands for it) and the local cluster's state file
//! (each node's process), and keeps the samples; the invariants are
//! judged from them as they come (`super::invariants`), not only at the end.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memberctl::proto::etcdserverpb::cluster_client::ClusterClient;
use memberctl::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use memberctl::proto::etcdserverpb::{MemberListRequest, StatusRequest, StatusResponse};
use memberctl::proto::memberctl_v1::membership_client::MembershipClient;
use memberctl::proto::memberctl_v1::GetProgressRequest;

use crate::util::faults::node_status;
use crate::util::local::{channel, runtime};

/// One member at one sample.
#[derive(Clone, Debug)]
pub struct SeenMember {
    pub id: u64,
    pub name: String,
    pub is_learner: bool,
    /// The leader hears it (its progress' recent_active; the leader itself: yes).
    pub heard: bool,
    /// The leader's match index for it.
    pub matched: u64,
}

impl SeenMember {
    /// Member `m` of the list, heard (or not) and matched as the leader says.
    fn of(m: &memberctl::proto::etcdserverpb::Member, heard: bool, matched: u64) -> Self {
        SeenMember {
            id: m.id,
            name: m.name.clone(),
            is_learner: m.is_learner,
            heard,
            matched,
        }
    }
}

/// One look at the cluster.
#[derive(Clone, Debug)]
pub struct Sample {
    pub unix_ms: u64,
    pub leader: Option<u64>,
    pub last_index: u64,
    /// The membership as the leader lists it (empty without a leader).
    pub members: Vec<SeenMember>,
    /// Every recorded node: (name, whether its process runs).
    pub processes: Vec<(String, bool)>,
    /// The autopilots whose pid file names a live process.
    pub autopilots: usize,
}

impl Sample {
    pub fn voters(&self) -> impl Iterator<Item = &SeenMember> {
        self.members.iter().filter(|m| !m.is_learner)
    }

    /// Whole: a leader, `voters` voters all heard by it, and a standby (a
    /// started learner it hears, caught up to 90 % of its log), and both
    /// autopilots running.
    pub fn whole(&self, voters: usize, autopilots: usize) -> bool {
        let ready_standby = self.members.iter().any(|m| {
            m.is_learner && !m.name.is_empty() && m.heard && m.matched * 10 >= self.last_index * 9
        });
        self.leader.is_some()
            && self.voters().count() == voters
            && self.voters().all(|m| m.heard)
            && ready_standby
            && self.autopilots >= autopilots
    }
}

pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The nodes of the state file in `dir`: (name, client URL, pid), the pid
/// only when it is still that node's process (a pid is reused once the
/// node is gone: chaos leaves a killed node's pid recorded); and whether
/// the cluster runs etcd's own binary (`cluster up --etcd`: no memberctl
/// progress service to ask).
fn recorded(dir: &Path) -> (Vec<(String, String, Option<u32>)>, bool) {
    let Ok(text) = std::fs::read_to_string(dir.join("cluster.json")) else {
        return (vec![], false);
    };
    let Ok(state) = serde_json::from_str::<serde_json::Value>(&text) else {
        return (vec![], false);
    };
    let nodes = state["nodes"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| {
                    let data = n["data_dir"].as_str().unwrap_or("").as_bytes().to_vec();
                    let pid = n["pid"]
                        .as_u64()
                        .map(|p| p as u32)
                        .filter(|p| runs_on(*p, &data));
                    (
                        n["name"].as_str().unwrap_or("").to_string(),
                        n["client_url"].as_str().unwrap_or("").to_string(),
                        pid,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (nodes, !state["etcd"].is_null())
}

/// Whether `pid` is a live node process on the data directory `data`.
fn runs_on(pid: u32, data: &[u8]) -> bool {
    alive(pid)
        && std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == data))
}

/// Whether `pid` is a live process (not a zombie).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .and_then(|r| r.trim_start().chars().next())
            .is_some_and(|c| !matches!(c, 'Z' | 'X' | 'x'))
    })
}

/// The autopilots of `dir` whose pid file names a live process.
pub fn autopilots_alive(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("autopilots"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".pid"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
                .filter(|p| alive(*p))
                .count()
        })
        .unwrap_or(0)
}

/// One sample of the cluster in `dir`.
pub fn sample(dir: &Path) -> Sample {
    let (nodes, on_etcd) = recorded(dir);
    let processes = nodes
        .iter()
        .map(|(n, _, pid)| (n.clone(), pid.is_some_and(alive)))
        .collect();
    let mut s = Sample {
        unix_ms: unix_ms(),
        leader: None,
        last_index: 0,
        members: vec![],
        processes,
        autopilots: autopilots_alive(dir),
    };
    let running: Vec<&String> = nodes
        .iter()
        .filter(|(_, _, pid)| pid.is_some_and(alive))
        .map(|(_, url, _)| url)
        .collect();
    if on_etcd {
        sample_etcd(&running, &mut s);
        return s;
    }
    let Some((url, leader)) = running.iter().find_map(|u| {
        let st = node_status(u).ok()?;
        (st.leader != 0 && st.leader == st.member_id).then(|| ((*u).clone(), st.leader))
    }) else {
        return s;
    };
    let got = runtime().block_on(async {
        let ch = channel(&url).await?;
        let t = Duration::from_secs(2);
        let progress = tokio::time::timeout(
            t,
            MembershipClient::new(ch.clone()).get_progress(GetProgressRequest {}),
        )
        .await
        .map_err(|_| "progress timed out".to_string())?
        .map_err(|e| e.message().to_string())?
        .into_inner();
        let list = tokio::time::timeout(
            t,
            ClusterClient::new(ch).member_list(MemberListRequest { linearizable: true }),
        )
        .await
        .map_err(|_| "member list timed out".to_string())?
        .map_err(|e| e.message().to_string())?
        .into_inner();
        Ok::<_, String>((progress, list))
    });
    let Ok((progress, list)) = got else {
        return s;
    };
    if progress.leader != leader {
        return s;
    }
    let peers: HashMap<u64, (bool, u64)> = progress
        .peers
        .iter()
        .map(|p| (p.id, (p.recent_active, p.match_index)))
        .collect();
    s.leader = Some(leader);
    s.last_index = progress.last_index;
    s.members = list
        .members
        .iter()
        .map(|m| {
            let (heard, matched) = if m.id == leader {
                (true, progress.last_index)
            } else {
                peers.get(&m.id).copied().unwrap_or((false, 0))
            };
            SeenMember::of(m, heard, matched)
        })
        .collect();
    s
}

/// How far behind the leader's raft index a member that follows it may be
/// and still count as heard on etcd (about two seconds of the soak's
/// traffic; a cut-off member also drops its leader after an election timeout).
const ETCD_HEARD_LAG: u64 = 400;

/// [`sample`] on etcd: the leader's view from every running member's own
/// Status, asked at once (each within 1 s). A member counts as heard when it
/// answers, follows the leader in the leader's term, and its raft index is
/// within [`ETCD_HEARD_LAG`] of the leader's; its match index is its raft index.
fn sample_etcd(running: &[&String], s: &mut Sample) {
    let urls: Vec<String> = running.iter().map(|u| (*u).clone()).collect();
    let got = runtime().block_on(async {
        let asks = urls.iter().map(|url| async move {
            let ask = async {
                let ch = channel(url).await.ok()?;
                MaintenanceClient::new(ch)
                    .status(StatusRequest {})
                    .await
                    .ok()
                    .map(|r| (url.clone(), r.into_inner()))
            };
            tokio::time::timeout(Duration::from_secs(1), ask)
                .await
                .ok()
                .flatten()
        });
        futures_util::future::join_all(asks).await
    });
    let statuses: Vec<(String, StatusResponse)> = got.into_iter().flatten().collect();
    let id = |r: &StatusResponse| r.header.as_ref().map_or(0, |h| h.member_id);
    let Some((leader_url, lead)) = statuses
        .iter()
        .find(|(_, r)| r.leader != 0 && r.leader == id(r))
    else {
        return;
    };
    let list = runtime().block_on(async {
        let ch = channel(leader_url).await.ok()?;
        tokio::time::timeout(
            Duration::from_secs(2),
            ClusterClient::new(ch).member_list(MemberListRequest { linearizable: true }),
        )
        .await
        .ok()?
        .ok()
        .map(|r| r.into_inner())
    });
    let Some(list) = list else {
        return;
    };
    let leader = lead.leader;
    s.leader = Some(leader);
    s.last_index = lead.raft_index;
    s.members = list
        .members
        .iter()
        .map(|m| {
            let seen = statuses.iter().map(|(_, r)| r).find(|r| id(r) == m.id);
            let (heard, matched) = match seen {
                Some(r) if m.id == leader => (true, r.raft_index),
                Some(r) => (
                    r.leader == leader
                        && r.raft_term == lead.raft_term
                        && lead.raft_index.saturating_sub(r.raft_index) <= ETCD_HEARD_LAG,
                    r.raft_index,
                ),
                None => (false, 0),
            };
            SeenMember::of(m, heard, matched)
        })
        .collect();
}

/// Samples the cluster every `every` on a thread of its own until stopped.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<Sample>>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Watcher {
    pub fn start(dir: PathBuf, every: Duration) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (flag, out) = (stop.clone(), samples.clone());
        let handle = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let began = std::time::Instant::now();
                let s = sample(&dir);
                out.lock().unwrap().push(s);
                if let Some(rest) = every.checked_sub(began.elapsed()) {
                    std::thread::sleep(rest);
                }
            }
        });
        Watcher {
            stop,
            samples,
            handle: Some(handle),
        }
    }

    /// The samples so far.
    pub fn samples(&self) -> Vec<Sample> {
        self.samples.lock().unwrap().clone()
    }

    /// The newest sample, if any.
    pub fn last(&self) -> Option<Sample> {
        self.samples.lock().unwrap().last().cloned()
    }

    pub fn stop(mut self) -> Vec<Sample> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.samples()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
