//! The leader's lease expiry: every half second the lease clock is brought
//! in step with the stored leases and the expired ones are revoked through
//! raft, so every member deletes a lease's keys at the same revision.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::Shared;
use crate::node::Applied;
use crate::proto::memberctl_store_v1 as spb;

/// How often the leader looks for expired leases (etcd: 500 ms).
const CHECK_EVERY: Duration = Duration::from_millis(500);

/// Runs until the node stops: keeps the clock in step and revokes what expires.
pub async fn run(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(CHECK_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let config = shared.node.config().clone();
    let election = config.heartbeat * config.election_ticks as u32;
    loop {
        tick.tick().await;
        let view = shared.node.view();
        if !view.is_leader() {
            shared.lessor.stop();
            continue;
        }
        let leases = shared.node.store().state().leases();
        let expired = shared.lessor.expired(
            view.term,
            leases.iter().map(|l| (l.id, l.ttl)),
            Instant::now(),
            election,
        );
        for id in expired {
            let s = shared.clone();
            tokio::spawn(async move {
                let op = spb::command::Op::LeaseRevoke(spb::LeaseRevoke { id });
                if let Ok(Applied::Revision(_)) = s.propose(op).await {
                    s.lessor.forget(id);
                }
            });
        }
    }
}
