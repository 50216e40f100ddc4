//! A link model between the members of a local cluster, in user space: every member pair's traffic crosses a link with a one-way delay, a bandwidth and a queue, both ways, shared by all connections of the pair — under the engine and under real etcd alike.
//!
//! Loopback never fills, so a rehearsal on it cannot show what a slow link
//! does to a membership change. [`Links`] is a TCP proxy that listens on the
//! peer port each member *advertises* and forwards to the port it really
//! listens on. Each accepted connection is attributed to the member that
//! opened it (`source`: the process that owns the connecting socket, and
//! the member whose peer port that process listens on), so its bytes join
//! the queue of their member pair and direction (`shaper`) — as on a real
//! path, a heartbeat waits behind a snapshot sent to the same member,
//! whichever connection each travels on (etcd's leader, for one, sends its
//! appends over a stream its follower opened). This kernel has no `netem`,
//! so the delay has to come from user space, as in etcd's own robustness
//! tests. The proxy runs on threads of its own, with blocking I/O and the
//! precise sleeps of the OS, off any async runtime.

#![warn(missing_docs)]

mod diag;
mod processes;
mod proxy;
mod shaper;
mod source;

use std::fmt;
use std::time::Duration;

pub use processes::{listening_pid, Processes};
pub use proxy::{Links, Route};
pub use shaper::{Admission, Shaper};

/// A link's settings: the same for every member pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkSpec {
    /// One-way delay (half the round trip).
    pub one_way: Duration,
    /// Bandwidth in bits per second, each way.
    pub bandwidth_bits: u64,
    /// The queue in front of the wire, in bytes, each way.
    pub queue_bytes: u64,
    /// Which traffic shares a queue and its bandwidth: each member pair's
    /// direction (the default), each sending member's (its uplink), or all
    /// of it (one segment, as a single shaped device). Read also from the
    /// `uplink: bool` older versions wrote.
    #[serde(default, alias = "uplink", deserialize_with = "sharing_or_bool")]
    pub shared: Sharing,
    /// The most of a queue one connection may hold at once
    /// (`per-connection=SIZE`; None: all of it). A sending host's TCP small
    /// queues hold each socket to a few packets of its qdisc under BBR and
    /// to about 134 KiB under CUBIC (measured on this kernel), so
    /// connections take turns there; a router's buffer is one FIFO.
    #[serde(default)]
    pub per_connection: Option<u64>,
}

/// Which traffic shares one queue (`shared=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sharing {
    /// One queue per member pair and direction (`shared=pair`).
    #[default]
    Pair,
    /// One queue per sending member, for all its peers (`shared=uplink`).
    Uplink,
    /// One queue for every member's traffic both ways (`shared=all`): one
    /// segment, as a namespace's shaped loopback.
    All,
}

impl Sharing {
    /// As `shared=` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Sharing::Pair => "pair",
            Sharing::Uplink => "uplink",
            Sharing::All => "all",
        }
    }
}

/// Reads [`Sharing`] as written now (`"uplink"`) or as the `uplink: bool`
/// of older cluster files.
fn sharing_or_bool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Sharing, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Written {
        Old(bool),
        Now(Sharing),
    }
    Ok(match serde::Deserialize::deserialize(d)? {
        Written::Old(true) => Sharing::Uplink,
        Written::Old(false) => Sharing::Pair,
        Written::Now(s) => s,
    })
}

/// What is wrong with a link's description.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("--link {given:?}: {problem}; write it as rtt=40ms,bandwidth=50mbit,queue=4mb")]
pub struct LinkSpecError {
    given: String,
    problem: String,
}

impl LinkSpec {
    /// The round trip (twice the one-way delay).
    pub fn rtt(&self) -> Duration {
        self.one_way * 2
    }

