//! The engine's HTTP face on the client port, judged by real etcd and real
//! consumers: `/health` answered as etcd 3.4's (the version the engine
//! reports), `/livez` and `/readyz` as etcd 3.5's (healthy, without a
//! leader, with an alarm), `/version`, 404s; `/metrics` with etcd's series
//! and types (and `promtool check metrics`), also on `--listen-metrics-urls`;
//! Prometheus scraping a local cluster, etcd's no-leader alert firing when a
//! majority stops and clearing when it is back.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use memberctl::proto::etcdserverpb::alarm_request::AlarmAction;
use memberctl::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use memberctl::proto::etcdserverpb::{AlarmRequest, AlarmType};
use serde_json::Value;

use crate::util::http::{get, try_get, Answer};
use crate::util::local::{self, Local};
use crate::util::{free_port, versions, wait_for, Etcd};

/// The series etcd's alert rules and dashboards read, with their types.
const SERIES: &[(&str, &str)] = &[
    ("etcd_server_has_leader", "gauge"),
    ("etcd_server_is_leader", "gauge"),
    ("etcd_server_is_learner", "gauge"),
    ("etcd_server_leader_changes_seen_total", "counter"),
    ("etcd_server_proposals_committed_total", "gauge"),
    ("etcd_server_proposals_applied_total", "gauge"),
    ("etcd_server_proposals_pending", "gauge"),
    ("etcd_server_proposals_failed_total", "counter"),
    ("etcd_disk_wal_fsync_duration_seconds", "histogram"),
    ("etcd_disk_backend_commit_duration_seconds", "histogram"),
    ("etcd_network_peer_round_trip_time_seconds", "histogram"),
    ("etcd_network_peer_sent_failures_total", "counter"),
    ("etcd_network_peer_sent_bytes_total", "counter"),
    ("etcd_network_peer_received_bytes_total", "counter"),
    ("etcd_network_active_peers", "gauge"),
    ("etcd_server_snapshot_apply_in_progress_total", "gauge"),
    ("etcd_server_heartbeat_send_failures_total", "counter"),
    ("etcd_server_slow_apply_total", "counter"),
    ("etcd_mvcc_db_total_size_in_bytes", "gauge"),
    ("etcd_mvcc_db_total_size_in_use_in_bytes", "gauge"),
    ("etcd_mvcc_put_total", "counter"),
    ("etcd_mvcc_delete_total", "counter"),
    ("etcd_debugging_mvcc_keys_total", "gauge"),
    ("etcd_server_quota_backend_bytes", "gauge"),
    ("grpc_server_started_total", "counter"),
    ("grpc_server_handled_total", "counter"),
    ("grpc_server_handling_seconds", "histogram"),
    ("process_resident_memory_bytes", "gauge"),
    ("process_start_time_seconds", "gauge"),
    ("process_open_fds", "gauge"),
];

/// `# TYPE` of every metric in a Prometheus text page.
fn types(page: &str) -> BTreeMap<String, String> {
    page.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect()
}

/// The value of the sample written exactly as `series` (name and labels).
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Raises (or clears) a NOSPACE alarm for member `member` through `endpoint`.
fn alarm(endpoint: &str, member: u64, raise: bool) {
    let action = if raise {
        AlarmAction::Activate
    } else {
        AlarmAction::Deactivate
    };
    local::runtime().block_on(async {
        let mut c = MaintenanceClient::new(local::channel(endpoint).await.unwrap());
        c.alarm(AlarmRequest {
            action: action as i32,
            member_id: member,
            alarm: AlarmType::Nospace as i32,
        })
        .await
        .expect("alarm request");
    });
}

/// The member ID that answers at `endpoint`.
fn member_id(endpoint: &str) -> u64 {
    crate::util::faults::node_status(endpoint)
        .unwrap()
        .member_id
}

/// What the health endpoints of `base` answer, as (path, status, body);
/// `/readyz?verbose`'s check lines sorted (etcd prints them in map order).
fn health_answers(base: &str, paths: &[&str]) -> Vec<(String, u16, String)> {
    paths
        .iter()
        .map(|p| {
            let a = get(base, p);
            let body = if p.contains("verbose") {
                let mut lines: Vec<&str> = a.body.lines().collect();
                lines.sort_unstable();
                lines.join("\n")
            } else {
                a.body.clone()
            };
            (p.to_string(), a.status, body)
        })
        .collect()
}

