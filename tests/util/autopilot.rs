//! `memberctl autopilot` as a child process of a test: started against a
//! local cluster or any endpoints, its decisions read back from its JSON
//! lines, stopped with SIGTERM (exit 0) or killed with SIGKILL; and the
//! small questions the autopilot cases ask the local cluster.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use serde_json::Value;

use super::local::{get_prefix_linearizable, Local};
use super::wait_for;

/// The key where the acting autopilot records the replacement it is doing.
pub const INTENT: &str = "memberctl/autopilot/intent";

/// An autopilot running as a child process, its stdout and stderr in files.
pub struct Autopilot {
    child: Child,
    out: PathBuf,
    err: PathBuf,
}

impl Autopilot {
    /// `autopilot --name NAME` against `local` with the quick settings of
    /// [`Autopilot::spawn`] and `extra`.
    pub fn start(local: &Local, name: &str, extra: &[&str]) -> Autopilot {
        Self::spawn(local.dir(), name, extra, |args| local.command(args))
    }

    /// Runs `autopilot` through `command`, its output in `dir`: looks every
    /// 500 ms, dead after 3 s, standby ready for 1 s, lease of 3 s, 2 s per
    /// request, every look printed (`--heartbeat 0`: the cases read the
    /// decisions of each look), JSON lines; `extra` adds flags or replaces
    /// these.
    pub fn spawn(
        dir: &Path,
        name: &str,
        extra: &[&str],
        command: impl Fn(&[&str]) -> std::process::Command,
    ) -> Autopilot {
        let out = dir.join(format!("{name}.jsonl"));
        let err = dir.join(format!("{name}.stderr"));
        let defaults = [
            ("--interval", "500ms"),
            ("--dead-after", "3s"),
            ("--stable-for", "1s"),
            ("--lease-ttl", "3s"),
            ("--command-timeout", "2s"),
            ("--heartbeat", "0"),
        ];
        let mut args = vec!["autopilot", "--name", name, "-w", "json"];
        for (flag, value) in defaults {
            if !extra.contains(&flag) {
                args.extend([flag, value]);
            }
        }
        args.extend_from_slice(extra);
        let child = command(&args)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("autopilot starts");
        Autopilot { child, out, err }
    }

    /// Every decision printed so far.
    pub fn lines(&self) -> Vec<Value> {
        read_lines(&self.out)
    }

    /// What it wrote to stderr so far (the sentences).
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits (at most `limit`) for a decision for which `pred` holds, among
    /// those from index `from` on; returns its index.
    pub fn wait_line(
        &self,
        what: &str,
        from: usize,
        limit: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> usize {
        let deadline = std::time::Instant::now() + limit;
        loop {
            let lines = self.lines();
            if let Some(i) = (from..lines.len()).find(|i| pred(&lines[*i])) {
                return i;
            }
            if std::time::Instant::now() >= deadline {
                let last: Vec<String> = lines.iter().rev().take(5).map(Value::to_string).collect();
                panic!(
                    "timed out after {limit:?} waiting for {what}; the last decisions, newest \
                     first:\n{}\nstderr:\n{}",
                    last.join("\n"),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops it with SIGTERM; it must exit 0.
    pub fn stop(mut self) -> Vec<Value> {
        // SAFETY: a signal to a child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let code = wait_for("autopilot to stop", Duration::from_secs(15), || {
            self.child.try_wait().unwrap()
        });
        assert_eq!(code.code(), Some(0), "{:?}", self.lines());
        self.lines()
    }

    /// Kills it with SIGKILL (nothing of its own cleaning up runs) and
    /// waits until it is gone; what it printed.
    pub fn kill9(mut self) -> Vec<Value> {
        self.child.kill().expect("SIGKILL to autopilot");
        self.child.wait().expect("autopilot reaped");
        self.lines()
    }
}

impl Drop for Autopilot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON lines of `path` (a line cut short by a kill is skipped).
pub fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Whether one of `lines` reports `action` in `phase`.
pub fn has(lines: &[Value], action: &str, phase: &str) -> bool {
    lines
        .iter()
        .any(|l| l["action"] == action && l["phase"] == phase)
}

/// `member list -w json` of the local cluster.
pub fn list(local: &Local) -> Value {
    local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json()
}

/// The name of a running voter that leads (`leader`) or does not.
pub fn voter(local: &Local, leader: bool) -> String {
    let status = local.status();
    status["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["is_leader"] == leader && n["is_learner"] == false && n["running"] == true)
        .map(|n| n["name"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no such voter (leader: {leader}) in {status}"))
}

/// The name of a voter that does not lead.
pub fn follower(local: &Local) -> String {
    voter(local, false)
}

/// Autopilot's intent key, read linearizably through the first of
/// `endpoints` that answers; `Err` when none does.
pub fn intent(endpoints: &[String]) -> Result<Option<String>, String> {
    let mut last = String::from("no endpoint");
    for ep in endpoints {
        match get_prefix_linearizable(ep, INTENT) {
            Ok(kvs) => return Ok(kvs.into_iter().find(|(k, _)| k == INTENT).map(|(_, v)| v)),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Whether `list` (a `member list -w json`) has `id` as a voter.
pub fn is_voter(list: &Value, id: &str) -> bool {
    list["members"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == id && m["is_learner"] == false)
}
