//! The raft log's file system: raft-engine's own, with one guard. When the
//! log is opened after a crash, raft-engine cuts a broken tail off its last
//! file; it cannot tell a write cut short by the crash (never fsync'd, so
//! never acknowledged: safe to drop) from damage in the middle of the file
//! followed by good records (dropping those would lose acknowledged
//! entries). The guard lets a cut happen only when what it removes is a torn
//! tail: one batch cut short by the end of the written data (or the zeros a
//! file is preallocated with). Otherwise the open fails and the file is left
//! as it was. Injected disk faults ([`crate::storage::faults`]) fail its writes and
//! fsyncs.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use raft_engine::env::{DefaultFileSystem, FileSystem, Handle, Permission, WriteExt};

use crate::storage::faults;

/// Bytes of a batch header in raft-engine's log files: the batch length
/// shifted left by 8 with the compression type in the low byte, then the
/// offset of its item footer, both big-endian.
const BATCH_HEADER: usize = 16;

/// raft-engine's default file system, with the torn-tail guard on truncation.
pub struct GuardedFs {
    inner: DefaultFileSystem,
}

impl Default for GuardedFs {
    fn default() -> Self {
        GuardedFs {
            inner: DefaultFileSystem,
        }
    }
}

/// A log file's handle that remembers its path.
pub struct GuardedHandle {
    inner: Arc<<DefaultFileSystem as FileSystem>::Handle>,
    path: PathBuf,
}

impl Handle for GuardedHandle {
    fn truncate(&self, offset: usize) -> std::io::Result<()> {
        let size = self.inner.file_size()?;
        if offset < size {
            check_torn_tail(&self.path, offset, size)?;
        }
        self.inner.truncate(offset)
    }

    fn file_size(&self) -> std::io::Result<usize> {
        self.inner.file_size()
    }

    fn sync(&self) -> std::io::Result<()> {
        if let Some(e) = faults::fsync_error() {
            return Err(e);
        }
        self.inner.sync()
    }
}

/// A log file's writer, through which an injected full disk fails writes.
pub struct GuardedWriter {
    inner: <DefaultFileSystem as FileSystem>::Writer,
}

impl Write for GuardedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(e) = faults::write_error() {
            return Err(e);
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Seek for GuardedWriter {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl WriteExt for GuardedWriter {
    fn truncate(&mut self, offset: usize) -> std::io::Result<()> {
        self.inner.truncate(offset)
    }

    fn allocate(&mut self, offset: usize, size: usize) -> std::io::Result<()> {
        if let Some(e) = faults::write_error() {
            return Err(e);
        }
        self.inner.allocate(offset, size)
    }
}

/// Refuses to cut `[offset, size)` off `path` unless it is a torn tail.
fn check_torn_tail(path: &Path, offset: usize, size: usize) -> std::io::Result<()> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset as u64))?;
    let mut rest = Vec::with_capacity(size - offset);
    f.take((size - offset) as u64).read_to_end(&mut rest)?;
    if is_torn_tail(&rest) {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{} is damaged at byte {offset}: {} bytes of data follow a broken record, which a \
             write cut short by a crash does not leave",
            path.display(),
            rest.len()
        ),
    ))
}

/// Whether `rest` (the bytes from a broken record to the end of the file)
/// is a single batch cut short: nothing but zeros after where it claims to
/// end, or too short to hold even its header.
pub fn is_torn_tail(rest: &[u8]) -> bool {
    let written = rest.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    if written < BATCH_HEADER {
        return true;
    }
    let len_and_type = u64::from_be_bytes(rest[..8].try_into().unwrap_or_default());
    let footer = u64::from_be_bytes(rest[8..16].try_into().unwrap_or_default()) as usize;
    let (compression, len) = (len_and_type as u8, (len_and_type >> 8) as usize);
    let plausible = compression <= 1 && footer >= BATCH_HEADER && footer <= len;
    plausible && len >= written
}

impl FileSystem for GuardedFs {
    type Handle = GuardedHandle;
    type Reader = <DefaultFileSystem as FileSystem>::Reader;
    type Writer = GuardedWriter;

    fn create<P: AsRef<Path>>(&self, path: P) -> std::io::Result<GuardedHandle> {
        Ok(GuardedHandle {
            inner: Arc::new(self.inner.create(path.as_ref())?),
            path: path.as_ref().to_path_buf(),
        })
    }

    fn open<P: AsRef<Path>>(&self, path: P, perm: Permission) -> std::io::Result<GuardedHandle> {
        Ok(GuardedHandle {
            inner: Arc::new(self.inner.open(path.as_ref(), perm)?),
            path: path.as_ref().to_path_buf(),
        })
    }

    fn delete<P: AsRef<Path>>(&self, path: P) -> std::io::Result<()> {
        self.inner.delete(path)
    }

    fn rename<P: AsRef<Path>>(&self, src_path: P, dst_path: P) -> std::io::Result<()> {
        self.inner.rename(src_path, dst_path)
    }

    fn new_reader(&self, handle: Arc<GuardedHandle>) -> std::io::Result<Self::Reader> {
        self.inner.new_reader(handle.inner.clone())
    }

    fn new_writer(&self, handle: Arc<GuardedHandle>) -> std::io::Result<Self::Writer> {
        Ok(GuardedWriter {
            inner: self.inner.new_writer(handle.inner.clone())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_torn_tail;

    fn header(len: usize, footer: u64) -> Vec<u8> {
        let mut h = ((len as u64) << 8).to_be_bytes().to_vec();
        h.extend_from_slice(&footer.to_be_bytes());
        h
    }

    #[test]
    fn only_a_batch_cut_short_is_a_torn_tail() {
        assert!(is_torn_tail(&[]));
        assert!(is_torn_tail(&[0u8; 4096]));
        assert!(is_torn_tail(&[1, 2, 3]));
        // A batch of 100 bytes of which 60 were written, then zeros.
        let mut cut = header(100, 80);
        cut.resize(60, 9);
        cut.resize(4096, 0);
        assert!(is_torn_tail(&cut));
        // A broken batch of 100 bytes followed by more data: damage.
        let mut more = header(100, 80);
        more.resize(300, 9);
        assert!(!is_torn_tail(&more));
        // Garbage where a header should be.
        assert!(!is_torn_tail(&[0xff; 64]));
    }
}
