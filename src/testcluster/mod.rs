//! The local test cluster: `cluster up`, `start-node`, `status`, `down`. It
//! runs `memberctl node run` processes (this same executable) on loopback
//! ports and records them in a state file in its directory. A client of the
//! engine, on the client side: it talks to the nodes through `client` and
//! `workflow` like any other command, and uses nothing of `engine`.

pub mod chaos;
pub mod link;
pub mod ports;
pub mod process;
pub mod recover;
pub mod rehearse;
mod report;
mod server;
pub mod state;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::client::{Client, ClientConfig};
use crate::error::{Error, ErrorKind};
use crate::model::MemberId;
use crate::workflow::MembershipApi;
use report::report;
pub use report::{LocalCluster, LocalLink, LocalNode, NodeStatus};
pub use server::EtcdBinary;
use state::{ClusterState, NodeRecord};

/// The directory used when none is given.
pub const DEFAULT_DIR: &str = ".memberctl";
/// How long `cluster up` waits for a leader.
const LEADER_WAIT: Duration = Duration::from_secs(30);
/// How long `start-node` looks for a member added a moment ago.
const ADDED_MEMBER_WAIT: Duration = Duration::from_secs(2);
/// How often `cluster start-node` looks whether its node has joined: a
/// member-list read on loopback is about a millisecond, and a learner's
/// catch-up is timed from the command's return.
const JOIN_POLL: Duration = Duration::from_millis(10);

/// The cluster directory: `--dir`, else `MEMBERCTL_CLUSTER_DIR`, else `.memberctl`.
pub fn cluster_dir(dir: Option<&Path>) -> PathBuf {
    dir.map(Path::to_path_buf)
        .or_else(|| std::env::var_os("MEMBERCTL_CLUSTER_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR))
}

/// Client URLs of the running nodes of the local cluster in `dir`, if any run.
pub fn running_endpoints(dir: &Path) -> Vec<String> {
    let Ok(Some(state)) = ClusterState::load(dir) else {
        return vec![];
    };
    state
        .nodes
        .iter()
        .filter(|n| !n.removed && runs(n))
        .map(|n| n.client_url.clone())
        .collect()
}

/// The bandwidth (bits per second) of the link model between the members
/// of the local cluster in `dir` when one of `endpoints` is one of its
/// running members' (`cluster up --link`).
pub fn link_bandwidth(dir: &Path, endpoints: &[String]) -> Option<u64> {
    let Ok(Some(state)) = ClusterState::load(dir) else {
        return None;
    };
    let link = state.link.as_ref()?;
    let strip = |u: &str| {
        u.trim_start_matches("http://")
            .trim_start_matches("https://")
            .trim_end_matches('/')
            .to_string()
    };
    let ours: Vec<String> = state
        .nodes
        .iter()
        .filter(|n| !n.removed && runs(n))
        .map(|n| strip(&n.client_url))
        .collect();
    endpoints
        .iter()
        .any(|e| ours.contains(&strip(e)))
        .then_some(link.bandwidth_bits)
}

fn exe() -> Result<PathBuf, Error> {
    std::env::current_exe().map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot find the memberctl executable: {e}"),
        )
    })
}

fn absolute(dir: &Path) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::usage(format!("cannot create {}: {e}", dir.display())))?;
    dir.canonicalize()
        .map_err(|e| Error::usage(format!("cannot use {}: {e}", dir.display())))
}

fn client(state: &ClusterState) -> Result<Client, Error> {
    client_of(
        state
            .nodes
            .iter()
            .filter(|n| !n.removed)
            .map(|n| n.client_url.clone())
            .collect(),
    )
}

/// A client of the local nodes at `endpoints` (short timeouts: loopback).
pub(crate) fn client_of(endpoints: Vec<String>) -> Result<Client, Error> {
    Client::new(ClientConfig {
        endpoints,
        dial_timeout: Duration::from_millis(300),
        command_timeout: Duration::from_secs(2),
        credentials: None,
        tls: Default::default(),
    })
}

