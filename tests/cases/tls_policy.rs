//! The listeners' TLS policy on the engine as on etcd (issue #57):
//! `--cipher-suites` (TLS 1.2's suites; TLS 1.3's always offered, as Go's),
//! `--client-cert-allowed-hostname` on etcd 3.4, and `--tls-min-version` /
//! `--tls-max-version` on etcd 3.6 (3.4.23 has no such flags). Each
//! handshake is tried on both servers with the same certificates. And
//! `--auto-tls --peer-auto-tls`: three members on self-signed certificates
//! made at start, on etcd 3.4 and on the engine; and one self-signed
//! CA:TRUE certificate serving as every member's own and as their CA (Go
//! accepts it; webpki alone refuses a CA as an end entity).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rustls::version::{TLS12, TLS13};

use crate::cases::cert_user::{on_etcd_3_4_and_the_engine, start_with, takes_with, Pki, Server};
use crate::util::{self, free_port, versions, wait_for};

/// The handshakes tried: a name, the one TLS 1.2 suite offered (or none:
/// any), the versions offered.
type Hello = (
    &'static str,
    Option<&'static str>,
    &'static [&'static rustls::SupportedProtocolVersion],
);

const HELLOS: &[Hello] = &[
    (
        "1.2 aes128",
        Some("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
        &[&TLS12],
    ),
    (
        "1.2 aes256",
        Some("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
        &[&TLS12],
    ),
    (
        "1.2 chacha20",
        Some("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
        &[&TLS12],
    ),
    ("1.2 any", None, &[&TLS12]),
    ("1.3 any", None, &[&TLS13]),
];

/// A member of `server` started with `flags`: whether each of [`HELLOS`]
/// (with root's certificate) is taken.
fn hellos(
    server: (&Path, &[&str]),
    dir: &Path,
    pki: &Pki,
    tag: &str,
    flags: &[&str],
) -> Vec<String> {
    let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    let (_server, client, _) = start_with(server, dir, pki, tag, (&flags, None));
    HELLOS
        .iter()
        .map(|(what, suite, versions)| {
            format!(
                "{what}: {}",
                takes_with(&client, pki, "root", *suite, versions)
            )
        })
        .collect()
}

fn cipher_suites_and_client_hostnames_are_served_on_the_engine_as_on_etcd_3_4() {
    on_etcd_3_4_and_the_engine(
        |server, dir, pki, tag| {
            let mut out = hellos(
                server,
                dir,
                pki,
                &format!("{tag}-suites"),
                // Go's older name of the ChaCha20 suite, as etcd takes it;
                // AES-128-GCM is one HTTP/2 requires.
                &["--cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305"],
            );
            // Only root's certificate names localhost.
            let flags = ["--client-cert-allowed-hostname=localhost".to_string()];
            let (_server, client, _) =
                start_with(server, dir, pki, &format!("{tag}-host"), (&flags, None));
            for user in ["root", "alice"] {
                let all = [&TLS12, &TLS13];
                out.push(format!(
                    "hostname {user}: {}",
                    takes_with(&client, pki, user, None, &all)
                ));
            }
            out
        },
        |etcd| {
            let want = [
                "1.2 aes128: true",
                "1.2 aes256: false",
                "1.2 chacha20: true",
                "1.2 any: true",
                "1.3 any: true",
                "hostname root: true",
                "hostname alice: false",
            ];
            assert_eq!(etcd, want, "etcd 3.4");
        },
    );
    // A suite etcd does not know, and a TLS client URL without the suite
    // HTTP/2 requires (etcd 3.4 stops at its first client request:
    // "listener failed", measured): refused before anything is made.
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let data = dir.path().join("m1");
    let client = format!("https://127.0.0.1:{}", util::free_port());
    for (flags, why) in [
        (
            vec!["--cipher-suites=TLS_NOT_A_SUITE"],
            "unexpected TLS cipher suite",
        ),
        (
            vec![
                "--cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "--cert-file",
                pki.server.0.to_str().unwrap(),
                "--key-file",
                pki.server.1.to_str().unwrap(),
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ],
            "HTTP/2-required AES_128_GCM_SHA256",
        ),
    ] {
        let mut args = vec!["node", "run", "--data-dir", data.to_str().unwrap()];
        args.extend(flags);
        let r = util::memberctl(&args);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains(why), "{}", r.stderr);
        assert!(!data.exists());
    }
}

fn tls_versions_are_served_on_the_engine_as_on_etcd_3_6() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let etcd_bin = versions::etcd_server("3.6");
    let engine_bin = Path::new(util::bin());
    let flags: [&[&str]; 2] = [&["--tls-min-version=TLS1.3"], &["--tls-max-version=TLS1.2"]];
    let outcomes = |server: (&Path, &[&str]), tag: &str| -> Vec<String> {
        flags
            .iter()
            .enumerate()
            .flat_map(|(i, f)| {
                let said = hellos(server, dir.path(), &pki, &format!("{tag}-{i}"), f);
                said.into_iter().map(move |s| format!("{}: {s}", f[0]))
            })
            .collect()
    };
    let etcd = outcomes((&etcd_bin, &[]), "etcd");
    let want = [
        "--tls-min-version=TLS1.3: 1.2 aes128: false",
        "--tls-min-version=TLS1.3: 1.2 aes256: false",
        "--tls-min-version=TLS1.3: 1.2 chacha20: false",
        "--tls-min-version=TLS1.3: 1.2 any: false",
        "--tls-min-version=TLS1.3: 1.3 any: true",
        "--tls-max-version=TLS1.2: 1.2 aes128: true",
        "--tls-max-version=TLS1.2: 1.2 aes256: true",
        "--tls-max-version=TLS1.2: 1.2 chacha20: true",
        "--tls-max-version=TLS1.2: 1.2 any: true",
        "--tls-max-version=TLS1.2: 1.3 any: false",
    ];
    assert_eq!(etcd, want, "etcd 3.6");
    let engine = outcomes((engine_bin, &["node", "run"]), "engine");
    assert_eq!(engine, etcd, "the engine as etcd 3.6");
}

/// etcdctl at `endpoint`, taking the server's certificate unverified
/// (`verify` false: etcdctl 3.4 needs `--insecure-transport=false` with it)
/// or verifying it against the system's roots.
fn etcdctl(endpoint: &str, verify: bool, args: &[&str]) -> util::Run {
    let mut c = Command::new(util::require_etcdctl());
    c.env("ETCDCTL_API", "3")
        .arg(format!("--endpoints={endpoint}"))
        .args(["--dial-timeout=2s", "--command-timeout=5s"]);
    if !verify {
        c.args(["--insecure-skip-tls-verify", "--insecure-transport=false"]);
    }
    util::run(c.args(args))
}

/// Three members of `program` (with `prefix`) with `--auto-tls
/// --peer-auto-tls` and https URLs: what they did (healthy, a write read
/// back from the third, the certificates made, a client that verifies the
/// certificate refused, and the same certificate after a restart).
/// Three members of one server program on https URLs, each started with
/// `extra` flags.
struct Three<'a> {
    program: &'a Path,
    prefix: &'a [&'a str],
    dir: &'a Path,
    tag: &'a str,
    ports: Vec<(u16, u16)>,
    extra: Vec<String>,
}

