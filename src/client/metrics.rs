//! A member's HTTP face read into domain figures: the few series of etcd's
//! Prometheus text (`/metrics`) the pre-flight checks use, and `/version`.

use std::collections::BTreeMap;

use crate::model::{Histogram, MemberId, ServerMetrics, ServerVersion, SnapshotTransfers};

const QUOTA: &str = "etcd_server_quota_backend_bytes";
const WAL_FSYNC: &str = "etcd_disk_wal_fsync_duration_seconds";
const BACKEND_COMMIT: &str = "etcd_disk_backend_commit_duration_seconds";
const PEER_RTT: &str = "etcd_network_peer_round_trip_time_seconds";
const LEADER_CHANGES: &str = "etcd_server_leader_changes_seen_total";
const SENT_BYTES: &str = "etcd_network_peer_sent_bytes_total";
const RECEIVED_BYTES: &str = "etcd_network_peer_received_bytes_total";
const SNAPSHOT_SEND: &str = "etcd_network_snapshot_send_";
const SNAPSHOT_RECEIVE: &str = "etcd_network_snapshot_receive_";
const SNAPSHOT_APPLYING: &str = "etcd_server_snapshot_apply_in_progress_total";
const COMMITTED: &str = "etcd_server_proposals_committed_total";
const HEARTBEAT_FAILURES: &str = "etcd_server_heartbeat_send_failures_total";
const SLOW_APPLIES: &str = "etcd_server_slow_apply_total";
const ACTIVE_PEERS: &str = "etcd_network_active_peers";

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

/// One peer's snapshot transfers in one direction, being assembled.
#[derive(Default)]
struct Transfers {
    counts: SnapshotTransfers,
    duration: Option<Parts>,
}

impl Transfers {
    /// Adds the line of `etcd_network_snapshot_{send,receive}_` + `rest`.
    fn add(&mut self, rest: &str, s: &Sample<'_>) {
        match rest {
            "success" => self.counts.success = s.value,
            "failures" => self.counts.failures = s.value,
            "inflights_total" => self.counts.inflight = s.value,
            _ => {
                if let Some(suffix) = rest.strip_prefix("total_duration_seconds") {
                    self.duration
                        .get_or_insert_with(Parts::default)
                        .add(suffix, s);
                }
            }
        }
    }

    fn done(self) -> SnapshotTransfers {
        SnapshotTransfers {
            duration: self.duration.map(Parts::done),
            ..self.counts
        }
    }
}

/// The peer a sample is about, by its `label` (`To` or `From`).
fn peer(s: &Sample<'_>, label: &str) -> Option<MemberId> {
    s.label(label).and_then(|t| t.parse::<MemberId>().ok())
}

