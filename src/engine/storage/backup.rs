//! memberctl's snapshot file (what Maintenance.Snapshot streams): a
//! consistent copy of a member's state machine, checked and restored into
//! the data directory of a member of a new cluster.
//!
//! The format: the 8 bytes `MCTLSNAP`, the storage format as a big-endian
//! u32, then frames of a big-endian u32 payload length, a kind byte and the
//! payload:
//! - kind 1, once: a `SnapshotHeader` (revision, compacted revision, members,
//!   leases, alarms);
//! - kind 2, any number: a `SnapshotChunk` of key-history records in
//!   (key, revision) order;
//! - kind 3, last: the number of records (a big-endian u64);
//!
//! then zero bytes up to a multiple of 512, and the SHA-256 of everything
//! before it (32 bytes), as etcd ends its snapshots: etcdctl's `snapshot
//! save` checks that shape.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use prost::Message as _;
use raft::eraftpb::{ConfState, Snapshot};

use super::layout::FORMAT;
use super::snapshot::{read_header, SnapshotSource};
use super::{Result, Store, StoreError};
use crate::proto::memberctl_store_v1 as spb;

/// The first bytes of a snapshot file.
pub const MAGIC: &[u8; 8] = b"MCTLSNAP";
const HEADER: u8 = 1;
const CHUNK: u8 = 2;
const END: u8 = 3;
/// The largest frame a reader accepts (a chunk is about 1 MiB).
const MAX_FRAME: usize = 256 << 20;
/// The file's hash: SHA-256, after padding to a multiple of [`ALIGN`].
const HASH_LEN: usize = 32;
const ALIGN: u64 = 512;

/// Zero bytes that bring `len` to a multiple of [`ALIGN`].
fn padding(len: u64) -> usize {
    ((ALIGN - len % ALIGN) % ALIGN) as usize
}

fn frame(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.push(kind);
    out.extend_from_slice(payload);
}

/// What a snapshot file holds, as `snapshot status` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupInfo {
    /// The store's revision.
    pub revision: i64,
    /// The compacted revision.
    pub compact_revision: i64,
    /// Key-history records (every kept revision of every key).
    pub records: u64,
    /// Leases.
    pub leases: usize,
    /// The file's SHA-256 (its last 32 bytes), in hex.
    pub sha256: String,
    /// The file's size in bytes.
    pub size: u64,
}

impl Store {
    /// Writes a snapshot file of the state machine as it is now, in pieces
    /// handed to `emit` with the bytes that remain after each; stops when
    /// `emit` returns false. Returns whether it went to the end.
    pub fn backup(&self, mut emit: impl FnMut(Vec<u8>, u64) -> bool) -> Result<bool> {
        let read = Arc::new(self.db().begin_read()?);
        let (header, _, _, _) = read_header(&read)?;
        let source = SnapshotSource { read };
        let mut first = MAGIC.to_vec();
        first.extend_from_slice(&FORMAT.to_be_bytes());
        frame(&mut first, HEADER, &header.encode_to_vec());
        // The size first (the read is a fixed point in time), for remaining_bytes.
        let mut total = first.len() as u64 + 5 + 8;
        source.read(|chunk| {
            total += 5 + chunk.len() as u64;
            true
        })?;
        total += padding(total) as u64 + HASH_LEN as u64;
        let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
        sha.update(&first);
        let mut sent = first.len() as u64;
        if !emit(first, total - sent) {
            return Ok(false);
        }
        let done = source.read(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() + 5);
            frame(&mut out, CHUNK, &chunk);
            sha.update(&out);
            sent += out.len() as u64;
            emit(out, total - sent)
        })?;
        let Some(records) = done else {
            return Ok(false);
        };
        let mut end = Vec::with_capacity(13 + ALIGN as usize + HASH_LEN);
        frame(&mut end, END, &records.to_be_bytes());
        end.resize(end.len() + padding(sent + end.len() as u64), 0);
        sha.update(&end);
        end.extend_from_slice(sha.finish().as_ref());
        Ok(emit(end, 0))
    }
}

