//! Command-line definitions of `memberctl snapshot save|status|restore`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `memberctl snapshot …` subcommands.
#[derive(Debug, Subcommand)]
pub enum SnapshotCommand {
    /// Save a point-in-time copy of one member's state to FILE (Maintenance.Snapshot; on etcd, etcd's own format)
    Save {
        /// Where to write it (through FILE.part, renamed when complete)
        file: PathBuf,
    },
    /// Check a snapshot file whole (memberctl's, or etcd's: its SHA-256 trailer) and show what it holds
    Status {
        /// The snapshot file
        file: PathBuf,
    },
    /// Create the data directory of a member of a new cluster from a snapshot file, memberctl's or etcd's (as `etcdctl snapshot restore`); start it with `node run` and the same flags
    Restore(Box<RestoreArgs>),
}

/// Arguments of `snapshot restore` (etcd's flag names).
#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    /// The snapshot file
    pub file: PathBuf,
    /// The member's name
    #[arg(long)]
    pub name: String,
    /// The new data directory (must not exist, or be empty)
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
    /// The new cluster's members.
    #[command(flatten)]
    pub initial_cluster: super::InitialClusterArg,
    /// This member's peer URLs
    #[arg(long, value_delimiter = ',', required = true, value_name = "URL")]
    pub initial_advertise_peer_urls: Vec<String>,
    /// Token that keeps IDs of different clusters apart
    #[arg(long, default_value = "etcd-cluster")]
    pub initial_cluster_token: String,
    /// Restore an etcd database that has no SHA-256 trailer (copied from a data directory's member/snap/db), unchecked
    #[arg(long)]
    pub skip_hash_check: bool,
    /// Move the revision this far ahead of the snapshot's (with --mark-compacted, as etcdutl's): watchers and caches holding revisions of the old cluster see them compacted, not reused; restore every member with the same amount
    #[arg(long, value_name = "N", requires = "mark_compacted")]
    pub bump_revision: Option<u64>,
    /// Mark the bumped revision compacted (with --bump-revision, as etcdutl's): a read or watch from an earlier revision is answered "compacted"
    #[arg(long, requires = "bump_revision")]
    pub mark_compacted: bool,
}
