//! etcd's health endpoints: `/health` as etcd 3.4 (the version the engine
//! reports) answers it (JSON, 503 on an alarm or without a leader, the
//! reason in the log; `?exclude=ALARM`), `/livez` and `/readyz` (etcd
//! 3.5.x's probes, served beyond 3.4: named checks, `?verbose`,
//! `?exclude=CHECK`, `/readyz/CHECK`), `/version`, and what `/metrics` reads
//! off the node.

use std::sync::Arc;
use std::time::Duration;

use http::{Response, StatusCode};
use tonic::body::Body;

use super::text;
use crate::metrics::{self, Scrape};
use crate::server::maintenance::{alarm_name, VERSION};
use crate::server::Shared;

/// How long a linearizable read may take before a check fails (etcd's
/// health checks wait as long as a request).
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// The parts of a query the health endpoints read.
#[derive(Default)]
struct Query {
    serializable: bool,
    verbose: bool,
    exclude: Vec<String>,
}

impl Query {
    fn parse(query: &str) -> Query {
        let mut q = Query::default();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "serializable" => q.serializable = v == "true",
                "verbose" => q.verbose = true,
                "exclude" => q.exclude.push(v.into_owned()),
                _ => {}
            }
        }
        q
    }
}

/// `/health` as etcd 3.4 answers it: `{"health":"true"}`, or 503 with
/// `{"health":"false"}` and the reason in the log (3.4 has no `reason`
/// field, and reads no `?serializable`).
pub async fn health(s: &Arc<Shared>, query: &str) -> Response<Body> {
    let q = Query {
        serializable: false,
        ..Query::parse(query)
    };
    let outcome = check_health(s, &q).await;
    let m = metrics::get();
    let (status, healthy) = match outcome {
        Ok(()) => {
            m.health_success.inc();
            (StatusCode::OK, "true")
        }
        Err(reason) => {
            m.health_failures.inc();
            slog::warn!(crate::log::logger(), "/health error"; "reason" => reason,
                "status-code" => 503);
            (StatusCode::SERVICE_UNAVAILABLE, "false")
        }
    };
    let mut body = serde_json::json!({ "health": healthy }).to_string();
    if status != StatusCode::OK {
        // etcd writes its refusals as Go's http.Error does: with a newline.
        body.push('\n');
    }
    text(status, "text/plain; charset=utf-8", body)
}

/// etcd's order: alarms not excluded, a leader (unless serializable), a read.
async fn check_health(s: &Arc<Shared>, q: &Query) -> Result<(), String> {
    for (_, alarm) in s.node.store().state().alarms() {
        let name = alarm_name(alarm);
        if !q.exclude.iter().any(|e| e == name) {
            return Err(format!("ALARM {name}"));
        }
    }
    if !q.serializable {
        if s.node.view().leader_id == 0 {
            return Err("RAFT NO LEADER".into());
        }
        linearizable_read(s)
            .await
            .map_err(|e| format!("RANGE ERROR:{e}"))?;
    }
    Ok(())
}

/// Waits for a read the leader confirms, at most [`READ_TIMEOUT`].
async fn linearizable_read(s: &Arc<Shared>) -> Result<(), String> {
    match tokio::time::timeout(READ_TIMEOUT, s.node.read_index()).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("etcdserver: request timed out".into()),
    }
}

/// The checks of `/livez` and `/readyz`, in etcd's order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    SerializableRead,
    LinearizableRead,
    NonLearner,
    DataCorruption,
}

impl Check {
    fn name(self) -> &'static str {
        match self {
            Check::SerializableRead => "serializable_read",
            Check::LinearizableRead => "linearizable_read",
            Check::NonLearner => "non_learner",
            Check::DataCorruption => "data_corruption",
        }
    }

    async fn passes(self, s: &Arc<Shared>) -> bool {
        match self {
            // Served from the local store while the node runs.
            Check::SerializableRead => !*s.stopping.borrow(),
            Check::LinearizableRead => linearizable_read(s).await.is_ok(),
            Check::NonLearner => !s.node.view().is_learner(),
            Check::DataCorruption => !s
                .node
                .store()
                .state()
                .alarms()
                .iter()
                .any(|(_, a)| alarm_name(*a) == "CORRUPT"),
        }
    }
}

