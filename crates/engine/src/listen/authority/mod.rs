//! The read side of a served HTTP/2 connection, with every request's header
//! block re-encoded so that a scheme-prefixed `:authority` is repaired before
//! h2 parses it.
//!
//! etcdctl 3.4 dials its per-endpoint calls (endpoint status, hashkv, defrag,
//! move-leader) with the whole endpoint URL as the `:authority`
//! (`http://127.0.0.1:2379`). Go's server accepts it; the `h2` crate under
//! tonic resets the stream with PROTOCOL_ERROR (hyperium/h2#525).
//!
//! The connection's first header block (a HEADERS frame and its
//! CONTINUATIONs) is decoded here with the client's HPACK state (dynamic
//! table, Huffman). When its `:authority` is one h2 accepts, the block and
//! the rest of the connection pass through untouched (a gRPC client sends
//! one authority on a connection), so requests cost no more than without
//! this reader. Otherwise every block on the connection is decoded, the
//! `:authority` repaired (or dropped when it cannot be), and the block
//! re-encoded as literals without indexing, so h2's own decoder never holds a
//! dynamic entry and both stay in step. Everything
//! else (the preface, DATA, SETTINGS, …) passes through untouched. Anything
//! this reader does not understand is passed on as it came, and from there
//! on the connection is passed through, so h2 reports the protocol error
//! itself.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The client connection preface (RFC 9113 §3.4), passed on as it is; a
/// connection that starts otherwise (HTTP/1.1) is passed through.
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const PREFACE_LEN: usize = PREFACE.len();
/// A frame header's length.
const FRAME_HEAD: usize = 9;
/// The largest frame payload every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's
/// initial value); re-encoded blocks are split to it.
const MAX_FRAME: usize = 16_384;
/// A header block longer than this (all its fragments) is not re-encoded:
/// it is passed on and h2 refuses it as too large.
pub const MAX_BLOCK: usize = 1 << 20;
/// HPACK's dynamic table size (SETTINGS_HEADER_TABLE_SIZE) h2 announces.
const TABLE_SIZE: usize = 4096;
/// How much is read from the connection at once.
const READ_CHUNK: usize = 64 * 1024;

const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

/// A header block under way: its first frame's fields and the fragments so far.
struct Block {
    stream: u32,
    /// END_STREAM of the HEADERS frame.
    end_stream: bool,
    /// The 5 priority bytes, when the HEADERS frame had them.
    priority: Option<[u8; 5]>,
    /// The HPACK fragments, concatenated.
    fragment: Vec<u8>,
    /// The frames as they came, passed on if the block cannot be re-encoded.
    raw: Vec<u8>,
}

/// A connection whose incoming header blocks are repaired (see the module).
pub struct Repaired<T> {
    io: T,
    /// Bytes read from `io` (allocated once; `start..end` not yet given on).
    raw: Vec<u8>,
    /// Where the bytes not yet looked at or passed on start.
    start: usize,
    /// Where the bytes read end.
    end: usize,
    /// Bytes ready for the reader (re-encoded blocks), before anything else.
    ready: Vec<u8>,
    /// Bytes at the head of `raw` (and after) to pass on as they are.
    passing: usize,
    /// Passed through from here on (an anomaly; h2 reports it).
    passthrough: bool,
    block: Option<Block>,
    decoder: loona_hpack::Decoder<'static>,
    /// Whether a header block has been looked at yet.
    seen_a_block: bool,
    /// How much of the preface has been checked.
    preface_checked: usize,
    eof: bool,
}

impl<T> Repaired<T> {
    /// Wraps a connection whose first bytes are the client preface.
    pub fn new(io: T) -> Self {
        let mut decoder = loona_hpack::Decoder::new();
        decoder.set_max_allowed_table_size(TABLE_SIZE);
        Repaired {
            io,
            raw: vec![0; READ_CHUNK],
            start: 0,
            end: 0,
            ready: Vec::new(),
            passing: PREFACE_LEN,
            passthrough: false,
            block: None,
            decoder,
            seen_a_block: false,
            preface_checked: 0,
            eof: false,
        }
    }

    /// Wraps a connection whose header blocks are left as they are (every
    /// byte read straight from `io`).
    pub fn unrepaired(io: T) -> Self {
        let mut r = Self::new(io);
        r.passthrough = true;
        r.raw = Vec::new();
        r
    }

