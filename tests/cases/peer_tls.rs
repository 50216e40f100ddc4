//! The `peer-tls` check against etcd 3.4 with TLS between its members
//! (`--peer-client-cert-auth`): bad new-member certificates refused before
//! anything is sent, a good one's member really joins, and an existing
//! member's certificate that expires soon warns.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rcgen::ExtendedKeyUsagePurpose::ServerAuth;

use crate::util::tls::{Ca, Issue};
use crate::util::{self, free_port, memberctl, wait_for};

/// etcd processes started here, killed when the case ends.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One etcd member: plain http for clients, https between members with
/// client certificates required.
struct Member<'a> {
    name: &'a str,
    client: u16,
    peer: u16,
    cert: &'a Path,
    key: &'a Path,
    ca: &'a Path,
}

fn start(dir: &Path, m: &Member<'_>, initial: &str, state: &str) -> Child {
    let client = format!("http://127.0.0.1:{}", m.client);
    let peer = format!("https://127.0.0.1:{}", m.peer);
    Command::new(util::require_etcd())
        .args(["--name", m.name])
        .arg("--data-dir")
        .arg(dir.join(m.name))
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
        .args([
            "--initial-cluster",
            initial,
            "--initial-cluster-state",
            state,
        ])
        .args(["--heartbeat-interval", "50", "--election-timeout", "500"])
        .arg("--peer-cert-file")
        .arg(m.cert)
        .arg("--peer-key-file")
        .arg(m.key)
        .arg("--peer-trusted-ca-file")
        .arg(m.ca)
        .arg("--peer-client-cert-auth")
        .env("ETCD_UNSUPPORTED_ARCH", std::env::consts::ARCH)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join(format!("{}.log", m.name))).unwrap())
        .spawn()
        .expect("start etcd")
}

/// A one-member etcd 3.4 cluster with TLS peers, its certificate valid for
/// `days`; answers (processes, endpoint).
fn one_member(dir: &Path, ca: &Ca, days: i64) -> (Procs, String) {
    let (cert, key) = ca.issue(
        dir,
        "m1",
        Issue {
            days,
            ..Issue::peer()
        },
    );
    let m = Member {
        name: "m1",
        client: free_port(),
        peer: free_port(),
        cert: &cert,
        key: &key,
        ca: &ca.pem,
    };
    let initial = format!("m1=https://127.0.0.1:{}", m.peer);
    let procs = Procs(vec![start(dir, &m, &initial, "new")]);
    let ep = format!("127.0.0.1:{}", m.client);
    wait_for("etcd with TLS peers", Duration::from_secs(20), || {
        (memberctl(&["--endpoints", &ep, "member", "status", "-w", "json"]).code == 0).then_some(())
    });
    (procs, ep)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Each bad certificate is refused by the peer-tls check, naming its
/// problem, and nothing is sent; a good one passes `member check`.
fn peer_tls_refuses_each_bad_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ca = Ca::new(d, "members CA");
    let other = Ca::new(d, "other CA");
    let (_procs, ep) = one_member(d, &ca, 365);
    let before = memberctl(&["--endpoints", &ep, "member", "list", "-w", "json"])
        .expect(0)
        .json();
    let url = format!("https://127.0.0.1:{}", free_port());

    let (good, good_key) = ca.issue(d, "good", Issue::peer());
    let (wrong_san, wrong_san_key) = ca.issue(
        d,
        "wrong-san",
        Issue {
            names: &["10.0.0.9", "peer.example"],
            ..Issue::peer()
        },
    );
    let (foreign, foreign_key) = other.issue(d, "foreign", Issue::peer());
    let (server_only, server_only_key) = ca.issue(
        d,
        "server-only",
        Issue {
            usages: vec![ServerAuth],
            ..Issue::peer()
        },
    );
    let (expired, expired_key) = ca.issue(
        d,
        "expired",
        Issue {
            days: -2,
            ..Issue::peer()
        },
    );
    let cases: Vec<(&str, &Path, &Path, Option<&Path>, &str)> = vec![
        (
            "wrong SAN",
            &wrong_san,
            &wrong_san_key,
            None,
            "does not name host 127.0.0.1 of the new member's peer URL",
        ),
        (
            "another CA",
            &foreign,
            &foreign_key,
            None,
            "is issued by CN=other CA; the members' peer certificates are issued by CN=members CA (m1)",
        ),
        (
            "another CA, --peer-trusted-ca",
            &foreign,
            &foreign_key,
            Some(&ca.pem),
            "does not chain to --peer-trusted-ca",
        ),
        (
            "server-only usage",
            &server_only,
            &server_only_key,
            None,
            "is serverAuth without clientAuth",
        ),
        (
            "mismatched key",
            &good,
            &foreign_key,
            None,
            "is not the key of --peer-cert",
        ),
        ("expired", &expired, &expired_key, None, "expired on"),
    ];
    // All at once (each add reads the cluster for half a second).
    std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .into_iter()
            .map(|(what, cert, key, trusted, expected)| {
                let (ep, url) = (&ep, &url);
                scope.spawn(move || {
                    let mut args = vec![
                        "--endpoints",
                        ep,
                        "member",
                        "add",
                        "n2",
                        "--learner",
                        "--peer-urls",
                        url,
                        "--peer-cert",
                        s(cert),
                        "--peer-key",
                        s(key),
                    ];
                    if let Some(t) = trusted {
                        args.extend(["--peer-trusted-ca", s(t)]);
                    }
                    (what, expected, memberctl(&args))
                })
            })
            .collect();
        for run in runs {
            let (what, expected, r) = run.join().unwrap();
            assert_eq!(r.code, 3, "{what}: {}", r.stderr);
            for said in ["check peer-tls failed", "nothing was sent", expected] {
                assert!(r.stderr.contains(said), "{what}: {}", r.stderr);
            }
        }
    });
    let after = memberctl(&["--endpoints", &ep, "member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(before["members"], after["members"]);

    // The good one passes, as `member check --for add` sees it.
    let checks = memberctl(&[
        "--endpoints",
        &ep,
        "member",
        "check",
        "--for",
        "add",
        "--peer-urls",
        &url,
        "--peer-cert",
        s(&good),
        "--peer-key",
        s(&good_key),
        "-w",
        "json",
    ])
    .expect(0)
    .json();
    let c = util::check_named(&checks, "peer-tls");
    assert_eq!(c["result"], "ok", "{c}");
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.contains("has the issuer of the members' peer certificates (CN=members CA"),
        "{detail}"
    );
    let days = c["figures"]["days_left"]["m1"].as_f64().unwrap();
    assert!((364.0..=365.0).contains(&days), "{c}");
}

