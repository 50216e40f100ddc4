//! Raft snapshots. The leader prepares one from the state the apply stage
//! last published (a fixed state: nothing is copied or written), and its
//! transport streams it as a snapshot file, encoded only as the stream
//! takes it. The follower writes the stream to a file in `snap/` and reads
//! the state out of it as it arrives; once raft accepts the snapshot, the
//! log starts after it and the file becomes the newest checkpoint (a
//! rename), and the state read from it replaces the state machine.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;
use raft::eraftpb::{ConfState, Snapshot};
use tokio::sync::mpsc;

use super::checkpoint::{self, PacedFile};
use super::snapfile::{self, Decoder};
use crate::storage::layout::{sync_dir, Layout};
use crate::storage::values;
use crate::storage::{Result, State, StoreError};

/// A snapshot prepared for followers: its raft message and the state it
/// streams. The state is held here only until a stream takes it; then only
/// the streams hold it (an old state kept alive keeps the memory of
/// everything written since it from being shared).
pub(in crate::storage) struct Outgoing {
    pub(in crate::storage) snapshot: Snapshot,
    pub(in crate::storage) state: Option<Arc<State>>,
    pub(in crate::storage) streaming: Weak<State>,
}

impl Outgoing {
    /// The state, while it is held here or by a stream.
    pub(in crate::storage) fn state(&self) -> Option<Arc<State>> {
        self.state.clone().or_else(|| self.streaming.upgrade())
    }
}

/// A snapshot received whole and made durable, until raft installs it.
pub(in crate::storage) struct Staged {
    pub(in crate::storage) index: u64,
    pub(in crate::storage) term: u64,
    /// The file, complete and fsync'd (named `….received`).
    pub(in crate::storage) path: PathBuf,
    pub(in crate::storage) state: State,
    /// Where in the file each non-empty value of `state` begins.
    pub(in crate::storage) values: Vec<u64>,
}

/// Where a snapshot received whole waits for raft to install it (the
/// store's; a staging fills it).
pub(in crate::storage) type StagedSlot = Arc<Mutex<Option<Staged>>>;

/// Where a snapshot being sent comes from.
pub struct SnapshotSource {
    pub(in crate::storage) state: Arc<State>,
}

impl SnapshotSource {
    /// Writes the snapshot file in pieces of about `snapfile::CHUNK_BYTES`,
    /// handing each to `emit`; returns how many records went, or None when
    /// `emit` returned false (the receiver went away) and it stopped.
    pub fn read(&self, emit: impl FnMut(Vec<u8>) -> bool) -> Option<u64> {
        let header = snapfile::header(&self.state);
        let sent = snapfile::encode(&self.state, &header, emit);
        // Every value was read: their pages go back to the page cache.
        values::release_all();
        sent
    }
}

pub(in crate::storage) fn holds(cs: &ConfState, id: u64) -> bool {
    cs.voters.contains(&id) || cs.learners.contains(&id) || cs.learners_next.contains(&id)
}

fn received_name(index: u64, term: u64) -> String {
    format!("{}.received", checkpoint::file_name(index, term))
}

/// After a crash between the two steps of installing a snapshot (the log
/// reset, then the file made the newest checkpoint): when
/// the snapshot the log was reset for was received whole, makes it the
/// newest checkpoint. Returns whether it did.
pub(in crate::storage) fn resume_install(layout: &Layout, index: u64, term: u64) -> Result<bool> {
    let received = layout.snap_dir().join(received_name(index, term));
    if !received.is_file() {
        return Ok(false);
    }
    checkpoint::install(layout, &received, index, term)?;
    Ok(true)
}

