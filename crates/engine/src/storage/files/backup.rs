//! memberctl's own snapshot files as backups (what `Maintenance.Snapshot`
//! streamed before the engine's snapshots were etcd's, see
//! [`super::to_etcd`]): checked whole, and restored into the data directory
//! of a member of a new cluster, so that those files still restore.

use std::path::Path;

use super::snapfile::{self, Decoder};
use crate::storage::{Result, State, StoreError};

pub use super::snapfile::MAGIC;

/// What a snapshot file holds, as `snapshot status` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupInfo {
    /// The store's revision.
    pub revision: i64,
    /// The compacted revision.
    pub compact_revision: i64,
    /// Key-history records (every kept revision of every key).
    pub records: u64,
    /// Leases.
    pub leases: usize,
    /// The file's SHA-256 (its last 32 bytes), in hex.
    pub sha256: String,
    /// The file's size in bytes.
    pub size: u64,
}

fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    let file = std::fs::File::open(path)
        .map_err(|e| StoreError::other(format!("cannot open {}: {e}", path.display())))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, file))
}

fn named(path: &Path, e: StoreError) -> StoreError {
    StoreError::new(e.kind, format!("{} is {}", path.display(), e.message))
}

/// Checks a snapshot file whole and tells what it holds.
pub fn check(path: &Path) -> Result<BackupInfo> {
    let size = std::fs::metadata(path)
        .map_err(|e| StoreError::other(format!("cannot open {}: {e}", path.display())))?
        .len();
    snapfile::verify_hash(open(path)?, size).map_err(|e| named(path, e))?;
    let d = snapfile::read_with(Decoder::checking(), open(path)?).map_err(|e| named(path, e))?;
    let sha256 = d.sha256().unwrap_or_default();
    let records = d.records();
    let (header, _) = d.finish().map_err(|e| named(path, e))?;
    Ok(BackupInfo {
        revision: header.revision,
        compact_revision: header.compact_revision,
        records,
        leases: header.leases.len(),
        sha256,
        size,
    })
}

/// Reads a snapshot file, checked whole first, as the state of a member of
/// a new cluster `cluster_id`: the keys, their history, the revision, the
/// leases and auth are the snapshot's (the store's restore gives it the new
/// membership, as etcd's `snapshot restore`); alarms are not carried over.
pub fn read(path: &Path, cluster_id: u64) -> Result<(BackupInfo, State)> {
    let info = check(path)?;
    let (_, mut state) = snapfile::read(open(path)?).map_err(|e| named(path, e))?;
    state.cluster_id = cluster_id;
    state.alarms = Default::default();
    Ok((info, state))
}
