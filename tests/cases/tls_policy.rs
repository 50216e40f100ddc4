//! The listeners' TLS policy on the engine as on etcd (issue #57):
//! `--cipher-suites` (TLS 1.2's suites; TLS 1.3's always offered, as Go's),
//! `--client-cert-allowed-hostname` on etcd 3.4, and `--tls-min-version` /
//! `--tls-max-version` on etcd 3.6 (3.4.23 has no such flags). Each
//! handshake is tried on both servers with the same certificates.

use std::path::Path;

use rustls::version::{TLS12, TLS13};

use crate::cases::cert_user::{on_etcd_3_4_and_the_engine, start_with, takes_with, Pki};
use crate::util::{self, versions};

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

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        cipher_suites_and_client_hostnames_are_served_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        tls_versions_are_served_on_the_engine_as_on_etcd_3_6: [EtcdServer("3.6"), Etcdctl],
    ]
}
