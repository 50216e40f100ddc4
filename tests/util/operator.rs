//! An operator: runs memberctl, killing it (-9) at a line of its stderr when
//! asked, and for real etcd clusters starts each new member with the
//! settings it prints, while it waits for the member.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc::RecvTimeoutError;

use serde_json::Value;

use super::faults::kill9_all;
use super::Etcd;

/// The arguments of `member apply --target TARGET` against `etcd`, JSON out.
pub fn apply_args(etcd: &Etcd, target: &str) -> Vec<String> {
    [
        "--endpoints",
        &etcd.endpoints(),
        "--command-timeout",
        "20s",
        "member",
        "apply",
        "--target",
        target,
        "--timeout",
        "60s",
        "-w",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Runs memberctl with `args` against `etcd` as an operator would: every new
/// member is started with the settings memberctl prints while it waits for
/// it. The exit code, stdout as JSON (null when it is not) and stderr.
pub fn run_starting_members(etcd: &mut Etcd, args: &[String]) -> (i32, Value, String) {
    run_starting_members_until(etcd, args, None)
}

/// [`run_starting_members`], memberctl killed (-9) as soon as a line of its
/// stderr contains `kill_at` (exit code -9 then).
pub fn run_starting_members_until(
    etcd: &mut Etcd,
    args: &[String],
    kill_at: Option<&str>,
) -> (i32, Value, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let cmd = super::memberctl_command(&args);
    run_watching(cmd, kill_at, |line| {
        if line.contains("start the new member ") {
            let after = |flag: &str| {
                line.split(flag)
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap_or_default()
                    .to_string()
            };
            let (name, peer, initial) = (
                after("--name "),
                after("--initial-advertise-peer-urls "),
                after("--initial-cluster "),
            );
            let port: u16 = peer.rsplit(':').next().unwrap().parse().unwrap();
            // A rerun after an interruption asks again for a member that runs.
            if !etcd.members.iter().any(|m| m.name == name) {
                etcd.start_added(&name, port, &initial);
            }
        }
    })
}

/// Runs `cmd` (memberctl), handing each line of its stderr to `on_line` as
/// it comes, and kills it (-9) as soon as a line contains `kill_at`. The
/// exit code (-9 when killed), stdout as JSON (null when it is not) and
/// stderr; panics if it runs longer than [`super::COMMAND_LIMIT`].
pub fn run_watching(
    mut cmd: Command,
    kill_at: Option<&str>,
    mut on_line: impl FnMut(&str),
) -> (i32, Value, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start memberctl");
    let mut stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut log = String::new();
    let deadline = std::time::Instant::now() + super::COMMAND_LIMIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = match rx.recv_timeout(left) {
            Ok(l) => l,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                kill9_all(&[child.id()]);
                panic!(
                    "{cmd:?} did not end within {:?}:\n{log}",
                    super::COMMAND_LIMIT
                );
            }
        };
        log.push_str(&line);
        log.push('\n');
        if kill_at.is_some_and(|k| line.contains(k)) {
            kill9_all(&[child.id()]);
            let _ = child.wait();
            return (-9, Value::Null, log);
        }
        on_line(&line);
    }
    let status = child.wait().expect("memberctl ends");
    let stdout = out.join().unwrap_or_default();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (status.code().unwrap_or(-1), json, log)
}

/// `--target` for the members named in `keep` of a `member list -w json`
/// document, as they are, and for new members on free loopback ports.
pub fn target_of(list: &Value, keep: &[&str], new: &[&str]) -> String {
    let mut items: Vec<String> = list["members"]
        .as_array()
        .expect("a member list")
        .iter()
        .filter(|m| keep.contains(&m["name"].as_str().unwrap_or_default()))
        .map(|m| {
            format!(
                "{}={}",
                m["name"].as_str().unwrap_or_default(),
                m["peer_urls"][0].as_str().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        items.len(),
        keep.len(),
        "{keep:?} are not all members: {list}"
    );
    for n in new {
        items.push(format!("{n}=http://127.0.0.1:{}", super::free_port()));
    }
    items.join(",")
}
