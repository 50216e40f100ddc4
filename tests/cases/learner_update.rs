//! `member update` of a learner on both sides of etcd#21694 (3.5.30 vs 3.5.31, 3.6.11 vs 3.6.12, 3.4, 3.7, the engine): refused where the server would list the learner as a voter afterwards, done and checked where it keeps the flag.

use serde_json::Value;

use crate::util::local::Local;
use crate::util::members::add_learner;
use crate::util::{free_port, versions::etcd_server, Etcd, Run};

/// The learner `id` in `list`: whether it is listed as a learner, and its
/// peer URLs.
fn listed(list: &Value, id: &str) -> (bool, Vec<String>) {
    let m = list["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in {list}"));
    let urls = m["peer_urls"].as_array().unwrap();
    let urls = urls.iter().map(|u| u.as_str().unwrap().to_string());
    (m["is_learner"] == true, urls.collect())
}

/// One voter and an unstarted learner; `member update` of the learner.
/// `forgets`: the release lists a learner as a voter after an update. Where
/// it does, memberctl refuses (exit 3, the `learners` check naming the bug
/// and the remedy) and nothing changes; sent anyway (`--skip-check
/// learners`), the server really forgets (the rule measured), memberctl
/// says so (exit 1), and the remedy — remove it, add it again — works.
/// Where it does not, the update is done and the member is still a learner.
fn update_a_learner(ctl: &dyn Fn(&[&str]) -> Run, forgets: bool) {
    let (id, old) = add_learner(ctl, "l1");
    let list = || ctl(&["member", "list", "-w", "json"]).expect(0).json();
    let new = format!("http://127.0.0.1:{}", free_port());
    let update = ["member", "update", &id, "--peer-urls", &new, "-w", "json"];
    let r = ctl(&update);
    if !forgets {
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(listed(&list(), &id), (true, vec![new]));
        return;
    }
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("check learners failed"), "{}", r.stderr);
    assert!(r.stderr.contains("etcd#21694"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("memberctl member remove {id}")),
        "{}",
        r.stderr
    );
    assert_eq!(listed(&list(), &id), (true, vec![old]), "a refused update");

    let mut skipped = update.to_vec();
    skipped.extend(["--skip-check", "learners"]);
    let r = ctl(&skipped);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("lists this learner as a voter"),
        "{}",
        r.stderr
    );
    assert_eq!(listed(&list(), &id), (false, vec![new]), "the bug measured");
    ctl(&["member", "remove", &id]).expect(0);
    let (again, _) = add_learner(ctl, "l2");
    assert!(listed(&list(), &again).0);
}

/// `update_a_learner` on one voter of etcd `version`.
fn on_etcd(version: &str, forgets: bool) {
    let etcd = Etcd::start(etcd_server(version), 1);
    etcd.wait_healthy();
    update_a_learner(&|a| etcd.ctl(a), forgets);
}

fn a_learner_update_is_refused_on_3_4() {
    on_etcd("3.4", true);
}

fn a_learner_update_is_refused_on_3_5_30() {
    on_etcd("3.5.30", true);
}

fn a_learner_update_keeps_the_learner_on_3_5_31() {
    on_etcd("3.5.31", false);
}

fn a_learner_update_is_refused_on_3_6_11() {
    on_etcd("3.6.11", true);
}

fn a_learner_update_keeps_the_learner_on_3_6_12() {
    on_etcd("3.6.12", false);
}

fn a_learner_update_keeps_the_learner_on_3_7() {
    on_etcd("3.7", false);
}

fn a_learner_update_keeps_the_learner_on_the_engine() {
    let local = Local::up(&["--nodes", "1"]);
    update_a_learner(&|a| local.ctl(a), false);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_learner_update_is_refused_on_3_4: [EtcdServer("3.4")],
        a_learner_update_is_refused_on_3_5_30: [EtcdServer("3.5.30")],
        a_learner_update_keeps_the_learner_on_3_5_31: [EtcdServer("3.5.31")],
        a_learner_update_is_refused_on_3_6_11: [EtcdServer("3.6.11")],
        a_learner_update_keeps_the_learner_on_3_6_12: [EtcdServer("3.6.12")],
        a_learner_update_keeps_the_learner_on_3_7: [EtcdServer("3.7")],
        a_learner_update_keeps_the_learner_on_the_engine,
    ]
}
