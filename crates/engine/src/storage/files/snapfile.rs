//! The snapshot file: one format for a member's checkpoints, the snapshots a
//! leader streams to followers and the backups `snapshot save` writes. It is
//! written from a fixed state piece by piece and read back piece by piece as
//! it arrives, so neither side holds a second copy of the data.
//!
//! The format: the 8 bytes `MCTLSNAP`, the format number as a big-endian
//! u32, then frames of a big-endian u32 payload length, a kind byte and the
//! payload:
//! - kind 1, once: a `SnapshotHeader` (revision, compacted revision, members,
//!   leases, alarms, auth, the applied raft index and configuration);
//! - kind 2, any number: a `SnapshotChunk` of key-history records in
//!   (key, revision) order;
//! - kind 3, last: the number of records (a big-endian u64);
//!
//! then zero bytes up to a multiple of 512, and the SHA-256 of everything
//! before it (32 bytes), as etcd ends its snapshots: etcdctl's `snapshot
//! save` checks that shape.

use std::sync::Arc;

use prost::Message as _;
use protobuf::Message as _;
use raft::eraftpb::ConfState;

use crate::proto::memberctl_store_v1 as spb;
use crate::storage::state::{parse_record, Key, Record};
use crate::storage::values::Value;
use crate::storage::{Result, State, StoreError};

/// The first bytes of a snapshot file.
pub const MAGIC: &[u8; 8] = b"MCTLSNAP";
/// The format this build writes and reads (the framing has not changed
/// since memberctl's storage format 3; headers gained fields since).
pub const FORMAT: u32 = 3;
/// Bytes of records in one chunk (about: a chunk holds whole records).
pub const CHUNK_BYTES: usize = 1 << 20;
const HEADER: u8 = 1;
const CHUNK: u8 = 2;
const END: u8 = 3;
/// The largest frame a reader accepts (a chunk is about 1 MiB).
const MAX_FRAME: usize = 256 << 20;
/// The file's hash: SHA-256, after padding to a multiple of `ALIGN`.
pub const HASH_LEN: usize = 32;
const ALIGN: u64 = 512;
const PREFIX: usize = 12;

/// Zero bytes that bring `len` to a multiple of [`ALIGN`].
fn padding(len: u64) -> usize {
    ((ALIGN - len % ALIGN) % ALIGN) as usize
}

fn frame_head(out: &mut Vec<u8>, kind: u8, len: usize) {
    out.extend_from_slice(&(len as u32).to_be_bytes());
    out.push(kind);
}

/// The header of `state`'s snapshot file.
pub fn header(state: &State) -> spb::SnapshotHeader {
    let (applied, term) = state.applied();
    spb::SnapshotHeader {
        format: FORMAT,
        cluster_id: state.cluster_id(),
        revision: state.revision(),
        members: state.members(),
        compact_revision: state.compacted(),
        leases: state.leases.values().copied().collect(),
        alarms: state
            .alarms
            .iter()
            .map(|&(member_id, alarm)| spb::AlarmRecord { member_id, alarm })
            .collect(),
        auth: Some((*state.auth).clone()),
        applied_index: applied,
        applied_term: term,
        conf_state: state.conf_state().write_to_bytes().unwrap_or_default(),
        removed_members: state.removed(),
    }
}

/// Writes `state` as a snapshot file with `header`, handing it to `emit` in
/// pieces of about [`CHUNK_BYTES`]; stops when `emit` returns false.
/// Returns the number of records, or None when it stopped early.
pub fn encode(
    state: &State,
    header: &spb::SnapshotHeader,
    emit: impl FnMut(Vec<u8>) -> bool,
) -> Option<u64> {
    encode_noting(state, header, None, emit)
}

