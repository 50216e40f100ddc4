//! The heartbeats' timing: each heartbeat's round trip to the peer that
//! answers it (etcd_network_peer_round_trip_time_seconds, the pacer's
//! round trips) and etcd's timeout detector for a leader's late ones.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::Driver;

/// A heartbeat unanswered for this long is taken as lost (which also bounds
/// the heartbeats kept per peer).
const HEARTBEAT_LOST: Duration = Duration::from_secs(2);

/// Drops the heartbeats sent longer than [`HEARTBEAT_LOST`] before `now`.
fn forget_lost(sent: &mut VecDeque<Instant>, now: Instant) {
    while sent
        .front()
        .is_some_and(|t| now.saturating_duration_since(*t) > HEARTBEAT_LOST)
    {
        sent.pop_front();
    }
}

impl Driver {
    /// Notes a heartbeat to `to` handed to the transport now: its answer
    /// times the round trip, and a late one is counted.
    pub(super) fn heartbeat_sent(&mut self, to: u64) {
        let now = Instant::now();
        let sent = self.heartbeats.entry(to).or_default();
        forget_lost(sent, now);
        sent.push_back(now);
        self.heartbeat_on_time(to, now);
    }

    /// etcd's timeout detector: a heartbeat to `to` handed out more than two
    /// heartbeat intervals after the one before it went late (the raft
    /// thread was held up, by a slow disk most likely), and counts in
    /// etcd_server_heartbeat_send_failures_total.
    fn heartbeat_on_time(&mut self, to: u64, now: Instant) {
        let limit = 2 * self.config.heartbeat;
        if let Some(last) = self.last_heartbeat.insert(to, now) {
            let gap = now.saturating_duration_since(last);
            if gap > limit {
                slog::warn!(
                    crate::log::logger(),
                    "leader failed to send out heartbeat on time; took too long, leader is \
                     overloaded likely from slow disk";
                    "to" => format!("{to:x}"),
                    "heartbeat-interval" => format!("{:?}", self.config.heartbeat),
                    "expected-duration" => format!("{limit:?}"),
                    "exceeded-duration" => format!("{:?}", gap - limit),
                );
                crate::metrics::heartbeat_send_failure();
            }
        }
    }

    /// Records the round trip of the heartbeat `peer` answered
    /// (etcd_network_peer_round_trip_time_seconds).
    pub(super) fn round_trip(&mut self, peer: u64) {
        let now = Instant::now();
        // Heartbeats unanswered this long were lost on the way: the answer
        // is not theirs.
        let sent = self.heartbeats.get_mut(&peer).and_then(|s| {
            forget_lost(s, now);
            s.pop_front()
        });
        if let Some(sent) = sent {
            let rtt = now - sent;
            crate::pacing::round_trips().record(peer, now, rtt);
            crate::metrics::get()
                .peer_rtt
                .with_label_values(&[&format!("{peer:x}")])
                .observe(rtt.as_secs_f64());
        }
    }
}
