//! Integration tests that need no cluster: help, usage errors, unreachable endpoints, environment variables, bad TLS files.

use crate::util::{self, free_port, memberctl};

fn help_documents_exit_codes() {
    let r = memberctl(&["--help"]).expect(0);
    assert!(r.stdout.contains("Exit codes"), "{}", r.stdout);
    assert!(r.stdout.contains("member"), "{}", r.stdout);
}

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
fn deliberate_bugs_need_fault_injection() {
    for bug in ["--fault-stale-reads", "--fault-ack-before-fsync"] {
        let r = memberctl(&["cluster", "up", "--dir", "/nonexistent/never", bug]).expect(2);
        assert!(r.stderr.contains("--fault-injection"), "{}", r.stderr);
        let r = memberctl(&["node", "run", "--name", "n1", bug]).expect(2);
        assert!(r.stderr.contains("--fault-injection"), "{}", r.stderr);
    }
}

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

/// An endpoint that accepts connections and never answers (a hung member:
/// the kernel completes the handshake): a read says it got no answer
/// within --command-timeout, once, and gives no change's advice; it asks
/// the member's own view at the same time as the linearizable list, so it
/// does not wait a second timeout (how long it took is printed, not
/// asserted: a busy machine only makes it longer).
fn a_hung_endpoint_fails_a_read_once_without_a_changes_advice() {
    let hung = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let ep = hung.local_addr().unwrap().to_string();
    let started = std::time::Instant::now();
    let r = memberctl(&[
        "--endpoints",
        &ep,
        "--command-timeout",
        "1s",
        "member",
        "list",
    ])
    .expect(5);
    eprintln!(
        "member list against a hung endpoint: {:?}",
        started.elapsed()
    );
    assert!(
        r.stderr.contains("no answer within --command-timeout 1s"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stderr.matches("--command-timeout").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("may still have been applied"),
        "{}",
        r.stderr
    );
    drop(hung);
}

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
    // The new member's peer TLS files are read before anything is asked.
    for cmd in [
        &["member", "add", "n4", "--learner"][..],
        &["member", "replace", "n1", "--name", "n4"][..],
    ] {
        let mut args = vec!["--endpoints", "127.0.0.1:1"];
        args.extend_from_slice(cmd);
        args.extend([
            "--peer-urls",
            "https://127.0.0.1:2390",
            "--peer-cert",
            "peer.pem",
            "--peer-key",
            "peer-key.pem",
        ]);
        let r = memberctl(&args).expect(2);
        assert!(
            r.stderr.contains("cannot read --peer-cert peer.pem"),
            "{}",
            r.stderr
        );
    }
    // --peer-cert needs --peer-key.
    memberctl(&["member", "check", "--for", "add", "--peer-cert", "peer.pem"]).expect(2);
}

/// The subcommands a `--help` page lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.split("\nCommands:\n")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .take_while(|l| !l.trim().is_empty())
                // A name is indented by two; a wrapped description by more.
                .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                .filter_map(|l| l.split_whitespace().next())
                .filter(|c| *c != "help")
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Every command's help lists its own arguments and options first and the
/// global ones after them, under `Global options:` (one walk of the tree);
/// `member add` shows `--peer-urls` and `--learner` before `--endpoints`.
fn help_lists_each_commands_own_options_before_the_global_ones() {
    let mut paths: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = paths.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = memberctl(&args).expect(0).stdout;
        let (own, global) = help
            .split_once("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{path:?}: no `Global options:` heading:\n{help}"));
        assert!(global.contains("--endpoints"), "{path:?}:\n{help}");
        for flag in ["--endpoints", "--dial-timeout", "--write-out", "--user"] {
            assert!(
                !own.contains(flag),
                "{path:?}: {flag} among its own:\n{help}"
            );
        }
        for sub in subcommands(&help) {
            paths.push([path.clone(), vec![sub]].concat());
        }
        seen += 1;
    }
    assert!(seen >= 29, "walked only {seen} commands");
    let help = memberctl(&["member", "add", "--help"]).expect(0).stdout;
    let at = |flag: &str| help.find(flag).unwrap_or_else(|| panic!("{flag}:\n{help}"));
    assert!(at("--peer-urls") < at("--endpoints"), "{help}");
    assert!(at("--learner") < at("--endpoints"), "{help}");
}

/// The simple output's columns are named in the help of the commands that
/// print bare comma-separated rows.
fn help_names_the_simple_outputs_columns() {
    let help = memberctl(&["member", "list", "--help"]).expect(0).stdout;
    assert!(
        help.contains("ID, STATUS (started|unstarted), NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER"),
        "{help}"
    );
    for cmd in ["up", "start-node", "status", "down"] {
        let help = memberctl(&["cluster", cmd, "--help"]).expect(0).stdout;
        assert!(
            help.contains("IS LEADER, PID, LOG"),
            "cluster {cmd}:\n{help}"
        );
    }
}

/// The harness reports a case whose tool is missing as ignored, with the
/// reason, and counts it; with MEMBERCTL_REQUIRE_ETCD=1 the same case fails.
/// (The integration binary runs itself, with a PATH that holds no etcd.)
fn a_case_whose_tool_is_missing_is_ignored_not_passed() {
    let empty = tempfile::tempdir().unwrap();
    let case = "cases::etcd::learner_flow_against_etcd::v3_4";
    let this = std::env::current_exe().unwrap();
    let run = |require: &str| {
        util::run(
            std::process::Command::new(&this)
                .args(["--exact", case, "--test-threads", "1"])
                .env("PATH", empty.path())
                .env_remove("ETCD_BIN")
                .env("MEMBERCTL_REQUIRE_ETCD", require),
        )
    };
    let r = run("0");
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("{case} ... ignored"))
            && r.stdout
                .contains("etcd is not installed: apt-get install etcd-server"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("0 passed; 0 failed; 1 ignored"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("not run here: 1 case(s)"), "{}", r.stderr);

    let r = run("1");
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("0 passed; 1 failed; 0 ignored"),
        "{}",
        r.stdout
    );
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains("etcd is not installed"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        help_documents_exit_codes,
        help_lists_each_commands_own_options_before_the_global_ones,
        help_names_the_simple_outputs_columns,
        a_case_whose_tool_is_missing_is_ignored_not_passed,
        usage_errors_exit_2_and_json_reports_them,
        deliberate_bugs_need_fault_injection,
        unreachable_cluster_exits_5_with_a_json_error,
        etcdctl_endpoints_variable_is_honoured,
        malformed_endpoint_and_unreadable_tls_files_are_usage_errors,
        a_hung_endpoint_fails_a_read_once_without_a_changes_advice,
    ]
}
