//! Integration tests: the built `memberctl` binary, offline and against real etcd clusters on loopback.

mod cases;
mod util;

use serde_json::Value;
use util::{free_port, memberctl, require_etcd, wait_for, Etcd};

use std::time::Duration;

fn ids(list: &Value) -> Vec<String> {
    list["members"]
        .as_array()
        .expect("members array")
        .iter()
        .map(|m| m["id"].as_str().expect("id string").to_string())
        .collect()
}

fn member_named<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["members"]
        .as_array()
        .expect("members array")
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no member {name} in {list}"))
}

/// Adds `name` as a learner on a free loopback peer port through `ctl`; its hex ID and peer URL.
fn add_learner(ctl: impl Fn(&[&str]) -> util::Run, name: &str) -> (String, String) {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = ctl(&[
        "member",
        "add",
        name,
        "--learner",
        "--peer-urls",
        &peer,
        "-w",
        "json",
    ])
    .expect(0)
    .json();
    (added["member"]["id"].as_str().unwrap().to_string(), peer)
}

// ---- offline: no cluster needed -------------------------------------------

#[test]
fn help_documents_exit_codes() {
    let r = memberctl(&["--help"]).expect(0);
    assert!(r.stdout.contains("Exit codes"), "{}", r.stdout);
    assert!(r.stdout.contains("member"), "{}", r.stdout);
}

#[test]
fn usage_errors_exit_2_and_json_reports_them() {
    memberctl(&["member", "promote"]).expect(2);
    memberctl(&["member", "add", "m4"]).expect(2);
    let r = memberctl(&["-w", "json", "member", "remove"]).expect(2);
    assert_eq!(r.json()["error"]["kind"], "usage");
    let r = memberctl(&["member", "list", "--command-timeout", "soon"]).expect(2);
    assert!(r.stderr.contains("duration"), "{}", r.stderr);
}

#[test]
fn unreachable_cluster_exits_5_with_a_json_error() {
    let port = free_port().to_string();
    let ep = format!("127.0.0.1:{port}");
    let r = memberctl(&["--endpoints", &ep, "member", "list", "-w", "json"]).expect(5);
    let v = r.json();
    assert_eq!(v["error"]["kind"], "unavailable");
    assert!(
        v["error"]["message"].as_str().unwrap().contains(&port),
        "{v}"
    );
    assert!(r.stderr.starts_with("memberctl: "), "{}", r.stderr);
}

