//! The `catch-up` check: how many bytes a new member needs, how long it will
//! take to receive and apply them, and whether it can finish before the
//! leader compacts its log past the snapshot it was sent. Pure: the
//! estimate ([`estimate`]) is a calculator over the gathered figures.
//!
//! The rule, from etcd's server (3.4 to 3.7 alike): a leader that sends a
//! snapshot stops compacting its log while the send is in flight and for
//! 30 s after it (`releaseDelayAfterSnapshot`); then, at its next snapshot
//! (every `--snapshot-count` applied entries), it compacts to 5,000 entries
//! (`SnapshotCatchUpEntries`) before that snapshot. The new member has
//! meanwhile to receive every entry written since the snapshot's index, on
//! the same link as the entries still being written. It cannot finish when
//! that backlog does not drain within the budget: then the leader compacts
//! past it, sends another snapshot, and the cycle repeats (etcd#5317).

use super::checks::new_check;
use super::server::metrics_of;
use super::{Change, Check, CheckName, Facts, Figures, Verdict};
use crate::model::{mib, MemberId, ServerMetrics};

/// etcd's own assumption for a snapshot's transfer (backend.go: "a min tcp
/// throughput of 100MB/s"), used when nothing better is known.
pub const ASSUMED_BYTES_PER_SECOND: f64 = 100.0 * 1024.0 * 1024.0;
/// How long etcd keeps its log whole after a snapshot send completes
/// (`releaseDelayAfterSnapshot`).
pub const COMPACTION_PAUSE_SECONDS: f64 = 30.0;
/// Entries etcd keeps before its snapshot index when it compacts
/// (`SnapshotCatchUpEntries`).
pub const CATCH_UP_ENTRIES: u64 = 5_000;
/// A received snapshot applied (fsync'd, opened, its index rebuilt), bytes
/// per second: measured on etcd 3.5 and the engine (docs/commands.md).
pub const APPLY_BYTES_PER_SECOND: f64 = 250.0 * 1024.0 * 1024.0;
/// Log entries a new member appends and applies per second when it catches
/// up by the log.
pub const LOG_ENTRIES_PER_SECOND: f64 = 20_000.0;
/// What a catch-up costs before any byte moves: the new member starts, the
/// leader hears from it and prepares the snapshot (measured: 0.2–0.8 s on
/// the engine and etcd 3.5 over the link model).
pub const STARTUP_SECONDS: f64 = 0.5;
/// Shrinking that makes a defragmentation worth doing first (a quarter).
pub const DEFRAG_WORTH: f64 = 0.25;
/// The shortest interval over which the write rate is read.
pub const RATE_INTERVAL_SECONDS: f64 = 0.5;

/// Where the bandwidth of the estimate comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum BandwidthSource {
    /// `--link-bandwidth`.
    Given,
    /// The local cluster's `--link` (`cluster up --link`).
    LocalLink,
    /// The leader's past snapshot sends (`etcd_network_snapshot_send_*`),
    /// taken as the size of today's database.
    PastSends {
        /// How many sends.
        sends: u64,
        /// Their mean duration, seconds.
        mean_seconds: f64,
    },
    /// etcd's own assumption (100 MB/s): nothing better is known.
    Assumed,
}

impl BandwidthSource {
    /// A word for scripts: `given`, `link`, `past-sends`, `assumed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            BandwidthSource::Given => "given",
            BandwidthSource::LocalLink => "link",
            BandwidthSource::PastSends { .. } => "past-sends",
            BandwidthSource::Assumed => "assumed",
        }
    }
}

/// A link's bandwidth and where the figure comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Bandwidth {
    /// Bytes per second.
    pub bytes_per_second: f64,
    /// Where it comes from.
    pub source: BandwidthSource,
}

/// What the operator tells the catch-up check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CatchUpInputs {
    /// The bandwidth to the new member (`--link-bandwidth`, or the local
    /// cluster's `--link`).
    pub bandwidth: Option<Bandwidth>,
    /// The members' `--snapshot-count`, when told (etcd does not report it).
    pub snapshot_count: Option<u64>,
}

