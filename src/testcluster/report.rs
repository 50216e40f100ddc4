//! What the `cluster` commands report: each recorded node, its member, and whether it runs, is stopped or was removed.

use std::path::{Path, PathBuf};

use super::state::ClusterState;
use crate::error::Error;
use crate::model::{Member, MemberId};
use crate::workflow::{status, MembershipApi};

/// What became of a recorded node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeStatus {
    /// Its process runs and its member belongs to the cluster.
    Running,
    /// Its process does not run; `cluster up` starts it again.
    Stopped,
    /// Its member was removed from the cluster: it is no node of the cluster
    /// any more, is never started again, and its endpoint is not used.
    Removed,
}

impl NodeStatus {
    /// "running", "stopped" or "removed", as every output format shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Running => "running",
            NodeStatus::Stopped => "stopped",
            NodeStatus::Removed => "removed",
        }
    }
}

/// One node as `cluster` commands report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalNode {
    /// Its member ID, when the cluster answered (or, once removed, the last one seen).
    pub id: Option<MemberId>,
    /// Running, stopped or removed.
    pub status: NodeStatus,
    /// Its name.
    pub name: String,
    /// Its peer URL.
    pub peer_url: String,
    /// Its client URL.
    pub client_url: String,
    /// Whether its member is a learner, when the cluster answered.
    pub is_learner: Option<bool>,
    /// Whether its member leads.
    pub is_leader: bool,
    /// Its process, if running (a removed member's process may still run).
    pub pid: Option<u32>,
    /// Whether its process runs.
    pub running: bool,
    /// Its log file.
    pub log: PathBuf,
}

/// The link model between the members, as `cluster` commands report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalLink {
    /// Its settings (every member pair, both ways).
    pub spec: crate::link::LinkSpec,
    /// The process that runs it, if it runs.
    pub pid: Option<u32>,
}

/// What `cluster` commands report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalCluster {
    /// The cluster's directory.
    pub dir: PathBuf,
    /// Its nodes, in the order they were first started.
    pub nodes: Vec<LocalNode>,
    /// The leader, when one answered.
    pub leader: Option<MemberId>,
    /// For `up` and `start-node`: how long until the cluster was ready.
    pub ready_ms: Option<u128>,
    /// The link model between the members (`cluster up --link`), if any.
    pub link: Option<LocalLink>,
    /// The operator's etcd binary the members run (`cluster up --etcd`);
    /// `None`: memberctl's engine.
    pub etcd: Option<super::EtcdBinary>,
}

impl LocalCluster {
    /// The client URLs of the nodes that run and belong to the cluster.
    pub fn endpoints(&self) -> Vec<&str> {
        self.nodes
            .iter()
            .filter(|n| n.status == NodeStatus::Running)
            .map(|n| n.client_url.as_str())
            .collect()
    }
}

/// Reports the cluster: which recorded processes run, and, when the cluster
/// answers, each node's member and the leader (what it learns of removed
/// members is remembered, as [`remember_removed`] does).
pub(super) async fn report(
    dir: &Path,
    state: &mut ClusterState,
    ready_ms: Option<u128>,
) -> Result<LocalCluster, Error> {
    let mut leader = None;
    let mut members: Option<Vec<Member>> = None;
    if let Ok(c) = super::client(state) {
        if let Ok(s) = status::status_without_flags(&c).await {
            leader = s.leader;
            members = Some(s.rows.into_iter().map(|r| r.member).collect());
        }
    }
    if let Some(members) = &members {
        remember(dir, state, members)?;
    }
    let nodes = state
        .nodes
        .iter()
        .map(|n| {
            let running = super::runs(n);
            let member = members.as_ref().and_then(|ms| {
                ms.iter()
                    .find(|m| !n.removed && m.peer_urls.contains(&n.peer_url))
            });
            let status = match (n.removed, running) {
                (true, _) => NodeStatus::Removed,
                (false, true) => NodeStatus::Running,
                (false, false) => NodeStatus::Stopped,
            };
            let id = n.id.as_deref().and_then(|id| id.parse().ok());
            LocalNode {
                id,
                status,
                name: n.name.clone(),
                peer_url: n.peer_url.clone(),
                client_url: n.client_url.clone(),
                is_learner: member.map(|m| m.is_learner),
                is_leader: leader.is_some() && leader == id,
                pid: if running { n.pid } else { None },
                running,
                log: n.log.clone(),
            }
        })
        .collect();
    let link = state.link.map(|spec| LocalLink {
        spec,
        pid: state.link_pid.filter(|_| super::link::runs(dir, state)),
    });
    Ok(LocalCluster {
        dir: dir.to_path_buf(),
        nodes,
        leader,
        ready_ms,
        link,
        etcd: state.etcd.clone(),
    })
}

/// Asks the running nodes for the cluster's (linearizable) member list and
/// records which nodes' members were removed: a node whose peer URL is in no
/// member. Recorded in the state file, so that a removed node stays known
/// (and is never started again) after `cluster down`. Nothing to learn when
/// no node runs or none answers.
pub(super) async fn remember_removed(dir: &Path, state: &mut ClusterState) -> Result<(), Error> {
    if !state.nodes.iter().any(|n| !n.removed && super::runs(n)) {
        return Ok(());
    }
    let Ok(c) = super::client(state) else {
        return Ok(());
    };
    match c.member_list().await {
        Ok(list) => remember(dir, state, &list.members),
        Err(_) => Ok(()),
    }
}

/// Learns from `members` (see [`learn`]) and, when that changed anything,
/// saves it.
fn remember(dir: &Path, state: &mut ClusterState, members: &[Member]) -> Result<(), Error> {
    if !learn(state, members) {
        return Ok(());
    }
    // Another command may have recorded a node meanwhile: apply what was
    // learnt to the newest state, not over it.
    let _lock = super::state::StateLock::take(dir)?;
    let mut newest = ClusterState::load(dir)?.unwrap_or_else(|| state.clone());
    for n in &mut newest.nodes {
        if let Some(seen) = state.nodes.iter().find(|s| s.name == n.name) {
            n.removed |= seen.removed;
            n.id = seen.id.clone().or(n.id.take());
        }
    }
    newest.save(dir)
}

/// Records in `state` each node's member ID and whether its member was
/// removed, from the cluster's member list; whether anything changed. A
/// removed node stays removed, even if its peer URL is given to a new member.
fn learn(state: &mut ClusterState, members: &[Member]) -> bool {
    let mut changed = false;
    for n in state.nodes.iter_mut().filter(|n| !n.removed) {
        match members.iter().find(|m| m.peer_urls.contains(&n.peer_url)) {
            Some(m) => {
                let id = Some(m.id.to_string());
                if n.id != id {
                    n.id = id;
                    changed = true;
                }
            }
            None => {
                n.removed = true;
                changed = true;
            }
        }
    }
    changed
}
