//! The cost of the listeners' `:authority` repair: etcdctl-shaped gRPC
//! requests (a HEADERS frame with the scheme-prefixed authority, HPACK with
//! the dynamic table as a client uses it, then a DATA frame) read through the
//! repair, against the same bytes read as they are (the reference), in one
//! run. Prints µs per request; markdown to stdout.

use std::time::Instant;

use memberctl::engine::listen::Repaired;
use tokio::io::AsyncReadExt;

const REQUESTS: u32 = 100_000;
const ROUNDS: usize = 5;

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// The bytes a client sends for `REQUESTS` unary puts on one connection.
fn connection() -> Vec<u8> {
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    frame(&mut out, 0x4, 0, 0, &[]);
    let mut enc = loona_hpack::Encoder::new();
    for i in 0..REQUESTS {
        let stream = 2 * i + 1;
        let timeout = format!("{}m", 4000 + i % 1000);
        let headers: Vec<(&[u8], &[u8])> = vec![
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", b"/etcdserverpb.KV/Put"),
            (b":authority", b"http://127.0.0.1:2379"),
            (b"content-type", b"application/grpc"),
            (b"user-agent", b"grpc-go/1.26.0"),
            (b"te", b"trailers"),
            (b"grpc-timeout", timeout.as_bytes()),
        ];
        let block = enc.encode(headers);
        frame(&mut out, 0x1, 0x4, stream, &block);
        frame(
            &mut out,
            0x0,
            0x1,
            stream,
            &[
                0, 0, 0, 0, 20, 10, 3, b'f', b'o', b'o', 18, 13, b'b', b'a', b'r', 0, 0, 0, 0, 0,
                0, 0, 0, 0,
            ],
        );
    }
    out
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let input = connection();
    let mut plain = Vec::new();
    let mut repaired = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let out = rt.block_on(async {
            let mut out = Vec::with_capacity(input.len() * 2);
            let mut r: &[u8] = &input;
            r.read_to_end(&mut out).await.unwrap();
            out
        });
        plain.push(t.elapsed().as_secs_f64());
        assert_eq!(out.len(), input.len());
        let t = Instant::now();
        let out = rt.block_on(async {
            let mut out = Vec::with_capacity(input.len() * 2);
            Repaired::new(&input[..])
                .read_to_end(&mut out)
                .await
                .unwrap();
            out
        });
        repaired.push(t.elapsed().as_secs_f64());
        // The repaired authority is in every block, as a literal.
        let needle = b"127.0.0.1:2379";
        let found = out.windows(needle.len()).filter(|w| w == needle).count();
        assert_eq!(found, REQUESTS as usize);
    }
    plain.sort_by(|a, b| a.partial_cmp(b).unwrap());
    repaired.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (p, r) = (plain[ROUNDS / 2], repaired[ROUNDS / 2]);
    let per = |s: f64| s * 1e6 / f64::from(REQUESTS);
    println!("## listen: the :authority repair ({REQUESTS} etcdctl-shaped requests, median of {ROUNDS})\n");
    println!("| read | µs per request |\n|---|---|");
    println!("| as they are (reference) | {:.3} |", per(p));
    println!("| through the repair | {:.3} |", per(r));
    println!(
        "\nThe repair costs {:.2} µs per request ({:.1}× the plain read of the same bytes).",
        per(r) - per(p),
        r / p
    );
}