impl<'a> Three<'a> {
    fn new(
        (program, prefix): (&'a Path, &'a [&'a str]),
        dir: &'a Path,
        tag: &'a str,
        extra: &[&str],
    ) -> Three<'a> {
        Three {
            program,
            prefix,
            dir,
            tag,
            ports: (0..3).map(|_| (free_port(), free_port())).collect(),
            extra: extra.iter().map(|e| e.to_string()).collect(),
        }
    }

    /// Member `i`'s data directory.
    fn data(&self, i: usize) -> std::path::PathBuf {
        self.dir.join(format!("{}-m{}", self.tag, i + 1))
    }

    /// Member `i`'s client URL.
    fn ep(&self, i: usize) -> String {
        format!("https://127.0.0.1:{}", self.ports[i].0)
    }

    /// Starts member `i`, its log in `TAG-mI-LOG.log`.
    fn start(&self, i: usize, log: &str) -> Server {
        let (c, p) = self.ports[i];
        let initial: Vec<String> = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, (_, p))| format!("m{}=https://127.0.0.1:{p}", i + 1))
            .collect();
        let log =
            std::fs::File::create(self.dir.join(format!("{}-m{}-{log}.log", self.tag, i + 1)))
                .unwrap();
        Server::spawn(
            Command::new(self.program)
                .args(self.prefix)
                .arg(format!("--name=m{}", i + 1))
                .arg(format!("--data-dir={}", self.data(i).display()))
                .arg(format!("--listen-client-urls=https://127.0.0.1:{c}"))
                .arg(format!("--advertise-client-urls=https://127.0.0.1:{c}"))
                .arg(format!("--listen-peer-urls=https://127.0.0.1:{p}"))
                .arg(format!(
                    "--initial-advertise-peer-urls=https://127.0.0.1:{p}"
                ))
                .arg(format!("--initial-cluster={}", initial.join(",")))
                .args(&self.extra)
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log),
        )
    }
}