/// How a new member will catch up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUpPath {
    /// The leader's log was compacted: it sends a snapshot of its database.
    Snapshot,
    /// The leader's log still holds every entry: it sends them all.
    Log,
}

impl CatchUpPath {
    /// `snapshot` or `log`.
    pub fn as_str(self) -> &'static str {
        match self {
            CatchUpPath::Snapshot => "snapshot",
            CatchUpPath::Log => "log",
        }
    }
}

/// The catch-up of a new member, estimated before it is added.
#[derive(Clone, Debug, PartialEq)]
pub struct CatchUpEstimate {
    /// By snapshot or by the log.
    pub path: CatchUpPath,
    /// The leader's label.
    pub leader: String,
    /// Bytes to send: the leader's database (snapshot) or the entries (log).
    pub bytes: u64,
    /// The database's bytes in use, when reported (what a defragmentation
    /// would leave).
    pub in_use_bytes: Option<u64>,
    /// The link's bandwidth.
    pub bandwidth: Bandwidth,
    /// Entries committed per second (the leader's
    /// `etcd_server_proposals_committed_total`, read twice).
    pub entries_per_second: Option<f64>,
    /// Bytes per second the leader sends each voter (its
    /// `etcd_network_peer_sent_bytes_total`, read twice): the write stream
    /// the new member must also receive.
    pub write_bytes_per_second: Option<f64>,
    /// The members' `--snapshot-count`, and whether it was told or taken
    /// from the version's default.
    pub snapshot_count: (u64, &'static str),
    /// Seconds to send the bytes.
    pub send_seconds: f64,
    /// Seconds to apply them.
    pub apply_seconds: f64,
    /// Seconds to receive what was written meanwhile (infinite when the
    /// writes alone fill the link).
    pub backlog_seconds: f64,
    /// Seconds from the new member's start until it has caught up.
    pub predicted_seconds: f64,
    /// Seconds the backlog may take before the leader compacts past the
    /// snapshot (snapshot path only).
    pub budget_seconds: Option<f64>,
}

/// The default `--snapshot-count` of a server version: 100,000 before 3.6,
/// 10,000 from 3.6 on.
pub fn default_snapshot_count(version: &str) -> u64 {
    let mut parts = version.trim().split('.');
    let major: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(3);
    let minor: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(5);
    if (major, minor) >= (3, 6) {
        10_000
    } else {
        100_000
    }
}

/// `counter` of `id` in `series`.
fn of(series: &[(MemberId, f64)], id: MemberId) -> Option<f64> {
    series.iter().find(|(p, _)| *p == id).map(|(_, v)| *v)
}

/// A rate from two readings `seconds` apart, when both were read.
fn rate(first: Option<f64>, again: Option<f64>, seconds: f64) -> Option<f64> {
    match (first, again) {
        (Some(a), Some(b)) if seconds > 0.0 && b >= a => Some((b - a) / seconds),
        _ => None,
    }
}

/// The leader's two readings of its metrics, when both were read.
fn leader_readings(facts: &Facts) -> Option<(&ServerMetrics, &ServerMetrics)> {
    let h = &facts.health;
    let leader = h.list.get(h.leader_status()?.member_id)?;
    let first = metrics_of(facts, leader)?;
    let again = facts.leader_metrics_again.as_ref()?.as_ref().ok()?;
    Some((first, again))
}

/// The smallest database whose past sends say something about the link: a
/// smaller one's send time is mostly round trips.
pub const PAST_SENDS_MIN_BYTES: u64 = 8 * 1024 * 1024;

/// The bandwidth from the leader's past snapshot sends: the slowest peer's
/// mean send, as if it was today's database (not for a small database).
fn from_past_sends(leader: &ServerMetrics, bytes: u64) -> Option<Bandwidth> {
    if bytes < PAST_SENDS_MIN_BYTES {
        return None;
    }
    leader
        .snapshot_sends
        .iter()
        .filter_map(|(_, t)| {
            let d = t.duration.as_ref()?;
            (d.count > 0.0 && d.sum > 0.0).then_some((d.count, d.sum / d.count))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(sends, mean)| Bandwidth {
            bytes_per_second: bytes as f64 / mean,
            source: BandwidthSource::PastSends {
                sends: sends as u64,
                mean_seconds: mean,
            },
        })
}

/// Estimates a new member's catch-up from what the checks read, or says why
/// it cannot (no leader, or its status or metrics were not read).
pub fn estimate(facts: &Facts) -> Result<CatchUpEstimate, String> {
    let h = &facts.health;
    let status = h
        .leader_status()
        .ok_or("no leader to ask for its database size")?;
    let leader = h
        .list
        .get(status.member_id)
        .ok_or("the leader is not in the member list")?;
    let readings = leader_readings(facts);
    let (first, again) = match readings {
        Some((a, b)) => (Some(a), Some(b)),
        None => (None, None),
    };
    let seconds = facts.metrics_interval.as_secs_f64();
    let entries_per_second = rate(
        first.and_then(|x| x.proposals_committed),
        again.and_then(|x| x.proposals_committed),
        seconds,
    );
    // The write stream to one voter: the busiest voter's share.
    let write_bytes_per_second = h
        .list
        .voters()
        .filter(|m| m.id != leader.id)
        .filter_map(|m| {
            rate(
                first.and_then(|x| of(&x.peer_sent_bytes, m.id)),
                again.and_then(|x| of(&x.peer_sent_bytes, m.id)),
                seconds,
            )
        })
        .max_by(f64::total_cmp);
    let snapshot_count = match (facts.told.snapshot_count, &facts.progress) {
        (Some(n), _) => (n, "given"),
        (None, Some(p)) if p.snapshot_count > 0 => (p.snapshot_count, "reported"),
        (None, _) => (default_snapshot_count(&status.version), "default"),
    };
    let path = match &facts.progress {
        Some(p) if p.first_index > 0 => {
            if p.first_index <= 1 {
                CatchUpPath::Log
            } else {
                CatchUpPath::Snapshot
            }
        }
        // etcd compacts first at a snapshot past both its snapshot count
        // and the entries it keeps.
        _ if status.raft_index <= snapshot_count.0.max(CATCH_UP_ENTRIES) => CatchUpPath::Log,
        _ => CatchUpPath::Snapshot,
    };
    let in_use_bytes = (status.db_size_in_use > 0).then_some(status.db_size_in_use);
    let bytes = match path {
        CatchUpPath::Snapshot => status.db_size,
        CatchUpPath::Log => in_use_bytes.unwrap_or(status.db_size),
    };
    let bandwidth = facts
        .told
        .bandwidth
        .clone()
        .or_else(|| first.and_then(|x| from_past_sends(x, bytes)))
        .unwrap_or(Bandwidth {
            bytes_per_second: ASSUMED_BYTES_PER_SECOND,
            source: BandwidthSource::Assumed,
        });
    let b = bandwidth.bytes_per_second.max(1.0);
    let w = write_bytes_per_second.unwrap_or(0.0);
    let send_seconds = bytes as f64 / b;
    let (apply_seconds, backlog_seconds, predicted, budget) = match path {
        CatchUpPath::Snapshot => {
            let apply = bytes as f64 / APPLY_BYTES_PER_SECOND;
            // Written while the snapshot was sent, received on what the
            // writes leave of the link.
            let backlog = if w >= b {
                f64::INFINITY
            } else {
                w * send_seconds / (b - w)
            };
            let kept = entries_per_second
                .filter(|r| *r > 0.0)
                .map_or(f64::INFINITY, |r| CATCH_UP_ENTRIES as f64 / r);
            let budget = COMPACTION_PAUSE_SECONDS + kept;
            let predicted = STARTUP_SECONDS + send_seconds + apply.max(backlog);
            (apply, backlog, predicted, Some(budget))
        }
        CatchUpPath::Log => {
            let apply = status.raft_index as f64 / LOG_ENTRIES_PER_SECOND;
            // The stream shares the link with the entries still written.
            let send = if w >= b {
                f64::INFINITY
            } else {
                bytes as f64 / (b - w)
            };
            (apply, 0.0, STARTUP_SECONDS + send.max(apply), None)
        }
    };
    Ok(CatchUpEstimate {
        path,
        leader: leader.label(),
        bytes,
        in_use_bytes,
        bandwidth,
        entries_per_second,
        write_bytes_per_second,
        snapshot_count,
        send_seconds,
        apply_seconds,
        backlog_seconds,
        predicted_seconds: predicted,
        budget_seconds: budget,
    })
}

/// Seconds for people: "12.3 s", "4 min 10 s", "never".
pub fn seconds_text(s: f64) -> String {
    if !s.is_finite() {
        return "never".into();
    }
    if s < 120.0 {
        return format!("{s:.1} s");
    }
    let whole = s.round() as u64;
    if whole < 7200 {
        format!("{} min {} s", whole / 60, whole % 60)
    } else {
        format!("{} h {} min", whole / 3600, (whole % 3600) / 60)
    }
}

/// Bytes per second for people, in MB/s and Mbit/s.
fn rate_text(bytes_per_second: f64) -> String {
    format!(
        "{:.1} MiB/s ({:.0} Mbit/s)",
        bytes_per_second / (1024.0 * 1024.0),
        bytes_per_second * 8.0 / 1e6
    )
}

/// The estimate's figures, for scripts.
fn figures(e: &CatchUpEstimate) -> Figures {
    let mut f = Figures::default();
    f.text("path", e.path.as_str());
    f.number("bytes", e.bytes as f64);
    f.maybe("in_use_bytes", e.in_use_bytes.map(|b| b as f64));
    f.number("bandwidth_bytes_per_second", e.bandwidth.bytes_per_second);
    f.text("bandwidth_source", e.bandwidth.source.as_str());
    f.maybe("entries_per_second", e.entries_per_second);
    f.maybe("write_bytes_per_second", e.write_bytes_per_second);
    f.number("snapshot_count", e.snapshot_count.0 as f64);
    f.number("send_seconds", e.send_seconds);
    f.number("apply_seconds", e.apply_seconds);
    // JSON has no infinity: a backlog that never drains is left out, and
    // `drains` says so.
    if e.backlog_seconds.is_finite() {
        f.number("backlog_seconds", e.backlog_seconds);
    }
    f.text(
        "drains",
        if e.backlog_seconds.is_finite() {
            "yes"
        } else {
            "no"
        },
    );
    if e.predicted_seconds.is_finite() {
        f.number("predicted_seconds", e.predicted_seconds);
    }
    if let Some(b) = e.budget_seconds.filter(|b| b.is_finite()) {
        f.number("budget_seconds", b);
    }
    f
}

/// The `catch-up` check for the change made of `steps`: judged when it adds
/// a member (or for `member check` on its own, where it is shown); for a
/// promotion the estimate is shown, not judged (the catch-up is under way,
/// and the promotion waits for it).
pub(super) fn check(facts: &Facts, steps: &[Change]) -> Check {
    if !Change::catches_up(steps) {
        return new_check(
            CheckName::CatchUp,
            Verdict::Ok,
            "the change adds no member: nothing to catch up",
        );
    }
    let e = match estimate(facts) {
        Ok(e) => e,
        Err(why) => {
            return new_check(CheckName::CatchUp, Verdict::Unknown, why);
        }
    };
    let source = match &e.bandwidth.source {
        BandwidthSource::Given => "given with --link-bandwidth".to_string(),
        BandwidthSource::LocalLink => "the local cluster's --link".to_string(),
        BandwidthSource::PastSends {
            sends,
            mean_seconds,
        } => format!(
            "from the leader's {sends} past snapshot send(s), {} on average, taken as today's \
             database",
            seconds_text(*mean_seconds)
        ),
        BandwidthSource::Assumed => {
            "assumed, as etcd assumes (give --link-bandwidth for a better estimate)".to_string()
        }
    };
    let mut detail = match e.path {
        CatchUpPath::Snapshot => format!(
            "by snapshot: {} to send (leader {}'s database)",
            mib(e.bytes),
            e.leader
        ),
        CatchUpPath::Log => format!(
            "by the log (the leader has not compacted it): about {} of entries to send",
            mib(e.bytes)
        ),
    };
    detail.push_str(&format!(
        " at {} ({source}); writes {}{}; predicted {} (send {}, apply {}",
        rate_text(e.bandwidth.bytes_per_second),
        e.entries_per_second
            .map_or("not read".to_string(), |r| format!("{r:.0} entries/s")),
        e.write_bytes_per_second.map_or(String::new(), |w| format!(
            ", {} to each voter",
            rate_text(w)
        )),
        seconds_text(e.predicted_seconds),
        seconds_text(e.send_seconds),
        seconds_text(e.apply_seconds),
    ));
    if e.path == CatchUpPath::Snapshot {
        detail.push_str(&format!(
            ", then what was written meanwhile {}",
            seconds_text(e.backlog_seconds)
        ));
    }
    detail.push(')');
    let mut verdict = Verdict::Ok;
    let mut remedies = Vec::new();
    if let Some(budget) = e.budget_seconds {
        detail.push_str(&format!(
            "; budget {}: the leader keeps its log {} s after the send, then compacts to \
             {CATCH_UP_ENTRIES} entries before its next snapshot (every {} entries, {})",
            seconds_text(budget),
            COMPACTION_PAUSE_SECONDS,
            e.snapshot_count.0,
            e.snapshot_count.1
        ));
        if e.backlog_seconds > budget {
            verdict = Verdict::Fail;
            detail.push_str(
                "; the writes made during the send cannot be received before the leader \
                 compacts them: the new member would need another snapshot, and again",
            );
        } else if e.backlog_seconds > budget / 2.0 {
            verdict = Verdict::Warn;
        }
    } else if !e.predicted_seconds.is_finite() {
        verdict = Verdict::Fail;
        detail.push_str("; the writes alone fill the link: the log never drains");
    }
    if let Some(in_use) = e.in_use_bytes {
        let saved = e.bytes.saturating_sub(in_use);
        if e.path == CatchUpPath::Snapshot && saved as f64 >= DEFRAG_WORTH * e.bytes as f64 {
            detail.push_str(&format!(
                "; defragmenting first would shrink it by {} to {}",
                mib(saved),
                mib(in_use)
            ));
            remedies.push("defragment the leader first (`etcdctl defrag`)".to_string());
        }
    }
    if verdict > Verdict::Ok {
        remedies.push("add it at a quieter moment (fewer writes)".into());
        remedies
            .push("raise --snapshot-count on the members (the leader then compacts later)".into());
        remedies.push("give the new member a faster link".into());
    }
    let measured = matches!(
        e.bandwidth.source,
        BandwidthSource::Given | BandwidthSource::LocalLink
    );
    if verdict == Verdict::Fail && !measured {
        // A guess does not refuse a change: it warns, saying how to judge.
        verdict = Verdict::Warn;
        remedies.insert(
            0,
            "give the new member's bandwidth with --link-bandwidth to judge it".into(),
        );
    }
    if !Change::adds(steps) {
        verdict = Verdict::Ok;
        remedies.clear();
        detail.push_str(" (shown, not judged: the learner's catch-up is under way)");
    }
    let mut c = new_check(CheckName::CatchUp, verdict, detail);
    c.figures = figures(&e);
    if verdict > Verdict::Ok || !remedies.is_empty() {
        c = c.remedy(remedies.join("; "));
    }
    if e.bandwidth.source == BandwidthSource::Assumed && verdict == Verdict::Ok {
        // A guess is not a measurement: the check passes, saying so.
        c.detail.push_str("; the bandwidth is assumed");
    }
    c
}
