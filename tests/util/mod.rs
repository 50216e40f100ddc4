//! Shared helpers for the integration tests: run the built binary, and start real etcd clusters on loopback.

#![allow(dead_code)]

pub mod autopilot;
pub mod catch_up;
pub mod chromium;
pub mod etcd;
pub mod faults;
pub mod http;
pub mod local;
pub mod members;
pub mod operator;
pub mod proxy;
pub mod recorder;
pub mod robustness;
pub mod soak;
pub mod streamed;
pub mod tls;
pub mod versions;
pub mod writer;

pub use etcd::{etcdctl, etcdctl_in, require_etcd, require_etcdctl, Etcd};

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A Prometheus tool (`prometheus`, `promtool`) from Debian's `prometheus`
/// package, if installed.
pub fn prometheus_tool(tool: &str) -> Option<PathBuf> {
    Some(std::path::Path::new("/usr/bin").join(tool)).filter(|p| p.is_file())
}

/// Where `program` is in PATH, if it is there (an executable file).
pub fn in_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memberctl")
}

/// The result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as JSON; panics with both streams when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Panics unless the exit code is `code`.
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "exit code {} (wanted {code})\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// The longest any one command run by a test may take: past it the command
/// is killed and the test fails, so a command that never ends (a watch that
/// is never cancelled) cannot hang the suite.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// Runs a prepared command with no standard input and captures what it did.
pub fn run(cmd: &mut Command) -> Run {
    run_with_input(cmd, None)
}

/// Runs a prepared command, writing `input` (if any) to its standard input,
/// and captures what it did within [`COMMAND_LIMIT`].
pub fn run_with_input(cmd: &mut Command, input: Option<&[u8]>) -> Run {
    run_within(cmd, input, COMMAND_LIMIT)
}

/// As [`run_with_input`], killed (and the test failed) past `limit`.
pub fn run_within(cmd: &mut Command, input: Option<&[u8]>, limit: Duration) -> Run {
    let stdin = if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {cmd:?}: {e}"));
    let read = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|r| Box::new(r) as _));
    let stderr = read(child.stderr.take().map(|r| Box::new(r) as _));
    if let (Some(input), Some(mut w)) = (input, child.stdin.take()) {
        std::io::Write::write_all(&mut w, input).expect("write the command's input");
    }
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a command") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} did not end within {limit:?}\nstdout:\n{}\nstderr:\n{}",
                stdout.join().unwrap_or_default(),
                stderr.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The binary with `args`, memberctl's environment variables cleared.
pub fn memberctl_command(args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .env_remove("ETCDCTL_ENDPOINTS")
        .env_remove("MEMBERCTL_ENDPOINTS")
        .env_remove("MEMBERCTL_WRITE_OUT")
        .env_remove("MEMBERCTL_CLUSTER_DIR");
    c
}

/// Runs the binary with `args` and a clean environment for memberctl's variables.
pub fn memberctl(args: &[&str]) -> Run {
    run(&mut memberctl_command(args))
}

/// A copy of `file` named `name` in `dir`, its middle byte flipped.
pub fn damaged_copy(file: &std::path::Path, dir: &std::path::Path, name: &str) -> PathBuf {
    let mut bytes = std::fs::read(file).expect("read the file to damage");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    let damaged = dir.join(name);
    std::fs::write(&damaged, &bytes).expect("write the damaged copy");
    damaged
}

/// `memberctl snapshot restore FILE` as member r1, alone in a new cluster
/// at `peer_url`, into `data`, with `extra` flags.
pub fn restore_r1(
    file: &std::path::Path,
    data: &std::path::Path,
    peer_url: &str,
    extra: &[&str],
) -> Run {
    let initial = format!("r1={peer_url}");
    let mut args = vec![
        "snapshot",
        "restore",
        file.to_str().unwrap(),
        "--name",
        "r1",
        "--data-dir",
        data.to_str().unwrap(),
        "--initial-cluster",
        &initial,
        "--initial-advertise-peer-urls",
        peer_url,
    ];
    args.extend_from_slice(extra);
    memberctl(&args)
}

/// `memberctl node run` of member r1 (see [`restore_r1`]) on `data`,
/// serving clients at `client_url`; its output discarded.
pub fn run_r1(data: &std::path::Path, peer_url: &str, client_url: &str) -> Child {
    Command::new(bin())
        .args(["node", "run", "--name", "r1", "--data-dir"])
        .arg(data)
        .args([
            "--listen-client-urls",
            client_url,
            "--advertise-client-urls",
            client_url,
        ])
        .args([
            "--listen-peer-urls",
            peer_url,
            "--initial-advertise-peer-urls",
            peer_url,
        ])
        .args(["--initial-cluster", &format!("r1={peer_url}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start memberctl node run")
}

/// How many pre-flight checks a change reports: every check but `upgrade`
/// (only `member check --for upgrade`).
pub const CHANGE_CHECKS: usize = 12;

/// The check named `name` in a JSON document's `checks` array (`member
/// check`, or a change's report).
pub fn check_named<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {doc}"))
}

/// A loopback port that was free a moment ago and that no other memberctl
/// (this run's tests, the `cluster up`s they start) chose in the last ten
/// minutes, below the ephemeral range (as `cluster up` picks them), so that
/// no outgoing connection takes it before it is listened on.
pub fn free_port() -> u16 {
    memberctl::testcluster::ports::free_port().expect("find a free loopback port")
}

/// The `p` quantile (0.0–1.0, nearest rank) of `values`, sorted here; None
/// when there are none. The one percentile routine of the tests and benches.
pub fn percentile<T: PartialOrd + Copy>(values: &mut [T], p: f64) -> Option<T> {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let last = values.len().checked_sub(1)?;
    values
        .get(((values.len() as f64 * p) as usize).min(last))
        .copied()
}

/// Polls `check` every 100 ms until it returns Some, or panics after `limit` with `what`.
pub fn wait_for<T>(what: &str, limit: Duration, check: impl FnMut() -> Option<T>) -> T {
    wait_for_every(what, limit, Duration::from_millis(100), check)
}

/// Polls `check` every `every` until it returns Some, or panics after `limit` with `what`.
pub fn wait_for_every<T>(
    what: &str,
    limit: Duration,
    every: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check() {
            return v;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {limit:?} waiting for {what}");
        }
        std::thread::sleep(every);
    }
}
