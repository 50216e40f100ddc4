//! Unit tests of the `:authority` repair: frames and HPACK state as h2 would
//! see them after the adapter.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};

use super::*;

/// A reader that hands out its bytes `step` at a time.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self
            .step
            .min(self.data.len() - self.pos)
            .min(buf.remaining());
        let from = self.pos;
        buf.put_slice(&self.data[from..from + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

const PREFACE: &[u8] = super::PREFACE;

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    frame_head(&mut out, payload.len(), kind, flags, stream);
    out.extend_from_slice(payload);
    out
}

/// A literal with incremental indexing whose name is static entry `index`.
fn indexed_name(index: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x40 | index];
    let _ = loona_hpack::encoder::encode_integer_into(value.len(), 7, 0, &mut out);
    out.extend_from_slice(value);
    out
}

/// Runs `input` through the adapter, `step` bytes at a time.
fn repaired(input: Vec<u8>, step: usize) -> Vec<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async move {
        let mut r = Repaired::new(Trickle {
            data: input,
            pos: 0,
            step,
        });
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        out
    })
}

/// The frames of an HTTP/2 byte stream after the preface.
fn frames(bytes: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
    assert_eq!(&bytes[..PREFACE_LEN], PREFACE);
    let mut rest = &bytes[PREFACE_LEN..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let len = (usize::from(rest[0]) << 16) | (usize::from(rest[1]) << 8) | usize::from(rest[2]);
        let stream = u32::from_be_bytes([rest[5], rest[6], rest[7], rest[8]]);
        out.push((rest[3], rest[4], stream, rest[9..9 + len].to_vec()));
        rest = &rest[9 + len..];
    }
    out
}

/// Decodes the header blocks of `frames` as h2 would, with one decoder whose
/// dynamic table must stay empty.
fn header_lists(frames: &[(u8, u8, u32, Vec<u8>)]) -> Vec<Vec<(String, String)>> {
    let mut decoder = loona_hpack::Decoder::new();
    let mut lists = Vec::new();
    let mut block = Vec::new();
    for (kind, flags, _, payload) in frames {
        match *kind {
            HEADERS => {
                let (_, fragment) = headers_fragment(*flags, payload).unwrap();
                block = fragment.to_vec();
            }
            CONTINUATION => block.extend_from_slice(payload),
            _ => continue,
        }
        if flags & END_HEADERS != 0 {
            // Literals without indexing only: the first octet of each is 0.
            let list = decoder.decode(&block).unwrap();
            lists.push(
                list.into_iter()
                    .map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap()))
                    .collect(),
            );
        }
    }
    lists
}

/// A gRPC client's first bytes: the preface, SETTINGS, then stream 1 with
/// `:method POST` (static 3) and `:authority` and `user-agent` indexed
/// incrementally, its DATA, and stream 3 naming both from the client's
/// dynamic table (62 = newest, 63 = older).
fn two_calls(authority: &[u8], agent: &[u8]) -> Vec<u8> {
    let mut input = PREFACE.to_vec();
    input.extend(frame(0x4, 0, 0, &[0, 3, 0, 0, 0, 100]));
    let mut block = vec![0x83];
    block.extend(indexed_name(1, authority));
    block.extend(indexed_name(58, agent));
    input.extend(frame(HEADERS, END_HEADERS, 1, &block));
    input.extend(frame(0x0, END_STREAM, 1, b"\0\0\0\0\x02ab"));
    input.extend(frame(
        HEADERS,
        END_HEADERS | END_STREAM,
        3,
        &[0x83, 0x80 | 63, 0x80 | 62],
    ));
    input
}

#[test]
fn scheme_prefixed_authority_is_repaired_also_when_the_client_indexes_it() {
    let input = two_calls(b"http://127.0.0.1:2379", b"grpc-go/1.26.0");
    for step in [1, 7, 4096] {
        let out = frames(&repaired(input.clone(), step));
        assert_eq!(out.len(), 4, "step {step}");
        assert_eq!(out[0], (0x4, 0, 0, vec![0, 3, 0, 0, 0, 100]));
        assert_eq!(out[2], (0x0, END_STREAM, 1, b"\0\0\0\0\x02ab".to_vec()));
        assert_eq!(out[3].1, END_HEADERS | END_STREAM);
        let lists = header_lists(&out);
        let want = vec![
            (":method".to_string(), "POST".to_string()),
            (":authority".to_string(), "127.0.0.1:2379".to_string()),
            ("user-agent".to_string(), "grpc-go/1.26.0".to_string()),
        ];
        assert_eq!(lists, vec![want.clone(), want]);
    }
}

