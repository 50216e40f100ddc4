//! The way back from a lost quorum on the engine (etcd's
//! `--force-new-cluster`): two of three members killed for good, the
//! survivor restarted with `--force-new-cluster` keeps every acknowledged
//! write, serves alone, accepts writes and new members; a lost member that
//! comes back on its old data is refused as removed and stops.

use std::process::Child;
use std::time::Duration;

use crate::util::faults::exited;
use crate::util::local::{self, Local};
use crate::util::wait_for;

/// A process started by the test; killed on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn force_new_cluster_recovers_a_survivor_of_a_lost_quorum() {
    let local = Local::up(&["--nodes", "3"]);
    let eps = local.endpoints();
    for i in 0..30 {
        local::put(&eps[i % 3], &format!("k{i:02}"), &format!("v{i}")).unwrap();
    }
    let n1 = local.node("n1");
    let id1 = n1["id"].as_str().unwrap().to_string();
    let client = n1["client_url"].as_str().unwrap().to_string();
    // The majority lost for good; the survivor stopped as well.
    for (_, pid) in local.pids() {
        local.kill9(pid);
    }

    let log = local.dir().join("n1-forced.log");
    let survivor = Running(
        local
            .node_run("n1", &["--force-new-cluster"])
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let kept = wait_for(
        "the survivor to serve alone",
        Duration::from_secs(30),
        || local::get_prefix_linearizable(&client, "k").ok(),
    );
    assert_eq!(kept.len(), 30, "every acknowledged write is kept: {kept:?}");
    assert!(kept.contains(&("k29".to_string(), "v29".to_string())));
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("--force-new-cluster") && said.contains("is now the only member"),
        "{said}"
    );
    let list = local
        .ctl(&["--endpoints", &client, "member", "list", "-w", "json"])
        .expect(0)
        .json();
    let members = list["members"].as_array().unwrap();
    assert_eq!(members.len(), 1, "{list}");
    assert_eq!(members[0]["id"], id1.as_str());
    local::put(&client, "after", "recovery").unwrap();

    // A lost member back on its old data: refused as removed, it stops.
    let mut n2 = local.node_run("n2", &[]).spawn().unwrap();
    let pid = n2.id();
    wait_for(
        "the lost member to stop as removed",
        Duration::from_secs(20),
        || exited(pid).then_some(()),
    );
    assert_eq!(n2.wait().unwrap().code(), Some(7));
    // Started again on that data, the survivor is itself again (no second rewrite needed).
    drop(survivor);
    let again = Running(local.node_run("n1", &[]).spawn().unwrap());
    let kept = wait_for(
        "the recovered member to serve after a restart",
        Duration::from_secs(30),
        || {
            local::get_prefix_linearizable(&client, "after")
                .ok()
                .filter(|k| k.len() == 1)
        },
    );
    assert_eq!(kept[0].1, "recovery");
    drop(again);
}

/// `cluster recover` on a local cluster whose majority was killed: refusals
/// first (a healthy cluster, an unknown or dead `--from`) change nothing;
/// then the survivor is forced, the others come back as new members, and the
/// cluster of three serves again with everything the survivor held.
fn cluster_recover_rebuilds_a_local_cluster_from_its_survivor() {
    let local = Local::up(&["--nodes", "3"]);
    let eps = local.endpoints();
    for i in 0..30 {
        local::put(&eps[i % 3], &format!("k{i:02}"), &format!("v{i}")).unwrap();
    }
    let list = |l: &Local| l.ctl(&["member", "list", "-w", "json"]).expect(0).json();
    let before = list(&local);
    let r = local.ctl(&["cluster", "recover"]).expect(3);
    assert!(r.stderr.contains("has not lost its quorum"), "{}", r.stderr);
    let r = local.ctl(&["cluster", "recover", "--from", "n9"]).expect(2);
    assert!(r.stderr.contains("no node n9"), "{}", r.stderr);
    assert_eq!(
        list(&local),
        before,
        "a refused recover changed the cluster"
    );

    let survivor = local.node("n1");
    let client = survivor["client_url"].as_str().unwrap().to_string();
    for name in ["n2", "n3"] {
        let pid = local
            .pids()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
            .unwrap();
        local.kill9(pid);
    }
    let r = local.ctl(&["cluster", "recover", "--from", "n2"]).expect(3);
    assert!(r.stderr.contains("not running"), "{}", r.stderr);
    // What the survivor holds (its own copy: no quorum for a linearizable read).
    let held = wait_for("the survivor's own copy", Duration::from_secs(10), || {
        local::get_prefix(&client, "k")
            .ok()
            .filter(|k| !k.is_empty())
    });

    let r = local.ctl(&["cluster", "recover", "-w", "json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert!(
        r.stderr.contains("recovering from n1") && r.stderr.contains("may be lost"),
        "{}",
        r.stderr
    );
    let after = list(&local);
    let members = after["members"].as_array().unwrap();
    let mut names: Vec<&str> = members
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["n1", "n2", "n3"], "{after}");
    assert!(members.iter().all(|m| m["is_learner"] == false), "{after}");
    for ep in local.endpoints() {
        let kept = local::get_prefix_linearizable(&ep, "k").unwrap();
        for kv in &held {
            assert!(kept.contains(kv), "{kv:?} lost on {ep}");
        }
    }
    local::put(&local.endpoints()[1], "after", "recovery").unwrap();
}

