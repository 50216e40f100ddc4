//! Network partitions on the embedded engine, made with `cluster up
//! --fault-injection` (raft traffic to and from chosen peers dropped): a
//! leader cut off in a minority, and a learner cut off while it would be
//! promoted.

use std::time::Duration;

use crate::util::faults::{
    heal, isolate, leader_among, leader_and_others, members, node_status, progress_of,
};
use crate::util::local::{get_prefix, put, Local};
use crate::util::members::add_and_start;
use crate::util::wait_for;
use crate::util::writer::{check_acked, missing, SteadyWriter};

/// Every acknowledged put is in `endpoint`'s own copy (serializable read),
/// once it has applied them; bounded.
fn has_all(endpoint: &str, prefix: &str, acked: &[(String, String)]) {
    wait_for(
        "a rejoined member to hold every acknowledged write",
        Duration::from_secs(20),
        || (missing(endpoint, prefix, acked)? == 0).then_some(()),
    );
}

/// The leader cut off from both followers: the majority elects a new leader
/// and goes on accepting writes; the old leader steps down (check quorum) and
/// refuses writes; memberctl against the majority works; once healed, the old
/// leader follows the new one and has every write made meanwhile.
fn partitioned_leader_steps_down_and_rejoins() {
    let local = Local::up(&["--fault-injection"]);
    let (old, others) = leader_and_others(&local);
    let majority: Vec<String> = others.iter().map(|n| n.client_url.clone()).collect();
    let writer = SteadyWriter::start(majority.clone(), "part/", Duration::from_millis(5));
    writer.wait_for_more(5, Duration::from_secs(10));

    let ids: Vec<u64> = others.iter().map(|n| n.id).collect();
    assert_eq!(isolate(&old.client_url, &ids), {
        let mut v = ids.clone();
        v.sort();
        v
    });
    for n in &others {
        assert_eq!(isolate(&n.client_url, &[old.id]), vec![old.id]);
    }
    let new = wait_for(
        "the majority to elect a new leader",
        Duration::from_secs(15),
        || leader_among(&majority).filter(|s| s.member_id != old.id),
    );
    wait_for(
        "the cut-off leader to step down",
        Duration::from_secs(10),
        || {
            node_status(&old.client_url)
                .ok()
                .filter(|s| s.leader != old.id)
        },
    );
    let before = writer.acked();
    writer.wait_for_more(20, Duration::from_secs(15));

    // The old leader knows no leader: it refuses writes.
    let refused = put(&old.client_url, "part-minority", "x");
    assert!(
        refused.as_ref().is_err_and(|e| e.contains("no leader")),
        "a write through the cut-off old leader: {refused:?}"
    );
    // memberctl against the majority sees the true state.
    let eps = majority.join(",");
    let status = local.ctl(&["--endpoints", &eps, "member", "status", "-w", "json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let status = status.json();
    assert_eq!(status["leader"], format!("{:016x}", new.member_id).as_str());
    assert_eq!(status["members"].as_array().unwrap().len(), 3);
    let list = local.ctl(&["--endpoints", &eps, "member", "list", "-w", "json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);

    for n in others.iter().chain([&old]) {
        assert!(heal(&n.client_url).is_empty());
    }
    wait_for(
        "the old leader to follow the new one",
        Duration::from_secs(15),
        || {
            node_status(&old.client_url)
                .ok()
                .filter(|s| s.leader != 0 && s.leader != old.id && s.raft_term >= new.raft_term)
        },
    );
    let written = writer.finish();
    assert!(written.acked.len() > before);
    let all: Vec<String> = others
        .iter()
        .chain([&old])
        .map(|n| n.client_url.clone())
        .collect();
    let n = check_acked(&all, "part/", &written.acked);
    has_all(&old.client_url, "part/", &written.acked);
    eprintln!(
        "partition of the leader: {n} acknowledged writes kept, {} failed attempts",
        written.failed
    );
}

/// A learner cut off from the voters: `member promote --timeout 3s` times out
/// (exit 4) and leaves it a learner; once healed, promote succeeds.
fn partitioned_learner_is_not_promoted() {
    let local = Local::up(&["--fault-injection"]);
    let (leader, others) = leader_and_others(&local);
    let mut voters: Vec<_> = others.clone();
    voters.push(leader.clone());
    let eps: Vec<String> = voters.iter().map(|n| n.client_url.clone()).collect();
    let writer = SteadyWriter::start(eps.clone(), "learner/", Duration::from_millis(10));
    add_and_start(&local, "n4");
    let n4 = local.client_url("n4");
    let n4_id = node_status(&n4).expect("n4 answers").member_id;
    // Caught up by the leader's own count before it is cut off.
    wait_for("n4 to catch up", Duration::from_secs(20), || {
        let p = progress_of(&leader.client_url, n4_id).ok()?;
        let l = node_status(&leader.client_url).ok()?;
        (p.recent_active && p.match_index as f64 >= l.raft_index as f64 * 0.9).then_some(())
    });

    let ids: Vec<u64> = voters.iter().map(|n| n.id).collect();
    isolate(&n4, &ids);
    for v in &voters {
        isolate(&v.client_url, &[n4_id]);
    }
    // Once the leader's check-quorum round has passed without a word from n4.
    wait_for(
        "the leader to see n4 as not recently active",
        Duration::from_secs(10),
        || {
            progress_of(&leader.client_url, n4_id)
                .ok()
                .filter(|p| !p.recent_active)
        },
    );
    let r = local.ctl(&[
        "member",
        "promote",
        "n4",
        "--timeout",
        "3s",
        "--poll-interval",
        "200ms",
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["error"]["kind"], "timeout");
    assert!(r.stderr.contains("still a learner"), "{}", r.stderr);
    assert!(
        members(&local).contains(&("n4".to_string(), true, true)),
        "{:?}",
        members(&local)
    );

    for n in voters
        .iter()
        .map(|v| v.client_url.as_str())
        .chain([n4.as_str()])
    {
        assert!(heal(n).is_empty());
    }
    let p = local.ctl(&["member", "promote", "n4", "--timeout", "30s", "-w", "json"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    assert_eq!(p.json()["member"]["is_learner"], false);
    let written = writer.finish();
    let n = check_acked(&eps, "learner/", &written.acked);
    has_all(&n4, "learner/", &written.acked);
    eprintln!("partition of a learner: promote refused, then done; {n} writes kept");
}

/// A learner cut off while the leader compacts its log past the snapshot it
/// was caught up with: once healed it must be sent a new snapshot.
fn learner_cut_off_past_a_compaction_catches_up() {
    let local = Local::up(&["--fault-injection", "--snapshot-count", "20"]);
    let (leader, others) = leader_and_others(&local);
    let mut voters: Vec<_> = others.clone();
    voters.push(leader.clone());
    let first = leader.client_url.clone();
    for i in 0..50 {
        put(&first, &format!("c{i:03}"), "x").unwrap();
    }
    add_and_start(&local, "n4");
    let n4 = local.client_url("n4");
    let n4_id = node_status(&n4).expect("n4 answers").member_id;
    wait_for("n4 to catch up", Duration::from_secs(20), || {
        let s = node_status(&n4).ok()?;
        let l = node_status(&first).ok()?;
        (s.applied >= l.raft_index).then_some(())
    });
    isolate(&n4, &voters.iter().map(|v| v.id).collect::<Vec<_>>());
    for v in &voters {
        isolate(&v.client_url, &[n4_id]);
    }
    for i in 50..150 {
        put(&first, &format!("c{i:03}"), "x").unwrap();
    }
    for n in voters
        .iter()
        .map(|v| v.client_url.as_str())
        .chain([n4.as_str()])
    {
        heal(n);
    }
    wait_for("n4 to catch up again", Duration::from_secs(20), || {
        let s = node_status(&n4).ok()?;
        let l = node_status(&first).ok()?;
        (s.applied >= l.raft_index).then_some(())
    });
    assert_eq!(get_prefix(&n4, "c").unwrap().len(), 150);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        partitioned_leader_steps_down_and_rejoins,
        partitioned_learner_is_not_promoted,
        learner_cut_off_past_a_compaction_catches_up,
    ]
}
