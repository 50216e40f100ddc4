//! `member update`: validate the new peer URLs (rule 1), run the pre-flight
//! checks, and replace a member's.

use tokio::time::Instant;

use super::calc::validate;
use super::health::gather_with_leader;
use super::preflight::{Change, Check, Preflight};
use super::resolve::{resolve, Purpose};
use super::retry::send_change;
use super::{Ctx, MembershipApi};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberList, PeerUrls};

/// The result of `member update`.
#[derive(Clone, Debug, PartialEq)]
pub struct Updated {
    /// The member with its new peer URLs.
    pub member: Member,
    /// The membership after.
    pub list: MemberList,
    /// True when the member already had exactly these URLs and nothing was sent.
    pub unchanged: bool,
    /// The pre-flight checks it passed (warnings and skips included; none
    /// when nothing was sent or the caller ran them).
    pub checks: Vec<Check>,
}

/// What `member update` is asked.
#[derive(Clone, Debug)]
pub struct UpdateRequest {
    /// The member: name or hex ID.
    pub target: String,
    /// Its new peer URLs, read once.
    pub peer_urls: PeerUrls,
    /// The pre-flight checks.
    pub preflight: Preflight,
}

/// Runs `member update TARGET --peer-urls …`.
pub async fn update<A: MembershipApi>(
    cx: &Ctx<'_, A>,
    req: &UpdateRequest,
) -> Result<Updated, Error> {
    let (api, observer, resolver, command_timeout) =
        (cx.api, cx.observer, cx.resolver, cx.command_timeout);
    let UpdateRequest {
        target,
        peer_urls,
        preflight,
    } = req;
    let list = api.member_list().await?;
    let member = resolve(&list, target, Purpose::Update)?.clone();
    if peer_urls.same_as(&member.peer_urls) {
        observer.notice(&format!(
            "member {} already has these peer URLs; nothing sent",
            member.label()
        ));
        return Ok(Updated {
            member,
            list,
            unchanged: true,
            checks: Vec::new(),
        });
    }
    let problems = validate::check_peer_urls(peer_urls, &list.members, Some(member.id), resolver);
    validate::refuse_problems(problems)?;
    let deadline = Instant::now() + command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    let checks = preflight
        .run(api, observer, &health, &[Change::Update(member.id)])
        .await?;
    let down: Vec<String> = health
        .unreachable_voters()
        .iter()
        .map(|m| m.label())
        .collect();
    let list = send_change(
        observer,
        "member update",
        &down,
        (deadline, "--command-timeout"),
        || api.member_update(member.id, peer_urls),
    )
    .await?;
    let was_learner = member.is_learner;
    let member = list.get(member.id).cloned().unwrap_or(Member {
        peer_urls: peer_urls.texts(),
        ..member
    });
    if was_learner && !member.is_learner {
        return Err(lost_learner_flag(&member));
    }
    Ok(Updated {
        member,
        list,
        unchanged: false,
        checks,
    })
}

/// The server took the update of a learner and now lists it as a voter: the
/// etcd bug the `learners` check predicts from the release (etcd#21694), met
/// where the release could not be read or the check was skipped.
fn lost_learner_flag(member: &Member) -> Error {
    Error::new(
        ErrorKind::Internal,
        format!(
            "member update: the peer URLs of {} were updated, but the server now lists this \
             learner as a voter while raft keeps it a learner (etcd#21694, fixed in etcd 3.5.31 \
             and 3.6.12): it cannot be promoted, and the next learner add will be refused; \
             remove it (`memberctl member remove {}`) and add it again as a learner, and \
             upgrade etcd",
            member.label(),
            member.id
        ),
    )
}
