//! `member replace` where a machine died, on every etcd release of the
//! matrix and on the engine, under a steady writer: a voter killed (-9) and
//! its data deleted; `--dry-run` plans remove-first (etcd and the engine
//! refuse every add while a voter is down); memberctl killed (-9) right
//! after the removal and run again with the same arguments finishes, with
//! exactly one new member, in the steps the plan showed; every acknowledged
//! write is read back. Five voters with two killed one after the other come
//! back to five (one release and the engine). Both sides of etcd#21640
//! (3.5.29/3.5.30, 3.6.10/3.6.11): with one of five voters down, memberctl
//! judges an add as each release does. A live member of a two-voter
//! cluster is replaced add-first in one run (etcd's "unhealthy cluster"
//! window after the new member connects waited out within `--timeout`). A
//! dead member whose client URL another cluster's server now answers is
//! replaced as any dead one, the stranger asked nothing and left as it was.

use std::time::Duration;

use serde_json::Value;

use crate::util::faults::leader_and_others;
use crate::util::local::Local;
use crate::util::members::member_named;
use crate::util::operator::{run_starting_members_until, run_watching};
use crate::util::versions::etcd_server;
use crate::util::writer::{check_acked, SteadyWriter};
use crate::util::{check_named, free_port, require_etcd, wait_for, Etcd, Run};

/// The steady writer's keys.
const PREFIX: &str = "replace/w/";

/// A cluster the cases run `member replace` on: real etcd (new members
/// started from the settings memberctl prints) or the engine's local cluster
/// (`--start-local`).
trait Cluster {
    /// Runs memberctl with `args` as an operator would, killed (-9) at the
    /// first stderr line with `kill_at`: exit code, stdout JSON, stderr.
    fn run(&mut self, args: &[&str], kill_at: Option<&str>) -> (i32, Value, String);
    /// Kills member `name` (-9) and deletes its data directory.
    fn kill_and_wipe(&mut self, name: &str);
    /// The client URLs (without the scheme) of the running members.
    fn endpoints(&self) -> Vec<String>;
    /// The running voters other than the leader, as the members say now.
    fn followers(&self) -> Vec<String>;
    /// `member list -w json`.
    fn list(&self) -> Value;
    /// Runs memberctl against the cluster.
    fn ctl(&self, args: &[&str]) -> Run;
    /// Whether the server is real etcd (whose strict reconfiguration check
    /// refuses an add as soon as the leader has lost a voter).
    fn is_etcd(&self) -> bool;
    /// The members' logs, for failure messages.
    fn logs(&self) -> String;
}

impl Cluster for Local {
    fn run(&mut self, args: &[&str], kill_at: Option<&str>) -> (i32, Value, String) {
        let mut all = args.to_vec();
        all.push("--start-local");
        run_watching(self.command(&all), kill_at, |_| {})
    }

    fn kill_and_wipe(&mut self, name: &str) {
        self.kill_node(name);
        std::fs::remove_dir_all(self.dir().join(name)).expect("delete the data directory");
    }

    fn endpoints(&self) -> Vec<String> {
        Local::endpoints(self)
    }

    fn followers(&self) -> Vec<String> {
        let running: Vec<String> = self.pids().into_iter().map(|(n, _)| n).collect();
        let others = leader_and_others(self).1.into_iter().map(|n| n.name);
        others.filter(|n| running.contains(n)).collect()
    }

    fn list(&self) -> Value {
        Local::ctl(self, &["member", "list", "-w", "json"])
            .expect(0)
            .json()
    }

    fn ctl(&self, args: &[&str]) -> Run {
        Local::ctl(self, args)
    }

    fn is_etcd(&self) -> bool {
        false
    }

    fn logs(&self) -> String {
        Local::logs(self)
    }
}

impl Cluster for Etcd {
    fn run(&mut self, args: &[&str], kill_at: Option<&str>) -> (i32, Value, String) {
        let mut all: Vec<String> = vec!["--endpoints".into(), Etcd::endpoints(self)];
        all.extend(args.iter().map(|a| a.to_string()));
        run_starting_members_until(self, &all, kill_at)
    }

