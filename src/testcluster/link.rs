//! The local cluster's link model as a process of its own (`cluster up --link`): it fronts every node's advertised peer port, learns of the nodes that `start-node` adds from the state file, and is started and stopped with the nodes.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::process;
use super::state::{ClusterState, NodeRecord};
use crate::error::{Error, ErrorKind};
use crate::link::{Links, Route};

/// How often the link process reads the state file for new nodes.
const RELOAD: Duration = Duration::from_millis(100);
/// How long `start-node` waits for the link to listen for a new node.
const LISTEN_WAIT: Duration = Duration::from_secs(5);

/// The link process's log file in the cluster directory.
pub fn log_file(dir: &Path) -> std::path::PathBuf {
    dir.join("link.log")
}

/// The host:port of a loopback URL.
fn addr(url: &str) -> Option<SocketAddr> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.trim_start_matches('[').trim_end_matches(']');
    let host = if host == "localhost" {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{}", u.port()?)
        .parse()
        .ok()
        .or_else(|| format!("[{host}]:{}", u.port()?).parse().ok())
}

/// The route of a node the link fronts (its advertised and its real peer address).
fn route(n: &NodeRecord) -> Option<Route> {
    Some(Route {
        member: n.name.clone(),
        listen: addr(&n.peer_url)?,
        target: addr(n.listen_peer_url.as_deref()?)?,
    })
}

/// Whether the recorded link process runs.
pub fn runs(dir: &Path, state: &ClusterState) -> bool {
    state
        .link_pid
        .is_some_and(|pid| process::runs_as(pid, b"link-serve", dir))
}

/// Starts the link process for the cluster in `dir` (its state saved
/// first), detached, its output in `link.log`; records nothing (the caller
/// records the pid).
pub fn spawn(exe: &Path, dir: &Path) -> Result<u32, Error> {
    let mut cmd = Command::new(exe);
    cmd.args(["cluster", "link-serve", "--dir"]).arg(dir);
    process::spawn_detached(cmd, &log_file(dir))
}

/// Waits until the link listens on `node`'s advertised peer port (the
/// link process adds it within `RELOAD` of its record being saved).
pub fn wait_listening(node: &NodeRecord) -> Result<(), Error> {
    let Some(at) = addr(&node.peer_url) else {
        return Ok(());
    };
    let deadline = Instant::now() + LISTEN_WAIT;
    while TcpStream::connect_timeout(&at, Duration::from_millis(100)).is_err() {
        if Instant::now() > deadline {
            return Err(Error::new(
                ErrorKind::Internal,
                format!(
                    "the link did not listen for node {} on {} within {}s; see link.log",
                    node.name,
                    node.peer_url,
                    LISTEN_WAIT.as_secs()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// `cluster link-serve`: runs the link model of the cluster in `dir` until
/// its state file is gone or names another link process; fronts every
/// node recorded with a real peer port, adding nodes as they are recorded.
pub fn serve(dir: &Path) -> Result<(), Error> {
    let state = ClusterState::load(dir)?
        .ok_or_else(|| Error::usage(format!("no local cluster in {}", dir.display())))?;
    let spec = state.link.ok_or_else(|| {
        Error::usage(format!(
            "the cluster in {} has no link; start one with `cluster up --link …`",
            dir.display()
        ))
    })?;
    let links = Links::new(spec);
    eprintln!("link: {spec}, each member pair, both ways");
    let me = std::process::id();
    let mut failed = std::collections::HashSet::new();
    let mut stall = state.link_stall.clone();
    loop {
        let state = match ClusterState::load(dir) {
            Ok(Some(s)) => s,
            Ok(None) => return Ok(()),
            // Being rewritten: read it again next time.
            Err(_) => {
                std::thread::sleep(RELOAD);
                continue;
            }
        };
        if state.link_pid.is_some_and(|p| p != me) {
            eprintln!("link: another link process is recorded; stopping");
            return Ok(());
        }
        if let Some(spec) = state.link.filter(|s| *s != links.spec()) {
            links.set_spec(spec);
            eprintln!("link: now {spec}");
        }
        if state.link_stall != stall {
            stall = state.link_stall.clone();
            if let Some(s) = &stall {
                let now = unix_ms();
                if s.until_unix_ms > now {
                    let d = Duration::from_millis(s.until_unix_ms - now);
                    links.stall(s.node.as_deref(), d);
                    eprintln!(
                        "link: the links of {} stall for {d:?}",
                        s.node.as_deref().unwrap_or("every node")
                    );
                }
            }
        }
        let known = links.routes();
        for r in state.nodes.iter().filter(|n| !n.removed).filter_map(route) {
            if known.iter().any(|k| k.listen == r.listen) || failed.contains(&r.listen) {
                continue;
            }
            match links.add(r.clone()) {
                Ok(()) => eprintln!("link: {} at {} -> {}", r.member, r.listen, r.target),
                Err(e) => {
                    eprintln!("link: cannot listen for {} on {}: {e}", r.member, r.listen);
                    failed.insert(r.listen);
                }
            }
        }
        std::thread::sleep(RELOAD);
    }
}

/// Milliseconds since the Unix epoch.
fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `cluster link`: changes the running local cluster's link from now on
/// (`set`), or stalls the links of one node (or of all) for `stall`; the
/// link process takes it up within a tenth of a second.
pub fn change(
    dir: &Path,
    set: Option<crate::link::LinkSpec>,
    stall: Option<(Option<String>, Duration)>,
) -> Result<(), Error> {
    let lock = super::state::StateLock::take(dir)?;
    let mut state = ClusterState::load(dir)?.ok_or_else(|| {
        Error::usage(format!(
            "no local cluster in {}; start one with `memberctl cluster up --link …`",
            dir.display()
        ))
    })?;
    if state.link.is_none() {
        return Err(Error::refused(format!(
            "the cluster in {} has no link: a link is given when the cluster is created (`cluster up --link rtt=40ms,bandwidth=50mbit,queue=4mb` in a new --dir)",
            dir.display()
        )));
    }
    if let Some((Some(node), _)) = &stall {
        if !state.nodes.iter().any(|n| &n.name == node && !n.removed) {
            return Err(Error::usage(format!(
                "no node {node} in the cluster in {}; see `memberctl cluster status`",
                dir.display()
            )));
        }
    }
    if let Some(spec) = set {
        if state.link.is_some_and(|l| l.shared != spec.shared) {
            return Err(Error::refused(
                "shared= is chosen when the cluster is created (open connections keep their queues); change rtt, bandwidth, queue and per-connection only".to_string(),
            ));
        }
        state.link = Some(spec);
    }
    if let Some((node, d)) = stall {
        state.link_stall = Some(super::state::LinkStall {
            node,
            until_unix_ms: unix_ms() + d.as_millis() as u64,
        });
    }
    state.save(dir)?;
    drop(lock);
    // Taken up at the link process's next reading of the state file.
    std::thread::sleep(RELOAD * 2);
    Ok(())
}
