//! When the raft log may be compacted: as etcd, not while a snapshot is on
//! its way to a peer, nor for a while after one arrived (a calculator: the
//! times are passed in).
//!
//! A member that receives a large snapshot over a slow link needs, once it
//! has installed it, the entries written since the snapshot's index. A
//! checkpoint taken while the snapshot travels would have the log compacted
//! past that index, and the member would need another snapshot — and, on a
//! busy cluster, another after that (etcd#5317). etcd (3.4 to 3.7) skips
//! compaction while any snapshot send is in flight and for
//! [`RELEASE_DELAY_AFTER_SNAPSHOT`] after a send succeeded (a failed send
//! releases at once); the engine does the same, and applies the newest
//! compaction it held back once the hold ends.

use std::time::{Duration, Instant};

/// How long compaction stays held after a snapshot send succeeded: etcd's
/// `releaseDelayAfterSnapshot` (30 s), time for the receiver to install
/// the snapshot and fetch the entries written since its index.
pub const RELEASE_DELAY_AFTER_SNAPSHOT: Duration = Duration::from_secs(30);

/// Test knob: the delay after a successful send in milliseconds, instead of
/// [`RELEASE_DELAY_AFTER_SNAPSHOT`] (so that a test need not wait 30 s).
pub const HOLD_ENV: &str = "MEMBERCTL_COMPACTION_HOLD_MS";