    /// The wrapped connection.
    pub fn get_ref(&self) -> &T {
        &self.io
    }

    /// Gives up on repairing: what is held is passed on as it came.
    fn give_up(&mut self) {
        if let Some(b) = self.block.take() {
            self.ready.extend_from_slice(&b.raw);
        }
        self.passthrough = true;
    }

    /// Looks at the next frame in `raw`; false when more bytes are needed.
    fn examine(&mut self) -> bool {
        let buf = &self.raw[self.start..self.end];
        if buf.len() < FRAME_HEAD {
            return false;
        }
        let len = (usize::from(buf[0]) << 16) | (usize::from(buf[1]) << 8) | usize::from(buf[2]);
        let (kind, flags) = (buf[3], buf[4]);
        let stream = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]) & 0x7fff_ffff;
        let in_block = self.block.is_some();
        if !in_block && kind != HEADERS {
            self.passing = FRAME_HEAD + len;
            return true;
        }
        let anomalous = len > MAX_FRAME
            || (in_block
                && (kind != CONTINUATION || self.block.as_ref().map(|b| b.stream) != Some(stream)));
        if anomalous {
            self.give_up();
            return true;
        }
        if buf.len() < FRAME_HEAD + len {
            return false;
        }
        let frame = &buf[..FRAME_HEAD + len];
        let payload = &frame[FRAME_HEAD..];
        let fragment = if kind == HEADERS {
            match headers_fragment(flags, payload) {
                Some((priority, fragment)) => {
                    self.block = Some(Block {
                        stream,
                        end_stream: flags & END_STREAM != 0,
                        priority,
                        fragment: Vec::new(),
                        raw: Vec::new(),
                    });
                    fragment
                }
                None => {
                    self.passthrough = true;
                    return true;
                }
            }
        } else {
            payload
        };
        let block = self.block.as_mut().expect("a block is under way");
        block.fragment.extend_from_slice(fragment);
        block.raw.extend_from_slice(frame);
        let too_long = block.raw.len() > MAX_BLOCK;
        self.start += frame.len();
        if too_long {
            self.give_up();
        } else if flags & END_HEADERS != 0 {
            let block = self.block.take().expect("a block is under way");
            if !self.reencode(&block) {
                self.ready.extend_from_slice(&block.raw);
                self.passthrough = true;
            }
        }
        true
    }

    /// Decodes a whole block and appends it, re-encoded, to `ready` — or,
    /// for the connection's first block when its `:authority` needs no
    /// repair, as it came, the rest of the connection passed through; false
    /// when it does not decode (the decoder's state is then unknown).
    fn reencode(&mut self, block: &Block) -> bool {
        let mut encoded = Vec::with_capacity(block.fragment.len() * 2);
        let mut repaired = false;
        let decoded = self.decoder.decode_with_cb(&block.fragment, |name, value| {
            if &*name == b":authority" {
                let kept = repair_authority(&value);
                repaired |= kept != Some(&*value);
                if let Some(value) = kept {
                    literal(&mut encoded, &name, value);
                }
            } else {
                literal(&mut encoded, &name, &value);
            }
        });
        if decoded.is_err() {
            return false;
        }
        let first = !std::mem::replace(&mut self.seen_a_block, true);
        if first && !repaired {
            self.ready.extend_from_slice(&block.raw);
            self.passthrough = true;
            return true;
        }
        // At least one frame, also for an empty block.
        let mut first = true;
        let mut rest: &[u8] = &encoded;
        loop {
            let room = if first && block.priority.is_some() {
                MAX_FRAME - 5
            } else {
                MAX_FRAME
            };
            let n = rest.len().min(room);
            let (chunk, after) = rest.split_at(n);
            let last = after.is_empty();
            let mut flags = if last { END_HEADERS } else { 0 };
            let kind = if first { HEADERS } else { CONTINUATION };
            let mut extra: &[u8] = &[];
            if first {
                if block.end_stream {
                    flags |= END_STREAM;
                }
                if let Some(p) = &block.priority {
                    flags |= PRIORITY;
                    extra = p;
                }
            }
            frame_head(
                &mut self.ready,
                extra.len() + chunk.len(),
                kind,
                flags,
                block.stream,
            );
            self.ready.extend_from_slice(extra);
            self.ready.extend_from_slice(chunk);
            first = false;
            rest = after;
            if last {
                break;
            }
        }
        true
    }

    /// Moves up to `buf`'s room from what is ready or passing; false when
    /// there was nothing to give.
    fn give(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        if !self.ready.is_empty() {
            let n = self.ready.len().min(buf.remaining());
            buf.put_slice(&self.ready[..n]);
            self.ready.drain(..n);
            return true;
        }
        let available = self.end - self.start;
        let passable = if self.passthrough {
            available
        } else {
            self.passing.min(available)
        };
        if passable == 0 {
            return false;
        }
        let n = passable.min(buf.remaining());
        if !self.passthrough && self.preface_checked < PREFACE_LEN {
            let k = n.min(PREFACE_LEN - self.preface_checked);
            let expected = &PREFACE[self.preface_checked..self.preface_checked + k];
            if &self.raw[self.start..self.start + k] != expected {
                // Not HTTP/2 (an HTTP/1.1 request): nothing here to repair.
                self.passthrough = true;
            }
            self.preface_checked += k;
        }
        buf.put_slice(&self.raw[self.start..self.start + n]);
        self.start += n;
        if !self.passthrough {
            self.passing -= n;
        }
        true
    }
}

