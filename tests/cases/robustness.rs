//! Robustness on the engine: sequential clients record a history while a
//! fault is injected (kill -9, a partitioned leader, membership changes,
//! disk faults), and the linearizability checker must accept it; with one of
//! the engine's deliberate bugs switched on, it must not.

use std::time::Duration;

use crate::util::faults::{
    apply_fault, heal, isolate, kill9_all, leader_among, leader_and_others, node_status, restart,
    NodeInfo,
};
use crate::util::free_port;
use crate::util::local::Local;
use crate::util::members::add_and_start;
use crate::util::robustness::{Checked, Run};
use crate::util::wait_for;
use memberctl::history::Request;

/// A 3-node test cluster with fault injection and `extra` flags, clients
/// recording on every member, `fault` applied `rounds` times (the profile's
/// when None; it must leave the cluster serving unless it is a deliberate
/// `bug`), then the history checked.
fn scenario(
    name: &str,
    extra: &[&str],
    (rounds, bug): (Option<usize>, bool),
    fault: impl Fn(&Local, &Run),
) -> (Checked, Local) {
    let mut args = vec!["--fault-injection"];
    args.extend_from_slice(extra);
    let local = Local::up(&args);
    let run = Run::start(name, local.endpoints());
    for _ in 0..rounds.unwrap_or(run.profile.rounds) {
        fault(&local, &run);
        if let Err(stuck) = run.try_settle() {
            // Only a deliberate bug may leave the cluster unable to serve;
            // its history is still checked.
            assert!(bug, "{stuck}\nlogs:\n{}", local.logs());
            eprintln!("{stuck}");
            break;
        }
    }
    (run.finish(), local)
}

/// Asserts the scenario's history is linearizable.
fn passes(name: &str, extra: &[&str], fault: impl Fn(&Local, &Run)) {
    let (checked, local) = scenario(name, extra, (None, false), fault);
    checked.assert_linearizable(|| local.logs());
    let (answered, _) = checked.counts();
    assert!(answered > 0, "no operation was answered");
}

fn kill_leader(local: &Local, _: &Run) {
    let (leader, _) = leader_and_others(local);
    local.kill9(leader.pid.expect("the leader's pid"));
    restart(local);
}

fn kill_follower(local: &Local, _: &Run) {
    let (_, others) = leader_and_others(local);
    local.kill9(others[0].pid.expect("a follower's pid"));
    restart(local);
}

fn kill_all(local: &Local, _: &Run) {
    let pids: Vec<u32> = local.pids().into_iter().map(|(_, p)| p).collect();
    kill9_all(&pids);
    restart(local);
}

/// The leader cut off from both followers while clients run on all three
/// (those on the old leader time out and move on); healed once the majority
/// has elected a new leader and served the profile's operations.
fn partition_leader(local: &Local, run: &Run) {
    let (old, others, _) = cut_off_leader(local);
    run.settle();
    for n in others.iter().chain([&old]) {
        heal(&n.client_url);
    }
}

/// Cuts the leader off in a minority and waits until the majority elects a
/// new one: the old leader, the others, and the new leader's client URL.
fn cut_off_leader(local: &Local) -> (NodeInfo, Vec<NodeInfo>, String) {
    let (old, others) = leader_and_others(local);
    let ids: Vec<u64> = others.iter().map(|n| n.id).collect();
    isolate(&old.client_url, &ids);
    for n in &others {
        isolate(&n.client_url, &[old.id]);
    }
    let majority: Vec<String> = others.iter().map(|n| n.client_url.clone()).collect();
    let leader = wait_for(
        "the majority to elect a new leader",
        Duration::from_secs(15),
        || leader_among(&majority).filter(|s| s.member_id != old.id),
    );
    let leader_url = others
        .iter()
        .find(|n| n.id == leader.member_id)
        .map(|n| n.client_url.clone())
        .expect("the new leader is one of the majority");
    (old, others, leader_url)
}

fn robustness_kill_leader() {
    passes("engine-kill-leader", &[], kill_leader);
}