fn auto_tls_cluster(program: &Path, prefix: &[&str], dir: &Path, tag: &str) -> Vec<String> {
    let three = Three::new(
        (program, prefix),
        dir,
        tag,
        &["--auto-tls", "--peer-auto-tls"],
    );
    let data = |i: usize| three.data(i);
    let start = |i: usize, log: &str| three.start(i, log);
    let ep = |i: usize| three.ep(i);
    let mut servers: Vec<_> = (0..3).map(|i| start(i, "first")).collect();
    let mut out = Vec::new();
    for i in 0..3 {
        wait_for(
            &format!("{tag} m{} healthy", i + 1),
            Duration::from_secs(30),
            || (etcdctl(&ep(i), false, &["endpoint", "health"]).code == 0).then_some(()),
        );
    }
    out.push("healthy 3".to_string());
    let put = etcdctl(&ep(0), false, &["put", "k", "v"]);
    assert_eq!(put.code, 0, "{tag}: {}", put.stderr);
    let read = wait_for("the write at m3", Duration::from_secs(30), || {
        let r = etcdctl(
            &ep(2),
            false,
            &["get", "k", "--print-value-only", "--consistency=s"],
        );
        (r.code == 0 && r.stdout.trim() == "v").then(|| r.stdout.trim().to_string())
    });
    out.push(format!("read at m3: {read}"));
    for i in 0..3 {
        let made: Vec<bool> = [
            "client/cert.pem",
            "client/key.pem",
            "peer/cert.pem",
            "peer/key.pem",
        ]
        .iter()
        .map(|f| data(i).join("fixtures").join(f).exists())
        .collect();
        out.push(format!("m{} made {made:?}", i + 1));
    }
    let verified = etcdctl(&ep(0), true, &["get", "k"]);
    out.push(format!(
        "a verifying client refused: {}",
        verified.code != 0
    ));
    // m1 again on its data: the same certificate.
    let before = std::fs::read(data(0).join("fixtures/client/cert.pem")).unwrap();
    drop(servers.remove(0));
    let _again = start(0, "again");
    wait_for(
        &format!("{tag} m1 healthy again"),
        Duration::from_secs(30),
        || (etcdctl(&ep(0), false, &["endpoint", "health"]).code == 0).then_some(()),
    );
    let after = std::fs::read(data(0).join("fixtures/client/cert.pem")).unwrap();
    out.push(format!("the same certificate again: {}", before == after));
    out
}

