//! A removed member always stops (etcd's "permanently removed"): a member
//! removed while it was down, started again on its old data directory, is
//! refused by its peers and stops with exit 7 within bounds, without moving
//! the cluster's term or losing an acknowledged write; started once more it
//! refuses at once. The peers' knowledge survives their restart from a
//! checkpoint taken after the removal, and reaches a member that joined by
//! snapshot after it.

use std::time::{Duration, Instant};

use crate::util::faults::{exited, heal, isolate, leader_among, leader_and_others};
use crate::util::local::{self, Local};
use crate::util::wait_for;
use crate::util::writer::{check_acked, SteadyWriter};

/// `memberctl node run` of node `name` on its recorded data directory and
/// URLs, by hand (the local cluster does not start a removed node); waits
/// up to `limit` for it to exit: (exit code, stderr, seconds it ran).
fn run_by_hand(local: &Local, name: &str, limit: Duration) -> (i32, String, f64) {
    let log = local.dir().join(format!("{name}-by-hand.log"));
    let started = Instant::now();
    let mut child = local
        .node_run(name, &[])
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start the removed member by hand");
    let deadline = started + limit;
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the removed member {name} still ran after {limit:?}:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    (code, stderr, started.elapsed().as_secs_f64())
}

/// The leader's raft term, from `member status`.
fn leader_term(local: &Local) -> u64 {
    let doc = local
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == doc["leader"])
        .and_then(|m| m["raft_term"].as_u64())
        .unwrap_or_else(|| panic!("no leader in {doc}"))
}

/// Kills node `name` and removes its member; returns the member's ID.
fn kill_and_remove(local: &Local, name: &str) -> String {
    let id = local.node(name)["id"].as_str().unwrap().to_string();
    let pid = local
        .pids()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p)
        .expect("the node runs");
    local.kill9(pid);
    local
        .ctl(&["member", "remove", &id, "--timeout", "30s"])
        .expect(0);
    id
}

/// Asserts what a removed member says (that it stopped at all is
/// `run_by_hand`'s bounded wait; how fast is not asserted: a busy machine
/// only makes it slower).
fn assert_stopped_as_removed(run: &(i32, String, f64), id: &str) {
    let (code, stderr, secs) = run;
    eprintln!("the removed member stopped after {secs:.1} s");
    assert_eq!(
        *code, 0,
        "exit code of a removed member (0, as etcd's); it said:\n{stderr}"
    );
    assert!(
        stderr.contains("permanently removed") && stderr.contains(id),
        "{stderr}"
    );
}