/// Removes snapshots received but never installed (the leader sends again).
pub(in crate::storage) fn clear_received(layout: &Layout) -> Result<()> {
    for e in std::fs::read_dir(layout.snap_dir())? {
        let e = e?;
        if e.file_name().to_string_lossy().ends_with(".received") {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// Pieces of a snapshot's stream queued for each of the receiving threads.
const STAGING_QUEUE: usize = 8;

/// A snapshot being received: one thread writes its pieces to a file and
/// checks its SHA-256, another reads the state out of them, both while the
/// stream goes on arriving.
pub struct SnapshotStaging {
    to_file: Option<mpsc::Sender<Bytes>>,
    to_state: Option<mpsc::Sender<Bytes>>,
    file: Option<std::thread::JoinHandle<Result<PacedFile>>>,
    state: Option<std::thread::JoinHandle<Result<Decoder>>>,
    partial: PathBuf,
    index: u64,
    term: u64,
    /// The snapshot directory the received file goes to.
    dir: PathBuf,
    /// Where the finished snapshot waits for raft.
    slot: StagedSlot,
}

/// Writes the pieces to `file`, hashing all but the last [`snapfile::HASH_LEN`]
/// bytes seen, which must be their hash.
fn write_file(mut file: PacedFile, mut rx: mpsc::Receiver<Bytes>) -> Result<PacedFile> {
    let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
    let mut tail: Vec<u8> = Vec::with_capacity(2 * snapfile::HASH_LEN);
    while let Some(piece) = rx.blocking_recv() {
        file.write(&piece)?;
        // Everything but the last HASH_LEN bytes is hashed.
        if piece.len() >= snapfile::HASH_LEN {
            sha.update(&tail);
            let cut = piece.len() - snapfile::HASH_LEN;
            sha.update(&piece[..cut]);
            tail.clear();
            tail.extend_from_slice(&piece[cut..]);
        } else {
            tail.extend_from_slice(&piece);
            let over = tail.len().saturating_sub(snapfile::HASH_LEN);
            sha.update(&tail[..over]);
            tail.drain(..over);
        }
    }
    if sha.finish().as_ref() != tail.as_slice() {
        return Err(StoreError::other(
            "not a usable memberctl snapshot: its SHA-256 does not match (the stream was \
             damaged)",
        ));
    }
    Ok(file)
}

/// Reads the state out of the pieces.
fn read_state(mut rx: mpsc::Receiver<Bytes>) -> Result<Decoder> {
    let mut decoder = Decoder::unhashed();
    while let Some(piece) = rx.blocking_recv() {
        decoder.feed(&piece)?;
    }
    Ok(decoder)
}

impl SnapshotStaging {
    /// Starts receiving the snapshot at `index` (`term`) into `partial` (in
    /// the layout's snapshot directory); once finished it waits in `slot`.
    pub(in crate::storage) fn start(
        layout: &Layout,
        slot: StagedSlot,
        partial: PathBuf,
        index: u64,
        term: u64,
    ) -> Result<SnapshotStaging> {
        let file = PacedFile::create(&partial)?;
        let (to_file, file_rx) = mpsc::channel(STAGING_QUEUE);
        let (to_state, state_rx) = mpsc::channel(STAGING_QUEUE);
        let spawn = |name: &str| std::thread::Builder::new().name(name.into());
        let file = spawn("snapshot-file").spawn(move || write_file(file, file_rx))?;
        let state = spawn("snapshot-state").spawn(move || read_state(state_rx))?;
        Ok(SnapshotStaging {
            to_file: Some(to_file),
            to_state: Some(to_state),
            file: Some(file),
            state: Some(state),
            partial,
            index,
            term,
            dir: layout.snap_dir(),
            slot,
        })
    }

    /// Adds the next piece of the snapshot's stream (waiting while the
    /// receiving threads are behind); both threads share its bytes.
    pub async fn write(&mut self, piece: Bytes) -> Result<()> {
        let (Some(f), Some(s)) = (&self.to_file, &self.to_state) else {
            return Err(StoreError::other("snapshot staging already finished"));
        };
        let sent = f.send(piece.clone()).await.is_ok() && s.send(piece).await.is_ok();
        if sent {
            return Ok(());
        }
        // A thread stopped: it says why.
        match self.join() {
            Err(e) => Err(e),
            Ok(_) => Err(StoreError::other("snapshot staging stopped")),
        }
    }

    /// Ends both threads and takes what they made.
    fn join(&mut self) -> Result<(PacedFile, Decoder)> {
        self.to_file = None;
        self.to_state = None;
        let ended = || StoreError::other("a snapshot staging thread panicked");
        let file = self.file.take().map(|h| h.join());
        let state = self.state.take().map(|h| h.join());
        match (file, state) {
            (Some(Ok(file)), Some(Ok(state))) => Ok((file?, state?)),
            _ => Err(ended()),
        }
    }

    /// Checks the received snapshot whole (its hash, and that it holds the
    /// state raft's message says), makes it durable, and keeps it ready for
    /// raft to install. Blocking: it waits for the receiving threads and
    /// for the disk.
    pub fn finish(mut self) -> Result<()> {
        let done = self.complete();
        if done.is_err() {
            let _ = std::fs::remove_file(&self.partial);
        }
        done
    }

    fn complete(&mut self) -> Result<()> {
        let (file, mut decoder) = self.join()?;
        let values = decoder.value_positions();
        let (_, state) = decoder.finish()?;
        if state.applied() != (self.index, self.term) {
            return Err(StoreError::other(format!(
                "the snapshot stream holds the state at index {} (term {}), not the one raft's \
                 message says ({}, term {})",
                state.applied().0,
                state.applied().1,
                self.index,
                self.term
            )));
        }
        file.sync()?;
        let dir = &self.dir;
        let received = dir.join(received_name(self.index, self.term));
        std::fs::rename(&self.partial, &received)?;
        sync_dir(dir)?;
        *self.slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(Staged {
            index: self.index,
            term: self.term,
            path: received,
            state,
            values,
        });
        Ok(())
    }
}

impl Drop for SnapshotStaging {
    /// A snapshot not finished (the stream broke) leaves nothing behind.
    fn drop(&mut self) {
        if self.file.is_some() || self.state.is_some() {
            let _ = self.join();
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}
