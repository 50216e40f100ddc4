//! The kernel's shaper beside the link model: the bench run again in a network namespace of its own (`unshare -rn`), whose loopback (MTU 1500) a `tbf` qdisc shapes (all of it, or with `htb` only the members' traffic), and that qdisc's backlog sampled.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Set in the bench run inside the namespace.
const IN_NETNS: &str = "MEMBERCTL_BENCH_IN_NETNS";

/// A token bucket on the namespace's loopback, as `tc … tbf` takes it.
#[derive(Clone, Copy, Debug)]
pub struct Tbf {
    /// The rate, bits per second.
    pub rate_bits: u64,
    /// The bucket, bytes.
    pub burst_bytes: u64,
    /// The queue in front of it, bytes.
    pub limit_bytes: u64,
}

impl std::fmt::Display for Tbf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tbf rate {}mbit burst {}kb limit {}mb",
            self.rate_bits / 1_000_000,
            self.burst_bytes / 1024,
            self.limit_bytes / 1_048_576
        )
    }
}

/// Runs this bench again inside a new user and network namespace, unless it
/// runs in one already: returns there (loopback up, MTU 1500, as a shaped
/// link needs: with 64 KiB packets tbf drops each one larger than its
/// burst), and in the parent exits with the child's code. `Err` with the
/// reason when the namespace cannot be made (no `unshare`, no user
/// namespaces): the caller skips what needs it.
pub fn enter_netns() -> Result<(), String> {
    if std::env::var_os(IN_NETNS).is_none() {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let status = Command::new("unshare")
            .args(["-rn", "--"])
            .arg(exe)
            .args(std::env::args_os().skip(1))
            .env(IN_NETNS, "1")
            .status()
            .map_err(|e| format!("cannot run unshare: {e}"))?;
        // 3: the child could not set its loopback up; anything else is its own.
        match status.code() {
            Some(3) => return Err("unshare -rn: no network namespace could be made".into()),
            code => std::process::exit(code.unwrap_or(1)),
        }
    }
    for args in [
        &["link", "set", "lo", "up"][..],
        &["link", "set", "lo", "mtu", "1500"],
    ] {
        let ok = Command::new("ip")
            .args(args)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("ip {args:?} failed in the namespace");
            std::process::exit(3);
        }
    }
    if let Ok(cc) = std::env::var(CC) {
        if std::fs::write(CC_SYSCTL, &cc).is_err() {
            eprintln!(
                "{CC}={cc}: the namespace refused it (allowed: {})",
                allowed()
            );
            std::process::exit(4);
        }
    }
    if gso_off() {
        // One segment per packet, as a real link's bottleneck sees them:
        // with 64 KiB super-packets a shaper's token debt after each adds
        // up to one such packet's time to every wait behind it.
        let ok = Command::new("ip")
            .args([
                "link",
                "set",
                "lo",
                "gso_max_segs",
                "1",
                "gso_max_size",
                "1500",
            ])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("{GSO}=off: ip link set lo gso_max_segs 1 failed");
            std::process::exit(4);
        }
    }
    if std::env::var_os(QUICKACK).is_some() {
        // The loopback's own routes, each with delayed ACKs turned off.
        for dst in ["127.0.0.0/8", "127.0.0.1"] {
            let ok = Command::new("ip")
                .args([
                    "route", "replace", "local", dst, "dev", "lo", "table", "local",
                ])
                .args(["proto", "kernel", "scope", "host", "src", "127.0.0.1"])
                .args(["quickack", "1"])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                eprintln!("{QUICKACK}: ip route replace {dst} … quickack 1 failed");
                std::process::exit(4);
            }
        }
    }
    Ok(())
}

/// Set (to anything): the namespace's loopback routes get `quickack 1`, so
/// TCP acknowledges at once instead of delaying its ACKs (up to 40 ms).
const QUICKACK: &str = "MEMBERCTL_BENCH_QUICKACK";

