//! memberctl's snapshot file as a backup (what Maintenance.Snapshot
//! streams): the state machine as it is, written in the snapshot-file
//! format ([`super::snapfile`]), checked whole, and restored into the data
//! directory of a member of a new cluster.

use std::path::Path;

use super::snapfile::{self, Decoder};
use super::{Result, Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

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

impl Store {
    /// Writes a snapshot file of the state machine as it is now, in pieces
    /// handed to `emit` with the bytes that remain after each; stops when
    /// `emit` returns false. Returns whether it went to the end.
    pub fn backup(&self, mut emit: impl FnMut(Vec<u8>, u64) -> bool) -> bool {
        let state = self.state();
        let header = snapfile::header(&state);
        let total = snapfile::encoded_size(&state, &header);
        let mut sent = 0u64;
        snapfile::encode(&state, &header, |piece| {
            sent += piece.len() as u64;
            emit(piece, total.saturating_sub(sent))
        })
        .is_some()
    }
}

fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    let file = std::fs::File::open(path)
        .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, file))
}

fn named(path: &Path, e: StoreError) -> StoreError {
    StoreError(format!("{} is {}", path.display(), e.0))
}

/// Checks a snapshot file whole and tells what it holds.
pub fn check(path: &Path) -> Result<BackupInfo> {
    let size = std::fs::metadata(path)
        .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?
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

/// Restores a snapshot file into `store` (a fresh data directory) as a
/// member of a new cluster: the keys, their history, the revision, the
/// leases and auth are the snapshot's; the cluster ID, the member's ID and
/// the membership are the new ones (as etcd's `snapshot restore`); alarms
/// are not carried over. The file is checked whole before anything is
/// written.
pub fn restore(
    path: &Path,
    store: &Store,
    cluster_id: u64,
    member_id: u64,
    members: &[spb::MemberMeta],
) -> Result<BackupInfo> {
    let info = check(path)?;
    let (_, mut state) = snapfile::read(open(path)?).map_err(|e| named(path, e))?;
    state.cluster_id = cluster_id;
    state.alarms = Default::default();
    store.bootstrap_with(state, member_id, members)?;
    Ok(info)
}
