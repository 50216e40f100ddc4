//! TLS: memberctl against etcd and the engine serving over TLS.

use std::time::Duration;

use crate::util::members::ids;
use crate::util::versions::etcd_server;
use crate::util::{self, free_port, memberctl, wait_for};

/// memberctl against a real etcd serving clients over TLS with client
/// certificates required: --cacert/--cert/--key work, --insecure-skip-tls-verify
/// works without the CA, a missing client certificate or a wrong CA fails clearly.
fn tls_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let dir = tempfile::tempdir().unwrap();
    let pki = util::tls::make(dir.path(), "a");
    let other = util::tls::make(dir.path(), "b");
    let (cport, pport) = (free_port(), free_port());
    let client_url = format!("https://127.0.0.1:{cport}");
    let peer_url = format!("http://127.0.0.1:{pport}");
    let mut child = std::process::Command::new(bin)
        .args(["--name", "t1", "--data-dir"])
        .arg(dir.path().join("data"))
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
        .args(["--initial-cluster", &format!("t1={peer_url}")])
        .arg("--cert-file")
        .arg(&pki.server_cert)
        .arg("--key-file")
        .arg(&pki.server_key)
        .arg("--trusted-ca-file")
        .arg(&pki.ca)
        .arg("--client-cert-auth")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ep = format!("127.0.0.1:{cport}");
    let s = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
    let (ca, cert, key) = (s(&pki.ca), s(&pki.client_cert), s(&pki.client_key));
    let tls = [
        "--endpoints",
        ep.as_str(),
        "--cacert",
        ca.as_str(),
        "--cert",
        cert.as_str(),
        "--key",
        key.as_str(),
    ];
    let list = wait_for("etcd over TLS", Duration::from_secs(20), || {
        let mut args = tls.to_vec();
        args.extend(["member", "list", "-w", "json"]);
        let r = memberctl(&args);
        (r.code == 0).then(|| r.json())
    });
    assert_eq!(ids(&list).len(), 1);
    let mut args = tls.to_vec();
    args.extend(["member", "status", "-w", "json"]);
    let status = memberctl(&args).expect(0).json();
    assert_eq!(status["members"][0]["reachable"], true, "{status}");
    // The pre-flight checks read /metrics and /version over the same TLS.
    let mut args = tls.to_vec();
    args.extend(["member", "check", "-w", "json"]);
    let checks = memberctl(&args).expect(0).json();
    let check = |name: &str| util::check_named(&checks, name).clone();
    for name in ["versions", "db"] {
        assert_eq!(check(name)["result"], "ok", "{name} over TLS: {checks}");
    }
    let disk = check("disk");
    assert!(
        disk["detail"].as_str().unwrap().contains("wal fsync p99"),
        "{disk}"
    );

    // An etcdctl user's environment, unchanged: ETCDCTL_ENDPOINTS with
    // https, ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY.
    let https = format!("https://{ep}");
    let etcdctl_env = |c: &mut std::process::Command| {
        c.env("ETCDCTL_ENDPOINTS", &https)
            .env("ETCDCTL_CACERT", &ca)
            .env("ETCDCTL_CERT", &cert)
            .env("ETCDCTL_KEY", &key)
            .env("ETCDCTL_DIAL_TIMEOUT", "3s")
            .env("ETCDCTL_COMMAND_TIMEOUT", "10s");
    };
    let mut c = util::memberctl_command(&["member", "status", "-w", "json"]);
    etcdctl_env(&mut c);
    let status = util::run(&mut c).expect(0).json();
    assert_eq!(status["members"][0]["reachable"], true, "{status}");
    // memberctl's own variable wins over etcdctl's: a wrong CA in
    // MEMBERCTL_CACERT fails where ETCDCTL_CACERT alone worked.
    let mut c = util::memberctl_command(&["member", "list"]);
    etcdctl_env(&mut c);
    c.env("MEMBERCTL_CACERT", s(&other.ca));
    let r = util::run(&mut c).expect(5);
    assert!(r.stderr.contains("--cacert"), "{}", r.stderr);
    // ETCDCTL_INSECURE_SKIP_TLS_VERIFY as etcdctl reads it.
    let mut c = util::memberctl_command(&["member", "list"]);
    etcdctl_env(&mut c);
    c.env_remove("ETCDCTL_CACERT")
        .env("ETCDCTL_INSECURE_SKIP_TLS_VERIFY", "true");
    util::run(&mut c).expect(0);

    // Every TLS set-up mistake exits 5 and names the flag to check.
    // Without a client certificate the server refuses the handshake.
    let r = memberctl(&["--endpoints", &ep, "--cacert", &ca, "member", "list"]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr.contains("--cert"),
        "no client certificate: {}",
        r.stderr
    );
    // https without a CA.
    let r = memberctl(&["--endpoints", &https, "member", "list"]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("--cacert"), "no CA: {}", r.stderr);
    // http against the TLS port.
    let plain = format!("http://{ep}");
    let r = memberctl(&["--endpoints", &plain, "member", "list"]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr.contains("https://") && r.stderr.contains("--cacert"),
        "http against https: {}",
        r.stderr
    );
    // And the reverse: https against a port that speaks plain http (the
    // member's peer port here).
    let r = memberctl(&[
        "--endpoints",
        &format!("https://127.0.0.1:{pport}"),
        "--cacert",
        &ca,
        "--dial-timeout",
        "3s",
        "member",
        "list",
    ]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr.contains("http://"),
        "https against http: {}",
        r.stderr
    );
    // A CA that did not sign the server's certificate.
    let wrong = s(&other.ca);
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "--cacert",
        &wrong,
        "--cert",
        &cert,
        "--key",
        &key,
        "member",
        "list",
    ]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("--cacert"), "{}", r.stderr);
    // Encrypted but unverified.
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "--insecure-skip-tls-verify",
        "--cert",
        &cert,
        "--key",
        &key,
        "member",
        "list",
        "-w",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills the processes of a hand-started cluster when the test ends.
