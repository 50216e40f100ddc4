//! Reads what a change cost the cluster: every member's counters before and after it (`/metrics`), judged in `calc::cost` (its items re-exported here).

use futures_util::future::join_all;

pub use super::calc::cost::{cost, ChangeCost, Counters, Reading};
use super::MembershipApi;

/// Reads every member's counters (members that do not answer are left out).
pub async fn read<A: MembershipApi>(api: &A) -> Reading {
    let Ok(list) = api.member_list().await else {
        return Reading::default();
    };
    let started: Vec<_> = list.members.iter().filter(|m| m.started()).collect();
    let read = join_all(started.iter().map(|m| api.server_metrics(m))).await;
    Reading(
        started
            .iter()
            .zip(read)
            .filter_map(|(m, r)| r.ok().map(|x| (m.id, Counters::from(&x))))
            .collect(),
    )
}
