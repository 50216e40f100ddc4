//! The catch-up yields: a snapshot stream is paced so that the queue it builds on the way to its peer stays short, judged by the heartbeats' round trips to every peer (a delay-based, scavenger-style sender, as LEDBAT).
//!
//! A snapshot sent as fast as TCP allows fills the queue of the slowest
//! link on its way; every heartbeat, vote and append that shares that link
//! (the leader's uplink, say) then waits behind it, and so do the clients'
//! writes, which need those appends. The leader times the round trip of
//! each heartbeat ([`RoundTrips`], fed by the raft thread); the queueing
//! delay is how far the latest round trip to a peer lies above the lowest
//! seen recently. The peer the snapshot goes to is left out: its own
//! messages travel behind its snapshot whatever the pace (a learner does not
//! vote, and a member that needs a snapshot has no use for appends before
//! it), so a path no one else shares is used in full. The [`Pacer`] of a snapshot stream
//! raises its rate while that delay is under [`TARGET`] and lowers it, in
//! proportion, above it: the stream takes what the link has to spare and
//! little of its queue. Without round trips to judge by (no heartbeat
//! answered lately) it keeps to the rate it has. On a short link the
//! heartbeats (one per peer every 100 ms) come too seldom for the pace it
//! could change at: there the stream asks the leader for heartbeats of
//! its own ([`Pacer::wants_ping`]) when it is due a change and has no
//! newer round trip to judge by.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The queueing delay the paced stream aims to add.
pub const TARGET: Duration = Duration::from_millis(20);
/// How far back the lowest round trip to a peer is looked for: long enough
/// to hold a moment when the queue was empty, short enough to follow a path
/// whose own round trip changed.
const BASE_WINDOW: Duration = Duration::from_secs(10);
/// A round trip older than this says nothing of the queue now.
const FRESH: Duration = Duration::from_secs(1);
/// The rate a stream starts at (bytes per second).
const START_RATE: f64 = 4.0 * 1024.0 * 1024.0;
/// The lowest rate (bytes per second): a stream always moves.
const MIN_RATE: f64 = 256.0 * 1024.0;
/// The highest rate (bytes per second).
const MAX_RATE: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;
/// How long a piece of the stream lasts at its rate (seconds): a stream may
/// send two pieces at once ahead of its rate, so what lands in a queue at
/// once stays short of the target (at 50 Mbit/s, 128 KiB at once let a
/// write behind the burst wait 20 ms on each crossing).
const PIECE_TIME: f64 = 0.001;
/// The smallest piece (bytes): 2.6 ms of a 50 Mbit/s link.
const MIN_PIECE: usize = 16 * 1024;
/// The largest piece (bytes): on a fast link large pieces cost less of the
/// cores' time than 16 KiB ones (with 128 KiB, a 100 MB snapshot on
/// loopback was read out in 0.5 s instead of 0.63).
const MAX_PIECE: usize = 256 * 1024;
/// Links whose own round trip is shorter than this start with doublings.
const SLOW_START_BELOW: Duration = Duration::from_millis(5);
/// The shortest and longest time between two changes of the rate: two of
/// the links' round trips, within these.
const ADJUST_MIN: Duration = Duration::from_millis(20);
const ADJUST_MAX: Duration = Duration::from_millis(200);
/// The shortest time between two doublings of the slow start: a doubling
/// overshoots a link by at most its rate for this long before a round trip
/// shows it.
const DOUBLE_MIN: Duration = Duration::from_millis(5);

/// The round trips of the heartbeats to each peer.
#[derive(Debug, Default)]
pub struct RoundTrips {
    peers: Mutex<HashMap<u64, Samples>>,
}

#[derive(Debug, Default)]
struct Samples {
    /// (when, round trip), oldest first, within [`BASE_WINDOW`].
    recent: std::collections::VecDeque<(Instant, Duration)>,
}

