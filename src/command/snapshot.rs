//! `memberctl snapshot save|status|restore`: a member's snapshot to a file,
//! a file checked, a file restored into a new member's data directory.

use crate::cli::{RestoreArgs, SnapshotCommand};
use crate::client::Client;
use crate::engine::storage::{backup, Store};
use crate::error::Error;
use crate::printer::{Report, SnapshotContent, SnapshotReport};

fn content(info: &backup::BackupInfo) -> SnapshotContent {
    SnapshotContent {
        revision: info.revision,
        compact_revision: info.compact_revision,
        records: info.records,
        leases: info.leases,
        sha256: info.sha256.clone(),
    }
}

/// The subcommands that need no cluster (`status`, `restore`); None for `save`.
pub fn offline(cmd: &SnapshotCommand) -> anyhow::Result<Option<Report>> {
    match cmd {
        SnapshotCommand::Save { .. } => Ok(None),
        SnapshotCommand::Status { file } => {
            let info = backup::check(file).map_err(|e| Error::usage(e.0))?;
            Ok(Some(Report::Snapshot(SnapshotReport {
                action: "checked",
                file: file.display().to_string(),
                size: info.size,
                content: Some(content(&info)),
                restored: None,
            })))
        }
        SnapshotCommand::Restore(a) => restore(a).map(Some),
    }
}

fn restore(a: &RestoreArgs) -> anyhow::Result<Report> {
    let dir = &a.data_dir;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(Error::usage(format!(
                "--data-dir {} exists and is not empty: restore into a new directory",
                dir.display()
            ))
            .into());
        }
    }
    // The whole file is checked before the directory is made.
    backup::check(&a.file).map_err(|e| Error::usage(e.0))?;
    let pairs = super::node::parse_initial_cluster(&a.initial_cluster)?;
    let (cluster_id, member_id, members) = crate::engine::startup::new_cluster(
        &a.name,
        &pairs,
        &a.initial_advertise_peer_urls,
        &a.initial_cluster_token,
    )
    .map_err(|e| Error::usage(e.to_string()))?;
    let restored = Store::open(dir)
        .and_then(|store| backup::restore(&a.file, &store, cluster_id, member_id, &members));
    let info = match restored {
        Ok(info) => info,
        Err(e) => {
            // Nothing half-made is left behind.
            let _ = std::fs::remove_dir_all(dir);
            return Err(anyhow::anyhow!("cannot restore {}: {e}", a.file.display()));
        }
    };
    Ok(Report::Snapshot(SnapshotReport {
        action: "restored",
        file: a.file.display().to_string(),
        size: info.size,
        content: Some(content(&info)),
        restored: Some((dir.display().to_string(), member_id)),
    }))
}

/// `snapshot save`: from the first endpoint that answers (give one, as etcdctl asks).
pub async fn snapshot(client: &Client, cmd: &SnapshotCommand) -> anyhow::Result<Report> {
    let SnapshotCommand::Save { file } = cmd else {
        return Err(anyhow::anyhow!(
            "snapshot status and restore need no cluster"
        ));
    };
    let size = client.snapshot_save(file).await?;
    // A memberctl snapshot is checked whole; an etcd one is kept as it came.
    let content = backup::check(file).ok().map(|i| content(&i));
    Ok(Report::Snapshot(SnapshotReport {
        action: "saved",
        file: file.display().to_string(),
        size,
        content,
        restored: None,
    }))
}
