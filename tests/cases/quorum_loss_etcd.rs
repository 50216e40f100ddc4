//! The way back from a lost quorum on real etcd (3.4 and 3.6): `member
//! status` with one voter of three down (exit 0, fault tolerance 0) and with
//! two (exit 8, the diagnosis and the steps); the steps followed, memberctl
//! warning while the survivor runs with `--force-new-cluster`, and the
//! survivor restarted with its usual flags keeping the members added back.

use std::time::Duration;

use crate::util::local;
use crate::util::wait_for;

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
/// A survivor forced by its environment (`ETCD_FORCE_NEW_CLUSTER=true`, its
/// command line silent, as a systemd unit's environment file would have it)
/// is seen through /proc: `member status` marks it and warns, naming where
/// it read that; the member restarted without the variable is not marked.
fn status_sees_force_new_cluster_set_in_the_environment() {
    let bin = crate::util::versions::etcd_server("3.4");
    let mut etcd = crate::util::Etcd::start(bin, 1);
    etcd.stop(0);
    etcd.restart_with_env(0, &[("ETCD_FORCE_NEW_CLUSTER", "true")]);
    etcd.wait_healthy();
    let pid = etcd.pid(0).expect("the member runs");
    let r = etcd.ctl(&["member", "status", "-w", "json"]).expect(0);
    let doc = r.json();
    assert_eq!(doc["members"][0]["force_new_cluster"], true, "{doc}");
    let warning = doc["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains(&format!("ETCD_FORCE_NEW_CLUSTER in /proc/{pid}/environ")),
        "{doc}"
    );
    etcd.stop(0);
    etcd.restart(0);
    etcd.wait_healthy();
    let doc = etcd
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(doc["members"][0]["force_new_cluster"], false, "{doc}");
    assert!(
        doc["warnings"].as_array().is_none_or(|w| w.is_empty()),
        "{doc}"
    );
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        status_diagnoses_quorum_loss_on_etcd_3_4: [EtcdServer("3.4")],
        status_diagnoses_quorum_loss_on_etcd_3_6: [EtcdServer("3.6")],
        status_sees_force_new_cluster_set_in_the_environment: [EtcdServer("3.4")],
    ]
}
