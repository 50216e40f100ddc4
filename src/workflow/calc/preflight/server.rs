//! The pre-flight checks that read what the members' servers report beyond
//! the membership: the database against its quota, disk and network
//! latencies (`/metrics`), and the leader's stability (the versions are
//! `versions.rs`'s). Percentiles are estimated from each histogram's buckets as
//! Prometheus' `histogram_quantile` does (linear inside the bucket), over
//! everything the member observed since it started.

use super::checks::{key, label, new_check, read, unread};
use super::{
    Change, Check, CheckName, Facts, Figures, Verdict, DB_FREE_WARN, DB_QUOTA_FAIL, DB_QUOTA_WARN,
    DISK_BACKEND_COMMIT_WARN, DISK_MIN_OBSERVATIONS, DISK_WAL_FSYNC_WARN, NETWORK_RTT_WARN,
};
use crate::model::ApiError;
use crate::model::{mib, Histogram, Member, MemberStatus, ServerMetrics};

/// The quantile the latency checks judge.
const P99: f64 = 0.99;

/// The started members' metrics that were read, and the others as
/// "label (reason)" (unstarted members have no server to read).
fn scraped(facts: &Facts) -> (Vec<(&Member, &ServerMetrics)>, Vec<String>) {
    let mut read = Vec::new();
    let mut missing = Vec::new();
    let members = facts.health.list.members.iter().zip(&facts.metrics);
    for (m, x) in members.filter(|(m, _)| m.started()) {
        match x {
            Ok(x) => read.push((m, x)),
            Err(e) => missing.push(format!("{} ({e})", m.label())),
        }
    }
    (read, missing)
}

/// What `member`'s `/metrics` gave, if it was asked.
fn scrape_of<'a>(facts: &'a Facts, member: &Member) -> Option<&'a Result<ServerMetrics, ApiError>> {
    let members = &facts.health.list.members;
    let i = members.iter().position(|m| m.id == member.id)?;
    facts.metrics.get(i)
}

/// `member`'s metrics, if they were read.
pub(super) fn metrics_of<'a>(facts: &'a Facts, member: &Member) -> Option<&'a ServerMetrics> {
    scrape_of(facts, member)?.as_ref().ok()
}

/// Seconds as milliseconds, for people.
fn ms(seconds: f64) -> String {
    format!("{:.1} ms", seconds * 1000.0)
}

/// A latency histogram judged at its p99: the estimate when there are
/// enough observations to make one (`None` otherwise), and the figures for
/// people.
fn p99(h: Option<&Histogram>) -> (Option<f64>, String) {
    match h {
        None => (None, "not reported".into()),
        Some(h) => match h.quantile(P99) {
            Some(p) if h.count >= DISK_MIN_OBSERVATIONS => {
                (Some(p), format!("{} (n={})", ms(p), h.count))
            }
            Some(p) => (None, format!("{} (n={}, too few to judge)", ms(p), h.count)),
            None => (None, "no observations yet".into()),
        },
    }
}

