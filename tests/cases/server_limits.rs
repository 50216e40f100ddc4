//! etcd's limits on the engine as on etcd 3.4 (issue #57): `--max-txn-ops`,
//! `--max-request-bytes`, automatic compaction (`--auto-compaction-mode
//! periodic`, `--auto-compaction-retention`) and the gRPC keepalive
//! (`--grpc-keepalive-interval`, `--grpc-keepalive-timeout`): the same
//! answers from one member of each started with the same flags.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::cases::cert_user::Server;
use crate::util::{self, free_port, versions, wait_for};

/// One member of `program` (with `prefix`) with `flags`, logging into
/// `dir/tag.log`: the server and its client URL, once it answers.
fn member(
    (program, prefix): (&Path, &[&str]),
    dir: &Path,
    tag: &str,
    flags: &[&str],
) -> (Server, String) {
    let client = format!("http://127.0.0.1:{}", free_port());
    let peer = format!("http://127.0.0.1:{}", free_port());
    let log = std::fs::File::create(dir.join(format!("{tag}.log"))).unwrap();
    let server = Server::spawn(
        Command::new(program)
            .args(prefix)
            .args(["--name", "m1", "--data-dir"])
            .arg(dir.join(format!("{tag}-data")))
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args(["--initial-cluster", &format!("m1={peer}")])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log),
    );
    wait_for(&format!("{tag} answers"), Duration::from_secs(30), || {
        (ctl(&client, &["endpoint", "health"]).code == 0).then_some(())
    });
    (server, client)
}

/// etcdctl 3.4 at `endpoint`.
fn ctl(endpoint: &str, args: &[&str]) -> util::Run {
    util::etcd::etcdctl(&util::require_etcdctl(), endpoint, args)
}

/// etcdctl's output, or its `Error:` line.
fn answer(r: &util::Run) -> String {
    if r.code == 0 {
        return r.stdout.trim().to_string();
    }
    let error = r.stderr.lines().find(|l| l.starts_with("Error:"));
    format!("exit {}: {}", r.code, error.unwrap_or(r.stderr.trim()))
}

/// What a member of `server` answers with `--max-txn-ops=2
/// --max-request-bytes=1024`.
fn limits(server: (&Path, &[&str]), dir: &Path, tag: &str) -> Vec<String> {
    let (_server, client) = member(
        server,
        dir,
        tag,
        &["--max-txn-ops=2", "--max-request-bytes=1024"],
    );
    let txn = |puts: usize| {
        let ops: String = (0..puts).map(|i| format!("put k{i} v\n")).collect();
        let input = format!("\n{ops}\n\n");
        util::etcd::etcdctl_in(
            &util::require_etcdctl(),
            &client,
            &["txn"],
            input.as_bytes(),
        )
    };
    let small = "v".repeat(500);
    let large = "v".repeat(2000);
    vec![
        format!("txn of 2: {}", answer(&txn(2)).lines().next().unwrap_or("")),
        format!("txn of 3: {}", answer(&txn(3))),
        format!(
            "put of 500 B: {}",
            answer(&ctl(&client, &["put", "s", &small]))
        ),
        format!(
            "put of 2000 B: {}",
            answer(&ctl(&client, &["put", "l", &large]))
        ),
    ]
}

fn txn_and_request_limits_are_served_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let etcd = limits((&versions::etcd_server("3.4"), &[]), dir.path(), "etcd");
    let want = [
        "txn of 2: SUCCESS",
        "txn of 3: exit 1: Error: etcdserver: too many operations in txn request",
        "put of 500 B: OK",
        "put of 2000 B: exit 1: Error: etcdserver: request is too large",
    ];
    assert_eq!(etcd, want, "etcd 3.4");
    let engine = limits(
        (Path::new(util::bin()), &["node", "run"]),
        dir.path(),
        "engine",
    );
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
}

/// With a periodic retention of 2 s: writes go on until the first write's
/// revision is compacted away (what etcdctl then says), within 30 s.
fn periodic(server: (&Path, &[&str]), dir: &Path, tag: &str) -> String {
    let (_server, client) = member(
        server,
        dir,
        tag,
        &[
            "--auto-compaction-mode=periodic",
            "--auto-compaction-retention=2s",
        ],
    );
    let first = ctl(&client, &["put", "k", "v0", "-w", "json"]).json();
    let rev = first["header"]["revision"].as_i64().unwrap().to_string();
    let mut n = 0;
    wait_for(
        &format!("{tag}: revision {rev} compacted"),
        Duration::from_secs(30),
        || {
            n += 1;
            let put = ctl(&client, &["put", "k", &format!("v{n}")]);
            assert_eq!(put.code, 0, "{tag}: {}", put.stderr);
            let old = ctl(&client, &["get", "k", &format!("--rev={rev}")]);
            (old.code != 0).then(|| answer(&old))
        },
    )
}

fn periodic_auto_compaction_is_served_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let etcd = periodic((&versions::etcd_server("3.4"), &[]), dir.path(), "etcd");
    assert_eq!(
        etcd, "exit 1: Error: etcdserver: mvcc: required revision has been compacted",
        "etcd 3.4"
    );
    let engine = periodic(
        (Path::new(util::bin()), &["node", "run"]),
        dir.path(),
        "engine",
    );
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
    let log = std::fs::read_to_string(dir.path().join("engine.log")).unwrap();
    assert!(log.contains("completed auto periodic compaction"), "{log}");
}

/// An HTTP/2 client on `client` (h2c) that answers the server's SETTINGS
/// but never its PINGs: (a ping seen, the connection closed by the server
/// within 10 s).
fn silent_client(client: &str) -> (bool, bool) {
    use std::io::{Read, Write};
    let addr = client.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    let mut pinged = false;
    loop {
        let mut head = [0u8; 9];
        match s.read_exact(&mut head) {
            Ok(()) => {}
            // Closed (or reset) by the server.
            Err(e)
                if e.kind() != std::io::ErrorKind::WouldBlock
                    && e.kind() != std::io::ErrorKind::TimedOut =>
            {
                return (pinged, true)
            }
            Err(_) => return (pinged, false),
        }
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        let mut payload = vec![0u8; len];
        if s.read_exact(&mut payload).is_err() {
            return (pinged, true);
        }
        let (kind, flags) = (head[3], head[4]);
        match kind {
            // SETTINGS (not an ack): acknowledged.
            4 if flags & 1 == 0 => s.write_all(&[0, 0, 0, 4, 1, 0, 0, 0, 0]).unwrap(),
            // PING: seen, never answered.
            6 if flags & 1 == 0 => pinged = true,
            // GOAWAY: the server is closing.
            7 => return (pinged, true),
            _ => {}
        }
    }
}

fn grpc_keepalive_is_served_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        "--grpc-keepalive-interval=1s",
        "--grpc-keepalive-timeout=1s",
    ];
    let etcd = {
        let (_server, client) = member(
            (&versions::etcd_server("3.4"), &[]),
            dir.path(),
            "etcd",
            &flags,
        );
        silent_client(&client)
    };
    assert_eq!(etcd, (true, true), "etcd 3.4: pinged, then closed");
    let (_server, client) = member(
        (Path::new(util::bin()), &["node", "run"]),
        dir.path(),
        "engine",
        &flags,
    );
    assert_eq!(silent_client(&client), etcd, "the engine as etcd 3.4");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        txn_and_request_limits_are_served_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        periodic_auto_compaction_is_served_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        grpc_keepalive_is_served_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
    ]
}
