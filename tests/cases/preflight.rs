//! Pre-flight checks: `member check` and the refusals of changes the cluster
//! cannot take, on a real etcd (a full database) and on the engine (learners).

use serde_json::Value;

use crate::util::local::Local;
use crate::util::members::{add_learner_at, ids};
use crate::util::{self, check_named as check, free_port, Etcd};

/// etcd 3.4 with a small quota, filled until NOSPACE: `member check` fails
/// the alarms check (exit 3), a learner add is refused with etcd's remedy and
/// nothing changes; after the remedy (delete, compact, defragment, disarm)
/// the check passes and the same add goes through.
fn a_full_database_refuses_an_add_until_space_is_freed() {
    let (bin, ctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start_with_flags(bin, 3, vec!["--quota-backend-bytes", "4000000"]);
    let eps = etcd.endpoints();

    // A fresh etcd has measured no peer round trip yet (it probes every few
    // seconds): `network` is unknown until then.
    let healthy = util::wait_for(
        "etcd's first peer round trips",
        std::time::Duration::from_secs(30),
        || {
            let doc = etcd
                .ctl(&["member", "check", "-w", "json"])
                .expect(0)
                .json();
            (check(&doc, "network")["result"] != "unknown").then_some(doc)
        },
    );
    assert_eq!(healthy["ok"], true, "{healthy}");
    assert_eq!(check(&healthy, "alarms")["result"], "ok");
    assert_eq!(check(&healthy, "quorum")["result"], "ok");
    let names: Vec<&str> = healthy["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "quorum",
            "alarms",
            "learners",
            "versions",
            "db",
            "apply",
            "disk",
            "network",
            "stability",
            "catch-up",
            "peer-tls",
            "force-new-cluster"
        ]
    );
    // The figures of /metrics and /version are read from every member.
    for name in [
        "versions",
        "db",
        "network",
        "stability",
        "catch-up",
        "peer-tls",
        "force-new-cluster",
    ] {
        assert_eq!(check(&healthy, name)["result"], "ok", "{name}: {healthy}");
    }
    // The disk's figures depend on this machine's disk (and a fresh member
    // has too few fsyncs to judge): read for every member, never a failure.
    let disk = check(&healthy, "disk");
    let text = disk["detail"].as_str().unwrap();
    assert_eq!(text.matches("wal fsync p99").count(), 3, "{disk}");
    assert_eq!(text.matches("backend commit p99").count(), 3, "{disk}");
    assert_ne!(disk["result"], "fail", "{disk}");
    let db = check(&healthy, "db")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(db.matches("% of the 3.8 MiB quota").count(), 3, "{db}");
    assert!(check(&healthy, "versions")["detail"]
        .as_str()
        .unwrap()
        .contains("cluster version 3.4.0"));

    // Fill the database until etcd raises NOSPACE (bounded: 4 MB of quota, 100 kB values).
    let value = "x".repeat(100_000);
    let full = (0..200).any(|i| {
        let r = util::etcdctl(&ctl, &eps, &["put", &format!("big/{i}"), &value]);
        r.code != 0 && r.stderr.contains("database space exceeded")
    });
    assert!(full, "etcd never refused a put for space");
    let alarms = util::etcdctl(&ctl, &eps, &["alarm", "list"]);
    assert!(alarms.stdout.contains("NOSPACE"), "{}", alarms.stdout);

    let r = etcd.ctl(&["member", "check", "-w", "json"]).expect(3);
    let doc = r.json();
    assert_eq!(doc["ok"], false);
    let alarm = check(&doc, "alarms");
    assert_eq!(alarm["result"], "fail", "{alarm}");
    assert!(alarm["detail"].as_str().unwrap().contains("NOSPACE"));
    for step in [
        "etcdctl compaction",
        "etcdctl defrag",
        "etcdctl alarm disarm",
    ] {
        assert!(alarm["remedy"].as_str().unwrap().contains(step), "{alarm}");
    }

    let before = etcd.list();
    let peer = format!("http://127.0.0.1:{}", free_port());
    let add = ["member", "add", "m4", "--learner", "--peer-urls", &peer];
    let r = etcd.ctl(&add).expect(3);
    assert!(r.stderr.contains("check alarms failed"), "{}", r.stderr);
    assert!(r.stderr.contains("NOSPACE"), "{}", r.stderr);
    assert!(r.stderr.contains("--skip-check"), "{}", r.stderr);
    assert_eq!(etcd.list(), before, "a refused add changed the membership");

    // The remedy: drop the data, compact, defragment every member, disarm.
    util::etcdctl(&ctl, &eps, &["del", "--prefix", "big/"]);
    let status = util::etcdctl(&ctl, &eps, &["endpoint", "status", "-w", "json"]);
    let revision = serde_json::from_str::<Value>(&status.stdout).expect("status json")[0]["Status"]
        ["header"]["revision"]
        .as_i64()
        .expect("revision");
    let compacted = util::etcdctl(&ctl, &eps, &["compaction", &revision.to_string()]);
    assert_eq!(compacted.code, 0, "{}", compacted.stderr);
    let defrag = util::etcdctl(&ctl, &eps, &["defrag"]);
    assert_eq!(defrag.code, 0, "{}", defrag.stderr);
    let disarm = util::etcdctl(&ctl, &eps, &["alarm", "disarm"]);
    assert_eq!(disarm.code, 0, "{}", disarm.stderr);

    let after = etcd
        .ctl(&["member", "check", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(check(&after, "alarms")["result"], "ok", "{after}");
    let mut add_json = add.to_vec();
    add_json.extend(["-w", "json"]);
    let added = etcd.ctl(&add_json).expect(0).json();
    assert_eq!(ids(&etcd.list()).len(), 4);
    // The change's report carries the checks it passed.
    assert!(added["member"]["id"].is_string(), "{added}");
    assert_eq!(check(&added, "alarms")["result"], "ok", "{added}");
    assert_eq!(
        added["checks"].as_array().unwrap().len(),
        util::CHANGE_CHECKS,
        "{added}"
    );
}

/// The engine: `member check` reads every check; a second learner is refused
/// by the `learners` check naming the first (not started); `--skip-check
/// learners` passes it knowingly, says so, and the server's own limit answers.
fn a_second_learner_is_refused_by_the_learners_check() {
    let local = Local::up(&[]);
    let doc = local
        .ctl(&["member", "check", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(doc["ok"], true, "{doc}");
    // The engine serves /metrics and /version as etcd: every check reads them.
    for name in [
        "quorum",
        "alarms",
        "learners",
        "apply",
        "stability",
        "db",
        "versions",
    ] {
        assert_eq!(check(&doc, name)["result"], "ok", "{name}: {doc}");
    }
    // A fresh cluster has too few fsyncs and commits (and its members may not
    // have probed each other yet) to judge; the round trips it has depend on
    // this machine's load (tests run side by side): never a failure.
    for name in ["disk", "network"] {
        let c = check(&doc, name);
        let judged = if name == "network" { "warn" } else { "ok" };
        assert!(
            c["result"] == "ok" || c["result"] == "unknown" || c["result"] == judged,
            "{name}: {c}"
        );
        assert!(c["detail"].as_str().unwrap().contains("p99"), "{c}");
    }

    let first = format!("http://127.0.0.1:{}", free_port());
    let added = add_learner_at(|a| local.ctl(a), "n4", &first);
    let n4 = added["member"]["id"].as_str().unwrap().to_string();

    let before = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    let second = format!("http://127.0.0.1:{}", free_port());
    let add = ["member", "add", "n5", "--learner", "--peer-urls", &second];
    let r = local.ctl(&add).expect(3);
    assert!(r.stderr.contains("check learners failed"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&n4),
        "the refusal names the first learner: {}",
        r.stderr
    );
    assert!(r.stderr.contains("not started"), "{}", r.stderr);
    let after = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(before, after, "a refused add changed the membership");

    let r = local
        .ctl(&["member", "check", "--for", "add", "-w", "json"])
        .expect(3);
    let learners = check(&r.json(), "learners").clone();
    assert_eq!(learners["result"], "fail", "{learners}");
    assert!(
        learners["members"].to_string().contains("n4")
            || learners["members"].to_string().contains(&n4)
    );

    // Knowingly skipped: said so; the engine's own limit (1) still refuses.
    let mut skipped = add.to_vec();
    skipped.extend(["--skip-check", "learners"]);
    let r = local.ctl(&skipped).expect(3);
    assert!(
        r.stderr.contains("check learners skipped as asked"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("too many learner"), "{}", r.stderr);

    // A dry run's plan carries the checks it would pass, the skipped one marked.
    let mut dry = skipped.clone();
    dry.extend(["--dry-run", "-w", "json"]);
    let plan = local.ctl(&dry).expect(0).json();
    assert!(
        plan["plan"].as_array().is_some_and(|p| !p.is_empty()),
        "{plan}"
    );
    let learners = check(&plan, "learners");
    assert_eq!(learners["skipped"], true, "{plan}");
    assert_eq!(learners["result"], "fail", "{plan}");
    assert_eq!(
        plan["checks"].as_array().unwrap().len(),
        util::CHANGE_CHECKS,
        "{plan}"
    );

    // A check name that does not exist is a usage error.
    let r = local.ctl(&[
        "member",
        "add",
        "n6",
        "--learner",
        "--peer-urls",
        &second,
        "--skip-check",
        "everything",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("possible values: quorum"), "{}", r.stderr);
}

/// The engine, busy (300 writes on 3 members): `disk` and `network` are
/// judged, not `unknown`. Every member's backend commits (each applied
/// batch's publish) reach the 100 observations a p99 needs, and every member
/// (followers too) has round trips to both its peers from its prober, which
/// probes every 4 s: polled until then, within a deadline.
fn a_busy_engine_cluster_judges_disk_and_network() {
    let local = Local::up(&[]);
    let endpoint = local.client_url("n1");
    let endpoint = endpoint.trim_start_matches("http://");
    for i in 0..300 {
        crate::util::local::put(endpoint, &format!("busy/{i}"), "v")
            .unwrap_or_else(|e| panic!("put {i}: {e}"));
    }
    let doc = crate::util::wait_for(
        "disk and network judged on every member",
        std::time::Duration::from_secs(30),
        || {
            let doc = local
                .ctl(&["member", "check", "-w", "json"])
                .expect(0)
                .json();
            ["disk", "network"]
                .iter()
                .all(|name| check(&doc, name)["result"] != "unknown")
                .then_some(doc)
        },
    );
    for name in ["disk", "network"] {
        let c = check(&doc, name);
        assert!(c["result"] == "ok" || c["result"] == "warn", "{name}: {c}");
    }
    let disk = check(&doc, "disk")["detail"].as_str().unwrap().to_string();
    assert_eq!(disk.matches("backend commit p99").count(), 3, "{disk}");
    assert!(!disk.contains("too few"), "{disk}");
    // Each member to each of its two peers: six pairs.
    let network = check(&doc, "network")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(network.matches('→').count(), 6, "{network}");
    assert!(!network.contains("not read"), "{network}");
}

/// etcd 3.4, one member: large values put, deleted and compacted leave a
/// file mostly free pages; `db` warns, naming the file's size and
/// `etcdctl defrag`; after the defragmentation it is `ok`.
fn a_fragmented_database_warns_until_defragmented() {
    let (bin, ctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start(bin, 1);
    let eps = etcd.endpoints();
    // 80 values of 1 MB (under etcd's 1.5 MiB request limit), read from stdin.
    let value = vec![b'x'; 1_000_000];
    for i in 0..80 {
        let r = util::etcdctl_in(&ctl, &eps, &["put", &format!("big/{i}")], &value);
        assert_eq!(r.code, 0, "put big/{i}: {}", r.stderr);
    }
    let db = |doc: &Value| check(doc, "db").clone();
    let before = db(&etcd.ctl(&["member", "check", "-w", "json"]).json());
    assert_eq!(before["result"], "ok", "{before}");

    let r = util::etcdctl(&ctl, &eps, &["del", "--prefix", "big/"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let status = util::etcdctl(&ctl, &eps, &["endpoint", "status", "-w", "json"]);
    let revision = serde_json::from_str::<Value>(&status.stdout).expect("status json")[0]["Status"]
        ["header"]["revision"]
        .as_i64()
        .expect("revision");
    let r = util::etcdctl(
        &ctl,
        &eps,
        &["compaction", "--physical", &revision.to_string()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);

    // bbolt releases the freed pages at a later write's commit.
    let warned = util::wait_for(
        "the db check to see the free pages",
        std::time::Duration::from_secs(20),
        || {
            let r = util::etcdctl(&ctl, &eps, &["put", "tick", "1"]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let c = db(&etcd
                .ctl(&["member", "check", "-w", "json"])
                .expect(0)
                .json());
            (c["result"] == "warn").then_some(c)
        },
    );
    let remedy = warned["remedy"].as_str().unwrap();
    assert!(remedy.contains("etcdctl defrag"), "{warned}");
    assert!(remedy.contains("receives the whole"), "{warned}");
    assert!(remedy.contains("free pages"), "{warned}");
    let detail = warned["detail"].as_str().unwrap();
    assert!(detail.contains(" in use"), "{warned}");
    // A warning lets a change through, and says so on stderr.
    let peer = format!("http://127.0.0.1:{}", free_port());
    let r = etcd
        .ctl(&[
            "member",
            "add",
            "m2",
            "--learner",
            "--peer-urls",
            &peer,
            "--dry-run",
        ])
        .expect(0);
    assert!(r.stderr.contains("warning: check db"), "{}", r.stderr);

    let r = util::etcdctl(&ctl, &eps, &["defrag"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = db(&etcd
        .ctl(&["member", "check", "-w", "json"])
        .expect(0)
        .json());
    assert_eq!(after["result"], "ok", "{after}");
}

/// `member check -w table` in a terminal: in a pty that reports 0 columns
/// (as `script`, some CI runners and `docker exec` give) the width comes from
/// `COLUMNS`, and in one set to 100 columns from the terminal; either way no
/// line is longer than 100 characters and the header reads `CHECK` (a width
/// of 0 used to spell every header downwards, a character per line).
fn check_tables_fit_a_terminal_that_reports_no_width() {
    let local = Local::up(&[]);
    let eps = local.endpoints().join(",");
    let memberctl = util::bin();
    for (stty, columns) in [("stty cols 0 rows 0", "100"), ("stty cols 100 rows 40", "")] {
        let shell = format!("{stty}; {memberctl} --endpoints {eps} member check -w table");
        let r = util::run(
            std::process::Command::new("script")
                .args(["-qec", &shell, "/dev/null"])
                .env("COLUMNS", columns),
        );
        let screen = r.stdout.replace('\r', "");
        assert_eq!(r.code, 0, "{stty}: {screen}{}", r.stderr);
        let header = screen
            .lines()
            .find(|l| l.contains("CHECK"))
            .unwrap_or_else(|| panic!("{stty}: no header row reads CHECK:\n{screen}"));
        assert!(header.contains("RESULT"), "{stty}: {header}");
        assert!(screen.contains("quorum"), "{stty}: {screen}");
        for line in screen.lines() {
            assert!(line.chars().count() <= 100, "{stty}: {line:?}\n{screen}");
        }
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_full_database_refuses_an_add_until_space_is_freed: [Etcd, Etcdctl],
        a_second_learner_is_refused_by_the_learners_check,
        a_busy_engine_cluster_judges_disk_and_network,
        check_tables_fit_a_terminal_that_reports_no_width,
        a_fragmented_database_warns_until_defragmented: [Etcd, Etcdctl],
    ]
}
