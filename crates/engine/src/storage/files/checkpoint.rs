//! Checkpoints: the state machine written whole to a snapshot file in
//! `snap/`, named by the raft index and term it had applied. The newest one
//! is what a member starts from (the raft log replays what came after it),
//! and the log is compacted only up to it. A checkpoint is written to a
//! partial file, fsync'd, renamed into place and the directory fsync'd;
//! older ones are then removed.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::snapfile;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::faults;
use crate::storage::layout::{sync_dir, Layout};
use crate::storage::values;
use crate::storage::{Result, State, StoreError};

/// Bytes written between two starts of writeback: a checkpoint's data goes
/// to the disk as it is written, not in one flood at its fsync (which would
/// hold up the raft log's fsyncs on the same disk).
const WRITEBACK_EVERY: u64 = 8 << 20;
/// Bytes a checkpoint may have written ahead of what the disk has taken.
const WRITEBACK_AHEAD: u64 = 32 << 20;

/// A checkpoint's file name.
pub fn file_name(index: u64, term: u64) -> String {
    format!("{index:020}-{term:020}.snap")
}

/// The index and term a checkpoint's file name says.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    let (index, term) = name.strip_suffix(".snap")?.split_once('-')?;
    Some((index.parse().ok()?, term.parse().ok()?))
}

/// The checkpoints in `snap/`, oldest first.
pub fn list(layout: &Layout) -> Result<Vec<(u64, u64, PathBuf)>> {
    let dir = layout.snap_dir();
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    for e in std::fs::read_dir(&dir)? {
        let e = e?;
        if let Some((index, term)) = e.file_name().to_str().and_then(parse_name) {
            out.push((index, term, e.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Removes partial files (an interrupted checkpoint or snapshot transfer).
pub fn clear_partial(layout: &Layout) -> Result<()> {
    let dir = layout.snap_dir();
    std::fs::create_dir_all(&dir)?;
    for e in std::fs::read_dir(&dir)? {
        let e = e?;
        if e.file_name().to_string_lossy().contains(".partial") {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// A partial file in `snap/` for a checkpoint or a snapshot being received.
pub fn partial_path(layout: &Layout, index: u64, term: u64) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    layout
        .snap_dir()
        .join(format!("{}.{n}.partial", file_name(index, term)))
}

/// A file being written with its writeback started as it grows and held
/// to `WRITEBACK_AHEAD` bytes ahead of the disk.
pub struct PacedFile {
    file: std::fs::File,
    written: u64,
    started: u64,
}

impl PacedFile {
    /// Creates `path`.
    pub fn create(path: &Path) -> Result<PacedFile> {
        Ok(PacedFile {
            file: std::fs::File::create(path)?,
            written: 0,
            started: 0,
        })
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.write_all(bytes)?;
        self.written += bytes.len() as u64;
        if self.written - self.started >= WRITEBACK_EVERY {
            writeback(&self.file, self.started, self.written - self.started, false)?;
            self.started = self.written;
            if self.started > WRITEBACK_AHEAD {
                // Waits for the disk to have taken what is far enough back.
                writeback(&self.file, 0, self.started - WRITEBACK_AHEAD, true)?;
            }
        }
        Ok(())
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        self.written
    }

    /// Makes the file durable.
    pub fn sync(self) -> Result<()> {
        if let Some(e) = faults::checkpoint_fsync_error() {
            return Err(StoreError::other(format!("checkpoint: {e}")));
        }
        self.file.sync_all()?;
        Ok(())
    }
}

/// `sync_file_range` over `[offset, offset + len)`: starts writeback, or
/// (`wait`) waits for writeback already under way there to end.
fn writeback(file: &std::fs::File, offset: u64, len: u64, wait: bool) -> Result<()> {
    use std::os::fd::AsRawFd;
    let flags = if wait {
        libc::SYNC_FILE_RANGE_WAIT_BEFORE
    } else {
        libc::SYNC_FILE_RANGE_WRITE
    };
    // SAFETY: a valid open descriptor; the range lies within the file.
    let r = unsafe { libc::sync_file_range(file.as_raw_fd(), offset as i64, len as i64, flags) };
    if r != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(())
}

/// Writes `state` as the newest checkpoint and removes the older ones;
/// returns the file's size.
pub fn write(layout: &Layout, state: &State) -> Result<u64> {
    let (index, term) = state.applied();
    let partial = partial_path(layout, index, term);
    let mut file = PacedFile::create(&partial)?;
    let header = snapfile::header(state);
    let mut failed = None;
    let mut values = Vec::new();
    snapfile::encode_noting(state, &header, Some(&mut values), |piece| {
        match file.write(&piece) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    });
    if let Some(e) = failed {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    let size = file.len();
    if let Err(e) = file.sync() {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    install(layout, &partial, index, term)?;
    move_values(layout, state, index, term, &values);
    Ok(size)
}

/// Moves `state`'s values to the pages of its checkpoint at `index`
/// (`term`), durable now: the spill arena's segments, and older
/// checkpoints' pages, go once nothing else holds them. A checkpoint that
/// cannot be mapped leaves the values where they were.
pub fn move_values(layout: &Layout, state: &State, index: u64, term: u64, values: &[u64]) {
    let path = layout.snap_dir().join(file_name(index, term));
    if let Ok(file) = std::fs::File::open(&path).and_then(|f| values::map_file(&f)) {
        state.move_values(&file, values);
    }
    // Writing the checkpoint read every value: let those pages go.
    values::release_all();
}

/// Moves a complete, durable snapshot file into place as the checkpoint at
/// `index` (`term`) and removes the older ones.
pub fn install(layout: &Layout, partial: &Path, index: u64, term: u64) -> Result<()> {
    let dir = layout.snap_dir();
    std::fs::rename(partial, dir.join(file_name(index, term)))?;
    sync_dir(&dir)?;
    for (i, t, path) in list(layout)? {
        if (i, t) < (index, term) {
            std::fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// Loads the newest checkpoint: its header and state; None when there is none.
pub fn load_newest(layout: &Layout) -> Result<Option<(spb::SnapshotHeader, State)>> {
    let Some((index, term, path)) = list(layout)?.pop() else {
        return Ok(None);
    };
    let file = std::fs::File::open(&path)?;
    // Read from its pages, mapped, so the values stay there; read as a
    // stream where it cannot be mapped.
    let read = match values::map_file(&file) {
        Ok(mapped) => {
            let read = snapfile::read_mapped(mapped);
            values::release_all();
            read
        }
        Err(_) => snapfile::read(std::io::BufReader::with_capacity(1 << 20, file)),
    };
    let (header, state) = read.map_err(|e| {
        StoreError::new(
            e.kind,
            format!(
                "checkpoint {} (index {index}, term {term}) cannot be read: {}",
                path.display(),
                e.message
            ),
        )
    })?;
    if state.applied() != (index, term) {
        return Err(StoreError::other(format!(
            "checkpoint {} holds the state at index {} (term {}), not the one its name says",
            path.display(),
            state.applied().0,
            state.applied().1
        )));
    }
    Ok(Some((header, state)))
}