impl RoundTrips {
    /// Records a heartbeat's round trip to `peer`, answered at `now`.
    pub fn record(&self, peer: u64, now: Instant, rtt: Duration) {
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let s = peers.entry(peer).or_default();
        s.recent.push_back((now, rtt));
        while s
            .recent
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) > BASE_WINDOW)
        {
            s.recent.pop_front();
        }
    }

    /// Forgets `peer` (removed).
    pub fn forget(&self, peer: u64) {
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.remove(&peer);
    }

    /// The largest queueing delay the latest round trip of a peer other than
    /// `except` shows (its excess over the lowest in `BASE_WINDOW`), with
    /// the largest of those lowest round trips; None when no round trip is
    /// fresh.
    pub fn queueing(&self, now: Instant, except: u64) -> Option<Queueing> {
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers
            .iter()
            .filter(|(p, _)| **p != except)
            .map(|(_, s)| s)
            .filter_map(|s| {
                let &(at, last) = s.recent.back()?;
                if now.saturating_duration_since(at) > FRESH {
                    return None;
                }
                let base = s.recent.iter().map(|(_, r)| *r).min()?;
                Some(Queueing {
                    delay: last.saturating_sub(base),
                    base,
                    heard: at,
                })
            })
            .reduce(|a, b| Queueing {
                delay: a.delay.max(b.delay),
                base: a.base.max(b.base),
                heard: a.heard.max(b.heard),
            })
    }
}

/// What the round trips say of the queues on the way to the peers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queueing {
    /// The largest queueing delay a peer's latest round trip shows.
    pub delay: Duration,
    /// The largest of the peers' lowest round trips (the links' own).
    pub base: Duration,
    /// When the newest of those round trips was answered.
    pub heard: Instant,
}

/// This process's round trips (one node per process, as its metrics).
pub fn round_trips() -> &'static RoundTrips {
    static TRIPS: OnceLock<RoundTrips> = OnceLock::new();
    TRIPS.get_or_init(RoundTrips::default)
}

/// The pace of one stream: a rate, changed by the queueing delay, and a
/// bucket of bytes it allows.
#[derive(Debug)]
pub struct Pacer {
    /// Bytes per second.
    rate: f64,
    /// Bytes that may go now.
    allowance: f64,
    at: Instant,
    adjusted: Instant,
    /// Until when the rate is not changed again after it was lowered: the
    /// round trips do not show the lower rate before a round trip and a
    /// heartbeat have passed.
    hold: Instant,
    /// Doubling the rate at each change until the queueing delay first
    /// reaches half the target (as TCP's slow start), on short links only
    /// ([`SLOW_START_BELOW`]): a fast local link is found in a few round
    /// trips, and what a doubling overshoots drains in milliseconds there;
    /// on a long link it would fill the queue before the round trips said so.
    slow_start: bool,
    /// The newest round trip a change was made on: each change waits for
    /// one answered after it, so one queue reading is acted on once (the
    /// heartbeats that carry it come every 100 ms unless the stream asks for
    /// more, the changes may come every 20 ms on a short link).
    heard: Option<Instant>,
    /// The links' own round trip, as the latest reading said.
    base: Option<Duration>,
    /// When the stream last asked for heartbeats of its own.
    pinged: Option<Instant>,
}

impl Pacer {
    /// A stream starting at `now`.
    pub fn new(now: Instant) -> Pacer {
        Pacer {
            rate: START_RATE,
            allowance: 2.0 * MIN_PIECE as f64,
            at: now,
            adjusted: now,
            hold: now,
            slow_start: true,
            heard: None,
            base: None,
            pinged: None,
        }
    }

    /// Whether [`Pacer::observe`] may change the rate at `now` (the round
    /// trips need reading only then: they are not read for every piece).
    pub fn due(&self, now: Instant) -> bool {
        now >= self.hold && now.saturating_duration_since(self.adjusted) >= self.least()
    }

    /// The shortest time between two changes now.
    fn least(&self) -> Duration {
        if self.slow_start {
            DOUBLE_MIN
        } else {
            ADJUST_MIN
        }
    }

