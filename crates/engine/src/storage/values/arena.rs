//! The spill arena: where a value written or received goes until a
//! checkpoint holds it. Segments of a few tens of MiB, each a file of its
//! own in the member's directory that no name points to (`O_TMPFILE`, so a
//! crash leaves nothing behind), with its blocks reserved up front
//! (`fallocate`: a full disk is found here, not by a write through the
//! mapping), mapped shared and filled in order. Every couple of MiB the
//! filled pages go back to the page cache, so the process holds only the
//! values it reads. A segment is unmapped, and its blocks freed, when the
//! last value in it is gone or has moved to a checkpoint. Where no segment
//! can be had (no directory set, a full disk, a file system without
//! `O_TMPFILE`), a value stays on the heap.

use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::region::Mapped;

/// Bytes of one segment.
const SEGMENT: usize = 32 << 20;
/// Values larger than this stay on the heap.
const LARGEST: usize = SEGMENT / 8;
/// Filled bytes handed back to the page cache at a time.
const RELEASE_EVERY: usize = 2 << 20;
/// How long after a failed segment the arena tries again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The segment being filled.
struct Segment {
    map: Mapped,
    /// Its file, to start the write-back of filled pages.
    file: std::fs::File,
    used: usize,
    released: usize,
}

struct Arena {
    dir: Option<PathBuf>,
    segment: Option<Segment>,
    retry_at: Option<Instant>,
}

static ARENA: Mutex<Arena> = Mutex::new(Arena {
    dir: None,
    segment: None,
    retry_at: None,
});

fn arena() -> std::sync::MutexGuard<'static, Arena> {
    ARENA.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps values spilled in `dir` from now on (the member's directory).
pub fn spill_in(dir: &Path) {
    let mut a = arena();
    a.dir = Some(dir.to_path_buf());
    a.segment = None;
    a.retry_at = None;
}

/// A new segment in `dir`.
fn segment(dir: &Path) -> std::io::Result<Segment> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)?;
    // SAFETY: an open descriptor; reserves the segment's blocks.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, SEGMENT as libc::off_t) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Segment {
        map: Mapped::map(&file, SEGMENT, true)?,
        file,
        used: 0,
        released: 0,
    })
}

/// Starts writing `[from, to)` of `file` to disk, without waiting for it.
/// Left to the kernel's flusher, the filled pages of the last half minute
/// go at once (`vm.dirty_expire_centisecs`), and a log fsync waits behind
/// them: under `etcdctl check perf --load m` every member had one WAL
/// fsync of 32–64 ms about 35 s into the run, and the slowest request with
/// it. A couple of MiB at a time, the disk takes them as they come.
fn write_back(file: &std::fs::File, from: usize, to: usize) {
    // SAFETY: an open descriptor; the call only starts write-back of the
    // range (errors are left to the checkpoint, which fsyncs its own file).
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            from as libc::off64_t,
            (to - from) as libc::off64_t,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

/// `value` kept: in the arena's segment, or on the heap.
pub fn keep(value: &[u8]) -> Bytes {
    if value.is_empty() {
        return Bytes::new();
    }
    if value.len() > LARGEST {
        return Bytes::copy_from_slice(value);
    }
    let mut a = arena();
    let full = a
        .segment
        .as_ref()
        .is_none_or(|s| SEGMENT - s.used < value.len());
    if full {
        a.segment = None;
        let Some(dir) = a.dir.clone() else {
            return Bytes::copy_from_slice(value);
        };
        if a.retry_at.is_some_and(|t| Instant::now() < t) {
            return Bytes::copy_from_slice(value);
        }
        match segment(&dir) {
            Ok(s) => {
                a.segment = Some(s);
                a.retry_at = None;
            }
            Err(_) => {
                a.retry_at = Some(Instant::now() + RETRY_AFTER);
                return Bytes::copy_from_slice(value);
            }
        }
    }
    let Some(s) = a.segment.as_mut() else {
        return Bytes::copy_from_slice(value);
    };
    let at = s.used;
    s.map.write(at, value);
    s.used += value.len();
    if s.used - s.released >= RELEASE_EVERY {
        s.map.release(s.released, s.used);
        write_back(&s.file, s.released, s.used);
        s.released = s.used;
    }
    s.map.bytes.slice(at..at + value.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_written_to_a_segment_read_back_after_its_pages_are_released() {
        let dir = tempfile::tempdir().unwrap();
        let s = segment(dir.path()).unwrap();
        let one = b"the first value".to_vec();
        let two = vec![7u8; 5000];
        s.map.write(0, &one);
        s.map.write(one.len(), &two);
        let a = s.map.bytes.slice(0..one.len());
        let b = s.map.bytes.slice(one.len()..one.len() + two.len());
        s.map.release(0, SEGMENT);
        assert_eq!(
            &a[..],
            &one[..],
            "a value reads back after its pages were released"
        );
        assert_eq!(&b[..], &two[..]);
        // The segment's file has no name: the directory stays empty.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
