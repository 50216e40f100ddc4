//! Durability of the embedded engine: acknowledged writes survive kill -9 of
//! every node at random moments, round after round, and the data directories
//! of the crashed nodes open without repair; a damaged store file makes
//! `node run` stop at once, naming the file and what to do.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::Value;

use crate::util::faults::{kill9_all, log_files, recorded_pids, restart, Spawned};
use crate::util::local::{put, Local};
use crate::util::writer::{check_acked, load, missing, SteadyWriter};
use crate::util::{free_port, wait_for};

/// Rounds of writers running, every node killed, `cluster up`.
const ROUNDS: usize = 20;

/// The seed of this run's random kill moments (`MEMBERCTL_TEST_SEED` replays one).
pub fn seed() -> u64 {
    std::env::var("MEMBERCTL_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// 150 writes, then rounds of: two writers running, kill -9 of every node
/// after a random 50–300 ms, `cluster up`, every acknowledged write read back
/// linearizably. At the end each node's own copy holds them all.
fn acknowledged_writes_survive_kill_9_of_every_node() {
    // Fast timing (25 ms / 250 ms): each restart waits for one election.
    let local = Local::up(&[
        "--snapshot-count",
        "50",
        "--heartbeat-interval",
        "25",
        "--election-timeout",
        "250",
    ]);
    let seed = seed();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let first = local.endpoints()[0].clone();
    let mut acked: Vec<(String, String)> = (0..150)
        .map(|i| (format!("dur/seq/{i:03}"), format!("{i}")))
        .collect();
    for (k, v) in &acked {
        put(&first, k, v).unwrap();
    }
    let started = Instant::now();
    let (mut failed, mut delays) = (0, Vec::new());
    for round in 0..ROUNDS {
        let nodes = recorded_pids(&local);
        let endpoints: Vec<String> = nodes.iter().map(|(_, url, _)| url.clone()).collect();
        let pids: Vec<u32> = nodes.iter().map(|(_, _, pid)| *pid).collect();
        let writers: Vec<SteadyWriter> = (0..2)
            .map(|w| {
                let mut eps = endpoints.clone();
                eps.rotate_left(w);
                let prefix = format!("dur/r{round:02}w{w}/");
                SteadyWriter::start(eps, &prefix, Duration::ZERO)
            })
            .collect();
        let delay = rng.gen_range(50..=300);
        delays.push(delay);
        // The fault's random moment, not a wait for a state.
        std::thread::sleep(Duration::from_millis(delay));
        kill9_all(&pids);
        for w in writers {
            let written = w.finish();
            failed += written.failed;
            acked.extend(written.acked);
        }
        restart(&local);
        check_acked(&endpoints, "dur/", &acked);
    }
    // Each member's own copy, once it has applied its log.
    for ep in local.endpoints() {
        wait_for(
            "a restarted member to apply its log",
            Duration::from_secs(15),
            || (missing(&ep, "dur/", &acked)? == 0).then_some(()),
        );
    }
    eprintln!(
        "durability: {ROUNDS} rounds of kill -9 of every node (seed {seed}, delays {delays:?} ms) \
         in {:.1?}: {} acknowledged writes kept, {failed} attempts failed at the kills",
        started.elapsed(),
        acked.len()
    );
}

/// Overwrites `[len/4, 3·len/4)` of `file` with a fixed pseudo-random pattern.
fn overwrite_middle(file: &Path) {
    use std::io::{Seek, SeekFrom, Write};
    let len = std::fs::metadata(file).unwrap().len();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let garbage: Vec<u8> = (0..len / 2)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.seek(SeekFrom::Start(len / 4)).unwrap();
    f.write_all(&garbage).unwrap();
    f.sync_all().unwrap();
}

fn truncate_half(file: &Path) {
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len / 2).unwrap();
    f.sync_all().unwrap();
}

/// The newest checkpoint (snapshot file) in a node's data directory.
fn newest_checkpoint(data: &Path) -> std::path::PathBuf {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(data.join("snap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "snap"))
        .collect();
    files.sort();
    files.pop().expect("a checkpoint")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// A node's data dir damaged after a crash (its newest checkpoint or its
/// raft log truncated to half, or overwritten in the middle): `node run` exits
/// non-zero within seconds, naming the directory and what to do. The
/// undamaged original opens.
fn damaged_store_file_is_reported_not_served() {
    let local = Local::up(&["--nodes", "1", "--snapshot-count", "100"]);
    let ep = local.endpoints()[0].clone();
    let data = load(&ep, "data/", 300, 1024);
    let (_, pid) = local.pids()[0].clone();
    local.kill9(pid);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(local.dir().join("cluster.json")).unwrap())
            .unwrap();
    let node = &state["nodes"][0];
    let original = Path::new(node["data_dir"].as_str().unwrap());
    let name = node["name"].as_str().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    type Damage = fn(&Path);
    let damages: [(&str, Damage); 4] = [
        ("checkpoint truncated to half", |d| {
            truncate_half(&newest_checkpoint(d))
        }),
        ("checkpoint overwritten in the middle", |d| {
            overwrite_middle(&newest_checkpoint(d))
        }),
        ("log overwritten in the middle", |d| {
            overwrite_middle(&log_files(d)[0])
        }),
        ("log file missing", |d| {
            std::fs::remove_file(&log_files(d)[0]).unwrap()
        }),
    ];
    for (what, damage) in damages {
        let dir = scratch.path().join(what.replace(' ', "-"));
        copy_dir(original, &dir);
        damage(&dir);
        let client = format!("http://127.0.0.1:{}", free_port());
        let peer = format!("http://127.0.0.1:{}", free_port());
        let initial = format!("{name}={peer}");
        let args = [
            "node",
            "run",
            "--name",
            name,
            "--data-dir",
            dir.to_str().unwrap(),
            "--listen-client-urls",
            &client,
            "--advertise-client-urls",
            &client,
            "--listen-peer-urls",
            &peer,
            "--initial-advertise-peer-urls",
            &peer,
            "--initial-cluster",
            &initial,
        ];
        let t = Instant::now();
        let r = Spawned::start(local.dir(), &args).wait(Duration::from_secs(10));
        assert_ne!(r.code, 0, "{what}: node run served a damaged file");
        assert!(!r.stderr.contains("panicked"), "{what}: {}", r.stderr);
        for needle in [dir.to_str().unwrap(), "damaged", "memberctl member remove"] {
            assert!(
                r.stderr.contains(needle),
                "{what}: {needle:?} in {}",
                r.stderr
            );
        }
        eprintln!("{what}: refused in {:.1?}", t.elapsed());
    }
    restart(&local);
    check_acked(&local.endpoints(), "data/", &data);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        acknowledged_writes_survive_kill_9_of_every_node,
        damaged_store_file_is_reported_not_served,
    ]
}
