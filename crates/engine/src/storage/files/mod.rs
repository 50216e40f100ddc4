//! The store's files: the snapshot file's format ([`snapfile`]), checkpoints
//! ([`checkpoint`]), raft snapshots streamed out and staged in
//! ([`snapshot`]), memberctl's older snapshot files ([`backup`]), etcd's
//! snapshot files both ways ([`to_etcd`], [`from_etcd`]) and
//! `--force-new-cluster` ([`force`]). This room takes a `Layout`, a `State`
//! or the log, never a `Store`: the store's faces call it.

pub(super) mod backup;
pub(super) mod checkpoint;
pub(super) mod force;
pub(super) mod from_etcd;
pub(super) mod snapfile;
pub(super) mod snapshot;
pub(super) mod to_etcd;