fn a_member_removed_while_down_stops_when_started_again() {
    let local = Local::up(&["--nodes", "3"]);
    let ep = local.endpoints()[0].clone();
    let id = kill_and_remove(&local, "n3");
    let eps: Vec<String> = local.endpoints();
    for i in 0..20 {
        local::put(&eps[i % eps.len()], &format!("after/{i:02}"), "v").unwrap();
    }
    let term = leader_term(&local);
    // Election timeout 1 s: it reaches a peer, is refused and stops well
    // within a few election timeouts.
    let run = run_by_hand(&local, "n3", Duration::from_secs(30));
    assert_stopped_as_removed(&run, &id);
    assert_eq!(
        leader_term(&local),
        term,
        "the removed member moved the term"
    );
    let kept = local::get_prefix_linearizable(&ep, "after/").unwrap();
    assert_eq!(kept.len(), 20, "{kept:?}");
    // Started once more on that data directory, it refuses before serving.
    let again = run_by_hand(&local, "n3", Duration::from_secs(30));
    assert_stopped_as_removed(&again, &id);
    assert!(again.1.contains("stale"), "{}", again.1);
    // Its name and peer URL added again: a new ID, a member that starts
    // from an empty data directory (the stale one kept aside) and joins.
    let old = local.node("n3");
    let peer_url = old["peer_url"].as_str().unwrap();
    let added = local
        .ctl(&[
            "member",
            "add",
            "n3",
            "--learner",
            "--peer-urls",
            peer_url,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let new_id = added["member"]["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, id);
    local.ctl(&["cluster", "start-node", "n3"]).expect(0);
    let aside = std::fs::read_dir(local.dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with("n3.removed-"));
    assert!(aside, "the stale data directory is kept aside");
    local
        .ctl(&["member", "promote", "n3", "--timeout", "180s"])
        .expect(0);
    let kept = local::get_prefix_linearizable(&local.client_url("n3"), "after/").unwrap();
    assert_eq!(kept.len(), 20);
}

/// The peers restart from a checkpoint taken after the removal (their log
/// compacted past it): the knowledge comes from the checkpoint.
fn the_removal_is_remembered_across_checkpoints() {
    let local = Local::up(&["--nodes", "3", "--snapshot-count", "20"]);
    let id = kill_and_remove(&local, "n3");
    let ep = local.endpoints()[0].clone();
    for i in 0..100 {
        local::put(&ep, &format!("k{i:03}"), "v").unwrap();
    }
    local.ctl(&["cluster", "down"]).expect(0);
    local.ctl(&["cluster", "up"]).expect(0);
    wait_for("the restarted cluster", Duration::from_secs(30), || {
        local::get_prefix_linearizable(&local.endpoints()[0], "k")
            .ok()
            .filter(|k| k.len() == 100)
    });
    let term = leader_term(&local);
    let run = run_by_hand(&local, "n3", Duration::from_secs(30));
    assert_stopped_as_removed(&run, &id);
    assert_eq!(leader_term(&local), term);
}

/// The leader cut off from both followers and removed by the majority
/// meanwhile: once the partition heals it learns of its removal from its
/// peers' refusal and stops (its process ends, its log says so, its data
/// directory is marked); the majority's term does not move and every
/// acknowledged write is kept.
fn a_partitioned_old_leader_removed_meanwhile_stops_when_healed() {
    let local = Local::up(&["--fault-injection"]);
    let (old, others) = leader_and_others(&local);
    let majority: Vec<String> = others.iter().map(|n| n.client_url.clone()).collect();
    let writer = SteadyWriter::start(majority.clone(), "rm/", Duration::from_millis(5));
    writer.wait_for_more(5, Duration::from_secs(10));
    let ids: Vec<u64> = others.iter().map(|n| n.id).collect();
    isolate(&old.client_url, &ids);
    for n in &others {
        isolate(&n.client_url, &[old.id]);
    }
    wait_for(
        "the majority to elect a new leader",
        Duration::from_secs(15),
        || leader_among(&majority).filter(|s| s.member_id != old.id),
    );
    let eps = majority.join(",");
    let old_id = format!("{:016x}", old.id);
    local
        .ctl(&[
            "--endpoints",
            &eps,
            "member",
            "remove",
            &old_id,
            "--timeout",
            "30s",
        ])
        .expect(0);
    writer.wait_for_more(10, Duration::from_secs(10));
    let term = leader_among(&majority).expect("a leader").raft_term;

    for n in others.iter().chain([&old]) {
        heal(&n.client_url);
    }
    let pid = old.pid.expect("the old leader runs");
    let healed = Instant::now();
    wait_for(
        "the removed old leader to stop",
        Duration::from_secs(15),
        || exited(pid).then_some(()),
    );
    let stopped_after = healed.elapsed().as_secs_f64();
    let written = writer.finish();
    let logs = local.logs();
    assert!(
        logs.contains(&format!("member {old_id} was permanently removed")),
        "{logs}"
    );
    let mark = std::path::PathBuf::from(local.record(&old.name).0["data_dir"].as_str().unwrap())
        .join("removed");
    assert!(mark.exists(), "{} is not marked", mark.display());
    assert_eq!(
        leader_among(&majority).expect("a leader").raft_term,
        term,
        "the removed old leader moved the term"
    );
    let n = check_acked(&majority, "rm/", &written.acked);
    eprintln!("old leader removed while cut off: stopped {stopped_after:.2} s after the heal, {n} acknowledged writes kept");
}

/// A member that joined by snapshot after the removal (the log compacted
/// past it) knows the removed ID from the snapshot alone: the removed
/// member, back on its old data, reaches only that new member (it took the
/// peer URL of a member removed since) and is refused by it.
fn a_member_that_joined_by_snapshot_knows_the_removed_ids() {
    let local = Local::up(&["--nodes", "3", "--snapshot-count", "20"]);
    let id3 = kill_and_remove(&local, "n3");
    let ep = local.client_url("n2");
    for i in 0..100 {
        local::put(&ep, &format!("k{i:03}"), "v").unwrap();
    }
    // n1 makes way for n4 on its peer URL; n4 joins by snapshot.
    let n1_peer = local.node("n1")["peer_url"].as_str().unwrap().to_string();
    let id1 = local.node("n1")["id"].as_str().unwrap().to_string();
    local
        .ctl(&[
            "--endpoints",
            &ep,
            "member",
            "remove",
            &id1,
            "--force",
            "--timeout",
            "30s",
        ])
        .expect(0);
    local
        .ctl(&[
            "--endpoints",
            &ep,
            "member",
            "add",
            "n4",
            "--learner",
            "--peer-urls",
            &n1_peer,
        ])
        .expect(0);
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    local
        .ctl(&[
            "--endpoints",
            &ep,
            "member",
            "promote",
            "n4",
            "--timeout",
            "60s",
        ])
        .expect(0);
    let n4 = local.client_url("n4");
    wait_for("n4 to hold the keys", Duration::from_secs(20), || {
        local::get_prefix(&n4, "k").ok().filter(|k| k.len() == 100)
    });
    // Only n4 is left where n3 will look.
    let n2_pid = local
        .pids()
        .into_iter()
        .find(|(n, _)| n == "n2")
        .map(|(_, p)| p)
        .unwrap();
    local.kill9(n2_pid);
    let run = run_by_hand(&local, "n3", Duration::from_secs(30));
    assert_stopped_as_removed(&run, &id3);
}

/// A learner sends no raft message of its own (it never campaigns), and
/// the leader sends none to a member it removed: started again on its old
/// data, a removed learner learns of its removal from its peers' answers to
/// its probes (every 4 s), and stops.
fn a_learner_removed_while_down_stops_when_started_again() {
    let local = Local::up(&["--nodes", "3"]);
    crate::util::members::add_and_start(&local, "l4");
    let id = kill_and_remove(&local, "l4");
    // Two probe intervals and some: bounded, the machine may be busy.
    let run = run_by_hand(&local, "l4", Duration::from_secs(45));
    assert_stopped_as_removed(&run, &id);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_member_removed_while_down_stops_when_started_again,
        a_learner_removed_while_down_stops_when_started_again,
        the_removal_is_remembered_across_checkpoints,
        a_partitioned_old_leader_removed_meanwhile_stops_when_healed,
        a_member_that_joined_by_snapshot_knows_the_removed_ids,
    ]
}
