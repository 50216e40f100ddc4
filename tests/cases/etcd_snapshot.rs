//! etcd's snapshot files read by memberctl: `snapshot status` (and `snapshot
//! save` from etcd) agree with etcdctl's `snapshot status` on files saved from
//! etcd 3.4–3.7 and on a backend file copied from a data directory; damaged
//! files are refused, saying what is wrong.

use std::path::Path;

use serde_json::Value;

use crate::util::versions::{etcd_server, per_etcd_version};
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
/// deletion, a lease with a key, a compaction. Returns the lease ID.
fn fill(ctl: &Path, ep: &str) -> String {
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
    lease
}

/// A snapshot saved from etcd `version` by etcdctl and by memberctl, and the
/// member's backend file once it stopped: memberctl reads each as etcdctl does.
fn status_agrees_with_etcdctl(version: &'static str) {
    let test = "status_agrees_with_etcdctl";
    let (Some(bin), Some(ctl)) = (etcd_server(version, test), util::require_etcdctl(test)) else {
        return;
    };
    let mut etcd = Etcd::start(bin, 1);
    let ep = etcd.endpoints();
    fill(&ctl, &ep);
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("etcdctl.db");
    util::etcdctl(&ctl, &ep, &["snapshot", "save", theirs.to_str().unwrap()]).expect(0);
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
    let ours = dir.path().join("memberctl.db");
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
    etcd.stop(0);
    let backend = dir.path().join("backend.db");
    std::fs::copy(etcd.data_dir(0).join("member/snap/db"), &backend).unwrap();
    let doc = assert_same_status(&ctl, &backend);
    assert_eq!(doc["sha256"], Value::Null, "{doc}");
}
per_etcd_version!(status_agrees_with_etcdctl);

/// Damaged and foreign files: refused with exit 2, naming the problem; the
/// file is left as it was.
#[test]
fn damaged_etcd_snapshots_are_refused() {
    let test = "damaged_etcd_snapshots_are_refused";
    let (Some(bin), Some(ctl)) = (etcd_server("3.4", test), util::require_etcdctl(test)) else {
        return;
    };
    let etcd = Etcd::start(bin, 1);
    let ep = etcd.endpoints();
    fill(&ctl, &ep);
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.db");
    util::etcdctl(&ctl, &ep, &["snapshot", "save", good.to_str().unwrap()]).expect(0);
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
        let f = dir.path().join(format!("{name}.db"));
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

/// Every file under `d` with its size.
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
    out
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