const LIVEZ: &[Check] = &[Check::SerializableRead];
const READYZ: &[Check] = &[
    Check::SerializableRead,
    Check::LinearizableRead,
    Check::NonLearner,
    Check::DataCorruption,
];

/// `/livez` (or one of its checks: `/livez/NAME`).
pub async fn livez(s: &Arc<Shared>, only: Option<&str>, query: &str) -> Response<Body> {
    probe(s, "livez", LIVEZ, only, query).await
}

/// `/readyz` (or one of its checks: `/readyz/NAME`).
pub async fn readyz(s: &Arc<Shared>, only: Option<&str>, query: &str) -> Response<Body> {
    probe(s, "readyz", READYZ, only, query).await
}

/// Runs `checks` (all, or the one named `only`), answering as etcd's
/// Kubernetes-style probes: `ok`, or 503 with a line per check.
async fn probe(
    s: &Arc<Shared>,
    what: &str,
    checks: &[Check],
    only: Option<&str>,
    query: &str,
) -> Response<Body> {
    let q = Query::parse(query);
    let plain = "text/plain; charset=utf-8";
    let chosen: Vec<Check> = match only {
        Some(name) => match checks.iter().find(|c| c.name() == name) {
            Some(c) => vec![*c],
            None => return super::not_found(),
        },
        None => checks
            .iter()
            .filter(|c| !q.exclude.iter().any(|e| e == c.name()))
            .copied()
            .collect(),
    };
    let mut lines = String::new();
    let mut failed = false;
    for c in chosen {
        if c.passes(s).await {
            lines.push_str(&format!("[+]{} ok\n", c.name()));
        } else {
            failed = true;
            lines.push_str(&format!("[-]{} failed: reason withheld\n", c.name()));
        }
    }
    if failed {
        lines.push_str(&format!("{what} check failed\n"));
        return text(StatusCode::SERVICE_UNAVAILABLE, plain, lines);
    }
    if !q.verbose {
        lines.clear();
    }
    lines.push_str("ok\n");
    text(StatusCode::OK, plain, lines)
}

/// `/version`: `{"etcdserver":…,"etcdcluster":…}`.
pub fn version_json() -> String {
    // etcd's key order (serde_json's map would sort them).
    format!(
        r#"{{"etcdserver":"{VERSION}","etcdcluster":"{}"}}"#,
        cluster_version()
    )
}

/// The cluster version reported (etcd reports major.minor.0).
fn cluster_version() -> String {
    let mut parts = VERSION.split('.');
    format!(
        "{}.{}.0",
        parts.next().unwrap_or("3"),
        parts.next().unwrap_or("4")
    )
}

/// What the gauges of `/metrics` show now.
pub fn scrape(s: &Arc<Shared>) -> Scrape {
    let v = s.node.view();
    let store = s.node.store();
    let size = |n: i64| u64::try_from(n).unwrap_or(0);
    Scrape {
        id: v.id,
        has_leader: v.leader_id != 0,
        is_leader: v.is_leader(),
        is_learner: v.is_learner(),
        committed: v.commit,
        applied: v.applied,
        db_size: size(store.db_size()),
        db_size_in_use: size(store.db_size_in_use()),
        keys: store.key_count(),
        quota_bytes: if s.limits.quota_bytes == 0 {
            crate::server::DEFAULT_QUOTA_BYTES
        } else {
            s.limits.quota_bytes
        },
        server_version: VERSION.into(),
        cluster_version: cluster_version()
            .rsplit_once('.')
            .map_or_else(String::new, |(mm, _)| mm.to_string()),
    }
}
