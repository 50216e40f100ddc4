//! Memory-mapped regions of files, as `Bytes`: a value slices one without a
//! copy, and the mapping goes when the last slice does. Every live region is
//! listed, so its pages can be handed back to the page cache at once
//! ([`release_all`]): a shared file mapping counts in the process's RSS only
//! for the pages it touched since.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;

/// One `mmap` of a file (shared, so the file's page cache is its memory).
struct Region {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the region is plain memory owned by this value; readers see it
// through shared slices, and the only writer (the arena) writes each byte
// before any slice over it is handed out.
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: ptr and len are those mmap returned; nothing refers to
        // the region once its last owner is gone.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

impl Region {
    /// Hands the pages of `[from, to)` back to the page cache (their
    /// contents stay in the file; a later read maps them again).
    fn release(&self, from: usize, to: usize) {
        let page = page_size();
        let from = from / page * page;
        let to = to.min(self.len);
        if to <= from {
            return;
        }
        // SAFETY: the range lies within the mapping; MADV_DONTNEED on a
        // shared file mapping keeps the data (in the page cache and file).
        unsafe {
            libc::madvise(self.ptr.add(from).cast(), to - from, libc::MADV_DONTNEED);
        }
    }
}

/// The owner a `Bytes` holds.
struct Owner(Arc<Region>);

impl AsRef<[u8]> for Owner {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: the mapping is valid for len bytes while the region lives.
        unsafe { std::slice::from_raw_parts(self.0.ptr, self.0.len) }
    }
}

/// The live regions, for [`release_all`].
static LIVE: Mutex<Vec<Weak<Region>>> = Mutex::new(Vec::new());

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// A mapped region of `len` bytes of `file` from its start: its bytes, and
/// a handle that writes and releases it.
pub(super) struct Mapped {
    /// The whole region.
    pub(super) bytes: Bytes,
    region: Arc<Region>,
}

impl Mapped {
    /// Maps `len` bytes of `file` (`writable`: read and write).
    pub(super) fn map(file: &File, len: usize, writable: bool) -> std::io::Result<Mapped> {
        if len == 0 {
            return Err(std::io::Error::other("an empty file is not mapped"));
        }
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh mapping of an open descriptor; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let region = Arc::new(Region {
            ptr: ptr.cast(),
            len,
        });
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&region));
        drop(live);
        Ok(Mapped {
            bytes: Bytes::from_owner(Owner(region.clone())),
            region,
        })
    }

    /// Copies `data` to `at` (within the region, mapped writable, where no
    /// slice has been handed out).
    pub(super) fn write(&self, at: usize, data: &[u8]) {
        assert!(at + data.len() <= self.region.len, "write past a region");
        // SAFETY: in bounds (checked); the region is writable and nobody
        // reads these bytes before this returns.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.region.ptr.add(at), data.len());
        }
    }

    /// Hands `[from, to)` back to the page cache.
    pub(super) fn release(&self, from: usize, to: usize) {
        self.region.release(from, to);
    }
}

/// Maps a whole file read-only (a checkpoint), as `Bytes`.
pub fn map_file(file: &File) -> std::io::Result<Bytes> {
    let len = usize::try_from(file.metadata()?.len())
        .map_err(|_| std::io::Error::other("file too large to map"))?;
    Ok(Mapped::map(file, len, false)?.bytes)
}

/// Hands every mapped page back to the page cache: after a pass over the
/// whole state (a checkpoint or snapshot written, a checkpoint read), the
/// process keeps only what it reads next.
pub fn release_all() {
    let live: Vec<Arc<Region>> = {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.iter().filter_map(Weak::upgrade).collect()
    };
    for r in live {
        r.release(0, r.len);
    }
}