/// `off`: the namespace's loopback sends one segment per packet (no
/// segmentation offload), as a link between hosts carries them.
const GSO: &str = "MEMBERCTL_BENCH_GSO";

/// Names TCP's congestion control in the namespace (`reno`, `cubic`, `bbr`;
/// default: the host's).
const CC: &str = "MEMBERCTL_BENCH_CC";
/// Where the namespace's congestion control is read and set.
const CC_SYSCTL: &str = "/proc/sys/net/ipv4/tcp_congestion_control";

/// Whether [`GSO`] asks for one segment per packet.
fn gso_off() -> bool {
    std::env::var(GSO).is_ok_and(|v| v == "off")
}

/// How the namespace's loopback packs TCP's segments, for the report.
pub fn segmentation() -> &'static str {
    if gso_off() {
        "one segment per packet"
    } else {
        "segmentation offload (up to 64 KiB per packet)"
    }
}

/// The congestion controls a namespace may choose.
fn allowed() -> String {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// TCP's congestion control in this namespace (how a bulk sender fills a
/// queue: loss-based `reno`/`cubic` fill it, `bbr` keeps it near the path's
/// bandwidth × delay).
pub fn congestion_control() -> String {
    std::fs::read_to_string(CC_SYSCTL)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Shapes the namespace's loopback with `tbf` (replacing any root qdisc).
pub fn shape(tbf: Tbf) {
    tc(&[
        "qdisc",
        "replace",
        "dev",
        "lo",
        "root",
        "tbf",
        "rate",
        &format!("{}bit", tbf.rate_bits),
        "burst",
        &format!("{}b", tbf.burst_bytes),
        "limit",
        &format!("{}b", tbf.limit_bytes),
    ]);
}

/// Shapes only the members' traffic on the namespace's loopback, as the link
/// model does: an `htb` root whose default class has `tbf`'s rate and bucket
/// and a byte FIFO of its queue in front, and a class too fast to queue
/// (10 Gbit/s) for every packet from or to one of `client_ports` (the
/// clients' requests and answers, the writer's among them).
pub fn shape_peers(tbf: Tbf, client_ports: &[u16]) {
    let rate = format!("{}bit", tbf.rate_bits);
    let burst = format!("{}b", tbf.burst_bytes);
    tc(&[
        "qdisc", "replace", "dev", "lo", "root", "handle", "1:", "htb", "default", "20",
    ]);
    tc(&[
        "class", "add", "dev", "lo", "parent", "1:", "classid", "1:10", "htb", "rate", "10gbit",
        "burst", "16mb", "cburst", "16mb",
    ]);
    tc(&[
        "class", "add", "dev", "lo", "parent", "1:", "classid", "1:20", "htb", "rate", &rate,
        "ceil", &rate, "burst", &burst, "cburst", &burst,
    ]);
    tc(&[
        "qdisc",
        "add",
        "dev",
        "lo",
        "parent",
        "1:20",
        "bfifo",
        "limit",
        &format!("{}", tbf.limit_bytes),
    ]);
    for port in client_ports {
        exempt(*port);
    }
}

/// Under [`shape_peers`]: lets every packet from or to `port` (a client
/// port opened later, as a new member's) go unshaped too.
pub fn exempt(port: u16) {
    for side in ["sport", "dport"] {
        tc(&[
            "filter",
            "add",
            "dev",
            "lo",
            "parent",
            "1:",
            "protocol",
            "ip",
            "prio",
            "1",
            "u32",
            "match",
            "ip",
            side,
            &port.to_string(),
            "0xffff",
            "flowid",
            "1:10",
        ]);
    }
}

/// Takes the shaper off the loopback.
pub fn unshape() {
    tc(&["qdisc", "del", "dev", "lo", "root"]);
}

fn tc(args: &[&str]) {
    let out = Command::new("tc").args(args).output().expect("run tc");
    assert!(
        out.status.success(),
        "tc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The loopback's root qdisc: (backlog bytes, drops so far; under
/// [`shape_peers`], htb's totals of its classes).
fn qdisc() -> Option<(u64, u64)> {
    let out = Command::new("tc")
        .args(["-s", "-j", "qdisc", "show", "dev", "lo"])
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let root = v.as_array()?.first()?;
    Some((root["backlog"].as_u64()?, root["drops"].as_u64()?))
}

/// Samples the loopback qdisc's backlog every 100 ms until stopped.
pub struct Backlog {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<(Vec<u64>, u64)>,
}

impl Backlog {
    /// Starts sampling.
    pub fn start() -> Backlog {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let first_drops = qdisc().map_or(0, |q| q.1);
        let thread = std::thread::spawn(move || {
            let mut backlog = Vec::new();
            let mut drops = first_drops;
            while !flag.load(Ordering::Relaxed) {
                if let Some((b, d)) = qdisc() {
                    backlog.push(b);
                    drops = d;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (backlog, drops - first_drops)
        });
        Backlog { stop, thread }
    }

    /// Stops: the samples (bytes) and the packets dropped meanwhile.
    pub fn stop(self) -> (Vec<u64>, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// A small packet's crossings of the shaped queue, timed: a UDP datagram
/// (outside the clients' ports, so shaped as the members' traffic is) sent
/// every 10 ms from one socket to an echo and back, each round trip two
/// crossings of the loopback's one queue. What the qdisc's backlog implies
/// (bytes ÷ rate) is checked against what a message really waits.
pub struct QueueProbe {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Vec<Duration>>>,
}

impl QueueProbe {
    /// Starts probing; `None` when the sockets cannot be made.
    pub fn start() -> Option<QueueProbe> {
        let echo = std::net::UdpSocket::bind("127.0.0.1:0").ok()?;
        let probe = std::net::UdpSocket::bind("127.0.0.1:0").ok()?;
        probe.connect(echo.local_addr().ok()?).ok()?;
        for s in [&echo, &probe] {
            s.set_read_timeout(Some(Duration::from_millis(200))).ok()?;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let echoing = std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            while !flag.load(Ordering::Relaxed) {
                if let Ok((n, from)) = echo.recv_from(&mut buf) {
                    let _ = echo.send_to(&buf[..n], from);
                }
            }
            Vec::new()
        });
        let flag = stop.clone();
        let probing = std::thread::spawn(move || {
            let origin = std::time::Instant::now();
            let mut trips = Vec::new();
            let mut seq: u64 = 0;
            let mut buf = [0u8; 64];
            while !flag.load(Ordering::Relaxed) {
                seq += 1;
                let sent = origin.elapsed();
                let mut msg = [0u8; 16];
                msg[..8].copy_from_slice(&seq.to_le_bytes());
                msg[8..].copy_from_slice(&(sent.as_nanos() as u64).to_le_bytes());
                let _ = probe.send(&msg);
                // Answers to earlier probes count too (each carries its send time).
                let deadline = sent + Duration::from_millis(10);
                while origin.elapsed() < deadline {
                    if let Ok(16) = probe.recv(&mut buf) {
                        let at = u64::from_le_bytes(buf[8..16].try_into().unwrap());
                        trips.push(origin.elapsed() - Duration::from_nanos(at));
                    }
                    let left = deadline.saturating_sub(origin.elapsed());
                    let _ = probe.set_read_timeout(Some(left.max(Duration::from_micros(100))));
                }
            }
            trips
        });
        Some(QueueProbe {
            stop,
            threads: vec![echoing, probing],
        })
    }

    /// Stops: the probes' round trips (each two crossings of the queue).
    pub fn stop(self) -> Vec<Duration> {
        self.stop.store(true, Ordering::Relaxed);
        self.threads
            .into_iter()
            .flat_map(|t| t.join().unwrap_or_default())
            .collect()
    }
}
