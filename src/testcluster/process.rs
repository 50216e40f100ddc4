//! Starting, checking and stopping the detached `memberctl node run` processes of the local cluster.

use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::state::{ClusterState, NodeRecord};
use crate::error::{Error, ErrorKind};

/// How long a node gets to stop after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Whether `pid` is a running `memberctl node run` for `data_dir` (a reused
/// pid is not). A memberctl process that is exiting counts as running until
/// its last thread is gone: its main thread may already be a zombie and its
/// command line read empty while another thread still tears down its
/// memory, holding its files, and with them the lock on its data directory.
pub fn is_running(pid: u32, data_dir: &Path) -> bool {
    // `memberctl node run … --data-dir DIR` or `etcd … --data-dir DIR`.
    runs_as(pid, b"--data-dir", data_dir)
}

/// Whether `pid` is this executable running as `… WORD …` with `path` among
/// its arguments (a node: `node run … DATA_DIR`; the link: `link-serve … DIR`).
pub fn runs_as(pid: u32, word: &[u8], path: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let Some((comm, _)) = comm_and_state(&format!("/proc/{pid}/stat")) else {
        return false;
    };
    // A zombie (exited, not yet reaped) is not running.
    if !any_thread_alive(pid) {
        return false;
    }
    if cmdline.is_empty() {
        return comm == "memberctl" || comm == "etcd";
    }
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let dir = path.as_os_str().as_encoded_bytes();
    args.windows(2).any(|w| w[0] == word) && args.contains(&dir)
}

/// Whether process `pid` exists and is neither a zombie nor dead (any
/// program: a process `cluster chaos` stopped or is about to signal).
pub fn alive(pid: u32) -> bool {
    any_thread_alive(pid)
}

/// Whether some thread of `pid` is neither a zombie nor dead.
fn any_thread_alive(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task")).is_ok_and(|threads| {
        threads.filter_map(Result::ok).any(|t| {
            comm_and_state(&t.path().join("stat").to_string_lossy())
                .is_some_and(|(_, state)| !matches!(state, 'Z' | 'X' | 'x'))
        })
    })
}

/// The command name and state letter in a `/proc/…/stat` file.
fn comm_and_state(stat_path: &str) -> Option<(String, char)> {
    let stat = std::fs::read_to_string(stat_path).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let state = stat.get(close + 1..)?.trim_start().chars().next()?;
    Some((comm, state))
}

/// The pid of a node process running on `data_dir`, recorded or not (one
/// that an interrupted command started before it could record it).
pub fn running_on(data_dir: &Path) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|&pid| {
            // Only a process whose command line names the directory: an
            // exiting process's reads empty and could be anyone's.
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| !c.is_empty())
                && is_running(pid, data_dir)
        })
}

/// Starts a node detached from this process (its own process group, output
/// appended to its log) with the cluster's settings; returns its pid.
pub fn spawn(exe: &Path, node: &NodeRecord, cluster: &ClusterState) -> Result<u32, Error> {
    spawn_with(exe, node, cluster, &[])
}

