//! `member replace` on the engine and against etcd.

use crate::util::faults::leader_and_others;
use crate::util::local::Local;
use crate::util::members::{add_learner, add_learner_at, id_of, ids, member_named};
use crate::util::versions::etcd_server;
use crate::util::{free_port, Etcd};

/// `member replace` on the engine: resumes after an interrupted run (the new
/// member was added already), swaps through one joint change, and a rerun has
/// nothing left to do.
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
    // before, learner added, joint, after; and a leadership transfer first when n3 leads.
    let n3_leads = leader_and_others(&local).0.name == "n3";
    let steps = plan["plan"].as_array().unwrap();
    assert_eq!(steps.len(), 4 + usize::from(n3_leads), "{plan}");
    assert_eq!(
        steps.iter().any(|s| s["step"]
            .as_str()
            .unwrap()
            .starts_with("move leadership from n3")),
        n3_leads,
        "{plan}"
    );
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
    assert_eq!(local.joint_status()["joint"], false);
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
fn replace_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let mut etcd = Etcd::start(bin, 3);
    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let added = add_learner_at(|a| etcd.ctl(a), "m4", &peer);
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

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        replace_on_the_engine_resumes_and_finishes,
        replace_against_etcd: each_version [],
    ]
}