/// The database against its quota (`etcd_server_quota_backend_bytes`) and
/// its free pages (a new member receives the whole file).
pub(super) fn db(facts: &Facts, steps: &[Change]) -> Check {
    let h = &facts.health;
    let mut figures = Vec::new();
    let mut quota_unread = Vec::new();
    let mut verdict = Verdict::Ok;
    let mut full: Vec<(&Member, &MemberStatus, f64)> = Vec::new();
    let mut fragmented: Option<(&Member, &MemberStatus)> = None;
    let mut f = Figures::default();
    for (m, s) in read(h) {
        f.member("db_size_bytes", key(m), s.db_size as f64);
        if s.db_size_in_use > 0 {
            f.member("db_in_use_bytes", key(m), s.db_size_in_use as f64);
        }
        if let Some(q) = metrics_of(facts, m).and_then(|x| x.quota_backend_bytes) {
            f.member("quota_bytes", key(m), q);
        }
        let mut figure = format!("{} {}", m.label(), mib(s.db_size));
        if s.db_size_in_use > 0 {
            figure.push_str(&format!(" ({} in use", mib(s.db_size_in_use)));
        } else {
            figure.push_str(" (in use: not reported");
        }
        let scrape = scrape_of(facts, m);
        match metrics_of(facts, m).and_then(|x| x.quota_backend_bytes) {
            Some(quota) if quota > 0.0 => {
                let share = s.db_size as f64 / quota;
                figure.push_str(&format!(
                    ", {:.0} % of the {} quota)",
                    share * 100.0,
                    mib(quota as u64)
                ));
                let v = if share >= DB_QUOTA_FAIL {
                    Verdict::Fail
                } else if share >= DB_QUOTA_WARN {
                    Verdict::Warn
                } else {
                    Verdict::Ok
                };
                if v > Verdict::Ok {
                    verdict = verdict.max(v);
                    full.push((m, s, share));
                }
            }
            _ => {
                figure.push(')');
                quota_unread.push(match scrape {
                    Some(Err(e)) => format!("{} ({e})", m.label()),
                    _ => format!("{} (not reported)", m.label()),
                });
            }
        }
        figures.push(figure);
        let free = s.db_size.saturating_sub(s.db_size_in_use);
        if s.db_size_in_use > 0 && free >= DB_FREE_WARN && free.saturating_mul(2) >= s.db_size {
            let more =
                fragmented.is_none_or(|(_, w)| free > w.db_size.saturating_sub(w.db_size_in_use));
            if more {
                fragmented = Some((m, s));
            }
        }
    }
    // A removal does not grow the database: a full one only warns.
    if Change::only_removals(steps) && verdict == Verdict::Fail {
        verdict = Verdict::Warn;
    }
    if fragmented.is_some() {
        verdict = verdict.max(Verdict::Warn);
    }
    let mut detail = figures.join(", ");
    let missing = unread(h);
    if !quota_unread.is_empty() {
        detail.push_str(&format!(
            "; quota (etcd_server_quota_backend_bytes) not read for {}",
            quota_unread.join(", ")
        ));
    }
    if !missing.is_empty() {
        detail.push_str(&format!("; not read: {}", missing.join(", ")));
    }
    if verdict == Verdict::Ok
        && (!quota_unread.is_empty() || !missing.is_empty() || figures.is_empty())
    {
        verdict = Verdict::Unknown;
    }
    let urls: Vec<String> = read(h)
        .filter_map(|(m, _)| m.client_urls.first().cloned())
        .collect();
    let revision = read(h).map(|(_, s)| s.revision).max().unwrap_or(0);
    let mut members = Vec::new();
    let mut remedies = Vec::new();
    if !full.is_empty() {
        let names: Vec<String> = full
            .iter()
            .map(|(m, _, share)| format!("{} ({:.0} %)", m.label(), share * 100.0))
            .collect();
        members.extend(full.iter().map(|(m, _, _)| m.label()));
        remedies.push(format!(
            "{} near its quota (fails at {:.0} %, warns at {:.0} %): free space first \
             (`etcdctl compaction {revision}`, `etcdctl defrag --endpoints={}`) or raise \
             --quota-backend-bytes; a new member receives the whole file",
            names.join(", "),
            DB_QUOTA_FAIL * 100.0,
            DB_QUOTA_WARN * 100.0,
            urls.join(",")
        ));
    }
    if let Some((m, s)) = fragmented {
        members.push(m.label());
        remedies.push(format!(
            "defragment before adding (`etcdctl defrag --endpoints={}`): a new member \
             receives the whole {} file, {} of it free pages",
            urls.join(","),
            mib(s.db_size),
            mib(s.db_size - s.db_size_in_use)
        ));
    }
    members.dedup();
    new_check(CheckName::Db, verdict, detail)
        .figures(f)
        .members(members)
        .remedy(remedies.join("; "))
}

