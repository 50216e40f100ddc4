//! What a change cost the cluster: leader changes, heartbeat send failures
//! and slow applies, counted across the change from every member's
//! `/metrics` read before and after (etcd's counters, which the engine
//! exports under the same names). Reading them is `workflow::cost`'s.

use crate::model::{MemberId, ServerMetrics};

/// The counters of one member at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    /// `etcd_server_leader_changes_seen_total`.
    pub leader_changes: Option<f64>,
    /// `etcd_server_heartbeat_send_failures_total`.
    pub heartbeat_send_failures: Option<f64>,
    /// `etcd_server_slow_apply_total`.
    pub slow_applies: Option<f64>,
}

impl From<&ServerMetrics> for Counters {
    fn from(m: &ServerMetrics) -> Self {
        Counters {
            leader_changes: m.leader_changes_seen,
            heartbeat_send_failures: m.heartbeat_send_failures,
            slow_applies: m.slow_applies,
        }
    }
}

/// Every member's counters that could be read, by member.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading(pub Vec<(MemberId, Counters)>);

/// What the change cost, over the members read both before and after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeCost {
    /// Leader changes: the most any member saw (each member counts the
    /// same elections).
    pub leader_changes: u64,
    /// Heartbeats that could not be sent, summed over the members.
    pub heartbeat_send_failures: u64,
    /// Applies slower than etcd's 100 ms warning, summed over the members.
    pub slow_applies: u64,
    /// How many members were read both times.
    pub members_read: usize,
    /// Members read only before or only after (removed or added by the
    /// change): not counted, as their counters span other times.
    pub members_not_counted: usize,
}

/// The counters' rise between `before` and `after`; `None` when no member
/// was read both times. A counter that fell (a member restarted) counts
/// from zero.
pub fn cost(before: &Reading, after: &Reading) -> Option<ChangeCost> {
    let mut c = ChangeCost::default();
    for (id, a) in &after.0 {
        let Some((_, b)) = before.0.iter().find(|(i, _)| i == id) else {
            continue;
        };
        c.members_read += 1;
        let rise = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) if y >= x => (y - x) as u64,
            (_, Some(y)) => y as u64,
            _ => 0,
        };
        c.leader_changes = c
            .leader_changes
            .max(rise(b.leader_changes, a.leader_changes));
        c.heartbeat_send_failures += rise(b.heartbeat_send_failures, a.heartbeat_send_failures);
        c.slow_applies += rise(b.slow_applies, a.slow_applies);
    }
    let only = |x: &Reading, y: &Reading| {
        x.0.iter()
            .filter(|(id, _)| !y.0.iter().any(|(i, _)| i == id))
            .count()
    };
    c.members_not_counted = only(before, after) + only(after, before);
    (c.members_read > 0).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(l: f64, h: f64, s: f64) -> Counters {
        Counters {
            leader_changes: Some(l),
            heartbeat_send_failures: Some(h),
            slow_applies: Some(s),
        }
    }

    #[test]
    fn the_rise_is_counted_per_member_and_elections_once() {
        let before = Reading(vec![
            (MemberId(1), counters(1.0, 0.0, 2.0)),
            (MemberId(2), counters(1.0, 5.0, 0.0)),
            (MemberId(3), counters(1.0, 0.0, 0.0)),
        ]);
        let after = Reading(vec![
            (MemberId(1), counters(2.0, 3.0, 2.0)),
            (MemberId(2), counters(2.0, 5.0, 1.0)),
            // A member that restarted: its counters start again.
            (MemberId(3), counters(1.0, 0.0, 0.0)),
            // A member added during the change is not compared.
            (MemberId(4), counters(9.0, 9.0, 9.0)),
        ]);
        let c = cost(&before, &after).unwrap();
        assert_eq!(c.leader_changes, 1);
        assert_eq!(c.heartbeat_send_failures, 3);
        assert_eq!(c.slow_applies, 1);
        assert_eq!(c.members_read, 3);
        assert_eq!(c.members_not_counted, 1);
        assert_eq!(cost(&before, &Reading::default()), None);
    }
}
