//! Leadership transfer: `member move-leader`, and moving leadership away before a change removes or demotes the leader.
//!
//! A leader that is removed (or demoted) steps down only once the change is
//! applied, and the cluster then has no leader for an election timeout: every
//! write in that window stalls or fails. Handing leadership to the most
//! caught-up voter that stays first (etcd's Maintenance.MoveLeader, served by
//! the engine too) takes one round of raft messages instead.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

pub use super::calc::leader::{best_transferee, planned, step_name};
use super::calc::leader::{check_transferee, leader_member};
use super::health::{gather_with_leader, Health};
use super::resolve::{resolve, Purpose};
use super::{ApiError, Ctx, MembershipApi, Observer};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId, MemberList};

/// How often the members are asked who leads while a transfer completes.
const LEADER_POLL: Duration = Duration::from_millis(20);

/// What `member move-leader` is asked to do.
#[derive(Clone, Debug)]
pub struct MoveRequest {
    /// The new leader, by name or hex ID; `None`: the most caught-up voter.
    pub target: Option<String>,
    /// How long to wait for a named member to start and for the transfer.
    pub timeout: Duration,
}

/// A leadership transfer that happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    /// The leader before.
    pub from: Member,
    /// The leader now.
    pub to: Member,
    /// The cluster's ID.
    pub cluster_id: MemberId,
    /// From the request to every reachable member naming the new leader.
    pub took: Duration,
}

/// Runs `member move-leader [TARGET]`. Moving leadership to the member that
/// already leads changes nothing and succeeds.
pub async fn move_leader<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &MoveRequest,
) -> Result<Moved, Error> {
    let (api, observer) = (cx.api, cx.observer);
    let deadline = Instant::now() + req.timeout;
    let list = api.member_list().await?;
    let target = match &req.target {
        Some(t) => Some(resolve(&list, t, Purpose::MoveLeader)?.clone()),
        None => None,
    };
    let change_deadline = Instant::now() + cx.command_timeout;
    let health = gather_with_leader(api, observer, list, change_deadline).await?;
    let leader = leader_member(&health)?;
    let to = match target {
        Some(m) => {
            check_transferee(&health, &m)?;
            m
        }
        None => best_transferee(&health, &HashSet::from([leader.id])).ok_or_else(|| {
            Error::refused(format!(
                "no other voter is reachable to take over from {}; bring a voter back (or \
                 promote a caught-up learner) first",
                leader.label()
            ))
        })?,
    };
    let started = Instant::now();
    if to.id != leader.id {
        transfer(api, &health, &leader, &to, deadline.max(change_deadline)).await?;
    }
    Ok(Moved {
        from: leader,
        to,
        cluster_id: health.list.cluster_id,
        took: started.elapsed(),
    })
}

/// If the leader is among `leaving` (members a change removes or demotes),
/// hands leadership to the most caught-up reachable voter that stays, and
/// waits until it leads; returns the transfer, or `None` when the leader
/// stays. Fails (and the caller changes nothing) when no voter can take over
/// or the transfer does not complete by `deadline`.
pub async fn move_away<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    health: &Health,
    leaving: &HashSet<MemberId>,
    deadline: Instant,
) -> Result<Option<Moved>, Error> {
    let leader = leader_member(health)?;
    if !leaving.contains(&leader.id) {
        return Ok(None);
    }
    let Some(to) = best_transferee(health, leaving) else {
        return Err(Error::refused(format!(
            "{} leads and no voter that stays is reachable to take over; bring a voter back \
             first",
            leader.label()
        )));
    };
    observer.notice(&format!(
        "{} leads: moving leadership to {} first",
        leader.label(),
        to.label()
    ));
    let started = Instant::now();
    transfer(api, health, &leader, &to, deadline)
        .await
        .map_err(|e| e.context("leadership was not moved, so nothing was changed"))?;
    Ok(Some(Moved {
        from: leader.clone(),
        to,
        cluster_id: health.list.cluster_id,
        took: started.elapsed(),
    }))
}

/// Asks `from` to hand over to `to`, then waits until every reachable member
/// that answers names `to` as leader, so that the next request meets the new
/// leader. "not leader" (leadership moved meanwhile) is retried with the
/// member that leads now.
async fn transfer<A: MembershipApi>(
    api: &A,
    health: &Health,
    from: &Member,
    to: &Member,
    deadline: Instant,
) -> Result<(), Error> {
    let mut leader = from.clone();
    loop {
        match api.move_leader(&leader, to.id).await {
            Ok(()) => break,
            Err(e) if e.message.contains("not leader") && Instant::now() < deadline => {
                let now = Health::gather(api, health.list.clone()).await;
                match now.leader().and_then(|id| now.list.get(id)) {
                    Some(l) if l.id == to.id => break,
                    Some(l) => leader = l.clone(),
                    None => tokio::time::sleep(LEADER_POLL).await,
                }
            }
            Err(e) => return Err(transfer_error(e, from, to)),
        }
    }
    wait_for_leader(api, &health.list, to, deadline).await
}

fn transfer_error(e: ApiError, from: &Member, to: &Member) -> Error {
    let e: Error = e.into();
    e.context(format!(
        "{} did not hand leadership to {}",
        from.label(),
        to.label()
    ))
}

/// Polls the members of `list` until those that answer name `to` as leader.
async fn wait_for_leader<A: MembershipApi>(
    api: &A,
    list: &MemberList,
    to: &Member,
    deadline: Instant,
) -> Result<(), Error> {
    loop {
        let health = Health::gather(api, list.clone()).await;
        let named: Vec<MemberId> = health
            .statuses
            .iter()
            .filter_map(|s| s.as_ref().ok())
            .map(|s| s.leader)
            .collect();
        if !named.is_empty() && named.iter().all(|l| *l == to.id) {
            return Ok(());
        }
        if Instant::now() + LEADER_POLL > deadline {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "{} was asked to lead but the members do not all name it yet; run \
                     `memberctl member status` to see who leads",
                    to.label()
                ),
            ));
        }
        tokio::time::sleep(LEADER_POLL).await;
    }
}