/// Which members' disks bear on a change: all of them for `member check`
/// on its own (or an upgrade); for a change that adds a member, the
/// leader's, which reads and sends the new member's snapshot; for any
/// other change (a removal, an update, a promotion) none: no snapshot is
/// written, and a slow disk is not this change's concern.
fn disk_judged(facts: &Facts, steps: &[Change], m: &Member) -> bool {
    let inspects = steps.is_empty()
        || steps
            .iter()
            .any(|s| matches!(s, Change::Inspect | Change::Upgrade { .. }));
    if inspects {
        return true;
    }
    Change::adds(steps) && facts.health.leader() == Some(m.id)
}

/// WAL fsync and backend commit latencies (p99) per member, judged on the
/// members whose disks bear on the change ([`disk_judged`]).
pub(super) fn disk(facts: &Facts, steps: &[Change]) -> Check {
    let (read, missing) = scraped(facts);
    let (mut figures, mut slow, mut unjudged) = (Vec::new(), Vec::new(), Vec::new());
    let mut f = Figures::default();
    for (m, x) in read {
        let (wal, wal_text) = p99(x.wal_fsync.as_ref());
        let (commit, commit_text) = p99(x.backend_commit.as_ref());
        if let Some(p) = wal {
            f.member("wal_fsync_p99_seconds", key(m), p);
        }
        if let Some(p) = commit {
            f.member("backend_commit_p99_seconds", key(m), p);
        }
        figures.push(format!(
            "{}: wal fsync p99 {wal_text}, backend commit p99 {commit_text}",
            m.label()
        ));
        if !disk_judged(facts, steps, m) {
            continue;
        }
        if wal.is_some_and(|p| p > DISK_WAL_FSYNC_WARN)
            || commit.is_some_and(|p| p > DISK_BACKEND_COMMIT_WARN)
        {
            slow.push(m.label());
        }
        if wal.is_none() || commit.is_none() {
            unjudged.push(m.label());
        }
    }
    let mut detail = figures.join("; ");
    if !figures.is_empty() {
        detail.push_str(" (since each member started, estimated from the histogram buckets)");
    }
    if !unjudged.is_empty() {
        detail.push_str(&format!(
            "; a p99 is judged from {DISK_MIN_OBSERVATIONS} observations on: with fewer it is \
             the slowest one or two, such as a member's first WAL writes"
        ));
    }
    if !missing.is_empty() {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str(&format!("not read: {}", missing.join(", ")));
    }
    if !slow.is_empty() {
        let names = slow.join(", ");
        return new_check(CheckName::Disk, Verdict::Warn, detail)
            .figures(f)
            .members(slow)
            .remedy(format!(
                "etcd wants a WAL fsync p99 under {} and a backend commit p99 under {} \
                 (etcd's hardware guide): {names} may miss heartbeats while a new member's \
                 snapshot is written; move it to a faster disk (SSD) or away from other I/O \
                 first",
                ms(DISK_WAL_FSYNC_WARN),
                ms(DISK_BACKEND_COMMIT_WARN)
            ));
    }
    let judged_any = facts
        .health
        .list
        .members
        .iter()
        .any(|m| disk_judged(facts, steps, m));
    if !judged_any {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str("not judged for this change: it sends no snapshot");
        return new_check(CheckName::Disk, Verdict::Ok, detail).figures(f);
    }
    let verdict = if missing.is_empty() && unjudged.is_empty() && !figures.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Unknown
    };
    new_check(CheckName::Disk, verdict, detail).figures(f)
}

