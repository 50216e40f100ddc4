//! `memberctl snapshot save|status|restore`: a member's snapshot to a file,
//! a file checked, a file restored into a new member's data directory.

use std::io::Read;
use std::path::Path;

use crate::cli::{RestoreArgs, SnapshotCommand};
use crate::client::Client;
use crate::engine::startup::restore::{self, BackupInfo, RestoreError};
use crate::error::Error;
use crate::etcd_db::{self, DbError, SnapshotStatus};
use crate::printer::{Report, Restored, SnapshotContent, SnapshotReport};

fn content(info: &BackupInfo) -> SnapshotContent {
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
        SnapshotCommand::Status { file } => status(file).map(Some),
        SnapshotCommand::Restore(a) => restore(a).map(Some),
    }
}

/// Whether `file` starts as a memberctl snapshot does.
fn is_memberctl(file: &Path) -> anyhow::Result<bool> {
    let mut start = [0u8; 8];
    let mut f = std::fs::File::open(file)
        .map_err(|e| Error::usage(format!("cannot open {}: {e}", file.display())))?;
    Ok(f.read_exact(&mut start).is_ok() && &start == restore::MEMBERCTL_MAGIC)
}

/// Why `file` cannot be read as an etcd database, as the usage error it is.
fn unreadable(file: &Path, e: DbError) -> anyhow::Error {
    let msg = match e {
        DbError::NotBbolt => format!(
            "{} is neither a memberctl snapshot nor an etcd one (no bbolt meta page at its start): give a file written by `snapshot save` or `etcdctl snapshot save`",
            file.display()
        ),
        e => format!("{}: {e}", file.display()),
    };
    Error::usage(msg).into()
}

/// What a snapshot file holds: memberctl's summary, or etcd's.
type Checked = (Option<SnapshotContent>, Option<SnapshotStatus>);

/// A snapshot file read whole: a memberctl snapshot checked, or an etcd one
/// (or backend file) summarised as `etcdctl snapshot status` does.
fn read_whole(file: &Path) -> anyhow::Result<Checked> {
    if is_memberctl(file)? {
        let info = restore::check_memberctl(file).map_err(|e| Error::usage(e.message))?;
        Ok((Some(content(&info)), None))
    } else {
        let etcd = etcd_db::status(file).map_err(|e| unreadable(file, e))?;
        Ok((None, Some(etcd)))
    }
}

/// The report of `save` or `status` on a file read whole.
fn checked(action: &'static str, file: &Path, size: u64, (content, etcd): Checked) -> Report {
    Report::Snapshot(SnapshotReport {
        action,
        format: if etcd.is_some() { "etcd" } else { "memberctl" },
        file: file.display().to_string(),
        size,
        content,
        etcd,
        restored: None,
    })
}

/// `snapshot status`: the file read whole, either kind.
fn status(file: &Path) -> anyhow::Result<Report> {
    let read = read_whole(file)?;
    let size = std::fs::metadata(file)
        .map_err(|e| Error::usage(format!("cannot read {}: {e}", file.display())))?
        .len();
    Ok(checked("checked", file, size, read))
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
    let bump = bump_of(a)?;
    let memberctl = is_memberctl(&a.file)?;
    if memberctl && a.skip_hash_check {
        return Err(Error::usage(format!(
            "{} is a memberctl snapshot, which always carries its SHA-256: restore it without --skip-hash-check (the flag is for etcd databases copied from a data directory)",
            a.file.display()
        ))
        .into());
    }
    // The whole file is checked before the directory is made.
    if memberctl {
        restore::check_memberctl(&a.file).map_err(|e| Error::usage(e.message))?;
    }
    let initial = super::node::initial_cluster(&a.initial_cluster)?;
    let (cluster_id, member_id, members) = crate::engine::startup::new_cluster(
        &a.name,
        &initial,
        &a.initial_advertise_peer_urls,
        &a.initial_cluster_token,
    )
    .map_err(|e| Error::usage(e.to_string()))?;
    if !memberctl {
        return restore_etcd(a, cluster_id, member_id, &members, bump);
    }
    let restored = restore::from_memberctl(&a.file, dir, cluster_id, member_id, &members, bump);
    let (info, at) = match restored {
        Ok(restored) => restored,
        Err(e) => {
            // Nothing half-made is left behind.
            let _ = std::fs::remove_dir_all(dir);
            return Err(anyhow::anyhow!("cannot restore {}: {e}", a.file.display()));
        }
    };
    Ok(Report::Snapshot(SnapshotReport {
        action: "restored",
        format: "memberctl",
        file: a.file.display().to_string(),
        size: info.size,
        content: Some(content(&info)),
        etcd: None,
        restored: Some(restored_at(dir, member_id, at)),
    }))
}

