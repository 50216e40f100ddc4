//! Glue for `memberctl cluster …`: the local test cluster's commands.

use anyhow::Context;

use crate::cli::{ChaosArgs, ClusterCommand, GlobalArgs, RecoverArgs, RehearseArgs};
use crate::client::{Client, ClientConfig};
use crate::error::Error;
use crate::printer::Report;
use crate::testcluster::{self as tc, LocalCluster};
use crate::workflow::apply::{self, ApplyRequest};
use crate::workflow::calc::validate::system_resolver;
use crate::workflow::preflight::Preflight;
use crate::workflow::{Ctx, Observer};

/// `cluster recover`: the best survivor forced to be the only member, then
/// the others added back as learners, started and promoted (`member apply`
/// to the membership the cluster had), and the survivor restarted without
/// `--force-new-cluster`.
async fn recover(
    dir: &std::path::Path,
    a: &RecoverArgs,
    observer: &dyn Observer,
) -> Result<LocalCluster, Error> {
    let survivor = tc::recover::force_survivor(dir, a.from.as_deref()).await?;
    observer.notice(&format!(
        "recovering from {} (term {}, index {}): writes up to index {} are kept; \
         acknowledged writes past it may be lost; it now runs alone (--force-new-cluster)",
        survivor.name, survivor.term, survivor.index, survivor.applied
    ));
    let client = Client::new(ClientConfig {
        endpoints: vec![survivor.client_url.clone()],
        dial_timeout: std::time::Duration::from_secs(1),
        command_timeout: std::time::Duration::from_secs(10),
        credentials: None,
        tls: Default::default(),
    })?;
    let req = ApplyRequest {
        target: survivor.target.clone(),
        dry_run: false,
        force: false,
        timeout: a.timeout,
        poll_interval: std::time::Duration::from_millis(200),
        preflight: Preflight::ByCaller,
    };
    let cx = Ctx {
        api: &client,
        observer,
        resolver: &system_resolver,
        command_timeout: std::time::Duration::from_secs(10),
    };
    apply::run(
        &cx,
        &req,
        &super::member::LocalStart(Some(dir.to_path_buf())),
    )
    .await?;
    // Started with the flag again, the survivor would remove them once more.
    observer.notice(&format!(
        "restarting {} without --force-new-cluster (the last step of a recovery)",
        survivor.name
    ));
    tc::recover::restart_unforced(dir, &survivor.name).await?;
    tc::status(dir).await
}

/// `cluster chaos`: the faults of the seeded schedule, each start and end
/// printed as it happens; SIGTERM and Ctrl-C end it early (the faults in
/// progress are undone first).
pub(super) async fn chaos(
    a: &ChaosArgs,
    global: &GlobalArgs,
    observer: &dyn Observer,
) -> anyhow::Result<()> {
    use crate::printer::{self, Report};
    use crate::testcluster::chaos::{self, ChaosOptions, FaultKind};
    use crate::testcluster::cluster_dir;
    let dir = cluster_dir(a.dir.dir.as_deref());
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let link = tc::state::ClusterState::load(&dir)
        .ok()
        .flatten()
        .is_some_and(|s| s.link.is_some());
    let faults = if a.faults.is_empty() {
        FaultKind::ALL
            .into_iter()
            .filter(|k| link || !k.needs_link())
            .collect()
    } else {
        let mut f = a.faults.clone();
        f.sort();
        f.dedup();
        f
    };
    let options = ChaosOptions {
        seed,
        duration: a.duration,
        faults,
        max_concurrent: a.max_concurrent,
        break_quorum: a.break_quorum,
        every: a.every,
        hold: a.hold,
    };
    let names: Vec<&str> = options.faults.iter().map(|k| k.as_str()).collect();
    observer.notice(&format!(
        "chaos on {} for {} with --seed {seed} (replay: memberctl cluster chaos --seed {seed} --duration {} --faults {} --max-concurrent {} --every {} --hold {}{})",
        dir.display(),
        humantime::format_duration(a.duration),
        humantime::format_duration(a.duration),
        names.join(","),
        a.max_concurrent,
        humantime::format_duration(a.every),
        humantime::format_duration(a.hold),
        if a.break_quorum { " --break-quorum" } else { "" }
    ));
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        let _ = tx.send(true);
    });
    let format = global.write_out.unwrap_or_else(printer::default_format);
    let mut emit = |e: &chaos::ChaosEvent| {
        if let Err(err) = printer::print(&Report::Chaos(e.clone()), format) {
            observer.notice(&format!("chaos cannot write its output: {err}"));
        }
        if format == crate::cli::OutputFormat::Json {
            observer.notice(&printer::chaos_line(e));
        }
    };
    chaos::run(&dir, &options, &mut emit, rx)
        .await
        .context("cluster chaos")?;
    observer.notice("chaos ended");
    Ok(())
}

