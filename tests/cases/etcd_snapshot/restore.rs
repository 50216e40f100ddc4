//! etcd's snapshots restored into the engine: `snapshot restore` of files
//! saved from etcd 3.4–3.7 serves what etcd served; refusals change nothing;
//! `cluster up --from-snapshot` rehearses a change on etcd's data.

use std::path::Path;

use serde_json::Value;

use super::{add_users, seen, walk, Filled};
use crate::util;

/// A one-member engine started on a restored data directory; killed on drop.
pub(super) struct Restored {
    child: std::process::Child,
    /// Its client URL.
    pub(super) client_url: String,
}

impl Drop for Restored {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `memberctl snapshot restore FILE [extra]` as member r1 of a new
/// one-member cluster in `data`, then the member started on it; with what
/// the restore printed.
pub(super) fn restore_and_start(file: &Path, data: &Path, extra: &[&str]) -> (Restored, util::Run) {
    let (peer, client) = (util::free_port(), util::free_port());
    let peer_url = format!("http://127.0.0.1:{peer}");
    let client_url = format!("http://127.0.0.1:{client}");
    let r = util::restore_r1(file, data, &peer_url, extra).expect(0);
    assert!(r.stdout.contains("restored"), "{}", r.stdout);
    let child = util::run_r1(data, &peer_url, &client_url);
    (Restored { child, client_url }, r)
}

/// A snapshot saved from etcd `version`, restored by memberctl into a new
/// engine member: a client sees the same keys at the same revisions, the
/// same history since the compaction, leases, users and roles (alice logs
/// in with her etcd password), and the next write gets the next revision.
fn restore_serves_what_etcd_served(version: &'static str) {
    let f = Filled::start(version);
    let (ctl, ep) = (&f.ctl, f.ep.as_str());
    add_users(ctl, ep);
    let file = f.save("prod.db", &["--user", "root:rootpw"]);
    let theirs = seen(ctl, ep);
    let (restored, _) = restore_and_start(&file, &f.dir.path().join("r1"), &[]);
    let ours = util::wait_for(
        "the restored member to serve",
        std::time::Duration::from_secs(20),
        || {
            let s = seen(ctl, &restored.client_url);
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
            ctl,
            ep,
            &["--user", "root:rootpw", "put", "after", "x", "-w", "json"],
        )
        .expect(0);
        serde_json::from_str::<Value>(&r.stdout).unwrap()["header"]["revision"].clone()
    };
    assert_eq!(put(&restored.client_url), put(ep));
}
/// Restore refusals: a backend file without a trailer (until
/// --skip-hash-check), a damaged snapshot, a non-empty directory; nothing
/// is created or changed.
fn etcd_restore_refusals() {
    let mut f = Filled::start("3.4");
    let good = f.save("good.db", &[]);
    let backend = f.backend_copy("backend.db");
    let damaged = util::damaged_copy(&good, f.dir.path(), "damaged.db");
    let data = f.dir.path().join("r1");
    let restore =
        |file: &Path, extra: &[&str]| util::restore_r1(file, &data, "http://127.0.0.1:1", extra);
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
    let before = walk(&data);
    let r = restore(&good, &[]).expect(2);
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    assert_eq!(walk(&data), before, "the directory changed");
}

/// The rehearsal: `cluster up --from-snapshot` of an etcd 3.5 snapshot starts
/// three members that each serve etcd's data; a learner added, started and
/// promoted catches up with it; a second `--from-snapshot` into the same
/// directory is refused, a damaged file creates no cluster.
fn cluster_up_from_an_etcd_snapshot_rehearses_a_change() {
    let f = Filled::start("3.5");
    let (ctl, ep, dir) = (&f.ctl, f.ep.as_str(), f.dir.path());
    let file = f.save("prod.db", &[]);
    let keys = |ep: &str| {
        let r = util::etcdctl(
            ctl,
            ep,
            &["get", "", "--prefix", "--consistency=s", "-w", "json"],
        );
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or(Value::Null);
        (v["kvs"].clone(), v["header"]["revision"].clone())
    };
    let theirs = keys(ep);
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
        .ctl(&["member", "promote", "n4", "--timeout", "180s"])
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

    let damaged = util::damaged_copy(&file, dir, "damaged.db");
    let other = dir.join("other");
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

/// `scripts/rehearse-demo.sh` end to end (this build's memberctl, 2,000
/// keys): a real etcd filled and saved, a local copy started from the
/// snapshot, grown to five members, compared with production.
fn the_rehearsal_demo_runs_end_to_end() {
    let (etcd, _ctl) = (util::require_etcd(), util::require_etcdctl());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/rehearse-demo.sh");
    let r = util::run(
        std::process::Command::new("bash")
            .arg(&script)
            .env("MEMBERCTL_BIN", util::bin())
            .env("ETCD_BIN", &etcd)
            .env("KEYS", "2000")
            .env("VALUE_BYTES", "100")
            .env_remove("MEMBERCTL_CLUSTER_DIR"),
    );
    let out = format!("{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "{out}");
    let line = |who: &str| {
        out.lines()
            .find(|l| l.starts_with(who))
            .map(|l| l[who.len()..].trim().to_string())
    };
    let prod = line("production:").expect("production's count");
    assert!(prod.ends_with("2001 keys"), "{prod}");
    assert_eq!(line("rehearsal:"), Some(prod), "{out}");
    assert!(out.contains("target reached"), "{out}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        restore_serves_what_etcd_served: each_version [Etcdctl],
        etcd_restore_refusals: [EtcdServer("3.4"), Etcdctl],
        cluster_up_from_an_etcd_snapshot_rehearses_a_change: [EtcdServer("3.5"), Etcdctl],
        the_rehearsal_demo_runs_end_to_end: [Etcd, Etcdctl],
    ]
}
