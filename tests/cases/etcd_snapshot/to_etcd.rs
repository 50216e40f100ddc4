//! The engine's snapshots read by etcd's own tools: `etcdctl snapshot save`
//! against a local cluster gives a file that etcdctl's `snapshot status`
//! reads as memberctl does, and that `etcdctl snapshot restore` turns into a
//! data directory on which etcd 3.4 — and then 3.5, 3.6 and 3.7, upgraded
//! one version at a time as etcd supports — serves what the engine served.

use std::path::Path;
use std::time::Duration;

use super::{add_users, assert_same_status, fill, seen};
use crate::util::local::Local;
use crate::util::versions::etcd_server;
use crate::util::{self, Etcd};

/// What etcd member 0 of `etcd` serves, once it does.
fn served(ctl: &Path, etcd: &Etcd, version: &str) -> Vec<String> {
    util::wait_for(
        &format!("etcd {version} to serve the restored data"),
        Duration::from_secs(30),
        || {
            let s = seen(ctl, &etcd.members[0].client_url());
            s[0].contains("\"kvs\"").then_some(s)
        },
    )
}

fn engine_snapshots_restore_into_etcd() {
    let (ctl, etcd34) = (util::require_etcdctl(), etcd_server("3.4"));
    let local = Local::up(&["--nodes", "1"]);
    let ep = local.client_url("n1");
    fill(&ctl, &ep);
    add_users(&ctl, &ep);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("engine.db");
    let save = util::etcdctl(
        &ctl,
        &ep,
        &[
            "--user",
            "root:rootpw",
            "snapshot",
            "save",
            file.to_str().unwrap(),
        ],
    )
    .expect(0);
    assert!(save.stdout.contains("Snapshot saved"), "{}", save.stdout);
    // etcdctl reads it as an etcd snapshot, as memberctl does.
    let status = assert_same_status(&ctl, &file);
    assert!(status["total_key"].as_u64().unwrap() > 500, "{status}");
    let engine = seen(&ctl, &ep);

    // etcdctl's restore of it, served by etcd 3.4 (a member m1 whose data
    // directory is the restored one).
    let mut etcd = Etcd::start(etcd34, 1);
    etcd.stop(0);
    let data = etcd.data_dir(0);
    std::fs::remove_dir_all(&data).unwrap();
    let peer = etcd.members[0].peer_url();
    util::etcdctl(
        &ctl,
        "127.0.0.1:1",
        &[
            "snapshot",
            "restore",
            file.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
            "--name",
            "m1",
            "--initial-cluster",
            &format!("m1={peer}"),
            "--initial-advertise-peer-urls",
            &peer,
            "--initial-cluster-token",
            "memberctl-test",
        ],
    )
    .expect(0);
    etcd.restart(0);
    let got = served(&ctl, &etcd, "3.4");
    for (i, (a, b)) in got.iter().zip(&engine).enumerate() {
        assert_eq!(a, b, "etcd 3.4, view {i}; log:\n{}", etcd.log("m1"));
    }
    // alice logs in on etcd with the password set on the engine.
    assert_eq!(got[8].trim(), "v".repeat(200));

    // etcd's upgrade path, one minor version at a time, on the same data
    // (a version that is not available ends the path there).
    for version in ["3.5", "3.6", "3.7"] {
        let bin = etcd_server(version);
        etcd.restart_on(0, bin);
        let got = served(&ctl, &etcd, version);
        for (i, (a, b)) in got.iter().zip(&engine).enumerate() {
            assert_eq!(a, b, "etcd {version}, view {i}; log:\n{}", etcd.log("m1"));
        }
    }
    // etcd writes on: the next write gets the revision after the engine's.
    let revision = |ep: &str, args: &[&str]| {
        let mut all = vec!["--user", "root:rootpw"];
        all.extend_from_slice(args);
        let r = util::etcdctl(&ctl, ep, &all).expect(0);
        serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()["header"]["revision"]
            .as_i64()
            .unwrap()
    };
    let engine_rev = revision(&ep, &["get", "k0001", "-w", "json"]);
    let etcd_ep = etcd.members[0].client_url();
    assert_eq!(
        revision(&etcd_ep, &["put", "after", "x", "-w", "json"]),
        engine_rev + 1
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        engine_snapshots_restore_into_etcd: [
            Etcdctl,
            EtcdServer("3.4"),
            EtcdServer("3.5"),
            EtcdServer("3.6"),
            EtcdServer("3.7"),
        ],
    ]
}
