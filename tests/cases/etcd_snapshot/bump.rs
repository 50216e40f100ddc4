//! `snapshot restore --bump-revision N --mark-compacted` (etcdutl 3.6's flags, for Kubernetes-safe restores) of an etcd 3.6 snapshot: the engine member starts N revisions ahead, compacted there; a read or a watch from an old revision gets the answer etcd gives at a compacted revision; the keys are etcd's; etcdctl reads the member's next snapshot; the flags are refused alone or with 0, and nothing is created.

use serde_json::Value;

use super::restore::restore_and_start;
use super::Filled;
use crate::util;

/// How far ahead the tests move the revision.
const BUMP: i64 = 1_000_000;

/// etcd's answers at `old`, a revision compacted away: the error of a read
/// (its last stderr line) and the canceled watch (`-w json`): canceled,
/// created, events, compact revision.
fn answers_at(ctl: &std::path::Path, ep: &str, old: i64) -> (String, (Value, Value, Value, i64)) {
    let rev = format!("--rev={old}");
    let read = util::etcdctl(ctl, ep, &["get", "k0002", &rev]).expect(1);
    let error = read.stderr.lines().last().unwrap_or_default().to_string();
    let watch = util::etcdctl(ctl, ep, &["watch", &rev, "k0002", "-w", "json"]);
    let w: Value = serde_json::from_str(watch.stdout.trim())
        .unwrap_or_else(|e| panic!("watch at {old}: {e}: {}{}", watch.stdout, watch.stderr));
    let compact = w["CompactRevision"].as_i64().unwrap_or(-1);
    (
        error,
        (
            w["Canceled"].clone(),
            w["Created"].clone(),
            w["Events"].clone(),
            compact,
        ),
    )
}

/// The store's revision as `endpoint status` reports it.
fn revision(ctl: &std::path::Path, ep: &str) -> i64 {
    let r = util::etcdctl(ctl, ep, &["endpoint", "status", "-w", "json"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    v[0]["Status"]["header"]["revision"].as_i64().unwrap()
}

/// Every key with its revisions and value (`get "" --prefix`'s kvs).
fn kvs(ctl: &std::path::Path, ep: &str) -> Value {
    let r = util::etcdctl(ctl, ep, &["get", "", "--prefix", "-w", "json"]).expect(0);
    serde_json::from_str::<Value>(&r.stdout).unwrap()["kvs"].clone()
}

fn restore_bumps_the_revision_and_marks_it_compacted() {
    let f = Filled::start("3.6");
    let (ctl, ep) = (&f.ctl, f.ep.as_str());
    let file = f.save("prod.db", &[]);
    let theirs = kvs(ctl, ep);
    let at = revision(ctl, ep);
    let data = f.dir.path().join("r1");

    // Alone, or with 0: refused, nothing created.
    let refused: [(&[&str], &str); 3] = [
        (&["--bump-revision", "1000"], "--mark-compacted"),
        (&["--mark-compacted"], "--bump-revision"),
        (
            &["--bump-revision", "0", "--mark-compacted"],
            "bumps nothing",
        ),
    ];
    for (extra, says) in refused {
        let r = util::restore_r1(&file, &data, "http://127.0.0.1:1", extra).expect(2);
        assert!(r.stderr.contains(says), "{extra:?}: {}", r.stderr);
        assert!(!data.exists(), "{extra:?} created the directory");
    }

    // etcd compacted at its revision: what it answers from the one before.
    util::etcdctl(ctl, ep, &["compact", &at.to_string()]).expect(0);
    let (etcd_error, etcd_watch) = answers_at(ctl, ep, at - 1);
    assert_eq!(etcd_watch.3, at, "etcd's compact revision");

    let bump = BUMP.to_string();
    let flags = ["--bump-revision", &bump, "--mark-compacted", "-w", "json"];
    let (member, printed) = restore_and_start(&file, &data, &flags);
    let doc = printed.json();
    assert_eq!(doc["revision"], at, "{doc}");
    assert_eq!(doc["restored_revision"], at + BUMP, "{doc}");
    assert_eq!(doc["restored_compact_revision"], at + BUMP, "{doc}");
    let ours = member.client_url.clone();
    util::wait_for(
        "the restored member to serve",
        std::time::Duration::from_secs(20),
        || {
            let r = util::etcdctl(ctl, &ours, &["endpoint", "status", "-w", "json"]);
            (r.code == 0).then_some(())
        },
    );
    assert_eq!(revision(ctl, &ours), at + BUMP);
    // The keys as etcd served them, their revisions unchanged.
    assert_eq!(kvs(ctl, &ours), theirs);
    // From any revision the old cluster handed out: compacted, as etcd says.
    for old in [at - 1, at, at + BUMP - 1] {
        let (error, watch) = answers_at(ctl, &ours, old);
        assert_eq!(error, etcd_error, "a read at {old}");
        assert_eq!(
            watch,
            (
                etcd_watch.0.clone(),
                etcd_watch.1.clone(),
                etcd_watch.2.clone(),
                at + BUMP
            ),
            "a watch from {old}"
        );
    }
    // The next write continues past the bump; etcdctl reads the member's
    // next snapshot at that revision.
    let put = util::etcdctl(ctl, &ours, &["put", "after", "x", "-w", "json"]).expect(0);
    let put: Value = serde_json::from_str(&put.stdout).unwrap();
    assert_eq!(put["header"]["revision"], at + BUMP + 1);
    let again = f.dir.path().join("again.db");
    util::etcdctl(ctl, &ours, &["snapshot", "save", again.to_str().unwrap()]).expect(0);
    let status = util::etcdctl(
        ctl,
        ep,
        &["snapshot", "status", again.to_str().unwrap(), "-w", "json"],
    )
    .expect(0);
    let status: Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(status["revision"], at + BUMP + 1, "{status}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        restore_bumps_the_revision_and_marks_it_compacted: [EtcdServer("3.6"), Etcdctl],
    ]
}
