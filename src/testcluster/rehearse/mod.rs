//! `memberctl cluster rehearse`: a membership change rehearsed on the local
//! cluster under a steady writer, and what it did drawn into a report. The
//! run: judge the change (it must be `memberctl member …`), find the local
//! cluster, ask the catch-up check for its prediction, start the writer and
//! the sampler, let them run a while, run the change as a child process,
//! wait for it and for the cluster to settle, let them run a while more,
//! stop, and write `report.json` ([`model`]) and `report.html` ([`html`]).
//!
//! model.rs is pure (figures from samples, unit-tested); sample.rs and
//! child.rs do the I/O; html.rs draws.

pub mod child;
pub mod html;
pub mod model;
pub mod sample;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use super::state::ClusterState;
use crate::error::{Error, ErrorKind};
use crate::workflow::cost;
use crate::workflow::preflight::{
    self, Bandwidth, BandwidthSource, CatchUpInputs, CheckName, CheckOptions, Figure, Planned,
};
use model::{ChangeResult, Cost, Inputs, Prediction, Samples, Settings, Step, Summary, Timeline};

/// What `cluster rehearse` was asked.
#[derive(Clone, Debug)]
pub struct RehearseOptions {
    /// The change: the command after `--`.
    pub command: Vec<String>,
    /// Puts per second of the writer.
    pub writer_rate: f64,
    /// Bytes of each put's value.
    pub value_size: usize,
    /// Where report.json and report.html go.
    pub report_dir: PathBuf,
    /// How long the writer runs before the change.
    pub before: Duration,
    /// How long it runs after the cluster settled.
    pub after: Duration,
    /// The longest wait for the cluster to settle after the change.
    pub settle_timeout: Duration,
    /// The longest the change may run; it is stopped then.
    pub timeout: Duration,
}

/// What a rehearsal found, for the printer (report.json holds it all).
#[derive(Clone, Debug, PartialEq)]
pub struct Rehearsal {
    /// Where the report was written.
    pub report_dir: PathBuf,
    /// How the change ended.
    pub change: ChangeResult,
    /// Its steps.
    pub steps: Vec<Step>,
    /// The summary's figures.
    pub summary: Summary,
    /// Whether the cluster settled after the change.
    pub settled: bool,
}

impl Rehearsal {
    /// The change's failure, when it failed: its exit code's kind and its message.
    pub fn failure(&self) -> Option<(ErrorKind, String)> {
        if self.change.ok {
            return None;
        }
        let kind = match self.change.exit_code {
            Some(2) => ErrorKind::Usage,
            Some(3) => ErrorKind::Refused,
            Some(4) => ErrorKind::Timeout,
            Some(5) => ErrorKind::Unavailable,
            Some(6) => ErrorKind::Unsupported,
            _ => ErrorKind::Internal,
        };
        Some((
            kind,
            format!(
                "the rehearsed change `{}` failed (exit code {}): {}",
                self.change.command.join(" "),
                self.change
                    .exit_code
                    .map_or("none".to_string(), |c| c.to_string()),
                self.change.error.as_deref().unwrap_or("no message")
            ),
        ))
    }
}

/// The local cluster in `dir`, its running endpoints, judged before anything starts.
fn local_cluster(dir: &Path) -> Result<(ClusterState, Vec<String>), Error> {
    let state = if dir.is_dir() {
        ClusterState::load(dir)?
    } else {
        None
    };
    let Some(state) = state else {
        return Err(Error::usage(format!(
            "cluster rehearse: no local cluster in {}; start one with `memberctl cluster up` \
             (or give its directory with --dir)",
            dir.display()
        )));
    };
    let endpoints = super::running_endpoints(dir);
    if endpoints.is_empty() {
        return Err(Error::new(
            ErrorKind::Unavailable,
            format!(
                "cluster rehearse: the local cluster in {} runs no node; start it with \
                 `memberctl cluster up`",
                dir.display()
            ),
        ));
    }
    Ok((state, endpoints))
}

/// The catch-up check's prediction for adding a learner now.
async fn predict(client: &crate::client::Client, state: &ClusterState) -> Option<Prediction> {
    let options = CheckOptions {
        catch_up: CatchUpInputs {
            bandwidth: state.link.as_ref().map(|l| Bandwidth {
                bytes_per_second: l.bandwidth_bits as f64 / 8.0,
                source: BandwidthSource::LocalLink,
            }),
            snapshot_count: Some(state.snapshot_count),
        },
        ..CheckOptions::default()
    };
    let checks = preflight::check(client, &Planned::Add { learner: true }, &options)
        .await
        .ok()?;
    let c = checks.into_iter().find(|c| c.name == CheckName::CatchUp)?;
    let f = &c.figures;
    let text = |name: &str| {
        f.0.iter().find_map(|(n, v)| match v {
            Figure::Text(t) if *n == name => Some(t.clone()),
            _ => None,
        })
    };
    Some(Prediction {
        path: text("path")?,
        bytes: f.get("bytes")? as u64,
        bandwidth_bytes_per_second: f.get("bandwidth_bytes_per_second")?,
        bandwidth_source: text("bandwidth_source").unwrap_or_default(),
        predicted_seconds: f.get("predicted_seconds"),
    })
}

