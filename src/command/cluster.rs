//! Glue for `memberctl cluster …`: the local test cluster's commands.

use anyhow::Context;

use crate::cli::ClusterCommand;
use crate::printer::Report;

/// Runs `memberctl cluster …`.
pub(super) async fn cluster(cmd: &ClusterCommand) -> anyhow::Result<Report> {
    use crate::testcluster::{self as tc, cluster_dir};
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
    };
    Ok(Report::Cluster(local))
}
