//! Restoring an etcd snapshot: `memberctl snapshot restore` against
//! `etcdctl snapshot restore` (etcd 3.4; the 3.5+ servers come without
//! `etcdutl`) of the same file, saved from an etcd 3.4 holding N × 1 KiB keys
//! (`MEMBERCTL_BENCH_RESTORE_MB`, comma-separated sizes in MB, default 100),
//! alternating, each process's wall time and peak RSS; then `cluster up
//! --from-snapshot --nodes 3` to all members answering; then the other way:
//! `etcdctl snapshot save` from that local copy (the engine writes etcd's
//! format) against the same from the etcd holding the data, alternating.
//! Three rounds by default (`MEMBERCTL_BENCH_ROUNDS`). Prints Markdown (also
//! target/bench-report-restore.md).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

/// Runs `cmd` to its end: (seconds, peak RSS in MB), asserting success.
fn measured(cmd: &mut Command) -> (f64, f64) {
    let t = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child spawned above, which is not waited for elsewhere.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = t.elapsed().as_secs_f64();
    assert!(
        r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed"
    );
    std::mem::forget(child);
    (secs, usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    let (Some(etcd), Some(etcdctl)) = (util::etcd::etcd_binary(), util::etcd::etcdctl_binary())
    else {
        println!("skipped: etcd not installed (Debian: apt-get install etcd-server etcd-client)");
        return;
    };
    let rounds = common::rounds(3);
    let sizes: Vec<usize> = std::env::var("MEMBERCTL_BENCH_RESTORE_MB")
        .unwrap_or_else(|_| "100".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let me = env!("CARGO_BIN_EXE_memberctl");
    let rt = common::runtime();
    let mut report = String::from(
        "### Restore of an etcd 3.4 snapshot: memberctl vs etcdctl (same file, same run)\n\n| round | data | file | memberctl restore | etcdctl restore | ratio (goal ≤ 1) | memberctl peak RSS | etcdctl peak RSS | `cluster up --from-snapshot --nodes 3` → all answering |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut saves = String::from(
        "\n### `etcdctl snapshot save` of the same data: from the engine (etcd's format) vs from etcd 3.4\n\n| round | data | from the engine (file) | from etcd (file) | ratio (goal ≤ 1) |\n|---|---|---|---|---|\n",
    );
    for mb in sizes {
        let keys = mb * 1_000_000 / common::VALUE_SIZE;
        let work = tempfile::tempdir().unwrap();
        let file = work.path().join("etcd.db");
        // Kept up for the save comparison.
        let cluster = util::Etcd::start_with_flags(
            etcd.clone(),
            1,
            vec!["--quota-backend-bytes", "8589934592"],
        );
        let etcd_url = cluster.members[0].client_url();
        rt.block_on(common::load(&etcd_url, keys));
        util::etcdctl(
            &etcdctl,
            &etcd_url,
            &["snapshot", "save", file.to_str().unwrap()],
        )
        .expect(0);
        let size_mb = std::fs::metadata(&file).unwrap().len() as f64 / 1e6;
        for round in 1..=rounds {
            let ours_dir = work.path().join(format!("ours{round}"));
            let theirs_dir = work.path().join(format!("theirs{round}"));
            // The same restore by either tool (both take etcd's flags), measured.
            let restore = |program: &Path, dir: &Path| {
                measured(
                    Command::new(program)
                        .env("ETCDCTL_API", "3")
                        .args(["snapshot", "restore"])
                        .arg(&file)
                        .args(["--name", "r1", "--data-dir"])
                        .arg(dir)
                        .args(["--initial-cluster", "r1=http://127.0.0.1:1"])
                        .args(["--initial-advertise-peer-urls", "http://127.0.0.1:1"]),
                )
            };
            let ours = || restore(Path::new(me), &ours_dir);
            let theirs = || restore(&etcdctl, &theirs_dir);
            // Alternate which goes first: the page cache then favours neither.
            let (a, b) = if round % 2 == 1 {
                let a = ours();
                (a, theirs())
            } else {
                let b = theirs();
                (ours(), b)
            };
            let _ = std::fs::remove_dir_all(&ours_dir);
            let _ = std::fs::remove_dir_all(&theirs_dir);
            let up_dir = work.path().join(format!("up{round}"));
            let (up, engine_url) = cluster_up_from(me, &file, &up_dir);
            // The other way: etcd's snapshot of the same data, from either server.
            let save = |url: &str, name: &str| {
                let out = work.path().join(name);
                let t = measured(
                    Command::new(&etcdctl)
                        .env("ETCDCTL_API", "3")
                        .args(["--endpoints", url, "snapshot", "save"])
                        .arg(&out),
                );
                let size = std::fs::metadata(&out).unwrap().len() as f64 / 1e6;
                let _ = std::fs::remove_file(&out);
                (t.0, size)
            };
            let (e, f) = if round % 2 == 1 {
                let e = save(&engine_url, "engine-save.db");
                (e, save(&etcd_url, "etcd-save.db"))
            } else {
                let f = save(&etcd_url, "etcd-save.db");
                (save(&engine_url, "engine-save.db"), f)
            };
            cluster_down(me, &up_dir);
            report.push_str(&format!(
                "| {round} | {keys} keys × 1 KiB | {size_mb:.0} MB | {:.2} s | {:.2} s | {:.2} | {:.0} MB | {:.0} MB | {up:.2} s |\n",
                a.0,
                b.0,
                a.0 / b.0,
                a.1,
                b.1
            ));
            saves.push_str(&format!(
                "| {round} | {keys} keys × 1 KiB | {:.2} s ({:.0} MB) | {:.2} s ({:.0} MB) | {:.2} |\n",
                e.0,
                e.1,
                f.0,
                f.1,
                e.0 / f.0
            ));
        }
    }
    report.push_str(&saves);
    println!("{report}");
    common::publish("restore", &report);
}

/// `cluster up --from-snapshot FILE --nodes 3` in `dir` until it reports
/// every member answering: seconds, and the first node's client URL.
fn cluster_up_from(me: &str, file: &Path, dir: &Path) -> (f64, String) {
    let t = Instant::now();
    let out = Command::new(me)
        .args([
            "cluster",
            "up",
            "--nodes",
            "3",
            "-w",
            "json",
            "--from-snapshot",
        ])
        .arg(file)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    if !out.status.success() {
        cluster_down(me, dir);
        panic!(
            "cluster up --from-snapshot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let up: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cluster up's JSON");
    let url = up["nodes"][0]["client_url"]
        .as_str()
        .expect("a client URL")
        .to_string();
    (secs, url)
}

/// `cluster down` of the local cluster in `dir`, and its directory removed.
fn cluster_down(me: &str, dir: &Path) {
    let _ = Command::new(me)
        .args(["cluster", "down", "--dir"])
        .arg(dir)
        .output();
    let _ = std::fs::remove_dir_all(dir);
}
