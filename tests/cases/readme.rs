//! The README as a newcomer meets it: its set-up commands and every shell block it asks to be copied, run as written (the demo scripts with this build's binary), so a README line that stops working fails here.
//!
//! Each ```` ```sh ```` block of README.md is preceded by a marker line:
//! `<!-- run: NAME -->` for a block one of the cases below runs, or
//! `<!-- not run: REASON -->` for one that cannot run here (installs
//! packages, names the reader's own hosts); a block without a marker, a
//! marker of a block no case knows, or a `not run` without a reason fails
//! [`every_readme_block_is_run_or_says_why`].

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util;

/// The blocks the cases below run, by marker name.
const RUN: [&str; 4] = ["setup", "quick-start", "etcdctl", "jq"];

/// One fenced shell block of the README.
struct Block {
    /// Its marker: `Ok(name)` for `run`, `Err(reason)` for `not run`.
    marker: Result<String, String>,
    /// Its command lines (comments and blank lines kept out).
    lines: Vec<String>,
    /// The README line it starts on, for messages.
    at: usize,
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The README's ```` ```sh ```` blocks with their markers; panics naming
/// the line of a block that has none.
fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```sh" {
            i += 1;
            continue;
        }
        let at = i + 1;
        let marker_line = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim())
            .unwrap_or("");
        let marker = if let Some(name) = marker_line
            .strip_prefix("<!-- run:")
            .and_then(|m| m.strip_suffix("-->"))
        {
            Ok(name.trim().to_string())
        } else if let Some(reason) = marker_line
            .strip_prefix("<!-- not run:")
            .and_then(|m| m.strip_suffix("-->"))
        {
            Err(reason.trim().to_string())
        } else {
            panic!(
                "README.md line {at}: a ```sh block without a marker on the line before it \
                 (`<!-- run: NAME -->` or `<!-- not run: REASON -->`)"
            );
        };
        i += 1;
        let mut body = Vec::new();
        while i < lines.len() && lines[i].trim() != "```" {
            let line = lines[i].trim();
            if !line.is_empty() && !line.starts_with('#') {
                body.push(line.to_string());
            }
            i += 1;
        }
        out.push(Block {
            marker,
            lines: body,
            at,
        });
        i += 1;
    }
    out
}

/// The block marked `run: name`.
fn block(name: &str) -> Block {
    blocks(&readme())
        .into_iter()
        .find(|b| b.marker.as_deref() == Ok(name))
        .unwrap_or_else(|| panic!("README.md has no block marked `<!-- run: {name} -->`"))
}

/// Every shell block is run by a case here or says why not; the set-up
/// block sits on the first screen and holds the two commands.
fn every_readme_block_is_run_or_says_why() {
    let text = readme();
    let all = blocks(&text);
    let mut names = Vec::new();
    for b in &all {
        match &b.marker {
            Ok(name) => {
                assert!(
                    RUN.contains(&name.as_str()),
                    "README.md line {}: no case runs a block named {name:?} (known: {RUN:?})",
                    b.at
                );
                assert!(
                    !names.contains(name),
                    "README.md line {}: a second block named {name:?}",
                    b.at
                );
                names.push(name.clone());
            }
            Err(reason) => assert!(
                reason.len() >= 10,
                "README.md line {}: `not run` needs its reason",
                b.at
            ),
        }
    }
    for name in RUN {
        assert!(
            names.iter().any(|n| n == name),
            "README.md has no block marked {name:?}"
        );
    }
    let setup = block("setup");
    assert_eq!(
        setup
            .lines
            .iter()
            .map(|l| command_of(l))
            .collect::<Vec<_>>(),
        ["./scripts/local-demo.sh", "cargo test"],
        "the set-up block"
    );
    // The first screen: the set-up block starts within the first 40 lines.
    assert!(
        setup.at <= 40,
        "the set-up block starts at README.md line {}; keep it on the first screen",
        setup.at
    );
    // CI runs the README's test command (`.ci/run` calls `cargo test`).
    let ci = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run"))
        .expect("read .ci/run");
    assert!(
        ci.lines()
            .any(|l| !l.trim_start().starts_with('#') && l.contains("cargo test")),
        ".ci/run must run the README's `cargo test`"
    );
}

/// A line's command without its trailing comment.
fn command_of(line: &str) -> String {
    line.split(" #").next().unwrap_or("").trim().to_string()
}