fn robustness_kill_follower() {
    passes("engine-kill-follower", &[], kill_follower);
}

fn robustness_kill_all() {
    passes("engine-kill-all", &[], kill_all);
}

fn robustness_partitioned_leader() {
    passes("engine-partitioned-leader", &[], partition_leader);
}

/// A learner joins after the log was compacted (a snapshot catches it up),
/// is promoted, and clients use it.
fn robustness_learner_by_snapshot_then_promoted() {
    passes(
        "engine-learner-snapshot",
        &["--snapshot-count", "50"],
        |local, run| {
            let name = format!("l{}", free_port());
            add_and_start(local, &name);
            let p = local.ctl(&["member", "promote", &name, "--timeout", "180s"]);
            assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
            let log = std::fs::read_to_string(local.dir().join(format!("{name}.log")))
                .unwrap_or_default();
            assert!(
                log.contains("installed a snapshot from the leader"),
                "the learner was caught up by a snapshot:\n{log}"
            );
            let mut eps = local.endpoints();
            eps.rotate_left(1);
            run.recorder.set_endpoints(eps);
        },
    );
}

/// A follower removed, then the leader (memberctl moves leadership first).
fn robustness_voters_removed_leader_too() {
    let (checked, local) = scenario(
        "engine-remove-voters",
        &["--nodes", "5"],
        (Some(1), false),
        |local, run| {
            let (_, others) = leader_and_others(local);
            let r = local.ctl(&["member", "remove", &others[0].name]);
            assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
            run.settle();
            let (leader, _) = leader_and_others(local);
            let r = local.ctl(&["member", "remove", &leader.name]);
            assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
            run.recorder.set_endpoints(local.endpoints());
        },
    );
    checked.assert_linearizable(|| local.logs());
}

/// A joint change (a learner promoted, a voter demoted) entered and left;
/// the demoted learner is then removed (the learner slot is free again for
/// the next round).
fn robustness_joint_enter_leave() {
    passes("engine-joint", &[], |local, run| {
        let name = format!("j{}", free_port());
        add_and_start(local, &name);
        let (_, others) = leader_and_others(local);
        let demoted = &others[0].name;
        local.joint_enter(&["--promote", &name, "--demote", demoted]);
        run.settle();
        let r = local.ctl(&["member", "joint", "leave"]);
        assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
        let r = local.ctl(&["member", "remove", demoted]);
        assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
        run.recorder.set_endpoints(local.endpoints());
    });
}

/// A member replaced (`member replace --start-local`: learner, catch-up,
/// one joint swap).
fn robustness_member_replaced() {
    passes("engine-replace", &[], |local, run| {
        let (_, others) = leader_and_others(local);
        let name = format!("r{}", free_port());
        let peer = format!("http://127.0.0.1:{}", free_port());
        let r = local.ctl(&[
            "member",
            "replace",
            &others[0].name,
            "--name",
            &name,
            "--peer-urls",
            &peer,
            "--start-local",
            "--timeout",
            "60s",
        ]);
        assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
        run.recorder.set_endpoints(local.endpoints());
    });
}