/// Reads the series the checks use out of Prometheus' text format; the rest
/// is skipped unparsed. A series that is absent stays `None` (empty).
pub(crate) fn parse_metrics(text: &str) -> ServerMetrics {
    let mut out = ServerMetrics::default();
    let (mut fsync, mut commit) = (None::<Parts>, None::<Parts>);
    let mut rtt: BTreeMap<MemberId, Parts> = BTreeMap::new();
    let (mut sent, mut received) = (BTreeMap::new(), BTreeMap::new());
    let mut active = BTreeMap::new();
    let mut sends: BTreeMap<MemberId, Transfers> = BTreeMap::new();
    let mut receives: BTreeMap<MemberId, Transfers> = BTreeMap::new();
    for line in text.lines() {
        if !line.starts_with("etcd_") {
            continue;
        }
        let Some(s) = sample(line) else { continue };
        if s.name == QUOTA {
            out.quota_backend_bytes = Some(s.value);
        } else if s.name == LEADER_CHANGES {
            out.leader_changes_seen = Some(s.value);
        } else if s.name == SNAPSHOT_APPLYING {
            out.snapshot_apply_in_progress = Some(s.value);
        } else if s.name == COMMITTED {
            out.proposals_committed = Some(s.value);
        } else if s.name == HEARTBEAT_FAILURES {
            out.heartbeat_send_failures = Some(s.value);
        } else if s.name == SLOW_APPLIES {
            out.slow_applies = Some(s.value);
        } else if s.name == ACTIVE_PEERS {
            if let Some(remote) = peer(&s, "Remote") {
                active.insert(remote, s.value);
            }
        } else if s.name == SENT_BYTES {
            if let Some(to) = peer(&s, "To") {
                sent.insert(to, s.value);
            }
        } else if s.name == RECEIVED_BYTES {
            if let Some(from) = peer(&s, "From") {
                received.insert(from, s.value);
            }
        } else if let Some(rest) = s.name.strip_prefix(SNAPSHOT_SEND) {
            if let Some(to) = peer(&s, "To") {
                sends.entry(to).or_default().add(rest, &s);
            }
        } else if let Some(rest) = s.name.strip_prefix(SNAPSHOT_RECEIVE) {
            if let Some(from) = peer(&s, "From") {
                receives.entry(from).or_default().add(rest, &s);
            }
        } else if let Some(suffix) = s.name.strip_prefix(WAL_FSYNC) {
            fsync.get_or_insert_with(Parts::default).add(suffix, &s);
        } else if let Some(suffix) = s.name.strip_prefix(BACKEND_COMMIT) {
            commit.get_or_insert_with(Parts::default).add(suffix, &s);
        } else if let Some(suffix) = s.name.strip_prefix(PEER_RTT) {
            if let Some(to) = peer(&s, "To") {
                rtt.entry(to).or_default().add(suffix, &s);
            }
        }
    }
    out.wal_fsync = fsync.map(Parts::done);
    out.backend_commit = commit.map(Parts::done);
    out.peer_round_trip = rtt.into_iter().map(|(to, p)| (to, p.done())).collect();
    out.peer_sent_bytes = sent.into_iter().collect();
    out.peer_received_bytes = received.into_iter().collect();
    out.active_peers = active.into_iter().collect();
    out.snapshot_sends = sends.into_iter().map(|(to, t)| (to, t.done())).collect();
    out.snapshot_receives = receives
        .into_iter()
        .map(|(from, t)| (from, t.done()))
        .collect();
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
    fn active_peers_are_read_by_remote() {
        let m = parse_metrics(include_str!(
            "../../tests/fixtures/metrics/etcd-3.4.23-leader-after-snapshot.txt"
        ));
        let remote = MemberId(0x1570_d261_d7b1_be72);
        assert!(m.peer_active(remote));
        assert!(!m.peer_active(MemberId(0x1234)));
        let down = "etcd_network_active_peers{Local=\"1\",Remote=\"00000000000000ff\"} 0\n";
        assert!(!parse_metrics(down).peer_active(MemberId(0xff)));
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
    fn a_snapshot_send_is_read_on_both_sides_of_etcd_3_5() {
        let leader = parse_metrics(include_str!(
            "../../tests/fixtures/metrics/etcd-3.5.34-leader-after-snapshot.txt"
        ));
        let learner = parse_metrics(include_str!(
            "../../tests/fixtures/metrics/etcd-3.5.34-learner-after-snapshot.txt"
        ));
        let learner_id = MemberId(0xe251_79af_55d5_36a9);
        let leader_id = MemberId(0x616c_c07e_b526_2bc7);
        let sent = leader
            .peer_sent_bytes
            .iter()
            .find(|(p, _)| *p == learner_id);
        assert_eq!(sent.map(|s| s.1), Some(3.3398414e7));
        let (to, send) = &leader.snapshot_sends[0];
        assert_eq!(*to, learner_id);
        assert_eq!((send.success, send.inflight), (1.0, 0.0));
        let d = send.duration.as_ref().expect("send duration");
        assert_eq!(d.count, 1.0);
        assert!(d.sum > 0.0 && d.sum < 1.0, "{}", d.sum);
        assert_eq!(leader.proposals_committed, Some(7211.0));
        assert_eq!(leader.heartbeat_send_failures, Some(0.0));
        assert_eq!(leader.slow_applies, Some(1.0));
        assert_eq!(leader.snapshot_apply_in_progress, Some(0.0));
        // The learner counts the whole snapshot from the leader.
        let from = learner
            .peer_received_bytes
            .iter()
            .find(|(p, _)| *p == leader_id);
        assert_eq!(from.map(|s| s.1), Some(3.3398114e7));
        assert!(learner.received_bytes() >= 3.3398114e7);
        assert_eq!(learner.snapshots_received(), 1.0);
        assert!(!learner.receiving_snapshot());
        // A transfer under way shows in the gauge.
        let busy = learner_text_with_inflight();
        assert!(parse_metrics(&busy).receiving_snapshot());
    }

    fn learner_text_with_inflight() -> String {
        include_str!("../../tests/fixtures/metrics/etcd-3.5.34-learner-after-snapshot.txt").replace(
            "etcd_network_snapshot_receive_inflights_total{From=\"616cc07eb5262bc7\"} 0",
            "etcd_network_snapshot_receive_inflights_total{From=\"616cc07eb5262bc7\"} 1",
        )
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