/// A good certificate's member joins a cluster whose peers use TLS (added
/// as a learner, started with those files, it publishes its name); the
/// existing member's certificate, 10 days from expiry, warns.
fn peer_tls_good_member_joins_and_a_near_expiry_warns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ca = Ca::new(d, "members CA");
    let (mut procs, ep) = one_member(d, &ca, 10);
    let (cert, key) = ca.issue(d, "n2", Issue::peer());
    let peer = free_port();
    let url = format!("https://127.0.0.1:{peer}");
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "member",
        "add",
        "n2",
        "--learner",
        "--peer-urls",
        &url,
        "--peer-cert",
        s(&cert),
        "--peer-key",
        s(&key),
        "--peer-trusted-ca",
        s(&ca.pem),
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning: check peer-tls"), "{}", r.stderr);
    assert!(r.stderr.contains("m1's peer certificate"), "{}", r.stderr);
    let added = r.json();
    let c = util::check_named(&added, "peer-tls");
    assert_eq!(c["result"], "warn", "{c}");
    let days = c["figures"]["days_left"]["m1"].as_f64().unwrap();
    assert!((9.5..=10.0).contains(&days), "{c}");
    assert!(
        c["figures"]["new_member_days_left"].as_f64().unwrap() > 364.0,
        "{c}"
    );

    let n2 = Member {
        name: "n2",
        client: free_port(),
        peer,
        cert: &cert,
        key: &key,
        ca: &ca.pem,
    };
    let initial = added["initial_cluster"].as_str().unwrap();
    procs.0.push(start(d, &n2, initial, "existing"));
    wait_for("n2 to join over peer TLS", Duration::from_secs(20), || {
        let list = memberctl(&["--endpoints", &ep, "member", "list", "-w", "json"]);
        let list = (list.code == 0).then(|| list.json())?;
        list["members"]
            .as_array()?
            .iter()
            .any(|m| m["name"] == "n2" && m["started"] == true)
            .then_some(())
    });
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        peer_tls_refuses_each_bad_certificate: [Etcd],
        peer_tls_good_member_joins_and_a_near_expiry_warns: [Etcd],
    ]
}
