//! Integration tests that need no cluster: help, usage errors, unreachable endpoints, environment variables, bad TLS files.

use crate::util::{self, free_port, memberctl};

#[test]
fn help_documents_exit_codes() {
    let r = memberctl(&["--help"]).expect(0);
    assert!(r.stdout.contains("Exit codes"), "{}", r.stdout);
    assert!(r.stdout.contains("member"), "{}", r.stdout);
}

#[test]
fn usage_errors_exit_2_and_json_reports_them() {
    memberctl(&["member", "promote"]).expect(2);
    memberctl(&["member", "add", "m4"]).expect(2);
    let r = memberctl(&["-w", "json", "member", "remove"]).expect(2);
    assert_eq!(r.json()["error"]["kind"], "usage");
    let r = memberctl(&["member", "list", "--command-timeout", "soon"]).expect(2);
    assert!(r.stderr.contains("duration"), "{}", r.stderr);
}

/// The deliberate bugs of the robustness tests exist only on test clusters:
/// without `--fault-injection` they are refused before anything starts.
#[test]
fn deliberate_bugs_need_fault_injection() {
    for bug in ["--fault-stale-reads", "--fault-ack-before-fsync"] {
        let r = memberctl(&["cluster", "up", "--dir", "/nonexistent/never", bug]).expect(2);
        assert!(r.stderr.contains("--fault-injection"), "{}", r.stderr);
        let r = memberctl(&["node", "run", "--name", "n1", bug]).expect(2);
        assert!(r.stderr.contains("--fault-injection"), "{}", r.stderr);
    }
}

#[test]
fn unreachable_cluster_exits_5_with_a_json_error() {
    let port = free_port().to_string();
    let ep = format!("127.0.0.1:{port}");
    let r = memberctl(&["--endpoints", &ep, "member", "list", "-w", "json"]).expect(5);
    let v = r.json();
    assert_eq!(v["error"]["kind"], "unavailable");
    assert!(
        v["error"]["message"].as_str().unwrap().contains(&port),
        "{v}"
    );
    assert!(r.stderr.starts_with("memberctl: "), "{}", r.stderr);
}

#[test]
fn etcdctl_endpoints_variable_is_honoured() {
    let port = free_port().to_string();
    let out = util::run(
        std::process::Command::new(util::bin())
            .args(["member", "list"])
            .env_remove("MEMBERCTL_ENDPOINTS")
            .env("ETCDCTL_ENDPOINTS", format!("http://127.0.0.1:{port}")),
    );
    assert_eq!(out.code, 5);
    assert!(out.stderr.contains(&port), "{}", out.stderr);
}

#[test]
fn malformed_endpoint_and_unreadable_tls_files_are_usage_errors() {
    memberctl(&["--endpoints", "ftp://127.0.0.1:1", "member", "list"]).expect(2);
    let r = memberctl(&[
        "--endpoints",
        "127.0.0.1:1",
        "--cacert",
        "ca.pem",
        "member",
        "list",
    ])
    .expect(2);
    assert!(
        r.stderr.contains("cannot read --cacert ca.pem"),
        "{}",
        r.stderr
    );
}