fn auto_tls_clusters_form_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let etcd = auto_tls_cluster(&versions::etcd_server("3.4"), &[], dir.path(), "etcd");
    let want = [
        "healthy 3",
        "read at m3: v",
        "m1 made [true, true, true, true]",
        "m2 made [true, true, true, true]",
        "m3 made [true, true, true, true]",
        "a verifying client refused: true",
        "the same certificate again: true",
    ];
    assert_eq!(etcd, want, "etcd 3.4");
    let engine = auto_tls_cluster(
        Path::new(util::bin()),
        &["node", "run"],
        dir.path(),
        "engine",
    );
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
}

/// Three members of `server` whose client and peer certificate is one
/// self-signed CA:TRUE certificate, also their CA (`--client-cert-auth`,
/// `--peer-client-cert-auth`): what etcdctl and memberctl (rustls) get
/// with that same certificate.
fn own_root_cluster(server: (&Path, &[&str]), dir: &Path, tag: &str) -> Vec<String> {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let cert = params.self_signed(&key).unwrap();
    let cert_file = dir.join(format!("{tag}-own.pem"));
    let key_file = dir.join(format!("{tag}-own-key.pem"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    let (c, k) = (
        cert_file.display().to_string(),
        key_file.display().to_string(),
    );
    let flags = [
        format!("--cert-file={c}"),
        format!("--key-file={k}"),
        format!("--trusted-ca-file={c}"),
        "--client-cert-auth".to_string(),
        format!("--peer-cert-file={c}"),
        format!("--peer-key-file={k}"),
        format!("--peer-trusted-ca-file={c}"),
        "--peer-client-cert-auth".to_string(),
    ];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let three = Three::new(server, dir, tag, &flags);
    let _servers: Vec<Server> = (0..3).map(|i| three.start(i, "first")).collect();
    let tls = [
        format!("--cacert={c}"),
        format!("--cert={c}"),
        format!("--key={k}"),
    ];
    let ctl = |i: usize, args: &[&str]| {
        let mut all: Vec<&str> = tls.iter().map(String::as_str).collect();
        all.extend(args);
        util::etcd::etcdctl(&util::require_etcdctl(), &three.ep(i), &all)
    };
    for i in 0..3 {
        wait_for(
            &format!("{tag} m{} healthy", i + 1),
            Duration::from_secs(30),
            || (ctl(i, &["endpoint", "health"]).code == 0).then_some(()),
        );
    }
    let mut out = vec!["healthy 3".to_string()];
    let put = ctl(0, &["put", "k", "v"]);
    assert_eq!(put.code, 0, "{tag}: {}", put.stderr);
    let read = wait_for("the write at m3", Duration::from_secs(30), || {
        let r = ctl(2, &["get", "k", "--print-value-only", "--consistency=s"]);
        (r.code == 0 && r.stdout.trim() == "v").then(|| r.stdout.trim().to_string())
    });
    out.push(format!("read at m3: {read}"));
    let mut args = vec!["--endpoints".to_string(), three.ep(1)];
    args.extend(tls.iter().cloned());
    args.extend(["member", "list", "-w", "json"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let list = util::memberctl(&args);
    out.push(format!("memberctl member list: exit {}", list.code));
    out
}

fn a_certificate_that_is_its_own_ca_serves_on_the_engine_as_on_etcd_3_4() {
    on_etcd_3_4_and_the_engine(own_root_cluster_of, |etcd| {
        let want = [
            "healthy 3",
            "read at m3: v",
            "memberctl member list: exit 0",
        ];
        assert_eq!(etcd, want, "etcd 3.4");
    });
}

/// [`own_root_cluster`] in the shape [`on_etcd_3_4_and_the_engine`] runs.
fn own_root_cluster_of(server: (&Path, &[&str]), dir: &Path, _pki: &Pki, tag: &str) -> Vec<String> {
    own_root_cluster(server, dir, tag)
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        cipher_suites_and_client_hostnames_are_served_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        tls_versions_are_served_on_the_engine_as_on_etcd_3_6: [EtcdServer("3.6"), Etcdctl],
        auto_tls_clusters_form_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        a_certificate_that_is_its_own_ca_serves_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
    ]
}
