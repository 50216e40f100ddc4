//! Glue for `memberctl autopilot`: arguments → the autopilot request; each
//! decision that changed (or is due again, `--heartbeat`) printed as it is
//! made (stdout through the printer; with `-w json` also its sentence on
//! stderr, for people); SIGTERM and SIGINT stop it between actions.

use tokio::sync::watch;

use crate::cli::{AutopilotArgs, GlobalArgs, OutputFormat};
use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::printer::{self, Report};
use crate::workflow::autopilot::{
    self, AutopilotRequest, NoStandbyStarter, Repeats, Reported, Settings,
};
use crate::workflow::calc::validate::system_resolver;
use crate::workflow::{Ctx, Observer};

impl From<&AutopilotArgs> for AutopilotRequest {
    fn from(a: &AutopilotArgs) -> Self {
        AutopilotRequest {
            settings: Settings {
                dead_after: a.dead_after,
                stable_for: a.stable_for,
                standby: a.standby.clone(),
                cleanup_dead: a.cleanup_dead,
                min_voters: a.min_voters,
                stalled_for: a.stalled_for,
                start_standby: a.start_standby,
                voters: a.voters,
                learner_limit: (!a
                    .checks
                    .skip_check
                    .contains(&crate::workflow::preflight::CheckName::Learners))
                .then_some(crate::workflow::preflight::LEARNER_LIMIT),
            },
            interval: a.interval,
            name: a.name.clone().unwrap_or_else(default_name),
            lease_ttl: a.lease_ttl,
            dry_run: a.dry_run,
            timeout: a.timeout,
            poll_interval: std::time::Duration::from_millis(250),
            preflight: (&a.checks).into(),
        }
    }
}

/// HOST-PID: tells the autopilots of one cluster apart.
fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "autopilot".to_string());
    format!("{host}-{}", std::process::id())
}

/// Prints the decisions [`Repeats`] lets through: stdout through the
/// printer; with JSON on stdout, the sentence on stderr too (a table or
/// simple line is the sentence already).
struct Printing<'a> {
    format: OutputFormat,
    metrics: Option<std::sync::Arc<super::autopilot_metrics::Metrics>>,
    observer: &'a dyn Observer,
    repeats: std::sync::Mutex<Repeats>,
}

impl autopilot::Reporter for Printing<'_> {
    fn report(&self, r: &Reported) {
        if let Some(m) = &self.metrics {
            m.record(r);
        }
        let due = self
            .repeats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .report(r);
        if !due {
            return;
        }
        if let Err(e) = printer::print(&Report::Decision(r.clone()), self.format) {
            self.observer
                .notice(&format!("autopilot cannot write its output: {e}"));
        }
        if self.format == OutputFormat::Json {
            self.observer.notice(&r.sentence());
        }
    }
}

/// Sets `stop` on SIGTERM or SIGINT.
fn stop_on_signals(stop: watch::Sender<bool>) -> Result<(), Error> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())
        .map_err(|e| Error::new(ErrorKind::Internal, format!("cannot watch SIGTERM: {e}")))?;
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        let _ = stop.send(true);
    });
    Ok(())
}

/// `<cluster dir>/autopilots/NAME.pid` while this autopilot runs, when it
/// watches the local test cluster (one of its endpoints is a running node's).
fn local_registration(
    client: &Client,
    name: &str,
    observer: &dyn Observer,
) -> Option<crate::testcluster::chaos::autopilots::Registration> {
    let dir = crate::testcluster::cluster_dir(None);
    let local = crate::testcluster::running_endpoints(&dir);
    let bare = |u: &str| u.trim_end_matches('/').to_string();
    if !client
        .endpoints()
        .iter()
        .any(|e| local.iter().any(|l| bare(l) == bare(e)))
    {
        return None;
    }
    match crate::testcluster::chaos::autopilots::register(&dir, name) {
        Ok(r) => Some(r),
        Err(e) => {
            observer.notice(&e.message);
            None
        }
    }
}

/// Runs `memberctl autopilot` until a signal stops it.
pub(super) async fn autopilot(
    client: &Client,
    args: &AutopilotArgs,
    global: &GlobalArgs,
    observer: &dyn Observer,
) -> anyhow::Result<()> {
    let cx = Ctx {
        api: client,
        observer,
        resolver: &system_resolver,
        command_timeout: global.command_timeout,
    };
    let req = AutopilotRequest::from(args);
    if let Some(w) =
        autopilot::lease_ttl_warning(req.lease_ttl, req.interval, global.command_timeout)
    {
        observer.notice(&format!("warning: {w}"));
    }
    // Watching the local cluster: a pid file in its directory, so that
    // `cluster chaos` finds it (kill-autopilot).
    let _registration = local_registration(client, &req.name, observer);
    let (tx, rx) = watch::channel(false);
    stop_on_signals(tx)?;
    let metrics = match args.listen_metrics {
        None => None,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
                Error::new(
                    ErrorKind::Usage,
                    format!("--listen-metrics {addr}: cannot listen there: {e}"),
                )
            })?;
            let m = std::sync::Arc::new(super::autopilot_metrics::Metrics::new(
                args.interval,
                global.command_timeout,
            ));
            tokio::spawn(m.clone().serve(listener));
            observer.notice(&format!(
                "autopilot metrics on http://{}/metrics, its health on /health",
                addr
            ));
            Some(m)
        }
    };
    let reporter = Printing {
        metrics,
        format: global.write_out.unwrap_or_else(printer::default_format),
        observer,
        repeats: std::sync::Mutex::new(Repeats::new(args.heartbeat)),
    };
    observer.notice(&format!(
        "autopilot {} watching every {} (--dead-after {}); a decision is printed when it \
         changes, the same one again every {}{}; stop it with SIGTERM or Ctrl-C",
        req.name,
        humantime::format_duration(req.interval),
        humantime::format_duration(req.settings.dead_after),
        if args.heartbeat.is_zero() {
            "look".to_string()
        } else {
            humantime::format_duration(args.heartbeat).to_string()
        },
        if req.dry_run {
            ", --dry-run: changing nothing"
        } else {
            ""
        }
    ));
    if args.start_standby {
        let starter = super::member::LocalStandby {
            preflight: req.preflight.clone(),
        };
        autopilot::run(&cx, client, &req, &starter, &reporter, rx).await?;
    } else {
        autopilot::run(&cx, client, &req, &NoStandbyStarter, &reporter, rx).await?;
    }
    observer.notice("autopilot stopped");
    Ok(())
}