    /// The size of the next piece at this rate (bytes): a millisecond's
    /// worth, within 16 KiB..256 KiB.
    pub fn piece(&self) -> usize {
        ((self.rate * PIECE_TIME) as usize).clamp(MIN_PIECE, MAX_PIECE)
    }

    /// Bytes the stream may send at once ahead of its rate: two pieces.
    fn burst(&self) -> f64 {
        2.0 * self.piece() as f64
    }

    /// The rate now, in bytes per second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Changes the rate by the queueing seen at `now`, at most every two of
    /// the links' round trips (within `ADJUST_MIN`..`ADJUST_MAX`; the slow
    /// start's doublings from `DOUBLE_MIN`): doubled until the delay first
    /// reaches half of [`TARGET`], then up in proportion to how far the
    /// delay lies under [`TARGET`] (at most by 15 %), down in proportion to
    /// how far above (at most by 40 %); after lowering it, holds it one more
    /// interval, until the round trips can show the change.
    pub fn observe(&mut self, now: Instant, queueing: Option<Queueing>) {
        let Some(q) = queueing else { return };
        // Known from the first reading, acted on or not: a long link is
        // not asked for heartbeats while its first change waits.
        self.base = Some(q.base);
        let every = (q.base * 2).clamp(self.least(), ADJUST_MAX);
        if now.saturating_duration_since(self.adjusted) < every
            || now < self.hold
            || self.heard.is_some_and(|h| q.heard <= h)
        {
            return;
        }
        self.adjusted = now;
        self.heard = Some(q.heard);
        if self.slow_start && q.delay < TARGET / 2 && q.base < SLOW_START_BELOW {
            self.rate = (self.rate * 2.0).min(MAX_RATE);
            return;
        }
        self.slow_start = false;
        let target = TARGET.as_secs_f64();
        let off = ((target - q.delay.as_secs_f64()) / target).clamp(-1.0, 1.0);
        let factor = if off >= 0.0 {
            1.0 + 0.15 * off
        } else {
            self.hold = now + every * 2;
            1.0 + 0.4 * off
        };
        self.rate = (self.rate * factor).clamp(MIN_RATE, MAX_RATE);
    }

    /// Whether the stream should ask the leader for heartbeats now
    /// ([`crate::node::Node::ping`]), and if so notes that it did: the rate
    /// is due a change and the reading acted on last is the newest there is,
    /// on a link whose round trip is short (or not known yet), at most once
    /// per change. On such a link the changes may come every 20 ms (the
    /// slow start's every 5 ms), the heartbeats every 100 ms: waiting for
    /// them, a slow start from 4 MiB/s takes nine or ten of their answers
    /// to reach a loopback's speed. A long link's heartbeats come about as
    /// often as its changes may.
    pub fn wants_ping(&mut self, now: Instant) -> bool {
        let short = self.base.is_none_or(|b| b < SLOW_START_BELOW);
        let spaced = self
            .pinged
            .is_none_or(|p| now.saturating_duration_since(p) >= self.least());
        let wanted = short && spaced && self.due(now);
        if wanted {
            self.pinged = Some(now);
        }
        wanted
    }

    /// How long to wait at `now` before sending `bytes` (0 when the bucket
    /// holds them); takes them from the bucket.
    pub fn wait(&mut self, now: Instant, bytes: usize) -> Duration {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now;
        self.allowance = (self.allowance + elapsed * self.rate).min(self.burst());
        self.allowance -= bytes as f64;
        if self.allowance >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.allowance / self.rate)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_queueing_delay_is_the_latest_round_trip_above_the_lowest() {
        let r = RoundTrips::default();
        let t0 = Instant::now();
        assert_eq!(r.queueing(t0, 9), None);
        r.record(1, t0, 60 * MS);
        r.record(1, t0 + 100 * MS, 250 * MS);
        r.record(2, t0 + 100 * MS, 61 * MS);
        let q = r.queueing(t0 + 100 * MS, 9).unwrap();
        assert_eq!((q.delay, q.base), (190 * MS, 61 * MS));
        // The stream's own peer is left out.
        assert_eq!(r.queueing(t0 + 100 * MS, 1).unwrap().delay, Duration::ZERO);
        // Stale: nothing to judge by.
        assert_eq!(r.queueing(t0 + 5000 * MS, 9), None);
        r.forget(1);
        assert_eq!(r.queueing(t0 + 100 * MS, 9).unwrap().delay, Duration::ZERO);
    }

