//! One direction of one link as a calculator: when bytes offered now may enter its queue, when they leave it (serialised at the link's bandwidth) and when they arrive (after the one-way delay).
//!
//! A link is a FIFO queue of at most `queue` bytes in front of a wire of
//! `bandwidth`: bytes leave the queue in order, each chunk taking `size ÷
//! bandwidth` on the wire, and arrive `delay` later. The queue's content at
//! any moment is what has been admitted and has not yet left, which is
//! `(last departure − now) × bandwidth`; a chunk is admitted once it fits.
//! With `per-connection=SIZE` each connection may hold only that much of
//! the queue at once, so connections take turns, as sockets do in a Linux
//! sending host's qdisc (TCP small queues).
//! No I/O and no clock of its own: the proxy passes the time in.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::LinkSpec;

/// What to do with a chunk offered to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The queue is full: offer it again after this long.
    Wait(Duration),
    /// Admitted: it leaves the queue (has been serialised) at `departs`
    /// and reaches the other end at `arrives`.
    Sent {
        /// When its last byte is on the wire.
        departs: Instant,
        /// When its last byte reaches the other end.
        arrives: Instant,
    },
}

/// One direction of one link (the state of its queue).
#[derive(Debug)]
pub struct Shaper {
    spec: LinkSpec,
    /// When the queue is empty again: the last admitted byte's departure.
    free_at: Option<Instant>,
    /// With a per-connection limit: each connection's chunks still in the queue
    /// (their departure and size), oldest first.
    held: HashMap<u64, VecDeque<(Instant, u64)>>,
}

impl Shaper {
    /// An idle link.
    pub fn new(spec: LinkSpec) -> Self {
        Shaper {
            spec,
            free_at: None,
            held: HashMap::new(),
        }
    }

    /// Changes the link's settings from now on (what is queued keeps its times).
    pub fn set_spec(&mut self, spec: LinkSpec) {
        self.spec = spec;
    }

    /// How long `bytes` take on the wire.
    fn wire_time(&self, bytes: u64) -> Duration {
        Duration::from_secs_f64(bytes as f64 * 8.0 / self.spec.bandwidth_bits as f64)
    }

    /// The most of the queue one connection may hold at once
    /// ([`LinkSpec::per_connection`]); None when it may hold all of it.
    pub fn share(&self) -> Option<u64> {
        self.spec.per_connection
    }

    /// The bytes in the queue at `now`.
    pub fn queued(&self, now: Instant) -> u64 {
        let Some(free_at) = self.free_at.filter(|&t| t > now) else {
            return 0;
        };
        ((free_at - now).as_secs_f64() * self.spec.bandwidth_bits as f64 / 8.0) as u64
    }

    /// Offers `bytes` (one chunk of `connection`) at `now`. A chunk larger
    /// than the whole queue is admitted into an empty queue, and one larger
    /// than a connection's share when the connection holds nothing, so that
    /// it can always pass.
    pub fn offer(&mut self, now: Instant, connection: u64, bytes: u64) -> Admission {
        if let Some(share) = self.spec.per_connection {
            if let Some(wait) = self.turn_wait(now, connection, bytes, share) {
                return Admission::Wait(wait);
            }
        }
        let queued = self.queued(now);
        if queued > 0 && queued + bytes > self.spec.queue_bytes {
            let excess = queued + bytes - self.spec.queue_bytes.max(bytes);
            let wait = self
                .wire_time(excess.min(queued))
                .max(Duration::from_micros(50));
            return Admission::Wait(wait);
        }
        let start = self.free_at.filter(|&t| t > now).unwrap_or(now);
        let departs = start + self.wire_time(bytes);
        self.free_at = Some(departs);
        if self.spec.per_connection.is_some() {
            self.held
                .entry(connection)
                .or_default()
                .push_back((departs, bytes));
        }
        Admission::Sent {
            departs,
            arrives: departs + self.spec.one_way,
        }
    }

