//! `cluster up --etcd PATH`: the local cluster's members are the operator's own etcd processes (Debian's 3.4, the pinned 3.6), and every `cluster` and `member` command works on them as on the engine, with what etcd lacks refused plainly.

use std::path::Path;
use std::time::Duration;

use crate::util::local::{self, Local};
use crate::util::members::{add_and_start, member_named};
use crate::util::versions;
use crate::util::wait_for;

/// The member list of the local cluster, as JSON.
fn list(local: &Local) -> serde_json::Value {
    local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json()
}

/// Up, status (every format), a learner added, started and promoted, joint
/// refused, down and up again from the data directories, the server kept.
fn a_local_cluster_runs_on_the_operators_etcd(version: &str) {
    let bin = versions::etcd_server(version);
    let reported = versions::reported_version(&bin);
    let path = bin.to_str().unwrap();
    let local = Local::up(&[
        "--etcd",
        path,
        "--etcd-flag=--auto-compaction-mode=revision",
        "--etcd-flag",
        "--auto-compaction-retention=1000",
    ]);

    // The members are that binary's processes, with the operator's flags
    // last, and status says which etcd.
    for (name, pid) in local.pids() {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let tail = &args[args.len() - 3..args.len() - 1];
        assert_eq!(
            tail,
            [
                &b"--auto-compaction-mode=revision"[..],
                &b"--auto-compaction-retention=1000"[..]
            ],
            "{name}: {}",
            String::from_utf8_lossy(&cmdline)
        );
    }
    let status = local.status();
    assert_eq!(status["server"]["kind"], "etcd", "{status}");
    assert_eq!(status["server"]["version"], reported.as_str(), "{status}");
    assert_eq!(status["server"]["path"], path, "{status}");
    let real = std::fs::canonicalize(&bin).unwrap();
    for (name, pid) in local.pids() {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
        assert_eq!(exe, real, "{name} runs {}", exe.display());
    }
    let table = local.ctl(&["cluster", "status", "-w", "table"]).expect(0);
    assert!(
        table
            .stdout
            .contains(&format!("Server: etcd {reported} ({path})")),
        "{}",
        table.stdout
    );
    let simple = local.ctl(&["cluster", "status", "-w", "simple"]).expect(0);
    assert!(
        simple
            .stdout
            .contains(&format!("server: etcd {reported}, {path}")),
        "{}",
        simple.stdout
    );

    // Writes, then a learner added, started by start-node, promoted.
    let eps = local.endpoints();
    for i in 0..20 {
        local::put(&eps[i % eps.len()], &format!("k{i:02}"), "v").unwrap();
    }
    let (id, _) = add_and_start(&local, "s4");
    let exe = std::fs::read_link(format!(
        "/proc/{}/exe",
        local.node("s4")["pid"].as_u64().unwrap()
    ))
    .unwrap();
    assert_eq!(exe, real, "s4 runs {}", exe.display());
    local
        .ctl(&["member", "promote", &id, "--timeout", "180s"])
        .expect(0);
    let members = list(&local);
    assert_eq!(
        member_named(&members, "s4")["is_learner"],
        false,
        "{members}"
    );
    assert_eq!(members["members"].as_array().unwrap().len(), 4);

    // etcd has no explicit joint consensus: refused, with the reason.
    let r = local.ctl(&["member", "joint", "status"]).expect(6);
    assert!(
        r.stderr.contains("one membership change at a time"),
        "{}",
        r.stderr
    );

    // Down, then up again from the data directories: nothing lost, same server.
    local.ctl(&["cluster", "down"]).expect(0);
    assert!(local.pids().is_empty(), "{}", local.status());
    let up = local.ctl(&["cluster", "up", "-w", "json"]).expect(0).json();
    assert_eq!(up["server"]["version"], reported.as_str(), "{up}");
    let s4 = local.client_url("s4");
    let kept = wait_for(
        "the restarted cluster to serve",
        Duration::from_secs(30),
        || local::get_prefix_linearizable(&s4, "k").ok(),
    );
    assert_eq!(kept.len(), 20, "{kept:?}");
    assert_eq!(list(&local)["members"].as_array().unwrap().len(), 4);

    // The server is the cluster's: another one on restart is refused.
    local.ctl(&["cluster", "down"]).expect(0);
    let r = local
        .ctl(&["cluster", "up", "--etcd", "/bin/true"])
        .expect(2);
    assert!(
        r.stderr.contains("did not name an etcd version"),
        "{}",
        r.stderr
    );
    let other = if version == "3.4" { "3.6" } else { "3.4" };
    let other = versions::etcd_server(other);
    let r = local
        .ctl(&["cluster", "up", "--etcd", other.to_str().unwrap()])
        .expect(3);
    assert!(
        r.stderr.contains("its server is kept across restarts"),
        "{}",
        r.stderr
    );
    assert!(local.pids().is_empty(), "a refused up started nodes");
}