    /// Parses `rtt=40ms,bandwidth=50mbit,queue=4mb`: every key once, in
    /// any order; bandwidth in `kbit`, `mbit` or `gbit` (per second, 1000
    /// based, as tc's); queue in `b`, `kb`, `mb` (1024 based, as tc's);
    /// optionally `shared=pair|uplink|all` and `per-connection=SIZE` (as queue).
    pub fn parse(s: &str) -> Result<LinkSpec, LinkSpecError> {
        let fail = |problem: String| LinkSpecError {
            given: s.to_string(),
            problem,
        };
        let (mut rtt, mut bandwidth, mut queue, mut shared, mut per_connection) =
            (None, None, None, None, None);
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| fail(format!("{part:?} is not KEY=VALUE")))?;
            let slot = match key.trim() {
                "rtt" => &mut rtt,
                "bandwidth" => &mut bandwidth,
                "queue" => &mut queue,
                "shared" => &mut shared,
                "per-connection" => &mut per_connection,
                other => {
                    return Err(fail(format!(
                        "unknown key {other:?} (rtt, bandwidth, queue, shared and per-connection are known)"
                    )))
                }
            };
            if slot.replace(value.trim().to_ascii_lowercase()).is_some() {
                return Err(fail(format!("{key} is given twice")));
            }
        }
        let rtt = rtt.ok_or_else(|| fail("rtt is missing".into()))?;
        let rtt = humantime::parse_duration(&rtt).map_err(|e| fail(format!("rtt {rtt:?}: {e}")))?;
        let bandwidth = bandwidth.ok_or_else(|| fail("bandwidth is missing".into()))?;
        let bandwidth_bits = with_unit(
            &bandwidth,
            &[("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)],
        )
        .ok_or_else(|| {
            fail(format!(
                "bandwidth {bandwidth:?} is not a number with kbit, mbit or gbit"
            ))
        })?;
        let queue = queue.ok_or_else(|| fail("queue is missing".into()))?;
        let queue_bytes = parse_size(&queue)
            .ok_or_else(|| fail(format!("queue {queue:?} is not a number with b, kb or mb")))?;
        if bandwidth_bits < 8_000.0 {
            return Err(fail("bandwidth must be at least 8kbit".into()));
        }
        if queue_bytes < 1500.0 {
            return Err(fail("queue must hold at least one packet (1500b)".into()));
        }
        let shared = match shared.as_deref() {
            None | Some("pair") => Sharing::Pair,
            Some("uplink") => Sharing::Uplink,
            Some("all") => Sharing::All,
            Some(other) => {
                return Err(fail(format!(
                    "shared={other:?}: pair (one queue per member pair, the default), uplink (one per sending member) or all (one for everyone)"
                )))
            }
        };
        let per_connection = match per_connection {
            None => None,
            Some(p) => Some(
                parse_size(&p)
                    .filter(|b| *b >= 1500.0)
                    .ok_or_else(|| {
                        fail(format!(
                            "per-connection {p:?} is not a size of at least one packet (1500b) in b, kb or mb"
                        ))
                    })? as u64,
            ),
        };
        if rtt > Duration::from_secs(10) {
            return Err(fail("rtt must be at most 10s".into()));
        }
        Ok(LinkSpec {
            one_way: rtt / 2,
            bandwidth_bits: bandwidth_bits as u64,
            queue_bytes: queue_bytes as u64,
            shared,
            per_connection,
        })
    }
}