/// `member status` against a real etcd whose majority was killed: answers
/// at once (no timeout), names the voters that answer and those that do
/// not, the survivor with the most of the log, and the recovery commands.
/// `member list` on etcd ≥ 3.5 (whose linearizable list no leader can
/// confirm) gives the one member's view and the same diagnosis.
fn status_diagnoses_quorum_loss_on_etcd(version: &str) {
    let bin = crate::util::versions::etcd_server(version);
    let mut etcd = crate::util::Etcd::start(bin, 3);
    etcd.ctl(&["member", "list"]).expect(0);
    let (lost2, lost3) = (etcd.members[1].peer_url(), etcd.members[2].peer_url());
    etcd.kill(1);
    etcd.kill(2);
    let all: Vec<String> = etcd.members.iter().map(|m| m.client_url()).collect();
    // `memberctl ARGS -w json` against every member, exit 0, and its seconds.
    let timed = |args: &[&str]| {
        let eps = all.join(",");
        let mut full = vec!["--endpoints", &eps, "--dial-timeout", "500ms"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["-w", "json"]);
        let started = std::time::Instant::now();
        let r = crate::util::memberctl(&full).expect(0);
        (r, started.elapsed().as_secs_f64())
    };
    let (r, secs) = timed(&["member", "status"]);
    // Two unreachable endpoints cost a dial timeout each (0.5 s), not a
    // command timeout per request; the bound catches only a gross error
    // (waiting per endpoint and request), also on a busy machine.
    assert!(secs < 30.0, "member status took {secs:.1} s");
    let doc = r.json();
    let q = &doc["quorum_lost"];
    assert_eq!(q["voters"], 3, "{doc}");
    assert_eq!(q["quorum"], 2, "{doc}");
    assert_eq!(q["answering"].as_array().unwrap().len(), 1, "{doc}");
    assert_eq!(q["lost"].as_array().unwrap().len(), 2, "{doc}");
    assert_eq!(q["survivor"]["name"], "m1", "{doc}");
    let steps: Vec<&str> = q["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let text = steps.join("\n");
    assert!(text.contains("--force-new-cluster"), "{text}");
    for (name, url) in [("m2", &lost2), ("m3", &lost3)] {
        assert!(
            text.contains(&format!(
                "memberctl member add {name} --learner --peer-urls {url}"
            )),
            "{text}"
        );
    }
    assert!(
        r.stderr.contains("quorum lost: 1 of 3 voters answer"),
        "{}",
        r.stderr
    );
    if version != "3.4" {
        let (r, secs) = timed(&["--command-timeout", "2s", "member", "list"]);
        assert!(secs < 30.0, "member list took {secs:.1} s");
        assert_eq!(r.json()["members"].as_array().unwrap().len(), 3);
        assert!(
            r.stderr.contains("quorum lost: 1 of 3 voters answer"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains("memberctl member add m2 --learner"),
            "{}",
            r.stderr
        );
    }
}

fn status_diagnoses_quorum_loss_on_etcd_3_4() {
    status_diagnoses_quorum_loss_on_etcd("3.4");
}

fn status_diagnoses_quorum_loss_on_etcd_3_6() {
    status_diagnoses_quorum_loss_on_etcd("3.6");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        force_new_cluster_recovers_a_survivor_of_a_lost_quorum,
        cluster_recover_rebuilds_a_local_cluster_from_its_survivor,
        status_diagnoses_quorum_loss_on_etcd_3_4: [EtcdServer("3.4")],
        status_diagnoses_quorum_loss_on_etcd_3_6: [EtcdServer("3.6")],
    ]
}
