//! The catch-up's bulk sender as TCP saw it (`MEMBERCTL_BENCH_SS`): `ss -tin` of the connections to the new member sampled every 100 ms beside the bytes the shaped class carried, every connection's bytes sent meanwhile, and the machine's CPU.

use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// One sample: the busiest connection's `ss -i` line, when it was taken, and
/// the bytes the shaped class had carried by then.
struct Sample {
    line: String,
    at: std::time::Instant,
    carried: Option<u64>,
}

/// Samples the busiest connection to one port and, at its start and stop,
/// every connection's bytes sent.
pub struct SocketSampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<(Vec<Sample>, HashMap<String, u64>)>,
    first: HashMap<String, u64>,
    cpu: Option<Vec<u64>>,
}

impl SocketSampler {
    /// Starts sampling the connections whose destination port is `port`.
    pub fn start(port: u16) -> SocketSampler {
        let first = connections();
        let cpu = cpu_times();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut lines = Vec::new();
            // Every connection's bytes sent as last seen, closed ones too.
            let mut seen: HashMap<String, u64> = HashMap::new();
            while !flag.load(Ordering::Relaxed) {
                seen.extend(connections());
                let out = Command::new("ss")
                    .args(["-tin", "dst", &format!(":{port}")])
                    .output();
                if let Ok(out) = out {
                    let text = String::from_utf8_lossy(&out.stdout).to_string();
                    if let Some(busiest) = text
                        .lines()
                        .filter(|l| l.contains("bytes_sent:"))
                        .max_by_key(|l| number(l, "bytes_sent:").unwrap_or(0.0) as u64)
                    {
                        lines.push(Sample {
                            line: busiest.trim().to_string(),
                            at: std::time::Instant::now(),
                            carried: shaped_bytes(),
                        });
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (lines, seen)
        });
        SocketSampler {
            stop,
            thread,
            first,
            cpu,
        }
    }

    /// Stops: what to print. The medians of the busiest connection's
    /// congestion window, pacing rate, round trip, unsent and unacknowledged
    /// data, how many samples were limited by the application, every 20th
    /// sample whole, how many connections were opened meanwhile, and each
    /// that sent more than 256 KiB meanwhile (as far as it was seen: one
    /// that lived less than a sample is not).
    pub fn stop(self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        let (samples, mut seen) = self.thread.join().unwrap_or_default();
        seen.extend(connections());
        let shares = shares(&samples);
        let lines: Vec<String> = samples.into_iter().map(|s| s.line).collect();
        let median = |name: &str| {
            let mut v: Vec<f64> = lines.iter().filter_map(|l| number(l, name)).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        let limited = lines.iter().filter(|l| l.contains("app_limited")).count();
        let mut out = vec![format!(
            "{} samples; medians cwnd {:.0}, pacing {:.1} Mbit/s, rtt {:.1} ms, notsent {:.0} KiB, unacked {:.0}; app-limited in {limited}",
            lines.len(),
            median("cwnd:"),
            median("pacing_rate") / 1e6,
            median("rtt:"),
            median("notsent:") / 1024.0,
            median("unacked:"),
        )];
        out.extend(shares);
        out.extend(lines.iter().step_by(20).cloned());
        let opened = seen.keys().filter(|c| !self.first.contains_key(*c)).count();
        // Bytes by the port each connection went to or came from (whichever
        // is lower: a listener's), short-lived connections summed.
        let mut by_port: HashMap<String, (u64, usize)> = HashMap::new();
        for (c, b) in &seen {
            let sent = b.saturating_sub(self.first.get(c).copied().unwrap_or(0));
            let port = |a: &str| a.rsplit(':').next().and_then(|p| p.parse::<u32>().ok());
            let mut ends = c.split(" → ").filter_map(port);
            let (Some(x), Some(y)) = (ends.next(), ends.next()) else {
                continue;
            };
            let key = if x < y {
                format!("from :{x}")
            } else {
                format!("to :{y}")
            };
            let e = by_port.entry(key).or_default();
            e.0 += sent;
            e.1 += 1;
        }
        let mut ports: Vec<(String, (u64, usize))> = by_port.into_iter().collect();
        ports.sort_by_key(|p| std::cmp::Reverse(p.1 .0));
        let ports: Vec<String> = ports
            .iter()
            .take(8)
            .map(|(k, (b, n))| format!("{k} {:.1} MB in {n}", *b as f64 / 1e6))
            .collect();
        let mut sent: Vec<(u64, String)> = seen
            .into_iter()
            .map(|(c, b)| {
                (
                    b.saturating_sub(self.first.get(&c).copied().unwrap_or(0)),
                    c,
                )
            })
            .filter(|(b, _)| *b > 256 << 10)
            .collect();
        sent.sort_by_key(|s| std::cmp::Reverse(s.0));
        out.push(format!(
            "{opened} connections opened meanwhile; bytes sent by port: {}",
            ports.join(", ")
        ));
        out.extend(
            sent.into_iter()
                .map(|(b, c)| format!("connection {c}: {b} bytes sent meanwhile")),
        );
        if let (Some(a), Some(b)) = (self.cpu, cpu_times()) {
            let d: Vec<u64> = b
                .iter()
                .zip(&a)
                .map(|(b, a)| b.saturating_sub(*a))
                .collect();
            let total = d.iter().sum::<u64>().max(1) as f64;
            let share = |i: usize| d.get(i).copied().unwrap_or(0) as f64 * 100.0 / total;
            out.push(format!(
                "the machine's CPU meanwhile: user {:.0} %, system {:.0} %, softirq {:.0} %, iowait {:.0} %, idle {:.0} %",
                share(0) + share(1),
                share(2),
                share(6),
                share(4),
                share(3),
            ));
        }
        out
    }
}

/// What the shaped class carried between two samples against what the
/// connection had acknowledged (Mbit/s): medians, the lowest tenth, how often
/// the connection had less than 80 % of it, and the first 60 intervals.
fn shares(samples: &[Sample]) -> Vec<String> {
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    for w in samples.windows(2) {
        let (Some(a), Some(b)) = (w[0].carried, w[1].carried) else {
            continue;
        };
        let secs = w[1].at.duration_since(w[0].at).as_secs_f64().max(1e-3);
        let acked = |s: &Sample| number(&s.line, "bytes_acked:").unwrap_or(0.0);
        let ours = (acked(&w[1]) - acked(&w[0])).max(0.0) * 8.0 / secs / 1e6;
        let link = b.saturating_sub(a) as f64 * 8.0 / secs / 1e6;
        pairs.push((ours, link));
    }
    if pairs.is_empty() {
        return Vec::new();
    }
    let quantile = |f: &dyn Fn(&(f64, f64)) -> f64, q: f64| {
        let mut v: Vec<f64> = pairs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[((v.len() as f64 * q) as usize).min(v.len() - 1)]
    };
    let short = pairs.iter().filter(|(o, l)| *o < 0.8 * *l).count();
    let series: Vec<String> = pairs
        .iter()
        .take(60)
        .map(|(o, l)| format!("{o:.0}/{l:.0}"))
        .collect();
    vec![
        format!(
            "per interval, this connection / the shaped class: medians {:.1} / {:.1} Mbit/s, lowest tenth {:.1} / {:.1}; under 80 % of the class in {short} of {}",
            quantile(&|p| p.0, 0.5),
            quantile(&|p| p.1, 0.5),
            quantile(&|p| p.0, 0.1),
            quantile(&|p| p.1, 0.1),
            pairs.len()
        ),
        format!("the first intervals (Mbit/s, ours/class): {}", series.join(" ")),
    ]
}

/// The bytes the loopback's shaped traffic has carried so far: htb's class
/// 1:20 under `kernel-*-peers`, else the root qdisc's.
fn shaped_bytes() -> Option<u64> {
    // `tc -j` prints classes as text in this iproute2: `class htb 1:20 …`
    // then ` Sent N bytes …`.
    let out = Command::new("tc")
        .args(["-s", "class", "show", "dev", "lo"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut lines = text.lines();
    if lines.any(|l| l.starts_with("class htb 1:20 ")) {
        let sent = lines.next()?.trim().strip_prefix("Sent ")?;
        return sent.split_whitespace().next()?.parse().ok();
    }
    let out = Command::new("tc")
        .args(["-s", "-j", "qdisc", "show", "dev", "lo"])
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v.as_array()?.first()?["bytes"].as_u64()
}

/// The machine's CPU time so far, as /proc/stat's first line counts it
/// (user, nice, system, idle, iowait, irq, softirq, steal).
fn cpu_times() -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    Some(
        line.split_whitespace()
            .take(8)
            .filter_map(|v| v.parse().ok())
            .collect(),
    )
}

/// Every TCP connection's bytes sent so far, by its addresses (`local →
/// peer`).
fn connections() -> HashMap<String, u64> {
    let Ok(out) = Command::new("ss").args(["-tinH"]).output() else {
        return HashMap::new();
    };
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .filter_map(|w| {
            let sent = number(w[1], "bytes_sent:")? as u64;
            let addrs: Vec<&str> = w[0].split_whitespace().collect();
            (addrs.len() >= 5).then(|| (format!("{} → {}", addrs[3], addrs[4]), sent))
        })
        .collect()
}

/// A number in an `ss -i` line: `name` is a word's prefix (`cwnd:`,
/// `rtt:` whose first part is taken), or `pacing_rate`, whose value is the
/// next word with its unit (`52.1Mbps`).
fn number(line: &str, name: &str) -> Option<f64> {
    let mut words = line.split_whitespace();
    if name == "pacing_rate" {
        words.find(|w| *w == name)?;
        let v = words.next()?.strip_suffix("bps")?;
        let (n, scale) = match v.chars().last()? {
            'K' => (&v[..v.len() - 1], 1e3),
            'M' => (&v[..v.len() - 1], 1e6),
            'G' => (&v[..v.len() - 1], 1e9),
            _ => (v, 1.0),
        };
        return Some(n.parse::<f64>().ok()? * scale);
    }
    let v = words.find_map(|w| w.strip_prefix(name))?;
    v.split('/').next()?.parse().ok()
}
