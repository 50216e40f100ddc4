//! The link model: what it is set to is what a connection through it measures (round trip within ±2 ms, throughput within ±10 %), and `cluster up --link` puts a local cluster on it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use memberctl::link::{LinkSpec, Links, Route};

use crate::util::local::Local;
use crate::util::members::add_learner_at;
use crate::util::robustness::Run;
use crate::util::{free_port, memberctl};

/// A server on a free port that runs `serve` for each connection.
fn server(serve: fn(TcpStream)) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let at = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            std::thread::spawn(move || serve(c));
        }
    });
    at
}

/// `spec` in front of a server: the address to connect to.
fn behind(links: &Links, target: SocketAddr) -> SocketAddr {
    let listen: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    links
        .add(Route {
            member: format!("m{}", target.port()),
            listen,
            target,
        })
        .unwrap();
    listen
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Round trips of 100-byte messages (echoed) take the set round trip;
/// 2 × 1.25 MB sent one way at once, on two connections of the same pair,
/// arrive at the set bandwidth together (they share the link).
fn the_link_delays_and_paces_as_set() {
    let spec = LinkSpec::parse("rtt=20ms,bandwidth=10mbit,queue=128kb").unwrap();
    let links = Links::new(spec);
    let echo = behind(
        &links,
        server(|mut c| {
            c.set_nodelay(true).unwrap();
            let mut buf = [0u8; 4096];
            while let Ok(n) = c.read(&mut buf) {
                if n == 0 || c.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }),
    );
    let mut c = TcpStream::connect(echo).unwrap();
    c.set_nodelay(true).unwrap();
    let mut rtts = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        c.write_all(&[7u8; 100]).unwrap();
        c.read_exact(&mut [0u8; 100]).unwrap();
        rtts.push(t.elapsed());
    }
    let rtt = median(rtts);
    eprintln!("link rtt=20ms: median round trip {rtt:?}");
    // 20 ms plus 2 × 100 B at 10 Mbit/s (0.16 ms): never less (the delay is
    // the link's own); a busy machine only adds, so the upper bound is one a
    // gross error (a delay per direction doubled, a lost timer) crosses.
    assert!(
        rtt >= Duration::from_millis(20) && rtt <= Duration::from_millis(60),
        "round trip {rtt:?} for rtt=20ms"
    );

    let sink = behind(
        &links,
        server(|mut c| {
            let _ = std::io::copy(&mut c, &mut std::io::sink());
        }),
    );
    // Two connections of the pair at once share its bandwidth: together
    // they take as long as their bytes take on one link.
    let bytes = 1_250_000usize;
    let start = Instant::now();
    let senders: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(move || {
                let mut bulk = TcpStream::connect(sink).unwrap();
                bulk.write_all(&vec![1u8; bytes]).unwrap();
                // The sink closes once it has read every byte.
                bulk.shutdown(std::net::Shutdown::Write).unwrap();
                let _ = bulk.read_to_end(&mut Vec::new());
            })
        })
        .collect();
    for s in senders {
        s.join().unwrap();
    }
    // Less one round trip: the sink's close comes back over the link.
    let took = start.elapsed().as_secs_f64() - 0.02;
    let rate = 2.0 * bytes as f64 * 8.0 / took;
    eprintln!(
        "link bandwidth=10mbit: two connections together {:.2} Mbit/s",
        rate / 1e6
    );
    // Never faster than the link (10 % for the clock's grain); a busy
    // machine only makes it slower, so the lower bound is a generous half.
    assert!(
        (5.0e6..=11.0e6).contains(&rate),
        "throughput {:.2} Mbit/s for bandwidth=10mbit ({took:.2}s for 2 × {bytes} bytes)",
        rate / 1e6
    );
}