/// Reads a snapshot file: checks its SHA-256 first, then hands the header
/// and each chunk to `f`, and checks the frames' order and the padding.
/// Returns the record count, the hash (hex) and the size.
fn read_file(
    path: &Path,
    mut f: impl FnMut(u8, &[u8]) -> Result<()>,
) -> Result<(u64, String, u64)> {
    let bad = |what: &str| {
        StoreError(format!(
            "{} is not a usable memberctl snapshot: {what}",
            path.display()
        ))
    };
    let open = || {
        let file = std::fs::File::open(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        Ok::<_, StoreError>(std::io::BufReader::with_capacity(1 << 20, file))
    };
    let size = std::fs::metadata(path)
        .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?
        .len();
    if size < 12 + HASH_LEN as u64 || size % ALIGN != HASH_LEN as u64 {
        return Err(bad(
            "its size is not that of a snapshot file (a cut-short copy?)",
        ));
    }
    let body = size - HASH_LEN as u64;
    // The hash, over everything before it.
    let mut r = open()?;
    let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    let mut left = body;
    while left > 0 {
        let n = (buf.len() as u64).min(left) as usize;
        r.read_exact(&mut buf[..n])?;
        sha.update(&buf[..n]);
        left -= n as u64;
    }
    let mut want = [0u8; HASH_LEN];
    r.read_exact(&mut want)?;
    let digest = sha.finish();
    if digest.as_ref() != want {
        return Err(bad("its SHA-256 does not match (the file is damaged)"));
    }
    let hex: String = want.iter().map(|b| format!("{b:02x}")).collect();
    // The frames.
    let mut r = open()?;
    let mut head = [0u8; 12];
    r.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(bad(
            "it does not start with MCTLSNAP (an etcd snapshot is restored with etcdctl snapshot restore)",
        ));
    }
    let format = u32::from_be_bytes([head[8], head[9], head[10], head[11]]);
    if format != FORMAT {
        return Err(bad(&format!(
            "it is in storage format {format}; this memberctl reads format {FORMAT}"
        )));
    }
    let mut at = 12u64;
    let mut payload = Vec::new();
    let mut seen_header = false;
    loop {
        let mut fh = [0u8; 5];
        if at + 5 > body {
            return Err(bad("it ends before its last frame"));
        }
        r.read_exact(&mut fh)?;
        let len = u32::from_be_bytes([fh[0], fh[1], fh[2], fh[3]]) as usize;
        at += 5 + len as u64;
        if len > MAX_FRAME || at > body {
            return Err(bad("a frame runs past the end"));
        }
        payload.resize(len, 0);
        r.read_exact(&mut payload)?;
        match fh[4] {
            END => {
                let records: [u8; 8] = payload
                    .as_slice()
                    .try_into()
                    .map_err(|_| bad("its last frame is malformed"))?;
                if padding(at) as u64 != body - at {
                    return Err(bad("there are bytes after its last frame"));
                }
                return Ok((u64::from_be_bytes(records), hex, size));
            }
            HEADER if !seen_header => seen_header = true,
            CHUNK if seen_header => {}
            _ => return Err(bad("its frames are out of order")),
        }
        f(fh[4], &payload)?;
    }
}

/// Checks a snapshot file whole and tells what it holds.
pub fn check(path: &Path) -> Result<BackupInfo> {
    let mut header = None;
    let (records, sha256, size) = read_file(path, |kind, payload| {
        if kind == HEADER {
            header = Some(spb::SnapshotHeader::decode(payload)?);
        }
        Ok(())
    })?;
    let header = header.expect("read_file checks the header is there");
    Ok(BackupInfo {
        revision: header.revision,
        compact_revision: header.compact_revision,
        records,
        leases: header.leases.len(),
        sha256,
        size,
    })
}

/// Restores a snapshot file into `store` (a fresh data directory) as a
/// member of a new cluster: the keys, their history, the revision and the
/// leases are the snapshot's; the cluster ID, the member's ID and the
/// membership are the new ones (as etcd's `snapshot restore`); alarms are
/// not carried over. The file is checked whole before anything is written.
pub fn restore(
    path: &Path,
    store: &Store,
    cluster_id: u64,
    member_id: u64,
    members: &[spb::MemberMeta],
) -> Result<BackupInfo> {
    let info = check(path)?;
    if store.member_id()?.is_some() {
        return Err(StoreError(format!(
            "{} already holds a member: restore into a new data directory",
            store.layout().dir.display()
        )));
    }
    store.join(cluster_id, member_id, members)?;
    let mut staging = None;
    let mut snap = Snapshot::default();
    read_file(path, |kind, payload| {
        if kind == HEADER {
            let mut header = spb::SnapshotHeader::decode(payload)?;
            header.cluster_id = cluster_id;
            header.members = members.to_vec();
            header.alarms.clear();
            snap.set_data(header.encode_to_vec().into());
            let md = snap.mut_metadata();
            md.index = 1;
            md.term = 1;
            md.set_conf_state(ConfState {
                voters: members.iter().map(|m| m.id).collect(),
                ..Default::default()
            });
            staging = Some(store.stage_snapshot(&snap)?);
        } else if let Some(s) = staging.as_mut() {
            s.write(payload)?;
        }
        Ok(())
    })?;
    staging
        .expect("read_file checks the header is there")
        .finish()?;
    store.apply_snapshot(&snap)?;
    Ok(info)
}