/// The HPACK fragment of a HEADERS frame's payload and its priority bytes;
/// None when the padding or priority do not fit.
fn headers_fragment(flags: u8, payload: &[u8]) -> Option<(Option<[u8; 5]>, &[u8])> {
    let mut p = payload;
    let mut pad = 0;
    if flags & PADDED != 0 {
        pad = usize::from(*p.first()?);
        p = &p[1..];
    }
    let mut priority = None;
    if flags & PRIORITY != 0 {
        priority = Some(<[u8; 5]>::try_from(p.get(..5)?).ok()?);
        p = &p[5..];
    }
    let end = p.len().checked_sub(pad)?;
    Some((priority, &p[..end]))
}

/// Appends a frame header.
fn frame_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
}

/// Appends a literal header field without indexing, with a literal name and
/// no Huffman coding (RFC 7541 §6.2.2).
fn literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0);
    for s in [name, value] {
        // The H bit stays 0: a 7-bit prefix length, then the octets.
        let _ = loona_hpack::encoder::encode_integer_into(s.len(), 7, 0, out);
        out.extend_from_slice(s);
    }
}

/// The `:authority` to pass on: the value itself when h2 accepts it, the
/// host and port of a URL-shaped value (`http://host:port/…`), None (drop it)
/// when neither works. gRPC does not route by authority; etcd ignores it.
fn repair_authority(value: &[u8]) -> Option<&[u8]> {
    if valid_authority(value) {
        return Some(value);
    }
    let s = std::str::from_utf8(value).ok()?;
    let after_scheme = s.split_once("://").map_or(s, |(_, rest)| rest);
    let host = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    (!host.is_empty() && valid_authority(host.as_bytes())).then_some(host.as_bytes())
}

/// Whether h2 accepts `value` as an `:authority` (it parses it with `http`'s rules).
fn valid_authority(value: &[u8]) -> bool {
    tonic::codegen::http::uri::Authority::try_from(value).is_ok()
}

impl<T: AsyncRead + Unpin> AsyncRead for Repaired<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.passthrough && this.ready.is_empty() && this.start == this.end {
            // Nothing held back: read straight into the caller's buffer.
            return Pin::new(&mut this.io).poll_read(cx, buf);
        }
        loop {
            if buf.remaining() == 0 || this.give(buf) {
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                // A frame cut short: pass on what there is; h2 sees the end.
                if this.start < this.end || this.block.is_some() {
                    this.give_up();
                    continue;
                }
                return Poll::Ready(Ok(()));
            }
            if !this.passthrough && this.passing == 0 && this.examine() {
                continue;
            }
            // More bytes are needed: move what is left to the front, then
            // read (a frame being examined is at most FRAME_HEAD + MAX_FRAME,
            // well below the buffer).
            if this.start > 0 {
                this.raw.copy_within(this.start..this.end, 0);
                this.end -= this.start;
                this.start = 0;
            }
            if this.end == this.raw.len() {
                // Cannot happen (see above); never read into nothing.
                this.give_up();
                continue;
            }
            let mut read = ReadBuf::new(&mut this.raw[this.end..]);
            ready!(Pin::new(&mut this.io).poll_read(cx, &mut read))?;
            let n = read.filled().len();
            this.end += n;
            if n == 0 {
                this.eof = true;
            }
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Repaired<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests;
