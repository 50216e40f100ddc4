//! The store's snapshot face: whole states in and out. Raft snapshots
//! prepared for a follower from the published state and received from the
//! leader (staged, then installed); the state written as an etcd snapshot;
//! data directories of new clusters restored from memberctl's older snapshot
//! files and from etcd's. The files themselves are `files/`'s; here they
//! meet the store's log, published state and directory.

use std::path::Path;
use std::sync::Arc;

use prost::Message as _;
use raft::eraftpb::Snapshot;

use super::files::backup::{self, BackupInfo};
use super::files::checkpoint;
use super::files::from_etcd::{self, RestoreError};
use super::files::snapfile;
use super::files::snapshot::{holds, Outgoing, SnapshotSource, SnapshotStaging};
use super::files::to_etcd;
use super::{lock, Result, State, Store, StoreError};
use crate::etcd_db::content::Content;
use crate::etcd_db::writer::WriteError;
use crate::proto::memberctl_store_v1 as spb;

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
        SnapshotStaging::start(
            self.layout(),
            self.inner.staged.clone(),
            partial,
            md.index,
            md.term,
        )
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
        // Its values move from the spill arena to the file's pages now, so
        // the arena's segments go before the kernel writes them back.
        checkpoint::move_values(
            self.layout(),
            &staged.state,
            md.index,
            md.term,
            &staged.values,
        );
        self.inner
            .durable_applied
            .store(md.index, std::sync::atomic::Ordering::Release);
        Ok(staged.state)
    }
}

impl Store {
    /// Writes the state machine as it is now as an etcd snapshot (etcd 3.4's
    /// backend, `cluster_version` its cluster version, and the SHA-256
    /// trailer), in pieces handed to `emit` with the bytes that remain after
    /// each; stops when `emit` returns false. Returns whether it went to the end.
    pub fn etcd_snapshot(
        &self,
        cluster_version: &str,
        mut emit: impl FnMut(Vec<u8>, u64) -> bool,
    ) -> std::result::Result<bool, WriteError> {
        let state: Arc<State> = self.state();
        let written = to_etcd::write_etcd(&state, cluster_version, &mut emit);
        // Every value was read: their pages go back to the page cache.
        super::values::release_all();
        written
    }

    /// Restores a memberctl snapshot file into this store (a fresh data
    /// directory) as a member of a new cluster: the keys, their history, the
    /// revision, the leases and auth are the snapshot's; the cluster ID, the
    /// member's ID and the membership are the new ones (as etcd's `snapshot
    /// restore`); alarms are not carried over. The file is checked whole
    /// before anything is written.
    /// With `bump`, the revision is moved that far ahead and marked
    /// compacted ([`State::bump_and_mark_compacted`]). Returns what the file
    /// held and where the new member starts.
    pub fn restore_backup(
        &self,
        path: &Path,
        cluster_id: u64,
        member_id: u64,
        members: &[spb::MemberMeta],
        bump: Option<i64>,
    ) -> Result<(BackupInfo, StartsAt)> {
        let (info, mut state) = backup::read(path, cluster_id)?;
        let at = starts_at(&mut state, bump).map_err(StoreError::other)?;
        self.bootstrap_with(state, member_id, members)?;
        Ok((info, at))
    }
}

/// Where a restored member's store starts: its revision and compacted revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartsAt {
    /// The store's revision.
    pub revision: i64,
    /// The revision compacted at.
    pub compact_revision: i64,
}

/// Applies `bump` to a restored state; where it starts, or why the bump
/// cannot be made.
fn starts_at(state: &mut State, bump: Option<i64>) -> std::result::Result<StartsAt, String> {
    if let Some(by) = bump {
        if state.bump_and_mark_compacted(by).is_none() {
            return Err(format!(
                "--bump-revision {by}: the snapshot's revision {} plus {by} does not fit in a \
                 revision (at most {}); give a smaller amount",
                state.revision(),
                i64::MAX
            ));
        }
    }
    Ok(StartsAt {
        revision: state.revision(),
        compact_revision: state.compacted(),
    })
}

/// Restores the etcd database at `path` into a new data directory `dir`.
/// The file is read whole (its trailer checked unless `skip_hash_check`)
/// before the directory is created; with `bump`, the revision is moved that
/// far ahead and marked compacted. Returns what the file held and where the
/// new member starts.
pub fn restore_etcd(
    path: &Path,
    skip_hash_check: bool,
    dir: &Path,
    cluster_id: u64,
    member_id: u64,
    members: &[spb::MemberMeta],
    bump: Option<i64>,
) -> std::result::Result<(Content, StartsAt), RestoreError> {
    let (content, mut state) = from_etcd::read(path, skip_hash_check, cluster_id)?;
    let at = starts_at(&mut state, bump).map_err(|e| RestoreError::Store(StoreError::other(e)))?;
    Store::open(dir)?.bootstrap_with(state, member_id, members)?;
    Ok((content, at))
}
