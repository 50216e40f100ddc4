//! The raft log on disk: entries, hard state and truncation point in
//! raft-engine's append-only segment files (one raft group), with the
//! in-memory tail in front of it. Each [`RaftLog::append`] is one batched
//! write with at most one fdatasync.
//!
//! raft-engine's rules kept here: indexes are appended contiguously (a gap
//! would be written, then refused by a panic on every later open), the log's
//! own record is overwritten and never deleted (tikv/raft-engine#141), every
//! write that must be durable asks for the sync itself (`Engine::sync` does
//! nothing), and compaction is written with the record that says so.
//!
//! The room's parts: the in-memory tail ([`cache`]), old entries read for
//! lagging followers off the raft thread ([`fetch`]), and torn tails told
//! from damage ([`guard`]). The log knows nothing of the state machine:
//! it holds entries, and the index a checkpoint reached is told to it.

use std::path::Path;
use std::sync::Arc;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::{ConfChange, ConfChangeV2, Entry, EntryType, HardState};
use raft_engine::{Command, Config, LogBatch, MessageExt, ReadableSize, RecoveryMode};
use raft_proto::ConfChangeI;

/// The log engine over the guarded file system.
pub type Engine = raft_engine::Engine<GuardedFs>;

mod cache;
mod fetch;
mod guard;

pub use self::fetch::{Fetcher, Notify};

use self::cache::EntryCache;
use self::guard::GuardedFs;
use super::faults;
use super::{Result, StoreError, StoreErrorKind};
use crate::proto::memberctl_store_v1 as spb;

/// The one raft group of the log.
const GROUP: u64 = 1;
/// The key of the log's own record.
const STATE_KEY: &[u8] = b"log_state";
/// Bytes of recent entries kept in memory.
const CACHE_BYTES: usize = 32 << 20;
/// Size of one segment file.
const DEFAULT_FILE_BYTES: u64 = 32 << 20;
/// Segment files kept (in bytes) before purging rewrites or removes old ones.
const PURGE_FILES: u64 = 4;
/// Most entries read from the file at once.
const MAX_FILE_READ: u64 = 8192;
/// Most writes `--fault-ack-before-fsync` holds back (then it writes them).
const MAX_UNSYNCED: usize = 4096;
/// Test knob: the segment file size (small files make purges happen sooner).
pub const FILE_BYTES_ENV: &str = "MEMBERCTL_ENGINE_LOG_FILE_BYTES";

/// Tells raft-engine how to read an entry's index.
#[derive(Clone)]
struct EntryExt;

impl MessageExt for EntryExt {
    type Entry = Entry;

    fn index(e: &Entry) -> u64 {
        e.index
    }
}

impl From<raft_engine::Error> for StoreError {
    fn from(e: raft_engine::Error) -> Self {
        let kind = match &e {
            raft_engine::Error::Corruption(_) | raft_engine::Error::Codec(_) => {
                StoreErrorKind::Damaged
            }
            raft_engine::Error::Io(io) => match super::error::io_kind(io) {
                StoreErrorKind::Other => StoreErrorKind::Log,
                kind => kind,
            },
            // raft-engine says so only in words: its lock file is held.
            raft_engine::Error::Other(o) if o.to_string().contains("Failed to lock file") => {
                StoreErrorKind::Locked
            }
            _ => StoreErrorKind::Log,
        };
        StoreError::new(kind, format!("raft log: {e}"))
    }
}

/// What the log knows of itself (its record, decoded).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogState {
    /// raft's hard state as last written (the commit index may lag).
    pub hard_state: HardState,
    /// Index of the last entry removed from the log.
    pub trunc_index: u64,
    /// Its term.
    pub trunc_term: u64,
    /// The log's last index.
    pub last_index: u64,
}

impl LogState {
    fn encode(&self) -> Result<Vec<u8>> {
        Ok(spb::LogState {
            hard_state: self.hard_state.write_to_bytes()?,
            trunc_index: self.trunc_index,
            trunc_term: self.trunc_term,
            last_index: self.last_index,
        }
        .encode_to_vec())
    }

    fn decode(b: &[u8]) -> Result<LogState> {
        let s = spb::LogState::decode(b)?;
        Ok(LogState {
            hard_state: HardState::parse_from_bytes(&s.hard_state)?,
            trunc_index: s.trunc_index,
            trunc_term: s.trunc_term,
            last_index: s.last_index,
        })
    }
}