/// etcd 3.4's health check (3.4 reads no `?serializable`).
const HEALTH_PATHS: &[&str] = &["/health", "/health?serializable=true", "/nope"];

/// etcd 3.5's probes, which the engine serves beyond 3.4.
const HEALTHY_PATHS: &[&str] = &[
    "/livez",
    "/livez?verbose",
    "/readyz",
    "/readyz?verbose",
    "/readyz/non_learner",
    "/nope",
];

fn the_client_port_answers_health_checks_as_etcd_does() {
    let local = Local::up(&[]);
    let etcd = Etcd::start(versions::etcd_server("3.5"), 3);
    let etcd34 = Etcd::start(versions::etcd_server("3.4"), 1);
    let ours = local.client_url("n1");
    let theirs = format!("http://{}", etcd.endpoints().split(',').next().unwrap());
    let theirs34 = format!("http://{}", etcd34.endpoints());

    // Healthy: the same codes and bodies.
    assert_eq!(
        health_answers(&ours, HEALTHY_PATHS),
        health_answers(&theirs, HEALTHY_PATHS)
    );
    assert_eq!(
        health_answers(&ours, HEALTH_PATHS),
        health_answers(&theirs34, HEALTH_PATHS)
    );
    let h = get(&ours, "/health");
    assert_eq!(h.json(), serde_json::json!({"health": "true"}));
    assert_eq!(get(&ours, "/nope").body, "404 page not found\n");

    // /version: etcd 3.5's keys, this engine's API level.
    let v = get(&ours, "/version").json();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&v), keys(&get(&theirs, "/version").json()));
    assert_eq!(v["etcdserver"], "3.4.0");

    // A NOSPACE alarm: unhealthy unless excluded, as etcd (/health as
    // 3.4's, the probes as 3.5's).
    let alarmed = [
        "/health",
        "/health?exclude=NOSPACE",
        "/health?serializable=true",
    ];
    let probes = ["/readyz", "/livez"];
    let ours_ep = ours.trim_start_matches("http://").to_string();
    let theirs_ep = theirs.trim_start_matches("http://").to_string();
    let theirs34_ep = theirs34.trim_start_matches("http://").to_string();
    for ep in [&ours_ep, &theirs_ep, &theirs34_ep] {
        alarm(ep, member_id(ep), true);
    }
    let got = health_answers(&ours, &alarmed);
    assert_eq!(got, health_answers(&theirs34, &alarmed));
    assert_eq!(
        health_answers(&ours, &probes),
        health_answers(&theirs, &probes)
    );
    assert_eq!(got[0].1, 503);
    assert_eq!(
        serde_json::from_str::<Value>(&got[0].2).unwrap(),
        serde_json::json!({"health": "false"})
    );
    for ep in [&ours_ep, &theirs_ep, &theirs34_ep] {
        alarm(ep, member_id(ep), false);
    }
    assert_eq!(get(&ours, "/health").status, 200);

    // gRPC still served on the same port.
    local.ctl(&["member", "list", "-w", "json"]).expect(0);
}

fn without_a_leader_health_fails_as_etcds_does() {
    let local = Local::up(&[]);
    let mut etcd = Etcd::start(versions::etcd_server("3.5"), 3);
    let mut etcd34 = Etcd::start(versions::etcd_server("3.4"), 3);
    let ours = local.client_url("n1");
    let theirs = format!("http://{}", etcd.endpoints().split(',').next().unwrap());
    let theirs34 = format!("http://{}", etcd34.endpoints().split(',').next().unwrap());
    for (name, pid) in local.pids() {
        if name != "n1" {
            local.kill9(pid);
        }
    }
    for e in [&mut etcd, &mut etcd34] {
        e.stop(1);
        e.stop(2);
    }
    // Each says so once the survivor's election timer has run out (a
    // linearizable read fails before that); /health as etcd 3.4's (the
    // reason in the log only, `?serializable` not read), the probes as
    // 3.5's (/readyz's linearizable read fails, /livez's serializable one
    // passes).
    let unhealthy = |base: &str, path: &str| {
        wait_for(
            "the survivor to lose its leader",
            Duration::from_secs(20),
            || {
                let h = get(base, path);
                (h.status == 503).then_some(h.body)
            },
        )
    };
    assert_eq!(unhealthy(&ours, "/health"), unhealthy(&theirs34, "/health"));
    assert_eq!(unhealthy(&ours, "/health"), "{\"health\":\"false\"}\n");
    unhealthy(&theirs, "/readyz");
    let paths = ["/health?serializable=true", "/livez", "/readyz"];
    let codes = |base: &str| -> Vec<u16> { paths.iter().map(|p| get(base, p).status).collect() };
    assert_eq!(codes(&ours)[0], codes(&theirs34)[0]);
    assert_eq!(codes(&ours)[1..], codes(&theirs)[1..]);
    assert_eq!(codes(&ours), vec![503, 200, 503]);
    assert!(get(&ours, "/readyz?verbose")
        .body
        .contains("[-]linearizable_read failed"));
}