/// A message's round trip on one connection while another connection of
/// the same pair has sent more than 1 MiB through `spec`'s link.
fn round_trip_beside_a_bulk_sender(spec: &str) -> Duration {
    let links = Links::new(LinkSpec::parse(spec).unwrap());
    // One member: a connection that starts with b is a bulk sink, any
    // other an echo.
    let at = behind(
        &links,
        server(|mut c| {
            c.set_nodelay(true).unwrap();
            let mut first = [0u8; 1];
            if c.read_exact(&mut first).is_err() {
                return;
            }
            if first[0] == b'b' {
                let _ = std::io::copy(&mut c, &mut std::io::sink());
                return;
            }
            let mut buf = [0u8; 4096];
            while let Ok(n) = c.read(&mut buf) {
                if n == 0 || c.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }),
    );
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = written.clone();
    let mut bulk = TcpStream::connect(at).unwrap();
    let mut echo = TcpStream::connect(at).unwrap();
    echo.set_nodelay(true).unwrap();
    echo.write_all(b"e").unwrap();
    let _sender = std::thread::spawn(move || {
        let piece = vec![b'b'; 64 * 1024];
        while bulk.write_all(&piece).is_ok() {
            counter.fetch_add(piece.len(), std::sync::atomic::Ordering::Relaxed);
        }
    });
    crate::util::wait_for(
        "the bulk sender to write 1.5 MiB",
        Duration::from_secs(30),
        || (written.load(std::sync::atomic::Ordering::Relaxed) > 3 << 19).then_some(()),
    );
    let t = Instant::now();
    echo.write_all(&[7u8; 100]).unwrap();
    echo.read_exact(&mut [0u8; 100]).unwrap();
    let rtt = t.elapsed();
    drop(links);
    rtt
}

/// `per-connection=3kb`: connections take turns at a queue, so a message
/// on one waits behind a few KiB of a bulk transfer on another (as on a
/// sending host), where a FIFO makes it wait behind the whole queue (as at
/// a router).
fn connections_take_turns_at_a_shared_queue() {
    let link = "rtt=2ms,bandwidth=10mbit,queue=1mb";
    let fifo = round_trip_beside_a_bulk_sender(link);
    let fair = round_trip_beside_a_bulk_sender(&format!("{link},per-connection=3kb"));
    eprintln!(
        "beside a bulk sender, a round trip takes {fifo:?} through a FIFO, {fair:?} with turns"
    );
    // A full 1 MiB queue at 10 Mbit/s is 839 ms; the bulk sender's share
    // is 3 KiB (2.5 ms). The bounds leave a busy machine
    // room and still tell the two apart.
    assert!(
        fifo >= Duration::from_millis(200),
        "a FIFO let a message pass its queue: {fifo:?}"
    );
    assert!(
        fair <= Duration::from_millis(100) && fair * 4 <= fifo,
        "with per-connection=3kb a message waited {fair:?} behind another connection (FIFO: {fifo:?})"
    );
}

/// `cluster up --link`: the cluster runs on the link (a write waits for a
/// follower one round trip away), `cluster status` shows it in every
/// format, a learner added and started with `start-node` joins through it,
/// the link is kept across `cluster up` and `down` stops its process; a bad
/// description is a usage error naming the fault.
fn cluster_up_with_a_link_rehearses_on_it() {
    let r = memberctl(&[
        "cluster",
        "up",
        "--dir",
        "/nonexistent/x",
        "--link",
        "rtt=40ms,bandwidth=50",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("kbit, mbit or gbit"), "{}", r.stderr);

    // A cluster made without a link cannot be given one later.
    let plain = Local::up(&[]);
    let r = plain.ctl(&[
        "cluster",
        "link",
        "--set",
        "rtt=30ms,bandwidth=100mbit,queue=1mb",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("has no link"), "{}", r.stderr);
    drop(plain);

    let local = Local::up(&["--link", "rtt=30ms,bandwidth=100mbit,queue=1mb"]);
    let status = local.status();
    assert_eq!(
        status["link"]["spec"], "rtt=30ms,bandwidth=100mbit,queue=1mb",
        "{status}"
    );
    assert_eq!(status["link"]["rtt_ms"], 30.0);
    assert_eq!(status["link"]["bandwidth_bits_per_s"], 100_000_000);
    assert_eq!(status["link"]["queue_bytes"], 1 << 20);
    assert_eq!(status["link"]["running"], true);
    let table = local
        .ctl(&["cluster", "status", "-w", "table"])
        .expect(0)
        .stdout;
    assert!(
        table.contains("rtt=30ms,bandwidth=100mbit,queue=1mb"),
        "{table}"
    );

    // A put is acknowledged once a follower has it: at least one round trip.
    let ep = local.client_url("n1");
    let ep = ep.trim_start_matches("http://");
    crate::util::local::put(ep, "warm", "up").unwrap();
    let mut took = Vec::new();
    for i in 0..5 {
        let t = Instant::now();
        crate::util::local::put(ep, &format!("k{i}"), "v").unwrap();
        took.push(t.elapsed());
    }
    let put = median(took);
    assert!(
        put >= Duration::from_millis(30),
        "a put took {put:?} over rtt=30ms"
    );

    // A learner joins through the link.
    let peer = format!("http://127.0.0.1:{}", free_port());
    add_learner_at(|a| local.ctl(a), "n4", &peer);
    local
        .ctl(&["cluster", "start-node", "n4", "-w", "json"])
        .expect(0);
    local
        .ctl(&["member", "promote", "n4", "--timeout", "30s", "-w", "json"])
        .expect(0);
    let log = std::fs::read_to_string(local.dir().join("link.log")).unwrap();
    assert!(log.contains("link: n4 at"), "{log}");

    // Kept across restarts; another link is refused.
    let r = local.ctl(&[
        "cluster",
        "up",
        "--link",
        "rtt=1ms,bandwidth=1gbit,queue=1mb",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("its link is kept"), "{}", r.stderr);
    let down = local
        .ctl(&["cluster", "down", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(down["link"]["running"], false, "{down}");
    let up = local.ctl(&["cluster", "up", "-w", "json"]).expect(0).json();
    assert_eq!(up["link"]["running"], true, "{up}");
    assert_eq!(up["link"]["spec"], "rtt=30ms,bandwidth=100mbit,queue=1mb");
}

/// The highest raft term the members report (a rise is an election).
fn term(local: &Local) -> u64 {
    let s = local
        .ctl(&["member", "status", "-w", "json"])
        .expect(0)
        .json();
    s["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["raft_term"].as_u64())
        .max()
        .unwrap()
}

/// A local cluster with `bytes` (in 1 KiB values under `bulk/`) loaded over
/// a fast link, which is then set to `link`.
fn loaded_on(link: &str, bytes: usize) -> (Local, Vec<(String, String)>) {
    let local = Local::up(&[
        "--link",
        "rtt=1ms,bandwidth=10gbit,queue=16mb",
        "--snapshot-count",
        "1000",
    ]);
    let ep = local.client_url("n1");
    // 16 KiB values: the bytes matter here, not the number of puts.
    let acked = crate::util::writer::load(&ep, "bulk/", bytes / 16384, 16384);
    let set = local
        .ctl(&["cluster", "link", "--set", link, "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(set["link"]["spec"], link, "{set}");
    (local, acked)
}

/// A learner catches up 50 MB over 20 Mbit/s and 40 ms while clients
/// record a history on every member: no election, the history is
/// linearizable, every acknowledged write is kept, the learner among them.
fn robustness_learner_catches_up_over_a_slow_link() {
    let link = "rtt=40ms,bandwidth=20mbit,queue=4mb";
    let (local, acked) = loaded_on(link, 50 << 20);
    let before = term(&local);
    let run = Run::start("engine-link-learner", local.endpoints());
    let peer = format!("http://127.0.0.1:{}", free_port());
    add_learner_at(|a| local.ctl(a), "l1", &peer);
    let started = Instant::now();
    local
        .ctl(&["cluster", "start-node", "l1", "-w", "json"])
        .expect(0);
    local
        .ctl(&["member", "promote", "l1", "--timeout", "5m", "-w", "json"])
        .expect(0);
    let took = started.elapsed();
    run.settle();
    let checked = run.finish();
    checked.assert_linearizable(|| local.logs());
    assert_eq!(
        term(&local),
        before,
        "an election during the catch-up:\n{}",
        local.logs()
    );
    // 50 MiB at 20 Mbit/s cannot take less than 21 s.
    assert!(
        took > Duration::from_secs(20),
        "caught up in {took:?}: not through the link"
    );
    eprintln!("learner caught up 50 MiB over {link} in {took:.1?}");
    let l1 = local.client_url("l1");
    assert_eq!(crate::util::writer::missing(&l1, "bulk/", &acked), Some(0));
    crate::util::writer::check_acked(&local.endpoints(), "bulk/", &acked);
}

/// The learner's links stall for 10 s in the middle of its snapshot: the
/// transfer goes on when they come back and the learner catches up, with
/// no election among the voters (whose links do not stall).
fn a_snapshot_resumes_after_the_link_stalls() {
    let (local, acked) = loaded_on("rtt=10ms,bandwidth=40mbit,queue=4mb", 20 << 20);
    let before = term(&local);
    let peer = format!("http://127.0.0.1:{}", free_port());
    add_learner_at(|a| local.ctl(a), "l1", &peer);
    local
        .ctl(&["cluster", "start-node", "l1", "-w", "json"])
        .expect(0);
    // 20 MiB at 40 Mbit/s take 4 s: stalled after one.
    std::thread::sleep(Duration::from_secs(1));
    let stalled = Instant::now();
    local
        .ctl(&[
            "cluster", "link", "--stall", "10s", "--node", "l1", "-w", "json",
        ])
        .expect(0);
    local
        .ctl(&["member", "promote", "l1", "--timeout", "3m", "-w", "json"])
        .expect(0);
    assert!(
        stalled.elapsed() > Duration::from_secs(10),
        "promoted through a stalled link"
    );
    assert_eq!(term(&local), before, "an election:\n{}", local.logs());
    let log = std::fs::read_to_string(local.dir().join("link.log")).unwrap();
    assert!(log.contains("the links of l1 stall for"), "{log}");
    assert_eq!(
        crate::util::writer::missing(&local.client_url("l1"), "bulk/", &acked),
        Some(0)
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        the_link_delays_and_paces_as_set,
        connections_take_turns_at_a_shared_queue,
        cluster_up_with_a_link_rehearses_on_it,
        robustness_learner_catches_up_over_a_slow_link,
        a_snapshot_resumes_after_the_link_stalls,
    ]
}
