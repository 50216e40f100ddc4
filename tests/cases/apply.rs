//! `member apply` on the engine: grow, shrink, replace two at once and move
//! to new hosts under a steady writer; kill -9 of memberctl between steps and
//! a rerun; the refusals, with the cluster unchanged; and against etcd, with
//! new members started from the settings memberctl prints.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use serde_json::Value;

use crate::util::faults::kill9_all;
use crate::util::local::Local;
use crate::util::operator::{
    apply_args, run_starting_members, run_starting_members_until, target_of,
};
use crate::util::versions::etcd_server;
use crate::util::writer::SteadyWriter;
use crate::util::{self, free_port, Etcd, Run};

/// The members as (name, first peer URL, is learner).
fn members(local: &Local) -> Vec<(String, String, bool)> {
    let v = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    let mut out: Vec<(String, String, bool)> = v["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or_default().to_string(),
                m["peer_urls"][0].as_str().unwrap_or_default().to_string(),
                m["is_learner"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    out.sort();
    out
}

/// `--target` for the members named `keep` (as they are) and new ones.
fn target(local: &Local, keep: &[&str], new: &[&str]) -> String {
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    target_of(&list, keep, new)
}

/// The voters' names, sorted (asserting there is no learner left).
fn voters(local: &Local) -> Vec<String> {
    let m = members(local);
    assert!(m.iter().all(|(_, _, l)| !l), "a learner is left: {m:?}");
    m.into_iter().map(|(n, _, _)| n).collect()
}

fn apply(local: &Local, target: &str, extra: &[&str]) -> Run {
    let mut args = vec!["member", "apply", "--target", target, "--timeout", "60s"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-w", "json"]);
    local.ctl(&args)
}

/// 3 → 5 (dry run first), 5 → 3, two replaced at once, a rerun with nothing
/// to do, and a move to three new hosts, each with its learners caught up
/// first and one joint change; a writer on the member that stays through the
/// first four sees no failed write.
fn apply_grows_shrinks_replaces_and_moves_the_engine() {
    let local = Local::up(&["--max-learners", "3"]);
    let n3 = local
        .client_url("n3")
        .trim_start_matches("http://")
        .to_string();
    let writer = SteadyWriter::start(vec![n3], "apply/", Duration::from_millis(10));

    let grow = target(&local, &["n1", "n2", "n3"], &["n4", "n5"]);
    let plan = apply(&local, &grow, &["--dry-run"]).expect(0).json();
    let steps: Vec<(String, i64, i64)> = plan["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                format!(
                    "{} {}",
                    s["action"].as_str().unwrap(),
                    s["member"].as_str().unwrap()
                ),
                s["voters_after"].as_i64().unwrap(),
                s["fault_tolerance_after"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("add-learner n4".to_string(), 3, 1),
            ("catch-up n4".to_string(), 3, 1),
            ("add-learner n5".to_string(), 3, 1),
            ("catch-up n5".to_string(), 3, 1),
            ("joint-enter +n4 +n5".to_string(), 5, 1),
            ("joint-leave ".to_string(), 5, 2),
        ]
    );
    assert_eq!(voters(&local).len(), 3, "the dry run changed the cluster");
    let r = apply(&local, &grow, &["--start-local"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert_eq!(r.json()["steps"].as_array().unwrap().len(), 6);
    assert_eq!(voters(&local), ["n1", "n2", "n3", "n4", "n5"]);

    let shrink = target(&local, &["n3", "n4", "n5"], &[]);
    let r = apply(&local, &shrink, &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert_eq!(voters(&local), ["n3", "n4", "n5"]);

    let two = target(&local, &["n3"], &["n6", "n7"]);
    let r = apply(&local, &two, &["--start-local"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert_eq!(voters(&local), ["n3", "n6", "n7"]);
    let again = apply(&local, &two, &[]).expect(0).json();
    assert_eq!(again["nothing_to_do"], true, "{again}");
    writer.wait_for_more(20, Duration::from_secs(10));
    let written = writer.finish();
    assert_eq!(written.failed, 0, "failed writes during apply");
    assert!(written.acked.len() > 20);

    let moved = target(&local, &[], &["n8", "n9", "n10"]);
    let r = apply(&local, &moved, &["--start-local"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert_eq!(voters(&local), ["n10", "n8", "n9"]);
}

/// memberctl killed (-9) as it begins its second step, three times in a
/// row, then run to the end: the same membership as an uninterrupted run
/// (one learner at a time, as `cluster up` allows by default: a joint change
/// per new member).
fn apply_resumes_after_kill_9_at_each_step() {
    let local = Local::up(&[]);
    let grow = target(&local, &["n1", "n2", "n3"], &["n4", "n5"]);
    for round in 0..3 {
        let mut child = local
            .command(&[
                "member",
                "apply",
                "--target",
                &grow,
                "--start-local",
                "--timeout",
                "60s",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start memberctl");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        // Each run plans afresh, so each kill falls one step further into
        // the whole change; a run with one step left ends by itself.
        let mut said = Vec::new();
        let killed = util::wait_for(
            "memberctl to begin its second step or end",
            Duration::from_secs(90),
            || match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(l) if l.contains("step 2:") => Some(true),
                Ok(l) => {
                    said.push(l);
                    None
                }
                Err(RecvTimeoutError::Disconnected) => Some(false),
                _ => None,
            },
        );
        if killed {
            kill9_all(&[child.id()]);
        }
        let status = child.wait().expect("memberctl ends");
        assert!(
            killed || status.success(),
            "round {round}: {status}\n{}\nlogs:\n{}",
            said.join("\n"),
            local.logs()
        );
    }
    let r = apply(&local, &grow, &["--start-local"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert_eq!(voters(&local), ["n1", "n2", "n3", "n4", "n5"]);
    let again = apply(&local, &grow, &[]).expect(0).json();
    assert_eq!(again["nothing_to_do"], true);
}

/// Each refusal exits 3, names its rule and leaves the cluster as it was.
fn apply_refusals_change_nothing() {
    let local = Local::up(&[]);
    let before = members(&local);
    let all = target(&local, &["n1", "n2", "n3"], &[]);
    let one = target(&local, &["n1"], &[]);
    let p = free_port();
    let duplicate = format!("{all},n1=http://127.0.0.1:{p}");
    let bad_url = format!("{all},n4=127.0.0.1:{p}");
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty target", String::new(), "the target is empty"),
        ("target of one", one, "--force"),
        ("duplicate name", duplicate, "given twice"),
        ("invalid URL", bad_url, "rule 1"),
    ];
    for (what, t, text) in &cases {
        let r = apply(&local, t, &[]);
        assert_eq!(r.code, 3, "{what}: {}", r.stderr);
        assert!(r.stderr.contains(text), "{what}: {}", r.stderr);
        let v: Value = r.json();
        assert_eq!(v["error"]["kind"], "refused", "{what}: {v}");
        assert_eq!(members(&local), before, "{what} changed the cluster");
    }
    // Two of three voters down: growing would need them to vote.
    let pids: Vec<u32> = local
        .pids()
        .into_iter()
        .filter(|(n, _)| n != "n1")
        .map(|(_, p)| p)
        .collect();
    kill9_all(&pids);
    let n1 = local.client_url("n1");
    let grow = format!("{all},n4=http://127.0.0.1:{}", free_port());
    let r = local.ctl(&[
        "--endpoints",
        &n1,
        "member",
        "apply",
        "--target",
        &grow,
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("unreachable member to vote"),
        "{}",
        r.stderr
    );
}

/// The voters of `etcd`, by name, sorted (asserting there is no learner).
fn etcd_voters(etcd: &Etcd) -> Vec<String> {
    let v = etcd.list();
    let mut names: Vec<String> = v["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["is_learner"], false, "a learner is left: {v}");
            m["name"].as_str().unwrap().to_string()
        })
        .collect();
    names.sort();
    names
}

/// `--target` for the etcd members named `keep` and new ones.
fn etcd_target(etcd: &Etcd, keep: &[&str], new: &[&str]) -> String {
    target_of(&etcd.list(), keep, new)
}

/// The raft term the etcd member at `endpoint` (host:port) is in.
fn raft_term(endpoint: &str) -> u64 {
    let r = util::etcd::etcdctl(
        &util::require_etcdctl(),
        endpoint,
        &["endpoint", "status", "-w", "json"],
    );
    r.json()[0]["Status"]["header"]["raft_term"]
        .as_u64()
        .unwrap_or_else(|| panic!("no raft term in {}", r.stdout))
}

/// Against etcd: 3 → 5, 5 → 3, two replaced at once, a rerun with nothing to
/// do, under a writer on a member that stays (etcd drops at most one write
/// per change of leader: each transfer the plan makes, as `member remove` of
/// its leader shows, and each election a busy machine causes — counted by
/// the raft term of the member that stays).
fn apply_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let mut etcd = Etcd::start(bin, 3);
    let m3 = etcd.members[2]
        .client_url()
        .trim_start_matches("http://")
        .to_string();
    let first_term = raft_term(&m3);
    let writer = SteadyWriter::start(vec![m3.clone()], "apply/", Duration::from_millis(10));
    let mut transfers = 0;
    for (keep, new, want) in [
        (
            vec!["m1", "m2", "m3"],
            vec!["m4", "m5"],
            vec!["m1", "m2", "m3", "m4", "m5"],
        ),
        (vec!["m3", "m4", "m5"], vec![], vec!["m3", "m4", "m5"]),
        (vec!["m3"], vec!["m6", "m7"], vec!["m3", "m6", "m7"]),
    ] {
        let t = etcd_target(&etcd, &keep, &new);
        let args = apply_args(&etcd, &t);
        let (code, v, log) = run_starting_members(&mut etcd, &args);
        assert_eq!(code, 0, "{log}");
        assert_eq!(etcd_voters(&etcd), want, "{log}");
        transfers += v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["action"] == "move-leader")
            .count();
        let args = apply_args(&etcd, &t);
        let (code, again, log) = run_starting_members(&mut etcd, &args);
        assert_eq!(code, 0, "{log}");
        assert_eq!(again["nothing_to_do"], true, "{again}");
    }
    writer.wait_for_more(20, Duration::from_secs(10));
    let written = writer.finish();
    let leader_changes = transfers.max((raft_term(&m3) - first_term) as usize);
    assert!(
        written.failed <= leader_changes,
        "{} failed writes for {leader_changes} changes of leader ({transfers} planned transfers)",
        written.failed
    );
}

/// Against etcd 3.4: the refusals, with the member list byte-identical
/// after each; memberctl killed (-9) as it begins its second step, twice,
/// then run to the end; then a move to three new hosts.
fn apply_against_etcd_resumes_after_kill_9_and_refuses() {
    let bin = etcd_server("3.4");
    let mut etcd = Etcd::start(bin, 3);
    let before = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
    let all = etcd_target(&etcd, &["m1", "m2", "m3"], &[]);
    let one = etcd_target(&etcd, &["m1"], &[]);
    let p = free_port();
    for (what, t, text) in [
        ("target of one", one, "--force"),
        (
            "duplicate name",
            format!("{all},m1=http://127.0.0.1:{p}"),
            "given twice",
        ),
        ("invalid URL", format!("{all},m4=127.0.0.1:{p}"), "rule 1"),
    ] {
        let args = apply_args(&etcd, &t);
        let (code, v, log) = run_starting_members(&mut etcd, &args);
        assert_eq!(code, 3, "{what}: {log}");
        assert!(log.contains(text), "{what}: {log}");
        assert_eq!(v["error"]["kind"], "refused", "{what}: {v}");
        let now = etcd.ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
        assert_eq!(now, before, "{what} changed the cluster");
    }
    let grow = etcd_target(&etcd, &["m1", "m2", "m3"], &["m4", "m5"]);
    for _ in 0..2 {
        let args = apply_args(&etcd, &grow);
        let (code, _, log) = run_starting_members_until(&mut etcd, &args, Some("step 2:"));
        assert!(code == -9 || code == 0, "{log}");
    }
    let args = apply_args(&etcd, &grow);
    let (code, _, log) = run_starting_members(&mut etcd, &args);
    assert_eq!(code, 0, "{log}");
    assert_eq!(etcd_voters(&etcd), ["m1", "m2", "m3", "m4", "m5"], "{log}");
    let (code, again, log) = run_starting_members(&mut etcd, &args);
    assert_eq!(code, 0, "{log}");
    assert_eq!(again["nothing_to_do"], true, "{again}");
    // A move to three new hosts: every member the command was given goes.
    let moved = etcd_target(&etcd, &[], &["m6", "m7", "m8"]);
    let args = apply_args(&etcd, &moved);
    let (code, _, log) = run_starting_members(&mut etcd, &args);
    assert_eq!(code, 0, "{log}");
    assert_eq!(etcd_voters(&etcd), ["m6", "m7", "m8"], "{log}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        apply_grows_shrinks_replaces_and_moves_the_engine,
        apply_resumes_after_kill_9_at_each_step,
        apply_refusals_change_nothing,
        apply_against_etcd: each_version [],
        apply_against_etcd_resumes_after_kill_9_and_refuses: [EtcdServer("3.4")],
    ]
}