/// The raft log: the engine, its record, and the in-memory tail.
pub struct RaftLog {
    engine: Arc<Engine>,
    state: LogState,
    /// Whether the hard state in memory is newer than the one written (only
    /// the commit index may be: it is written with the next write).
    hard_state_dirty: bool,
    cache: EntryCache,
    /// Writes held back under `--fault-ack-before-fsync` (a test cluster's
    /// deliberate bug; see [`super::faults`]): written by [`RaftLog::sync`].
    unsynced: Vec<LogBatch>,
    /// A compaction (index and term) waiting to go with the next fsync'd write.
    pending_compact: Option<(u64, u64)>,
    /// Changes whenever entries are overwritten or the log is reset, so an
    /// entry read earlier can be told stale.
    generation: u64,
}

impl RaftLog {
    /// Opens (or creates) the log in `dir`. A torn tail (a write cut by a
    /// crash) is cut off; other damage is an error (see [`super::guard`]).
    pub fn open(dir: &Path) -> Result<RaftLog> {
        let file_bytes = std::env::var(FILE_BYTES_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_FILE_BYTES);
        let cfg = Config {
            dir: dir.to_string_lossy().into_owned(),
            recovery_mode: RecoveryMode::TolerateTailCorruption,
            // The CPU is the scarcer resource here: no lz4.
            batch_compression_threshold: ReadableSize(0),
            target_file_size: ReadableSize(file_bytes),
            purge_threshold: ReadableSize(file_bytes * PURGE_FILES),
            // A recycled file holds an old file's records after the new
            // tail; without recycling, what follows the tail is zeros, and
            // the torn-tail guard can tell a crash from damage.
            enable_log_recycle: false,
            ..Default::default()
        };
        let engine = Engine::open_with_file_system(cfg, Arc::new(GuardedFs::default()))?;
        let state = match engine.get(GROUP, STATE_KEY) {
            Some(b) => LogState::decode(&b)?,
            None => LogState::default(),
        };
        Ok(RaftLog {
            engine: Arc::new(engine),
            state,
            hard_state_dirty: false,
            cache: EntryCache::new(CACHE_BYTES),
            unsynced: Vec::new(),
            pending_compact: None,
            generation: 0,
        })
    }

    /// The log's record.
    pub fn state(&self) -> &LogState {
        &self.state
    }

    /// The engine, for purging on another thread.
    pub fn engine(&self) -> Arc<Engine> {
        self.engine.clone()
    }

    fn put_state(&mut self, batch: &mut LogBatch) -> Result<()> {
        batch.put(GROUP, STATE_KEY.to_vec(), self.state.encode()?)?;
        self.hard_state_dirty = false;
        Ok(())
    }

    /// The log's generation: it changes whenever entries are overwritten or
    /// the log is reset.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The first index the in-memory tail holds.
    pub fn cached_from(&self) -> Option<u64> {
        self.cache.first_index()
    }

    /// Appends `entries` (replacing any suffix from their first index on) and
    /// the hard state in one write, fdatasync'd when `sync`. A write carrying
    /// only a newer commit index is kept in memory until the next write; a
    /// pending compaction goes with the next fsync'd write. Returns whether
    /// a compaction was written (old files may be purged).
    pub fn append(
        &mut self,
        entries: &[Entry],
        hs: Option<&HardState>,
        sync: bool,
    ) -> Result<bool> {
        if let Some(first) = entries.first() {
            if first.index <= self.state.trunc_index || first.index > self.state.last_index + 1 {
                return Err(StoreError::other(format!(
                    "raft log: entries from {} do not follow the log ({}..={})",
                    first.index, self.state.trunc_index, self.state.last_index
                )));
            }
        }
        let only_commit = entries.is_empty()
            && hs.is_some_and(|hs| {
                hs.term == self.state.hard_state.term && hs.vote == self.state.hard_state.vote
            });
        if let Some(hs) = hs {
            self.state.hard_state = hs.clone();
            self.hard_state_dirty = true;
        }
        if only_commit && !sync {
            return Ok(false);
        }
        if entries.is_empty() && !self.hard_state_dirty {
            return Ok(false);
        }
        let mut batch = LogBatch::with_capacity(entries.len());
        if let Some(last) = entries.last() {
            if entries[0].index <= self.state.last_index {
                self.generation += 1;
            }
            batch.add_entries::<EntryExt>(GROUP, entries)?;
            self.state.last_index = last.index;
        }
        // A compaction is written only where it is fsync'd: segment files
        // are purged after it, and must never outlive the record of it.
        let compacted = match self.pending_compact.take() {
            Some((index, term)) if sync && index > self.state.trunc_index => {
                self.state.trunc_index = index;
                self.state.trunc_term = term;
                batch.add_command(GROUP, Command::Compact { index: index + 1 });
                self.cache.compact_to(index);
                true
            }
            pending => {
                self.pending_compact = pending.filter(|(i, _)| *i > self.state.trunc_index);
                false
            }
        };
        self.put_state(&mut batch)?;
        if faults::ack_before_fsync() && self.unsynced.len() < MAX_UNSYNCED && !compacted {
            // The deliberate bug: reported as written, kept in memory.
            self.unsynced.push(batch);
        } else {
            self.sync()?;
            self.engine.write(&mut batch, sync)?;
        }
        self.cache.append(entries);
        Ok(compacted)
    }

