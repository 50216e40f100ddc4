//! A member's HTTP face read into domain figures: the few series of etcd's
//! Prometheus text (`/metrics`) the pre-flight checks use, and `/version`.

use std::collections::BTreeMap;

use crate::model::{Histogram, MemberId, ServerMetrics, ServerVersion};

const QUOTA: &str = "etcd_server_quota_backend_bytes";
const WAL_FSYNC: &str = "etcd_disk_wal_fsync_duration_seconds";
const BACKEND_COMMIT: &str = "etcd_disk_backend_commit_duration_seconds";
const PEER_RTT: &str = "etcd_network_peer_round_trip_time_seconds";
const LEADER_CHANGES: &str = "etcd_server_leader_changes_seen_total";

/// One sample line: `name{label="value",…} value [timestamp]`.
struct Sample<'a> {
    name: &'a str,
    labels: Vec<(&'a str, String)>,
    value: f64,
}

impl Sample<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A value as the text format writes it (`+Inf`, `-Inf`, `NaN` included).
fn number(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

/// Reads the labels after `{`, answering them and the rest after `}`.
fn labels(mut s: &str) -> Option<(Vec<(&str, String)>, &str)> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start_matches([' ', ',']);
        if let Some(rest) = s.strip_prefix('}') {
            return Some((out, rest));
        }
        let eq = s.find('=')?;
        let key = s[..eq].trim();
        let mut chars = s[eq + 1..].trim_start().strip_prefix('"')?.char_indices();
        let mut value = String::new();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    c => value.push(c),
                },
                (_, c) => value.push(c),
            }
        };
        let after_quote = s[eq + 1..].trim_start();
        out.push((key, value));
        s = &after_quote[1 + end + 1..];
    }
}

/// Parses one line, or `None` for comments, blanks and lines it cannot read.
fn sample(line: &str) -> Option<Sample<'_>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let end = line.find(['{', ' ', '\t'])?;
    let name = &line[..end];
    let (labels, rest) = if line[end..].starts_with('{') {
        labels(&line[end + 1..])?
    } else {
        (Vec::new(), &line[end..])
    };
    let value = number(rest.split_whitespace().next()?)?;
    Some(Sample {
        name,
        labels,
        value,
    })
}

/// A histogram being assembled from its `_bucket`, `_sum` and `_count` lines.
#[derive(Default)]
struct Parts(Histogram);

impl Parts {
    fn add(&mut self, suffix: &str, s: &Sample<'_>) {
        match suffix {
            "_bucket" => {
                if let Some(le) = s.label("le").and_then(number) {
                    self.0.buckets.push((le, s.value));
                }
            }
            "_sum" => self.0.sum = s.value,
            "_count" => self.0.count = s.value,
            _ => {}
        }
    }

    fn done(mut self) -> Histogram {
        self.0.buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.0
    }
}

/// Reads the series the checks use out of Prometheus' text format; the rest
/// is skipped unparsed. A series that is absent stays `None` (empty).
pub(crate) fn parse_metrics(text: &str) -> ServerMetrics {
    let mut out = ServerMetrics::default();
    let (mut fsync, mut commit) = (None::<Parts>, None::<Parts>);
    let mut rtt: BTreeMap<MemberId, Parts> = BTreeMap::new();
    for line in text.lines() {
        if !line.starts_with("etcd_") {
            continue;
        }
        let Some(s) = sample(line) else { continue };
        if s.name == QUOTA {
            out.quota_backend_bytes = Some(s.value);
        } else if s.name == LEADER_CHANGES {
            out.leader_changes_seen = Some(s.value);
        } else if let Some(suffix) = s.name.strip_prefix(WAL_FSYNC) {
            fsync.get_or_insert_with(Parts::default).add(suffix, &s);
        } else if let Some(suffix) = s.name.strip_prefix(BACKEND_COMMIT) {
            commit.get_or_insert_with(Parts::default).add(suffix, &s);
        } else if let Some(suffix) = s.name.strip_prefix(PEER_RTT) {
            if let Some(to) = s.label("To").and_then(|t| t.parse::<MemberId>().ok()) {
                rtt.entry(to).or_default().add(suffix, &s);
            }
        }
    }
    out.wal_fsync = fsync.map(Parts::done);
    out.backend_commit = commit.map(Parts::done);
    out.peer_round_trip = rtt.into_iter().map(|(to, p)| (to, p.done())).collect();
    out
}

