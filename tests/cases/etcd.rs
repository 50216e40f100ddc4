//! The learner flow and the safety rules against real etcd clusters on loopback, once per etcd version (3.4–3.7).

use std::time::Duration;

use crate::util::members::{
    add_learner_args, add_learner_at, add_then_hint, ids, member_named,
    unstarted_by_name_is_refused,
};
use crate::util::versions::{etcd_server, reported_version};
use crate::util::{free_port, memberctl_command, wait_for, Etcd};

/// The mission's core flow: list, refused bad add (nothing changes), learner add
/// (idempotent), start it with the printed settings, promote after catch-up,
/// update, remove.
fn learner_flow_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let mut etcd = Etcd::start(bin, 3);

    let list = etcd.list();
    assert_eq!(ids(&list).len(), 3);
    for m in list["members"].as_array().unwrap() {
        let id = m["id"].as_str().unwrap();
        assert_eq!(id.len(), 16, "{id}");
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{id}"
        );
        assert_eq!(m["started"], true);
        assert_eq!(m["is_learner"], false);
    }
    assert_eq!(list["cluster_id"].as_str().unwrap().len(), 16);

    // A bad add is refused with every problem listed, and nothing changes.
    let before = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
    let taken = etcd.members[0].peer_url();
    let bad = format!("http://127.0.0.1,not-a-url,{taken},http://127.0.0.1:1/path");
    let r = etcd
        .ctl(&[
            "member",
            "add",
            "m4",
            "--learner",
            "--peer-urls",
            &bad,
            "-w",
            "json",
        ])
        .expect(3);
    let err = r.json();
    assert_eq!(err["error"]["kind"], "refused");
    let problems = err["error"]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 4, "{err}");
    assert!(
        err["error"]["message"].as_str().unwrap().contains("rule 1"),
        "{err}"
    );
    let after = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
    assert_eq!(before, after, "a refused add changed the member list");

    // Learner add right after the cluster started (etcd may still answer
    // "unhealthy cluster": memberctl retries); repeating it reports the same
    // member instead of failing.
    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let first = etcd.ctl(&add_learner_args("m4", &peer)).expect(0);
    eprintln!(
        "etcd {version}: first add after start retried on \"unhealthy cluster\": {}",
        first.stderr.contains("unhealthy cluster")
    );
    assert!(
        first.stderr.contains("memberctl member promote m4"),
        "no next step: {}",
        first.stderr
    );
    let added = first.json();
    assert_eq!(added["member"]["is_learner"], true);
    assert_eq!(added["member"]["started"], false);
    assert_eq!(added["initial_cluster_state"], "existing");
    assert_eq!(added["already_added"], false);
    let new_id = added["member"]["id"].as_str().unwrap().to_string();
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    assert!(initial.contains(&format!("m4={peer}")), "{initial}");
    let again = add_learner_at(|a| etcd.ctl(a), "m4", &peer);
    assert_eq!(again["member"]["id"], new_id.as_str());
    assert_eq!(again["already_added"], true);
    assert_eq!(ids(&etcd.list()).len(), 4);

    // Simple output carries etcd's start settings.
    let simple = etcd
        .ctl(&[
            "member",
            "add",
            "m4",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "simple",
        ])
        .expect(0);
    assert!(
        simple.stdout.contains("ETCD_NAME=\"m4\""),
        "{}",
        simple.stdout
    );
    assert!(
        simple
            .stdout
            .contains("ETCD_INITIAL_CLUSTER_STATE=\"existing\""),
        "{}",
        simple.stdout
    );

    // A second learner is refused by the pre-flight `learners` check, which
    // names the first (etcd's limit: 1 unless --max-learners says otherwise);
    // passed knowingly, the server's own limit refuses it. Nothing changes.
    let second = format!("http://127.0.0.1:{}", free_port());
    let add5 = ["member", "add", "m5", "--learner", "--peer-urls", &second];
    let r = etcd.ctl(&add5);
    assert_eq!(r.code, 3, "{version}: {}", r.stderr);
    assert!(
        r.stderr.contains("check learners failed") && r.stderr.contains(&new_id),
        "{version}: {}",
        r.stderr
    );
    let mut skipped = add5.to_vec();
    skipped.extend(["--skip-check", "learners"]);
    let r = etcd.ctl(&skipped);
    assert_eq!(r.code, 3, "{version}: {}", r.stderr);
    assert!(
        r.stderr.contains("too many learner members"),
        "{version}: {}",
        r.stderr
    );
    assert_eq!(ids(&etcd.list()).len(), 4);

    // Start it with the printed configuration and promote it by name at once:
    // promote waits for m4 to publish its name, then for catch-up.
    etcd.start_added("m4", peer_port, &initial);
    let promoted = etcd.ctl(&[
        "member",
        "promote",
        "m4",
        "--timeout",
        "60s",
        "--poll-interval",
        "200ms",
        "-w",
        "json",
    ]);
    assert_eq!(
        promoted.code,
        0,
        "promote failed: {}\n{}\nlog:\n{}",
        promoted.stderr,
        promoted.stdout,
        etcd.log("m4")
    );
    let p = promoted.json();
    assert_eq!(p["member"]["id"], new_id.as_str());
    assert_eq!(p["member"]["is_learner"], false);
    assert!(p["waited_ms"].is_u64());
    let list = etcd.list();
    assert_eq!(member_named(&list, "m4")["is_learner"], false);
    assert_eq!(
        list["members"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["is_learner"] == false)
            .count(),
        4
    );

    // Promoting a voter is refused.
    let r = etcd
        .ctl(&["member", "promote", &new_id, "--no-wait"])
        .expect(3);
    assert!(r.stderr.contains("already a voter"), "{}", r.stderr);

    // Status sees four reachable members and a leader.
    let status = etcd
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert!(status["leader"].is_string(), "{status}");
    let rows = status["members"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter()
            .all(|m| m["reachable"] == true && m["raft_index"].is_u64()),
        "{status}"
    );
    // Every member reports the server's version through Status.
    let reported = reported_version(etcd.binary());
    assert!(reported.starts_with(version), "{version}: {reported}");
    assert!(
        rows.iter().all(|m| m["version"] == reported.as_str()),
        "{reported}: {status}"
    );
    let table = etcd.ctl(&["member", "status", "-w", "table"]).expect(0);
    assert!(
        table.stdout.contains("VERSION") && table.stdout.contains(&reported),
        "{}",
        table.stdout
    );

    // Update: a bad URL is refused; a good one is applied.
    etcd.ctl(&["member", "update", "m4", "--peer-urls", "http://127.0.0.1"])
        .expect(3);
    let new_peer = format!("http://127.0.0.1:{}", free_port());
    etcd.ctl(&[
        "member",
        "update",
        "m4",
        "--peer-urls",
        &new_peer,
        "-w",
        "json",
    ])
    .expect(0);
    let list = etcd.list();
    assert_eq!(member_named(&list, "m4")["peer_urls"][0], new_peer.as_str());

    // Remove it again.
    let removed = etcd
        .ctl(&["member", "remove", "m4", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&removed).len(), 3);
    assert!(!ids(&etcd.list()).contains(&new_id));
}

