//! kill -9 at the dangerous moments of a membership change on the embedded
//! engine: a learner while it catches up (from the log, from a snapshot), the
//! leader right after a learner add, during `member promote`, between `member
//! joint enter` and `joint leave`, and during `joint leave`. After each: a
//! leader is elected, no acknowledged write is lost, memberctl's next command
//! reports the true state, and a joint configuration can be left.

use crate::util::members::{add_and_start, add_learner_at, hex_list};
use std::time::Duration;

use serde_json::Value;

use crate::util::faults::{
    heal, isolate, leader_among, leader_and_others, members, node_status, progress_of, recorded,
    restart, NodeInfo, Spawned,
};
use crate::util::local::{get_prefix, Local};
use crate::util::writer::{check_acked, load, SteadyWriter};
use crate::util::{free_port, wait_for, wait_for_every, Run};

fn urls(nodes: &[NodeInfo]) -> Vec<String> {
    nodes.iter().map(|n| n.client_url.clone()).collect()
}

fn pid(n: &NodeInfo) -> u32 {
    n.pid
        .unwrap_or_else(|| panic!("node {} has no running process", n.name))
}

/// Waits until one of `survivors` leads, other than `old`; its ID.
fn new_leader(survivors: &[String], old: u64) -> u64 {
    wait_for("a new leader", Duration::from_secs(20), || {
        leader_among(survivors).filter(|s| s.member_id != old)
    })
    .member_id
}

/// The command's exit code is one the README documents for a command cut
/// short by a lost leader (0 done, 4 timed out, 5 unavailable).
fn documented(r: &Run, what: &str) {
    assert!(
        [0, 4, 5].contains(&r.code),
        "{what} exited {}:\n{}\n{}",
        r.code,
        r.stdout,
        r.stderr
    );
}

fn hex(id: u64) -> String {
    format!("{id:016x}")
}

/// `member status` answers, names a leader, lists `members` and every started one is reachable.
fn status_is_true(local: &Local, members: usize) {
    wait_for(
        "member status to show a leader and every started member reachable",
        Duration::from_secs(15),
        || {
            let r = local.ctl(&["member", "status", "-w", "json"]);
            let v = (r.code == 0).then(|| r.json())?;
            let rows = v["members"].as_array()?;
            (v["leader"].is_string()
                && rows.len() == members
                && rows
                    .iter()
                    .all(|m| m["reachable"] == true || m["started"] == false))
            .then_some(())
        },
    );
}

