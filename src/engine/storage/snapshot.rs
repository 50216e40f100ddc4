//! Raft snapshots. The leader prepares one from the state the apply stage
//! last published (a fixed state: nothing is copied or written), and its
//! transport streams it as a snapshot file, encoded only as the stream
//! takes it. The follower writes the stream to a file in `snap/` and reads
//! the state out of it as it arrives; once raft accepts the snapshot, the
//! log starts after it and the file becomes the newest checkpoint (a
//! rename), and the state read from it replaces the state machine.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use prost::Message as _;
use raft::eraftpb::{ConfState, Snapshot};
use tokio::sync::mpsc;

use super::checkpoint::{self, PacedFile};
use super::layout::{sync_dir, Layout};
use super::snapfile::{self, Decoder};
use super::state::State;
use super::{lock, Result, Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

/// A snapshot prepared for followers: its raft message and the state it
/// streams. The state is held here only until a stream takes it; then only
/// the streams hold it (an old state kept alive keeps the memory of
/// everything written since it from being shared).
pub(super) struct Outgoing {
    snapshot: Snapshot,
    state: Option<Arc<State>>,
    streaming: Weak<State>,
}

impl Outgoing {
    /// The state, while it is held here or by a stream.
    fn state(&self) -> Option<Arc<State>> {
        self.state.clone().or_else(|| self.streaming.upgrade())
    }
}

/// A snapshot received whole and made durable, until raft installs it.
pub(super) struct Staged {
    index: u64,
    term: u64,
    /// The file, complete and fsync'd (named `….received`).
    path: PathBuf,
    state: State,
}

/// Where a snapshot being sent comes from.
pub struct SnapshotSource {
    state: Arc<State>,
}

impl SnapshotSource {
    /// Writes the snapshot file in pieces of about [`snapfile::CHUNK_BYTES`],
    /// handing each to `emit`; returns how many records went, or None when
    /// `emit` returned false (the receiver went away) and it stopped.
    pub fn read(&self, emit: impl FnMut(Vec<u8>) -> bool) -> Option<u64> {
        let header = snapfile::header(&self.state);
        snapfile::encode(&self.state, &header, emit)
    }
}

fn holds(cs: &ConfState, id: u64) -> bool {
    cs.voters.contains(&id) || cs.learners.contains(&id) || cs.learners_next.contains(&id)
}

fn received_name(index: u64, term: u64) -> String {
    format!("{}.received", checkpoint::file_name(index, term))
}

/// After a crash between the two steps of [`Store::apply_snapshot`]: when
/// the snapshot the log was reset for was received whole, makes it the
/// newest checkpoint. Returns whether it did.
pub(super) fn resume_install(layout: &Layout, index: u64, term: u64) -> Result<bool> {
    let received = layout.snap_dir().join(received_name(index, term));
    if !received.is_file() {
        return Ok(false);
    }
    checkpoint::install(layout, &received, index, term)?;
    Ok(true)
}

/// Removes snapshots received but never installed (the leader sends again).
pub(super) fn clear_received(layout: &Layout) -> Result<()> {
    for e in std::fs::read_dir(layout.snap_dir())? {
        let e = e?;
        if e.file_name().to_string_lossy().ends_with(".received") {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

impl Store {
    /// A snapshot at the published state's index for `to`, or None while
    /// that state is behind `request_index` or the log's start, or its
    /// configuration lacks `to` (raft asks again on the peer's next answer).
    /// A recent one is reused (several learners share it).
    pub(super) fn prepare_snapshot(&self, request_index: u64, to: u64) -> Result<Option<Snapshot>> {
        let trunc = self.log().state().trunc_index;
        let mut outgoing = lock(&self.inner.outgoing);
        if let Some(o) = outgoing.as_mut() {
            let md = o.snapshot.get_metadata();
            let fits = md.index >= request_index && md.index >= trunc;
            if fits && holds(md.get_conf_state(), to) {
                if let Some(state) = o.state() {
                    o.state = Some(state);
                    return Ok(Some(o.snapshot.clone()));
                }
            }
        }
        let state = self.state();
        let (applied, term) = state.applied();
        if applied == 0
            || applied < request_index
            || applied < trunc
            || !holds(state.conf_state(), to)
        {
            return Ok(None);
        }
        let mut snap = Snapshot::default();
        // The data says what follows on the snapshot's own stream.
        let head = spb::SnapshotHeader {
            format: snapfile::FORMAT,
            cluster_id: state.cluster_id(),
            revision: state.revision(),
            ..Default::default()
        };
        snap.set_data(head.encode_to_vec().into());
        let md = snap.mut_metadata();
        md.index = applied;
        md.term = term;
        md.set_conf_state(state.conf_state().clone());
        *outgoing = Some(Outgoing {
            snapshot: snap.clone(),
            streaming: Arc::downgrade(&state),
            state: Some(state),
        });
        Ok(Some(snap))
    }

    /// The source of the snapshot at `index` (`term`) prepared last, if it
    /// is that one.
    pub fn snapshot_source(&self, index: u64, term: u64) -> Option<SnapshotSource> {
        let mut outgoing = lock(&self.inner.outgoing);
        let o = outgoing.as_mut()?;
        let md = o.snapshot.get_metadata();
        if md.index != index || md.term != term {
            return None;
        }
        let state = o.state.take().or_else(|| o.streaming.upgrade())?;
        Some(SnapshotSource { state })
    }

    /// Starts receiving `snap` (from raft's snapshot message) into a file
    /// of its own; [`SnapshotStaging::write`] adds the pieces of its stream.
    pub fn stage_snapshot(&self, snap: &Snapshot) -> Result<SnapshotStaging> {
        let head = spb::SnapshotHeader::decode(snap.get_data())?;
        if head.format != snapfile::FORMAT {
            return Err(StoreError::other(format!(
                "snapshot in format {} refused: this member reads format {}; run the same \
                 memberctl on every member",
                head.format,
                snapfile::FORMAT
            )));
        }
        let cluster_id = self.cluster_id();
        if cluster_id != 0 && head.cluster_id != cluster_id {
            return Err(StoreError::other(format!(
                "snapshot of cluster {:x} refused: this member belongs to cluster {cluster_id:x}",
                head.cluster_id
            )));
        }
        let md = snap.get_metadata();
        std::fs::create_dir_all(self.layout().snap_dir())?;
        let partial = checkpoint::partial_path(self.layout(), md.index, md.term);
        SnapshotStaging::start(self, partial, md.index, md.term)
    }

    /// Installs the snapshot raft accepted: the log starts after it, then
    /// its file becomes the newest checkpoint (a crash in between is
    /// finished at the next open). Returns the state it holds, for the
    /// apply stage.
    pub fn apply_snapshot(&self, snap: &Snapshot) -> Result<State> {
        let md = snap.get_metadata();
        let staged = lock(&self.inner.staged)
            .take()
            .filter(|s| s.index == md.index && s.term == md.term)
            .ok_or_else(|| {
                StoreError::other(format!(
                    "snapshot {} (term {}) was accepted by raft but not received whole",
                    md.index, md.term
                ))
            })?;
        let mut hs = self.hard_state();
        hs.commit = hs.commit.max(md.index);
        hs.term = hs.term.max(md.term);
        self.log().reset(md.index, md.term, &hs)?;
        checkpoint::install(self.layout(), &staged.path, md.index, md.term)?;
        self.inner
            .durable_applied
            .store(md.index, std::sync::atomic::Ordering::Release);
        Ok(staged.state)
    }
}

/// Pieces of a snapshot's stream queued for each of the receiving threads.
const STAGING_QUEUE: usize = 8;

/// A snapshot being received: one thread writes its pieces to a file and
/// checks its SHA-256, another reads the state out of them, both while the
/// stream goes on arriving.
pub struct SnapshotStaging {
    to_file: Option<mpsc::Sender<Arc<Vec<u8>>>>,
    to_state: Option<mpsc::Sender<Arc<Vec<u8>>>>,
    file: Option<std::thread::JoinHandle<Result<PacedFile>>>,
    state: Option<std::thread::JoinHandle<Result<Decoder>>>,
    partial: PathBuf,
    index: u64,
    term: u64,
    store: Store,
}

/// Writes the pieces to `file`, hashing all but the last [`snapfile::HASH_LEN`]
/// bytes seen, which must be their hash.
fn write_file(mut file: PacedFile, mut rx: mpsc::Receiver<Arc<Vec<u8>>>) -> Result<PacedFile> {
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
fn read_state(mut rx: mpsc::Receiver<Arc<Vec<u8>>>) -> Result<Decoder> {
    let mut decoder = Decoder::unhashed();
    while let Some(piece) = rx.blocking_recv() {
        decoder.feed(&piece)?;
    }
    Ok(decoder)
}

impl SnapshotStaging {
    fn start(store: &Store, partial: PathBuf, index: u64, term: u64) -> Result<SnapshotStaging> {
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
            store: store.clone(),
        })
    }

    /// Adds the next piece of the snapshot's stream (waiting while the
    /// receiving threads are behind).
    pub async fn write(&mut self, piece: Vec<u8>) -> Result<()> {
        let piece = Arc::new(piece);
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
        let (file, decoder) = self.join()?;
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
        let dir = self.store.layout().snap_dir();
        let received = dir.join(received_name(self.index, self.term));
        std::fs::rename(&self.partial, &received)?;
        sync_dir(&dir)?;
        *lock(&self.store.inner.staged) = Some(Staged {
            index: self.index,
            term: self.term,
            path: received,
            state,
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