/// `promote --no-wait` right after the add surfaces etcd's not-ready error with exit 3.
fn promote_no_wait_before_catch_up_is_refused(version: &'static str) {
    let bin = etcd_server(version);
    let etcd = Etcd::start(bin, 3);
    let eps = etcd.endpoints();
    let command = |args: &[&str]| {
        // As `etcd.ctl`: etcd refuses changes for 5 s after its members connect.
        let mut all = vec!["--endpoints", eps.as_str(), "--command-timeout", "20s"];
        all.extend_from_slice(args);
        memberctl_command(&all)
    };
    let (id, peer) = add_then_hint(command, "late");
    // etcd keeps no name for a member that has not started: by name, refused at once.
    unstarted_by_name_is_refused(|a| etcd.ctl(a), "late", &id, &peer);
    let r = etcd
        .ctl(&["member", "promote", &id, "--no-wait", "-w", "json"])
        .expect(3);
    assert!(
        r.stderr
            .contains("can only promote a learner member which is in sync with leader"),
        "{}",
        r.stderr
    );
    assert_eq!(r.json()["error"]["kind"], "refused");
    // A waiting promote of a learner that never starts times out with exit 4.
    let r = etcd
        .ctl(&[
            "member",
            "promote",
            &id,
            "--timeout",
            "1s",
            "--poll-interval",
            "200ms",
        ])
        .expect(4);
    assert!(r.stderr.contains("not started"), "{}", r.stderr);
    // Joint consensus needs the memberctl engine: etcd says so with exit 6.
    let r = etcd.ctl(&["member", "joint", "status"]).expect(6);
    assert!(
        r.stderr.contains("one membership change at a time"),
        "{}",
        r.stderr
    );
    let r = etcd
        .ctl(&["member", "joint", "enter", "--promote", &id, "-w", "json"])
        .expect(6);
    assert_eq!(r.json()["error"]["kind"], "unsupported");
    // Still a learner; remove it.
    let list = etcd.list();
    let m = list["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(m["is_learner"], true);
    etcd.ctl(&["member", "remove", &id]).expect(0);
    assert_eq!(ids(&etcd.list()).len(), 3);
}

/// With the leader of three members killed: memberctl waits for the new
/// leader; removing a healthy voter and adding a voter are refused (exit 3,
/// cluster unchanged); removing the dead member is allowed.
fn member_down_refusals_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let mut etcd = Etcd::start(bin, 3);
    let status = etcd
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    let leader = status["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == status["leader"])
        .expect("a leader row")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let dead = etcd.members.iter().position(|m| m.name == leader).unwrap();
    let alive = etcd
        .members
        .iter()
        .find(|m| m.name != leader)
        .unwrap()
        .name
        .clone();
    etcd.kill(dead);
    wait_for(
        "the killed leader to be seen as unreachable",
        Duration::from_secs(10),
        || {
            let v = etcd
                .ctl(&["member", "status", "-w", "json", "--dial-timeout", "500ms"])
                .expect(0)
                .json();
            (member_named(&v, &leader)["reachable"] == false).then_some(())
        },
    );
    let before = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;

    let r = etcd
        .ctl(&["member", "remove", &alive, "-w", "json"])
        .expect(3);
    let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("rule 4"), "{msg}");

    let peer = format!("http://127.0.0.1:{}", free_port());
    let r = etcd
        .ctl(&["member", "add", "m9", "--peer-urls", &peer])
        .expect(3);
    assert!(r.stderr.contains("--learner"), "{}", r.stderr);
    assert_eq!(
        before,
        etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout
    );

    // The dry run shows the plan and changes nothing.
    let plan = etcd
        .ctl(&["member", "remove", &leader, "--dry-run", "-w", "json"])
        .expect(0)
        .json();
    let steps = plan["plan"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["quorum"], 2);
    assert_eq!(steps[0]["healthy_voters"], 2);
    assert_eq!(steps[0]["fault_tolerance"], 0);
    assert_eq!(steps[1]["voters"].as_array().unwrap().len(), 2);
    assert_eq!(steps[1]["fault_tolerance"], 0);
    assert_eq!(
        before,
        etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout
    );

    // Removing the dead member keeps a quorum of reachable voters.
    etcd.ctl(&["member", "remove", &leader]).expect(0);
    let list = etcd.list();
    assert_eq!(ids(&list).len(), 2);
    assert!(list["members"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["name"] != leader.as_str()));
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        learner_flow_against_etcd: each_version [],
        promote_no_wait_before_catch_up_is_refused: each_version [],
        member_down_refusals_against_etcd: each_version [],
    ]
}