/// [`encode`], noting in `values` where in the file each non-empty value
/// of the history begins, in the history's order (for
/// `State::move_values` once the file is durable).
pub fn encode_noting(
    state: &State,
    header: &spb::SnapshotHeader,
    mut values: Option<&mut Vec<u64>>,
    mut emit: impl FnMut(Vec<u8>) -> bool,
) -> Option<u64> {
    let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
    // Bytes handed to `emit` so far.
    let mut written = 0u64;
    let mut send = |piece: Vec<u8>, sha: &mut ring::digest::Context, written: &mut u64| {
        sha.update(&piece);
        *written += piece.len() as u64;
        emit(piece)
    };
    let head = header.encode_to_vec();
    let mut first = Vec::with_capacity(PREFIX + 5 + head.len());
    first.extend_from_slice(MAGIC);
    first.extend_from_slice(&FORMAT.to_be_bytes());
    frame_head(&mut first, HEADER, head.len());
    first.extend_from_slice(&head);
    if !send(first, &mut sha, &mut written) {
        return None;
    }
    let mut records = 0u64;
    let new_chunk = || {
        let mut c = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
        // Room for the frame's head, filled in when the chunk is full.
        c.extend_from_slice(&[0; 5]);
        c
    };
    let close = |mut c: Vec<u8>| {
        let len = c.len() - 5;
        c[..4].copy_from_slice(&(len as u32).to_be_bytes());
        c[4] = CHUNK;
        c
    };
    let mut chunk = new_chunk();
    for rec in state.revs.values() {
        prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut chunk);
        prost::encoding::encode_varint(rec.encoded_len() as u64, &mut chunk);
        let at = rec.encode_raw(&mut chunk);
        if let (Some(values), Some(at)) = (values.as_deref_mut(), at) {
            values.push(written + at as u64);
        }
        records += 1;
        if chunk.len() - 5 >= CHUNK_BYTES
            && !send(
                close(std::mem::replace(&mut chunk, new_chunk())),
                &mut sha,
                &mut written,
            )
        {
            return None;
        }
    }
    let mut last = if chunk.len() > 5 {
        close(chunk)
    } else {
        Vec::new()
    };
    frame_head(&mut last, END, 8);
    last.extend_from_slice(&records.to_be_bytes());
    let end = written + last.len() as u64;
    last.resize(last.len() + padding(end), 0);
    sha.update(&last);
    let digest = sha.finish();
    last.extend_from_slice(digest.as_ref());
    if !emit(last) {
        return None;
    }
    Some(records)
}

/// Where a [`Decoder`] is in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Prefix,
    Frames,
    Padding(usize),
    Trailer,
    Done,
}

/// Reads a snapshot file as its pieces arrive, building the state it holds
/// and checking its frames, their order, the records' order and, at the
/// end, its SHA-256.
pub struct Decoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already consumed.
    at: usize,
    /// Bytes of the file consumed before `buf`.
    offset: u64,
    sha: Option<ring::digest::Context>,
    phase: Phase,
    header: Option<spb::SnapshotHeader>,
    state: State,
    /// The newest record of the key being read: live once the next key
    /// begins, unless it is a deletion.
    newest: Option<Arc<Record>>,
    newest_key: Option<Key>,
    last_rev: u64,
    records: u64,
    /// Whether the state is built (off when the file is only checked).
    build: bool,
    /// The file's SHA-256, once read.
    trailer: Option<[u8; HASH_LEN]>,
    /// Whether the hash is checked here (else by whoever writes the file).
    hashed: bool,
    /// The whole file, mapped, when it is read from there: values stay in
    /// its pages instead of being copied.
    file: Option<bytes::Bytes>,
    /// Where in the file each non-empty value of the state begins, in the
    /// history's order (for `State::move_values` once the file is durable).
    values: Vec<u64>,
}

