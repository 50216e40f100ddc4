//! etcd's snapshot files read by memberctl: `snapshot status` (and `snapshot
//! save` from etcd) agree with etcdctl's `snapshot status` on files saved from
//! etcd 3.4–3.7 and on a backend file copied from a data directory; damaged
//! files are refused, saying what is wrong. [`restore`]: etcd's snapshots
//! restored into the engine; [`bump`]: restored with the revision bumped and
//! compacted (`--bump-revision --mark-compacted`).

mod bump;
mod restore;
mod to_etcd;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::versions::etcd_server;
use crate::util::{self, Etcd};

/// etcdctl's `snapshot status -w json` of `file`.
fn etcdctl_status(ctl: &Path, file: &Path) -> Value {
    let r = util::etcdctl(
        ctl,
        "127.0.0.1:1",
        &["snapshot", "status", file.to_str().unwrap(), "-w", "json"],
    )
    .expect(0);
    serde_json::from_str(&r.stdout).expect("etcdctl's JSON")
}

/// memberctl's `snapshot status -w json` of `file`, asserted to agree with etcdctl's.
fn assert_same_status(ctl: &Path, file: &Path) -> Value {
    let theirs = etcdctl_status(ctl, file);
    let ours = util::memberctl(&["snapshot", "status", file.to_str().unwrap(), "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ours["format"], "etcd", "{ours}");
    for (a, b) in [
        ("hash", "hash"),
        ("revision", "revision"),
        ("total_key", "totalKey"),
        ("total_size", "totalSize"),
    ] {
        assert_eq!(
            ours[a],
            theirs[b],
            "{a} of {}: ours {ours}, etcdctl's {theirs}",
            file.display()
        );
    }
    ours
}

/// The last 32 bytes of `file`, hex: the trailer etcd wrote.
fn trailer(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    bytes[bytes.len() - 32..]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Fills an etcd with what its snapshot must carry: keys over many pages (a
/// branch page), a value longer than a page (overflow pages), overwrites, a
/// deletion, a lease with a key, a compaction.
fn fill(ctl: &Path, ep: &str) {
    let value = "v".repeat(200);
    for batch in 0..5 {
        let mut input = String::from("\n");
        for i in 0..100 {
            input.push_str(&format!("put k{:04} {value}\n", batch * 100 + i));
        }
        input.push_str("\n\n");
        util::etcdctl_in(ctl, ep, &["txn"], input.as_bytes()).expect(0);
    }
    util::etcdctl(ctl, ep, &["put", "big", &"b".repeat(20_000)]).expect(0);
    util::etcdctl(ctl, ep, &["put", "k0002", "again"]).expect(0);
    util::etcdctl(ctl, ep, &["del", "k0003"]).expect(0);
    util::etcdctl(ctl, ep, &["compaction", "3"]).expect(0);
    let grant = util::etcdctl(ctl, ep, &["lease", "grant", "600"]).expect(0);
    let lease = grant
        .stdout
        .split_whitespace()
        .nth(1)
        .expect("lease id")
        .to_string();
    util::etcdctl(
        ctl,
        ep,
        &["put", "leased", "x", &format!("--lease={lease}")],
    )
    .expect(0);
}

/// Users and roles a snapshot must carry, then authentication on: root
/// (password rootpw), alice (alicepw) with the role reader (read `k…`).
fn add_users(ctl: &Path, ep: &str) {
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
        util::etcdctl(ctl, ep, &args).expect(0);
    }
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

/// A one-member etcd filled by [`fill`], etcdctl, and a temporary directory
/// for the files a test makes.
struct Filled {
    etcd: Etcd,
    ep: String,
    ctl: PathBuf,
    dir: tempfile::TempDir,
}

impl Filled {
    /// etcd `version` started and filled.
    fn start(version: &str) -> Filled {
        let (bin, ctl) = (etcd_server(version), util::require_etcdctl());
        let etcd = Etcd::start(bin, 1);
        let ep = etcd.endpoints();
        fill(&ctl, &ep);
        let dir = tempfile::tempdir().unwrap();
        Filled { etcd, ep, ctl, dir }
    }

    /// `etcdctl [flags] snapshot save` into the directory as `name`.
    fn save(&self, name: &str, flags: &[&str]) -> PathBuf {
        let file = self.dir.path().join(name);
        let mut args = flags.to_vec();
        args.extend(["snapshot", "save", file.to_str().unwrap()]);
        util::etcdctl(&self.ctl, &self.ep, &args).expect(0);
        file
    }

    /// etcd stopped, and a copy of its backend file (no trailer) as `name`.
    fn backend_copy(&mut self, name: &str) -> PathBuf {
        self.etcd.stop(0);
        let file = self.dir.path().join(name);
        std::fs::copy(self.etcd.data_dir(0).join("member/snap/db"), &file).unwrap();
        file
    }
}

/// A snapshot saved from etcd `version` by etcdctl and by memberctl, and the
/// member's backend file once it stopped: memberctl reads each as etcdctl does.
fn status_agrees_with_etcdctl(version: &'static str) {
    let mut f = Filled::start(version);
    let (ctl, ep) = (f.ctl.clone(), f.ep.clone());
    let theirs = f.save("etcdctl.db", &[]);
    let doc = assert_same_status(&ctl, &theirs);
    assert_eq!(doc["sha256"], trailer(&theirs).as_str(), "{doc}");
    // 500 keys of 200 bytes and a 20 kB value: more than a few pages.
    assert!(doc["total_size"].as_u64().unwrap() > 40 * 4096, "{doc}");
    assert_eq!(
        doc["size"],
        std::fs::metadata(&theirs).unwrap().len(),
        "{doc}"
    );

    // memberctl's own save checks what etcd sent the same way.
    let ours = f.dir.path().join("memberctl.db");
    let saved = util::memberctl(&[
        "--endpoints",
        &ep,
        "snapshot",
        "save",
        ours.to_str().unwrap(),
        "-w",
        "json",
    ])
    .expect(0)
    .json();
    assert_eq!(saved["format"], "etcd", "{saved}");
    assert_eq!(
        saved["hash"],
        etcdctl_status(&ctl, &ours)["hash"],
        "{saved}"
    );
    assert_eq!(saved["sha256"], trailer(&ours).as_str(), "{saved}");
    let text =
        util::memberctl(&["snapshot", "status", ours.to_str().unwrap(), "-w", "simple"]).expect(0);
    assert!(text.stdout.contains("(checked)"), "{}", text.stdout);

    // The backend file itself (no trailer), read once etcd has stopped.
    let backend = f.backend_copy("backend.db");
    let doc = assert_same_status(&ctl, &backend);
    assert_eq!(doc["sha256"], Value::Null, "{doc}");
}
/// Damaged and foreign files: refused with exit 2, naming the problem; the
/// file is left as it was.
fn damaged_etcd_snapshots_are_refused() {
    let f = Filled::start("3.4");
    let dir = f.dir.path();
    let good = f.save("good.db", &[]);
    let bytes = std::fs::read(&good).unwrap();
    let (data, _) = bytes.split_at(bytes.len() - 32);
    let sha = |d: &[u8]| {
        ring::digest::digest(&ring::digest::SHA256, d)
            .as_ref()
            .to_vec()
    };
    let with_trailer = |d: &[u8]| [d, &sha(d)].concat();

    let mut flipped = bytes.clone();
    flipped[data.len() / 2] ^= 0xff;
    // Every page after the two meta pages zeroed, the trailer made to match:
    // only the walk can tell.
    let mut zeroed = data.to_vec();
    zeroed[2 * 4096..].fill(0);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("flipped", flipped, "is not the hash of its content"),
        (
            "cut-with-trailer",
            with_trailer(&data[..8 * 4096]),
            "cut short",
        ),
        (
            "cut-mid-page",
            data[..data.len() - 1000].to_vec(),
            "cut short",
        ),
        ("zeroed-pages", with_trailer(&zeroed), "damaged"),
        (
            "random",
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            "neither a memberctl snapshot nor an etcd one",
        ),
        (
            "empty",
            Vec::new(),
            "neither a memberctl snapshot nor an etcd one",
        ),
    ];
    for (name, content, says) in cases {
        let f = dir.join(format!("{name}.db"));
        std::fs::write(&f, &content).unwrap();
        let r = util::memberctl(&["snapshot", "status", f.to_str().unwrap()]).expect(2);
        assert!(r.stderr.contains(says), "{name}: {}", r.stderr);
        let j = util::memberctl(&["snapshot", "status", f.to_str().unwrap(), "-w", "json"])
            .expect(2)
            .json();
        assert_eq!(j["error"]["kind"], "usage", "{name}: {j}");
        assert_eq!(
            std::fs::read(&f).unwrap(),
            content,
            "{name}: the file changed"
        );
    }
}

/// Every file under `d` with its size, sorted.
fn walk(d: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push((
                p.display().to_string(),
                e.metadata().map(|m| m.len()).unwrap_or(0),
            ));
        }
    }
    out.sort();
    out
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    let mut cases: Vec<_> = [restore::cases(), bump::cases(), to_etcd::cases()]
        .into_iter()
        .flatten()
        .collect();
    cases.extend(crate::harness::cases![
        status_agrees_with_etcdctl: each_version [Etcdctl],
        damaged_etcd_snapshots_are_refused: [EtcdServer("3.4"), Etcdctl],
    ]);
    cases
}
