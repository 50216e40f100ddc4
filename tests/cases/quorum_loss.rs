//! The way back from a lost quorum (etcd's `--force-new-cluster`), on the
//! engine and on etcd: two of three members killed for good, the survivor
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
    // Without the flag, no warning.
    let doc = local
        .ctl(&["--endpoints", &client, "member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(doc["members"][0]["force_new_cluster"], false, "{doc}");
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
    drop(again);
}

/// `memberctl member status` of the local cluster with `args`, as JSON,
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

/// `member status` against a real etcd: with one voter of three down, exit
/// 0 and a fault tolerance of 0; with its majority killed, exit 8 at once
/// (no timeout), naming the voters that answer and those that do not, the
/// survivor with the most of the log, and the recovery steps. `member list`
/// on etcd ≥ 3.5 (whose linearizable list no leader can confirm) gives the
/// one member's view and the same diagnosis. Then the steps are followed
/// (see [`recover_by_the_steps`]).
fn status_diagnoses_quorum_loss_on_etcd(version: &str) {
    let bin = crate::util::versions::etcd_server(version);
    let mut etcd = crate::util::Etcd::start(bin, 3);
    let mut acked = Vec::new();
    for i in 0..20 {
        let (k, v) = (format!("k{i:02}"), format!("v{i}"));
        local::put(&etcd.members[i % 3].client_url(), &k, &v).unwrap();
        acked.push((k, v));
    }
    let (lost2, lost3) = (etcd.members[1].peer_url(), etcd.members[2].peer_url());
    let all: Vec<String> = etcd.members.iter().map(|m| m.client_url()).collect();
    // `memberctl ARGS` against every member, and its seconds.
    let timed_any = |args: &[&str]| {
        let eps = all.join(",");
        let mut full = vec!["--endpoints", &eps, "--dial-timeout", "500ms"];
        full.extend_from_slice(args);
        let started = std::time::Instant::now();
        let r = crate::util::memberctl(&full);
        (r, started.elapsed().as_secs_f64())
    };
    // The same, which must exit with `code`.
    let timed = |args: &[&str], code: i32| {
        let (r, secs) = timed_any(args);
        (r.expect(code), secs)
    };
    // One voter of three down: the quorum holds, no fault tolerance is left.
    etcd.kill(2);
    let doc = wait_for("a leader among the two", Duration::from_secs(20), || {
        let (r, _) = timed_any(&["member", "status", "-w", "json"]);
        let doc = (r.code == 0).then(|| r.json())?;
        doc["leader"].is_string().then_some(doc)
    });
    assert_eq!(doc["voters"], 3, "{doc}");
    assert_eq!(doc["quorum"], 2, "{doc}");
    assert_eq!(doc["answering_voters"], 2, "{doc}");
    assert_eq!(doc["fault_tolerance"], 0, "{doc}");
    assert!(doc["quorum_lost"].is_null(), "{doc}");
    let m3 = &doc["members"].as_array().unwrap()[..]
        .iter()
        .find(|m| m["name"] == "m3")
        .cloned()
        .unwrap();
    assert_eq!(m3["status"], "unreachable", "{doc}");
    assert!(m3["error"].is_string(), "{doc}");
    let (r, _) = timed(&["member", "status", "-w", "simple"], 0);
    assert!(
        r.stdout.ends_with(
            "cluster: voters=3 quorum=2 answering_voters=2 fault_tolerance=0 quorum_lost=false\n"
        ),
        "{}",
        r.stdout
    );

    etcd.kill(1);
    let (r, secs) = timed(&["member", "status", "-w", "json"], 8);
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
    assert_eq!(doc["fault_tolerance"], 0, "{doc}");
    assert_eq!(doc["answering_voters"], 1, "{doc}");
    let steps: Vec<&str> = q["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let text = steps.join("\n");
    assert!(text.contains("--force-new-cluster"), "{text}");
    assert!(
        text.contains("2. once it serves, remove --force-new-cluster"),
        "{text}"
    );
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
        let (r, secs) = timed(
            &["--command-timeout", "2s", "member", "list", "-w", "json"],
            0,
        );
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
    recover_by_the_steps(&mut etcd, [lost2, lost3], acked);
}

/// The steps `member status` printed, followed on `etcd` (m1 the survivor,
/// m2 and m3 lost for good, at the peer URLs `lost`): m1 restarted with
/// `--force-new-cluster`, memberctl warning while it runs with the flag;
/// m2 and m3 added back as learners on empty data directories, started and
/// promoted; then m1 restarted with its usual flags — which would remove
/// them for good were the flag still set — and still three voters, every
/// write acknowledged before the loss and after (`acked`, more added here)
/// read back through each member.
fn recover_by_the_steps(
    etcd: &mut crate::util::Etcd,
    lost: [String; 2],
    mut acked: Vec<(String, String)>,
) {
    etcd.stop(0);
    etcd.restart_with(0, &["--force-new-cluster"]);
    let m1 = etcd.members[0].client_url();
    wait_for(
        "the survivor to serve alone",
        Duration::from_secs(30),
        || {
            let r = crate::util::memberctl(&["--endpoints", &m1, "member", "list", "-w", "json"]);
            (r.code == 0 && r.json()["members"].as_array()?.len() == 1).then_some(())
        },
    );
    let mut put = |ep: &str, k: &str| {
        local::put(ep, k, "after").unwrap();
        acked.push((k.to_string(), "after".to_string()));
    };
    put(&m1, "k-forced");
    let r = etcd.ctl(&["member", "status", "-w", "json"]).expect(0);
    let doc = r.json();
    assert_eq!(doc["members"][0]["force_new_cluster"], true, "{doc}");
    let warning = doc["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("m1 (") && warning.contains("its command line (/debug/vars)"),
        "{doc}"
    );
    assert!(r.stderr.contains("warning: m1 ("), "{}", r.stderr);
    for (i, name) in [(1, "m2"), (2, "m3")] {
        let url = &lost[i - 1];
        std::fs::remove_dir_all(etcd.data_dir(i)).unwrap();
        let added = etcd.ctl(&[
            "member",
            "add",
            name,
            "--learner",
            "--peer-urls",
            url,
            "-w",
            "json",
        ]);
        assert_eq!(added.code, 0, "{}", added.stderr);
        // The next command on the cluster warns too (its pre-flight check).
        assert!(
            added
                .stderr
                .contains("warning: check force-new-cluster: m1 ("),
            "{}",
            added.stderr
        );
        let initial = added.json()["initial_cluster"]
            .as_str()
            .unwrap()
            .to_string();
        let port = etcd.members[i].peer_port;
        etcd.start_added(name, port, &initial);
        let promoted = etcd.ctl(&["member", "promote", name]);
        assert_eq!(promoted.code, 0, "{}\n{}", promoted.stderr, etcd.log(name));
        put(&m1, &format!("k-with-{name}"));
    }
    let doc = etcd
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(doc["fault_tolerance"], 1, "{doc}");
    assert_eq!(doc["warnings"].as_array().unwrap().len(), 1, "{doc}");

    // The survivor restarted with its usual flags keeps the members added back.
    etcd.stop(0);
    etcd.restart(0);
    let doc = wait_for(
        "m1 back among three voters",
        Duration::from_secs(30),
        || {
            let r = crate::util::memberctl(&["--endpoints", &m1, "member", "status", "-w", "json"]);
            let doc = (r.code == 0).then(|| r.json())?;
            (doc["answering_voters"] == 3 && doc["leader"].is_string()).then_some(doc)
        },
    );
    assert_eq!(doc["voters"], 3, "{doc}");
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
    let members = doc["members"].as_array().unwrap();
    assert!(
        members
            .iter()
            .all(|m| m["force_new_cluster"] == false && m["is_learner"] == false),
        "{doc}"
    );
    put(&m1, "k-restarted");
    for ep in etcd.endpoints().split(',') {
        let kept = local::get_prefix_linearizable(ep, "k").unwrap();
        for kv in &acked {
            assert!(kept.contains(kv), "{kv:?} lost on {ep}: {kept:?}");
        }
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
