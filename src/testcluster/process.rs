//! Starting, checking and stopping the detached `memberctl node run` processes of the local cluster.

use std::fs::OpenOptions;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::state::NodeRecord;
use crate::error::{Error, ErrorKind};

/// How long a node gets to stop after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A loopback port that is free now.
pub fn free_port() -> Result<u16, Error> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| {
            Error::new(
                ErrorKind::Internal,
                format!("cannot find a free loopback port: {e}"),
            )
        })
}

/// Whether `pid` is a running `memberctl node run` for `data_dir` (a reused pid is not).
pub fn is_running(pid: u32, data_dir: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let dir = data_dir.as_os_str().as_encoded_bytes();
    let ours = args.windows(2).any(|w| w[0] == b"run") && args.contains(&dir);
    if !ours {
        return false;
    }
    // A zombie (exited, not yet reaped) is not running.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// Starts a node detached from this process (its own process group, output
/// appended to its log); returns its pid.
pub fn spawn(
    exe: &Path,
    node: &NodeRecord,
    max_learners: usize,
    snapshot_count: u64,
) -> Result<u32, Error> {
    let internal =
        |what: &str, e: std::io::Error| Error::new(ErrorKind::Internal, format!("{what}: {e}"));
    if let Some(parent) = node.log.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| internal("cannot create the log directory", e))?;
    }
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&node.log)
        .map_err(|e| internal(&format!("cannot open {}", node.log.display()), e))?;
    let err = log
        .try_clone()
        .map_err(|e| internal("cannot open the log", e))?;
    let child = Command::new(exe)
        .args(["node", "run", "--name", &node.name])
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
            &node.peer_url,
            "--initial-advertise-peer-urls",
            &node.peer_url,
        ])
        .args(["--initial-cluster", &node.initial_cluster])
        .args(["--initial-cluster-state", &node.initial_cluster_state])
        .args(["--max-learners", &max_learners.to_string()])
        .args(["--snapshot-count", &snapshot_count.to_string()])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| internal(&format!("cannot start {}", exe.display()), e))?;
    Ok(child.id())
}

/// Stops a node: SIGTERM, then SIGKILL after a grace period. Idempotent.
pub fn stop(pid: u32, data_dir: &Path) {
    if !is_running(pid, data_dir) {
        return;
    }
    let signal = |sig| {
        // SAFETY: kill(2) with a pid we checked is one of our node processes.
        unsafe { libc::kill(pid as libc::pid_t, sig) };
    };
    signal(libc::SIGTERM);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if !is_running(pid, data_dir) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(libc::SIGKILL);
    let deadline = Instant::now() + STOP_GRACE;
    while is_running(pid, data_dir) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}