/// `cluster rehearse`: the change rehearsed under a steady writer, its
/// report written; a change that failed is said on stderr (main exits with
/// its code, [`Report::change_failed`]).
async fn rehearse(a: &RehearseArgs, observer: &dyn Observer) -> anyhow::Result<Report> {
    use crate::testcluster::{cluster_dir, rehearse};
    let dir = cluster_dir(a.dir.dir.as_deref());
    let options = rehearse::RehearseOptions {
        command: a.change.clone(),
        writer_rate: a.writer_rate,
        value_size: a.value_size,
        report_dir: a.report.clone(),
        before: a.before,
        after: a.after,
        settle_timeout: a.settle_timeout,
        timeout: a.timeout,
    };
    // The observer is not Sync; its notices are queued and said in order.
    let said = std::sync::Mutex::new(Vec::<String>::new());
    let notice = |m: &str| {
        said.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(m.to_string())
    };
    let flush = || {
        for m in std::mem::take(&mut *said.lock().unwrap_or_else(|p| p.into_inner())) {
            observer.notice(&m);
        }
    };
    let run = rehearse::run(&dir, &options, &notice);
    tokio::pin!(run);
    let mut every = tokio::time::interval(std::time::Duration::from_millis(200));
    let r = loop {
        tokio::select! {
            r = &mut run => break r,
            _ = every.tick() => flush(),
        }
    };
    flush();
    let r = r.context("cluster rehearse")?;
    observer.notice(&format!(
        "report written to {} (report.html, report.json)",
        r.report_dir.display()
    ));
    if let Some((_, why)) = r.failure() {
        observer.notice(&why);
    }
    Ok(Report::Rehearsed(Box::new(r)))
}

/// Runs `memberctl cluster …`.
pub(super) async fn cluster(
    cmd: &ClusterCommand,
    observer: &dyn Observer,
) -> anyhow::Result<Report> {
    use crate::testcluster::cluster_dir;
    let local = match cmd {
        ClusterCommand::Rehearse(a) => return rehearse(a, observer).await,
        ClusterCommand::Up(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            let options = tc::UpOptions {
                nodes: a.nodes,
                max_learners: a.max_learners,
                snapshot_count: a.snapshot_count,
                quota_backend_bytes: a.quota_backend_bytes,
                heartbeat_ms: a.heartbeat_interval,
                election_timeout_ms: a.election_timeout,
                fault_injection: a.fault_injection,
                fault_stale_reads: a.fault_stale_reads,
                fault_ack_before_fsync: a.fault_ack_before_fsync,
                from_snapshot: a.from_snapshot.clone(),
                skip_hash_check: a.skip_hash_check,
                link: a.link,
                etcd: a.etcd.clone(),
                etcd_flags: a.etcd_flag.clone(),
            };
            tc::up(&dir, &options).await.context("cluster up")?
        }
        ClusterCommand::StartNode(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            tc::start_node(&dir, &a.name, a.peer_url.as_deref())
                .await
                .with_context(|| format!("cluster start-node {}", a.name))?
        }
        ClusterCommand::Status(a) => tc::status(&cluster_dir(a.dir.as_deref()))
            .await
            .context("cluster status")?,
        ClusterCommand::Down(a) => tc::down(&cluster_dir(a.dir.as_deref()))
            .await
            .context("cluster down")?,
        ClusterCommand::Link(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            let stall = a.stall.map(|d| (a.node.clone(), d));
            let (d, set) = (dir.clone(), a.set);
            tokio::task::spawn_blocking(move || tc::link::change(&d, set, stall))
                .await?
                .context("cluster link")?;
            tc::status(&dir).await.context("cluster link")?
        }
        ClusterCommand::Chaos(_) => {
            unreachable!("chaos prints each fault as it happens and reports nothing at the end (command::run)")
        }
        ClusterCommand::LinkServe(_) => {
            unreachable!("link-serve runs in the foreground and reports nothing (command::run)")
        }
        ClusterCommand::Recover(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            recover(&dir, a, observer)
                .await
                .context("cluster recover")?
        }
    };
    Ok(Report::Cluster(local))
}
