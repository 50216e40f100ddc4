//! etcd's restored data directories on the engine (issue #57): three data
//! directories that `etcdctl snapshot restore` (etcd 3.4) made from one
//! snapshot start etcd 3.4 and the engine alike — the same keys, member and
//! cluster IDs and names, and writes after; a data directory an etcd member
//! has run on is refused with the reason and left as it was.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::cases::cert_user::Server;
use crate::util::{self, free_port, versions, wait_for};

/// etcdctl 3.4 at `endpoint`.
fn ctl(endpoint: &str, args: &[&str]) -> util::Run {
    util::etcd::etcdctl(&util::require_etcdctl(), endpoint, args)
}

/// Starts `program` (with `prefix`) on `flags`, logging into `log`.
fn spawn(program: &Path, prefix: &[&str], flags: &[String], log: &Path) -> Server {
    let log = std::fs::File::create(log).unwrap();
    Server::spawn(
        Command::new(program)
            .args(prefix)
            .args(flags)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log),
    )
}

/// Every path under `dir`, sorted, with its size (files) — what a refusal
/// must leave as it was.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            let p = e.path();
            let meta = e.metadata().unwrap();
            out.push(format!(
                "{} {}",
                p.display(),
                if meta.is_dir() { 0 } else { meta.len() }
            ));
            if meta.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Three members of `program` started on data directories etcdctl restored
/// from `snapshot` (the same ports, token and names for every program):
/// what they hold and answer.
fn restored_cluster(
    (program, prefix): (&Path, &[&str]),
    dir: &Path,
    snapshot: &Path,
    ports: &[(u16, u16)],
    tag: &str,
) -> Vec<String> {
    let initial: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, (_, p))| format!("m{}=http://127.0.0.1:{p}", i + 1))
        .collect();
    let initial = initial.join(",");
    let data = |i: usize| dir.join(format!("{tag}-m{}", i + 1));
    let ep = |i: usize| format!("http://127.0.0.1:{}", ports[i].0);
    let mut servers = Vec::new();
    for (i, (c, p)) in ports.iter().enumerate() {
        let peer = format!("http://127.0.0.1:{p}");
        let name = format!("m{}", i + 1);
        let restore = ctl(
            &ep(i),
            &[
                "snapshot",
                "restore",
                snapshot.to_str().unwrap(),
                "--name",
                &name,
                "--initial-cluster",
                &initial,
                "--initial-cluster-token",
                "restored",
                "--initial-advertise-peer-urls",
                &peer,
                "--data-dir",
                data(i).to_str().unwrap(),
            ],
        );
        assert_eq!(restore.code, 0, "{}", restore.stderr);
        let flags: Vec<String> = vec![
            format!("--name={name}"),
            format!("--data-dir={}", data(i).display()),
            format!("--listen-client-urls=http://127.0.0.1:{c}"),
            format!("--advertise-client-urls=http://127.0.0.1:{c}"),
            format!("--listen-peer-urls={peer}"),
            format!("--initial-advertise-peer-urls={peer}"),
            format!("--initial-cluster={initial}"),
            "--initial-cluster-token=restored".to_string(),
        ];
        let log = dir.join(format!("{tag}-m{}.log", i + 1));
        servers.push(spawn(program, prefix, &flags, &log));
    }
    for i in 0..3 {
        wait_for(
            &format!("{tag} m{} healthy", i + 1),
            Duration::from_secs(30),
            || (ctl(&ep(i), &["endpoint", "health"]).code == 0).then_some(()),
        );
    }
    let get = |i: usize, key: &str| {
        ctl(&ep(i), &["get", key, "--print-value-only"])
            .stdout
            .trim()
            .to_string()
    };
    let mut out = vec![format!("a={} b={}", get(1, "a"), get(2, "b"))];
    let list = ctl(&ep(0), &["member", "list", "-w", "json"]).json();
    let mut members: Vec<String> = list["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{} {}", m["ID"], m["name"]))
        .collect();
    members.sort();
    out.push(format!("cluster {}", list["header"]["cluster_id"]));
    out.extend(members);
    let put = ctl(&ep(0), &["put", "c", "3"]);
    assert_eq!(put.code, 0, "{tag}: {}", put.stderr);
    let c = wait_for("the write at m3", Duration::from_secs(30), || {
        let r = ctl(
            &ep(2),
            &["get", "c", "--print-value-only", "--consistency=s"],
        );
        (r.stdout.trim() == "3").then(|| r.stdout.trim().to_string())
    });
    out.push(format!("c={c}"));
    out
}

fn restored_data_directories_start_the_engine_as_they_start_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let etcd_bin = versions::etcd_server("3.4");
    // A snapshot with two keys, from an etcd 3.4 member.
    let (c, p) = (free_port(), free_port());
    let source = dir.path().join("source");
    let source_flags: Vec<String> = vec![
        "--name=source".to_string(),
        format!("--data-dir={}", source.display()),
        format!("--listen-client-urls=http://127.0.0.1:{c}"),
        format!("--advertise-client-urls=http://127.0.0.1:{c}"),
        format!("--listen-peer-urls=http://127.0.0.1:{p}"),
        format!("--initial-advertise-peer-urls=http://127.0.0.1:{p}"),
        format!("--initial-cluster=source=http://127.0.0.1:{p}"),
    ];
    let src = spawn(
        &etcd_bin,
        &[],
        &source_flags,
        &dir.path().join("source.log"),
    );
    let src_ep = format!("http://127.0.0.1:{c}");
    wait_for("the source healthy", Duration::from_secs(30), || {
        (ctl(&src_ep, &["endpoint", "health"]).code == 0).then_some(())
    });
    for (k, v) in [("a", "1"), ("b", "2")] {
        assert_eq!(ctl(&src_ep, &["put", k, v]).code, 0);
    }
    let snapshot = dir.path().join("snap.db");
    let saved = ctl(&src_ep, &["snapshot", "save", snapshot.to_str().unwrap()]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    drop(src);

    let ports: Vec<(u16, u16)> = (0..3).map(|_| (free_port(), free_port())).collect();
    let etcd = restored_cluster((&etcd_bin, &[]), dir.path(), &snapshot, &ports, "etcd");
    assert_eq!(etcd[0], "a=1 b=2", "etcd 3.4: {etcd:?}");
    assert_eq!(etcd.last().unwrap(), "c=3", "etcd 3.4: {etcd:?}");
    let engine = restored_cluster(
        (Path::new(util::bin()), &["node", "run"]),
        dir.path(),
        &snapshot,
        &ports,
        "engine",
    );
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
    let log = std::fs::read_to_string(dir.path().join("engine-m1.log")).unwrap();
    assert!(log.contains("taken into the engine's format"), "{log}");
    assert!(dir.path().join("engine-m1/etcd-member/snap/db").exists());

    // The source's data directory, which a member has run on: refused,
    // nothing changed.
    let before = listing(&source);
    let mut args = vec!["node", "run"];
    args.extend(source_flags.iter().map(String::as_str));
    let r = util::memberctl(&args);
    assert_ne!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("no cluster has run on"), "{}", r.stderr);
    assert_eq!(listing(&source), before);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        restored_data_directories_start_the_engine_as_they_start_etcd_3_4: [Etcd, Etcdctl],
    ]
}