/// Peer round trips (p99) per pair of members.
pub(super) fn network(facts: &Facts) -> Check {
    let h = &facts.health;
    let (read, mut missing) = scraped(facts);
    let started = read.len() + missing.len();
    let (mut pairs, mut slow, mut members) = (Vec::new(), Vec::new(), Vec::new());
    let mut f = Figures::default();
    for (m, x) in read {
        for (to, hist) in &x.peer_round_trip {
            let Some(p) = hist.quantile(P99) else {
                continue;
            };
            f.member(
                "round_trip_p99_seconds",
                format!(
                    "{}→{}",
                    key(m),
                    h.list.get(*to).map_or_else(|| to.to_string(), key)
                ),
                p,
            );
            let pair = format!("{}→{} {}", m.label(), label(h, *to), ms(p));
            if p > NETWORK_RTT_WARN {
                slow.push(pair.clone());
                members.push(m.label());
            }
            pairs.push(pair);
        }
        if started > 1 && x.peer_round_trip.iter().all(|(_, h)| h.count == 0.0) {
            missing.push(format!(
                "{} (no peer round trip measured yet: etcd probes its peers every few seconds)",
                m.label()
            ));
        }
    }
    let mut detail = if pairs.is_empty() {
        "no round trip measured".to_string()
    } else {
        format!(
            "peer round trips p99: {} (since each member started, estimated from the histogram \
             buckets)",
            pairs.join(", ")
        )
    };
    if !missing.is_empty() {
        detail.push_str(&format!("; not read: {}", missing.join(", ")));
    }
    if !slow.is_empty() {
        members.dedup();
        return new_check(CheckName::Network, Verdict::Warn, detail)
            .figures(f)
            .members(members)
            .remedy(format!(
                "round trips above {} (etcd's default --heartbeat-interval; etcd's tuning \
                 guide sets the heartbeat near the round trip) on {}: heartbeats arrive late \
                 and a new member's catch-up competes for the link; fix the network or raise \
                 --heartbeat-interval and --election-timeout on every member first",
                ms(NETWORK_RTT_WARN),
                slow.join(", ")
            ));
    }
    let verdict = if missing.is_empty() && (started <= 1 || !pairs.is_empty()) {
        Verdict::Ok
    } else {
        Verdict::Unknown
    };
    new_check(CheckName::Network, verdict, detail).figures(f)
}

/// The leader and term (Status) and the leader's
/// `etcd_server_leader_changes_seen_total`, each read twice.
pub(super) fn stability(facts: &Facts) -> Check {
    let h = &facts.health;
    let Some(first) = h.leader_status() else {
        return new_check(CheckName::Stability, Verdict::Unknown, "no leader to watch");
    };
    let leader = h.list.get(first.member_id);
    let seen_first = leader
        .and_then(|m| metrics_of(facts, m))
        .and_then(|x| x.leader_changes_seen);
    let seen_again = match &facts.leader_metrics_again {
        Some(Ok(x)) => x.leader_changes_seen,
        _ => None,
    };
    let counter = match (seen_first, seen_again) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    let mut f = Figures::default();
    f.number("raft_term", first.raft_term as f64);
    f.maybe("leader_changes_seen", seen_again.or(seen_first));
    let counted = match counter {
        Some((a, b)) if a == b => format!("; it has seen {a} leader changes since it started"),
        Some(_) => String::new(),
        None => "; leader changes seen (etcd_server_leader_changes_seen_total) not read".into(),
    };
    match &facts.leader_again {
        Some(Ok(again))
            if again.leader == first.leader
                && again.raft_term == first.raft_term
                && counter.is_none_or(|(a, b)| a == b) =>
        {
            new_check(
                CheckName::Stability,
                Verdict::Ok,
                format!(
                    "leader {} kept term {} while the checks ran{counted}",
                    label(h, first.member_id),
                    first.raft_term
                ),
            )
            .figures(f)
        }
        Some(Ok(again)) => {
            let mut detail = format!(
                "the leader changed while the checks ran: {} in term {}, then {} in term {}",
                label(h, first.leader),
                first.raft_term,
                label(h, again.leader),
                again.raft_term
            );
            if let Some((a, b)) = counter.filter(|(a, b)| a != b) {
                detail.push_str(&format!(
                    "; {} counted {a} then {b} leader changes",
                    label(h, first.member_id)
                ));
            }
            new_check(CheckName::Stability, Verdict::Warn, detail)
                .figures(f)
                .members(vec![label(h, first.leader)])
                .remedy("wait for a stable leader (`memberctl member status`), then try again")
        }
        Some(Err(e)) => new_check(
            CheckName::Stability,
            Verdict::Unknown,
            format!("the leader did not answer a second time: {e}"),
        ),
        None => new_check(CheckName::Stability, Verdict::Unknown, "no leader to watch"),
    }
}
