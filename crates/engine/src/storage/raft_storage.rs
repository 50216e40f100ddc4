//! raft-rs's [`raft::Storage`] over the store: the log's bounds and entries
//! (the in-memory tail first; older ones read off the raft thread, see
//! [`super::log::Fetcher`]), the initial state, and snapshots prepared without
//! copying the state (see [`super::snapshot`]).

use raft::eraftpb::{Entry, Snapshot};
use raft::{GetEntriesContext, RaftState, StorageError};

use super::{Store, StoreError};

fn store_err(e: StoreError) -> raft::Error {
    raft::Error::Store(StorageError::Other(Box::new(e)))
}

impl raft::Storage for Store {
    /// The hard state, its commit index at least the applied index (the
    /// commit index is written lazily; what was applied was committed).
    fn initial_state(&self) -> raft::Result<RaftState> {
        let applied = self.applied();
        let mut hs = self.hard_state();
        hs.commit = hs.commit.max(applied).min(self.last_index());
        Ok(RaftState::new(hs, self.conf_state()))
    }

    fn entries(
        &self,
        low: u64,
        high: u64,
        max_size: impl Into<Option<u64>>,
        context: GetEntriesContext,
    ) -> raft::Result<Vec<Entry>> {
        let max_size = max_size.into().unwrap_or(u64::MAX);
        let log = self.log();
        let st = log.state();
        if low <= st.trunc_index {
            return Err(raft::Error::Store(StorageError::Compacted));
        }
        if high > st.last_index + 1 {
            return Err(raft::Error::Store(StorageError::Unavailable));
        }
        if low >= high {
            return Ok(Vec::new());
        }
        let cached_from = log.cached_from();
        let in_memory = cached_from.is_some_and(|f| f <= low);
        let fetcher = &self.inner.fetcher;
        if in_memory || !context.can_async() || !fetcher.is_async() {
            return log.entries(low, high, max_size).map_err(store_err);
        }
        // Older than the tail, for a follower's append: read off this thread.
        let generation = log.generation();
        drop(log);
        if let Some(mut entries) = fetcher.take(low, generation) {
            entries.retain(|e| e.index < high);
            let mut size = 0u64;
            let keep = entries
                .iter()
                .take_while(|e| {
                    size += protobuf::Message::compute_size(*e) as u64;
                    size <= max_size
                })
                .count()
                .max(1);
            entries.truncate(keep);
            if entries.first().map(|e| e.index) == Some(low) {
                return Ok(entries);
            }
        }
        let end = cached_from.map_or(high, |f| f.min(high));
        fetcher.request(low, end, max_size, generation, context);
        Err(raft::Error::Store(StorageError::LogTemporarilyUnavailable))
    }

    fn term(&self, idx: u64) -> raft::Result<u64> {
        let log = self.log();
        let st = log.state();
        if idx < st.trunc_index {
            return Err(raft::Error::Store(StorageError::Compacted));
        }
        if idx > st.last_index {
            return Err(raft::Error::Store(StorageError::Unavailable));
        }
        log.term(idx).map_err(store_err)
    }

    fn first_index(&self) -> raft::Result<u64> {
        Ok(self.log().state().trunc_index + 1)
    }

    fn last_index(&self) -> raft::Result<u64> {
        Ok(self.log().state().last_index)
    }

    /// A snapshot at the applied index, at least `request_index`, whose
    /// configuration holds `to`. Preparing one opens a read of the state
    /// machine and copies nothing: the keys are read in chunks while the
    /// snapshot is sent. While the state machine lags the request or the
    /// configuration, raft is told to ask again (it does, on the peer's next
    /// response).
    fn snapshot(&self, request_index: u64, to: u64) -> raft::Result<Snapshot> {
        match self.prepare_snapshot(request_index, to) {
            Ok(Some(snap)) => Ok(snap),
            Ok(None) => Err(raft::Error::Store(
                StorageError::SnapshotTemporarilyUnavailable,
            )),
            Err(e) => Err(store_err(e)),
        }
    }
}