#[test]
fn etcdctl_endpoints_variable_is_honoured() {
    let port = free_port().to_string();
    let out = std::process::Command::new(util::bin())
        .args(["member", "list"])
        .env_remove("MEMBERCTL_ENDPOINTS")
        .env("ETCDCTL_ENDPOINTS", format!("http://127.0.0.1:{port}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&port));
}

#[test]
fn malformed_endpoint_and_unreadable_tls_files_are_usage_errors() {
    memberctl(&["--endpoints", "ftp://127.0.0.1:1", "member", "list"]).expect(2);
    let r = memberctl(&[
        "--endpoints",
        "127.0.0.1:1",
        "--cacert",
        "ca.pem",
        "member",
        "list",
    ])
    .expect(2);
    assert!(
        r.stderr.contains("cannot read --cacert ca.pem"),
        "{}",
        r.stderr
    );
}

// ---- against a real etcd cluster ------------------------------------------

/// The mission's core flow: list, refused bad add (nothing changes), learner add
/// (idempotent), start it with the printed settings, promote after catch-up,
/// update, remove.
#[test]
fn learner_flow_against_etcd() {
    let Some(bin) = require_etcd("learner_flow_against_etcd") else {
        return;
    };
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

    // Learner add; repeating it reports the same member instead of failing.
    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let added = etcd
        .ctl(&[
            "member",
            "add",
            "m4",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(added["member"]["is_learner"], true);
    assert_eq!(added["member"]["started"], false);
    assert_eq!(added["initial_cluster_state"], "existing");
    assert_eq!(added["already_added"], false);
    let new_id = added["member"]["id"].as_str().unwrap().to_string();
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    assert!(initial.contains(&format!("m4={peer}")), "{initial}");
    let again = etcd
        .ctl(&[
            "member",
            "add",
            "m4",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
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

    // Start it with the printed configuration; promote waits for catch-up.
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
    // The name appears once the member has started; the ID works before that.
    let promoted = if promoted.code == 3 && promoted.stderr.contains("no member has the name") {
        etcd.ctl(&[
            "member",
            "promote",
            &new_id,
            "--timeout",
            "60s",
            "--poll-interval",
            "200ms",
            "-w",
            "json",
        ])
    } else {
        promoted
    };
    let promoted = if promoted.code == 0 {
        promoted
    } else {
        panic!(
            "promote failed: {}\n{}\nlog:\n{}",
            promoted.stderr,
            promoted.stdout,
            etcd.log("m4")
        )
    };
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
#[test]
fn promote_no_wait_before_catch_up_is_refused() {
    let Some(bin) = require_etcd("promote_no_wait_before_catch_up_is_refused") else {
        return;
    };
    let etcd = Etcd::start(bin, 3);
    let (id, _) = add_learner(|a| etcd.ctl(a), "late");
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
#[test]
fn member_down_refusals_against_etcd() {
    let Some(bin) = require_etcd("member_down_refusals_against_etcd") else {
        return;
    };
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

// ---- the bundled engine: local test cluster -------------------------------

use util::local::{get_prefix, put, Local};

fn first_endpoint(local: &Local) -> String {
    local.endpoints()[0].clone()
}

/// memberctl's full learner flow on `cluster up`: add --learner, start-node,
/// promote after catch-up, remove, down (member commands find the cluster by itself).
#[test]
fn learner_flow_on_a_local_cluster() {
    let local = Local::up(&[]);
    assert_eq!(local.up["nodes"].as_array().unwrap().len(), 3);
    assert!(local.up["leader"].is_string(), "{}", local.up);
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&list).len(), 3);
    assert!(list["members"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["started"] == true));
    for i in 0..50 {
        put(&first_endpoint(&local), &format!("k{i:03}"), "v").unwrap();
    }

    let (id, _) = add_learner(|a| local.ctl(a), "n4");
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    let p = local.ctl(&["member", "promote", "n4", "--timeout", "30s", "-w", "json"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    assert_eq!(p.json()["member"]["is_learner"], false);
    // The new member holds the data.
    let n4 = local.client_url("n4");
    assert_eq!(get_prefix(&n4, "k").unwrap().len(), 50);

    let removed = local
        .ctl(&["member", "remove", &id, "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&removed).len(), 3);
    let down = local
        .ctl(&["cluster", "down", "-w", "json"])
        .expect(0)
        .json();
    assert!(down["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["running"] == false));
    // Idempotent.
    local.ctl(&["cluster", "down"]).expect(0);
}

/// Real etcdctl against the engine: list, learner add, endpoint status, put/get,
/// promote after catch-up, remove.
#[test]
fn etcdctl_administers_the_engine() {
    let Some(etcdctl) = util::require_etcdctl("etcdctl_administers_the_engine") else {
        return;
    };
    let local = Local::up(&[]);
    let eps = local.endpoints().join(",");
    let r = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"]).expect(0);
    let v = r.json();
    assert_eq!(v["members"].as_array().unwrap().len(), 3);
    assert!(v["header"]["cluster_id"].is_u64());

    util::etcdctl(&etcdctl, &eps, &["put", "greeting", "hello"]).expect(0);
    let got = util::etcdctl(&etcdctl, &eps, &["get", "greeting", "--print-value-only"]).expect(0);
    assert_eq!(got.stdout.trim(), "hello");

    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let add = util::etcdctl(
        &etcdctl,
        &eps,
        &[
            "member",
            "add",
            "e4",
            "--learner",
            &format!("--peer-urls={peer}"),
            "-w",
            "json",
        ],
    )
    .expect(0);
    let add = add.json();
    assert_eq!(add["member"]["isLearner"], true);
    let id = add["member"]["ID"].as_u64().unwrap();
    let hex = format!("{id:x}");
    local.ctl(&["cluster", "start-node", "e4"]).expect(0);

    let status = util::etcdctl(
        &etcdctl,
        &local.endpoints().join(","),
        &["endpoint", "status", "-w", "json"],
    )
    .expect(0)
    .json();
    let rows = status.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        rows.iter()
            .filter(|r| r["Status"]["isLearner"] == true)
            .count(),
        1,
        "{status}"
    );
    assert!(rows
        .iter()
        .all(|r| r["Status"]["leader"].as_u64().unwrap() != 0));

    // etcdctl does not wait: retry its promote until the learner is in sync.
    wait_for(
        "etcdctl member promote to succeed",
        Duration::from_secs(30),
        || (util::etcdctl(&etcdctl, &eps, &["member", "promote", &hex]).code == 0).then_some(()),
    );
    let v = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"])
        .expect(0)
        .json();
    let m = v["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["ID"].as_u64() == Some(id))
        .unwrap()
        .clone();
    assert!(
        m.get("isLearner").is_none() || m["isLearner"] == false,
        "{m}"
    );
    assert_eq!(m["name"], "e4");

    util::etcdctl(&etcdctl, &eps, &["member", "remove", &hex]).expect(0);
    let v = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(v["members"].as_array().unwrap().len(), 3);
}

/// A learner that joins after the log was compacted is caught up by a snapshot,
/// then by the log, and promoted.
#[test]
fn late_learner_is_caught_up_by_snapshot() {
    let local = Local::up(&["--snapshot-count", "20"]);
    let ep = first_endpoint(&local);
    for i in 0..200 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    let peer = format!("http://127.0.0.1:{}", free_port());
    local
        .ctl(&["member", "add", "late", "--learner", "--peer-urls", &peer])
        .expect(0);
    local.ctl(&["cluster", "start-node", "late"]).expect(0);
    // Writes go on while it catches up from the log after the snapshot.
    for i in 200..220 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    let p = local.ctl(&["member", "promote", "late", "--timeout", "30s"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    let late = local.client_url("late");
    let got = get_prefix(&late, "s").unwrap();
    assert_eq!(got.len(), 220);
    // The first keys were compacted out of the log long ago: only a snapshot could bring them.
    assert_eq!(got[0], ("s000".to_string(), "value-0".to_string()));
    // A second late learner needs a new snapshot (one that holds it), not the one cached for the first.
    for i in 220..260 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    let peer = format!("http://127.0.0.1:{}", free_port());
    local
        .ctl(&["member", "add", "later", "--learner", "--peer-urls", &peer])
        .expect(0);
    local.ctl(&["cluster", "start-node", "later"]).expect(0);
    let p = local.ctl(&["member", "promote", "later", "--timeout", "30s"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    assert_eq!(
        get_prefix(&local.client_url("later"), "s").unwrap().len(),
        260
    );
}

/// A leader killed with kill -9 is replaced and writes go on.
#[test]
fn killed_leader_is_replaced_and_writes_go_on() {
    let local = Local::up(&[]);
    let status = local.status();
    let leader = status["leader"].as_str().unwrap().to_string();
    let node = status["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == leader.as_str())
        .unwrap()
        .clone();
    let pid = node["pid"].as_u64().unwrap() as u32;
    let others: Vec<String> = local
        .endpoints()
        .into_iter()
        .filter(|e| !node["client_url"].as_str().unwrap().ends_with(e.as_str()))
        .collect();
    put(&others[0], "before", "1").unwrap();
    local.kill9(pid);
    // Writes through a surviving member succeed again once a new leader is elected.
    wait_for(
        "a write after the leader was killed",
        Duration::from_secs(15),
        || put(&others[0], "after", "1").ok(),
    );
    for i in 0..20 {
        put(&others[i % 2], &format!("w{i}"), "x").unwrap();
    }
    let after = local.status();
    assert!(after["leader"].is_string());
    assert_ne!(after["leader"], leader.as_str());
    assert_eq!(get_prefix(&others[1], "w").unwrap().len(), 20);
}

// ---- explicit joint consensus ----------------------------------------------

use util::local::{latency, Writer};

fn hex_list(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

fn id_of(local: &Local, name: &str) -> String {
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    member_named(&list, name)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Retries `joint enter` (rule 6 refuses while the learner catches up) until it is accepted.
fn enter_when_caught_up(local: &Local, args: &[&str]) -> Value {
    let mut all = vec!["member", "joint", "enter"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-w", "json"]);
    wait_for(
        "the learner to catch up for joint enter",
        Duration::from_secs(30),
        || {
            let r = local.ctl(&all);
            match r.code {
                0 => Some(r.json()),
                3 if r.stderr.contains("rule 6") => None,
                _ => panic!("joint enter failed: {}\n{}", r.stderr, local.logs()),
            }
        },
    )
}

/// The seed's worked example end to end: voters {n1,n2}; n3 added as a learner
/// and caught up; one joint change promotes n3, demotes n2, adds learner n4;
/// then leave. A steady writer keeps succeeding throughout.
#[test]
fn joint_consensus_seed_example() {
    let local = Local::up(&["--nodes", "2", "--max-learners", "2"]);
    let (n1, n2) = (id_of(&local, "n1"), id_of(&local, "n2"));
    let writer = Writer::start(local.endpoints());

    // Refusals first: leave while not joint; promote a learner that has not caught up.
    let r = local.ctl(&["member", "joint", "leave"]).expect(3);
    assert!(r.stderr.contains("not joint"), "{}", r.stderr);
    let peer3 = format!("http://127.0.0.1:{}", free_port());
    let added = local
        .ctl(&[
            "member",
            "add",
            "n3",
            "--learner",
            "--peer-urls",
            &peer3,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let n3 = added["member"]["id"].as_str().unwrap().to_string();
    let r = local
        .ctl(&["member", "joint", "enter", "--promote", &n3])
        .expect(3);
    assert!(r.stderr.contains("rule 6"), "{}", r.stderr);
    local.ctl(&["cluster", "start-node", "n3"]).expect(0);

    let peer4 = format!("http://127.0.0.1:{}", free_port());
    let add4 = format!("n4={peer4}");
    let plan = local.ctl(&[
        "member",
        "joint",
        "enter",
        "--promote",
        "n3",
        "--demote",
        "n2",
        "--add-learner",
        &add4,
        "--dry-run",
        "-w",
        "json",
    ]);
    // The dry run may be refused by rule 6 until n3 has caught up; it never changes anything.
    if plan.code == 0 {
        let steps = plan.json()["plan"].as_array().unwrap().clone();
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[1]["quorum_outgoing"], 2);
    }
    assert_eq!(
        local
            .ctl(&["member", "joint", "status", "-w", "json"])
            .expect(0)
            .json()["joint"],
        false
    );

    let t_enter = std::time::Instant::now();
    let joint = enter_when_caught_up(
        &local,
        &["--promote", "n3", "--demote", "n2", "--add-learner", &add4],
    );
    let t_entered = std::time::Instant::now();
    assert_eq!(joint["joint"], true);
    assert_eq!(hex_list(&joint["voters"]), {
        let mut v = vec![n1.clone(), n3.clone()];
        v.sort();
        v
    });
    assert_eq!(hex_list(&joint["voters_outgoing"]), {
        let mut v = vec![n1.clone(), n2.clone()];
        v.sort();
        v
    });
    assert_eq!(hex_list(&joint["learners_next"]), vec![n2.clone()]);
    let learners = hex_list(&joint["learners"]);
    assert_eq!(learners.len(), 1);
    let n4 = learners[0].clone();
    let status = local
        .ctl(&["member", "joint", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(status, joint);

    // Rule 5: one change at a time.
    let r = local
        .ctl(&["member", "joint", "enter", "--remove", &n4])
        .expect(3);
    assert!(r.stderr.contains("rule 5"), "{}", r.stderr);
    let r = local.ctl(&["member", "remove", &n4]).expect(3);
    assert!(r.stderr.contains("joint"), "{}", r.stderr);

    let t_leave = std::time::Instant::now();
    let after = local.ctl(&["member", "joint", "leave", "-w", "json"]);
    assert_eq!(after.code, 0, "{}\n{}", after.stderr, local.logs());
    let t_left = std::time::Instant::now();
    let after = after.json();
    assert_eq!(after["joint"], false);
    assert_eq!(hex_list(&after["voters"]), hex_list(&joint["voters"]));
    assert_eq!(hex_list(&after["learners"]), {
        let mut v = vec![n2.clone(), n4.clone()];
        v.sort();
        v
    });
    assert!(after["learners_next"].as_array().unwrap().is_empty());
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(member_named(&list, "n2")["is_learner"], true);
    assert_eq!(member_named(&list, "n3")["is_learner"], false);

    let samples = writer.finish();
    let (n, max, p99) = latency(&samples, t_enter, t_entered);
    eprintln!("writer during joint enter: {n} puts, max {max:?}, p99 {p99:?}");
    let (n, max, p99) = latency(&samples, t_leave, t_left);
    eprintln!("writer during joint leave: {n} puts, max {max:?}, p99 {p99:?}");
    assert!(!samples.is_empty());
}

/// The leader killed with kill -9 while joint: a new leader is elected, the
/// configuration is still joint, leave succeeds; writes go on throughout.
#[test]
fn joint_survives_a_killed_leader() {
    let local = Local::up(&[]);
    let peer = format!("http://127.0.0.1:{}", free_port());
    local
        .ctl(&["member", "add", "n4", "--learner", "--peer-urls", &peer])
        .expect(0);
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    let status = local.status();
    let leader = status["leader"].as_str().unwrap().to_string();
    let nodes = status["nodes"].as_array().unwrap().clone();
    let leader_node = nodes
        .iter()
        .find(|n| n["id"] == leader.as_str())
        .unwrap()
        .clone();
    // Demote a voter that is not the leader.
    let demoted = nodes
        .iter()
        .find(|n| n["id"] != leader.as_str() && n["name"] != "n4")
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    let survivors: Vec<String> = local
        .endpoints()
        .into_iter()
        .filter(|e| {
            !leader_node["client_url"]
                .as_str()
                .unwrap()
                .ends_with(e.as_str())
        })
        .collect();
    let writer = Writer::start(survivors);
    let joint = enter_when_caught_up(&local, &["--promote", "n4", "--demote", &demoted]);
    assert_eq!(joint["joint"], true);

    local.kill9(leader_node["pid"].as_u64().unwrap() as u32);
    let status = wait_for("a new leader", Duration::from_secs(15), || {
        let v = local.ctl(&["member", "status", "-w", "json", "--dial-timeout", "300ms"]);
        let v = (v.code == 0).then(|| v.json())?;
        (v["leader"].is_string() && v["leader"] != leader.as_str()).then_some(v)
    });
    assert_ne!(status["leader"], leader.as_str());
    let still = local
        .ctl(&["member", "joint", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(still["joint"], true);
    let left = local.ctl(&["member", "joint", "leave", "-w", "json"]);
    assert_eq!(left.code, 0, "{}\n{}", left.stderr, local.logs());
    let left = left.json();
    assert_eq!(left["joint"], false);
    assert!(hex_list(&left["voters"]).contains(&id_of(&local, "n4")));
    let samples = writer.finish();
    assert!(samples.len() > 5, "{samples:?}");
}

// ---- generated files ----------------------------------------------------------

/// completions/ and man/ are what the current CLI generates. To update them:
/// `MEMBERCTL_BLESS=1 cargo test --test tests generated_files`.
#[test]
fn generated_files_are_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("MEMBERCTL_BLESS").is_ok_and(|v| v == "1") {
        memberctl::cli::generate::write_all(root).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    memberctl::cli::generate::write_all(tmp.path()).unwrap();
    let mut checked = 0;
    for sub in ["completions", "man"] {
        let mut names: Vec<_> = std::fs::read_dir(tmp.path().join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            let fresh = std::fs::read(tmp.path().join(sub).join(&name)).unwrap();
            let committed = std::fs::read(root.join(sub).join(&name)).unwrap_or_default();
            assert!(
                fresh == committed,
                "{sub}/{} differs from what the CLI generates; run MEMBERCTL_BLESS=1 cargo test --test tests generated_files",
                name.to_string_lossy()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5 + 10, "only {checked} files generated");
    // The man page of memberctl documents exit codes and environment variables.
    let man = std::fs::read_to_string(root.join("man/memberctl.1")).unwrap();
    assert!(
        man.contains("Exit codes") && man.contains("MEMBERCTL_ENDPOINTS"),
        "{man}"
    );
    // `memberctl completion SHELL` prints the same script.
    let r = memberctl(&["completion", "bash"]).expect(0);
    assert_eq!(
        r.stdout.as_bytes(),
        std::fs::read(root.join("completions/memberctl.bash")).unwrap()
    );
}

// ---- member replace ------------------------------------------------------------

/// `member replace` on the engine: resumes after an interrupted run (the new
/// member was added already), swaps through one joint change, and a rerun has
/// nothing left to do.
#[test]
fn replace_on_the_engine_resumes_and_finishes() {
    let local = Local::up(&[]);
    let old = id_of(&local, "n3");
    let plan = local.ctl(&[
        "member",
        "replace",
        "n3",
        "--name",
        "n4",
        "--peer-urls",
        "http://127.0.0.1:1",
        "--dry-run",
        "-w",
        "json",
    ]);
    let plan = plan.expect(0).json();
    assert_eq!(plan["plan"].as_array().unwrap().len(), 4);
    // An earlier run that stopped right after adding the learner:
    let (new, peer) = add_learner(|a| local.ctl(a), "n4");
    let r = local.ctl(&[
        "member",
        "replace",
        "n3",
        "--name",
        "n4",
        "--peer-urls",
        &peer,
        "--start-local",
        "--timeout",
        "60s",
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    let v = r.json();
    assert_eq!(v["removed"]["id"], old.as_str());
    assert_eq!(v["member"]["id"], new.as_str());
    assert_eq!(v["member"]["is_learner"], false);
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&list).len(), 3);
    assert!(!ids(&list).contains(&old));
    assert_eq!(
        local
            .ctl(&["member", "joint", "status", "-w", "json"])
            .expect(0)
            .json()["joint"],
        false
    );
    // Running it again finds nothing left to do.
    let again = local
        .ctl(&[
            "member",
            "replace",
            "n3",
            "--name",
            "n4",
            "--peer-urls",
            &peer,
        ])
        .expect(0);
    assert!(
        again.stderr.contains("nothing left to do"),
        "{}",
        again.stderr
    );
}

/// `member replace` against etcd: the new member already started (an earlier
/// run added it); replace promotes it after catch-up, then removes the old one.
#[test]
fn replace_against_etcd() {
    let Some(bin) = require_etcd("replace_against_etcd") else {
        return;
    };
    let mut etcd = Etcd::start(bin, 3);
    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let added = etcd
        .ctl(&[
            "member",
            "add",
            "m4",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let new = added["member"]["id"].as_str().unwrap().to_string();
    etcd.start_added("m4", peer_port, added["initial_cluster"].as_str().unwrap());
    let old = member_named(&etcd.list(), "m2")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = etcd.ctl(&[
        "member",
        "replace",
        "m2",
        "--name",
        "m4",
        "--peer-urls",
        &peer,
        "--timeout",
        "60s",
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, etcd.log("m4"));
    let v = r.json();
    assert_eq!(v["removed"]["id"], old.as_str());
    assert_eq!(v["member"]["id"], new.as_str());
    let list = etcd.list();
    assert_eq!(ids(&list).len(), 3);
    assert!(!ids(&list).contains(&old));
    assert_eq!(member_named(&list, "m4")["is_learner"], false);
}

// ---- authentication ---------------------------------------------------------------

/// memberctl against an etcd with authentication enabled (by etcdctl): the
/// right password works for the learner flow's add and remove; a wrong one is
/// refused with exit 3 and never printed; no password without a terminal is a
/// usage error.
#[test]
fn authentication_against_etcd() {
    let Some(bin) = require_etcd("authentication_against_etcd") else {
        return;
    };
    let Some(etcdctl) = util::require_etcdctl("authentication_against_etcd") else {
        return;
    };
    let etcd = Etcd::start(bin, 3);
    let eps: String = etcd
        .members
        .iter()
        .map(|m| format!("127.0.0.1:{}", m.client_port))
        .collect::<Vec<_>>()
        .join(",");
    for args in [
        vec!["user", "add", "root:s3cret-pw"],
        vec!["role", "add", "root"],
        vec!["user", "grant-role", "root", "root"],
        vec!["auth", "enable"],
    ] {
        util::etcdctl(&etcdctl, &eps, &args).expect(0);
    }
    let before = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
        .expect(0)
        .stdout;

    let r = etcd
        .ctl(&[
            "--user",
            "root:wr0ng-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            "http://127.0.0.1:1",
            "-w",
            "json",
        ])
        .expect(3);
    assert!(
        r.stderr.contains("authentication as \"root\" failed"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("wr0ng-pw") && !r.stdout.contains("wr0ng-pw"),
        "the password was printed"
    );
    let r = etcd.ctl(&["--user", "root", "member", "list"]).expect(2);
    assert!(r.stderr.contains("no password"), "{}", r.stderr);
    assert_eq!(
        before,
        etcd.ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
            .expect(0)
            .stdout
    );

    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = etcd
        .ctl(&[
            "--user",
            "root",
            "--password",
            "s3cret-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    let status = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert!(status["leader"].is_string());
    etcd.ctl(&["--user", "root:s3cret-pw", "member", "remove", &id])
        .expect(0);
}

// ---- TLS ------------------------------------------------------------------------

/// memberctl against a real etcd serving clients over TLS with client
/// certificates required: --cacert/--cert/--key work, --insecure-skip-tls-verify
/// works without the CA, a missing client certificate or a wrong CA fails clearly.
#[test]
fn tls_against_etcd() {
    let Some(bin) = require_etcd("tls_against_etcd") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pki = util::tls::make(dir.path(), "a");
    let other = util::tls::make(dir.path(), "b");
    let (cport, pport) = (free_port(), free_port());
    let client_url = format!("https://127.0.0.1:{cport}");
    let peer_url = format!("http://127.0.0.1:{pport}");
    let mut child = std::process::Command::new(bin)
        .args(["--name", "t1", "--data-dir"])
        .arg(dir.path().join("data"))
        .args([
            "--listen-client-urls",
            &client_url,
            "--advertise-client-urls",
            &client_url,
        ])
        .args([
            "--listen-peer-urls",
            &peer_url,
            "--initial-advertise-peer-urls",
            &peer_url,
        ])
        .args(["--initial-cluster", &format!("t1={peer_url}")])
        .arg("--cert-file")
        .arg(&pki.server_cert)
        .arg("--key-file")
        .arg(&pki.server_key)
        .arg("--trusted-ca-file")
        .arg(&pki.ca)
        .arg("--client-cert-auth")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ep = format!("127.0.0.1:{cport}");
    let s = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
    let (ca, cert, key) = (s(&pki.ca), s(&pki.client_cert), s(&pki.client_key));
    let tls = [
        "--endpoints",
        ep.as_str(),
        "--cacert",
        ca.as_str(),
        "--cert",
        cert.as_str(),
        "--key",
        key.as_str(),
    ];
    let list = wait_for("etcd over TLS", Duration::from_secs(20), || {
        let mut args = tls.to_vec();
        args.extend(["member", "list", "-w", "json"]);
        let r = memberctl(&args);
        (r.code == 0).then(|| r.json())
    });
    assert_eq!(ids(&list).len(), 1);
    let mut args = tls.to_vec();
    args.extend(["member", "status", "-w", "json"]);
    let status = memberctl(&args).expect(0).json();
    assert_eq!(status["members"][0]["reachable"], true, "{status}");

    // Without a client certificate the server refuses the handshake.
    let r = memberctl(&["--endpoints", &ep, "--cacert", &ca, "member", "list"]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    // A CA that did not sign the server's certificate.
    let wrong = s(&other.ca);
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "--cacert",
        &wrong,
        "--cert",
        &cert,
        "--key",
        &key,
        "member",
        "list",
    ]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("--cacert"), "{}", r.stderr);
    // Encrypted but unverified.
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "--insecure-skip-tls-verify",
        "--cert",
        &cert,
        "--key",
        &key,
        "member",
        "list",
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills the processes of a hand-started cluster when the test ends.
struct Procs(Vec<std::process::Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The bundled engine with TLS on client and peer URLs and client certificates
/// required on both: it elects a leader over TLS, memberctl administers it with
/// --cacert/--cert/--key (a change through a follower is forwarded over peer
/// TLS), and a client without a certificate is refused.
#[test]
fn tls_on_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let pki = util::tls::make(dir.path(), "n");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (cert, key, ca) = (s(&pki.server_cert), s(&pki.server_key), s(&pki.ca));
    let clients: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let peers: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let initial: Vec<String> = (0..3)
        .map(|i| format!("n{}=https://127.0.0.1:{}", i + 1, peers[i]))
        .collect();
    let initial = initial.join(",");
    let mut procs = Procs(vec![]);
    for i in 0..3 {
        let c = format!("https://127.0.0.1:{}", clients[i]);
        let p = format!("https://127.0.0.1:{}", peers[i]);
        let child = std::process::Command::new(util::bin())
            .args(["node", "run", "--name", &format!("n{}", i + 1)])
            .arg("--data-dir")
            .arg(dir.path().join(format!("n{}", i + 1)))
            .args(["--listen-client-urls", &c, "--advertise-client-urls", &c])
            .args([
                "--listen-peer-urls",
                &p,
                "--initial-advertise-peer-urls",
                &p,
                "--initial-cluster",
                &initial,
            ])
            .args([
                "--cert-file",
                &cert,
                "--key-file",
                &key,
                "--trusted-ca-file",
                &ca,
                "--client-cert-auth",
            ])
            .args([
                "--peer-cert-file",
                &cert,
                "--peer-key-file",
                &key,
                "--peer-trusted-ca-file",
                &ca,
                "--peer-client-cert-auth",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.path().join(format!("n{}.log", i + 1))).unwrap())
            .spawn()
            .unwrap();
        procs.0.push(child);
    }
    let eps: String = clients
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let (ccert, ckey) = (s(&pki.client_cert), s(&pki.client_key));
    let tls = [
        "--endpoints",
        eps.as_str(),
        "--cacert",
        ca.as_str(),
        "--cert",
        ccert.as_str(),
        "--key",
        ckey.as_str(),
    ];
    let with = |extra: &[&str]| {
        let mut a = tls.to_vec();
        a.extend_from_slice(extra);
        memberctl(&a)
    };
    let status = wait_for(
        "the TLS engine cluster to elect a leader",
        Duration::from_secs(20),
        || {
            let r = with(&["member", "status", "-w", "json"]);
            let v = (r.code == 0).then(|| r.json())?;
            let all = v["members"]
                .as_array()?
                .iter()
                .all(|m| m["reachable"] == true && m["started"] == true);
            (v["leader"].is_string() && all).then_some(v)
        },
    );
    // A change sent to a follower is forwarded to the leader over peer TLS.
    let leader = status["leader"].as_str().unwrap();
    let follower = status["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] != leader)
        .unwrap()["client_urls"][0]
        .as_str()
        .unwrap()
        .to_string();
    let peer = format!("https://127.0.0.1:{}", free_port());
    let args = [
        "--endpoints",
        &follower,
        "--cacert",
        &ca,
        "--cert",
        &ccert,
        "--key",
        &ckey,
    ];
    let mut add = args.to_vec();
    add.extend([
        "member",
        "add",
        "t4",
        "--learner",
        "--peer-urls",
        &peer,
        "-w",
        "json",
    ]);
    let r = memberctl(&add);
    assert_eq!(
        r.code,
        0,
        "{}\n{}",
        r.stderr,
        std::fs::read_to_string(dir.path().join("n1.log")).unwrap_or_default()
    );
    let id = r.json()["member"]["id"].as_str().unwrap().to_string();
    with(&["member", "remove", &id]).expect(0);
    // No client certificate: refused.
    assert_eq!(
        memberctl(&["--endpoints", &eps, "--cacert", &ca, "member", "list"]).code,
        5
    );
}
