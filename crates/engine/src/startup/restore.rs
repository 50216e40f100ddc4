//! A new member's data directory made from a snapshot file (`memberctl
//! snapshot restore`, as `etcdctl snapshot restore` makes one): from an
//! etcd snapshot or backend file, or from a file saved by an older memberctl.
//! The client half reaches the engine's storage only through here.

use std::path::Path;

use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{check_backup, Store, StoreError};

pub use crate::storage::{
    restore_etcd as from_etcd, BackupInfo, RestoreError, StartsAt, MEMBERCTL_MAGIC,
};

/// Reads a memberctl snapshot file whole and checks it (nothing is written).
pub fn check_memberctl(file: &Path) -> Result<BackupInfo, StoreError> {
    check_backup(file)
}

/// Restores the memberctl snapshot `file` into a new data directory `dir`
/// for member `member_id` of a new cluster of `members` (with `bump`, its
/// revision moved that far ahead and marked compacted).
pub fn from_memberctl(
    file: &Path,
    dir: &Path,
    cluster_id: u64,
    member_id: u64,
    members: &[spb::MemberMeta],
    bump: Option<i64>,
) -> Result<(BackupInfo, StartsAt), StoreError> {
    Store::open(dir)?.restore_backup(file, cluster_id, member_id, members, bump)
}