/// A bandwidth as `--link` writes it (`50mbit`, `1gbit`, `800kbit`), in
/// bits per second; None when it is not one.
pub fn parse_bandwidth(value: &str) -> Option<u64> {
    let value = value.trim().to_ascii_lowercase();
    with_unit(
        &value,
        &[("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)],
    )
    .filter(|b| *b >= 1.0)
    .map(|b| b as u64)
}

/// `12.5mbit` with `units` [("mbit", 1e6), …]: the number times the unit's
/// factor; None when no unit ends it or the number is not positive.
fn with_unit(value: &str, units: &[(&str, f64)]) -> Option<f64> {
    let (number, factor) = units
        .iter()
        .find_map(|(u, f)| value.strip_suffix(u).map(|n| (n, *f)))?;
    let n: f64 = number.trim().parse().ok()?;
    (n.is_finite() && n > 0.0).then_some(n * factor)
}

/// `4mb`, `256kb`, `1500b` (1024 based, as tc's) in bytes; None when it
/// is not one.
fn parse_size(value: &str) -> Option<f64> {
    with_unit(value, &[("kb", 1024.0), ("mb", 1048576.0), ("b", 1.0)])
}

/// A size as `--link` writes it: `4mb`, `256kb`, `1500b` ([`parse_size`]'s inverse).
fn size(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{}mb", bytes >> 20)
    } else if bytes % 1024 == 0 {
        format!("{}kb", bytes >> 10)
    } else {
        format!("{bytes}b")
    }
}

impl fmt::Display for LinkSpec {
    /// As it is given: `rtt=40ms,bandwidth=50mbit,queue=4mb`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rtt = self.rtt();
        let rtt = if rtt.subsec_micros() % 1000 != 0 {
            format!("{}us", rtt.as_micros())
        } else {
            format!("{}ms", rtt.as_millis())
        };
        let b = self.bandwidth_bits;
        let bandwidth = if b % 1_000_000_000 == 0 {
            format!("{}gbit", b / 1_000_000_000)
        } else if b % 1_000_000 == 0 {
            format!("{}mbit", b / 1_000_000)
        } else if b % 1000 == 0 {
            format!("{}kbit", b / 1000)
        } else {
            format!("{b}bit")
        };
        write!(
            f,
            "rtt={rtt},bandwidth={bandwidth},queue={}",
            size(self.queue_bytes)
        )?;
        if self.shared != Sharing::Pair {
            write!(f, ",shared={}", self.shared.as_str())?;
        }
        if let Some(p) = self.per_connection {
            write!(f, ",per-connection={}", size(p))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_parses_and_prints_as_given() {
        let l = LinkSpec::parse("rtt=40ms,bandwidth=50mbit,queue=4mb").unwrap();
        assert_eq!(l.one_way, Duration::from_millis(20));
        assert_eq!(l.bandwidth_bits, 50_000_000);
        assert_eq!(l.queue_bytes, 4 << 20);
        assert_eq!(l.to_string(), "rtt=40ms,bandwidth=50mbit,queue=4mb");
        assert_eq!(l.shared, Sharing::Pair);
        let l = LinkSpec::parse("rtt=40ms,bandwidth=50mbit,queue=4mb,shared=uplink").unwrap();
        assert_eq!(l.shared, Sharing::Uplink);
        assert_eq!(
            l.to_string(),
            "rtt=40ms,bandwidth=50mbit,queue=4mb,shared=uplink"
        );
        let l = LinkSpec::parse("per-connection=6kb,rtt=40ms,bandwidth=50mbit,queue=4mb").unwrap();
        assert_eq!(l.per_connection, Some(6144));
        assert_eq!(l.shared, Sharing::Pair);
        assert_eq!(
            l.to_string(),
            "rtt=40ms,bandwidth=50mbit,queue=4mb,per-connection=6kb"
        );
        let l = LinkSpec::parse("rtt=40ms,bandwidth=50mbit,queue=4mb,shared=all").unwrap();
        assert_eq!(l.shared, Sharing::All);
        assert_eq!(
            l.to_string(),
            "rtt=40ms,bandwidth=50mbit,queue=4mb,shared=all"
        );
        let l = LinkSpec::parse(" queue=256kb , bandwidth=1gbit,rtt=500us").unwrap();
        assert_eq!(l.to_string(), "rtt=500us,bandwidth=1gbit,queue=256kb");
        assert_eq!(l.one_way, Duration::from_micros(250));
    }

    #[test]
    fn a_bad_link_is_refused_naming_what_is_wrong() {
        for (given, says) in [
            ("rtt=40ms,bandwidth=50mbit", "queue is missing"),
            ("rtt=40ms,bandwidth=50,queue=4mb", "kbit, mbit or gbit"),
            ("rtt=soon,bandwidth=50mbit,queue=4mb", "rtt \"soon\""),
            (
                "rtt=40ms,rtt=41ms,bandwidth=50mbit,queue=4mb",
                "rtt is given twice",
            ),
            (
                "rtt=40ms,bandwidth=50mbit,queue=4mb,loss=1",
                "unknown key \"loss\"",
            ),
            ("rtt=40ms,bandwidth=-5mbit,queue=4mb", "bandwidth"),
            ("rtt=40ms,bandwidth=50mbit,queue=100b", "one packet"),
            (
                "rtt=40ms,bandwidth=50mbit,queue=4mb,shared=everyone",
                "pair (one queue",
            ),
            (
                "rtt=40ms,bandwidth=50mbit,queue=4mb,per-connection=1kb",
                "per-connection \"1kb\" is not a size of at least one packet",
            ),
        ] {
            let e = LinkSpec::parse(given).unwrap_err().to_string();
            assert!(e.contains(says), "{given}: {e}");
            assert!(e.contains("rtt=40ms,bandwidth=50mbit,queue=4mb"), "{e}");
        }
    }

    #[test]
    fn a_link_written_by_an_older_version_is_read() {
        let old = r#"{"one_way":{"secs":0,"nanos":20000000},"bandwidth_bits":50000000,"queue_bytes":4194304,"uplink":true}"#;
        let l: LinkSpec = serde_json::from_str(old).unwrap();
        assert_eq!(l.shared, Sharing::Uplink);
        let l: LinkSpec = serde_json::from_str(&old.replace("true", "false")).unwrap();
        assert_eq!(l.shared, Sharing::Pair);
        let now = serde_json::to_string(
            &LinkSpec::parse("rtt=40ms,bandwidth=50mbit,queue=4mb,shared=all").unwrap(),
        )
        .unwrap();
        assert!(now.contains(r#""shared":"all""#), "{now}");
        assert_eq!(
            serde_json::from_str::<LinkSpec>(&now).unwrap().shared,
            Sharing::All
        );
    }
}