    #[test]
    fn the_rate_rises_under_the_target_and_falls_above_it() {
        // Each reading answered when it is acted on.
        let q = |at, delay| {
            Some(Queueing {
                delay,
                base: 60 * MS,
                heard: at,
            })
        };
        // A short link (1 ms): slow start doubles while the delay stays
        // under half the target; half the target ends it.
        let t0 = Instant::now();
        let mut p = Pacer::new(t0);
        let first = p.rate();
        let short = |at, delay| {
            Some(Queueing {
                delay,
                base: MS,
                heard: at,
            })
        };
        p.observe(t0 + 20 * MS, short(t0 + 20 * MS, Duration::ZERO));
        assert!((p.rate() - first * 2.0).abs() < 1.0);
        p.observe(t0 + 40 * MS, short(t0 + 40 * MS, TARGET / 2));
        assert!(
            (p.rate() - first * 2.0 * 1.075).abs() < 1.0,
            "then up by 15 % × how far under"
        );
        // Base 60 ms: no slow start; a change every 120 ms at most.
        let mut p = Pacer::new(t0);
        let start = p.rate();
        p.observe(t0 + 120 * MS, q(t0 + 120 * MS, Duration::ZERO));
        assert!((p.rate() - start * 1.15).abs() < 1.0);
        // Too soon to change again.
        p.observe(t0 + 200 * MS, q(t0 + 200 * MS, Duration::ZERO));
        assert!((p.rate() - start * 1.15).abs() < 1.0);
        p.observe(t0 + 240 * MS, q(t0 + 240 * MS, TARGET));
        assert!(
            (p.rate() - start * 1.15).abs() < 1.0,
            "at the target it holds"
        );
        p.observe(t0 + 360 * MS, q(t0 + 360 * MS, TARGET * 10));
        let lowered = start * 1.15 * 0.6;
        assert!((p.rate() - lowered).abs() < 1.0, "far above: down 40 %");
        // Held for two more intervals: the round trips cannot show it yet.
        p.observe(t0 + 500 * MS, q(t0 + 500 * MS, TARGET * 10));
        assert!((p.rate() - lowered).abs() < 1.0, "held");
        p.observe(t0 + 610 * MS, None);
        assert!((p.rate() - lowered).abs() < 1.0, "no signal: kept");
        p.observe(t0 + 620 * MS, q(t0 + 620 * MS, TARGET * 10));
        assert!((p.rate() - lowered * 0.6).abs() < 1.0, "lowered again");
    }

    #[test]
    fn one_round_trip_is_acted_on_once() {
        // A short link: the rate may change every 20 ms, but a heartbeat's
        // round trip comes every 100 ms; the same reading read again
        // between them changes nothing.
        let t0 = Instant::now();
        let mut p = Pacer::new(t0);
        let reading = |heard, delay| {
            Some(Queueing {
                delay,
                base: MS,
                heard,
            })
        };
        p.observe(t0 + 20 * MS, reading(t0 + 10 * MS, TARGET));
        let once = p.rate();
        assert!((once - START_RATE).abs() < 1.0, "at the target: held");
        p.observe(t0 + 40 * MS, reading(t0 + 10 * MS, Duration::ZERO));
        p.observe(t0 + 60 * MS, reading(t0 + 10 * MS, Duration::ZERO));
        assert!((p.rate() - once).abs() < 1.0, "no newer round trip");
        p.observe(t0 + 110 * MS, reading(t0 + 110 * MS, Duration::ZERO));
        assert!(p.rate() > once, "a newer one is acted on");
    }

