//! etcd's automatic compaction (`--auto-compaction-mode`, `--auto-compaction-retention`): the leader compacts the key history through raft, by time (periodic) or by revisions, on etcd's schedule.
//!
//! Periodic, with a retention of P: a revision is recorded every P/10 (every
//! 6 minutes past an hour), and once P has passed since the start or the last
//! compaction, the history is compacted to the revision recorded P ago — then
//! every P again (every hour past an hour). By revisions, with a retention of
//! N: every 5 minutes the history is compacted to the current revision − N,
//! when that moved. Only the leader compacts; a compaction to a revision
//! already compacted counts as done, as in etcd.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::Shared;
use crate::log;
use crate::node::Applied;
use crate::proto::memberctl_store_v1 as spb;

/// What etcd's two flags ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutoCompaction {
    /// No automatic compaction (a retention of 0, etcd's default).
    #[default]
    Off,
    /// Keep this long of history.
    Periodic(Duration),
    /// Keep this many revisions.
    Revisions(i64),
}

impl AutoCompaction {
    /// `--auto-compaction-mode` and `--auto-compaction-retention` read as
    /// etcd reads them: a whole number is hours (periodic) or revisions,
    /// anything else a duration (`30m`, `1h30m`).
    pub fn parse(mode: &str, retention: &str) -> Result<AutoCompaction, String> {
        let retention = if retention.is_empty() { "0" } else { retention };
        let periodic = match mode {
            "periodic" => true,
            "revision" => false,
            other => {
                return Err(format!(
                    "unsupported compaction mode {other}: give periodic or revision"
                ))
            }
        };
        if let Ok(n) = retention.parse::<u64>() {
            return Ok(match (n, periodic) {
                (0, _) => AutoCompaction::Off,
                (h, true) => AutoCompaction::Periodic(Duration::from_secs(h.saturating_mul(3600))),
                (r, false) => AutoCompaction::Revisions(i64::try_from(r).unwrap_or(i64::MAX)),
            });
        }
        let d = humantime::parse_duration(retention).map_err(|e| {
            format!("error parsing CompactionRetention: {e}: give hours (1), or a duration (30m)")
        })?;
        Ok(match (d.is_zero(), periodic) {
            (true, _) => AutoCompaction::Off,
            (false, true) => AutoCompaction::Periodic(d),
            // etcd reads a duration in revision mode as its nanoseconds.
            (false, false) => {
                AutoCompaction::Revisions(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            }
        })
    }
}

/// The periodic schedule (pure: times and revisions are given).
#[derive(Debug)]
pub struct Periodic {
    period: Duration,
    /// Revisions recorded every [`Periodic::every`], oldest first: the first is
    /// the revision of `period` ago.
    revisions: VecDeque<i64>,
    last_success: Instant,
    /// How long since the last success before the next compaction: the
    /// period first, then at most an hour.
    wait: Duration,
}

impl Periodic {
    /// A schedule keeping `period` of history, started at `now`.
    pub fn new(period: Duration, now: Instant) -> Periodic {
        Periodic {
            period,
            revisions: VecDeque::new(),
            last_success: now,
            wait: period,
        }
    }

    /// How often a revision is recorded (and a failed compaction tried again).
    pub fn every(&self) -> Duration {
        self.period.min(Duration::from_secs(3600)) / 10
    }

    /// Records `revision`, the current one, at the start of a step.
    pub fn record(&mut self, revision: i64) {
        self.revisions.push_back(revision);
        let keep = (self.period.as_nanos() / self.every().as_nanos().max(1)) as usize + 1;
        while self.revisions.len() > keep {
            self.revisions.pop_front();
        }
    }

    /// At the end of a step at `now`: the revision to compact to, if it is time.
    pub fn due(&mut self, now: Instant) -> Option<i64> {
        if now.duration_since(self.last_success) < self.wait {
            return None;
        }
        self.wait = self.period.min(Duration::from_secs(3600));
        self.revisions.front().copied()
    }

    /// The compaction asked for by [`Periodic::due`] succeeded at `now`.
    pub fn succeeded(&mut self, now: Instant) {
        self.last_success = now;
    }
}

/// The revision schedule (pure): compact to current − retention when that moved.
#[derive(Debug)]
pub struct ByRevision {
    retention: i64,
    previous: i64,
}

/// How often the revision schedule looks (etcd's 5 minutes).
pub const REVISION_EVERY: Duration = Duration::from_secs(300);

impl ByRevision {
    /// A schedule keeping `retention` revisions.
    pub fn new(retention: i64) -> ByRevision {
        ByRevision {
            retention,
            previous: 0,
        }
    }

    /// The revision to compact to with `current` the current one, if any.
    pub fn due(&self, current: i64) -> Option<i64> {
        let rev = current - self.retention;
        (rev > 0 && rev != self.previous).then_some(rev)
    }