/// The README's first set-up command, `./scripts/local-demo.sh`, end to end
/// with this build's memberctl (the script's own `cargo build --release` is
/// the one step left out: `MEMBERCTL_BIN` names the binary).
fn the_local_demo_runs_end_to_end() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/local-demo.sh");
    let dir = tempfile::tempdir().expect("temp dir");
    let r = util::run(
        Command::new("bash")
            .arg(&script)
            .env("MEMBERCTL_BIN", util::bin())
            .env("MEMBERCTL_CLUSTER_DIR", dir.path().join("cluster"))
            .env_remove("MEMBERCTL_ENDPOINTS")
            .env_remove("ETCDCTL_ENDPOINTS"),
    );
    let out = format!("{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "local-demo.sh failed:\n{out}");
    for step in [
        "$ memberctl cluster up",
        "$ memberctl member add n4 --learner",
        "$ memberctl cluster start-node n4",
        "$ memberctl member promote n4",
        "$ memberctl member remove n4",
        "$ memberctl cluster down",
    ] {
        assert!(out.contains(step), "the demo did not run {step:?}:\n{out}");
    }
    // The learner was promoted: the status table lists n4 as a voter
    // (etcdctl's simple list after the removal no longer names it).
    let after_remove = out
        .rsplit("$ memberctl member list")
        .next()
        .and_then(|s| s.split("$ memberctl cluster down").next())
        .unwrap_or_default();
    assert!(!after_remove.contains("n4"), "n4 still listed:\n{out}");
    assert!(
        out.contains("promoted"),
        "the demo did not say n4 was promoted:\n{out}"
    );
}

