//! etcd's database files: the bbolt file that is etcd's backend and, with a
//! SHA-256 trailer, its snapshot (`etcdctl snapshot save`); and its
//! write-ahead log, read to tell a freshly restored data directory. Read here for
//! `snapshot status`; below both halves (the engine's restore reads them too).
//! The format as found in real files: `docs/etcd-snapshots.md`.

#![warn(missing_docs)]

// The generated protobuf code, under the name the modules use.
use memberctl_proto as proto;

pub mod bbolt;
pub mod content;
mod crc32c;
pub mod snapshot;
pub mod wal;
pub mod writer;

pub use crc32c::Crc32c;
pub use snapshot::{status, SnapshotStatus};

/// Why a file cannot be read as an etcd database or snapshot.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Io(#[source] std::io::Error),
    /// No bbolt meta page at the start.
    #[error("it is not a bbolt database (no bbolt meta page at its start), so neither an etcd snapshot nor an etcd backend file")]
    NotBbolt,
    /// The file ends before the data its meta page describes.
    #[error("it is cut short: the database needs {needed} bytes, the file holds {have}; copy or save it again")]
    Truncated {
        /// Bytes the meta page says the data takes.
        needed: u64,
        /// Bytes the file holds (without a snapshot's trailer).
        have: u64,
    },
    /// A page or meta page that cannot be right.
    #[error("it is damaged: {0}")]
    Corrupt(String),
    /// A file to restore without a SHA-256 trailer, and no `--skip-hash-check`.
    #[error("it has no SHA-256 trailer (a database copied from a data directory, not saved with `snapshot save`?); give --skip-hash-check to restore it unchecked")]
    NoTrailer,
    /// A bbolt file whose buckets are not etcd's.
    #[error("its buckets are not etcd 3.4-3.7's: {0}")]
    Layout(String),
    /// The SHA-256 trailer is not the hash of the content.
    #[error("its SHA-256 trailer ({trailer}) is not the hash of its content ({content}): the file changed after it was saved; save it again")]
    HashMismatch {
        /// The trailer, hex.
        trailer: String,
        /// The content's hash, hex.
        content: String,
    },
}