/// Reads `/version`'s JSON (`{"etcdserver":"3.5.17","etcdcluster":"3.5.0"}`).
pub(super) fn parse_version(text: &str) -> Result<ServerVersion, String> {
    #[derive(serde::Deserialize)]
    struct Wire {
        etcdserver: String,
        etcdcluster: String,
    }
    let w: Wire = serde_json::from_str(text)
        .map_err(|e| format!("not etcd's /version answer ({e}): {}", text.trim()))?;
    Ok(ServerVersion {
        server: w.etcdserver,
        cluster: w.etcdcluster,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETCD_3_4: &str = include_str!("../../tests/fixtures/metrics/etcd-3.4.23.txt");
    const ETCD_3_6: &str = include_str!("../../tests/fixtures/metrics/etcd-3.6.15-single.txt");

    #[test]
    fn a_real_etcd_3_4_scrape_gives_every_figure() {
        let m = parse_metrics(ETCD_3_4);
        assert_eq!(m.quota_backend_bytes, Some(2_147_483_648.0));
        assert_eq!(m.leader_changes_seen, Some(1.0));
        let fsync = m.wal_fsync.expect("wal fsync");
        assert_eq!(fsync.buckets.len(), 15);
        assert_eq!(fsync.buckets.last().unwrap().0, f64::INFINITY);
        assert_eq!(fsync.count, fsync.buckets.last().unwrap().1);
        assert!(fsync.quantile(0.99).unwrap() < 0.01);
        assert!(m.backend_commit.is_some());
        // Two peers in a three-member cluster, by their IDs.
        assert_eq!(m.peer_round_trip.len(), 2);
        assert_eq!(
            m.peer_round_trip[0].0,
            "54944d8e6137cb1d".parse::<MemberId>().unwrap()
        );
        assert!(m.peer_round_trip.iter().all(|(_, h)| h.count > 0.0));
    }

    #[test]
    fn a_real_etcd_3_6_scrape_of_a_single_member_has_no_peers() {
        let m = parse_metrics(ETCD_3_6);
        assert!(m.quota_backend_bytes.is_some());
        assert!(m.wal_fsync.is_some() && m.backend_commit.is_some());
        assert!(m.peer_round_trip.is_empty());
    }

    #[test]
    fn labels_with_escapes_and_odd_spacing_are_read() {
        let text = "etcd_network_peer_round_trip_time_seconds_bucket{ To=\"00000000000000ff\" , x=\"a\\\"b\\\\\",le=\"+Inf\"} 3 1700000000\n\
                    etcd_network_peer_round_trip_time_seconds_count{To=\"00000000000000ff\"} 3\n\
                    etcd_server_quota_backend_bytes 8.589934592e+09\n\
                    etcd_server_quota_backend_bytes{broken 1\n";
        let m = parse_metrics(text);
        assert_eq!(m.quota_backend_bytes, Some(8_589_934_592.0));
        assert_eq!(m.peer_round_trip.len(), 1);
        let (to, h) = &m.peer_round_trip[0];
        assert_eq!(*to, MemberId(0xff));
        assert_eq!(h.buckets, vec![(f64::INFINITY, 3.0)]);
        assert_eq!(h.count, 3.0);
    }

    #[test]
    fn version_answers_are_read_and_others_refused() {
        let v = parse_version(r#"{"etcdserver":"3.6.15","etcdcluster":"3.6.0","storage":"3.6.0"}"#)
            .unwrap();
        assert_eq!(v.server, "3.6.15");
        assert_eq!(v.cluster, "3.6.0");
        assert!(parse_version("404 page not found").is_err());
    }
}
