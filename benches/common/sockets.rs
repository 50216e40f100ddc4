//! The catch-up's bulk sender as TCP saw it (`MEMBERCTL_BENCH_SS`): `ss -tin` of the connections to the new member sampled every 100 ms, every connection's bytes sent meanwhile, and the machine's CPU.

use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Samples the busiest connection to one port and, at its start and stop,
/// every connection's bytes sent.
pub struct SocketSampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Vec<String>>,
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
            while !flag.load(Ordering::Relaxed) {
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
                        lines.push(busiest.trim().to_string());
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            lines
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
    /// sample whole, and each connection that sent more than 256 KiB
    /// meanwhile (one closed meanwhile, as a snapshot's, is not among them).
    pub fn stop(self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        let lines = self.thread.join().unwrap_or_default();
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
        out.extend(lines.iter().step_by(20).cloned());
        let mut sent: Vec<(u64, String)> = connections()
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
