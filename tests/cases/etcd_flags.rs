//! etcd's own server command lines on the engine (issue #57): every flag of
//! etcd 3.4–3.7's `--help` in `node run`'s table (served, of no effect, or
//! refused with the reason before anything is made); kubeadm's command line
//! (TLS, client and peer certificate auth, the initial corruption check)
//! served by the engine as by etcd 3.4; a member whose data differs from its
//! peers' stopped by the initial corruption check before it sends anything.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use memberctl::cli::etcd_flags;

use crate::util::local::{get_prefix, put};
use crate::util::{self, free_port, versions, wait_for};

/// `key`'s value in the member at `endpoint`'s own copy (serializable).
fn value_at(endpoint: &str, key: &str) -> Option<String> {
    get_prefix(endpoint, key)
        .ok()?
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// The flags an etcd server's `--help` lists.
fn help_flags(bin: &Path) -> Vec<String> {
    let out = Command::new(bin).arg("--help").output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut flags: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("  --"))
        .map(|l| {
            l.trim_start()[2..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|f| !f.is_empty() && !matches!(f.as_str(), "help" | "version" | "config-file"))
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

fn every_etcd_server_flag_is_served_or_refused_with_a_reason() {
    let mut seen = 0;
    for version in versions::VERSIONS {
        let flags = help_flags(&versions::etcd_server(version));
        assert!(flags.len() >= 70, "etcd {version}: {flags:?}");
        let missing: Vec<&String> = flags
            .iter()
            .filter(|f| etcd_flags::lookup(f).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "etcd {version}'s flags missing from src/cli/etcd_flags.rs: {missing:?}"
        );
        seen += flags.len();
    }
    assert!(seen > 300, "{seen}");
    // Refused before anything is made: the reason named, exit code 2, no
    // data directory.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("m1");
    for (flags, reason) in [
        (vec!["--enable-v2"], "v3 API only"),
        (vec!["--wal-dir", "/tmp/wal"], "inside --data-dir"),
        (
            vec!["--experimental-enable-lease-checkpoint"],
            "lease checkpoints are not served",
        ),
        (vec!["--client-cert-auth=maybe"], "true or false"),
    ] {
        let mut args = vec!["node", "run", "--data-dir", data.to_str().unwrap()];
        args.extend(&flags);
        let r = util::memberctl(&args);
        assert_eq!(r.code, 2, "{flags:?}: {}", r.stderr);
        assert!(r.stderr.contains(reason), "{flags:?}: {}", r.stderr);
        assert!(!data.exists(), "{flags:?} made {}", data.display());
    }
}

/// A server process, killed on drop.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The ports and files of one single-member TLS cluster (the same for etcd
/// and the engine, one after the other: the same flags but the data directory).
struct Line {
    client: String,
    peer: String,
    metrics: String,
    pki: util::tls::Pki,
}

impl Line {
    fn new(dir: &Path) -> Line {
        Line {
            client: format!("https://127.0.0.1:{}", free_port()),
            peer: format!("https://127.0.0.1:{}", free_port()),
            metrics: format!("http://127.0.0.1:{}", free_port()),
            pki: util::tls::make(dir, "kubeadm"),
        }
    }

    /// kubeadm's etcd command line (its static pod manifest), for `m1` on `data`.
    fn kubeadm(&self, data: &Path) -> Vec<String> {
        let p = |p: &PathBuf| p.to_str().unwrap().to_string();
        let pki = &self.pki;
        [
            format!("--advertise-client-urls={}", self.client),
            format!("--cert-file={}", p(&pki.server_cert)),
            "--client-cert-auth=true".into(),
            format!("--data-dir={}", data.display()),
            "--experimental-initial-corrupt-check=true".into(),
            "--experimental-watch-progress-notify-interval=5s".into(),
            format!("--initial-advertise-peer-urls={}", self.peer),
            format!("--initial-cluster=m1={}", self.peer),
            format!("--key-file={}", p(&pki.server_key)),
            format!("--listen-client-urls={}", self.client),
            format!("--listen-metrics-urls={}", self.metrics),
            format!("--listen-peer-urls={}", self.peer),
            "--name=m1".into(),
            format!("--peer-cert-file={}", p(&pki.server_cert)),
            "--peer-client-cert-auth=true".into(),
            format!("--peer-key-file={}", p(&pki.server_key)),
            format!("--peer-trusted-ca-file={}", p(&pki.ca)),
            "--snapshot-count=10000".into(),
            format!("--trusted-ca-file={}", p(&pki.ca)),
        ]
        .into()
    }

    /// The same settings as etcd's YAML configuration file (durations in
    /// nanoseconds, TLS under the transport-security maps).
    fn kubeadm_yaml(&self, data: &Path) -> String {
        let p = |p: &PathBuf| p.to_str().unwrap().to_string();
        let pki = &self.pki;
        format!(
            "name: m1\n\
             data-dir: {data}\n\
             advertise-client-urls: {client}\n\
             listen-client-urls: {client}\n\
             listen-metrics-urls: {metrics}\n\
             listen-peer-urls: {peer}\n\
             initial-advertise-peer-urls: {peer}\n\
             initial-cluster: m1={peer}\n\
             snapshot-count: 10000\n\
             experimental-initial-corrupt-check: true\n\
             experimental-watch-progress-notify-interval: 5000000000\n\
             log-outputs: [stderr]\n\
             client-transport-security:\n  \
               cert-file: {cert}\n  \
               key-file: {key}\n  \
               client-cert-auth: true\n  \
               trusted-ca-file: {ca}\n\
             peer-transport-security:\n  \
               cert-file: {cert}\n  \
               key-file: {key}\n  \
               client-cert-auth: true\n  \
               trusted-ca-file: {ca}\n",
            data = data.display(),
            client = self.client,
            metrics = self.metrics,
            peer = self.peer,
            cert = p(&pki.server_cert),
            key = p(&pki.server_key),
            ca = p(&pki.ca),
        )
    }

    fn etcdctl(&self, etcdctl: &Path, args: &[&str]) -> util::Run {
        let p = |p: &PathBuf| p.to_str().unwrap().to_string();
        let mut all = vec![
            format!("--cacert={}", p(&self.pki.ca)),
            format!("--cert={}", p(&self.pki.client_cert)),
            format!("--key={}", p(&self.pki.client_key)),
        ];
        all.extend(args.iter().map(|a| a.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        util::etcd::etcdctl(etcdctl, &self.client, &all)
    }
}

/// Starts `program` with `prefix` and `args`, its output in `log`.
fn start(program: &Path, prefix: &[&str], args: &[String], log: &Path) -> Server {
    let out = std::fs::File::create(log).unwrap();
    Server(
        Command::new(program)
            .args(prefix)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap(),
    )
}

/// What one server did with kubeadm's line (`settings` makes its arguments
/// for a data directory): (healthy through etcdctl, the value read back,
/// `/health` of the metrics URL, healthy again after a restart on its data,
/// the cluster and member IDs and the member's name).
fn kubeadm_run(
    program: &Path,
    prefix: &[&str],
    dir: &Path,
    line: &Line,
    tag: &str,
    settings: &dyn Fn(&Path) -> Vec<String>,
) -> (bool, String, bool, bool, String) {
    let etcdctl = util::require_etcdctl();
    let data = dir.join(format!("{tag}-data"));
    let log = dir.join(format!("{tag}.log"));
    let healthy = |what: &str| {
        wait_for(what, Duration::from_secs(30), || {
            let r = line.etcdctl(&etcdctl, &["endpoint", "health"]);
            (r.code == 0).then_some(())
        })
    };
    let server = start(program, prefix, &settings(&data), &log);
    healthy(&format!("{tag} healthy"));
    let put = line.etcdctl(&etcdctl, &["put", "k", "v1"]);
    assert_eq!(put.code, 0, "{tag}: {}", put.stderr);
    let got = line.etcdctl(&etcdctl, &["get", "k", "--print-value-only"]);
    let health = util::http::try_get(&line.metrics, "/health")
        .map(|a| a.status == 200 && a.body.contains("\"health\":\"true\""))
        .unwrap_or(false);
    drop(server);
    // Again on its data: the initial corruption check runs (no peer to ask).
    let log2 = dir.join(format!("{tag}-again.log"));
    let _again = start(program, prefix, &settings(&data), &log2);
    healthy(&format!("{tag} healthy again"));
    let again = line.etcdctl(&etcdctl, &["get", "k", "--print-value-only"]);
    let list = line
        .etcdctl(&etcdctl, &["member", "list", "-w", "json"])
        .json();
    let ids = format!(
        "cluster {} member {} named {}",
        list["header"]["cluster_id"], list["members"][0]["ID"], list["members"][0]["name"]
    );
    (
        true,
        got.stdout.trim().to_string(),
        health,
        again.stdout.trim() == "v1",
        ids,
    )
}

fn kubeadm_command_line_serves_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let line = Line::new(dir.path());
    let etcd = kubeadm_run(
        &versions::etcd_server("3.4"),
        &[],
        dir.path(),
        &line,
        "etcd",
        &|data| line.kubeadm(data),
    );
    let engine = kubeadm_run(
        Path::new(util::bin()),
        &["node", "run"],
        dir.path(),
        &line,
        "engine",
        &|data| line.kubeadm(data),
    );
    assert_eq!(
        (etcd.0, etcd.1.as_str(), etcd.2, etcd.3),
        (true, "v1", true, true),
        "etcd 3.4"
    );
    assert!(
        etcd.4.starts_with("cluster ") && !etcd.4.contains("null"),
        "{}",
        etcd.4
    );
    // The same answers, and the same IDs from the same flags.
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
    let log = std::fs::read_to_string(dir.path().join("engine-again.log")).unwrap();
    assert!(
        log.contains("initial corruption checking passed; no corruption"),
        "{log}"
    );
}

fn etcds_config_file_serves_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let line = Line::new(dir.path());
    // kubeadm's settings in etcd's YAML, and a flag beside it that etcd
    // ignores when it reads a config file.
    let settings = |data: &Path| {
        let file = data.with_extension("yml");
        std::fs::write(&file, line.kubeadm_yaml(data)).unwrap();
        vec![
            format!("--config-file={}", file.display()),
            "--name=ignored".to_string(),
        ]
    };
    let etcd = kubeadm_run(
        &versions::etcd_server("3.4"),
        &[],
        dir.path(),
        &line,
        "etcd",
        &settings,
    );
    let engine = kubeadm_run(
        Path::new(util::bin()),
        &["node", "run"],
        dir.path(),
        &line,
        "engine",
        &settings,
    );
    assert_eq!(
        (etcd.0, etcd.1.as_str(), etcd.2, etcd.3),
        (true, "v1", true, true),
        "etcd 3.4"
    );
    assert!(etcd.4.ends_with("named \"m1\""), "{}", etcd.4);
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
    let log = std::fs::read_to_string(dir.path().join("engine.log")).unwrap();
    assert!(log.contains("--config-file="), "{log}");
    assert!(log.contains("--name=ignored: ignored"), "{log}");
    // A file etcd would not read: refused before anything is made.
    let bad = dir.path().join("bad.yml");
    std::fs::write(&bad, "grpc-keepalive-interval: 2h\n").unwrap();
    let data = dir.path().join("bad-data");
    let r = util::memberctl(&[
        "node",
        "run",
        "--config-file",
        bad.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("nanoseconds"), "{}", r.stderr);
    assert!(!data.exists());
}

/// Three engine members on fixed ports (the same command lines give the
/// same IDs), their data under `root`; the command line of each.
fn three(root: &Path, ports: &[(u16, u16)]) -> Vec<Vec<String>> {
    let initial: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, (_, p))| format!("m{}=http://127.0.0.1:{p}", i + 1))
        .collect();
    ports
        .iter()
        .enumerate()
        .map(|(i, (c, p))| {
            vec![
                format!("--name=m{}", i + 1),
                format!("--data-dir={}", root.join(format!("m{}", i + 1)).display()),
                format!("--listen-client-urls=http://127.0.0.1:{c}"),
                format!("--advertise-client-urls=http://127.0.0.1:{c}"),
                format!("--listen-peer-urls=http://127.0.0.1:{p}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{p}"),
                format!("--initial-cluster={}", initial.join(",")),
                "--experimental-initial-corrupt-check=true".to_string(),
            ]
        })
        .collect()
}

/// Starts the three of `lines`, writes `value` under three keys through m1,
/// and stops them (SIGKILL after the writes are acknowledged by a majority
/// and read back from every member).
fn write_cluster(
    (program, prefix): (&Path, &[&str]),
    root: &Path,
    lines: &[Vec<String>],
    ports: &[(u16, u16)],
    value: &str,
) {
    let servers: Vec<Server> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| start(program, prefix, l, &root.join(format!("m{}.log", i + 1))))
        .collect();
    let ep = |i: usize| format!("http://127.0.0.1:{}", ports[i].0);
    for key in ["a", "b", "c"] {
        wait_for("a write", Duration::from_secs(30), || {
            put(&ep(0), key, value).ok()
        });
    }
    // Every member has applied them (serializable reads of its own state).
    for i in 0..3 {
        wait_for(
            "each member applied the writes",
            Duration::from_secs(30),
            || (value_at(&ep(i), "c").as_deref() == Some(value)).then_some(()),
        );
    }
    drop(servers);
}

fn a_member_whose_data_differs_stops_at_the_initial_corrupt_check() {
    let dir = tempfile::tempdir().unwrap();
    let ports: Vec<(u16, u16)> = (0..3).map(|_| (free_port(), free_port())).collect();
    // Cluster B, then cluster A on the same command lines: the same IDs,
    // the same revisions, different values.
    let b = dir.path().join("b");
    let a = dir.path().join("a");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::create_dir_all(&a).unwrap();
    let engine = (Path::new(util::bin()), &["node", "run"][..]);
    write_cluster(engine, &b, &three(&b, &ports), &ports, "from-b");
    let lines = three(&a, &ports);
    write_cluster(engine, &a, &lines, &ports, "from-a");
    // A's m1 and m2 run; m3 is B's data under A's name.
    let run = |i: usize, log: &str| {
        start(
            Path::new(util::bin()),
            &["node", "run"],
            &lines[i],
            &a.join(log),
        )
    };
    let _m1 = run(0, "m1-again.log");
    let _m2 = run(1, "m2-again.log");
    wait_for("A's m1 and m2 serve", Duration::from_secs(30), || {
        put(&format!("http://127.0.0.1:{}", ports[0].0), "d", "x").ok()
    });
    std::fs::remove_dir_all(a.join("m3")).unwrap();
    std::fs::rename(b.join("m3"), a.join("m3")).unwrap();
    let mut m3 = run(2, "m3-swapped.log");
    let status = wait_for_or_log("m3 to stop", &a.join("m3-swapped.log"), || {
        m3.0.try_wait().unwrap()
    });
    let log = std::fs::read_to_string(a.join("m3-swapped.log")).unwrap();
    assert!(!status.success(), "{log}");
    assert!(log.contains("found data inconsistency with peers"), "{log}");
    assert!(!log.contains("ready to serve client requests"), "{log}");
    // A's own cluster is untouched: its writes read back from m1 and m2.
    for (client, _) in &ports[..2] {
        let got = value_at(&format!("http://127.0.0.1:{client}"), "a");
        assert_eq!(got.as_deref(), Some("from-a"));
    }
}

/// [`wait_for`] (30 s), with the log at `log` in the failure.
fn wait_for_or_log<T>(what: &str, log: &Path, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(t) = check() {
            return t;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after 30 s waiting for {what}; log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        every_etcd_server_flag_is_served_or_refused_with_a_reason: [
            Etcd,
            EtcdServer("3.5"),
            EtcdServer("3.6"),
            EtcdServer("3.7")
        ],
        kubeadm_command_line_serves_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        etcds_config_file_serves_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        a_member_whose_data_differs_stops_at_the_initial_corrupt_check,
    ]
}