fn malformed(what: &str) -> StoreError {
    StoreError::other(format!("not a usable memberctl snapshot: {what}"))
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// A decoder at the start of a file.
    pub fn new() -> Decoder {
        Decoder {
            buf: Vec::new(),
            at: 0,
            offset: 0,
            sha: Some(ring::digest::Context::new(&ring::digest::SHA256)),
            phase: Phase::Prefix,
            header: None,
            state: State::default(),
            newest: None,
            newest_key: None,
            last_rev: 0,
            records: 0,
            build: true,
            trailer: None,
            hashed: true,
            file: None,
            values: Vec::new(),
        }
    }

    /// `bytes` as a value: a slice of the mapped file when they lie in it,
    /// else kept as any value written.
    fn value(&self, bytes: &[u8]) -> Value {
        if let Some(file) = &self.file {
            let start = (bytes.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
            if !bytes.is_empty() && start <= file.len() && bytes.len() <= file.len() - start {
                return Value::from_bytes(file.slice(start..start + bytes.len()));
            }
        }
        Value::new(bytes)
    }

    /// A decoder that leaves the SHA-256 to be checked by another reader of
    /// the same bytes (a snapshot received is written and read at once).
    pub fn unhashed() -> Decoder {
        Decoder {
            sha: None,
            hashed: false,
            ..Decoder::new()
        }
    }

    /// A decoder that checks a file without building its state.
    pub fn checking() -> Decoder {
        Decoder {
            build: false,
            ..Decoder::new()
        }
    }

    /// The file's SHA-256 in hex, once read.
    pub fn sha256(&self) -> Option<String> {
        self.trailer
            .map(|t| t.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Reads the next piece of the file.
    pub fn feed(&mut self, piece: &[u8]) -> Result<()> {
        if self.phase == Phase::Done {
            return Err(malformed("there are bytes after its SHA-256"));
        }
        if self.buf.is_empty() {
            // Read straight from the piece; keep only what is left of it.
            let read = self.run(piece);
            self.buf.extend_from_slice(&piece[self.at..]);
            self.offset += self.at as u64;
            self.at = 0;
            return read;
        }
        self.buf.extend_from_slice(piece);
        let buf = std::mem::take(&mut self.buf);
        let read = self.run(&buf);
        self.buf = buf;
        self.buf.drain(..self.at);
        self.offset += self.at as u64;
        self.at = 0;
        read
    }

    /// Takes steps over `data` (from `self.at`) while it holds enough.
    fn run(&mut self, data: &[u8]) -> Result<()> {
        self.at = 0;
        while self.step(data)? {}
        Ok(())
    }

    fn consume(&mut self, data: &[u8], n: usize) {
        if let Some(sha) = self.sha.as_mut() {
            sha.update(&data[self.at..self.at + n]);
        }
        self.at += n;
    }

    /// Takes one step if `data` holds enough; returns whether it did.
    fn step(&mut self, data: &[u8]) -> Result<bool> {
        let rest = &data[self.at..];
        match self.phase {
            Phase::Prefix => {
                if rest.len() < PREFIX {
                    return Ok(false);
                }
                if &rest[..8] != MAGIC {
                    return Err(malformed(
                        "it does not start with MCTLSNAP (an etcd snapshot is restored with \
                         etcdctl snapshot restore)",
                    ));
                }
                let f = &rest[8..12];
                let format = u32::from_be_bytes([f[0], f[1], f[2], f[3]]);
                if format != FORMAT {
                    return Err(malformed(&format!(
                        "it is in snapshot format {format}; this memberctl reads format {FORMAT}"
                    )));
                }
                self.consume(data, PREFIX);
                self.phase = Phase::Frames;
            }
            Phase::Frames => {
                if rest.len() < 5 {
                    return Ok(false);
                }
                let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
                let kind = rest[4];
                if len > MAX_FRAME {
                    return Err(malformed("a frame is longer than any it writes"));
                }
                if rest.len() < 5 + len {
                    return Ok(false);
                }
                let start = self.at + 5;
                match kind {
                    HEADER if self.header.is_none() => {
                        let h = spb::SnapshotHeader::decode(&data[start..start + len])?;
                        self.begin(h)?;
                    }
                    CHUNK if self.header.is_some() => {
                        let at = self.offset + start as u64;
                        self.chunk(&data[start..start + len], at)?
                    }
                    END if self.header.is_some() => {
                        let b = &data[start..start + len];
                        let count: [u8; 8] = b
                            .try_into()
                            .map_err(|_| malformed("its last frame is malformed"))?;
                        if u64::from_be_bytes(count) != self.records {
                            return Err(malformed(&format!(
                                "it says it holds {} records, but {} came",
                                u64::from_be_bytes(count),
                                self.records
                            )));
                        }
                        self.end_key();
                        let end = self.offset + (self.at + 5 + len) as u64;
                        self.phase = Phase::Padding(padding(end));
                    }
                    _ => return Err(malformed("its frames are out of order")),
                }
                self.consume(data, 5 + len);
            }
            Phase::Padding(n) => {
                if rest.len() < n {
                    return Ok(false);
                }
                if rest[..n].iter().any(|b| *b != 0) {
                    return Err(malformed("there are bytes after its last frame"));
                }
                self.consume(data, n);
                self.phase = Phase::Trailer;
            }
            Phase::Trailer => {
                if rest.len() < HASH_LEN {
                    return Ok(false);
                }
                let digest = self.sha.take().map(|s| s.finish());
                if self.hashed && digest.as_ref().map(|d| d.as_ref()) != Some(&rest[..HASH_LEN]) {
                    return Err(malformed(
                        "its SHA-256 does not match (the file is damaged)",
                    ));
                }
                let mut trailer = [0u8; HASH_LEN];
                trailer.copy_from_slice(&rest[..HASH_LEN]);
                self.trailer = Some(trailer);
                self.at += HASH_LEN;
                self.phase = Phase::Done;
                if data.len() > self.at {
                    return Err(malformed("there are bytes after its SHA-256"));
                }
                return Ok(false);
            }
            Phase::Done => return Ok(false),
        }
        Ok(true)
    }

    fn begin(&mut self, h: spb::SnapshotHeader) -> Result<()> {
        if h.format != FORMAT {
            return Err(malformed(&format!(
                "its header is in format {}; this memberctl reads format {FORMAT}",
                h.format
            )));
        }
        let st = &mut self.state;
        st.cluster_id = h.cluster_id;
        st.revision = h.revision;
        st.compacted = h.compact_revision;
        st.applied = h.applied_index;
        st.applied_term = h.applied_term;
        st.conf_state = Arc::new(if h.conf_state.is_empty() {
            ConfState::default()
        } else {
            ConfState::parse_from_bytes(&h.conf_state)?
        });
        st.members = h
            .members
            .iter()
            .map(|m| (m.id, Arc::new(m.clone())))
            .collect();
        st.leases = h.leases.iter().map(|l| (l.id, *l)).collect();
        st.alarms = h.alarms.iter().map(|a| (a.member_id, a.alarm)).collect();
        st.removed = h.removed_members.iter().copied().collect();
        st.auth = Arc::new(h.auth.clone().unwrap_or_default());
        self.header = Some(h);
        Ok(())
    }

    /// Adds a chunk's records (the chunk at `at` in the file); they must
    /// come in (key, revision) order.
    fn chunk(&mut self, mut rest: &[u8], at: u64) -> Result<()> {
        let chunk_start = rest.as_ptr() as usize;
        while !rest.is_empty() {
            let bytes = next_record(&mut rest)?;
            let rec = parse_record(bytes)
                .map_err(|e| malformed(&format!("a record is malformed ({e})")))?;
            let rev = rec.rest.mod_revision as u64;
            let key = match &self.newest_key {
                Some(k) if **k == *rec.key => {
                    if rev <= self.last_rev {
                        return Err(malformed("its records are out of order"));
                    }
                    k.clone()
                }
                Some(k) if **k > *rec.key => {
                    return Err(malformed("its records are out of order"));
                }
                _ => {
                    self.end_key();
                    let k: Key = Arc::from(rec.key);
                    self.newest_key = Some(k.clone());
                    k
                }
            };
            self.last_rev = rev;
            self.records += 1;
            if !self.build {
                continue;
            }
            if !rec.value.is_empty() && self.file.is_none() {
                self.values
                    .push(at + (rec.value.as_ptr() as usize - chunk_start) as u64);
            }
            let value = self.value(rec.value);
            let rec = Arc::new(Record::from_parsed(rec, key.clone(), value));
            self.state.insert_sized(key, rec.clone(), bytes.len());
            self.newest = Some(rec);
        }
        Ok(())
    }

    /// The key being read is complete: its newest record is live (with its
    /// lease) unless it is a deletion.
    fn end_key(&mut self) {
        let (Some(rec), Some(key)) = (self.newest.take(), self.newest_key.clone()) else {
            return;
        };
        if rec.tombstone {
            return;
        }
        if rec.lease != 0 {
            self.state.lease_keys.insert((rec.lease, key.clone()));
        }
        self.state.kv.insert(key, rec);
    }

    /// Where in the file each non-empty value of the state read begins, in
    /// the history's order (none when the file was read mapped: its values
    /// are there already).
    pub fn value_positions(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.values)
    }

    /// The file is whole: its header and the state it holds.
    pub fn finish(self) -> Result<(spb::SnapshotHeader, State)> {
        if self.phase != Phase::Done {
            return Err(malformed("it ends early (a cut-short copy?)"));
        }
        let header = self.header.ok_or_else(|| malformed("it has no header"))?;
        Ok((header, self.state))
    }
}

/// Splits the next `KvRecord` (field 1, length-delimited) off an encoded chunk.
fn next_record<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8]> {
    let bad = || malformed("a chunk is malformed");
    let (tag, wire) = prost::encoding::decode_key(rest).map_err(|_| bad())?;
    if tag != 1 || wire != prost::encoding::WireType::LengthDelimited {
        return Err(bad());
    }
    let len = prost::encoding::decode_varint(rest).map_err(|_| bad())? as usize;
    if len > rest.len() {
        return Err(bad());
    }
    let (record, tail) = rest.split_at(len);
    *rest = tail;
    Ok(record)
}

/// Checks a whole snapshot file's SHA-256 (its last bytes) against what
/// comes before them, reading `r` of `size` bytes once, before anything
/// else is read of it (a damaged file is called damaged, whatever part of
/// it is). Returns the hash in hex.
pub fn verify_hash(mut r: impl std::io::Read, size: u64) -> Result<String> {
    if size < (PREFIX + HASH_LEN) as u64 || size % ALIGN != HASH_LEN as u64 {
        return Err(malformed(
            "its size is not that of a snapshot file (a cut-short copy?)",
        ));
    }
    let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    let mut left = size - HASH_LEN as u64;
    while left > 0 {
        let n = (buf.len() as u64).min(left) as usize;
        r.read_exact(&mut buf[..n])?;
        sha.update(&buf[..n]);
        left -= n as u64;
    }
    let mut want = [0u8; HASH_LEN];
    r.read_exact(&mut want)?;
    if sha.finish().as_ref() != want {
        return Err(malformed(
            "its SHA-256 does not match (the file is damaged)",
        ));
    }
    Ok(want.iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads a whole snapshot file from `r` (in pieces of 1 MiB) with `d`.
pub fn read_with(mut d: Decoder, mut r: impl std::io::Read) -> Result<Decoder> {
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        d.feed(&buf[..n])?;
    }
    if d.phase != Phase::Done {
        return Err(malformed("it ends early (a cut-short copy?)"));
    }
    Ok(d)
}

/// Reads a whole snapshot file mapped as `file`: its header and the state
/// it holds, whose values stay in the file's pages.
pub fn read_mapped(file: bytes::Bytes) -> Result<(spb::SnapshotHeader, State)> {
    let mut d = Decoder {
        file: Some(file.clone()),
        ..Decoder::new()
    };
    d.feed(&file)?;
    d.finish()
}

/// Reads a whole snapshot file from `r`: its header and the state it holds.
pub fn read(r: impl std::io::Read) -> Result<(spb::SnapshotHeader, State)> {
    read_with(Decoder::new(), r)?.finish()
}
