//! `memberctl autopilot --listen-metrics`: its series on `/metrics`, clean
//! for `promtool check metrics`, counting its looks and decisions; `/health`
//! 200 while looks complete, 503 once the cluster is gone; and the alert
//! rules of docs/autopilot.md accepted by `promtool check rules`.

use std::process::Command;
use std::time::Duration;

use crate::util::autopilot::Autopilot;
use crate::util::free_port;
use crate::util::http::try_get;
use crate::util::local::Local;
use crate::util::wait_for;

/// A tool of Debian's `prometheus` package.
fn promtool() -> std::path::PathBuf {
    crate::util::prometheus_tool("promtool").expect("promtool: apt-get install prometheus")
}

/// The value of the series line that starts with `series ` in `page`.
fn value(page: &str, series: &str) -> Option<f64> {
    page.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

fn autopilot_serves_its_metrics_and_health() {
    let local = Local::up(&[]);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let addr = format!("127.0.0.1:{port}");
    let ap = Autopilot::start(
        &local,
        "m1",
        &["--listen-metrics", &addr, "--lease-ttl", "5s"],
    );
    let page = wait_for("three looks on /metrics", Duration::from_secs(30), || {
        let a = try_get(&base, "/metrics").ok()?;
        (value(&a.body, "memberctl_autopilot_looks_total")? >= 3.0).then_some(a.body)
    });
    for series in [
        "memberctl_autopilot_look_failures_total 0",
        "memberctl_autopilot_decisions_total{action=\"none\",reason=\"healthy\"}",
        "memberctl_autopilot_leading 1",
        "memberctl_autopilot_seconds_since_last_look",
        "# TYPE memberctl_autopilot_actions_total counter",
    ] {
        assert!(page.contains(series), "{series} in\n{page}");
    }
    let mut child = Command::new(promtool())
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(try_get(&base, "/health").unwrap().status, 200);
    assert!(
        ap.stderr().contains("autopilot metrics on"),
        "{}",
        ap.stderr()
    );
    // The cluster gone: looks fail, and /health says so within three
    // intervals and two command timeouts.
    local.ctl(&["cluster", "down"]).expect(0);
    wait_for("/health 503", Duration::from_secs(30), || {
        (try_get(&base, "/health").ok()?.status == 503).then_some(())
    });
    let page = try_get(&base, "/metrics").unwrap().body;
    assert!(
        value(&page, "memberctl_autopilot_look_failures_total") >= Some(1.0),
        "{page}"
    );
    ap.stop();
}

/// The alert rules the docs show and the Debian package installs (release.rs checks that
/// docs/autopilot.md's block is this file).
fn alert_rules() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("packaging/prometheus/memberctl-autopilot-rules.yml"),
    )
    .unwrap()
}

fn the_alert_rules_of_the_docs_pass_promtool() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("autopilot-rules.yml");
    std::fs::write(&file, alert_rules()).unwrap();
    let out = Command::new(promtool())
        .args(["check", "rules"])
        .arg(&file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool check rules: {said}");
    assert!(said.contains("SUCCESS: 7 rules found"), "{said}");
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        autopilot_serves_its_metrics_and_health: [Prometheus],
        the_alert_rules_of_the_docs_pass_promtool: [Prometheus],
    ]
}
