//! The way back from a lost quorum (etcd's `--force-new-cluster`) on the
//! engine (on etcd: quorum_loss_etcd.rs): two of three members killed for good, the survivor
//! restarted with `--force-new-cluster` keeps every acknowledged write,
//! serves alone, accepts writes and new members; a lost member that comes
//! back on its old data is refused as removed and stops; memberctl warns
//! while the survivor still runs with the flag, and the survivor restarted
//! without it keeps the members added back. `member status` says the fault
//! tolerance, and exits 8 once the quorum is lost.

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
    // While it runs with the flag, memberctl says what a restart with it would do.
    let forced = local.ctl(&["--endpoints", &client, "member", "status", "-w", "json"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let doc = forced.json();
    assert_eq!(doc["members"][0]["force_new_cluster"], true, "{doc}");
    let warning = doc["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("n1 (")
            && warning.contains("/debug/vars")
            && warning.contains("removed for good"),
        "{doc}"
    );
    assert!(
        forced.stderr.contains("warning: n1 (")
            && forced.stderr.contains("runs with --force-new-cluster"),
        "{}",
        forced.stderr
    );

    // A lost member back on its old data: refused as removed, it stops.
    let mut n2 = local.node_run("n2", &[]).spawn().unwrap();
    let pid = n2.id();
    wait_for(
        "the lost member to stop as removed",
        Duration::from_secs(20),
        || exited(pid).then_some(()),
    );
    assert_eq!(
        n2.wait().unwrap().code(),
        Some(0),
        "a removed member stops as etcd's"
    );
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
    // Without the flag, no warning.
    let doc = local
        .ctl(&["--endpoints", &client, "member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(doc["members"][0]["force_new_cluster"], false, "{doc}");
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
    drop(again);
}

/// `memberctl member status` of the local cluster, as JSON,
/// once it says `answering` voters answer.
fn status_with_answering(local: &Local, answering: u64) -> serde_json::Value {
    wait_for(
        "member status to count the voters that answer",
        Duration::from_secs(20),
        || {
            let r = local.ctl(&["member", "status", "-w", "json", "--dial-timeout", "300ms"]);
            let doc = (r.code == 0 || r.code == 8).then(|| r.json())?;
            (doc["answering_voters"] == answering).then_some(doc)
        },
    )
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
    let doc = status_with_answering(&local, 3);
    assert_eq!(
        (doc["voters"].as_u64(), doc["fault_tolerance"].as_u64()),
        (Some(3), Some(1))
    );
    let kill = |name: &str| {
        let pid = local
            .pids()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
            .unwrap();
        local.kill9(pid);
    };
    // One voter of three down: the quorum holds (exit 0), no fault tolerance left.
    kill("n2");
    let doc = status_with_answering(&local, 2);
    let down = wait_for("a leader among the two", Duration::from_secs(20), || {
        let r = local.ctl(&[
            "member",
            "status",
            "-w",
            "simple",
            "--dial-timeout",
            "300ms",
        ]);
        (r.code == 0 && r.stdout.contains(", leader, ")).then_some(r)
    });
    assert_eq!(doc["quorum"], 2, "{doc}");
    assert_eq!(doc["fault_tolerance"], 0, "{doc}");
    assert!(doc["quorum_lost"].is_null(), "{doc}");
    let lines: Vec<&str> = down.stdout.lines().collect();
    assert_eq!(
        lines.last().copied(),
        Some("cluster: voters=3 quorum=2 answering_voters=2 fault_tolerance=0 quorum_lost=false"),
        "{}",
        down.stdout
    );
    // The member that does not answer is no follower, and says why.
    let n2 = lines.iter().find(|l| l.contains(", n2, ")).unwrap();
    let columns: Vec<&str> = n2.splitn(13, ", ").collect();
    assert_eq!(&columns[2..4], ["unreachable", "-"], "{n2}");
    assert_eq!(columns[11], "unreachable", "{n2}");
    assert_ne!(columns[12], "-", "{n2}");
    let table = local.ctl(&["member", "status", "-w", "table"]).expect(0);
    assert!(
        table
            .stdout
            .contains("Voters: 3, quorum: 2, answering: 2, fault tolerance: 0"),
        "{}",
        table.stdout
    );
    // Two of three: the quorum is lost, exit 8, in every format.
    kill("n3");
    let doc = status_with_answering(&local, 1);
    assert!(doc["quorum_lost"].is_object(), "{doc}");
    assert_eq!(doc["fault_tolerance"], 0, "{doc}");
    let r = local.ctl(&["member", "status", "-w", "simple"]).expect(8);
    assert!(
        r.stdout
            .ends_with("answering_voters=1 fault_tolerance=0 quorum_lost=true\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("quorum lost: 1 of 3 voters answer"),
        "{}",
        r.stderr
    );
    let r = local.ctl(&["member", "status", "-w", "table"]).expect(8);
    assert!(r.stdout.contains("(quorum lost"), "{}", r.stdout);
    // A change meets no leader: it says so and points to `member status`.
    let r = local
        .ctl(&[
            "member",
            "add",
            "n9",
            "--learner",
            "--peer-urls",
            "http://127.0.0.1:1",
            "--command-timeout",
            "1s",
        ])
        .expect(5);
    assert!(
        r.stderr.contains("lost its quorum: 1 of 3 voters answer")
            && r.stderr.contains("`memberctl member status`"),
        "{}",
        r.stderr
    );
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
        r.stderr.contains("recovering from n1")
            && r.stderr.contains("may be lost")
            && r.stderr
                .contains("restarting n1 without --force-new-cluster"),
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
    // The survivor runs without the flag: nothing to warn of, full tolerance.
    let doc = status_with_answering(&local, 3);
    assert_eq!(doc["fault_tolerance"], 1, "{doc}");
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
    let n1 = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "n1")
        .unwrap();
    assert_eq!(n1["force_new_cluster"], false, "{doc}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        force_new_cluster_recovers_a_survivor_of_a_lost_quorum,
        cluster_recover_rebuilds_a_local_cluster_from_its_survivor,
    ]
}