    fn kill_and_wipe(&mut self, name: &str) {
        let i = self.members.iter().position(|m| m.name == name);
        let i = i.unwrap_or_else(|| panic!("no etcd member {name}"));
        self.kill(i);
        std::fs::remove_dir_all(self.data_dir(i)).expect("delete the data directory");
    }

    fn endpoints(&self) -> Vec<String> {
        Etcd::endpoints(self)
            .split(',')
            .map(|u| u.trim_start_matches("http://").to_string())
            .collect()
    }

    fn followers(&self) -> Vec<String> {
        let v = Etcd::ctl(self, &["member", "status", "-w", "json"])
            .expect(0)
            .json();
        let leader = v["leader"].clone();
        let members = v["members"].as_array().unwrap().iter();
        members
            .filter(|m| m["id"] != leader && m["reachable"] == true && m["is_learner"] == false)
            .map(|m| m["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn list(&self) -> Value {
        Etcd::list(self)
    }

    fn ctl(&self, args: &[&str]) -> Run {
        Etcd::ctl(self, args)
    }

    fn is_etcd(&self) -> bool {
        true
    }

    fn logs(&self) -> String {
        let names: Vec<String> = self.members.iter().map(|m| m.name.clone()).collect();
        names
            .iter()
            .map(|n| format!("{n}:\n{}", self.log(n)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The members of `cluster` as (name, is learner), sorted.
fn members(cluster: &dyn Cluster) -> Vec<(String, bool)> {
    let v = cluster.list();
    let mut out: Vec<(String, bool)> = v["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or_default().to_string(),
                m["is_learner"] == true,
            )
        })
        .collect();
    out.sort();
    out
}

/// The names of `steps` (a JSON array of strings, or of plan steps).
fn names(steps: &Value) -> Vec<String> {
    steps
        .as_array()
        .expect("an array of steps")
        .iter()
        .map(|s| s["step"].as_str().or(s.as_str()).unwrap().to_string())
        .collect()
}

/// The steps a run's stderr says began (`step N: NAME (voters …)`).
fn begun(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split_once(": step ")?.1.split_once(": ").map(|x| x.1))
        .map(|rest| {
            rest.rsplit_once(" (voters ")
                .map_or(rest, |x| x.0)
                .to_string()
        })
        .collect()
}

/// The plan of the dry run `dry` (a `member replace OLD … --dry-run`), once
/// it sees `old` dead (silent, and lost by the leader): remove-first.
fn plan_when_dead(cluster: &mut dyn Cluster, dry: &[&str], old: &str) -> Value {
    wait_for(
        &format!("the dry run to see {old} dead (silent, and lost by the leader)"),
        Duration::from_secs(30),
        || {
            let (code, v, _) = cluster.run(dry, None);
            (code == 0 && v["order"] == "remove_first").then_some(v)
        },
    )
}

/// Replaces dead `old` with `new`: the dry run (waited for until the leader
/// has lost `old` too) plans remove-first; an add is refused (`refuses` is
/// `Some(true)`: the server refuses it, and memberctl says so first) or
/// accepted (`Some(false)`: etcd 3.5 and later with one of five voters down) as
/// the server does; a run killed right
/// after the removal, then the same command again, finishes in the plan's
/// steps. Returns the rerun's document.
fn replace_dead(cluster: &mut dyn Cluster, old: &str, new: &str, refuses: Option<bool>) -> Value {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let args = [
        "member",
        "replace",
        old,
        "--name",
        new,
        "--peer-urls",
        &peer,
        "--timeout",
        "60s",
        "-w",
        "json",
    ];
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let plan = plan_when_dead(cluster, &dry, old);
    let planned = names(&plan["plan"])[1..].to_vec();
    assert!(
        planned[0].starts_with(&format!("after removing {old} (")),
        "{plan}"
    );
    assert_eq!(
        planned[1..],
        [
            format!("after adding {new} as a learner"),
            format!("after promoting {new}")
        ],
        "{plan}"
    );
    assert!(
        plan["order_rule"].as_str().unwrap().contains("dead"),
        "{plan}"
    );
    // Removing the dead voter leaves the fault tolerance as it was.
    let ft: Vec<u64> = plan["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["fault_tolerance"].as_u64().unwrap())
        .collect();
    assert_eq!(ft[0], ft[1], "{plan}");
    let before = cluster.list();
    assert!(
        before.to_string().contains(&format!("\"{old}\"")),
        "the dry run changed the cluster"
    );
    match refuses {
        Some(true) => adds_are_refused(cluster, old, &before),
        Some(false) => adds_are_accepted(cluster, &before),
        None => {}
    }

    let (code, _, killed) = cluster.run(&args, Some("step 2:"));
    assert_eq!(
        code, -9,
        "memberctl ended before its second step:\n{killed}"
    );
    let began = begun(&killed);
    assert_eq!(began.first(), planned.first(), "{killed}");
    let (code, v, log) = cluster.run(&args, None);
    assert_eq!(code, 0, "{log}\n{}", cluster.logs());
    let rerun = names(&v["steps"]);
    // The rerun took the plan's last steps; the killed run began the others
    // (the add may have gone through just before the kill).
    assert!(
        !rerun.is_empty() && planned.ends_with(&rerun),
        "plan {planned:?}, rerun {rerun:?}"
    );
    let done_before = &planned[..planned.len() - rerun.len()];
    assert!(began.starts_with(done_before), "{began:?} vs {planned:?}");
    assert_eq!(v["order"], "remove_first", "{v}");
    assert_eq!(v["member"]["name"], new, "{v}");
    assert_eq!(v["member"]["is_learner"], false, "{v}");
    v
}

/// With `dead` down, `member check --for add`, `member add --dry-run` and
/// `member add` say the server will refuse the add (exit 3, the remedy: the
/// remove-first replace) and send nothing; on etcd, the add sent anyway
/// (`--skip-check quorum`) is refused by the server itself.
fn adds_are_refused(cluster: &dyn Cluster, dead: &str, before: &Value) {
    let check = cluster.ctl(&["member", "check", "--for", "add", "-w", "json"]);
    assert_eq!(check.code, 3, "{}", check.stdout);
    let quorum = check_named(&check.json(), "quorum").clone();
    assert_eq!(quorum["result"], "fail", "{quorum}");
    assert!(
        quorum["detail"]
            .as_str()
            .unwrap()
            .contains("refuses every member add"),
        "{quorum}"
    );
    assert!(
        quorum["remedy"]
            .as_str()
            .unwrap()
            .contains("memberctl member replace"),
        "{quorum}"
    );
    assert_eq!(
        quorum["members"][0].as_str().unwrap().split(' ').next(),
        Some(dead)
    );
    let peer = format!("http://127.0.0.1:{}", free_port());
    let add = ["member", "add", "x", "--learner", "--peer-urls", &peer];
    for extra in [&["--dry-run"][..], &[]] {
        let mut args = add.to_vec();
        args.extend_from_slice(extra);
        let r = cluster.ctl(&args);
        assert_eq!(r.code, 3, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("check quorum failed"), "{}", r.stderr);
        assert!(r.stderr.contains("member replace"), "{}", r.stderr);
    }
    if cluster.is_etcd() {
        let mut args = add.to_vec();
        args.extend_from_slice(&["--skip-check", "quorum"]);
        let r = cluster.ctl(&args);
        assert_eq!(r.code, 3, "{}", r.stderr);
        assert!(r.stderr.contains("unhealthy cluster"), "{}", r.stderr);
    }
    assert_eq!(&cluster.list(), before, "a refused add changed the cluster");
}

/// With one of five voters down on etcd 3.5 or later, the quorum check
/// passes an add and the server takes it (a learner added, then removed;
/// etcd's "unhealthy cluster" window after a member connects — the one an
/// earlier replacement added — waited out by `member add`).
fn adds_are_accepted(cluster: &dyn Cluster, before: &Value) {
    let check = cluster.ctl(&["member", "check", "--for", "add", "-w", "json"]);
    let quorum = check_named(&check.json(), "quorum").clone();
    assert_eq!(quorum["result"], "ok", "{quorum}");
    let peer = format!("http://127.0.0.1:{}", free_port());
    let r = cluster.ctl(&[
        "member",
        "add",
        "x",
        "--learner",
        "--peer-urls",
        &peer,
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = r.json()["member"]["id"].as_str().unwrap().to_string();
    cluster.ctl(&["member", "remove", &id]).expect(0);
    let ids = |v: &Value| {
        let mut ids: Vec<String> = v["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&cluster.list()), ids(before));
}

/// `kills` followers of the first members killed one after the other
/// (their data deleted), each replaced by a new member while a steady writer
/// writes through every member: back to as many voters, each new member once,
/// every acknowledged write read back; `refuses`: whether the server refuses
/// an add with one voter down (judged at the first death).
fn replace_killed_one_after_the_other(cluster: &mut dyn Cluster, kills: usize, refuses: bool) {
    let before = members(&*cluster);
    let writer = SteadyWriter::start(cluster.endpoints(), PREFIX, Duration::from_millis(10));
    writer.wait_for_writes(20);
    let mut news: Vec<String> = Vec::new();
    for k in 0..kills {
        // A follower that was there from the start.
        let followers = cluster.followers();
        let old = followers.iter().find(|f| !news.contains(f)).cloned();
        let old = old.expect("a follower of the first members");
        let new = format!("r{}", k + 1);
        cluster.kill_and_wipe(&old);
        // The adds judged at the first death (the later ones take the same path).
        replace_dead(cluster, &old, &new, (k == 0).then_some(refuses));
        news.push(new);
        let now = members(&*cluster);
        assert_eq!(now.len(), before.len(), "{now:?}");
        assert!(now.iter().all(|(_, learner)| !learner), "{now:?}");
        assert!(!now.iter().any(|(n, _)| *n == old), "{now:?}");
        for n in &news {
            let once = now.iter().filter(|(m, _)| m == n).count();
            assert_eq!(once, 1, "{n} is not a member exactly once: {now:?}");
        }
        writer.wait_for_more(20, Duration::from_secs(20));
    }
    let written = writer.finish();
    let checked = check_acked(&cluster.endpoints(), PREFIX, &written.acked);
    assert!(checked > 40, "only {checked} writes were acknowledged");
}

/// Three voters on etcd `version`, one killed and its data deleted: replaced.
fn replace_dead_member(version: &'static str) {
    let mut etcd = Etcd::start(etcd_server(version), 3);
    replace_killed_one_after_the_other(&mut etcd, 1, true);
}

/// Three voters on the engine, one killed and its data deleted: replaced.
fn replace_dead_member_on_the_engine() {
    let mut local = Local::up(&[]);
    replace_killed_one_after_the_other(&mut local, 1, true);
}

/// Five voters on etcd `version`, one killed and its data deleted: once
/// memberctl sees it dead, `member check --for add` and `member add` judge
/// an add as the release does, and the server agrees (`refuses`: etcd before
/// etcd#21640 — 3.5.29, 3.6.10 — wants every voter connected; 3.5.30 and
/// 3.6.11 a quorum with the new member).
fn add_with_one_of_five_down(version: &'static str, refuses: bool) {
    let mut etcd = Etcd::start(etcd_server(version), 5);
    etcd.wait_healthy();
    let old = Cluster::followers(&etcd)[0].clone();
    etcd.kill_and_wipe(&old);
    let peer = format!("http://127.0.0.1:{}", free_port());
    let dry = [
        "member",
        "replace",
        &old,
        "--name",
        "n",
        "--peer-urls",
        &peer,
    ];
    let mut dry = dry.to_vec();
    dry.extend(["--dry-run", "-w", "json"]);
    plan_when_dead(&mut etcd, &dry, &old);
    let before = etcd.list();
    if refuses {
        adds_are_refused(&etcd, &old, &before);
    } else {
        adds_are_accepted(&etcd, &before);
    }
}

fn add_with_one_of_five_down_3_5_29() {
    add_with_one_of_five_down("3.5.29", true);
}

fn add_with_one_of_five_down_3_5_30() {
    add_with_one_of_five_down("3.5.30", false);
}

fn add_with_one_of_five_down_3_6_10() {
    add_with_one_of_five_down("3.6.10", true);
}

fn add_with_one_of_five_down_3_6_11() {
    add_with_one_of_five_down("3.6.11", false);
}

/// Three voters on etcd 3.5.29, 3.5.30, 3.6.10 and 3.6.11 (both sides of
/// etcd#21640), one killed and its data deleted: replaced.
fn replace_dead_member_3_5_29() {
    replace_dead_member("3.5.29");
}

fn replace_dead_member_3_5_30() {
    replace_dead_member("3.5.30");
}

fn replace_dead_member_3_6_10() {
    replace_dead_member("3.6.10");
}

fn replace_dead_member_3_6_11() {
    replace_dead_member("3.6.11");
}

/// Five voters on etcd 3.6, two killed one after the other: back to five
/// (with one of five down, 3.6 takes an add: still remove-first).
fn replace_two_dead_of_five() {
    let mut etcd = Etcd::start(etcd_server("3.6"), 5);
    replace_killed_one_after_the_other(&mut etcd, 2, false);
}

/// A machine died and another cluster's server now answers at its member's
/// client URL (its address given to another etcd, here Debian's 3.4 beside
/// a 3.6 cluster), with that URL among `--endpoints`: `member status` counts
/// the member as unreachable and names the stranger; the checks read only
/// the cluster's own members (no mixed versions); the remove-first
/// replacement runs as for any dead member; the stranger's cluster is left
/// as it was.
fn replace_dead_whose_address_another_cluster_answers() {
    let mut etcd = Etcd::start(etcd_server("3.6"), 3);
    etcd.kill_and_wipe("m3");
    let stranger = Etcd::start_one_at(require_etcd(), etcd.members[2].client_port);
    let theirs = stranger.list();
    let status = wait_for(
        "member status to see m3 unreachable (its leader to lose it)",
        Duration::from_secs(30),
        || {
            let r = etcd.ctl(&["member", "status", "-w", "json"]);
            let v = r.json();
            let m3 = member_named(&v, "m3").clone();
            (m3["status"] == "unreachable").then_some((r.code, m3))
        },
    );
    let (code, m3) = status;
    assert_eq!(code, 0, "{m3}");
    assert_eq!(m3["reachable"], false, "{m3}");
    let error = m3["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("server holds") && error.contains(&etcd.members[2].client_url()),
        "{m3}"
    );
    let check = etcd.ctl(&["member", "check", "-w", "json"]);
    let versions = check_named(&check.json(), "versions").clone();
    assert_ne!(versions["result"], "fail", "{versions}");
    assert!(
        !versions.to_string().contains("3.4"),
        "the stranger's version was read as m3's: {versions}"
    );
    replace_dead(&mut etcd, "m3", "fresh", Some(true));
    assert_eq!(stranger.list(), theirs, "the stranger's cluster changed");
}

/// A connection memberctl holds to a member that then dies is not carried
/// over to the server that takes its address afterwards (a long-lived
/// client: autopilot's, a promote's wait): the next request opens a new
/// connection, asks who answers, and asks another cluster's server nothing.
fn a_held_connection_is_not_carried_over_to_a_stranger() {
    use memberctl::client::{Client, ClientConfig};
    use memberctl::workflow::MembershipApi;
    let mut etcd = Etcd::start(require_etcd(), 1);
    let url = etcd.members[0].client_url();
    let client = Client::new(ClientConfig {
        endpoints: vec![url.clone()],
        dial_timeout: Duration::from_secs(2),
        command_timeout: Duration::from_secs(5),
        credentials: None,
        tls: Default::default(),
    })
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ours = rt.block_on(client.member_list()).expect("the first list");
    etcd.kill(0);
    let _stranger = Etcd::start_one_at(require_etcd(), etcd.members[0].client_port);
    let answer = rt.block_on(async {
        // The held connection broke; the next request may see that first.
        match client.member_list().await {
            Err(e) if !e.message.contains("another cluster") => client.member_list().await,
            other => other,
        }
    });
    match answer {
        Ok(list) => panic!(
            "the stranger's list was taken as the cluster's: {:?} (ours was {:?})",
            list.cluster_id, ours.cluster_id
        ),
        Err(e) => assert!(e.message.contains("another cluster"), "{}", e.message),
    }
}

/// Five voters on the engine, two killed one after the other: back to five.
fn replace_two_dead_of_five_on_the_engine() {
    let mut local = Local::up(&["--nodes", "5"]);
    replace_killed_one_after_the_other(&mut local, 2, true);
}

/// A live member of a two-voter cluster replaced add-first in one run;
/// `--command-timeout 2s` is shorter than etcd's 5 s window after the new
/// member connects, which the removal waits out within `--timeout`.
fn replace_live_of_two(cluster: &mut dyn Cluster, old: &str) {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let args = [
        "--command-timeout",
        "2s",
        "member",
        "replace",
        old,
        "--name",
        "fresh",
        "--peer-urls",
        &peer,
        "--timeout",
        "60s",
        "-w",
        "json",
    ];
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let (code, plan, log) = cluster.run(&dry, None);
    assert_eq!(code, 0, "{log}");
    assert_eq!(plan["order"], "add_first", "{plan}");
    let (code, v, log) = cluster.run(&args, None);
    assert_eq!(code, 0, "{log}\n{}", cluster.logs());
    assert_eq!(v["order"], "add_first", "{v}");
    let not_transfer = |s: &String| !s.starts_with("move leadership");
    let planned: Vec<String> = names(&plan["plan"])[1..]
        .iter()
        .filter(|s| not_transfer(s))
        .cloned()
        .collect();
    let ran: Vec<String> = names(&v["steps"])
        .into_iter()
        .filter(not_transfer)
        .collect();
    assert_eq!(ran, planned, "{v}");
    assert_eq!(planned[0], "after adding fresh as a learner");
    let now = members(&*cluster);
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(now.contains(&("fresh".to_string(), false)), "{now:?}");
    assert!(!now.iter().any(|(n, _)| n == old), "{now:?}");
}

fn replace_live_of_two_on_the_engine() {
    let mut local = Local::up(&["--nodes", "2"]);
    replace_live_of_two(&mut local, "n1");
}

fn replace_live_of_two_against_etcd() {
    let mut etcd = Etcd::start(etcd_server("3.4"), 2);
    replace_live_of_two(&mut etcd, "m1");
    // The new member answers with the old one gone.
    let list = etcd.list();
    assert_eq!(member_named(&list, "fresh")["is_learner"], false);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        replace_dead_member: each_version [],
        replace_dead_member_3_5_29: [EtcdServer("3.5.29")],
        replace_dead_member_3_5_30: [EtcdServer("3.5.30")],
        replace_dead_member_3_6_10: [EtcdServer("3.6.10")],
        replace_dead_member_3_6_11: [EtcdServer("3.6.11")],
        add_with_one_of_five_down_3_5_29: [EtcdServer("3.5.29")],
        add_with_one_of_five_down_3_5_30: [EtcdServer("3.5.30")],
        add_with_one_of_five_down_3_6_10: [EtcdServer("3.6.10")],
        add_with_one_of_five_down_3_6_11: [EtcdServer("3.6.11")],
        replace_dead_member_on_the_engine,
        replace_two_dead_of_five: [EtcdServer("3.6")],
        replace_two_dead_of_five_on_the_engine,
        replace_dead_whose_address_another_cluster_answers: [Etcd, EtcdServer("3.6")],
        a_held_connection_is_not_carried_over_to_a_stranger: [Etcd],
        replace_live_of_two_on_the_engine,
        replace_live_of_two_against_etcd: [EtcdServer("3.4")],
    ]
}
