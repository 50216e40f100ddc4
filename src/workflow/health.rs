//! Asks every member for its status at once ([`Health`], judged in `calc::health`); waits for a leader before changes.

use std::time::Duration;

use futures_util::future::join_all;
use tokio::time::Instant;

use super::{ApiError, ApiErrorKind, MembershipApi, Observer};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberList, MemberStatus};

pub use super::calc::health::Health;

/// How long a learner is given to answer: etcd's learner holds its
/// requests until it has caught up (a snapshot can take minutes).
pub const LEARNER_WAIT: Duration = Duration::from_secs(1);

/// Asks `member` for its status, giving a learner [`LEARNER_WAIT`].
pub async fn status_of<A: MembershipApi>(
    api: &A,
    member: &Member,
) -> Result<MemberStatus, ApiError> {
    if !member.is_learner {
        return api.member_status(member).await;
    }
    match tokio::time::timeout(LEARNER_WAIT, api.member_status(member)).await {
        Ok(answer) => answer,
        Err(_) => Err(ApiError::new(
            ApiErrorKind::DeadlineExceeded,
            format!(
                "learner {} did not answer within {} s (a learner catching up answers once it \
                 has)",
                member.label(),
                LEARNER_WAIT.as_secs()
            ),
        )),
    }
}

impl Health {
    /// Asks every member of `list` for its status, concurrently (a learner
    /// has [`LEARNER_WAIT`] to answer).
    pub async fn gather<A: MembershipApi>(api: &A, list: MemberList) -> Health {
        let statuses = join_all(list.members.iter().map(|m| status_of(api, m))).await;
        Health { list, statuses }
    }
}

/// How often to look again while waiting for a leader.
const LEADER_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Gathers health until the reachable members name a leader that itself
/// answers, so that no change is sent into an election (etcd drops such a
/// proposal and never answers). Gives up at `deadline`.
pub async fn gather_with_leader<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    list: MemberList,
    deadline: Instant,
) -> Result<Health, Error> {
    let mut health = Health::gather(api, list).await;
    let mut told = false;
    while health.leader_status().is_none() {
        if Instant::now() + LEADER_POLL > deadline {
            return Err(Error::new(ErrorKind::Unavailable, health.no_leader()));
        }
        if !told {
            observer
                .notice("no reachable leader yet (an election may be under way); waiting for one");
            told = true;
        }
        tokio::time::sleep(LEADER_POLL).await;
        let list = api.member_list().await?;
        health = Health::gather(api, list).await;
    }
    Ok(health)
}
