//! The local test cluster's state file (`cluster.json` in its directory): what was started, where, with which pid.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The file name of the state file.
pub const STATE_FILE: &str = "cluster.json";

/// One node process of the local cluster.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeRecord {
    /// The member's name.
    pub name: String,
    /// Its client URL.
    pub client_url: String,
    /// Its peer URL (the one it advertises).
    pub peer_url: String,
    /// Where it really listens for its peers, when a link model stands in
    /// front of it (`cluster up --link`): the link listens on `peer_url`.
    #[serde(default)]
    pub listen_peer_url: Option<String>,
    /// The process, while it runs.
    pub pid: Option<u32>,
    /// Its data directory.
    pub data_dir: PathBuf,
    /// Its log file.
    pub log: PathBuf,
    /// `--initial-cluster` it was first started with.
    pub initial_cluster: String,
    /// `--initial-cluster-state` it was first started with.
    pub initial_cluster_state: String,
    /// Its member's hex ID, once the cluster has answered with it.
    #[serde(default)]
    pub id: Option<String>,
    /// Whether its member was removed from the cluster: never started again.
    #[serde(default)]
    pub removed: bool,
}

/// etcd's default heartbeat interval (ms), for state files written before it was recorded.
fn default_heartbeat() -> u64 {
    100
}

/// etcd's default election timeout (ms), for state files written before it was recorded.
fn default_election_timeout() -> u64 {
    1000
}

/// A stall of the link model: until when (milliseconds since the Unix
/// epoch) the links of `node` (of every node when None) deliver nothing.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LinkStall {
    /// The node whose links stall; every link when None.
    pub node: Option<String>,
    /// Until when, in milliseconds since the Unix epoch.
    pub until_unix_ms: u64,
}

/// The whole local cluster.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClusterState {
    /// `--max-learners` of every node.
    pub max_learners: usize,
    /// `--snapshot-count` of every node.
    pub snapshot_count: u64,
    /// `--quota-backend-bytes` of every node (0: the default).
    #[serde(default)]
    pub quota_backend_bytes: u64,
    /// `--heartbeat-interval` of every node, in milliseconds.
    #[serde(default = "default_heartbeat")]
    pub heartbeat_ms: u64,
    /// `--election-timeout` of every node, in milliseconds.
    #[serde(default = "default_election_timeout")]
    pub election_timeout_ms: u64,
    /// `--fault-injection` on every node (test clusters only).
    #[serde(default)]
    pub fault_injection: bool,
    /// `--fault-stale-reads` on every node (a deliberate bug, for tests).
    #[serde(default)]
    pub fault_stale_reads: bool,
    /// `--fault-ack-before-fsync` on every node (a deliberate bug, for tests).
    #[serde(default)]
    pub fault_ack_before_fsync: bool,
    /// The link model between the members (`cluster up --link`), if any.
    #[serde(default)]
    pub link: Option<crate::link::LinkSpec>,
    /// The operator's etcd binary the members run (`cluster up --etcd`);
    /// `None`: memberctl's engine.
    #[serde(default)]
    pub etcd: Option<super::EtcdBinary>,
    /// The process that runs the link model, while it runs.
    #[serde(default)]
    pub link_pid: Option<u32>,
    /// The last stall asked of the link (`cluster link --stall`).
    #[serde(default)]
    pub link_stall: Option<LinkStall>,
    /// The nodes, in the order they were started.
    pub nodes: Vec<NodeRecord>,
}

impl ClusterState {
    /// Reads the state file in `dir`, if there is one.
    pub fn load(dir: &Path) -> Result<Option<ClusterState>, Error> {
        let path = dir.join(STATE_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::usage(format!("cannot read {}: {e}", path.display()))),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            Error::usage(format!(
                "{} is not a memberctl cluster state file ({e}); remove it or pick another --dir",
                path.display()
            ))
        })
    }

    /// Writes the state file atomically (write, fsync, rename).
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let io = |e: std::io::Error| {
            Error::new(
                crate::ErrorKind::Internal,
                format!("cannot write the cluster state in {}: {e}", dir.display()),
            )
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let tmp = dir.join(format!("{STATE_FILE}.tmp"));
        let text = serde_json::to_string_pretty(self).map_err(|e| io(std::io::Error::other(e)))?;
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            f.write_all(text.as_bytes()).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, dir.join(STATE_FILE)).map_err(io)
    }

    /// The URL `node` listens on for its peers.
    pub fn listen_peer_url(node: &NodeRecord) -> &str {
        node.listen_peer_url.as_deref().unwrap_or(&node.peer_url)
    }

    /// The record of the node called `name`.
    pub fn node_mut(&mut self, name: &str) -> Option<&mut NodeRecord> {
        self.nodes.iter_mut().find(|n| n.name == name)
    }
}

/// An exclusive lock on the state file of a cluster directory (flock on
/// `cluster.lock`), held until dropped: commands that change the state
/// file while others run (`cluster chaos`, `start-node`, `cluster link`)
/// read, change and write it under this lock, so that none writes over
/// another's change.
pub struct StateLock {
    _file: std::fs::File,
}

impl StateLock {
    /// Waits for the lock of the cluster directory `dir`.
    pub fn take(dir: &Path) -> Result<StateLock, Error> {
        use std::os::fd::AsRawFd;
        let io = |e: std::io::Error| {
            Error::new(
                crate::ErrorKind::Internal,
                format!("cannot lock the cluster state in {}: {e}", dir.display()),
            )
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("cluster.lock"))
            .map_err(io)?;
        // SAFETY: flock(2) on a descriptor this value owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io(std::io::Error::last_os_error()));
        }
        Ok(StateLock { _file: file })
    }
}

impl ClusterState {
    /// Reads the newest state file under the lock, changes it with `f` and
    /// writes it; returns what `f` returned. `None` when there is no state
    /// file.
    pub fn update<T>(
        dir: &Path,
        f: impl FnOnce(&mut ClusterState) -> T,
    ) -> Result<Option<T>, Error> {
        let _lock = StateLock::take(dir)?;
        let Some(mut state) = ClusterState::load(dir)? else {
            return Ok(None);
        };
        let out = f(&mut state);
        state.save(dir)?;
        Ok(Some(out))
    }
}