/// The delay after a successful snapshot send: [`HOLD_ENV`] when it is set
/// to a number of milliseconds, else [`RELEASE_DELAY_AFTER_SNAPSHOT`].
pub fn release_delay() -> Duration {
    std::env::var(HOLD_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(RELEASE_DELAY_AFTER_SNAPSHOT, Duration::from_millis)
}

/// Whether compaction is held, and the newest compaction held back.
///
/// The raft thread tells it when a snapshot send starts ([`sending`]) and
/// ends ([`sent`]), asks it what to compact when a checkpoint is durable
/// ([`checkpointed`]), and on every wakeup whether a held compaction is due
/// ([`due`]). Times are passed in.
///
/// [`sending`]: CompactionHold::sending
/// [`sent`]: CompactionHold::sent
/// [`checkpointed`]: CompactionHold::checkpointed
/// [`due`]: CompactionHold::due
#[derive(Debug)]
pub struct CompactionHold {
    /// The hold after a successful send.
    delay: Duration,
    /// Snapshot sends started and not ended.
    inflight: usize,
    /// The end of the hold after the latest successful send.
    until: Option<Instant>,
    /// The newest compaction asked for while held.
    held: Option<u64>,
}

impl CompactionHold {
    /// No snapshot in flight; a successful send holds compaction for `delay` after it.
    pub fn new(delay: Duration) -> CompactionHold {
        CompactionHold {
            delay,
            inflight: 0,
            until: None,
            held: None,
        }
    }

    /// The hold after a successful send.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// A snapshot send started (each start is ended by one [`sent`](Self::sent)).
    pub fn sending(&mut self) {
        self.inflight += 1;
    }

    /// A snapshot send ended at `now`: once it succeeded, compaction stays
    /// held for the delay after it; a failed one holds nothing more.
    pub fn sent(&mut self, ok: bool, now: Instant) {
        self.inflight = self.inflight.saturating_sub(1);
        if ok {
            let end = now + self.delay;
            self.until = Some(self.until.map_or(end, |u| u.max(end)));
        }
    }

    /// Snapshot sends in flight.
    pub fn inflight(&self) -> usize {
        self.inflight
    }

    /// Whether compaction is held at `now`.
    pub fn is_held(&self, now: Instant) -> bool {
        self.inflight > 0 || self.until.is_some_and(|u| now < u)
    }

    /// A checkpoint at `now` allows compacting the log up to `index`: the
    /// index to compact to now (`index`, or a newer one held back), or None
    /// when compaction is held (`index` is then kept, the newest of those
    /// held, for [`due`](Self::due)).
    pub fn checkpointed(&mut self, index: u64, now: Instant) -> Option<u64> {
        let newest = self.held.take().map_or(index, |h| h.max(index));
        if self.is_held(now) {
            self.held = Some(newest);
            return None;
        }
        Some(newest)
    }

    /// The compaction held back, once the hold has ended at `now` (once:
    /// it is forgotten then); None while held or when none was held.
    pub fn due(&mut self, now: Instant) -> Option<u64> {
        if self.is_held(now) {
            return None;
        }
        self.held.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DELAY: Duration = Duration::from_secs(30);

    fn at(t0: Instant, secs: u64) -> Instant {
        t0 + Duration::from_secs(secs)
    }

    #[test]
    fn without_a_snapshot_a_compaction_goes_at_once() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        assert!(!h.is_held(t0));
        assert_eq!(h.checkpointed(100, t0), Some(100));
        assert_eq!(h.due(t0), None, "nothing was held");
    }

    #[test]
    fn held_while_sending_and_for_the_delay_after_a_success() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        assert_eq!(h.checkpointed(100, t0), None);
        assert_eq!(h.due(at(t0, 1000)), None, "still in flight");
        h.sent(true, at(t0, 10));
        assert_eq!(h.inflight(), 0);
        assert_eq!(h.due(at(t0, 10)), None);
        assert_eq!(h.due(at(t0, 39)), None);
        assert!(h.is_held(at(t0, 39)));
        assert_eq!(h.due(at(t0, 40)), Some(100), "30 s after the send");
        assert_eq!(h.due(at(t0, 41)), None, "applied once");
        assert_eq!(h.checkpointed(200, at(t0, 41)), Some(200));
    }

    #[test]
    fn the_newest_held_compaction_is_applied_and_nothing_beyond_it() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        assert_eq!(h.checkpointed(100, t0), None);
        assert_eq!(h.checkpointed(300, at(t0, 1)), None);
        assert_eq!(h.checkpointed(200, at(t0, 2)), None);
        h.sent(true, at(t0, 5));
        assert_eq!(h.checkpointed(250, at(t0, 6)), None);
        assert_eq!(h.due(at(t0, 35)), Some(300));
    }

    #[test]
    fn a_failed_send_releases_at_once() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        assert_eq!(h.checkpointed(100, t0), None);
        h.sent(false, at(t0, 3));
        assert!(!h.is_held(at(t0, 3)));
        assert_eq!(h.due(at(t0, 3)), Some(100));
    }

    #[test]
    fn overlapping_sends_hold_until_the_last_ends_and_the_latest_success_expires() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        h.sending();
        assert_eq!(h.checkpointed(100, t0), None);
        h.sent(true, at(t0, 5));
        assert_eq!(h.due(at(t0, 50)), None, "the other is still in flight");
        // The other fails later: the first's 30 s still hold.
        h.sent(false, at(t0, 10));
        assert_eq!(h.due(at(t0, 34)), None);
        assert_eq!(h.due(at(t0, 35)), Some(100));

        // Two successes: the later one's delay counts.
        h.sending();
        h.sending();
        h.sent(true, at(t0, 100));
        h.sent(true, at(t0, 120));
        assert_eq!(h.checkpointed(400, at(t0, 140)), None);
        assert_eq!(h.due(at(t0, 149)), None);
        assert_eq!(h.due(at(t0, 150)), Some(400));
    }

    #[test]
    fn a_later_send_extends_the_hold() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        h.sent(true, t0);
        assert_eq!(h.checkpointed(100, at(t0, 20)), None);
        h.sending();
        assert_eq!(h.due(at(t0, 31)), None, "another is in flight");
        h.sent(true, at(t0, 40));
        assert_eq!(h.due(at(t0, 69)), None);
        assert_eq!(h.due(at(t0, 70)), Some(100));
    }

    #[test]
    fn a_checkpoint_after_the_hold_takes_a_held_one_not_yet_applied() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sending();
        assert_eq!(h.checkpointed(500, t0), None);
        h.sent(true, t0);
        // No wakeup between the end of the hold and the next checkpoint.
        assert_eq!(h.checkpointed(400, at(t0, 31)), Some(500));
        assert_eq!(h.due(at(t0, 31)), None);
    }

    #[test]
    fn a_zero_delay_holds_only_while_sending() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(Duration::ZERO);
        h.sending();
        assert_eq!(h.checkpointed(100, t0), None);
        h.sent(true, t0);
        assert_eq!(h.due(t0), Some(100));
    }

    #[test]
    fn an_end_without_a_start_holds_nothing_in_flight() {
        let t0 = Instant::now();
        let mut h = CompactionHold::new(DELAY);
        h.sent(false, t0);
        assert_eq!(h.inflight(), 0);
        assert_eq!(h.checkpointed(100, t0), Some(100));
    }

    #[test]
    fn the_delay_is_etcds_unless_the_test_knob_is_set() {
        assert_eq!(RELEASE_DELAY_AFTER_SNAPSHOT, Duration::from_secs(30));
        if std::env::var_os(HOLD_ENV).is_none() {
            assert_eq!(release_delay(), RELEASE_DELAY_AFTER_SNAPSHOT);
        }
    }
}
