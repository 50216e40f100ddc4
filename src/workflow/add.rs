//! `member add`: validate, check rule 2, add (idempotently), and say how to start the new member.

use std::time::Duration;

use tokio::time::Instant;

use super::calc::quorum::{self, Config, PlanStep};
use super::calc::validate;
use super::health::gather_with_leader;
use super::preflight::{Change, Check, CheckName, Preflight, Verdict};
use super::retry::send_change;
use super::{Ctx, MembershipApi};
use crate::error::Error;
use crate::model::{Member, MemberList, PeerUrls};

/// What to add.
#[derive(Clone, Debug)]
pub struct AddRequest {
    /// The name the new member will start with.
    pub name: String,
    /// Its peer URLs, read once.
    pub peer_urls: PeerUrls,
    /// Add as a learner.
    pub learner: bool,
    /// Only print the plan.
    pub dry_run: bool,
    /// The pre-flight checks.
    pub preflight: Preflight,
    /// How long etcd's "unhealthy cluster" window after a member connects is
    /// waited out: a larger change's `--timeout` (`None`: `--command-timeout`,
    /// as `member add` on its own).
    pub window: Option<Duration>,
}

/// A member that was added (or had already been added) and how to start it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedMember {
    /// The new member as the server has it (no name until it starts).
    pub member: Member,
    /// The name it must be started with.
    pub name: String,
    /// The membership after the add.
    pub list: MemberList,
    /// `--initial-cluster` for the new member: name=peer-url for every member.
    pub initial_cluster: String,
    /// `--initial-cluster-state` for the new member: always `existing`.
    pub initial_cluster_state: String,
    /// True when an identical, not yet started member was found and nothing was sent.
    pub already_added: bool,
}