fn a_local_cluster_runs_on_etcd_3_4() {
    a_local_cluster_runs_on_the_operators_etcd("3.4");
}

fn a_local_cluster_runs_on_etcd_3_6() {
    a_local_cluster_runs_on_the_operators_etcd("3.6");
}

/// etcd's peers behind the link model (`--link`, `cluster link --stall`),
/// then two of three killed: `cluster recover` restarts the survivor with
/// etcd's `--force-new-cluster`, adds the others back and restarts it
/// without the flag; every acknowledged write kept.
fn link_and_recover_on_etcd(version: &str) {
    let bin = versions::etcd_server(version);
    let local = Local::up(&[
        "--etcd",
        bin.to_str().unwrap(),
        "--link",
        "rtt=10ms,bandwidth=100mbit,queue=1mb",
    ]);
    let status = local.status();
    assert_eq!(status["link"]["running"], true, "{status}");
    assert_eq!(status["server"]["kind"], "etcd", "{status}");
    let eps = local.endpoints();
    for i in 0..20 {
        local::put(&eps[i % eps.len()], &format!("k{i:02}"), "v").unwrap();
    }
    // The peers talk through the link: stalled for 3 s, then writes commit
    // again (etcd may time a write out meanwhile: retried, bounded).
    local.ctl(&["cluster", "link", "--stall", "3s"]).expect(0);
    wait_for("a write after the stall", Duration::from_secs(30), || {
        local::put(&eps[0], "after", "stall").ok()
    });
    assert_eq!(
        local::get_prefix_linearizable(&eps[1], "after").unwrap(),
        vec![("after".to_string(), "stall".to_string())]
    );

    let survivor = local.client_url("n1");
    local.kill_node("n2");
    local.kill_node("n3");
    let r = local.ctl(&["cluster", "recover"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    assert!(r.stderr.contains("recovering from n1"), "{}", r.stderr);
    let members = list(&local);
    let members = members["members"].as_array().unwrap();
    assert_eq!(members.len(), 3, "{members:?}");
    assert!(
        members.iter().all(|m| m["is_learner"] == false),
        "{members:?}"
    );
    let kept = wait_for(
        "the recovered cluster to serve",
        Duration::from_secs(30),
        || local::get_prefix_linearizable(&survivor, "k").ok(),
    );
    assert_eq!(kept.len(), 20, "{kept:?}");
    for (name, pid) in local.pids() {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
        assert_eq!(exe, std::fs::canonicalize(&bin).unwrap(), "{name}");
    }
}

fn link_and_recover_on_etcd_3_4() {
    link_and_recover_on_etcd("3.4");
}

/// What etcd cannot do is refused before anything is made: the engine's
/// fault flags, more than one learner before 3.6, a path that is no etcd, a
/// snapshot with no restore tool beside the binary.
fn what_etcd_lacks_is_refused_before_anything_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let v34 = versions::etcd_server("3.4");
    let v36 = versions::etcd_server("3.6");
    let up = |args: &[&str]| {
        let mut all = vec!["cluster", "up", "--dir", dir.path().to_str().unwrap()];
        all.extend_from_slice(args);
        crate::util::run(&mut crate::util::memberctl_command(&all))
    };
    let nothing_made = |dir: &Path| {
        assert!(
            !dir.join("cluster.json").exists(),
            "a refused up left a cluster behind"
        );
    };
    let r = up(&["--etcd", v34.to_str().unwrap(), "--fault-injection"]).expect(2);
    assert!(r.stderr.contains("etcd has none"), "{}", r.stderr);
    let r = up(&["--etcd", v34.to_str().unwrap(), "--max-learners", "2"]).expect(2);
    assert!(
        r.stderr.contains("before 3.6 allows one learner"),
        "{}",
        r.stderr
    );
    let r = up(&[
        "--etcd",
        v34.to_str().unwrap(),
        "--etcd-flag=--data-dir=/tmp/x",
    ])
    .expect(2);
    assert!(
        r.stderr
            .contains("memberctl sets --data-dir on every member itself"),
        "{}",
        r.stderr
    );
    let r = up(&["--etcd-flag=--enable-v2"]).expect(2);
    assert!(r.stderr.contains("--etcd"), "{}", r.stderr);
    let r = up(&["--etcd", "/nonexistent/etcd"]).expect(2);
    assert!(r.stderr.contains("no such file"), "{}", r.stderr);
    nothing_made(dir.path());

    // A snapshot of a running cluster, for --from-snapshot.
    let source = Local::up(&[]);
    local::put(&source.endpoints()[0], "from", "snapshot").unwrap();
    let file = dir.path().join("copy.db");
    source
        .ctl(&["snapshot", "save", file.to_str().unwrap()])
        .expect(0);
    // The pinned 3.6 binary stands alone: no etcdutl beside it.
    let r = up(&[
        "--etcd",
        v36.to_str().unwrap(),
        "--from-snapshot",
        file.to_str().unwrap(),
    ])
    .expect(2);
    assert!(
        r.stderr.contains("no etcdutl is next to it"),
        "{}",
        r.stderr
    );
    nothing_made(dir.path());
    // Nor does Debian's etcdctl 3.4 beside it do: etcd 3.6 panics on what it
    // restores (the membership is only in the v2 store).
    let mixed = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&v36, mixed.path().join("etcd")).unwrap();
    std::os::unix::fs::symlink(v34.with_file_name("etcdctl"), mixed.path().join("etcdctl"))
        .unwrap();
    let r = up(&[
        "--etcd",
        mixed.path().join("etcd").to_str().unwrap(),
        "--from-snapshot",
        file.to_str().unwrap(),
    ])
    .expect(2);
    assert!(
        r.stderr
            .contains("an older etcdctl's restore makes it panic"),
        "{}",
        r.stderr
    );
    nothing_made(dir.path());
    // Debian's etcd has etcdctl 3.4 beside it: restored with it, served by etcd.
    let restored = dir.path().join("restored");
    let r = crate::util::run(&mut crate::util::memberctl_command(&[
        "cluster",
        "up",
        "--dir",
        restored.to_str().unwrap(),
        "--etcd",
        v34.to_str().unwrap(),
        "--from-snapshot",
        file.to_str().unwrap(),
        "-w",
        "json",
    ]));
    let doc = r.expect(0).json();
    let ep = doc["endpoints"][0].as_str().unwrap().to_string();
    let got = local::get_prefix_linearizable(&ep, "from").unwrap();
    assert_eq!(got, vec![("from".to_string(), "snapshot".to_string())]);
    crate::util::run(&mut crate::util::memberctl_command(&[
        "cluster",
        "down",
        "--dir",
        restored.to_str().unwrap(),
    ]))
    .expect(0);
}

