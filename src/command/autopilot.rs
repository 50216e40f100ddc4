//! Glue for `memberctl autopilot`: arguments → the autopilot request; each
//! decision printed as it is made (stdout through the printer, a sentence on
//! stderr); SIGTERM and SIGINT stop it between actions.

use tokio::sync::watch;

use crate::cli::{AutopilotArgs, GlobalArgs, OutputFormat};
use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::printer::{self, Report};
use crate::workflow::autopilot::{self, AutopilotRequest, NoStandbyStarter, Reported, Settings};
use crate::workflow::validate::system_resolver;
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

/// Prints each decision: stdout through the printer, the sentence on stderr.
struct Printing<'a> {
    format: OutputFormat,
    observer: &'a dyn Observer,
}

impl autopilot::Reporter for Printing<'_> {
    fn report(&self, r: &Reported) {
        if let Err(e) = printer::print(&Report::Decision(r.clone()), self.format) {
            self.observer
                .notice(&format!("autopilot cannot write its output: {e}"));
        }
        self.observer.notice(&r.sentence());
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
    let (tx, rx) = watch::channel(false);
    stop_on_signals(tx)?;
    let reporter = Printing {
        format: global.write_out.unwrap_or_else(printer::default_format),
        observer,
    };
    observer.notice(&format!(
        "autopilot {} watching every {} (--dead-after {}){}; stop it with SIGTERM or Ctrl-C",
        req.name,
        humantime::format_duration(req.interval),
        humantime::format_duration(req.settings.dead_after),
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