/// What `promtool check metrics` finds in a metrics page, a line per
/// problem.
fn promtool_problems(page: &str) -> std::collections::BTreeSet<String> {
    let promtool = require("promtool");
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Exit 0 (clean) or 3 (lint problems); anything else: the page did not parse.
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "promtool check metrics: {said}"
    );
    said.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// A Prometheus tool from Debian's `prometheus` package, for a case that
/// declares `Need::Prometheus`.
fn require(tool: &str) -> std::path::PathBuf {
    crate::util::prometheus_tool(tool).unwrap_or_else(|| {
        panic!("{tool} is not installed: apt-get install prometheus; a case that runs it lists Prometheus among its needs")
    })
}

fn metrics_name_etcds_series_also_on_a_metrics_url() {
    let local = Local::up(&[]);
    let n1 = local.client_url("n1");
    crate::util::local::put(n1.trim_start_matches("http://"), "k", "v").unwrap();
    let page = get(&n1, "/metrics");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    let page = page.body;
    let kinds = types(&page);
    for (name, kind) in SERIES {
        assert_eq!(kinds.get(*name).map(String::as_str), Some(*kind), "{name}");
    }
    let put_ok = "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Put\",grpc_service=\"etcdserverpb.KV\",grpc_type=\"unary\"}";
    assert!(sample(&page, put_ok).unwrap() >= 1.0, "{put_ok}");
    assert!(sample(&page, "etcd_disk_wal_fsync_duration_seconds_count").unwrap() >= 1.0);
    assert_eq!(sample(&page, "etcd_server_has_leader"), Some(1.0));
    assert_eq!(
        sample(&page, "etcd_server_quota_backend_bytes"),
        Some(2147483648.0)
    );
    // promtool's lints of etcd's own names (counters without `_total`,
    // gauges with it) are etcd's too: nothing beyond what etcd 3.5's page gets.
    {
        let ours = promtool_problems(&page);
        let etcd_bin = versions::etcd_server("3.5");
        let etcd = Etcd::start(etcd_bin, 1);
        let theirs_base = format!("http://{}", etcd.endpoints());
        let theirs = promtool_problems(&get(&theirs_base, "/metrics").body);
        let extra: Vec<_> = ours.difference(&theirs).collect();
        assert!(
            extra.is_empty(),
            "promtool finds more than in etcd's: {extra:?}"
        );
    }
    // One leader among the three.
    let leaders: f64 = ["n1", "n2", "n3"]
        .iter()
        .map(|n| {
            sample(
                &get(&local.client_url(n), "/metrics").body,
                "etcd_server_is_leader",
            )
            .unwrap()
        })
        .sum();
    assert_eq!(leaders, 1.0);

    // A follower again by hand with a metrics URL: metrics and health there,
    // no gRPC. (A leader killed and restarted at once may win the election.)
    let follower = ["n1", "n2", "n3"]
        .into_iter()
        .find(|n| {
            let page = get(&local.client_url(n), "/metrics").body;
            sample(&page, "etcd_server_is_leader") == Some(0.0)
        })
        .expect("a follower");
    let (_, pid) = local
        .pids()
        .into_iter()
        .find(|(n, _)| n == follower)
        .unwrap();
    local.kill9(pid);
    let metrics_url = format!("http://127.0.0.1:{}", free_port());
    let mut n3 = Killed(
        local
            .node_run(follower, &["--listen-metrics-urls", &metrics_url])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let page = wait_for(
        "the follower's metrics URL",
        Duration::from_secs(20),
        || {
            let a = try_get(&metrics_url, "/metrics").ok()?;
            (sample(&a.body, "etcd_server_has_leader") == Some(1.0)).then_some(a.body)
        },
    );
    assert_eq!(sample(&page, "etcd_server_is_leader"), Some(0.0));
    assert_eq!(get(&metrics_url, "/health").status, 200);
    assert_eq!(get(&metrics_url, "/version").status, 404);
    n3.stop();
}

/// etcd's key counters — puts (also within a transaction), delete
/// operations (a range deleting two keys counts one, one deleting nothing
/// one, a revoked lease one per key: measured on 3.4.23), live keys — after
/// the same writes through the JSON gateway on a member of the engine and
/// on etcd 3.4.
fn key_counters_count_as_etcd_3_4s() {
    let local = Local::up(&["--nodes", "1"]);
    let etcd = Etcd::start(versions::etcd_server("3.4"), 1);
    let ours = local.client_url("n1");
    let theirs = format!("http://{}", etcd.endpoints());
    let writes = [
        ("/v3/kv/put", r#"{"key":"azE=","value":"dg=="}"#),
        ("/v3/kv/put", r#"{"key":"azE=","value":"dw=="}"#),
        ("/v3/kv/put", r#"{"key":"azI=","value":"dg=="}"#),
        ("/v3/kv/put", r#"{"key":"azM=","value":"dg=="}"#),
        (
            "/v3/kv/txn",
            r#"{"success":[{"request_put":{"key":"azQ=","value":"dg=="}}]}"#,
        ),
        ("/v3/kv/deleterange", r#"{"key":"azI=","range_end":"azQ="}"#),
        ("/v3/kv/deleterange", r#"{"key":"bm9uZQ=="}"#),
        (
            "/v3/kv/txn",
            r#"{"success":[{"request_delete_range":{"key":"azQ="}},{"request_put":{"key":"azU=","value":"dg=="}}]}"#,
        ),
    ];
    let series = [
        "etcd_mvcc_put_total",
        "etcd_mvcc_delete_total",
        "etcd_debugging_mvcc_keys_total",
    ];
    let counts = |base: &str| -> Vec<Option<f64>> {
        for (path, body) in writes {
            let a = crate::util::http::post(base, path, &[], body);
            assert_eq!(a.status, 200, "{base}{path}: {}", a.body);
        }
        let page = get(base, "/metrics").body;
        series.iter().map(|s| sample(&page, s)).collect()
    };
    let theirs = counts(&theirs);
    assert_eq!(theirs, [Some(6.0), Some(3.0), Some(2.0)], "etcd 3.4's");
    assert_eq!(counts(&ours), theirs);
}

/// A child process killed when dropped.
struct Killed(Child);

impl Killed {
    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        self.stop();
    }
}

/// etcd's `etcdNoLeader` alert from its mixin (contrib/mixin), with `for`
/// shortened from 1m so that the test takes seconds.
const RULES: &str = r#"groups:
- name: etcd
  rules:
  - alert: etcdNoLeader
    expr: etcd_server_has_leader{job=~".*etcd.*"} == 0
    for: 2s
    labels:
      severity: critical
    annotations:
      description: 'etcd cluster "{{ $labels.job }}": member {{ $labels.instance }} has no leader.'
"#;

/// Prometheus' answer to an API query.
fn prometheus_api(base: &str, path: &str) -> Value {
    let a: Answer = get(base, path);
    assert_eq!(a.status, 200, "{path}: {}", a.body);
    a.json()
}

/// The state of alert `name` (None when it is neither pending nor firing).
fn alert_state(base: &str, name: &str) -> Option<String> {
    prometheus_api(base, "/api/v1/alerts")["data"]["alerts"]
        .as_array()?
        .iter()
        .find(|a| a["labels"]["alertname"] == name)
        .and_then(|a| a["state"].as_str().map(str::to_string))
}

fn prometheus_scrapes_a_local_cluster_and_the_no_leader_alert_fires_and_clears() {
    let prometheus = require("prometheus");
    let local = Local::up(&[]);
    let dir = tempfile::tempdir().unwrap();
    let targets: Vec<String> = local.endpoints().iter().map(|e| format!("'{e}'")).collect();
    std::fs::write(dir.path().join("rules.yml"), RULES).unwrap();
    let config = format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ['{}']\nscrape_configs:\n- job_name: etcd\n  static_configs:\n  - targets: [{}]\n",
        dir.path().join("rules.yml").display(),
        targets.join(", ")
    );
    std::fs::write(dir.path().join("prometheus.yml"), config).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _prom = Killed(
        Command::new(prometheus)
            .arg(format!(
                "--config.file={}",
                dir.path().join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("prometheus.log")).unwrap())
            .spawn()
            .expect("start prometheus"),
    );
    // Every target up, every series there.
    wait_for(
        "prometheus to scrape three members",
        Duration::from_secs(60),
        || {
            let up = try_get(&base, "/api/v1/query?query=sum(up)").ok()?;
            (up.status == 200 && up.json()["data"]["result"][0]["value"][1] == "3").then_some(())
        },
    );
    for (name, kind) in SERIES {
        let metric = if *kind == "histogram" {
            format!("{name}_count")
        } else {
            name.to_string()
        };
        let r = prometheus_api(&base, &format!("/api/v1/query?query=count({metric})"));
        assert!(
            !r["data"]["result"].as_array().unwrap().is_empty(),
            "prometheus has no {metric}"
        );
    }
    assert_eq!(alert_state(&base, "etcdNoLeader"), None);

    // A majority down: the survivor has no leader, the alert fires.
    for (name, pid) in local.pids() {
        if name != "n1" {
            local.kill9(pid);
        }
    }
    wait_for("etcdNoLeader to fire", Duration::from_secs(60), || {
        (alert_state(&base, "etcdNoLeader").as_deref() == Some("firing")).then_some(())
    });
    // Back: the alert clears.
    crate::util::faults::restart(&local);
    wait_for("etcdNoLeader to clear", Duration::from_secs(60), || {
        alert_state(&base, "etcdNoLeader").is_none().then_some(())
    });
}

/// `/metrics` gzipped when the scraper takes gzip (Prometheus asks so, and
/// memberctl's catch-up polls do), as etcd's promhttp answers it, and plain
/// otherwise: the same headers and the same page unpacked.
fn metrics_are_gzipped_when_asked_as_etcd_gzips_them() {
    let etcd = Etcd::start(crate::util::require_etcd(), 1);
    let local = Local::up(&["--nodes", "1"]);
    for base in [etcd.members[0].client_url(), local.client_url("n1")] {
        let (status, headers, body) =
            crate::util::http::get_bytes(&base, "/metrics", &[("Accept-Encoding", "gzip")]);
        assert_eq!(status, 200, "{base}");
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            header("content-encoding").as_deref(),
            Some("gzip"),
            "{base}: {headers:?}"
        );
        let mut page = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut page)
            .unwrap_or_else(|e| panic!("{base}: the gzipped page does not unpack: {e}"));
        assert_eq!(sample(&page, "etcd_server_has_leader"), Some(1.0), "{base}");
        assert!(
            body.len() * 4 < page.len(),
            "{base}: {} of {}",
            body.len(),
            page.len()
        );
        let plain = get(&base, "/metrics");
        assert_eq!(plain.header("content-encoding"), None, "{base}");
        assert_eq!(
            sample(&plain.body, "etcd_server_has_leader"),
            Some(1.0),
            "{base}"
        );
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        the_client_port_answers_health_checks_as_etcd_does: [Etcd, EtcdServer("3.5")],
        without_a_leader_health_fails_as_etcds_does: [Etcd, EtcdServer("3.5")],
        metrics_name_etcds_series_also_on_a_metrics_url: [EtcdServer("3.5"), Prometheus],
        key_counters_count_as_etcd_3_4s: [Etcd],
        metrics_are_gzipped_when_asked_as_etcd_gzips_them: [Etcd],
        prometheus_scrapes_a_local_cluster_and_the_no_leader_alert_fires_and_clears: [Prometheus],
    ]
}