/// A member that stops as the cluster starts (here an "etcd" that says its
/// port is taken and exits) is named at once, with the last line of its
/// log, rather than waited for as an election that never comes.
fn a_member_that_stops_as_the_cluster_starts_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("etcd");
    std::fs::write(
        &fake,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'etcd Version: 3.5.0'; exit 0; }\n\
         echo 'listen tcp 127.0.0.1:2380: bind: address already in use' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cluster = dir.path().join("cluster");
    let r = crate::util::run(&mut crate::util::memberctl_command(&[
        "cluster",
        "up",
        "--dir",
        cluster.to_str().unwrap(),
        "--etcd",
        fake.to_str().unwrap(),
    ]));
    let r = r.expect(5);
    assert!(
        r.stderr.contains("stopped while the cluster started")
            && r.stderr.contains("address already in use"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("no leader was elected"), "{}", r.stderr);
}

pub fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_local_cluster_runs_on_etcd_3_4: [Etcd, Etcdctl],
        a_local_cluster_runs_on_etcd_3_6: [Etcd, EtcdServer("3.6")],
        link_and_recover_on_etcd_3_4: [Etcd],
        what_etcd_lacks_is_refused_before_anything_is_made: [Etcd, Etcdctl, EtcdServer("3.6")],
        a_member_that_stops_as_the_cluster_starts_is_named,
    ]
}