/// [`spawn`] with `extra` flags for this start only (`--force-new-cluster`).
pub fn spawn_with(
    exe: &Path,
    node: &NodeRecord,
    cluster: &ClusterState,
    extra: &[&str],
) -> Result<u32, Error> {
    if let Some(bin) = &cluster.etcd {
        let mut cmd = bin.command(node, cluster);
        cmd.args(extra);
        return spawn_detached(cmd, &node.log);
    }
    let mut cmd = Command::new(exe);
    cmd.args(["node", "run", "--name", &node.name])
        .arg("--data-dir")
        .arg(&node.data_dir)
        .args([
            "--listen-client-urls",
            &node.client_url,
            "--advertise-client-urls",
            &node.client_url,
        ])
        .args([
            "--listen-peer-urls",
            ClusterState::listen_peer_url(node),
            "--initial-advertise-peer-urls",
            &node.peer_url,
        ])
        .args(["--initial-cluster", &node.initial_cluster])
        .args(["--initial-cluster-state", &node.initial_cluster_state])
        .args(["--max-learners", &cluster.max_learners.to_string()])
        .args(["--snapshot-count", &cluster.snapshot_count.to_string()])
        .args([
            "--quota-backend-bytes",
            &cluster.quota_backend_bytes.to_string(),
        ])
        .args(["--heartbeat-interval", &cluster.heartbeat_ms.to_string()])
        .args([
            "--election-timeout",
            &cluster.election_timeout_ms.to_string(),
        ]);
    if cluster.fault_injection {
        cmd.arg("--fault-injection");
    }
    if cluster.fault_stale_reads {
        cmd.arg("--fault-stale-reads");
    }
    if cluster.fault_ack_before_fsync {
        cmd.arg("--fault-ack-before-fsync");
    }
    cmd.args(extra);
    spawn_detached(cmd, &node.log)
}

/// Starts `cmd` detached from this process (its own process group, no
/// standard input, its output appended to `log`); returns its pid.
pub fn spawn_detached(mut cmd: Command, log: &Path) -> Result<u32, Error> {
    let internal =
        |what: &str, e: std::io::Error| Error::new(ErrorKind::Internal, format!("{what}: {e}"));
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| internal("cannot create the log directory", e))?;
    }
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| internal(&format!("cannot open {}", log.display()), e))?;
    let err = out
        .try_clone()
        .map_err(|e| internal("cannot open the log", e))?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| internal(&format!("cannot start {:?}", cmd.get_program()), e))?;
    Ok(child.id())
}

/// Fills the data directory of `node`, before it first starts, from a
/// snapshot file (etcd's or memberctl's) with `memberctl snapshot restore`,
/// as the new cluster's member it is to be.
pub fn restore(
    exe: &Path,
    file: &Path,
    skip_hash_check: bool,
    node: &NodeRecord,
) -> Result<(), Error> {
    let mut cmd = Command::new(exe);
    cmd.args(["snapshot", "restore"])
        .arg(file)
        .args(["--name", &node.name, "-w", "simple"])
        .arg("--data-dir")
        .arg(&node.data_dir)
        .args(["--initial-cluster", &node.initial_cluster])
        .args(["--initial-advertise-peer-urls", &node.peer_url]);
    if skip_hash_check {
        cmd.arg("--skip-hash-check");
    }
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot start {}: {e}", exe.display()),
        )
    })?;
    if out.status.success() {
        return Ok(());
    }
    let why = String::from_utf8_lossy(&out.stderr);
    let why = why.trim().trim_start_matches("memberctl: ");
    let kind = if out.status.code() == Some(2) {
        ErrorKind::Usage
    } else {
        ErrorKind::Internal
    };
    Err(Error::new(
        kind,
        format!(
            "cannot restore node {} from {}: {why}",
            node.name,
            file.display()
        ),
    ))
}

/// Stops a node: SIGTERM, then SIGKILL after a grace period. Idempotent.
pub fn stop(pid: u32, data_dir: &Path) {
    stop_as(pid, b"--data-dir", data_dir)
}

/// Stops `pid` if it is this executable running as `… word … path …` (see
/// [`runs_as`]): SIGTERM, then SIGKILL after a grace period. Idempotent.
pub fn stop_as(pid: u32, word: &[u8], path: &Path) {
    let is_running = |pid, path| runs_as(pid, word, path);
    if !is_running(pid, path) {
        return;
    }
    let signal = |sig| {
        // SAFETY: kill(2) with a pid we checked is one of our node processes.
        unsafe { libc::kill(pid as libc::pid_t, sig) };
    };
    signal(libc::SIGTERM);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if !is_running(pid, path) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(libc::SIGKILL);
    let deadline = Instant::now() + STOP_GRACE;
    while is_running(pid, path) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}
