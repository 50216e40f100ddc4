//! etcd's snapshots restored into the engine: `snapshot restore` of files
//! saved from etcd 3.4–3.7 serves what etcd served; refusals change nothing;
//! `cluster up --from-snapshot` rehearses a change on etcd's data.

use std::path::Path;

use serde_json::Value;

use super::{fill, walk};
use crate::util::versions::{etcd_server, per_etcd_version};
use crate::util::{self, Etcd};

/// A one-member engine started on a restored data directory; killed on drop.
struct Restored {
    child: std::process::Child,
    client_url: String,
}

impl Drop for Restored {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `memberctl snapshot restore FILE` as member r1 of a new one-member
/// cluster in `data` (`extra` flags added), then the member started on it.
fn restore_and_start(file: &Path, data: &Path, extra: &[&str]) -> Restored {
    let (peer, client) = (util::free_port(), util::free_port());
    let peer_url = format!("http://127.0.0.1:{peer}");
    let client_url = format!("http://127.0.0.1:{client}");
    let initial = format!("r1={peer_url}");
    let mut args = vec![
        "snapshot",
        "restore",
        file.to_str().unwrap(),
        "--name",
        "r1",
        "--data-dir",
        data.to_str().unwrap(),
        "--initial-cluster",
        &initial,
        "--initial-advertise-peer-urls",
        &peer_url,
    ];
    args.extend_from_slice(extra);
    let r = util::memberctl(&args).expect(0);
    assert!(r.stdout.contains("restored"), "{}", r.stdout);
    let child = std::process::Command::new(util::bin())
        .args([
            "node",
            "run",
            "--name",
            "r1",
            "--data-dir",
            data.to_str().unwrap(),
        ])
        .args([
            "--listen-client-urls",
            &client_url,
            "--advertise-client-urls",
            &client_url,
        ])
        .args([
            "--listen-peer-urls",
            &peer_url,
            "--initial-advertise-peer-urls",
            &peer_url,
        ])
        .args(["--initial-cluster", &initial])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    Restored { child, client_url }
}

/// What a client sees of a cluster's data, without what differs by cluster
/// (IDs, raft term): the keys with their revisions, a compacted read, an old
/// revision, leases, users, roles; as root while authentication is on.
fn seen(ctl: &Path, ep: &str) -> Vec<String> {
    let root = ["--user", "root:rootpw"];
    let ask = |args: &[&str]| {
        let mut a: Vec<&str> = root.to_vec();
        a.extend_from_slice(args);
        let r = util::etcdctl(ctl, ep, &a);
        let out = r.stdout.clone() + &r.stderr;
        // The header names this cluster and member; the rest must be equal.
        match serde_json::from_str::<Value>(&out) {
            Ok(mut v) => {
                if let Some(h) = v.get_mut("header") {
                    *h = serde_json::json!({"revision": h["revision"]});
                }
                v.to_string()
            }
            // etcdctl's log lines carry times and addresses: only its answer counts.
            Err(_) => out
                .lines()
                .filter(|l| !l.starts_with("{\"level\""))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    };
    vec![
        ask(&["get", "", "--prefix", "-w", "json"]),
        ask(&["get", "k0002", "--rev=4", "-w", "json"]),
        ask(&["get", "k0002", "--rev=2", "-w", "json"]),
        ask(&["lease", "list"]),
        ask(&["user", "list"]),
        ask(&["user", "get", "alice"]),
        ask(&["role", "get", "reader"]),
        ask(&["auth", "status"]),
        // alice's password (etcd's bcrypt hash) and her read-only role.
        util::etcdctl(
            ctl,
            ep,
            &[
                "--user",
                "alice:alicepw",
                "get",
                "k0001",
                "--print-value-only",
            ],
        )
        .stdout,
        util::etcdctl(ctl, ep, &["--user", "alice:wrong", "get", "k0001"])
            .stderr
            .lines()
            .filter(|l| !l.starts_with("{\"level\""))
            .collect(),
    ]
}

/// A snapshot saved from etcd `version`, restored by memberctl into a new
/// engine member: a client sees the same keys at the same revisions, the
/// same history since the compaction, leases, users and roles (alice logs
/// in with her etcd password), and the next write gets the next revision.
fn restore_serves_what_etcd_served(version: &'static str) {
    let test = "restore_serves_what_etcd_served";
    let (Some(bin), Some(ctl)) = (etcd_server(version, test), util::require_etcdctl(test)) else {
        return;
    };
    let etcd = Etcd::start(bin, 1);
    let ep = etcd.endpoints();
    fill(&ctl, &ep);
    for args in [
        vec!["user", "add", "root:rootpw"],
        vec!["user", "grant-role", "root", "root"],
        vec!["user", "add", "alice:alicepw"],
        vec!["role", "add", "reader"],
        vec![
            "role",
            "grant-permission",
            "reader",
            "read",
            "k",
            "--prefix",
        ],
        vec!["user", "grant-role", "alice", "reader"],
        vec!["auth", "enable"],
    ] {
        util::etcdctl(&ctl, &ep, &args).expect(0);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prod.db");
    util::etcdctl(
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
    let theirs = seen(&ctl, &ep);
    let restored = restore_and_start(&file, &dir.path().join("r1"), &[]);
    let ours = util::wait_for(
        "the restored member to serve",
        std::time::Duration::from_secs(20),
        || {
            let s = seen(&ctl, &restored.client_url);
            s[0].contains("\"kvs\"").then_some(s)
        },
    );
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "restored from etcd {version}");
    }
    assert!(theirs[8].trim() == "v".repeat(200), "{}", theirs[8]);
    // The next write continues the revisions.
    let put = |ep: &str| {
        let r = util::etcdctl(
            &ctl,
            ep,
            &["--user", "root:rootpw", "put", "after", "x", "-w", "json"],
        )
        .expect(0);
        serde_json::from_str::<Value>(&r.stdout).unwrap()["header"]["revision"].clone()
    };
    assert_eq!(put(&restored.client_url), put(&ep));
}
per_etcd_version!(restore_serves_what_etcd_served);

/// Restore refusals: a backend file without a trailer (until
/// --skip-hash-check), a damaged snapshot, a non-empty directory; nothing
/// is created or changed.
#[test]
fn etcd_restore_refusals() {
    let test = "etcd_restore_refusals";
    let (Some(bin), Some(ctl)) = (etcd_server("3.4", test), util::require_etcdctl(test)) else {
        return;
    };
    let mut etcd = Etcd::start(bin, 1);
    let ep = etcd.endpoints();
    fill(&ctl, &ep);
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.db");
    util::etcdctl(&ctl, &ep, &["snapshot", "save", good.to_str().unwrap()]).expect(0);
    etcd.stop(0);
    let backend = dir.path().join("backend.db");
    std::fs::copy(etcd.data_dir(0).join("member/snap/db"), &backend).unwrap();
    let mut bytes = std::fs::read(&good).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    let damaged = dir.path().join("damaged.db");
    std::fs::write(&damaged, &bytes).unwrap();
    let data = dir.path().join("r1");
    let restore = |file: &Path, extra: &[&str]| {
        let mut args = vec![
            "snapshot",
            "restore",
            file.to_str().unwrap(),
            "--name",
            "r1",
            "--data-dir",
            data.to_str().unwrap(),
            "--initial-cluster",
            "r1=http://127.0.0.1:1",
            "--initial-advertise-peer-urls",
            "http://127.0.0.1:1",
        ];
        args.extend_from_slice(extra);
        util::memberctl(&args)
    };
    let r = restore(&backend, &[]).expect(2);
    assert!(r.stderr.contains("--skip-hash-check"), "{}", r.stderr);
    assert!(!data.exists());
    let r = restore(&damaged, &[]).expect(2);
    assert!(
        r.stderr.contains("is not the hash of its content"),
        "{}",
        r.stderr
    );
    assert!(!data.exists());
    let r = restore(&backend, &["--skip-hash-check"]).expect(0);
    assert!(r.stdout.contains("sha256 not checked"), "{}", r.stdout);
    let listing = |d: &Path| {
        let mut v: Vec<_> = walk(d);
        v.sort();
        v
    };
    let before = listing(&data);
    let r = restore(&good, &[]).expect(2);
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    assert_eq!(listing(&data), before, "the directory changed");
}

/// The rehearsal: `cluster up --from-snapshot` of an etcd 3.5 snapshot starts
/// three members that each serve etcd's data; a learner added, started and
/// promoted catches up with it; a second `--from-snapshot` into the same
/// directory is refused, a damaged file creates no cluster.
#[test]
fn cluster_up_from_an_etcd_snapshot_rehearses_a_change() {
    let test = "cluster_up_from_an_etcd_snapshot_rehearses_a_change";
    let (Some(bin), Some(ctl)) = (etcd_server("3.5", test), util::require_etcdctl(test)) else {
        return;
    };
    let etcd = Etcd::start(bin, 1);
    let ep = etcd.endpoints();
    fill(&ctl, &ep);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prod.db");
    util::etcdctl(&ctl, &ep, &["snapshot", "save", file.to_str().unwrap()]).expect(0);
    let keys = |ep: &str| {
        let r = util::etcdctl(
            &ctl,
            ep,
            &["get", "", "--prefix", "--consistency=s", "-w", "json"],
        );
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or(Value::Null);
        (v["kvs"].clone(), v["header"]["revision"].clone())
    };
    let theirs = keys(&ep);
    assert_eq!(
        theirs.0.as_array().map(|a| a.len()),
        Some(501),
        "{theirs:?}"
    );

    let local =
        crate::util::local::Local::up(&["--nodes", "3", "--from-snapshot", file.to_str().unwrap()]);
    for member in local.endpoints() {
        assert_eq!(keys(&member), theirs, "{member}");
    }
    let peer = format!("http://127.0.0.1:{}", util::free_port());
    local
        .ctl(&["member", "add", "n4", "--learner", "--peer-urls", &peer])
        .expect(0);
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    local
        .ctl(&["member", "promote", "n4", "--timeout", "60s"])
        .expect(0);
    let n4 = local.client_url("n4");
    let seen = util::wait_for(
        "n4 to serve etcd's data",
        std::time::Duration::from_secs(20),
        || {
            let s = keys(&n4);
            (s == theirs).then_some(s)
        },
    );
    assert_eq!(seen, theirs);

    let again = local.ctl(&["cluster", "up", "--from-snapshot", file.to_str().unwrap()]);
    assert_eq!(again.code, 3, "{}", again.stderr);
    assert!(
        again.stderr.contains("starts a new one"),
        "{}",
        again.stderr
    );

    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    let damaged = dir.path().join("damaged.db");
    std::fs::write(&damaged, &bytes).unwrap();
    let other = dir.path().join("other");
    let r = util::memberctl(&[
        "cluster",
        "up",
        "--dir",
        other.to_str().unwrap(),
        "--from-snapshot",
        damaged.to_str().unwrap(),
    ])
    .expect(2);
    assert!(
        r.stderr.contains("is not the hash of its content"),
        "{}",
        r.stderr
    );
    assert!(walk(&other).is_empty(), "{:?}", walk(&other));
}
