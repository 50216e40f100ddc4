//! Faults in the engine's storage: kill -9 while a snapshot is streamed to a
//! learner (the learner, then the leader sending it), kill -9 of every node
//! while the log is compacted and its files purged, and a torn tail in a
//! node's log file. Nothing acknowledged is lost; a node restarts, or exits
//! with a message naming its directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::{Rng, SeedableRng};

use super::durability::seed;
use crate::util::faults::{kill9_all, log_files, recorded_pids, restart};
use crate::util::local::Local;
use crate::util::members::add_and_start;
use crate::util::wait_for;
use crate::util::writer::{check_acked, load, missing as missing_writes, SteadyWriter};

/// A node's data directory in a local cluster.
fn data_dir(local: &Local, name: &str) -> PathBuf {
    local.dir().join(name)
}

/// Whether a snapshot is being received into `data` now.
fn receiving(data: &Path) -> bool {
    std::fs::read_dir(data.join("snap")).is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "partial"))
    })
}

/// Waits (polling every millisecond, at most 30 s) until `name` is receiving a snapshot.
fn wait_until_receiving(local: &Local, name: &str) {
    let data = data_dir(local, name);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !receiving(&data) {
        assert!(
            std::time::Instant::now() < deadline,
            "{name} was not seen receiving a snapshot within 30 s\n{}",
            local.logs()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn pid_of(local: &Local, name: &str) -> u32 {
    local
        .pids()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("{name} runs"))
}

/// Waits until `name`'s own copy holds every acknowledged write; the
/// members' status and the nodes' logs when it does not in time.
fn wait_for_copy(local: &Local, name: &str, prefix: &str, acked: &[(String, String)]) {
    let ep = local.client_url(name);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut missing = acked.len();
    while std::time::Instant::now() < deadline {
        if let Some(m) = missing_writes(&ep, prefix, acked) {
            missing = m;
            if missing == 0 {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{name} still lacks {missing} of {} acknowledged writes after 60 s\n{}\n{}",
        acked.len(),
        local.ctl(&["member", "status"]).stdout,
        local.logs()
    );
}

/// A learner joins a cluster holding 8 MB: it is killed while the snapshot
/// streams in and restarted; then a second learner's sender, the leader, is
/// killed mid-stream. Each learner ends with every acknowledged write, no
/// half-received snapshot is left behind, and a writer loses nothing.
fn kill_9_during_a_snapshot_stream() {
    let local = Local::up(&["--fault-injection", "--snapshot-count", "500"]);
    let ep = local.endpoints()[0].clone();
    let mut acked = load(&ep, "snap/data/", 1000, 8 * 1024);
    let writer = SteadyWriter::start(local.endpoints(), "snap/w/", Duration::from_millis(5));

    // The learner killed while it receives: the leader sends slowly (200 ms
    // a piece), so that the stream is caught in flight.
    let (leader, _) = crate::util::faults::leader_and_others(&local);
    crate::util::faults::snapshot_fault(&leader.client_url, 200);
    add_and_start(&local, "l1");
    let l1 = data_dir(&local, "l1");
    wait_until_receiving(&local, "l1");
    local.kill9(pid_of(&local, "l1"));
    restart(&local);
    wait_for_copy(&local, "l1", "snap/data/", &acked);
    assert!(
        !receiving(&l1),
        "a half-received snapshot was left in {l1:?}"
    );
    local
        .ctl(&["member", "promote", "l1", "--timeout", "180s"])
        .expect(0);

    // The leader killed while it sends (slowly again: a restart cleared it).
    let (leader, _) = crate::util::faults::leader_and_others(&local);
    crate::util::faults::snapshot_fault(&leader.client_url, 200);
    add_and_start(&local, "l2");
    wait_until_receiving(&local, "l2");
    local.kill9(pid_of(&local, &leader.name));
    wait_for_copy(&local, "l2", "snap/data/", &acked);
    restart(&local);
    let written = writer.finish();
    acked.extend(written.acked);
    check_acked(&local.endpoints(), "snap/", &acked);
    for name in ["l1", "l2"] {
        wait_for_copy(&local, name, "snap/", &acked);
    }
    eprintln!(
        "snapshot streams killed: {} acknowledged writes kept, {} attempts failed at the kills",
        acked.len(),
        written.failed
    );
}

/// 64 KiB log files and compaction every 100 entries: the log is compacted
/// and its files purged all the time while two writers run; every node is
/// killed at random moments, round after round. Every acknowledged write is
/// read back, and the old files did go.
fn kill_9_during_log_compaction_and_purge() {
    let local = Local::up_with_env(
        &[
            "--snapshot-count",
            "100",
            "--heartbeat-interval",
            "25",
            "--election-timeout",
            "250",
        ],
        &[("MEMBERCTL_ENGINE_LOG_FILE_BYTES", "65536")],
    );
    let seed = seed();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut acked = Vec::new();
    let mut highest_file = 0;
    for round in 0..5 {
        let nodes = recorded_pids(&local);
        let endpoints: Vec<String> = nodes.iter().map(|(_, url, _)| url.clone()).collect();
        let writers: Vec<SteadyWriter> = (0..2)
            .map(|w| {
                let mut eps = endpoints.clone();
                eps.rotate_left(w);
                SteadyWriter::start(eps, &format!("purge/r{round}w{w}/"), Duration::ZERO)
            })
            .collect();
        // Bounded, with the nodes' logs if the cluster stops taking writes.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while writers[0].acked() < 300 {
            assert!(
                std::time::Instant::now() < deadline,
                "round {round}: {} writes in 60 s\n{}",
                writers[0].acked(),
                local.logs()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The fault's random moment, not a wait for a state.
        std::thread::sleep(Duration::from_millis(rng.gen_range(0..200)));
        kill9_all(&nodes.iter().map(|(_, _, p)| *p).collect::<Vec<_>>());
        for w in writers {
            acked.extend(w.finish().acked);
        }
        let files = log_files(&data_dir(&local, &nodes[0].0));
        highest_file = files.len().max(highest_file);
        restart(&local);
        check_acked(&endpoints, "purge/", &acked);
    }
    let first = &recorded_pids(&local)[0].0;
    let seq = |p: &PathBuf| -> u64 {
        p.file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    // A purge waits for the state to be checkpointed past the files, which
    // the kills may have cut short every round on a busy machine: writes go
    // on, without kills, until the old files go (bounded).
    let endpoints: Vec<String> = recorded_pids(&local)
        .into_iter()
        .map(|(_, u, _)| u)
        .collect();
    let calm = SteadyWriter::start(endpoints.clone(), "purge/calm/", Duration::ZERO);
    let (oldest, files) = crate::util::wait_for(
        &format!("a log file purged on {first}"),
        Duration::from_secs(120),
        || {
            let files = log_files(&data_dir(&local, first));
            let oldest = files.first().map(seq).unwrap_or(0);
            (oldest > 1).then_some((oldest, files))
        },
    );
    let calm = calm.finish();
    check_acked(&endpoints, "purge/calm/", &calm.acked);
    eprintln!(
        "compaction and purge under kill -9 (seed {seed}): {} acknowledged writes kept; \
         {first} keeps files {oldest}.. ({} files, at most {highest_file} seen)",
        acked.len(),
        files.len()
    );
}

/// The written part of `file`: its length without trailing zeros.
fn written_len(file: &Path) -> u64 {
    let bytes = std::fs::read(file).unwrap();
    bytes
        .iter()
        .rposition(|&b| b != 0)
        .map_or(0, |i| i as u64 + 1)
}

/// Appends to `file`, right after its written part, the first 100 bytes of
/// a 4 KiB batch: a write torn by a crash before it was fsync'd.
fn append_torn_write(file: &Path, written: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut torn = ((4096u64 << 8).to_be_bytes()).to_vec();
    torn.extend_from_slice(&100u64.to_be_bytes());
    torn.resize(100, 0xab);
    let mut f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.seek(SeekFrom::Start(written)).unwrap();
    f.write_all(&torn).unwrap();
    f.sync_all().unwrap();
}

/// A follower killed under writes, then its newest log file damaged at the
/// tail: first a torn unacknowledged write after its last record (cut off
/// at restart: the member serves and catches up), then three times cut at a
/// random byte of its last 4 KiB (which may take entries it had
/// acknowledged: the member either catches up, or stops naming its
/// directory and is rebuilt). The cluster keeps every acknowledged write.
fn torn_log_tail_is_cut_or_refused() {
    let local = Local::up(&[]);
    let seed = seed();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut acked = load(&local.endpoints()[0], "torn/base/", 200, 512);
    let mut outcomes = Vec::new();
    for round in 0..4 {
        // A follower that is a member now (earlier rounds' victims may be
        // removed ones, still recorded by the local cluster).
        let (_, others) = crate::util::faults::leader_and_others(&local);
        let list = local
            .ctl(&["member", "list", "-w", "json"])
            .expect(0)
            .json();
        let members: Vec<String> = list["members"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect();
        let victim = others
            .iter()
            .find(|n| members.contains(&n.name) && n.pid.is_some())
            .expect("a follower")
            .name
            .clone();
        let writer = SteadyWriter::start(
            local.endpoints(),
            &format!("torn/r{round}/"),
            Duration::ZERO,
        );
        writer.wait_for_writes(100);
        local.kill9(pid_of(&local, &victim));
        acked.extend(writer.finish().acked);
        let data = data_dir(&local, &victim);
        let newest = log_files(&data).pop().expect("a log file");
        let written = written_len(&newest);
        let cut = if round == 0 {
            append_torn_write(&newest, written);
            written
        } else {
            let cut = rng.gen_range(written.saturating_sub(4096)..written);
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&newest)
                .unwrap();
            f.set_len(cut).unwrap();
            f.sync_all().unwrap();
            cut
        };
        let up = local.ctl(&["cluster", "up", "-w", "json"]);
        let log_file = local.dir().join(format!("{victim}.log"));
        // Serving, it may still find on the leader's first message that the
        // cut took entries it had acknowledged, and stop.
        let caught_up = up.code == 0 && {
            let ep = local.client_url(&victim);
            wait_for(
                &format!("{victim} to catch up or stop"),
                Duration::from_secs(60),
                || {
                    let log = std::fs::read_to_string(&log_file).unwrap_or_default();
                    if log.contains("is damaged") {
                        return Some(false);
                    }
                    (missing_writes(&ep, "torn/", &acked)? == 0).then_some(true)
                },
            )
        };
        let log = std::fs::read_to_string(&log_file).unwrap_or_default();
        assert!(!log.contains("panicked"), "{victim} panicked:\n{log}");
        assert!(
            caught_up || round > 0,
            "{victim} refused a torn unacknowledged write:\n{log}"
        );
        if caught_up {
            outcomes.push(format!("cut at {cut} of {written}: restarted"));
        } else {
            for needle in [
                "is damaged",
                data.to_str().unwrap(),
                "memberctl member remove",
            ] {
                assert!(
                    log.contains(needle),
                    "{victim} neither caught up nor said why ({needle:?}):\n{}\n{log}",
                    up.stderr
                );
            }
            wait_for(
                &format!("{victim} to exit"),
                Duration::from_secs(15),
                || {
                    let status = local.status();
                    let node = status["nodes"]
                        .as_array()?
                        .iter()
                        .find(|n| n["name"] == victim.as_str())?
                        .clone();
                    (node["running"] == false).then_some(())
                },
            );
            outcomes.push(format!("cut at {cut} of {written}: refused"));
            // Rebuilt from the rest of the cluster, as the message says.
            local.ctl(&["member", "remove", &victim]).expect(0);
            let rebuilt = format!("rebuilt{round}");
            add_and_start(&local, &rebuilt);
            wait_for_copy(&local, &rebuilt, "torn/", &acked);
            local
                .ctl(&["member", "promote", &rebuilt, "--timeout", "180s"])
                .expect(0);
        }
        check_acked(&local.endpoints(), "torn/", &acked);
    }
    eprintln!("torn log tails (seed {seed}): {outcomes:?}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        kill_9_during_a_snapshot_stream,
        kill_9_during_log_compaction_and_purge,
        torn_log_tail_is_cut_or_refused,
        a_members_values_are_kept_in_files_not_on_its_heap,
    ]
}

/// A member's anonymous memory (`RssAnon`, KiB → MiB): the heap, not the
/// mapped files' pages the kernel may drop.
fn anon_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .expect("RssAnon in /proc/PID/status")
        / 1024.0
}

/// The values a member holds are kept in files it maps, not on its heap:
/// 96 MiB of values written to a one-member cluster leave its anonymous
/// memory well below them, before and after a restart (which reads them
/// from the checkpoint's pages and the log), and every value reads back.
fn a_members_values_are_kept_in_files_not_on_its_heap() {
    const VALUES_MIB: f64 = 96.0;
    let local = Local::up(&["--nodes", "1", "--snapshot-count", "2000"]);
    let ep = local.endpoints()[0].clone();
    let acked = load(&ep, "v/", 24_576, 4096);
    let (name, pid) = local.pids()[0].clone();
    let before = anon_mib(pid);
    every_value_reads_back(&ep, &acked);
    restart_member(&local, &name, pid);
    let pid = pid_of(&local, &name);
    let after = anon_mib(pid);
    every_value_reads_back(&ep, &acked);
    eprintln!("{name}: {before:.0} MiB anonymous written, {after:.0} MiB restarted");
    // The raft log's in-memory tail (32 MiB of the newest entries, values
    // included) is on the heap; the rest of the values must not be.
    for (when, mib) in [("written", before), ("restarted", after)] {
        assert!(
            mib < VALUES_MIB * 0.75,
            "{name} holds {mib:.0} MiB of anonymous memory {when} with {VALUES_MIB} MiB of values"
        );
    }
}

/// Reads `acked` back from `ep` a hundred keys at a time (a response of
/// them all would pass gRPC's message limit).
fn every_value_reads_back(ep: &str, acked: &[(String, String)]) {
    let mut groups: std::collections::BTreeMap<&str, Vec<(String, String)>> = Default::default();
    for (k, v) in acked {
        groups
            .entry(&k[..k.len() - 2])
            .or_default()
            .push((k.clone(), v.clone()));
    }
    for (prefix, group) in groups {
        assert_eq!(
            missing_writes(ep, prefix, &group),
            Some(0),
            "values under {prefix}"
        );
    }
}

/// Stops `name` (`pid`) and starts it again.
fn restart_member(local: &Local, name: &str, pid: u32) {
    local.kill9(pid);
    restart(local);
    wait_for(
        &format!("{name} to answer again"),
        Duration::from_secs(60),
        || missing_writes(&local.client_url(name), "v/000", &[]),
    );
}