    /// Writes and fsyncs what `--fault-ack-before-fsync` held back (nothing
    /// otherwise): before the state machine is made durable, so that it
    /// never gets ahead of the log.
    pub fn sync(&mut self) -> Result<()> {
        let held = std::mem::take(&mut self.unsynced);
        let n = held.len();
        for (i, mut batch) in held.into_iter().enumerate() {
            self.engine.write(&mut batch, i + 1 == n)?;
        }
        Ok(())
    }

    /// Removes the entries up to `index` (held by a checkpoint), keeping its
    /// term as the truncation point: with the next fsync'd write, so it
    /// costs no fsync of its own (until then the entries are still served).
    pub fn compact(&mut self, index: u64) -> Result<()> {
        if index <= self.state.trunc_index || index > self.state.last_index {
            return Ok(());
        }
        let term = self.term(index)?;
        self.pending_compact = Some((index, term));
        Ok(())
    }

    /// Empties the log after a snapshot at `index` (`term`) was installed,
    /// with the hard state raft has then.
    pub fn reset(&mut self, index: u64, term: u64, hs: &HardState) -> Result<()> {
        self.sync()?;
        self.generation += 1;
        self.pending_compact = None;
        self.state = LogState {
            hard_state: hs.clone(),
            trunc_index: index,
            trunc_term: term,
            last_index: index,
        };
        let mut batch = LogBatch::default();
        batch.add_command(GROUP, Command::Compact { index: index + 1 });
        self.put_state(&mut batch)?;
        self.engine.write(&mut batch, true)?;
        self.cache.clear();
        Ok(())
    }

    /// The term of the entry at `index`, which must be in
    /// `[trunc_index, last_index]`.
    pub fn term(&self, index: u64) -> Result<u64> {
        if index == self.state.trunc_index {
            return Ok(self.state.trunc_term);
        }
        if let Some(t) = self.cache.term(index) {
            return Ok(t);
        }
        match self.engine.get_entry::<EntryExt>(GROUP, index)? {
            Some(e) => Ok(e.term),
            None => Err(StoreError::other(format!(
                "raft log: entry {index} is missing ({}..={})",
                self.state.trunc_index, self.state.last_index
            ))),
        }
    }

    /// The entries of `[low, high)` within `max_size` bytes (at least one),
    /// from memory when the tail holds `low`, else from the log file.
    pub fn entries(&self, low: u64, high: u64, max_size: u64) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        if self.cache.fetch(low, high, max_size, &mut out) {
            return Ok(out);
        }
        // Older than the tail: from the file, up to where the tail begins
        // (and a bounded stretch: the size limit ends a read long before).
        let end = self
            .cache
            .first_index()
            .map_or(high, |f| f.min(high))
            .min(low.saturating_add(MAX_FILE_READ));
        self.engine.fetch_entries_to::<EntryExt>(
            GROUP,
            low,
            end,
            Some(max_size as usize),
            &mut out,
        )?;
        if out.last().is_some_and(|e| e.index + 1 == end) && end < high {
            self.cache.fetch(end, high, max_size, &mut out);
        }
        if out.first().map(|e| e.index) != Some(low) {
            return Err(StoreError::other(format!(
                "raft log: entries from {low} are missing ({}..={})",
                self.state.trunc_index, self.state.last_index
            )));
        }
        Ok(out)
    }

    /// Reads the entries of `[low, end)` within `max_size` bytes (at least
    /// one) from the log's files, without the log itself: for a thread that
    /// reads old entries while the raft thread goes on writing.
    pub fn read_entries(engine: &Engine, low: u64, end: u64, max_size: u64) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        engine.fetch_entries_to::<EntryExt>(GROUP, low, end, Some(max_size as usize), &mut out)?;
        Ok(out)
    }

    /// Removes segment files that hold nothing live any more.
    pub fn purge(engine: &Engine) -> Result<()> {
        engine.purge_expired_files()?;
        Ok(())
    }
}

/// The configuration change a configuration-change entry carries (a v1
/// change as raft's v2 form).
pub fn conf_change(e: &Entry) -> Result<ConfChangeV2> {
    Ok(if e.get_entry_type() == EntryType::EntryConfChange {
        ConfChange::parse_from_bytes(&e.data)?.into_v2()
    } else {
        ConfChangeV2::parse_from_bytes(&e.data)?
    })
}
