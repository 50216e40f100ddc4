//! Glue for `memberctl cluster …`: the local test cluster's commands.

use anyhow::Context;

use crate::cli::{ClusterCommand, RecoverArgs};
use crate::client::{Client, ClientConfig};
use crate::error::Error;
use crate::printer::Report;
use crate::testcluster::{self as tc, LocalCluster};
use crate::workflow::apply::{self, ApplyRequest};
use crate::workflow::preflight::Preflight;
use crate::workflow::validate::system_resolver;
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

/// Runs `memberctl cluster …`.
pub(super) async fn cluster(
    cmd: &ClusterCommand,
    observer: &dyn Observer,
) -> anyhow::Result<Report> {
    use crate::testcluster::cluster_dir;
    let local = match cmd {
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