    /// How long `connection` must wait before its `bytes` fit in its
    /// `share` of the queue, None when they fit now. Forgets chunks that
    /// have left.
    fn turn_wait(
        &mut self,
        now: Instant,
        connection: u64,
        bytes: u64,
        share: u64,
    ) -> Option<Duration> {
        self.held.retain(|_, chunks| {
            while chunks.front().is_some_and(|&(departs, _)| departs <= now) {
                chunks.pop_front();
            }
            !chunks.is_empty()
        });
        let chunks = self.held.get(&connection)?;
        let mut holding: u64 = chunks.iter().map(|&(_, b)| b).sum();
        if holding + bytes <= share {
            return None;
        }
        // The chunks leave in order: wait for enough of them to make room
        // (all of them for a chunk above the share).
        chunks
            .iter()
            .find(|&&(_, b)| {
                holding -= b;
                holding == 0 || holding + bytes <= share
            })
            .map(|&(departs, _)| (departs - now).max(Duration::from_micros(50)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> LinkSpec {
        // 8 Mbit/s: 1 byte per microsecond; 10 ms one way; 10 kB queue.
        LinkSpec {
            one_way: Duration::from_millis(10),
            bandwidth_bits: 8_000_000,
            queue_bytes: 10_000,
            shared: crate::Sharing::Pair,
            per_connection: None,
        }
    }

    #[test]
    fn an_idle_link_delays_a_chunk_by_its_wire_time_and_the_one_way_delay() {
        let mut s = Shaper::new(spec());
        let t0 = Instant::now();
        let Admission::Sent { departs, arrives } = s.offer(t0, 1, 1000) else {
            panic!("refused")
        };
        assert_eq!(departs - t0, Duration::from_millis(1));
        assert_eq!(arrives - t0, Duration::from_millis(11));
        assert_eq!(s.queued(t0), 1000);
        assert_eq!(s.queued(t0 + Duration::from_millis(2)), 0);
    }

    #[test]
    fn chunks_leave_in_order_at_the_bandwidth() {
        let mut s = Shaper::new(spec());
        let t0 = Instant::now();
        let mut last = t0;
        for _ in 0..5 {
            let Admission::Sent { departs, .. } = s.offer(t0, 1, 2000) else {
                panic!("refused")
            };
            assert_eq!(departs - last, Duration::from_millis(2));
            last = departs;
        }
        // 10 kB queued: full.
        assert_eq!(s.queued(t0), 10_000);
    }

    #[test]
    fn a_full_queue_makes_the_sender_wait_until_the_chunk_fits() {
        let mut s = Shaper::new(spec());
        let t0 = Instant::now();
        for _ in 0..5 {
            s.offer(t0, 1, 2000);
        }
        let Admission::Wait(w) = s.offer(t0, 1, 1000) else {
            panic!("admitted into a full queue")
        };
        assert_eq!(w, Duration::from_millis(1));
        assert!(matches!(s.offer(t0 + w, 1, 1000), Admission::Sent { .. }));
        // A small message behind a full queue waits for all of it: 10 ms.
        let Admission::Sent { departs, .. } = s.offer(t0 + Duration::from_millis(2), 1, 100) else {
            panic!("refused")
        };
        assert_eq!(
            departs - (t0 + Duration::from_millis(2)),
            Duration::from_micros(9100)
        );
    }

    #[test]
    fn a_chunk_larger_than_the_queue_passes_an_empty_queue() {
        let mut s = Shaper::new(spec());
        let t0 = Instant::now();
        assert!(matches!(s.offer(t0, 1, 50_000), Admission::Sent { .. }));
        assert!(matches!(s.offer(t0, 1, 10), Admission::Wait(_)));
    }

    #[test]
    fn connections_take_turns_at_a_fair_queue() {
        // Each connection holds at most 3000 bytes (3 ms at 8 Mbit/s).
        let fair = LinkSpec {
            per_connection: Some(3000),
            ..spec()
        };
        let mut s = Shaper::new(fair);
        let t0 = Instant::now();
        // A bulk sender fills its share, then waits for its oldest chunk.
        for _ in 0..3 {
            assert!(matches!(s.offer(t0, 1, 1000), Admission::Sent { .. }));
        }
        assert_eq!(
            s.offer(t0, 1, 1000),
            Admission::Wait(Duration::from_millis(1))
        );
        // Another connection's message passes it: it waits behind 3 kB,
        // not behind what the bulk sender would have queued.
        let Admission::Sent { departs, .. } = s.offer(t0, 2, 100) else {
            panic!("a second connection waited for the first one's share")
        };
        assert_eq!(departs - t0, Duration::from_micros(3100));
        // A chunk above the share passes once its connection holds nothing.
        let Admission::Wait(w) = s.offer(t0, 1, 5000) else {
            panic!("admitted above the share")
        };
        assert_eq!(w, Duration::from_millis(3));
        assert!(matches!(s.offer(t0 + w, 1, 5000), Admission::Sent { .. }));
        // As a FIFO the same link would have let the bulk sender queue on.
        let mut fifo = Shaper::new(spec());
        for _ in 0..5 {
            assert!(matches!(fifo.offer(t0, 1, 1000), Admission::Sent { .. }));
        }
    }
}
