//! What each fault does to the local cluster's processes and links, and
//! how it is undone: `kill -9` and a restart from the data directory; a
//! wipe (the data directory deleted) and a restart empty; SIGSTOP and
//! SIGCONT; the link model's stall and slower settings; the acting
//! autopilot killed and started again.

use std::path::Path;
use std::time::Duration;

use super::super::process;
use super::super::state::{ClusterState, NodeRecord};
use crate::error::{Error, ErrorKind};
use crate::link::LinkSpec;

/// Sends `signal` to node `name`'s recorded process when it runs; the pid.
fn signal_node(dir: &Path, name: &str, signal: libc::c_int) -> Result<u32, Error> {
    let state = load(dir)?;
    let node = record(&state, name)?;
    let pid = node
        .pid
        .filter(|p| process::is_running(*p, &node.data_dir))
        .ok_or_else(|| Error::refused(format!("node {name} does not run")))?;
    // SAFETY: kill(2) on a pid whose command line is this node's.
    unsafe { libc::kill(pid as libc::pid_t, signal) };
    Ok(pid)
}

fn load(dir: &Path) -> Result<ClusterState, Error> {
    ClusterState::load(dir)?
        .ok_or_else(|| Error::usage(format!("no local cluster in {}", dir.display())))
}

fn record<'a>(state: &'a ClusterState, name: &str) -> Result<&'a NodeRecord, Error> {
    state
        .nodes
        .iter()
        .find(|n| n.name == name)
        .ok_or_else(|| Error::usage(format!("no node {name} recorded")))
}

/// `kill -9` of node `name`; returns once it is gone.
pub fn kill(dir: &Path, name: &str) -> Result<u32, Error> {
    let pid = signal_node(dir, name, libc::SIGKILL)?;
    wait_gone(pid);
    Ok(pid)
}

/// Waits (at most 5 s) until `pid` no longer runs.
fn wait_gone(pid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while process::alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `kill -9` of node `name`, then its data directory deleted (the machine
/// is gone with its disk).
pub fn wipe(dir: &Path, name: &str) -> Result<u32, Error> {
    let pid = kill(dir, name)?;
    let state = load(dir)?;
    let data = &record(&state, name)?.data_dir;
    match std::fs::remove_dir_all(data) {
        Ok(()) => Ok(pid),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(pid),
        Err(e) => Err(Error::new(
            ErrorKind::Internal,
            format!("cannot delete {}: {e}", data.display()),
        )),
    }
}

/// Starts node `name` again as recorded (from its data directory; an empty
/// one starts as a member of an existing cluster), unless it runs; records
/// its pid; returns it.
pub fn restart(dir: &Path, name: &str) -> Result<u32, Error> {
    let exe = std::env::current_exe().map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot find the memberctl executable: {e}"),
        )
    })?;
    let started = ClusterState::update(dir, |state| -> Result<u32, Error> {
        let mut node = record(state, name)?.clone();
        if let Some(pid) = node.pid.filter(|p| process::is_running(*p, &node.data_dir)) {
            return Ok(pid);
        }
        if !node.data_dir.exists() {
            node.initial_cluster_state = "existing".into();
        }
        let pid = process::spawn(&exe, &node, state)?;
        if let Some(n) = state.node_mut(name) {
            n.pid = Some(pid);
        }
        Ok(pid)
    })?;
    started.unwrap_or_else(|| {
        Err(Error::usage(format!(
            "no local cluster in {}",
            dir.display()
        )))
    })
}

/// SIGSTOP to node `name`: alive, silent.
pub fn pause(dir: &Path, name: &str) -> Result<u32, Error> {
    signal_node(dir, name, libc::SIGSTOP)
}

/// SIGCONT to `pid` (the node paused).
pub fn resume(pid: u32) {
    // SAFETY: kill(2) on the pid this run stopped.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGCONT) };
}

/// Stalls the links to and from node `name` for `hold` (the link model
/// ends the stall by itself).
pub fn stall(dir: &Path, name: &str, hold: Duration) -> Result<(), Error> {
    super::super::link::change(dir, None, Some((Some(name.to_string()), hold)))
}

/// The cluster's link settings, when it has a link.
pub fn link(dir: &Path) -> Result<Option<LinkSpec>, Error> {
    Ok(load(dir)?.link)
}

/// A slower version of `spec`: four times the delay (at least 20 ms one
/// way) and a quarter of the bandwidth.
pub fn slower(spec: LinkSpec) -> LinkSpec {
    LinkSpec {
        one_way: (spec.one_way * 4).max(Duration::from_millis(20)),
        bandwidth_bits: (spec.bandwidth_bits / 4).max(1_000_000),
        ..spec
    }
}

/// Sets every link to `spec` from now on.
pub fn set_link(dir: &Path, spec: LinkSpec) -> Result<(), Error> {
    super::super::link::change(dir, Some(spec), None)
}