/// A follower whose apply stage is paused while the others go on: its
/// applied index falls 1000 entries behind its commit index, then it is
/// killed (-9) and restarted. It applies its log again before it serves.
fn robustness_kill_while_the_apply_stage_lags() {
    passes("engine-apply-lag", &[], |local, _| {
        let (_, others) = leader_and_others(local);
        let victim = &others[0];
        apply_fault(&victim.client_url, true);
        let lag = wait_for(
            "the paused follower's applied index to fall 1000 entries behind",
            Duration::from_secs(120),
            || {
                let s = node_status(&victim.client_url).ok()?;
                let lag = s.raft_index.saturating_sub(s.applied);
                (lag >= 1000).then_some(lag)
            },
        );
        eprintln!("engine-apply-lag: the follower lags {lag} entries; killed");
        local.kill9(victim.pid.expect("the follower's pid"));
        restart(local);
        // `cluster up` returns once there is a leader; the follower may
        // still be starting.
        let log_path = local.dir().join(format!("{}.log", victim.name));
        let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !log().contains("before serving") {
            assert!(
                std::time::Instant::now() < deadline,
                "the restarted follower did not say within 60 s that it applies its log before serving:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        wait_for(
            "the restarted follower to answer",
            Duration::from_secs(60),
            || node_status(&victim.client_url).ok(),
        );
    });
}

/// A learner killed (-9) while a snapshot of 30 MB streams into it and is
/// installed: started again, it receives the snapshot again, catches up and
/// is promoted; nothing half-received is used.
fn robustness_learner_killed_while_installing_a_snapshot() {
    let (checked, local) = scenario(
        "engine-learner-install-killed",
        &["--snapshot-count", "50"],
        (Some(1), false),
        |local, run| {
            crate::util::writer::load(&local.endpoints()[0], "bulk/", 1_875, 16 * 1024);
            // The leader sends slowly (200 ms a piece, about 6 s in all),
            // so that the kill lands while the snapshot is in flight even
            // on a busy machine (at 50 ms a piece, 1.5 s, it once landed
            // after the install).
            let (leader, _) = leader_and_others(local);
            crate::util::faults::snapshot_fault(&leader.client_url, 200);
            let name = format!("s{}", free_port());
            add_and_start(local, &name);
            let log_path = local.dir().join(format!("{name}.log"));
            let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
            crate::util::wait_for_every(
                "the learner to start receiving a snapshot",
                Duration::from_secs(30),
                Duration::from_millis(1),
                || log().contains("receiving a snapshot").then_some(()),
            );
            let (_, pid) = crate::util::faults::recorded(local, &name).expect("the learner");
            local.kill9(pid.expect("the learner's pid"));
            let before = log();
            assert!(
                !before.contains("installed a snapshot"),
                "the learner was killed after the snapshot was installed:\n{before}"
            );
            // The second snapshot goes at full speed.
            crate::util::faults::snapshot_fault(&leader.client_url, 0);
            restart(local);
            let p = local.ctl(&["member", "promote", &name, "--timeout", "180s"]);
            assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
            assert!(
                log().contains("installed a snapshot from the leader"),
                "the restarted learner was caught up by a snapshot:\n{}",
                log()
            );
            run.recorder.set_endpoints(local.endpoints());
        },
    );
    checked.assert_linearizable(|| local.logs());
}

/// A checkpoint's fsync fails on a follower: it stops with a clear error
/// (its log is never compacted past what is not on disk); restarted, it
/// rejoins and nothing acknowledged is lost.
fn robustness_checkpoint_fsync_fails() {
    disk_fault(
        "engine-checkpoint-fsync-fails",
        &["--snapshot-count", "50"],
        3,
        false,
        &["checkpoint at index", "fsync failed", "check the disk"],
    );
}

/// A disk fault on one member (`kind`, see `Fault.Disk`): the member stops
/// with a clear error (every one of `says`) instead of acknowledging what it
/// did not persist; restarted (which clears the fault), it rejoins and
/// nothing acknowledged is lost.
fn disk_fault(name: &str, extra: &[&str], kind: i32, leader: bool, says: &'static [&'static str]) {
    passes(name, extra, move |local, _| {
        let (l, others) = leader_and_others(local);
        let victim = if leader { l } else { others[0].clone() };
        crate::util::faults::disk_fault(&victim.client_url, kind);
        let pid = victim.pid.expect("the victim's pid");
        wait_for(
            "the member with the failing disk to stop",
            Duration::from_secs(60),
            || crate::util::faults::exited(pid).then_some(()),
        );
        let logs = local.logs();
        assert!(
            says.iter().all(|s| logs.contains(s)),
            "the stopped member says why:\n{logs}"
        );
        restart(local);
    });
}

