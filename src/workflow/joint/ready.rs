//! Rule 6 of `joint enter`: a learner becomes a voter only once it has caught up — judged at once, or waited for with progress.

use std::time::Duration;

use tokio::time::Instant;

use super::super::catch_up::{is_ready, CatchUpSummary};
use super::super::health::Health;
use super::super::preflight::Change;
use super::super::promote::wait_ready;
use super::super::{MembershipApi, Observer};
use super::{unsupported, JointRequest};
use crate::error::Error;
use crate::model::{MemberId, MemberList};

/// Rule 6: a learner becomes a voter only once it has caught up (`force`:
/// a notice instead of a refusal).
pub(super) async fn check_caught_up<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    promoted: &[MemberId],
    force: bool,
) -> Result<(), Error> {
    if promoted.is_empty() {
        return Ok(());
    }
    let progress = api.get_progress().await.map_err(unsupported)?;
    for id in promoted {
        let matched = progress
            .peers
            .iter()
            .find(|p| p.id == *id)
            .map_or(0, |p| p.matched);
        if is_ready(matched, progress.last_index) {
            continue;
        }
        let text = format!(
            "learner {id} has {matched} of the leader's {} log entries (it needs 90%)",
            progress.last_index
        );
        if force {
            observer.notice(&format!("--force: promoting although {text}"));
        } else {
            return Err(Error::refused(format!(
                "refused by rule 6 (promote only caught-up learners): {text}; wait until it has \
                 caught up (`memberctl member status` shows it), or pass --force"
            )));
        }
    }
    Ok(())
}

/// Rule 6, waited for: each learner to promote is watched (with progress,
/// against the catch-up check's prediction, judged but not enforced here:
/// the checks themselves come after the wait) until it has caught up, until
/// `started` + the request's timeout. Returns the membership after the wait
/// and each learner's catch-up.
pub(super) async fn wait_caught_up<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    req: &JointRequest,
    list: &MemberList,
    promoted: &[MemberId],
    started: Instant,
) -> Result<(MemberList, Vec<CatchUpSummary>), Error> {
    let health = Health::gather(api, list.clone()).await;
    let steps: Vec<Change> = promoted.iter().map(|id| Change::Promote(*id)).collect();
    let predicted = req.preflight.predicted(api, &health, &steps).await;
    let deadline = started + req.timeout;
    let timing = (req.timeout, req.poll_interval, Duration::ZERO);
    let mut summaries = Vec::new();
    let mut now = list.clone();
    for id in promoted {
        let Some(member) = now.get(*id).cloned() else {
            continue;
        };
        let waited = wait_ready(api, observer, &member, timing, deadline, false, predicted).await;
        observer.catch_up_done();
        let (after, summary) = waited?;
        summaries.push(summary);
        now = after;
    }
    Ok((now, summaries))
}
