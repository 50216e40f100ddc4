//! The leader's lease clock: when each lease expires. Only the leader keeps
//! one; expiry is proposed through raft as a revoke, so every member deletes
//! the lease's keys at the same revision. A member that becomes leader gives
//! every lease its full TTL again, plus an election timeout (as etcd does
//! without checkpoints): a leader change never shortens a lease.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::Shared;
use crate::engine::node::Applied;
use crate::proto::memberctl_store_v1 as spb;

/// How often the leader looks for expired leases (etcd: 500 ms).
const CHECK_EVERY: Duration = Duration::from_millis(500);
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
    expiries: HashMap<i64, Instant>,
}

impl Lessor {
    fn clock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts (or restarts) lease `id`'s clock at its full `ttl`.
    pub fn renew(&self, id: i64, ttl: i64) {
        self.clock().expiries.insert(id, Instant::now() + secs(ttl));
    }

    /// Forgets lease `id` (revoked).
    pub fn forget(&self, id: i64) {
        self.clock().expiries.remove(&id);
    }

    /// Seconds left of lease `id` (truncated, as etcd reports it), if its clock runs.
    pub fn remaining(&self, id: i64) -> Option<i64> {
        let clock = self.clock();
        let at = clock.expiries.get(&id)?;
        Some(at.saturating_duration_since(Instant::now()).as_secs() as i64)
    }
}

fn secs(ttl: i64) -> Duration {
    Duration::from_secs(ttl.max(0) as u64)
}

/// The shortest TTL a lease gets (etcd's rule: one and a half election
/// timeouts, rounded up to whole seconds).
pub fn min_ttl(shared: &Shared) -> i64 {
    let c = shared.node.config();
    let election = c.heartbeat * c.election_ticks as u32;
    (election.as_millis() as i64 * 3 / 2 + 999) / 1000
}

/// Runs the leader's lease clock until the node stops: keeps the clock in
/// step with the stored leases and revokes those that expire.
pub async fn run(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(CHECK_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let config = shared.node.config().clone();
    let election = config.heartbeat * config.election_ticks as u32;
    loop {
        tick.tick().await;
        let view = shared.node.view();
        let lessor = &shared.lessor;
        if !view.is_leader() {
            let mut clock = lessor.clock();
            clock.term = 0;
            clock.expiries.clear();
            continue;
        }
        let leases = shared.node.store().leases();
        let now = Instant::now();
        let expired: Vec<i64> = {
            let mut clock = lessor.clock();
            let fresh = clock.term != view.term;
            if fresh {
                clock.term = view.term;
                clock.expiries.clear();
            }
            let grace = if fresh { election } else { Duration::ZERO };
            let stored: std::collections::HashSet<i64> = leases.iter().map(|l| l.id).collect();
            clock.expiries.retain(|id, _| stored.contains(id));
            for l in &leases {
                clock
                    .expiries
                    .entry(l.id)
                    .or_insert(now + grace + secs(l.ttl));
            }
            let expired: Vec<i64> = clock
                .expiries
                .iter()
                .filter(|(_, at)| **at <= now)
                .map(|(id, _)| *id)
                .collect();
            for id in &expired {
                clock.expiries.insert(*id, now + RETRY_REVOKE);
            }
            expired
        };
        for id in expired {
            let s = shared.clone();
            tokio::spawn(async move {
                let op = spb::command::Op::LeaseRevoke(spb::LeaseRevoke { id });
                if let Ok(Applied::Revision(_)) = s.apply(op).await {
                    s.lessor.forget(id);
                }
            });
        }
    }
}
