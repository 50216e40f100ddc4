//! Faults of the member's disk, a paused apply stage, slowed snapshot
//! streams, and the unsafe
//! durability switch, for test clusters only (`--fault-injection`): a
//! failing fsync (of the raft log and of checkpoints), a full disk, an apply
//! stage that stops applying while raft goes on committing, and
//! `--fault-ack-before-fsync`, which holds log writes in memory as a disk's
//! volatile cache would, so a kill loses what was acknowledged. One node runs
//! per process, so the switches are the process's.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use std::time::Duration;

/// A fault of the raft log's disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskFault {
    /// The disk works.
    None,
    /// fsync fails with EIO.
    FsyncFails,
    /// Writes fail with ENOSPC.
    DiskFull,
    /// Only checkpoints' fsync fails with EIO.
    CheckpointFsyncFails,
}

static DISK: AtomicU8 = AtomicU8::new(0);
static SYNC_FAILED: AtomicBool = AtomicBool::new(false);
static ACK_BEFORE_FSYNC: AtomicBool = AtomicBool::new(false);
static APPLY_PAUSED: AtomicBool = AtomicBool::new(false);
static CHECKPOINT_SYNC_FAILED: AtomicBool = AtomicBool::new(false);
static SNAPSHOT_CHUNK_DELAY_MS: AtomicU32 = AtomicU32::new(0);

/// Longest wait before each piece of a snapshot's stream.
pub const MAX_SNAPSHOT_CHUNK_DELAY: Duration = Duration::from_secs(10);

/// Makes this member wait `delay` (at most [`MAX_SNAPSHOT_CHUNK_DELAY`])
/// before each piece of every snapshot it sends from now on; zero ends it.
pub fn set_snapshot_chunk_delay(delay: Duration) {
    let ms = delay.min(MAX_SNAPSHOT_CHUNK_DELAY).as_millis() as u32;
    SNAPSHOT_CHUNK_DELAY_MS.store(ms, Ordering::SeqCst);
}

/// The wait before each piece of a snapshot's stream (zero: none).
pub fn snapshot_chunk_delay() -> Duration {
    Duration::from_millis(u64::from(SNAPSHOT_CHUNK_DELAY_MS.load(Ordering::SeqCst)))
}

/// Makes the raft log's disk fail (or work again) from now on.
pub fn set_disk(fault: DiskFault) {
    let v = match fault {
        DiskFault::None => 0,
        DiskFault::FsyncFails => 1,
        DiskFault::DiskFull => 2,
        DiskFault::CheckpointFsyncFails => 3,
    };
    DISK.store(v, Ordering::SeqCst);
}

/// The disk fault in force.
pub fn disk() -> DiskFault {
    match DISK.load(Ordering::SeqCst) {
        1 => DiskFault::FsyncFails,
        2 => DiskFault::DiskFull,
        3 => DiskFault::CheckpointFsyncFails,
        _ => DiskFault::None,
    }
}

/// The error an fsync of the log returns now, if it must fail; remembered,
/// so that the node can say why raft-engine stopped (it panics on a failed
/// fsync rather than go on with data it cannot vouch for).
pub fn fsync_error() -> Option<std::io::Error> {
    (disk() == DiskFault::FsyncFails).then(|| {
        SYNC_FAILED.store(true, Ordering::SeqCst);
        std::io::Error::other("fsync failed: input/output error (injected disk fault)")
    })
}

/// The error a write to the log returns now, if it must fail.
pub fn write_error() -> Option<std::io::Error> {
    (disk() == DiskFault::DiskFull).then(|| {
        std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "no space left on device (injected disk fault)",
        )
    })
}

/// The error an fsync of a checkpoint returns now, if it must fail; remembered.
pub fn checkpoint_fsync_error() -> Option<std::io::Error> {
    matches!(
        disk(),
        DiskFault::FsyncFails | DiskFault::CheckpointFsyncFails
    )
    .then(|| {
        CHECKPOINT_SYNC_FAILED.store(true, Ordering::SeqCst);
        std::io::Error::other("fsync failed: input/output error (injected disk fault)")
    })
}

/// Whether an fsync of a checkpoint has failed in this process.
pub fn checkpoint_sync_failed() -> bool {
    CHECKPOINT_SYNC_FAILED.load(Ordering::SeqCst)
}

/// Pauses (or resumes) the apply stage: committed entries wait unapplied.
pub fn set_apply_paused(paused: bool) {
    APPLY_PAUSED.store(paused, Ordering::SeqCst);
}

/// Whether the apply stage is paused.
pub fn apply_paused() -> bool {
    APPLY_PAUSED.load(Ordering::SeqCst)
}

/// Whether an fsync of the log has failed in this process.
pub fn sync_failed() -> bool {
    SYNC_FAILED.load(Ordering::SeqCst)
}

/// Turns on `--fault-ack-before-fsync`: log writes are kept in memory and
/// written (and fsync'd) only before the state machine is made durable, so
/// the node acknowledges entries a kill loses. A deliberate bug, for showing
/// that the linearizability checker catches it.
pub fn set_ack_before_fsync(on: bool) {
    ACK_BEFORE_FSYNC.store(on, Ordering::SeqCst);
}

/// Whether `--fault-ack-before-fsync` is on.
pub fn ack_before_fsync() -> bool {
    ACK_BEFORE_FSYNC.load(Ordering::SeqCst)
}
