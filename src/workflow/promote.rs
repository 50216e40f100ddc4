//! `member promote`: wait for the learner to catch up (rule 3), then promote, retrying until the timeout.

use std::time::Duration;

use tokio::time::Instant;

use super::calc::catching_up::nudge_due;
use super::catch_up::{CatchUp, CatchUpSample, CatchUpState, CatchUpSummary, ReadySpan};
use super::health::Health;
use super::preflight::upgrade::{self, Release};
use super::preflight::{predicted_seconds, Change, Check, Preflight};
use super::resolve::{list_naming, resolve, Purpose};
use super::retry::retry_unhealthy;
use super::{ApiError, ApiErrorKind, Ctx, MembershipApi, Observer};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId, MemberList};

/// What to promote and how long to wait.
#[derive(Clone, Debug)]
pub struct PromoteRequest {
    /// The learner, by name or hex ID.
    pub target: String,
    /// Wait for catch-up (false: `--no-wait`).
    pub wait: bool,
    /// How long to wait in all.
    pub timeout: Duration,
    /// Time between polls.
    pub poll_interval: Duration,
    /// How long the learner must stay ready without a break before it is
    /// promoted (`--stable-for`; zero: at the first ready sample).
    pub stable_for: Duration,
    /// The pre-flight checks.
    pub preflight: Preflight,
}

/// A promoted member.
#[derive(Clone, Debug, PartialEq)]
pub struct Promoted {
    /// The member, now a voter.
    pub member: Member,
    /// The membership after.
    pub list: MemberList,
    /// How long the command waited for catch-up and promotion.
    pub waited: Duration,
    /// The learner's catch-up as the wait saw it (not with `--no-wait`).
    pub catch_up: Option<CatchUpSummary>,
    /// The pre-flight checks it passed (warnings and skips included; none
    /// when the caller ran them).
    pub checks: Vec<Check>,
}

fn not_ready_hint(e: ApiError, member: &Member) -> Error {
    if e.kind == ApiErrorKind::LearnerNotReady {
        return Error::refused(format!(
            "{}: member {} has not caught up with the leader yet (etcd needs 90% of the \
             leader's log); run `memberctl member promote {}` without --no-wait to wait for it",
            e.message,
            member.label(),
            member.id
        ));
    }
    e.into()
}

/// Runs `member promote`.
pub async fn promote<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &PromoteRequest,
) -> Result<Promoted, Error> {
    let (api, observer) = (cx.api, cx.observer);
    let started = Instant::now();
    // --no-wait means at once: a member that has not started is refused, not waited for.
    let list = if req.wait {
        list_naming(api, observer, &[&req.target], started + req.timeout).await?
    } else {
        api.member_list().await?
    };
    let member = resolve(&list, &req.target, Purpose::Promote)?.clone();
    if !member.is_learner {
        return Err(Error::refused(format!(
            "member {} is already a voter; only learners can be promoted",
            member.label()
        )));
    }
    let mut checks = Vec::new();
    if let Preflight::Run(_) = &req.preflight {
        let health = Health::gather(api, list.clone()).await;
        checks = req
            .preflight
            .run(api, observer, &health, &[Change::Promote(member.id)])
            .await?;
    }
    let predicted = predicted_seconds(&checks);
    let finish = |list: MemberList, catch_up: Option<CatchUpSummary>| {
        let member = list
            .get(member.id)
            .cloned()
            .unwrap_or_else(|| member.clone());
        Promoted {
            member,
            list,
            waited: started.elapsed(),
            catch_up,
            checks,
        }
    };
    if !req.wait {
        let deadline = Instant::now() + cx.command_timeout;
        let list = retry_unhealthy(
            observer,
            "member promote",
            (deadline, "--command-timeout"),
            || api.member_promote(member.id),
        )
        .await
        .map_err(|e| not_ready_hint(e, &member))?;
        return Ok(finish(list, None));
    }

    let deadline = started + req.timeout;
    let timing = (req.timeout, req.poll_interval, req.stable_for);
    let result = wait_ready(api, observer, &member, timing, deadline, true, predicted).await;
    observer.catch_up_done();
    result.map(|(list, summary)| finish(list, Some(summary)))
}