/// The revision bump asked (`--bump-revision N --mark-compacted`; clap has
/// made sure the two come together): positive and small enough that a
/// revision after it still fits.
fn bump_of(a: &RestoreArgs) -> anyhow::Result<Option<i64>> {
    const MAX: u64 = 1 << 62;
    match a.bump_revision {
        None => Ok(None),
        Some(0) => Err(Error::usage(
            "--bump-revision 0 bumps nothing: give the amount to move the revision ahead \
             (more than the revisions written since the snapshot, e.g. 1000000000), or leave out both --bump-revision and \
             --mark-compacted",
        )
        .into()),
        Some(n) if n > MAX => Err(Error::usage(format!(
            "--bump-revision {n} is more than a revision can take after it: give at most {MAX}"
        ))
        .into()),
        Some(n) => Ok(Some(n as i64)),
    }
}

/// The report's `restored`: the data directory, the member, where it starts.
fn restored_at(dir: &Path, member_id: u64, at: restore::StartsAt) -> Restored {
    Restored {
        data_dir: dir.display().to_string(),
        member_id,
        revision: at.revision,
        compact_revision: at.compact_revision,
    }
}

/// `snapshot restore` of an etcd snapshot (or, with --skip-hash-check, of a
/// backend file): read whole before the data directory is made.
fn restore_etcd(
    a: &RestoreArgs,
    cluster_id: u64,
    member_id: u64,
    members: &[crate::proto::memberctl_store_v1::MemberMeta],
    bump: Option<i64>,
) -> anyhow::Result<Report> {
    let dir = &a.data_dir;
    let restored = restore::from_etcd(
        &a.file,
        a.skip_hash_check,
        dir,
        cluster_id,
        member_id,
        members,
        bump,
    );
    let (c, at) = match restored {
        Ok(restored) => restored,
        Err(RestoreError::File(e)) => return Err(unreadable(&a.file, e)),
        Err(RestoreError::Store(e)) => {
            // Nothing half-made is left behind.
            let _ = std::fs::remove_dir_all(dir);
            return Err(anyhow::anyhow!("cannot restore {}: {e}", a.file.display()));
        }
    };
    let size = std::fs::metadata(&a.file).map(|m| m.len()).unwrap_or(0);
    Ok(Report::Snapshot(SnapshotReport {
        action: "restored",
        format: "etcd",
        file: a.file.display().to_string(),
        size,
        content: Some(SnapshotContent {
            revision: c.revision,
            compact_revision: c.compact_revision,
            records: c.changes,
            leases: c.leases.len(),
            sha256: c.sha256.unwrap_or_default(),
        }),
        etcd: None,
        restored: Some(restored_at(dir, member_id, at)),
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
    // Either kind is read whole, as `status` reads it; a damaged one is not kept.
    match read_whole(file) {
        Ok(read) => Ok(checked("saved", file, size, read)),
        Err(e) => {
            let _ = std::fs::remove_file(file);
            Err(e.context(format!(
                "the snapshot received is damaged and was not kept ({} removed)",
                file.display()
            )))
        }
    }
}