/// Writes report.json and report.html into `dir`.
fn write_report(dir: &Path, report: &model::RehearsalReport) -> Result<(), Error> {
    let io = |what: &str, e: std::io::Error| {
        Error::new(
            ErrorKind::Internal,
            format!(
                "cluster rehearse: cannot write {what} in {}: {e}",
                dir.display()
            ),
        )
    };
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| Error::new(ErrorKind::Internal, format!("report.json: {e}")))?;
    std::fs::write(dir.join("report.json"), json + "\n").map_err(|e| io("report.json", e))?;
    let page = html::page(report).map_err(|e| {
        Error::new(
            ErrorKind::Internal,
            format!("cluster rehearse: cannot draw report.html: {e}"),
        )
    })?;
    std::fs::write(dir.join("report.html"), page).map_err(|e| io("report.html", e))
}

/// Runs a rehearsal on the local cluster in `dir`; `notice` says what
/// happens (stderr). The change failing is no error here: the report says
/// so ([`Rehearsal::failure`]), written all the same.
pub async fn run(
    dir: &Path,
    options: &RehearseOptions,
    notice: &(dyn Fn(&str) + Sync),
) -> Result<Rehearsal, Error> {
    child::judge(&options.command)?;
    if options.writer_rate <= 0.0 || !options.writer_rate.is_finite() {
        return Err(Error::usage(
            "cluster rehearse: --writer-rate must be above 0 (puts per second), e.g. 50/s",
        ));
    }
    let (state, endpoints) = local_cluster(dir)?;
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    std::fs::create_dir_all(&options.report_dir).map_err(|e| {
        Error::usage(format!(
            "cluster rehearse: cannot create --report {}: {e}",
            options.report_dir.display()
        ))
    })?;
    let sampler = super::client_of(endpoints.clone())?;
    let initial = sample::list(&sampler).await.ok_or_else(|| {
        Error::new(
            ErrorKind::Unavailable,
            format!(
                "cluster rehearse: the local cluster in {} does not answer its member list; \
                 see `memberctl cluster status`",
                dir.display()
            ),
        )
    })?;
    let cost_before = cost::read(&sampler).await;
    let (server, version) = match &state.etcd {
        Some(b) => ("etcd".to_string(), b.version.clone()),
        None => ("engine".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    };
    let started_unix_ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let began = Instant::now();
    let writer = sample::Writer::start(endpoints, options.writer_rate, options.value_size, began);
    let (stop, stopped) = watch::channel(false);
    let progress = Arc::new(Mutex::new(Vec::new()));
    let lag = options.writer_rate.ceil() as u64 + 10;
    let steer = async {
        notice(&format!(
            "rehearsing `{}` on {} with {} puts/s of {} B; {} before it",
            options.command.join(" "),
            dir.display(),
            options.writer_rate,
            options.value_size,
            humantime::format_duration(options.before)
        ));
        tokio::time::sleep(options.before).await;
        // Asked with the writer running: the check reads the write rate.
        let prediction = predict(&sampler, &state).await;
        let change_started_s = began.elapsed().as_secs_f64();
        let change = child::run(
            &options.command,
            &dir,
            began,
            options.timeout,
            progress.clone(),
            notice,
        )
        .await;
        let change_ended_s = began.elapsed().as_secs_f64();
        notice("the change ended; waiting for the cluster to settle");
        let settled = sample::settle(&sampler, &dir, lag, options.settle_timeout).await;
        let settled_s = began.elapsed().as_secs_f64();
        tokio::time::sleep(options.after).await;
        let _ = stop.send(true);
        let timeline = Timeline {
            change_started_s,
            change_ended_s,
            settled_s,
            ended_s: began.elapsed().as_secs_f64(),
            settled,
        };
        (change, timeline, prediction)
    };
    let (sampled, (change, timeline, prediction)) =
        tokio::join!(sample::sample(&sampler, &dir, began, stopped), steer);
    let writes = writer.stop().await;
    let change = change?;
    let cost_after = cost::read(&sampler).await;
    let cost = cost::cost(&cost_before, &cost_after).map(|c| Cost {
        leader_changes: c.leader_changes,
        heartbeat_send_failures: c.heartbeat_send_failures,
        slow_applies: c.slow_applies,
    });
    let samples = Samples {
        writes,
        nodes: sampled.nodes,
        lists: sampled.lists,
        progress: std::mem::take(&mut *progress.lock().unwrap_or_else(|p| p.into_inner())),
    };
    let report = model::report(
        Inputs {
            started_unix_ms,
            settings: Settings {
                writer_rate_per_second: options.writer_rate,
                value_size_bytes: options.value_size,
                server,
                server_version: version,
                cluster_dir: dir.display().to_string(),
            },
            change,
            timeline,
            initial,
            prediction,
            cost,
        },
        samples,
    );
    write_report(&options.report_dir, &report)?;
    Ok(Rehearsal {
        report_dir: options.report_dir.clone(),
        change: report.change,
        steps: report.steps,
        summary: report.summary,
        settled: report.timeline.settled,
    })
}