    #[test]
    fn the_bucket_lets_bytes_go_at_the_rate() {
        let t0 = Instant::now();
        let mut p = Pacer::new(t0);
        // The burst (two pieces) goes at once, then a second's worth waits
        // a second.
        assert_eq!(p.wait(t0, 2 * MIN_PIECE), Duration::ZERO);
        let w = p.wait(t0, START_RATE as usize);
        assert!((w.as_secs_f64() - 1.0).abs() < 1e-6, "{w:?}");
        // After waiting it, the next small piece waits its own share only.
        let w = p.wait(t0 + w, 1024);
        assert!(
            (w.as_secs_f64() - 1024.0 / START_RATE).abs() < 1e-6,
            "{w:?}"
        );
    }

    #[test]
    fn pieces_grow_with_the_rate_to_a_bound() {
        let t0 = Instant::now();
        let short = |heard| {
            Some(Queueing {
                delay: Duration::ZERO,
                base: MS,
                heard,
            })
        };
        let mut p = Pacer::new(t0);
        assert_eq!(p.piece(), MIN_PIECE, "4 MiB/s: the smallest piece");
        // 1 ms at 64 MiB/s: 66 KiB.
        for i in 1..=4 {
            p.observe(t0 + i * 5 * MS, short(t0 + i * 5 * MS));
        }
        assert!((p.rate() - START_RATE * 16.0).abs() < 1.0);
        assert_eq!(p.piece(), (START_RATE * 16.0 * PIECE_TIME) as usize);
        for i in 5..=10 {
            p.observe(t0 + i * 5 * MS, short(t0 + i * 5 * MS));
        }
        assert_eq!(p.piece(), MAX_PIECE, "fast: the largest");
        // The bucket holds two pieces at this rate, no more.
        let now = t0 + 10 * 1000 * MS;
        assert_eq!(p.wait(now, 2 * MAX_PIECE), Duration::ZERO);
        assert!(p.wait(now, MAX_PIECE) > Duration::ZERO);
    }

    #[test]
    fn a_stream_on_a_short_link_asks_for_round_trips_it_lacks() {
        let t0 = Instant::now();
        let reading = |heard, base| {
            Some(Queueing {
                delay: Duration::ZERO,
                base,
                heard,
            })
        };
        let mut p = Pacer::new(t0);
        assert!(!p.wants_ping(t0), "not due yet");
        // The link not known yet: asked, once per change at most.
        assert!(p.wants_ping(t0 + 5 * MS));
        assert!(!p.wants_ping(t0 + 6 * MS), "asked already");
        // The answer doubles the rate; the next doubling may come 5 ms on,
        // and then asks again.
        p.observe(t0 + 6 * MS, reading(t0 + 6 * MS, MS));
        assert!((p.rate() - START_RATE * 2.0).abs() < 1.0);
        assert!(!p.wants_ping(t0 + 8 * MS), "not due yet");
        p.observe(t0 + 11 * MS, reading(t0 + 6 * MS, MS));
        assert!(
            (p.rate() - START_RATE * 2.0).abs() < 1.0,
            "no newer reading"
        );
        assert!(p.wants_ping(t0 + 11 * MS));
        // A long link's heartbeats come as often as its changes: never asked.
        let mut p = Pacer::new(t0);
        // Not even while its first change waits for two round trips.
        p.observe(t0 + 5 * MS, reading(t0 + 5 * MS, 60 * MS));
        assert!((p.rate() - START_RATE).abs() < 1.0, "too soon to change");
        assert!(!p.wants_ping(t0 + 5 * MS));
        p.observe(t0 + 120 * MS, reading(t0 + 120 * MS, 60 * MS));
        assert!(!p.wants_ping(t0 + 400 * MS));
    }
}
