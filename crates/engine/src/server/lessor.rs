//! The leader's lease clock: when each lease expires (`expiry.rs` proposes
//! the revokes). Only the leader keeps one. A member that becomes leader
//! gives every lease its full TTL again, plus an election timeout (as etcd
//! does without checkpoints): a leader change never shortens a lease.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::node::NodeConfig;

/// How long an expired lease whose revoke failed waits before it is tried again.
const RETRY_REVOKE: Duration = Duration::from_secs(2);
/// Longest TTL a lease may have (etcd's), in seconds.
pub const MAX_TTL: i64 = 9_000_000_000;

/// Expiry times of the leases, while this member leads.
#[derive(Default)]
pub struct Lessor {
    inner: Mutex<Clock>,
}

#[derive(Default)]
struct Clock {
    /// The term in which this member leads (0: it does not).
    term: u64,
    /// Each lease's expiry, and the term of the leader that set it.
    expiries: HashMap<i64, (Instant, u64)>,
}

impl Lessor {
    fn clock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts (or restarts) lease `id`'s clock at its full `ttl`, as the
    /// leader of `term` (granted or kept alive): a lease granted in the term
    /// a member has just begun to lead keeps this time, with no grace.
    pub fn renew(&self, id: i64, ttl: i64, term: u64) {
        self.clock()
            .expiries
            .insert(id, (Instant::now() + secs(ttl), term));
    }

    /// Forgets lease `id` (revoked).
    pub fn forget(&self, id: i64) {
        self.clock().expiries.remove(&id);
    }

    /// Seconds left of lease `id` (truncated, as etcd reports it), if its clock runs.
    pub fn remaining(&self, id: i64) -> Option<i64> {
        let clock = self.clock();
        let (at, _) = clock.expiries.get(&id)?;
        Some(at.saturating_duration_since(Instant::now()).as_secs() as i64)
    }
}

fn secs(ttl: i64) -> Duration {
    Duration::from_secs(ttl.max(0) as u64)
}

/// The shortest TTL a lease gets (etcd's rule: one and a half election
/// timeouts, rounded up to whole seconds).
pub fn min_ttl(config: &NodeConfig) -> i64 {
    let election = config.heartbeat * config.election_ticks as u32;
    (election.as_millis() as i64 * 3 / 2 + 999) / 1000
}

impl Lessor {
    /// Stops the clock: this member does not lead.
    pub fn stop(&self) {
        let mut clock = self.clock();
        clock.term = 0;
        clock.expiries.clear();
    }

    /// Brings the clock in step with the `leases` stored (id, ttl) while
    /// this member leads in `term`, and takes the leases expired at `now`
    /// (each gets [`RETRY_REVOKE`] before it is taken again, in case its
    /// revoke fails). In a new term every lease starts its full TTL again
    /// plus `grace` (an election timeout), but one granted or kept alive
    /// by this leader in this term already, which keeps its time.
    pub fn expired(
        &self,
        term: u64,
        leases: impl Iterator<Item = (i64, i64)>,
        now: Instant,
        grace: Duration,
    ) -> Vec<i64> {
        let mut clock = self.clock();
        let fresh = clock.term != term;
        if fresh {
            clock.term = term;
            clock.expiries.retain(|_, (_, set_in)| *set_in == term);
        }
        let grace = if fresh { grace } else { Duration::ZERO };
        let mut stored = std::collections::HashSet::new();
        for (id, ttl) in leases {
            stored.insert(id);
            clock
                .expiries
                .entry(id)
                .or_insert((now + grace + secs(ttl), term));
        }
        clock.expiries.retain(|id, _| stored.contains(id));
        let expired: Vec<i64> = clock
            .expiries
            .iter()
            .filter(|(_, (at, _))| *at <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in &expired {
            clock.expiries.insert(*id, (now + RETRY_REVOKE, term));
        }
        expired
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_expire_after_their_ttl_plus_a_new_terms_grace_and_are_retried() {
        let lessor = Lessor::default();
        let t0 = Instant::now();
        let grace = Duration::from_secs(1);
        // A new term: every lease gets its TTL plus the grace.
        assert!(lessor
            .expired(2, [(7, 5)].into_iter(), t0, grace)
            .is_empty());
        let at = |s| t0 + Duration::from_secs(s);
        assert!(lessor
            .expired(2, [(7, 5)].into_iter(), at(5), grace)
            .is_empty());
        assert_eq!(
            lessor.expired(2, [(7, 5)].into_iter(), at(6), grace),
            vec![7]
        );
        // Taken once; again only after RETRY_REVOKE if its revoke failed.
        assert!(lessor
            .expired(2, [(7, 5)].into_iter(), at(7), grace)
            .is_empty());
        assert_eq!(
            lessor.expired(2, [(7, 5)].into_iter(), at(8), grace),
            vec![7]
        );
        // A lease no longer stored is forgotten; a new term starts over.
        assert!(lessor
            .expired(2, std::iter::empty(), at(9), grace)
            .is_empty());
        assert_eq!(lessor.remaining(7), None);
        lessor.renew(8, 3, 2);
        assert!(lessor.remaining(8).is_some());
        assert!(lessor
            .expired(3, [(8, 3)].into_iter(), at(10), grace)
            .is_empty());
        lessor.stop();
        assert_eq!(lessor.remaining(8), None);
    }

    #[test]
    fn a_lease_granted_in_a_term_just_begun_lives_its_ttl_without_the_grace() {
        let lessor = Lessor::default();
        let grace = Duration::from_secs(1);
        // Granted by the leader of term 5 before its clock's first look in
        // that term: no grace (etcd counts a lease's TTL from its grant).
        lessor.renew(9, 2, 5);
        let granted = Instant::now();
        let at = |ms| granted + Duration::from_millis(ms);
        assert!(lessor
            .expired(5, [(9, 2)].into_iter(), at(100), grace)
            .is_empty());
        assert_eq!(
            lessor.expired(5, [(9, 2)].into_iter(), at(2_050), grace),
            vec![9],
            "expired at its TTL, not TTL + grace"
        );
        // One kept alive in an earlier term starts over with the grace.
        lessor.renew(10, 2, 5);
        let t = Instant::now();
        assert!(lessor
            .expired(
                6,
                [(10, 2)].into_iter(),
                t + Duration::from_millis(2_050),
                grace
            )
            .is_empty());
    }
}