/// `scripts/etcd-demo.sh` end to end on Debian's etcd with this build's memberctl.
fn the_etcd_demo_runs_end_to_end() {
    let etcd = util::require_etcd();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/etcd-demo.sh");
    let r = util::run(
        Command::new("bash")
            .arg(&script)
            .env("MEMBERCTL_BIN", util::bin())
            .env("ETCD_BIN", &etcd)
            .env_remove("MEMBERCTL_ENDPOINTS")
            .env_remove("ETCDCTL_ENDPOINTS")
            .env_remove("MEMBERCTL_CLUSTER_DIR"),
    );
    let out = format!("{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "etcd-demo.sh failed:\n{out}");
    assert!(out.contains("refused as expected: exit 3"), "{out}");
    assert!(out.contains("$ memberctl member promote m4"), "{out}");
}

/// A shell in a fresh directory with `memberctl` on PATH (this build's), as
/// a reader has after `cargo install`, and no endpoints in the environment.
struct Shell {
    dir: tempfile::TempDir,
    path: String,
}

impl Shell {
    fn new() -> Shell {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin dir");
        std::os::unix::fs::symlink(util::bin(), bin.join("memberctl")).expect("link memberctl");
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Shell { dir, path }
    }

    fn command(&self, line: &str) -> Command {
        let mut c = Command::new("bash");
        c.args(["-euo", "pipefail", "-c", line])
            .current_dir(self.dir.path())
            .env("PATH", &self.path)
            .env_remove("MEMBERCTL_ENDPOINTS")
            .env_remove("ETCDCTL_ENDPOINTS")
            .env_remove("MEMBERCTL_CLUSTER_DIR")
            .env_remove("MEMBERCTL_WRITE_OUT");
        c
    }

    /// Runs one README line; panics with its output unless it exits 0 (and
    /// the end of each log its error names: the temporary folder goes with
    /// the test).
    fn run(&self, line: &str) -> util::Run {
        let r = util::run(&mut self.command(line));
        if r.code != 0 {
            let logs: String = r
                .stderr
                .split_whitespace()
                .filter(|w| w.ends_with(".log"))
                .map(|path| {
                    let text = std::fs::read_to_string(path).unwrap_or_default();
                    let lines: Vec<&str> = text.lines().collect();
                    let tail = lines[lines.len().saturating_sub(30)..].join("\n");
                    format!("\n{path} (its end):\n{tail}")
                })
                .collect();
            panic!(
                "README line `{line}` exited {}\nstdout:\n{}\nstderr:\n{}{logs}",
                r.code, r.stdout, r.stderr
            );
        }
        r
    }

    /// The local cluster's client ports, in member order.
    fn ports(&self) -> Vec<String> {
        let r = self.run("memberctl cluster status -w json");
        let v = r.json();
        v["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .filter_map(|n| n["client_url"].as_str())
            .map(|u| u.rsplit(':').next().unwrap_or_default().to_string())
            .collect()
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join(".memberctl")
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        if self.data_dir().exists() {
            let _ = util::run(&mut self.command("memberctl cluster down"));
        }
    }
}

/// The quick start, line by line as printed (`cargo run --release --` is
/// this build's memberctl), in a fresh directory; then the jq examples on
/// the cluster it made.
fn the_quick_start_runs_as_written() {
    let shell = Shell::new();
    let quick = block("quick-start");
    assert!(!quick.lines.is_empty());
    for line in &quick.lines {
        let rest = line.strip_prefix("cargo run --release -- ").unwrap_or_else(|| {
            panic!("README.md line {}: a quick-start line that is not `cargo run --release -- …`: {line}", quick.at)
        });
        let r = shell.run(&format!("memberctl {rest}"));
        if rest.starts_with("member list -w table") {
            assert!(r.stdout.contains("n4"), "n4 not listed:\n{}", r.stdout);
        }
    }
    assert!(
        shell.data_dir().join("cluster.json").is_file(),
        "the quick start keeps its cluster in ./.memberctl"
    );
    // `cluster up` restarts the stopped cluster from its data: the jq examples then run on it.
    shell.run("memberctl cluster up");
    let jq = block("jq");
    for line in &jq.lines {
        let r = shell.run(line);
        assert!(
            !r.stdout.trim().is_empty() || line.contains("is_learner"),
            "`{line}` printed nothing"
        );
    }
}

/// The etcdctl block against a local cluster, with PORT1… the ports
/// `cluster up` printed: every line exits 0 and says what the README says
/// it does; the watch prints the history, then is stopped.
fn the_etcdctl_block_runs_on_a_local_cluster() {
    util::require_etcdctl();
    let shell = Shell::new();
    shell.run("memberctl cluster up");
    let ports = shell.ports();
    assert!(ports.len() >= 3, "{ports:?}");
    let block = block("etcdctl");
    let fill = |line: &str| {
        let mut line = line.to_string();
        for (i, port) in ports.iter().enumerate().take(3) {
            line = line.replace(&format!("PORT{}", i + 1), port);
        }
        line
    };
    let mut prelude = String::new();
    let mut seen = Vec::new();
    for raw in &block.lines {
        let line = fill(raw);
        if line.starts_with("export ") {
            // Its comment would swallow the line it is put before.
            prelude = format!("{}; ", command_of(&line));
            continue;
        }
        if line.starts_with("etcdctl watch") {
            let events = watch_until(&shell, &format!("{prelude}exec {line}"), "hello");
            assert!(events.contains("greeting"), "{events}");
            seen.push("watch");
            continue;
        }
        let r = shell.run(&format!("{prelude}{line}"));
        if line.starts_with("etcdctl put greeting") {
            assert!(r.stdout.contains("\"kvs\""), "{}", r.stdout);
        } else if line.contains("/health") {
            assert!(r.stdout.contains("true"), "{}", r.stdout);
        } else if line.contains("/v3/kv/range") {
            assert!(r.stdout.contains("\"kvs\""), "{}", r.stdout);
        } else if line.starts_with("etcdctl lock") {
            assert!(r.stdout.contains("holding my-lock"), "{}", r.stdout);
        } else if line.starts_with("etcdctl lease grant") {
            assert!(r.stdout.contains("granted with TTL(30s)"), "{}", r.stdout);
        }
        seen.push("line");
    }
    assert!(
        seen.contains(&"watch"),
        "the etcdctl block has no watch line"
    );
}

/// Starts `line` (a watch), reads its output until a line contains
/// `until` (bounded), stops it and returns what it printed.
fn watch_until(shell: &Shell, line: &str, until: &str) -> String {
    let mut child = shell
        .command(line)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the watch");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut out = String::new();
    let found = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => {
                out.push_str(&l);
                out.push('\n');
                if l.contains(until) {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        found,
        "`{line}` did not print {until:?} within 30 s:\n{out}"
    );
    out
}

/// This file's cases and the tools each needs.
/// `scripts/ports.sh`, which the demo scripts use for the new member's peer
/// port: the port it gives is written into memberctl's book (so that a
/// `cluster up` run after it does not choose it too), it gives no port the
/// book holds from the last ten minutes, and older entries are not honoured.
fn the_demo_scripts_ports_are_reserved_in_memberctls_book() {
    let temp = tempfile::tempdir().expect("temp dir");
    let book = memberctl::testcluster::ports::book_in(temp.path());
    let free_port = || {
        util::run(
            Command::new("bash")
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .args([
                    "-c",
                    "source scripts/ports.sh && free_port p && echo \"$p\"",
                ])
                .env("TMPDIR", temp.path()),
        )
    };
    let r = free_port();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let given: u16 = r.stdout.trim().parse().expect("a port");
    assert!(
        book.join(given.to_string()).exists(),
        "{given} not reserved"
    );
    // Every port the script may give, reserved just now: none is given.
    let high: u16 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768);
    let ports: Vec<_> = (10_000..high).map(|p| book.join(p.to_string())).collect();
    for p in &ports {
        std::fs::File::create(p).expect("reserve");
    }
    let r = free_port();
    assert_eq!(r.code, 1, "a reserved port was given: {}", r.stdout);
    assert!(r.stderr.contains("no free loopback port"), "{}", r.stderr);
    // Reservations eleven minutes old no longer hold.
    let old = std::time::SystemTime::now() - Duration::from_secs(660);
    for p in &ports {
        std::fs::File::options()
            .write(true)
            .open(p)
            .and_then(|f| f.set_modified(old))
            .expect("age the reservation");
    }
    let r = free_port();
    assert_eq!(r.code, 0, "{}", r.stderr);
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        every_readme_block_is_run_or_says_why,
        the_demo_scripts_ports_are_reserved_in_memberctls_book,
        the_local_demo_runs_end_to_end,
        the_etcd_demo_runs_end_to_end: [Etcd],
        the_quick_start_runs_as_written,
        the_etcdctl_block_runs_on_a_local_cluster: [Etcdctl],
    ]
}