struct Procs(Vec<std::process::Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The bundled engine with TLS on client and peer URLs and client certificates
/// required on both: it elects a leader over TLS, memberctl administers it with
/// --cacert/--cert/--key (a change through a follower is forwarded over peer
/// TLS), and a client without a certificate is refused.
fn tls_on_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let pki = util::tls::make(dir.path(), "n");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (cert, key, ca) = (s(&pki.server_cert), s(&pki.server_key), s(&pki.ca));
    let clients: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let peers: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let initial: Vec<String> = (0..3)
        .map(|i| format!("n{}=https://127.0.0.1:{}", i + 1, peers[i]))
        .collect();
    let initial = initial.join(",");
    let mut procs = Procs(vec![]);
    for i in 0..3 {
        let c = format!("https://127.0.0.1:{}", clients[i]);
        let p = format!("https://127.0.0.1:{}", peers[i]);
        let child = std::process::Command::new(util::bin())
            .args(["node", "run", "--name", &format!("n{}", i + 1)])
            .arg("--data-dir")
            .arg(dir.path().join(format!("n{}", i + 1)))
            .args(["--listen-client-urls", &c, "--advertise-client-urls", &c])
            .args([
                "--listen-peer-urls",
                &p,
                "--initial-advertise-peer-urls",
                &p,
                "--initial-cluster",
                &initial,
            ])
            .args([
                "--cert-file",
                &cert,
                "--key-file",
                &key,
                "--trusted-ca-file",
                &ca,
                "--client-cert-auth",
            ])
            .args([
                "--peer-cert-file",
                &cert,
                "--peer-key-file",
                &key,
                "--peer-trusted-ca-file",
                &ca,
                "--peer-client-cert-auth",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.path().join(format!("n{}.log", i + 1))).unwrap())
            .spawn()
            .unwrap();
        procs.0.push(child);
    }
    let eps: String = clients
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let (ccert, ckey) = (s(&pki.client_cert), s(&pki.client_key));
    let tls = [
        "--endpoints",
        eps.as_str(),
        "--cacert",
        ca.as_str(),
        "--cert",
        ccert.as_str(),
        "--key",
        ckey.as_str(),
    ];
    let with = |extra: &[&str]| {
        let mut a = tls.to_vec();
        a.extend_from_slice(extra);
        memberctl(&a)
    };
    let status = wait_for(
        "the TLS engine cluster to elect a leader",
        Duration::from_secs(20),
        || {
            let r = with(&["member", "status", "-w", "json"]);
            let v = (r.code == 0).then(|| r.json())?;
            let all = v["members"]
                .as_array()?
                .iter()
                .all(|m| m["reachable"] == true && m["started"] == true);
            (v["leader"].is_string() && all).then_some(v)
        },
    );
    // HTTP/1.1 over TLS on the client URL (ALPN http/1.1): the pre-flight
    // checks read every member's /metrics and /version there.
    let checked = with(&["member", "check", "-w", "json"]).json();
    for c in checked["checks"].as_array().unwrap() {
        if c["name"] == "versions" || c["name"] == "db" {
            assert_eq!(c["result"], "ok", "{c}");
        }
    }
    // The peer-tls check reads each member's certificate from its peer port
    // (which asks for a client certificate).
    let peer_tls = util::check_named(&checked, "peer-tls");
    assert_eq!(peer_tls["result"], "ok", "{peer_tls}");
    let days = peer_tls["figures"]["days_left"].as_object().unwrap();
    assert_eq!(days.len(), 3, "{peer_tls}");
    // A change sent to a follower is forwarded to the leader over peer TLS.
    let leader = status["leader"].as_str().unwrap();
    let follower = status["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] != leader)
        .unwrap()["client_urls"][0]
        .as_str()
        .unwrap()
        .to_string();
    let peer = format!("https://127.0.0.1:{}", free_port());
    let args = [
        "--endpoints",
        &follower,
        "--cacert",
        &ca,
        "--cert",
        &ccert,
        "--key",
        &ckey,
    ];
    let mut add = args.to_vec();
    add.extend([
        "member",
        "add",
        "t4",
        "--learner",
        "--peer-urls",
        &peer,
        "-w",
        "json",
    ]);
    let r = memberctl(&add);
    assert_eq!(
        r.code,
        0,
        "{}\n{}",
        r.stderr,
        std::fs::read_to_string(dir.path().join("n1.log")).unwrap_or_default()
    );
    let added = r.json();
    // An https add without the new member's files: the peer-tls check
    // warns that its certificate was not checked (not a bare `ok`).
    let c = util::check_named(&added, "peer-tls");
    assert_eq!(c["result"], "warn", "{c}");
    assert!(c["remedy"].as_str().unwrap().contains("--peer-cert"), "{c}");
    let id = added["member"]["id"].as_str().unwrap().to_string();
    with(&["member", "remove", &id]).expect(0);
    // etcdctl's per-endpoint calls send the whole URL as the :authority;
    // repaired under TLS too.
    {
        let ctl = util::require_etcdctl();
        let urls: Vec<String> = clients
            .iter()
            .map(|p| format!("https://127.0.0.1:{p}"))
            .collect();
        let tls_flags = [
            format!("--cacert={ca}"),
            format!("--cert={ccert}"),
            format!("--key={ckey}"),
        ];
        let mut a: Vec<&str> = tls_flags.iter().map(String::as_str).collect();
        a.extend(["endpoint", "status", "-w", "json"]);
        let r = util::etcdctl(&ctl, &urls.join(","), &a);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let leaders: Vec<_> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["Status"]["leader"].as_u64().unwrap())
            .collect();
        assert_eq!(leaders.len(), 3, "{}", r.stdout);
        assert!(
            leaders.iter().all(|l| *l == leaders[0] && *l != 0),
            "{}",
            r.stdout
        );
    }
    // No client certificate: refused.
    assert_eq!(
        memberctl(&["--endpoints", &eps, "--cacert", &ca, "member", "list"]).code,
        5
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        tls_on_the_engine: [Etcdctl],
        tls_against_etcd: each_version [],
    ]
}