/// Waits until learner `member` has caught up (showing progress), then, when
/// `promote` is set, promotes it (retrying the server's "not ready" with
/// backoff). `timing`: the whole wait's timeout, the time between polls and
/// how long the learner must stay ready without a break first
/// (`--stable-for`). Returns the membership at the end and the catch-up as
/// seen (with the check's `predicted` seconds). Gives up at `deadline`.
pub(crate) async fn wait_ready<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    member: &Member,
    timing: (Duration, Duration, Duration),
    deadline: Instant,
    promote: bool,
    predicted: Option<f64>,
) -> Result<(MemberList, CatchUpSummary), Error> {
    let (timeout, poll_interval, stable_for) = timing;
    let mut catch_up = CatchUp::new(member.id).predicted(predicted);
    let mut ready = ReadySpan::new(stable_for);
    let mut last: Option<CatchUpSample> = None;
    let mut last_error: Option<ApiError> = None;
    let mut backoff = poll_interval;
    let mut versions_judged = false;
    // Since when the learner has been held after its snapshot, and when an
    // entry was last committed to free it.
    let mut held_since: Option<Instant> = None;
    let mut nudged: Option<Instant> = None;
    loop {
        match catch_up.sample(api).await {
            Ok((mut sample, list)) => {
                let state = ready.note(&mut sample, Instant::now());
                observer.catch_up(&sample);
                let now = Instant::now();
                held_since = sample
                    .held_after_snapshot
                    .then(|| held_since.unwrap_or(now));
                if nudge_due(held_since, nudged, now) {
                    nudged = Some(now);
                    free_held_learner(api, observer, &sample.label).await;
                }
                last = Some(sample);
                if state == CatchUpState::Promoted || (state == CatchUpState::Ready && !promote) {
                    return Ok((list, catch_up.summary()));
                }
                if state == CatchUpState::Ready && !versions_judged {
                    // The learner answers now: its version is known.
                    versions_judged = upgrade_gate(api, &list, member.id).await?;
                }
                if state == CatchUpState::Ready {
                    match api.member_promote(member.id).await {
                        Ok(list) => return Ok((list, catch_up.summary())),
                        Err(e) => match e.kind {
                            // The server's own view of the match index disagrees, the
                            // cluster is in etcd's start-up window, or the member was
                            // promoted by our own earlier attempt: look again.
                            ApiErrorKind::LearnerNotReady
                            | ApiErrorKind::Unhealthy
                            | ApiErrorKind::NotLearner
                            | ApiErrorKind::Unavailable
                            | ApiErrorKind::DeadlineExceeded => {
                                last_error = Some(e);
                                backoff = (backoff * 2).min(Duration::from_secs(5));
                            }
                            _ => return Err(e.into()),
                        },
                    }
                }
            }
            Err(e) if e.kind == ApiErrorKind::NotFound => return Err(e.into()),
            Err(e) => {
                observer.notice(&format!(
                    "could not sample catch-up progress: {e}; retrying"
                ));
                ready.reset();
                last_error = Some(e);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(timed_out(
                timeout,
                member,
                promote,
                last.as_ref(),
                last_error.as_ref(),
            ));
        }
        let pause = if last.as_ref().map(|s| s.state) == Some(CatchUpState::Ready) {
            backoff
        } else {
            poll_interval
        };
        tokio::time::sleep(pause.min(deadline - now)).await;
    }
}

/// Commits an entry that changes nothing, for a learner held after its
/// snapshot ([`held_after_snapshot`](super::calc::catching_up::held_after_snapshot)),
/// and says so.
async fn free_held_learner<A: MembershipApi>(api: &A, observer: &dyn Observer, label: &str) {
    let what = format!(
        "{label} has received its snapshot and does not answer: etcd 3.6 and 3.7 can hold a new \
         learner there until the cluster commits one more entry (its own start is refused as \
         'too many requests')"
    );
    match api.commit_empty_entry().await {
        Ok(()) => observer.notice(&format!(
            "{what}; committed one that changes nothing (a lease granted and revoked)"
        )),
        Err(e) => observer.notice(&format!(
            "{what}; committing one failed ({e}): write any key to the cluster, or restart the learner"
        )),
    }
}

/// Whether learner `id` may be promoted by the upgrade rules (its version
/// against the cluster version and the voters'): `Ok(true)` when judged and
/// allowed, `Ok(false)` when a version could not be read (judged again at
/// the next sample; etcd's own rules still apply), a refusal otherwise.
async fn upgrade_gate<A: MembershipApi>(
    api: &A,
    list: &MemberList,
    id: MemberId,
) -> Result<bool, Error> {
    let health = Health::gather(api, list.clone()).await;
    let Some(leader) = health.leader().and_then(|l| list.get(l)) else {
        return Ok(false);
    };
    let (Some(Ok(own)), Ok(version)) = (health.status_of(id), api.server_version(leader).await)
    else {
        return Ok(false);
    };
    let (Some(release), Some(cluster)) = (
        Release::parse(&own.version),
        Release::parse(&version.cluster),
    ) else {
        return Ok(false);
    };
    let voters: Vec<(String, Release)> = list
        .members
        .iter()
        .zip(&health.statuses)
        .filter(|(m, _)| !m.is_learner)
        .filter_map(|(m, s)| Some((m.label(), Release::parse(&s.as_ref().ok()?.version)?)))
        .collect();
    let label = list.get(id).map_or_else(|| id.to_string(), |m| m.label());
    match upgrade::promotable(&label, release, cluster.minor_version(), &voters) {
        Ok(()) => Ok(true),
        Err(b) => Err(Error::refused(format!(
            "not promoted (check versions): {}; what to do: {}",
            b.detail, b.remedy
        ))),
    }
}

fn timed_out(
    timeout: Duration,
    member: &Member,
    promote: bool,
    last: Option<&CatchUpSample>,
    last_error: Option<&ApiError>,
) -> Error {
    let where_ = match last {
        Some(s) if s.held_after_snapshot => {
            "it received the leader's snapshot and does not answer on its client URL: look in its \
             log for 'too many requests' (etcd 3.6/3.7 hold such a learner until the cluster \
             commits another entry: write any key, or restart the learner)"
                .to_string()
        }
        Some(s) if s.state == CatchUpState::NotStarted => {
            "it has not started: start it with the ETCD_* settings `member add` printed".to_string()
        }
        Some(s) => format!(
            "last seen {}{}: index {} of the leader's {}",
            s.state.as_str(),
            s.ready_for.map_or(String::new(), |(held, need)| format!(
                " for {:.1} s of the {:.1} s --stable-for asks",
                held.as_secs_f64(),
                need.as_secs_f64()
            )),
            s.learner_index.map_or("?".into(), |i| i.to_string()),
            s.leader_index.map_or("?".into(), |i| i.to_string()),
        ),
        None => "its progress could not be read".to_string(),
    };
    let cause = last_error.map_or(String::new(), |e| format!("; last error: {e}"));
    let (waiting, again) = if promote {
        ("to promote member", "run promote again")
    } else {
        ("for member", "run the command again")
    };
    let caught_up = if promote { "" } else { " to catch up" };
    Error::new(
        ErrorKind::Timeout,
        format!(
            "timed out after {} waiting {waiting} {}{caught_up} ({where_}{cause}); it is still a \
             learner: check its logs, then {again} or raise --timeout",
            humantime::format_duration(timeout),
            member.label()
        ),
    )
}
