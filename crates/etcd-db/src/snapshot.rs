//! etcd's snapshot files: the SHA-256 trailer checked, and the summary
//! `etcdctl snapshot status` gives (a CRC-32C of every bucket name, key and
//! value in order, the newest revision, the number of keys, the used size).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::bbolt::Db;
use super::{Crc32c, DbError};

/// Bytes of the SHA-256 trailer.
const TRAILER: u64 = 32;

/// What `etcdctl snapshot status` shows of a file, and its trailer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotStatus {
    /// CRC-32C of the bucket names, keys and values, in order (etcdctl's `hash`).
    pub hash: u32,
    /// The main revision of the last key in the `key` bucket (`revision`).
    pub revision: i64,
    /// Keys in every bucket (`totalKey`).
    pub total_key: u64,
    /// The database's used size in bytes (`totalSize`).
    pub total_size: u64,
    /// The SHA-256 trailer, hex, checked against the content; None for a
    /// database copied out of a data directory (it has none).
    pub sha256: Option<String>,
}

/// Whether a file of `len` bytes ends with a SHA-256 trailer: etcd's own
/// test, as pages are a multiple of 512 bytes.
pub fn has_trailer(len: u64) -> bool {
    len % 512 == TRAILER
}

/// Reads the file at `path` whole: every bucket walked while the trailer
/// (when there is one) is checked against the content.
pub fn status(path: &Path) -> Result<SnapshotStatus, DbError> {
    let file = File::open(path).map_err(DbError::Io)?;
    let len = file.metadata().map_err(DbError::Io)?.len();
    let trailer = has_trailer(len);
    let data_len = if trailer { len - TRAILER } else { len };
    let pages = file.try_clone().map_err(DbError::Io)?;
    let (status, sha256) = checked_while(&file, data_len, trailer, || summary(pages, data_len))?;
    Ok(SnapshotStatus { sha256, ..status })
}

/// Runs `work` (a walk of the file's pages) while another thread checks the
/// SHA-256 trailer of `file` (whose content is its first `data_len` bytes),
/// when `check`: the two reads of the file overlap. A trailer that does not
/// match is the error whatever `work` found (the file changed after it was
/// saved; its pages may look damaged because of that).
pub(super) fn checked_while<T>(
    file: &File,
    data_len: u64,
    check: bool,
    work: impl FnOnce() -> Result<T, DbError>,
) -> Result<(T, Option<String>), DbError> {
    if !check {
        return Ok((work()?, None));
    }
    std::thread::scope(|s| {
        let hashing = s.spawn(|| check_trailer(file, data_len));
        let done = work();
        let sha = hashing
            .join()
            .unwrap_or_else(|_| Err(DbError::Corrupt("the SHA-256 check stopped".into())))?;
        Ok((done?, Some(sha)))
    })
}

/// etcdctl's summary of the database in the first `data_len` bytes of `file`.
fn summary(file: File, data_len: u64) -> Result<SnapshotStatus, DbError> {
    let db = Db::open(file, data_len)?;
    let mut crc = Crc32c::new();
    let (mut revision, mut total_key) = (0i64, 0u64);
    for (name, root) in db.buckets()? {
        crc.update(&name);
        let is_key = name == b"key";
        db.for_each(&root, &mut |e| {
            crc.update(e.key);
            // etcdctl hashes a nested bucket's value as empty.
            if !e.is_bucket {
                crc.update(e.value);
            }
            if is_key {
                revision = main_revision(e.key)?;
            }
            total_key += 1;
            Ok(())
        })?;
    }
    Ok(SnapshotStatus {
        hash: crc.finish(),
        revision,
        total_key,
        total_size: db.size(),
        sha256: None,
    })
}

/// The main revision of an etcd revision key (8 bytes big-endian, `_`, 8 bytes).
fn main_revision(key: &[u8]) -> Result<i64, DbError> {
    key.get(..8)
        .and_then(|b| b.try_into().ok())
        .map(i64::from_be_bytes)
        .ok_or_else(|| {
            DbError::Corrupt(format!(
                "a key of the `key` bucket is {} bytes, shorter than a revision",
                key.len()
            ))
        })
}

/// The trailer of a file whose content is its first `data_len` bytes,
/// compared with the content's SHA-256 (read in 1 MiB pieces).
pub(super) fn check_trailer(file: &File, data_len: u64) -> Result<String, DbError> {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut content = file.take(data_len);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = content.read(&mut buf).map_err(DbError::Io)?;
        if n == 0 {
            break;
        }
        ctx.update(&buf[..n]);
    }
    let mut trailer = [0u8; TRAILER as usize];
    file.read_exact_at(&mut trailer, data_len)
        .map_err(DbError::Io)?;
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let (content, trailer) = (hex(ctx.finish().as_ref()), hex(&trailer));
    if content != trailer {
        return Err(DbError::HashMismatch { trailer, content });
    }
    Ok(trailer)
}
