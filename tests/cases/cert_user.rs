//! Client certificates on the engine as on etcd 3.4 (issue #57): with
//! `--client-cert-auth` and authentication on, a request without a token
//! runs as the user named by its client certificate's common name, as etcd
//! takes it (a token still wins); a certificate `--client-crl-file` revokes
//! is refused. The same etcdctl commands give the same answers on both.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::util::tls::{Ca, Issue};
use crate::util::{self, free_port, versions, wait_for};

/// A server process, killed on drop.
pub(super) struct Server(Child);

impl Server {
    /// Starts `command`.
    pub(super) fn spawn(command: &mut Command) -> Server {
        Server(command.spawn().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One CA; the server's certificate, and one client certificate per user
/// (the common name is the tag; serial numbers 1001 on; all name 127.0.0.1,
/// all but alice's localhost): `root`, `alice` (may read `k` only), `nobody` (no such user), `mallory` (revoked by
/// `crl`).
pub(super) struct Pki {
    ca: PathBuf,
    pub(super) server: (PathBuf, PathBuf),
    users: Vec<(&'static str, PathBuf, PathBuf)>,
    crl: PathBuf,
}

impl Pki {
    pub(super) fn new(dir: &Path) -> Pki {
        let ca = Ca::new(dir, "users ca");
        let server = ca.issue(dir, "server", Issue::peer());
        let users = ["root", "alice", "nobody", "mallory"]
            .into_iter()
            .zip(1001..)
            .map(|(u, serial)| {
                // alice's names no localhost (the others': 127.0.0.1 and localhost).
                let what = match u {
                    "alice" => Issue {
                        names: &["127.0.0.1", "alice.example"],
                        ..Issue::peer()
                    },
                    _ => Issue::peer(),
                };
                let (c, k) = ca.issue_numbered(dir, u, what, Some(serial));
                (u, c, k)
            })
            .collect();
        Pki {
            ca: ca.pem.clone(),
            server,
            users,
            crl: ca.revoke(dir, "revoked", &[1004]),
        }
    }

    /// etcdctl at `client` with `user`'s certificate, dialling for 3 s at
    /// most (a refused handshake is not waited out as long as the tests'
    /// patient etcdctl waits).
    fn etcdctl_quick(&self, client: &str, user: &str, args: &[&str]) -> util::Run {
        let (_, cert, key) = self.users.iter().find(|(u, ..)| *u == user).unwrap();
        util::run(
            Command::new(util::require_etcdctl())
                .env("ETCDCTL_API", "3")
                .arg(format!("--endpoints={client}"))
                .args(["--dial-timeout=3s", "--command-timeout=5s"])
                .arg(format!("--cacert={}", self.ca.display()))
                .arg(format!("--cert={}", cert.display()))
                .arg(format!("--key={}", key.display()))
                .args(args),
        )
    }

    /// etcdctl at `client` with `user`'s certificate.
    fn etcdctl(&self, client: &str, user: &str, args: &[&str]) -> util::Run {
        let (_, cert, key) = self.users.iter().find(|(u, ..)| *u == user).unwrap();
        let s = |p: &PathBuf| p.to_str().unwrap().to_string();
        let mut all = vec![
            format!("--cacert={}", s(&self.ca)),
            format!("--cert={}", s(cert)),
            format!("--key={}", s(key)),
        ];
        all.extend(args.iter().map(|a| a.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        util::etcd::etcdctl(&util::require_etcdctl(), client, &all)
    }
}

/// What etcdctl printed: its output, or its `Error:` line (without the
/// retry warnings etcdctl logs before it).
fn answer(r: &util::Run) -> String {
    if r.code == 0 {
        return r.stdout.trim().to_string();
    }
    let error = r.stderr.lines().find(|l| l.starts_with("Error:"));
    format!("exit {}: {}", r.code, error.unwrap_or(r.stderr.trim()))
}

/// A single member with TLS and `--client-cert-auth` (`program` with
/// `prefix`: etcd, or `memberctl node run`; `extra` flags; with
/// `peer_extra`, TLS on its peer URL too, client certificates required
/// there, and those flags), healthy to root's certificate: the server, its
/// client URL and its peer URL.
pub(super) fn start_with(
    (program, prefix): (&Path, &[&str]),
    dir: &Path,
    pki: &Pki,
    tag: &str,
    (extra, peer_extra): (&[String], Option<&[String]>),
) -> (Server, String, String) {
    let client = format!("https://127.0.0.1:{}", free_port());
    let scheme = if peer_extra.is_some() {
        "https"
    } else {
        "http"
    };
    let peer = format!("{scheme}://127.0.0.1:{}", free_port());
    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    let mut extra = extra.to_vec();
    if let Some(more) = peer_extra {
        extra.extend(
            [
                "--peer-cert-file",
                &s(&pki.server.0),
                "--peer-key-file",
                &s(&pki.server.1),
                "--peer-trusted-ca-file",
                &s(&pki.ca),
                "--peer-client-cert-auth",
            ]
            .map(String::from),
        );
        extra.extend(more.iter().cloned());
    }
    let log = std::fs::File::create(dir.join(format!("{tag}.log"))).unwrap();
    let server = Server(
        Command::new(program)
            .args(prefix)
            .args(["--name", "m1", "--data-dir"])
            .arg(dir.join(format!("{tag}-data")))
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &format!("m1={peer}")])
            .args(["--cert-file", &s(&pki.server.0)])
            .args(["--key-file", &s(&pki.server.1)])
            .args(["--trusted-ca-file", &s(&pki.ca), "--client-cert-auth"])
            .args(&extra)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_for(&format!("{tag} healthy"), Duration::from_secs(30), || {
        let r = pki.etcdctl(&client, "root", &["endpoint", "health"]);
        (r.code == 0).then_some(())
    });
    (server, client, peer)
}

/// [`start_with`] with plain peer URLs: the server and its client URL.
fn start(
    server: (&Path, &[&str]),
    dir: &Path,
    pki: &Pki,
    tag: &str,
    extra: &[String],
) -> (Server, String) {
    let (server, client, _) = start_with(server, dir, pki, tag, (extra, None));
    (server, client)
}

/// The transcript of etcdctl's answers with each user's certificate,
/// before and after `auth enable`, on a member of `server`.
fn transcript(server: (&Path, &[&str]), dir: &Path, pki: &Pki, tag: &str) -> Vec<String> {
    let (_server, client) = start(server, dir, pki, tag, &[]);
    let logs = || std::fs::read_to_string(dir.join(format!("{tag}.log"))).unwrap_or_default();
    let mut said = Vec::new();
    let mut step = |user: &str, args: &[&str]| {
        let r = pki.etcdctl(&client, user, args);
        said.push(format!("{user}$ {}: {}", args.join(" "), answer(&r)));
        r
    };
    for args in [
        &["user", "add", "root:rootpw"][..],
        &["user", "grant-role", "root", "root"],
        &["user", "add", "alice:alicepw"],
        &["role", "add", "reader"],
        &["role", "grant-permission", "reader", "read", "k"],
        &["user", "grant-role", "alice", "reader"],
        &["put", "k", "v0"],
    ] {
        let r = step("root", args);
        assert_eq!(r.code, 0, "{tag}: {}\n{}", r.stderr, logs());
    }
    let r = step("root", &["auth", "enable"]);
    assert_eq!(r.code, 0, "{tag}: {}\n{}", r.stderr, logs());
    // No token: the certificate's user.
    step("root", &["put", "k", "v1"]);
    step("root", &["get", "k", "--print-value-only"]);
    step("alice", &["get", "k", "--print-value-only"]);
    step("alice", &["put", "k", "v2"]);
    step("nobody", &["get", "k", "--print-value-only"]);
    // A token wins over the certificate.
    step("root", &["--user", "alice:alicepw", "put", "k", "v3"]);
    step("alice", &["--user", "root:rootpw", "put", "k", "v4"]);
    step("alice", &["get", "k", "--print-value-only"]);
    // Root by certificate may turn authentication off again.
    step("root", &["auth", "disable"]);
    step("nobody", &["put", "k", "v5"]);
    said
}

/// `outcomes` on etcd 3.4 (checked by `etcd_says`), then on the engine,
/// which must give the same.
pub(super) fn on_etcd_3_4_and_the_engine(
    outcomes: impl Fn((&Path, &[&str]), &Path, &Pki, &str) -> Vec<String>,
    etcd_says: impl Fn(&[String]),
) {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let etcd_bin = versions::etcd_server("3.4");
    let etcd = outcomes((&etcd_bin, &[]), dir.path(), &pki, "etcd");
    etcd_says(&etcd);
    let engine = outcomes(
        (Path::new(util::bin()), &["node", "run"]),
        dir.path(),
        &pki,
        "engine",
    );
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
}

fn a_client_certificate_names_the_user_on_the_engine_as_on_etcd_3_4() {
    on_etcd_3_4_and_the_engine(transcript, |etcd| {
        // What etcd 3.4 answers, as the engine must.
        let want_in_etcd = [
            "root$ put k v1: OK",
            "root$ get k --print-value-only: v1",
            "alice$ get k --print-value-only: v1",
            "alice$ put k v2: exit 1: Error: etcdserver: permission denied",
            "nobody$ get k --print-value-only: exit 1: Error: etcdserver: permission denied",
            "root$ --user alice:alicepw put k v3: exit 1: Error: etcdserver: permission denied",
            "alice$ --user root:rootpw put k v4: OK",
            "alice$ get k --print-value-only: v4",
            "root$ auth disable: Authentication Disabled",
            "nobody$ put k v5: OK",
        ];
        for line in want_in_etcd {
            assert!(
                etcd.iter().any(|l| l == line),
                "etcd 3.4: {line}\n{etcd:#?}"
            );
        }
    });
}

/// With `--client-crl-file`: whether etcdctl got through with each user's
/// certificate (a put, then a read of it).
fn crl_outcomes(server: (&Path, &[&str]), dir: &Path, pki: &Pki, tag: &str) -> Vec<String> {
    let crl = format!("--client-crl-file={}", pki.crl.display());
    let (_server, client) = start(server, dir, pki, tag, &[crl]);
    ["root", "alice", "mallory"]
        .into_iter()
        .map(|user| {
            let put = pki.etcdctl_quick(&client, user, &["put", user, "v"]);
            let get = pki.etcdctl_quick(&client, user, &["get", user]);
            format!("{user}: put {}, get {}", put.code == 0, get.code == 0)
        })
        .collect()
}

fn a_revoked_client_certificate_is_refused_on_the_engine_as_on_etcd_3_4() {
    on_etcd_3_4_and_the_engine(crl_outcomes, |etcd| {
        let want = [
            "root: put true, get true",
            "alice: put true, get true",
            "mallory: put false, get false",
        ];
        assert_eq!(etcd, want, "etcd 3.4");
    });
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    // Without a CA to verify against, the list is refused before anything
    // is made.
    let r = util::run(
        Command::new(util::bin())
            .args(["node", "run", "--name", "m1", "--data-dir"])
            .arg(dir.path().join("no-ca-data"))
            .args(["--cert-file", pki.server.0.to_str().unwrap()])
            .args(["--key-file", pki.server.1.to_str().unwrap()])
            .arg(format!("--client-crl-file={}", pki.crl.display())),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("needs --trusted-ca-file"), "{}", r.stderr);
    assert!(!dir.path().join("no-ca-data").exists());
}

/// Whether the TLS listener at `url` takes `user`'s certificate: a
/// handshake, then an HTTP/1.1 request read to its end; taken when
/// anything is answered (a refusal comes after the handshake, in TLS 1.3:
/// an alert, or a reset that loses it).
fn takes(url: &str, pki: &Pki, user: &str) -> bool {
    takes_with(
        url,
        pki,
        user,
        None,
        &[&rustls::version::TLS12, &rustls::version::TLS13],
    )
}

/// [`takes`], the client offering only the cipher suite named `suite` (all
/// of TLS 1.3's with it) and only `versions`.
pub(super) fn takes_with(
    url: &str,
    pki: &Pki,
    user: &str,
    suite: Option<&str>,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> bool {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    use std::io::{Read, Write};
    let (_, cert, key) = pki.users.iter().find(|(u, ..)| *u == user).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(&pki.ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut provider = rustls::crypto::ring::default_provider();
    if let Some(suite) = suite {
        provider.cipher_suites.retain(|s| {
            s.version() == &rustls::version::TLS13 || s.suite().as_str() == Some(suite)
        });
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(provider))
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_client_auth_cert(certs, PrivateKeyDer::from_pem_file(key).unwrap())
        .unwrap();
    let host = url.trim_start_matches("https://");
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    let tcp = std::net::TcpStream::connect(host).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let sent = write!(
        tls,
        "GET /version HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    );
    let mut answer = Vec::new();
    if sent.is_ok() {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = tls.read(&mut buf) {
            answer.extend_from_slice(&buf[..n]);
        }
    }
    !answer.is_empty()
}

/// With `--peer-cert-allowed-cn=root` (`--peer-cert-allowed-hostname` with
/// `hostname`): whether the peer listener takes root's and alice's
/// certificates.
fn peer_outcomes(server: (&Path, &[&str]), dir: &Path, pki: &Pki, tag: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (flag, what) in [
        ("--peer-cert-allowed-cn=root", "cn"),
        ("--peer-cert-allowed-hostname=localhost", "hostname"),
    ] {
        let tag = format!("{tag}-{what}");
        let peer_flags = [flag.to_string()];
        let (_server, _, peer) = start_with(server, dir, pki, &tag, (&[], Some(&peer_flags)));
        for user in ["root", "alice"] {
            out.push(format!("{what} {user}: {}", takes(&peer, pki, user)));
        }
    }
    out
}

fn a_peer_certificate_must_name_the_allowed_cn_or_host_on_the_engine_as_on_etcd_3_4() {
    on_etcd_3_4_and_the_engine(peer_outcomes, |etcd| {
        // Only root's certificate has the common name root and names localhost.
        let want = [
            "cn root: true",
            "cn alice: false",
            "hostname root: true",
            "hostname alice: false",
        ];
        assert_eq!(etcd, want, "etcd 3.4");
    });
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_client_certificate_names_the_user_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        a_revoked_client_certificate_is_refused_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        a_peer_certificate_must_name_the_allowed_cn_or_host_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
    ]
}