    /// The compaction to `rev` succeeded.
    pub fn succeeded(&mut self, rev: i64) {
        self.previous = rev;
    }
}

/// Compacts through raft; true when done (or compacted already).
async fn compact(shared: &Shared, revision: i64) -> Result<(), String> {
    let op = spb::command::Op::Compact(spb::Compact { revision });
    match shared.propose(op).await {
        Ok(Applied::Revision(_)) => Ok(()),
        Ok(other) => Err(format!("{other:?}")),
        Err(s) if s.message().contains("compacted") => Ok(()),
        Err(s) => Err(s.message().to_string()),
    }
}

/// Runs `policy` until the node stops; only the leader compacts.
pub async fn run(shared: Arc<Shared>, policy: AutoCompaction) {
    match policy {
        AutoCompaction::Off => {}
        AutoCompaction::Periodic(period) => {
            let mut schedule = Periodic::new(period, Instant::now());
            let every = schedule.every();
            loop {
                schedule.record(shared.revision());
                tokio::time::sleep(every).await;
                if !shared.node.view().is_leader() {
                    continue;
                }
                let Some(rev) = schedule.due(Instant::now()) else {
                    continue;
                };
                let period = humantime::format_duration(period).to_string();
                slog::info!(log::logger(), "starting auto periodic compaction";
                    "revision" => rev, "compact-period" => &period);
                match compact(&shared, rev).await {
                    Ok(()) => {
                        schedule.succeeded(Instant::now());
                        slog::info!(log::logger(), "completed auto periodic compaction";
                            "revision" => rev, "compact-period" => &period);
                    }
                    Err(e) => slog::warn!(log::logger(), "failed auto periodic compaction";
                        "revision" => rev, "compact-period" => &period, "error" => e),
                }
            }
        }
        AutoCompaction::Revisions(retention) => {
            let mut schedule = ByRevision::new(retention);
            loop {
                tokio::time::sleep(REVISION_EVERY).await;
                if !shared.node.view().is_leader() {
                    continue;
                }
                let Some(rev) = schedule.due(shared.revision()) else {
                    continue;
                };
                slog::info!(log::logger(), "starting auto revision compaction";
                    "revision" => rev, "revision-compaction-retention" => retention);
                match compact(&shared, rev).await {
                    Ok(()) => {
                        schedule.succeeded(rev);
                        slog::info!(log::logger(), "completed auto revision compaction";
                            "revision" => rev, "revision-compaction-retention" => retention);
                    }
                    Err(e) => slog::warn!(log::logger(), "failed auto revision compaction";
                        "revision" => rev, "revision-compaction-retention" => retention,
                        "error" => e),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_are_read_as_etcd_reads_them() {
        let p = |m: &str, r: &str| AutoCompaction::parse(m, r);
        assert_eq!(p("periodic", "0"), Ok(AutoCompaction::Off));
        assert_eq!(p("periodic", ""), Ok(AutoCompaction::Off));
        assert_eq!(
            p("periodic", "1"),
            Ok(AutoCompaction::Periodic(Duration::from_secs(3600)))
        );
        assert_eq!(
            p("periodic", "30m"),
            Ok(AutoCompaction::Periodic(Duration::from_secs(1800)))
        );
        assert_eq!(p("revision", "1000"), Ok(AutoCompaction::Revisions(1000)));
        assert!(p("periodic", "soon")
            .unwrap_err()
            .contains("CompactionRetention"));
        assert!(p("hourly", "1")
            .unwrap_err()
            .contains("unsupported compaction mode"));
    }

    #[test]
    fn periodic_compacts_to_the_revision_of_one_period_ago() {
        let t0 = Instant::now();
        let period = Duration::from_secs(10);
        let mut s = Periodic::new(period, t0);
        assert_eq!(s.every(), Duration::from_secs(1));
        // Revisions 100, 101, … recorded each second; nothing for the first period.
        let mut due = Vec::new();
        for i in 0..25u64 {
            s.record(100 + i as i64);
            let now = t0 + Duration::from_secs(i + 1);
            if let Some(rev) = s.due(now) {
                s.succeeded(now);
                due.push((i + 1, rev));
            }
        }
        // At 10 s, the revision recorded at 0 s; at 20 s, the one at 10 s.
        // (etcd's order: record, wait, look — the oldest of the 11 kept.)
        assert_eq!(due, [(10, 100), (20, 109)]);
        // Past an hour: every hour, recording every 6 minutes.
        let day = Periodic::new(Duration::from_secs(24 * 3600), t0);
        assert_eq!(day.every(), Duration::from_secs(360));
    }

    #[test]
    fn by_revision_compacts_when_the_target_moved() {
        let mut s = ByRevision::new(1000);
        assert_eq!(s.due(900), None);
        assert_eq!(s.due(1500), Some(500));
        s.succeeded(500);
        assert_eq!(s.due(1500), None);
        assert_eq!(s.due(1600), Some(600));
    }
}
