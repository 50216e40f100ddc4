//! Leadership transfer and names before start: removing the leader under a steady writer (etcd 3.4–3.7 and the engine), `member move-leader` and its refusals, a failed transfer, members named right after they were started.

use std::time::Duration;

use serde_json::Value;

use crate::util::faults::{heal, isolate, leader_and_others, move_leader, Spawned};
use crate::util::local::Local;
use crate::util::members::{add_learner, ids, member_named, unstarted_by_name_is_refused};
use crate::util::versions::etcd_server;
use crate::util::writer::SteadyWriter;
use crate::util::{self, Etcd, Run};

/// The leader's name in a `member status -w json` document.
fn leader_name(status: &Value) -> String {
    status["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == status["leader"])
        .unwrap_or_else(|| panic!("no leader row in {status}"))["name"]
        .as_str()
        .unwrap()
        .to_string()
}

/// What a server may lose of a leadership transfer: the engine nothing (it
/// sends a write raft refused during the transfer again); etcd may time out
/// a write a follower forwarded to the old leader in the round trip while
/// the transfer completes (etcd's raft drops proposals then), which no
/// client can prevent: at most one, issued while `member remove` ran.
#[derive(Clone, Copy, PartialEq)]
enum Drops {
    None,
    OneDuringTransfer,
}

/// `member remove` of the leader with a writer putting every 20 ms through
/// the members that stay: memberctl moves leadership first, so the cluster
/// is never without a leader and no write fails (but for `drops`); the JSON
/// says who took over.
fn remove_leader_under_writer(
    ctl: impl Fn(&[&str]) -> Run,
    stay: Vec<String>,
    leader: &str,
    drops: Drops,
) {
    let writer = SteadyWriter::start(stay, "lead/", Duration::from_millis(20));
    writer.wait_for_more(10, Duration::from_secs(15));
    let started = std::time::Instant::now();
    let r = ctl(&["member", "remove", leader, "-w", "json"]);
    let ended = std::time::Instant::now();
    assert_eq!(r.code, 0, "remove the leader: {}", r.stderr);
    writer.wait_for_more(10, Duration::from_secs(15));
    let written = writer.finish();
    let failed: Vec<&crate::util::writer::Sample> =
        written.samples.iter().filter(|s| !s.ok).collect();
    let allowed = match drops {
        Drops::None => 0,
        Drops::OneDuringTransfer => failed
            .iter()
            .filter(|s| s.start >= started && s.start < ended)
            .count()
            .min(1),
    };
    let v = r.json();
    let moved = &v["leader_moved"];
    assert_eq!(moved["from"]["name"], leader, "{v}");
    assert_ne!(moved["to"]["name"], leader, "{v}");
    assert_eq!(ids(&v).len(), 2, "{v}");
    assert_eq!(
        failed.len(),
        allowed,
        "writes failed while the leader was removed ({} acknowledged): {failed:?}",
        written.acked.len()
    );
}

/// Removing the leader of a 3-member etcd cluster under a steady writer.
fn removing_the_etcd_leader_loses_no_write(version: &'static str) {
    let bin = etcd_server(version);
    let etcd = Etcd::start(bin, 3);
    let status = etcd
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    let leader = leader_name(&status);
    // The plan shows the transfer; nothing changes.
    let plan = etcd
        .ctl(&["member", "remove", &leader, "--dry-run", "-w", "json"])
        .expect(0)
        .json();
    let steps = plan["plan"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{plan}");
    assert!(
        steps[1]["step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("move leadership from {leader}")),
        "{plan}"
    );
    let stay: Vec<String> = etcd
        .members
        .iter()
        .filter(|m| m.name != leader)
        .map(|m| m.client_url())
        .collect();
    remove_leader_under_writer(|a| etcd.ctl(a), stay, &leader, Drops::OneDuringTransfer);
}

/// The same on the engine.
fn removing_the_engine_leader_loses_no_write() {
    let local = Local::up(&[]);
    let (leader, others) = leader_and_others(&local);
    let stay = others.iter().map(|n| n.client_url.clone()).collect();
    remove_leader_under_writer(|a| local.ctl(a), stay, &leader.name, Drops::None);
}

/// `member move-leader` against etcd: to the most caught-up voter, to a named
/// voter, to the leader itself (nothing sent); refused for a learner, an
/// unknown member and a killed member, the membership and the leader
/// unchanged; etcd's own answer to a learner target is "bad leader transferee".
fn move_leader_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let mut etcd = Etcd::start(bin, 3);
    let leader = |etcd: &Etcd| {
        leader_name(
            &etcd
                .ctl(&["member", "status", "-w", "json"])
                .expect(0)
                .json(),
        )
    };
    let first = leader(&etcd);
    let moved = etcd
        .ctl(&["member", "move-leader", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(moved["from"]["name"], first.as_str(), "{moved}");
    let second = moved["to"]["name"].as_str().unwrap().to_string();
    assert_ne!(second, first);
    assert_eq!(leader(&etcd), second);
    let r = etcd
        .ctl(&["member", "move-leader", &first, "-w", "simple"])
        .expect(0);
    assert!(
        r.stdout
            .starts_with(&format!("Leadership moved from {second}")),
        "{}",
        r.stdout
    );
    assert_eq!(leader(&etcd), first);
    let r = etcd.ctl(&["member", "move-leader", &first]).expect(0);
    assert!(r.stdout.contains("already leads"), "{}", r.stdout);

    let before = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
    let (learner, _) = add_learner(|a| etcd.ctl(a), "l1");
    let r = etcd
        .ctl(&["member", "move-leader", &learner, "-w", "json"])
        .expect(3);
    assert!(r.stderr.contains("is a learner"), "{}", r.stderr);
    let r = etcd
        .ctl(&["member", "move-leader", "00000000000abcde"])
        .expect(3);
    assert!(
        r.stderr.contains("no member has the name or ID"),
        "{}",
        r.stderr
    );
    // etcd's own answers, which the engine gives too.
    let leader_url = etcd
        .members
        .iter()
        .find(|m| m.name == first)
        .unwrap()
        .client_url();
    let follower = etcd.members.iter().find(|m| m.name != first).unwrap();
    let learner_id = u64::from_str_radix(&learner, 16).unwrap();
    let e = move_leader(&leader_url, learner_id).unwrap_err();
    assert_eq!(e, "etcdserver: bad leader transferee", "etcd {version}");
    let e = move_leader(&follower.client_url(), learner_id).unwrap_err();
    assert_eq!(e, "etcdserver: not leader", "etcd {version}");
    {
        let etcdctl = util::require_etcdctl();
        let r = util::etcdctl(&etcdctl, &leader_url, &["move-leader", &learner]);
        assert!(
            r.stderr.contains("bad leader transferee"),
            "etcd {version}: {}",
            r.stderr
        );
    }
    etcd.ctl(&["member", "remove", &learner]).expect(0);

    // A killed target: refused before anything is sent.
    let victim = etcd.members.iter().position(|m| m.name != first).unwrap();
    let victim_name = etcd.members[victim].name.clone();
    etcd.kill(victim);
    let r = etcd
        .ctl(&[
            "--dial-timeout",
            "500ms",
            "member",
            "move-leader",
            &victim_name,
        ])
        .expect(3);
    assert!(r.stderr.contains("does not answer"), "{}", r.stderr);
    assert_eq!(
        before,
        etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout
    );
    assert_eq!(leader(&etcd), first);
}

/// On the engine, MoveLeader is served with etcd's answers (etcdctl
/// move-leader to a learner: "bad leader transferee"; through a follower:
/// "not leader"), and a transfer to a member the leader cannot reach fails
/// with "leader transfer took too long": memberctl reports it, the leader
/// stays and nothing is removed.
fn move_leader_on_the_engine() {
    let local = Local::up(&["--fault-injection"]);
    let (leader, others) = leader_and_others(&local);
    let (learner, _) = add_learner(|a| local.ctl(a), "l1");
    let learner_id = u64::from_str_radix(&learner, 16).unwrap();
    let e = move_leader(&leader.client_url, learner_id).unwrap_err();
    assert_eq!(e, "etcdserver: bad leader transferee");
    let e = move_leader(&others[0].client_url, others[1].id).unwrap_err();
    assert_eq!(e, "etcdserver: not leader");
    move_leader(&leader.client_url, others[1].id).expect("move to a voter");
    let moved = local
        .ctl(&["member", "move-leader", &leader.name, "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(moved["from"]["name"], others[1].name.as_str(), "{moved}");
    assert_eq!(moved["to"]["name"], leader.name.as_str(), "{moved}");
    local.ctl(&["member", "remove", &learner]).expect(0);
    let before = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .stdout;

    // Cut the target off from the leader: the transfer cannot complete.
    let target = &others[0];
    isolate(&leader.client_url, &[target.id]);
    isolate(&target.client_url, &[leader.id]);
    let r = local.ctl(&["member", "move-leader", &target.name, "-w", "json"]);
    heal(&leader.client_url);
    heal(&target.client_url);
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stderr.contains("leader transfer took too long"),
        "{}",
        r.stderr
    );
    assert_eq!(
        before,
        local
            .ctl(&["member", "list", "-w", "json"])
            .expect(0)
            .stdout
    );
}

/// Promotions given the name of a member that is starting at that moment wait
/// for it to publish its name (no pause between the start and the command):
/// promote, joint enter --promote. Remove, update and promote --no-wait of a
/// member that never started are refused at once, listing it; an unknown name
/// with no unstarted member fails at once.
fn names_work_while_a_member_starts() {
    let local = Local::up(&[]);
    let start = |name: &str| Spawned::start(local.dir(), &["cluster", "start-node", name]);

    let (_, _) = add_learner(|a| local.ctl(a), "n4");
    let starting = start("n4");
    let r = local.ctl(&["member", "promote", "n4", "--timeout", "180s", "-w", "json"]);
    assert_eq!(r.code, 0, "promote n4: {}", r.stderr);
    assert_eq!(r.json()["member"]["is_learner"], false);
    starting.wait(Duration::from_secs(60)).expect(0);

    let (_, _) = add_learner(|a| local.ctl(a), "n5");
    let starting = start("n5");
    let cfg = local.joint_enter(&["--promote", "n5", "--timeout", "60s"]);
    assert_eq!(cfg["joint"], true, "{cfg}");
    starting.wait(Duration::from_secs(60)).expect(0);
    local.ctl(&["member", "joint", "leave"]).expect(0);

    // A member that was added but not started: by name, refused at once.
    let (n6, peer) = add_learner(|a| local.ctl(a), "n6");
    unstarted_by_name_is_refused(|a| local.ctl(a), "n6", &n6, &peer);
    local.ctl(&["member", "remove", &n6]).expect(0);
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&list).len(), 5, "{list}");
    assert_eq!(member_named(&list, "n5")["is_learner"], false);

    let r = local.ctl(&["member", "remove", "n9"]).expect(3);
    assert!(r.stderr.contains("no member has the name"), "{}", r.stderr);
}

/// `joint enter --demote` of the engine's leader moves leadership to a voter
/// that stays first, under a writer through the others: no write fails, and
/// the demoted member follows.
fn demoting_the_engine_leader_moves_leadership_first() {
    let local = Local::up(&[]);
    let (leader, others) = leader_and_others(&local);
    let stay: Vec<String> = others.iter().map(|n| n.client_url.clone()).collect();
    let writer = SteadyWriter::start(stay, "demote/", Duration::from_millis(20));
    writer.wait_for_more(10, Duration::from_secs(15));
    let plan = local
        .ctl(&[
            "member",
            "joint",
            "enter",
            "--demote",
            &leader.name,
            "--dry-run",
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let steps = plan["plan"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{plan}");
    assert!(
        steps[1]["step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("move leadership from {}", leader.name)),
        "{plan}"
    );
    let r = local.ctl(&["member", "joint", "enter", "--demote", &leader.name]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("moving leadership"), "{}", r.stderr);
    local.ctl(&["member", "joint", "leave"]).expect(0);
    writer.wait_for_more(10, Duration::from_secs(15));
    let written = writer.finish();
    assert_eq!(
        written.failed, 0,
        "writes failed while the leader was demoted"
    );
    let (now, _) = leader_and_others(&local);
    assert_ne!(now.name, leader.name);
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(member_named(&list, &leader.name)["is_learner"], true);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        removing_the_etcd_leader_loses_no_write: each_version [],
        removing_the_engine_leader_loses_no_write,
        move_leader_against_etcd: each_version [Etcdctl],
        move_leader_on_the_engine,
        names_work_while_a_member_starts,
        demoting_the_engine_leader_moves_leadership_first,
    ]
}