#[test]
fn a_connection_whose_first_authority_is_fine_passes_through_untouched() {
    // Later blocks refer to the client's dynamic table, which h2 then holds too.
    let input = two_calls(b"127.0.0.1:2379", b"grpc-rust");
    for step in [1, 7, 4096] {
        assert_eq!(repaired(input.clone(), step), input, "step {step}");
    }
}

#[test]
fn a_block_over_padded_headers_and_continuations_is_reassembled() {
    let mut block = vec![0x83];
    block.extend(indexed_name(1, b"https://[::1]:2379/v3"));
    let big = "x".repeat(40_000);
    block.extend(indexed_name(58, big.as_bytes()));
    let (a, rest) = block.split_at(10);
    let (b, rest) = rest.split_at(16_000);
    let (c, d) = rest.split_at(16_000);
    let mut payload = vec![3]; // pad length
    payload.extend([0x80, 0, 0, 1, 15]); // priority: exclusive, depends on 1, weight 15
    payload.extend(a);
    payload.extend([0, 0, 0]);
    let mut input = PREFACE.to_vec();
    input.extend(frame(HEADERS, PADDED | PRIORITY, 5, &payload));
    input.extend(frame(CONTINUATION, 0, 5, b));
    input.extend(frame(CONTINUATION, 0, 5, c));
    input.extend(frame(CONTINUATION, END_HEADERS, 5, d));
    input.extend(frame(0x0, END_STREAM, 5, b"\0\0\0\0\0"));
    let out = frames(&repaired(input, 1000));
    // HEADERS with priority, then CONTINUATIONs, each within the minimum frame size.
    assert_eq!(out[0].0, HEADERS);
    assert_eq!(out[0].1, PRIORITY);
    assert_eq!(&out[0].3[..5], &[0x80, 0, 0, 1, 15]);
    assert!(out.iter().all(|f| f.3.len() <= MAX_FRAME && f.2 == 5));
    assert_eq!(out.last().unwrap().0, 0x0);
    let lists = header_lists(&out);
    assert_eq!(lists.len(), 1);
    assert_eq!(
        lists[0][1],
        (":authority".to_string(), "[::1]:2379".to_string())
    );
    assert_eq!(lists[0][2].1, big);
}

#[test]
fn what_does_not_decode_is_passed_on_as_it_came() {
    let mut input = PREFACE.to_vec();
    // Index 70 is in neither table.
    input.extend(frame(HEADERS, END_HEADERS, 1, &[0x80 | 70]));
    input.extend(frame(0x0, 0, 1, b"after"));
    assert_eq!(repaired(input.clone(), 3), input);
    // A frame cut short by the end of the connection.
    let mut cut = PREFACE.to_vec();
    cut.extend(&frame(HEADERS, 0, 1, &[0x83, 0x84])[..10]);
    assert_eq!(repaired(cut.clone(), 5), cut);
}

#[test]
fn authorities_are_kept_repaired_or_dropped() {
    let cases: [(&str, Option<&str>); 7] = [
        ("127.0.0.1:2379", Some("127.0.0.1:2379")),
        ("localhost", Some("localhost")),
        ("http://127.0.0.1:2379", Some("127.0.0.1:2379")),
        ("https://[::1]:2379/path?q", Some("[::1]:2379")),
        ("unix://user@host:1/x", Some("host:1")),
        ("http://", None),
        ("http:// bad host/", None),
    ];
    for (value, want) in cases {
        let got = repair_authority(value.as_bytes()).map(|v| std::str::from_utf8(v).unwrap());
        assert_eq!(got, want, "{value}");
    }
}

#[test]
fn an_http1_request_passes_through_untouched() {
    // 24 bytes of an HTTP/1.1 request where the preface would be, then
    // bytes that read as a header block with a repairable `:authority`:
    // read as HTTP/2, they would be re-encoded.
    let mut request = b"GET /health HTTP/1.1\r\nXY".to_vec();
    assert_eq!(request.len(), PREFACE_LEN);
    let block = indexed_name(1, b"http://127.0.0.1:2379");
    request.extend(frame(HEADERS, END_HEADERS, 1, &block));
    request.extend(b"\r\n\r\n");
    for step in [1, 7, 4096] {
        assert_eq!(repaired(request.clone(), step), request, "step {step}");
    }
}