fn robustness_fsync_fails_on_the_leader() {
    disk_fault(
        "engine-fsync-fails",
        &[],
        1,
        true,
        &["fsync failed", "acknowledges nothing it did not persist"],
    );
}

fn robustness_full_disk_on_a_follower() {
    disk_fault(
        "engine-disk-full",
        &[],
        2,
        false,
        &[
            "no space left on device",
            "acknowledges nothing it did not persist",
        ],
    );
}

/// The deliberate bugs: the checker must refuse the histories they produce;
/// with `by_values`, the per-key search over values alone must too.
fn fails(name: &str, extra: &[&str], by_values: bool, fault: impl Fn(&Local, &Run)) -> Checked {
    let (checked, local) = scenario(name, extra, (Some(1), true), fault);
    assert!(
        !checked.report.passed(),
        "the checker accepted a history recorded with {extra:?} on: {}\nlogs:\n{}",
        checked.report,
        local.logs()
    );
    eprintln!(
        "robustness {name}: caught as it must be:\n{}",
        checked.report
    );
    // The per-key search over values alone (no revision invariant): a stale
    // read is visible in what clients read, not only in revisions. (A lost
    // write is, only when a client reads the key before it is written again.)
    let values = memberctl::history::check_values(&checked.ops, &Default::default());
    assert!(
        !by_values
            || matches!(
                values.verdict,
                memberctl::history::Verdict::NotLinearizable { .. }
            ),
        "the per-key search accepted a history recorded with {extra:?} on: {values}"
    );
    eprintln!("robustness {name}: the per-key search alone:\n{values}");
    checked
}

/// Linearizable reads served locally (no ReadIndex) by a leader cut off in a
/// minority: stale reads, which the checker must find. Besides the random
/// clients (which leave the cut-off member at their first failed write), a
/// client of its own puts a key through the majority and then reads it from
/// the cut-off member, so that the stale value is read for certain.
fn robustness_catches_stale_local_reads() {
    fails(
        "bug-stale-reads",
        &["--fault-stale-reads"],
        true,
        |local, run| {
            let (old, others, leader_url) = cut_off_leader(local);
            for _ in 0..3 {
                let put = run.recorder.one(
                    &leader_url,
                    0,
                    Request::Put {
                        value: String::new(),
                    },
                );
                let read = run.recorder.one(&old.client_url, 0, Request::Get);
                eprintln!("bug-stale-reads: put {put:?} through the majority, then read {read:?} from the cut-off member");
            }
            run.settle();
            for n in others.iter().chain([&old]) {
                heal(&n.client_url);
            }
        },
    );
}

/// Log writes acknowledged before they are written: every member killed at
/// once loses acknowledged writes, which the checker must find.
fn robustness_catches_ack_before_fsync() {
    fails(
        "bug-ack-before-fsync",
        &["--fault-ack-before-fsync"],
        false,
        |local, run| {
            for _ in 0..3 {
                let pids: Vec<u32> = local.pids().into_iter().map(|(_, p)| p).collect();
                kill9_all(&pids);
                // The bug may leave members unable to start (their logs lost
                // what their state machines hold): the history says enough.
                let up = local.ctl(&["cluster", "up", "-w", "json"]);
                if up.code != 0 || run.try_settle().is_err() {
                    eprintln!(
                        "bug-ack-before-fsync: the cluster no longer serves: {}",
                        up.stderr
                    );
                    break;
                }
            }
        },
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        robustness_kill_leader,
        robustness_kill_follower,
        robustness_kill_all,
        robustness_partitioned_leader,
        robustness_learner_by_snapshot_then_promoted,
        robustness_voters_removed_leader_too,
        robustness_joint_enter_leave,
        robustness_member_replaced,
        robustness_kill_while_the_apply_stage_lags,
        robustness_learner_killed_while_installing_a_snapshot,
        robustness_checkpoint_fsync_fails,
        robustness_fsync_fails_on_the_leader,
        robustness_full_disk_on_a_follower,
        robustness_catches_stale_local_reads,
        robustness_catches_ack_before_fsync,
    ]
}