/// A learner killed with kill -9 while it catches up on 400 keys of 16 KiB,
/// then restarted: it catches up and is promoted; with `writes`, a writer
/// runs throughout. From a snapshot: it joins after the data was written (the
/// log is compacted every 20 entries). From the log: it joins first, is cut
/// off (fault injection) while the data is written, and catches up from the
/// log (never compacted) once healed. A joining member is always sent a
/// snapshot first: the log of a new cluster starts after its bootstrap entry.
fn learner_killed_while_catching_up(snapshot: bool, writes: bool) {
    let flags: &[&str] = if snapshot {
        &["--snapshot-count", "20"]
    } else {
        &["--fault-injection", "--snapshot-count", "1000000"]
    };
    let local = Local::up(flags);
    let (leader, others) = leader_and_others(&local);
    let mut voters = others.clone();
    voters.push(leader.clone());
    let writer =
        writes.then(|| SteadyWriter::start(urls(&voters), "catch/", Duration::from_millis(10)));
    // Added after the data was written when it is to be sent a snapshot, so
    // that the snapshot holds the loaded data (the test with writes below
    // covers a learner added while the log is being compacted).
    let loaded = snapshot.then(|| load(&leader.client_url, "big/", 400, 16 * 1024));
    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = add_learner_at(|a| local.ctl(a), "n4", &peer);
    let id = u64::from_str_radix(added["member"]["id"].as_str().unwrap(), 16).unwrap();
    let (loaded, start, base) = if let Some(loaded) = loaded {
        let start = Spawned::start(local.dir(), &["cluster", "start-node", "n4"]);
        (loaded, Some(start), 0)
    } else {
        local.ctl(&["cluster", "start-node", "n4"]).expect(0);
        let (url, _) = recorded(&local, "n4").unwrap();
        isolate(&url, &voters.iter().map(|v| v.id).collect::<Vec<_>>());
        for v in &voters {
            isolate(&v.client_url, &[id]);
        }
        let base = node_status(&url).unwrap().applied;
        let loaded = load(&leader.client_url, "big/", 400, 16 * 1024);
        for u in urls(&voters).iter().chain([&url]) {
            heal(u);
        }
        (loaded, None, base)
    };
    // The moment: n4 is being sent the snapshot, or has applied part of the log.
    let (n4, pid, seen, of) = wait_for_every(
        "n4 to be catching up",
        Duration::from_secs(20),
        Duration::from_millis(5),
        || {
            let (url, pid) = recorded(&local, "n4")?;
            let s = node_status(&url).ok()?;
            let l = node_status(&leader.client_url).ok()?;
            let sending = progress_of(&leader.client_url, id).ok()?.state == "snapshot";
            let midway = if snapshot {
                sending
            } else {
                !sending && s.applied > base
            };
            // Below etcd's readiness rule: still catching up.
            let behind = (s.applied as f64) < l.raft_index as f64 * 0.9;
            (midway && behind).then_some((url, pid?, s.applied, l.raft_index))
        },
    );
    local.kill9(pid);
    if let Some(start) = start {
        let started = start.wait(Duration::from_secs(40));
        // It either saw n4 publish its name before the kill, or reports that it exited.
        assert!(
            started.code == 0 || started.stderr.contains("exited at start"),
            "start-node: {}\n{}",
            started.code,
            started.stderr
        );
    }
    let path = if snapshot { "a snapshot" } else { "the log" };
    eprintln!("learner killed while catching up from {path}: at index {seen} of {of}");

    wait_for("a leader after the kill", Duration::from_secs(15), || {
        leader_among(&urls(&voters))
    });
    restart(&local);
    status_is_true(&local, 4);
    assert!(
        members(&local).contains(&("n4".to_string(), true, true)),
        "{:?}",
        members(&local)
    );
    check_acked(&urls(&voters), "big/", &loaded);
    if let Some(w) = &writer {
        check_acked(&urls(&voters), "catch/", &w.snapshot());
    }
    let p = local.ctl(&["member", "promote", "n4", "--timeout", "180s", "-w", "json"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    if let Some(w) = writer {
        check_acked(&urls(&voters), "catch/", &w.finish().acked);
    }
    wait_for("n4 to hold the data", Duration::from_secs(20), || {
        let got = get_prefix(&n4, "big/").ok()?;
        (got == loaded).then_some(())
    });
}

/// A learner killed while it catches up from the leader's log (never compacted), under writes.
fn learner_killed_while_catching_up_from_the_log() {
    learner_killed_while_catching_up(false, true);
}

/// A learner killed while it is sent a snapshot (the log is compacted every
/// 20 entries), the cluster idle meanwhile.
fn learner_killed_while_catching_up_from_a_snapshot() {
    learner_killed_while_catching_up(true, false);
}

/// The same under writes: while the restarted learner takes the snapshot in,
/// the leader compacts past it and must send a newer one (a stale cached
/// snapshot used to be resent forever).
fn learner_killed_while_catching_up_from_a_snapshot_under_writes() {
    learner_killed_while_catching_up(true, true);
}

/// The leader killed right after `member add --learner` returned, and again
/// while `member promote` waits for that learner.
fn leader_killed_after_a_learner_add_and_during_promote() {
    let local = Local::up(&[]);
    let (leader, others) = leader_and_others(&local);
    let mut voters = urls(&others);
    voters.push(leader.client_url.clone());
    let writer = SteadyWriter::start(voters.clone(), "add/", Duration::from_millis(10));
    writer.wait_for_more(5, Duration::from_secs(10));

    // 1. Right after an acknowledged learner add: the add survives.
    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = add_learner_at(|a| local.ctl(a), "n4", &peer);
    local.kill9(pid(&leader));
    let n4 = added["member"]["id"].as_str().unwrap().to_string();
    new_leader(&urls(&others), leader.id);
    assert!(
        members(&local).contains(&(n4.clone(), true, false)),
        "{:?}",
        members(&local)
    );
    writer.wait_for_more(5, Duration::from_secs(15));
    restart(&local);
    status_is_true(&local, 4);
    check_acked(&voters, "add/", &writer.snapshot());

    // 2. During promote: it waits for n4 (not started yet) when the leader dies.
    let promote = Spawned::start(
        local.dir(),
        &["member", "promote", &n4, "--timeout", "180s", "-w", "json"],
    );
    // With -w json its progress is a JSON line per sample on stderr.
    wait_for("promote to be waiting", Duration::from_secs(15), || {
        promote.stderr().contains("{\"catch_up\":").then_some(())
    });
    let (leader, others) = leader_and_others(&local);
    local.kill9(pid(&leader));
    let r = local.ctl(&["cluster", "start-node", "n4"]);
    assert_eq!(r.code, 0, "start-node: {}\n{}", r.stderr, local.logs());
    let r = promote.wait(Duration::from_secs(90));
    documented(&r, "member promote");
    new_leader(&urls(&others), leader.id);
    restart(&local);
    if r.code != 0 {
        let again = local.ctl(&["member", "promote", "n4", "--timeout", "30s"]);
        assert!(
            again.code == 0 || again.stderr.contains("already a voter"),
            "{}",
            again.stderr
        );
    }
    assert!(
        members(&local).contains(&("n4".to_string(), false, true)),
        "{:?}",
        members(&local)
    );
    status_is_true(&local, 4);
    let written = writer.finish();
    let n = check_acked(&voters, "add/", &written.acked);
    eprintln!(
        "leader killed after add and during promote (promote exited {}): {n} writes kept",
        r.code
    );
}

/// Leaves the joint configuration, retrying while the cluster is unavailable; bounded.
fn leave(local: &Local) -> Value {
    wait_for("joint leave to succeed", Duration::from_secs(30), || {
        let r = local.ctl(&["member", "joint", "leave", "-w", "json"]);
        match r.code {
            0 => Some(r.json()),
            4 | 5 => None,
            _ => panic!("joint leave: {}\n{}", r.stderr, local.logs()),
        }
    })
}

/// The leader killed between `joint enter` and `joint leave`, then again
/// while `joint leave` runs (the leader being demoted, so that leave hands
/// leadership over first).
fn leader_killed_while_joint_and_during_leave() {
    let local = Local::up(&[]);
    add_and_start(&local, "n4");
    let (leader, others) = leader_and_others(&local);
    let all: Vec<String> = urls(&others)
        .into_iter()
        .chain([leader.client_url.clone()])
        .collect();
    let writer = SteadyWriter::start(all.clone(), "joint/", Duration::from_millis(10));
    let demoted = others.iter().find(|n| n.name != "n4").unwrap().clone();

    // 3. Between enter and leave.
    let joint = local.joint_enter(&["--promote", "n4", "--demote", &demoted.name]);
    assert_eq!(joint["joint"], true);
    local.kill9(pid(&leader));
    new_leader(&urls(&others), leader.id);
    let still = local.joint_status();
    assert_eq!(still, joint, "the joint configuration after the kill");
    writer.wait_for_more(5, Duration::from_secs(15));
    restart(&local);
    check_acked(&all, "joint/", &writer.snapshot());
    let left = leave(&local);
    assert_eq!(left["joint"], false);
    assert_eq!(hex_list(&left["learners"]), vec![hex(demoted.id)]);
    status_is_true(&local, 4);

    // 4. During leave, with the leader demoted: leave must hand leadership over.
    let (leader, others) = leader_and_others(&local);
    let joint = local.joint_enter(&["--promote", &demoted.name, "--demote", &leader.name]);
    assert_eq!(hex_list(&joint["learners_next"]), vec![hex(leader.id)]);
    let mut running = Spawned::start(local.dir(), &["member", "joint", "leave", "-w", "json"]);
    let under_way = running.running();
    local.kill9(pid(&leader));
    let r = running.wait(Duration::from_secs(60));
    documented(&r, "member joint leave");
    new_leader(&urls(&others), leader.id);
    restart(&local);
    let now = local.joint_status();
    let left = if now["joint"] == true {
        assert_ne!(r.code, 0, "leave succeeded but the configuration is joint");
        leave(&local)
    } else {
        now
    };
    assert_eq!(left["joint"], false);
    assert_eq!(hex_list(&left["learners"]), vec![hex(leader.id)]);
    let list = members(&local);
    assert!(
        list.contains(&(leader.name.clone(), true, true)),
        "{list:?}"
    );
    assert!(
        list.contains(&(demoted.name.clone(), false, true)),
        "{list:?}"
    );
    status_is_true(&local, 4);
    let written = writer.finish();
    let n = check_acked(&all, "joint/", &written.acked);
    eprintln!(
        "leader killed while joint and during leave (leave {} when killed, exited {}): {n} writes kept",
        if under_way { "running" } else { "done" },
        r.code
    );
}

/// memberctl killed between starting a node and recording it leaves the node
/// running unrecorded (holding its ports and data directory); the next
/// `cluster start-node` (as a resumed `member apply --start-local` runs it)
/// stops that orphan and starts the node as recorded.
fn start_node_replaces_an_unrecorded_orphan() {
    let local = Local::up(&["--nodes", "1"]);
    add_and_start(&local, "n2");
    let orphan = recorded(&local, "n2")
        .and_then(|(_, pid)| pid)
        .expect("n2 is recorded with a pid");
    // Forget the pid, as a kill -9 right after the spawn would.
    let path = local.dir().join("cluster.json");
    let mut state: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for n in state["nodes"].as_array_mut().unwrap() {
        if n["name"] == "n2" {
            n["pid"] = Value::Null;
        }
    }
    std::fs::write(&path, state.to_string()).unwrap();
    let r = local.ctl(&["cluster", "start-node", "n2"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    let (_, pid) = recorded(&local, "n2").expect("n2 is recorded");
    assert!(pid.is_some_and(|p| p != orphan), "n2 runs as a new process");
    assert!(
        !std::path::Path::new(&format!("/proc/{orphan}/cmdline")).exists()
            || std::fs::read_to_string(format!("/proc/{orphan}/stat"))
                .is_ok_and(|s| s.contains(") Z")),
        "the orphan was stopped"
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        learner_killed_while_catching_up_from_the_log,
        learner_killed_while_catching_up_from_a_snapshot,
        learner_killed_while_catching_up_from_a_snapshot_under_writes,
        leader_killed_after_a_learner_add_and_during_promote,
        leader_killed_while_joint_and_during_leave,
        start_node_replaces_an_unrecorded_orphan,
    ]
}