/// What `member add` did, with the pre-flight checks it passed (warnings
/// and skips included; none when the caller ran them).
#[derive(Clone, Debug, PartialEq)]
pub enum AddOutcome {
    /// The member exists now.
    Added {
        /// The member and how to start it.
        added: AddedMember,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
    /// `--dry-run`: the configurations before and after.
    Plan {
        /// Before, and after the add.
        steps: Vec<PlanStep>,
        /// The pre-flight checks passed.
        checks: Vec<Check>,
    },
}

/// What the operator does next, for stderr: start the member, then (for a
/// learner) promote it, by name or by the ID it has until it starts.
pub fn next_step(a: &AddedMember) -> String {
    let then = if a.member.is_learner {
        format!(
            ", then `memberctl member promote {}` (or {}): it waits for {} to start and catch up",
            a.name, a.member.id, a.name
        )
    } else {
        String::new()
    };
    format!(
        "next: start member {} ({}) with the settings above (on a local test cluster: \
         `memberctl cluster start-node {}`){then}",
        a.name, a.member.id, a.name
    )
}

/// The `--initial-cluster` value for a new member called `name` with ID `new`:
/// every member's name=peer-url in server order; other unstarted members have
/// an empty name, exactly as etcd prints it.
pub fn initial_cluster(list: &MemberList, new: &Member, name: &str) -> String {
    let mut parts = Vec::new();
    for m in &list.members {
        let n = if m.id == new.id {
            name
        } else {
            m.name.as_str()
        };
        for u in &m.peer_urls {
            parts.push(format!("{n}={u}"));
        }
    }
    parts.join(",")
}

fn added(member: Member, list: MemberList, name: &str, already_added: bool) -> AddedMember {
    AddedMember {
        initial_cluster: initial_cluster(&list, &member, name),
        initial_cluster_state: "existing".to_string(),
        name: name.to_string(),
        member,
        list,
        already_added,
    }
}

/// Runs `member add`: rules 1 and 2, then the add. Refusals change nothing.
pub async fn add<A: MembershipApi>(cx: &Ctx<'_, A>, req: &AddRequest) -> Result<AddOutcome, Error> {
    let (api, observer, resolver, command_timeout) =
        (cx.api, cx.observer, cx.resolver, cx.command_timeout);
    let list = api.member_list().await?;

    // Idempotency: the same peer URLs, added before and never started. The
    // request must still be well-formed (rule 1, the member's own URLs allowed):
    // `same_as` compares parsed endpoints, which ignore what rule 1 refuses.
    if let Some(m) = list
        .members
        .iter()
        .find(|m| !m.started() && req.peer_urls.same_as(&m.peer_urls))
    {
        let mut problems = validate::check_name(&req.name, &list.members);
        problems.extend(validate::check_peer_urls(
            &req.peer_urls,
            &list.members,
            Some(m.id),
            resolver,
        ));
        validate::refuse_problems(problems)?;
        if m.is_learner != req.learner {
            let (has, asked) = if m.is_learner {
                ("a learner", "a voter")
            } else {
                ("a voter", "a learner")
            };
            return Err(Error::refused(format!(
                "member {} with these peer URLs was already added as {has} and has not started; \
                 you asked for {asked}: start it as it is, or remove it with `memberctl member \
                 remove {}` and add it again",
                m.id, m.id
            )));
        }
        observer.notice(&format!(
            "member {} with these peer URLs was already added and has not started yet; nothing sent",
            m.id
        ));
        return Ok(AddOutcome::Added {
            added: added(m.clone(), list, &req.name, true),
            checks: Vec::new(),
        });
    }

    validate::check_new_member(&req.name, &req.peer_urls, &list.members, resolver)?;

    let deadline = Instant::now() + command_timeout;
    let health = gather_with_leader(api, observer, list, deadline).await?;
    let reachable = health.reachable();
    if !req.learner {
        quorum::check_voter_add(&health.list, &reachable)?;
    }
    let change = Change::Add {
        learner: req.learner,
    };
    let checks = req.preflight.run(api, observer, &health, &[change]).await?;

    let mut config = Config::of(&health.list, &reachable);
    let before = config.step("before");
    let label = format!("{} (new)", req.name);
    if req.learner {
        config.add_learner(label);
    } else {
        config.add_voter(label, false);
    }
    let kind = if req.learner { "learner" } else { "voter" };
    let after = config.step(format!(
        "after adding {} as a {kind}, before it starts",
        req.name
    ));
    if req.dry_run {
        return Ok(AddOutcome::Plan {
            steps: vec![before, after],
            checks,
        });
    }
    if !req.learner {
        observer.notice(&format!(
            "adding {} as a voter: the quorum becomes {} of {} at once, and fault tolerance is {} \
             until it has started and caught up; --learner avoids this",
            req.name,
            after.quorum,
            config.voter_count(),
            after.fault_tolerance
        ));
    }

    // The quorum check judged the server would take this add with the
    // voters that are down (etcd 3.5+ with a quorum of the voters and the
    // new member connected): an "unhealthy cluster" is then the window after
    // a member connects, waited out.
    let judged_accepted = checks
        .iter()
        .any(|c| c.name == CheckName::Quorum && c.verdict == Verdict::Ok && !c.skipped);
    let down: Vec<String> = health
        .unreachable_voters()
        .iter()
        .filter(|_| !judged_accepted)
        .map(|m| m.label())
        .collect();
    let bound = match req.window {
        Some(w) if w > command_timeout => (Instant::now() + w, "--timeout"),
        _ => (Instant::now() + command_timeout, "--command-timeout"),
    };
    let result = send_change(observer, "member add", &down, bound, || {
        api.member_add(&req.peer_urls, req.learner)
    })
    .await;
    match result {
        Ok(a) => Ok(AddOutcome::Added {
            added: added(a.member, a.list, &req.name, false),
            checks,
        }),
        Err(e) => {
            // The answer may have been lost after the server applied the add.
            if e.kind == crate::ErrorKind::Unavailable {
                if let Ok(list) = api.member_list().await {
                    if let Some(m) = list
                        .members
                        .iter()
                        .find(|m| req.peer_urls.same_as(&m.peer_urls))
                    {
                        return Ok(AddOutcome::Added {
                            added: added(m.clone(), list, &req.name, false),
                            checks,
                        });
                    }
                }
            }
            Err(e)
        }
    }
}