/// Whether the recorded process of node `n` runs.
fn runs(n: &NodeRecord) -> bool {
    n.pid.is_some_and(|p| process::is_running(p, &n.data_dir))
}

/// Whether a recorded node answers that it is the leader (each node's own
/// Status: a member list or progress report would wait for an election
/// under way).
async fn leader_answers(c: &Client, state: &ClusterState) -> bool {
    for n in &state.nodes {
        let node = crate::model::Member {
            id: MemberId(0),
            name: n.name.clone(),
            peer_urls: vec![n.peer_url.clone()],
            client_urls: vec![n.client_url.clone()],
            is_learner: false,
        };
        if let Ok(s) = c.member_status(&node).await {
            if s.leader.0 != 0 && s.leader == s.member_id {
                return true;
            }
        }
    }
    false
}

/// Polls until a node answers as the leader and the member of every recorded
/// node has started (published its name), so that the cluster is ready to
/// use. A member that was added but has no node yet (`member add` before
/// `cluster start-node`) is not waited for.
async fn wait_for_leader(state: &ClusterState, started: Instant) -> Result<(), Error> {
    let c = client(state)?;
    let recorded = |urls: &[String]| state.nodes.iter().any(|n| urls.contains(&n.peer_url));
    loop {
        if leader_answers(&c, state).await {
            if let Ok(list) = c.member_list().await {
                let all_started = list
                    .members
                    .iter()
                    .filter(|m| recorded(&m.peer_urls))
                    .all(|m| m.started());
                if all_started {
                    return Ok(());
                }
            }
        }
        if let Some(n) = state
            .nodes
            .iter()
            .find(|n| n.pid.is_some() && !n.removed && !runs(n))
        {
            return Err(Error::new(
                ErrorKind::Unavailable,
                format!(
                    "node {} stopped while the cluster started ({}); see {}",
                    n.name,
                    last_line(&n.log),
                    n.log.display()
                ),
            ));
        }
        if started.elapsed() > LEADER_WAIT {
            return Err(Error::new(
                ErrorKind::Timeout,
                "no leader was elected within 30 s; look at the nodes' logs (`memberctl cluster status` lists them)",
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The last line a node wrote to its log (what it said as it stopped).
fn last_line(log: &std::path::Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or_else(|| "its log is empty".to_string(), |l| l.trim().to_string())
}

/// How `cluster up` starts a new cluster (a recorded one restarts with its own settings).
#[derive(Clone, Debug)]
pub struct UpOptions {
    /// Number of members.
    pub nodes: usize,
    /// `--max-learners` of every node.
    pub max_learners: usize,
    /// `--snapshot-count` of every node.
    pub snapshot_count: u64,
    /// `--quota-backend-bytes` of every node (0: the default).
    pub quota_backend_bytes: u64,
    /// `--heartbeat-interval` of every node (ms).
    pub heartbeat_ms: u64,
    /// `--election-timeout` of every node (ms).
    pub election_timeout_ms: u64,
    /// `--fault-injection` on every node (test clusters only).
    pub fault_injection: bool,
    /// `--fault-stale-reads` on every node (a deliberate bug, for tests).
    pub fault_stale_reads: bool,
    /// `--fault-ack-before-fsync` on every node (a deliberate bug, for tests).
    pub fault_ack_before_fsync: bool,
    /// A snapshot file (etcd's or memberctl's) every new node starts from.
    pub from_snapshot: Option<PathBuf>,
    /// Restore `from_snapshot` without checking its SHA-256 (a backend file has none).
    pub skip_hash_check: bool,
    /// The link model between the members (`--link`), if any.
    pub link: Option<crate::link::LinkSpec>,
    /// The operator's etcd binary the members run (`--etcd`); `None`: memberctl's engine.
    pub etcd: Option<PathBuf>,
    /// Flags given to every etcd member after memberctl's (`--etcd-flag`).
    pub etcd_flags: Vec<String>,
}

/// `cluster up`: starts a new cluster as `options` say, or restarts the
/// recorded nodes of a cluster that is down (from their data: nothing is
/// lost), with the settings recorded when it was created.
pub async fn up(dir: &Path, options: &UpOptions) -> Result<LocalCluster, Error> {
    let nodes = options.nodes;
    if nodes == 0 {
        return Err(Error::usage("--nodes must be at least 1"));
    }
    if options.heartbeat_ms == 0 || options.election_timeout_ms < 5 * options.heartbeat_ms {
        return Err(Error::usage(
            "--election-timeout must be at least 5 times --heartbeat-interval, which must not be 0 (etcd recommends 10 times)",
        ));
    }
    let dir = absolute(dir)?;
    let exe = exe()?;
    let started = Instant::now();
    let etcd = match &options.etcd {
        Some(path) => {
            let bin = EtcdBinary {
                flags: options.etcd_flags.clone(),
                ..EtcdBinary::probe(path)?
            };
            bin.check(options)?;
            Some(bin)
        }
        None => None,
    };
    let mut state = match ClusterState::load(&dir)? {
        Some(_) if options.from_snapshot.is_some() => {
            return Err(Error::refused(format!(
                "a cluster already exists in {}: --from-snapshot starts a new one; give another --dir, or `memberctl cluster down` and remove {} first",
                dir.display(),
                dir.display()
            )));
        }
        Some(state) => {
            let members: Vec<_> = state.nodes.iter().filter(|n| !n.removed).collect();
            let running: Vec<&str> = members
                .iter()
                .filter(|n| runs(n))
                .map(|n| n.name.as_str())
                .collect();
            if options.link.is_some() && options.link != state.link {
                return Err(Error::refused(format!(
                    "the cluster in {} was created {}; its link is kept across restarts: run `cluster up` without --link, or make a new cluster in another --dir",
                    dir.display(),
                    state
                        .link
                        .map_or("without a link".to_string(), |l| format!("with --link {l}"))
                )));
            }
            if etcd.is_some() && etcd != state.etcd {
                return Err(Error::refused(format!(
                    "the cluster in {} was created {}; its server is kept across restarts: run `cluster up` without --etcd, or make a new cluster in another --dir",
                    dir.display(),
                    state.etcd.as_ref().map_or("on memberctl's engine".to_string(), |b| format!(
                        "with --etcd {} (etcd {}){}",
                        b.path.display(),
                        b.version,
                        if b.flags.is_empty() {
                            String::new()
                        } else {
                            format!(" and --etcd-flag {}", b.flags.join(" --etcd-flag "))
                        }
                    ))
                )));
            }
            if running.len() == members.len() {
                return Err(Error::refused(format!(
                    "a cluster is already up in {} ({}); see `memberctl cluster status`, or `memberctl cluster down` first",
                    dir.display(),
                    running.join(", ")
                )));
            }
            state
        }
        None => {
            let mut state = ClusterState {
                max_learners: options.max_learners,
                snapshot_count: options.snapshot_count,
                quota_backend_bytes: options.quota_backend_bytes,
                heartbeat_ms: options.heartbeat_ms,
                election_timeout_ms: options.election_timeout_ms,
                fault_injection: options.fault_injection,
                fault_stale_reads: options.fault_stale_reads,
                fault_ack_before_fsync: options.fault_ack_before_fsync,
                link: options.link,
                etcd,
                link_pid: None,
                link_stall: None,
                nodes: vec![],
            };
            // With a link: a third port per node, where it really listens
            // for its peers (the link listens on the one it advertises).
            let per_node = if options.link.is_some() { 3 } else { 2 };
            let ports = ports::free_ports(per_node * nodes)?;
            for (i, pair) in (1..=nodes).zip(ports.chunks(per_node)) {
                let name = format!("n{i}");
                state.nodes.push(NodeRecord {
                    client_url: format!("http://127.0.0.1:{}", pair[0]),
                    peer_url: format!("http://127.0.0.1:{}", pair[1]),
                    listen_peer_url: pair.get(2).map(|p| format!("http://127.0.0.1:{p}")),
                    pid: None,
                    data_dir: dir.join(&name),
                    log: dir.join(format!("{name}.log")),
                    initial_cluster: String::new(),
                    initial_cluster_state: "new".into(),
                    id: None,
                    removed: false,
                    name,
                });
            }
            let initial: Vec<String> = state
                .nodes
                .iter()
                .map(|n| format!("{}={}", n.name, n.peer_url))
                .collect();
            let initial = initial.join(",");
            for n in &mut state.nodes {
                n.initial_cluster = initial.clone();
            }
            if let Some(file) = &options.from_snapshot {
                restore_all(&exe, file, options.skip_hash_check, &state)?;
            }
            state
        }
    };
    // A node whose member was removed while it was down would serve its
    // stale copy (the cluster no longer talks to it): not started again.
    report::remember_removed(&dir, &mut state).await?;
    ensure_link(&exe, &dir, &mut state)?;
    for i in 0..state.nodes.len() {
        let n = &state.nodes[i];
        if n.removed || runs(n) {
            continue;
        }
        let pid = process::spawn(&exe, n, &state)?;
        state.nodes[i].pid = Some(pid);
    }
    state.save(&dir)?;
    wait_for_leader(&state, started).await?;
    report(&dir, &mut state, Some(started.elapsed().as_millis())).await
}

/// Starts the cluster's link process when it has a link and none runs,
/// and waits until it fronts every node that is to run.
fn ensure_link(exe: &Path, dir: &Path, state: &mut ClusterState) -> Result<(), Error> {
    if state.link.is_none() {
        return Ok(());
    }
    if !link::runs(dir, state) {
        state.link_pid = None;
        state.save(dir)?;
        state.link_pid = Some(link::spawn(exe, dir)?);
        state.save(dir)?;
    }
    for n in state.nodes.iter().filter(|n| !n.removed) {
        link::wait_listening(n)?;
    }
    Ok(())
}

/// Restores every node of a new cluster from `file`; on a failure, removes
/// the data directories made so far (the cluster is not created).
fn restore_all(
    exe: &Path,
    file: &Path,
    skip_hash_check: bool,
    state: &ClusterState,
) -> Result<(), Error> {
    for n in &state.nodes {
        let restored = match &state.etcd {
            Some(bin) => bin.restore(file, skip_hash_check, n),
            None => process::restore(exe, file, skip_hash_check, n),
        };
        if let Err(e) = restored {
            for n in &state.nodes {
                let _ = std::fs::remove_dir_all(&n.data_dir);
            }
            return Err(e);
        }
    }
    Ok(())
}

/// Whether node `name` of the local cluster in `dir` is running.
pub fn node_running(dir: &Path, name: &str) -> Result<bool, Error> {
    let dir = absolute(dir)?;
    Ok(ClusterState::load(&dir)?
        .is_some_and(|state| state.nodes.iter().any(|n| n.name == name && runs(n))))
}

/// `cluster start-node NAME`: starts the process of a member that `member add`
/// added to this cluster (it has not started yet, so it has no name: the only
/// unstarted member, or the one with `peer_url`).
pub async fn start_node(
    dir: &Path,
    name: &str,
    peer_url: Option<&str>,
) -> Result<LocalCluster, Error> {
    let dir = absolute(dir)?;
    let Some(mut state) = ClusterState::load(&dir)? else {
        return Err(Error::usage(format!(
            "no local cluster in {}; start one with `memberctl cluster up`",
            dir.display()
        )));
    };
    if let Some(n) = state.nodes.iter().find(|n| n.name == name) {
        if runs(n) {
            return Err(Error::refused(format!(
                "node {name} is already running (pid {})",
                n.pid.unwrap_or(0)
            )));
        }
    }
    let started = Instant::now();
    let c = client(&state)?;
    // A member added a moment ago may not be applied yet on the node that
    // answers: look again, briefly, before saying there is none.
    let deadline = Instant::now() + ADDED_MEMBER_WAIT;
    let list = loop {
        let list = c.member_list().await.map_err(|e| {
            Error::new(
                ErrorKind::Unavailable,
                format!(
                    "cannot read the member list: {e}; is the cluster up? (`memberctl cluster status`)"
                ),
            )
        })?;
        let waiting = list.members.iter().any(|m| !m.started() || m.name == name);
        if waiting || Instant::now() >= deadline {
            break list;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let candidates: Vec<_> = list
        .members
        .iter()
        .filter(|m| !m.started() || m.name == name)
        .filter(|m| peer_url.is_none_or(|u| m.peer_urls.iter().any(|p| p == u)))
        .collect();
    let member = match candidates.as_slice() {
        [m] => (*m).clone(),
        [] => {
            return Err(Error::refused(format!(
                "no member of the cluster is waiting to start{}; add it first: `memberctl member add {name} --learner --peer-urls http://127.0.0.1:PORT`",
                peer_url.map_or(String::new(), |u| format!(" with peer URL {u}"))
            )))
        }
        many => {
            let urls: Vec<String> = many.iter().flat_map(|m| m.peer_urls.clone()).collect();
            return Err(Error::usage(format!(
                "several members are waiting to start ({}); choose one with --peer-url",
                urls.join(", ")
            )));
        }
    };
    let peer = member.peer_urls.first().cloned().unwrap_or_default();
    let loopback = url::Url::parse(&peer)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h == "127.0.0.1" || h == "localhost" || h == "[::1]")
        })
        .unwrap_or(false);
    if !loopback {
        return Err(Error::refused(format!(
            "member {} has peer URL {peer}, which is not on this machine's loopback; start-node only starts local members",
            member.id
        )));
    }
    let initial: Vec<String> = list
        .members
        .iter()
        .flat_map(|m| {
            let n = if m.id == member.id {
                name.to_string()
            } else {
                m.name.clone()
            };
            m.peer_urls
                .iter()
                .map(move |u| format!("{n}={u}"))
                .collect::<Vec<_>>()
        })
        .collect();
    // Behind a link, a node started again at a peer URL the link already
    // fronts (`cluster recover` re-adds the lost members at theirs) listens
    // where the link forwards it: the running link keeps its routes.
    let fronted = state
        .nodes
        .iter()
        .find(|n| n.name == name && n.peer_url == peer)
        .and_then(|n| n.listen_peer_url.clone());
    let listen_peer_url = match (state.link, fronted) {
        (Some(_), Some(url)) => Some(url),
        (Some(_), None) => Some(format!("http://127.0.0.1:{}", ports::free_port()?)),
        (None, _) => None,
    };
    let record = NodeRecord {
        name: name.to_string(),
        client_url: format!("http://127.0.0.1:{}", ports::free_port()?),
        peer_url: peer,
        listen_peer_url,
        pid: None,
        data_dir: dir.join(name),
        log: dir.join(format!("{name}.log")),
        initial_cluster: initial.join(","),
        initial_cluster_state: "existing".into(),
        id: Some(member.id.to_string()),
        removed: false,
    };
    // A command interrupted between starting the node and recording it
    // (kill -9) leaves it running unrecorded, holding its ports and data
    // directory: stopped, so that the node starts as recorded.
    if let Some(orphan) = process::running_on(&record.data_dir) {
        process::stop(orphan, &record.data_dir);
    }
    // The name was a member's that was removed: its data is stale (a removed
    // member never serves again) and the new member starts empty. Kept
    // aside, not deleted.
    let old = state.nodes.iter().find(|n| n.name == name);
    if record.data_dir.exists()
        && (old.is_some_and(|n| n.removed || n.id.as_deref() != record.id.as_deref())
            || record.data_dir.join("removed").exists())
    {
        let aside = dir.join(format!(
            "{name}.removed-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        ));
        std::fs::rename(&record.data_dir, &aside).map_err(|e| {
            Error::new(
                ErrorKind::Internal,
                format!(
                    "cannot move the removed member's data directory {} aside: {e}",
                    record.data_dir.display()
                ),
            )
        })?;
    }
    // Recorded onto the newest state file, under its lock: `cluster chaos`
    // may have recorded a restarted node meanwhile.
    let put = |state: &mut ClusterState, record: NodeRecord| match state.node_mut(name) {
        Some(n) => *n = record,
        None => state.nodes.push(record),
    };
    if state.link.is_some() {
        // Recorded first, so that the link fronts it before it starts.
        let r = record.clone();
        if let Some(newest) = ClusterState::update(&dir, |s| {
            put(s, r);
            s.clone()
        })? {
            state = newest;
        }
        ensure_link(&exe()?, &dir, &mut state)?;
    }
    let pid = process::spawn(&exe()?, &record, &state)?;
    let r = NodeRecord {
        pid: Some(pid),
        ..record
    };
    match ClusterState::update(&dir, |s| {
        put(s, r.clone());
        s.clone()
    })? {
        Some(newest) => state = newest,
        None => {
            put(&mut state, r);
            state.save(&dir)?;
        }
    }
    // Ready once the member has published its name.
    let deadline = started + LEADER_WAIT;
    loop {
        if let Ok(l) = c.member_list().await {
            if l.get(member.id).is_some_and(|m| m.name == name) {
                break;
            }
        }
        let n = state.nodes.iter().find(|n| n.name == name);
        if n.is_some_and(|n| !process::is_running(pid, &n.data_dir)) {
            let log = dir.join(format!("{name}.log"));
            return Err(Error::new(
                ErrorKind::Internal,
                format!(
                    "node {name} exited at start ({}); see {}",
                    last_line(&log),
                    log.display()
                ),
            ));
        }
        if Instant::now() > deadline {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!("node {name} did not join within 30 s; see its log"),
            ));
        }
        tokio::time::sleep(JOIN_POLL).await;
    }
    report(&dir, &mut state, Some(started.elapsed().as_millis())).await
}

/// `cluster status`.
pub async fn status(dir: &Path) -> Result<LocalCluster, Error> {
    let dir = absolute(dir)?;
    let Some(mut state) = ClusterState::load(&dir)? else {
        return Err(Error::usage(format!(
            "no local cluster in {}; start one with `memberctl cluster up`",
            dir.display()
        )));
    };
    report(&dir, &mut state, None).await
}

/// `cluster down`: stops the recorded processes (only those); idempotent.
pub async fn down(dir: &Path) -> Result<LocalCluster, Error> {
    let dir = absolute(dir)?;
    let Some(mut state) = ClusterState::load(&dir)? else {
        return Err(Error::usage(format!(
            "no local cluster in {}",
            dir.display()
        )));
    };
    // Learn which members were removed while the cluster still answers.
    report::remember_removed(&dir, &mut state).await?;
    for n in &mut state.nodes {
        if let Some(pid) = n.pid.take() {
            let data_dir = n.data_dir.clone();
            tokio::task::spawn_blocking(move || process::stop(pid, &data_dir))
                .await
                .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
        }
    }
    if let Some(pid) = state.link_pid.take() {
        let d = dir.clone();
        tokio::task::spawn_blocking(move || process::stop_as(pid, b"link-serve", &d))
            .await
            .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
    }
    state.save(&dir)?;
    report(&dir, &mut state, None).await
}
