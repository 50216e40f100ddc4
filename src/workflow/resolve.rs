//! Finds the member a command names, by name or by hex ID; only a promotion waits for a name a member has not published yet.

use std::time::Duration;

use tokio::time::Instant;

use super::{MembershipApi, Observer};
use crate::error::{Error, ErrorKind, Unstarted};
use crate::model::{Member, MemberId, MemberList};
use crate::workflow::calc::validate::quoted;

/// How often the member list is read again while waiting for a name.
const NAME_POLL: Duration = Duration::from_millis(100);

/// What a command does to the member it names: decides what a refusal for a
/// name no started member has tells the operator to do instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// `member promote --no-wait`, `joint enter --promote` (after waiting).
    Promote,
    /// `member remove`.
    Remove,
    /// `member update`.
    Update,
    /// `member joint enter --demote`.
    Demote,
    /// `member joint enter --remove`.
    JointRemove,
    /// `member move-leader`.
    MoveLeader,
    /// `member replace OLD`.
    Replace,
}

impl Purpose {
    /// What to run instead, for a member that has not started.
    fn instead(self, target: &str, unstarted: &[&Member]) -> String {
        let (id, which) = match unstarted {
            [one] => (one.id.to_string(), ""),
            _ => (
                "ID".to_string(),
                ", ID being one of the unstarted members below",
            ),
        };
        match self {
            Purpose::Promote => format!(
                "start it with the settings `member add` printed, then run `memberctl member \
                 promote {target}` without --no-wait, which waits for it to start and catch up"
            ),
            Purpose::Remove => format!("remove it by ID: `memberctl member remove {id}`{which}"),
            Purpose::Update => format!(
                "update it by ID: `memberctl member update {id} --peer-urls URL[,URL...]`{which}"
            ),
            Purpose::Demote => format!("name it by ID: `--demote {id}`{which}"),
            Purpose::JointRemove => format!("name it by ID: `--remove {id}`{which}"),
            Purpose::MoveLeader => {
                "only a started voter can lead: start the member, promote it, then move \
                 leadership to it"
                    .to_string()
            }
            Purpose::Replace => {
                format!(
                    "name it by ID: `memberctl member replace {id} --name NEW --peer-urls \
                     URL`{which}"
                )
            }
        }
    }
}

/// The member `target` names: an exact member name, else a hex ID. A name no
/// started member has is refused at once; when some members have not started
/// (etcd keeps no name for them) the refusal lists them, with what `purpose`
/// should run instead, and never guesses which one was meant.
pub fn resolve<'a>(
    list: &'a MemberList,
    target: &str,
    purpose: Purpose,
) -> Result<&'a Member, Error> {
    find(list, target)?.ok_or_else(|| unknown(list, target, purpose))
}

/// The members that have not started (published their name) yet.
fn unstarted(list: &MemberList) -> Vec<&Member> {
    list.members.iter().filter(|m| !m.started()).collect()
}

/// How a refusal lists the members that have not started.
fn listed(members: &[&Member]) -> Vec<Unstarted> {
    members
        .iter()
        .map(|m| Unstarted {
            id: m.id.to_string(),
            peer_urls: m.peer_urls.clone(),
            is_learner: m.is_learner,
        })
        .collect()
}

/// "8e9e… (peer URLs http://…)" for each member, for a one-line message.
fn inline(members: &[&Member]) -> String {
    members
        .iter()
        .map(|m| format!("{} (peer URLs {})", m.id, m.peer_urls.join(",")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `target` can only be an ID (or nothing), never a name to wait for.
fn never_a_name(target: &str) -> bool {
    (target.len() == 16 && target.parse::<MemberId>().is_ok()) || target.trim().is_empty()
}

/// The refusal for a name or ID no member has.
fn unknown(list: &MemberList, target: &str, purpose: Purpose) -> Error {
    let unstarted = unstarted(list);
    if unstarted.is_empty() || never_a_name(target) {
        return Error::refused(format!(
            "no member has the name or ID {}; run `memberctl member list` to see the members",
            quoted(target)
        ));
    }
    Error::refused(format!(
        "{} has not started: no started member has that name, and etcd keeps no name for a \
         member until it starts, so memberctl does not guess which unstarted member it is \
         ({} unstarted, listed below); {}",
        quoted(target),
        unstarted.len(),
        purpose.instead(target, &unstarted)
    ))
    .with_unstarted(listed(&unstarted))
}

/// The member list, read again until every one of `targets` (learners to
/// promote) names a member: a member publishes its name only once it runs and
/// has joined, so a promotion given the name a member was added under, right
/// after starting it, waits for the name (until `deadline`, telling the
/// observer what it waits for) instead of failing at the first look. A target
/// that names no member while every member has started, an unknown full
/// 16-digit ID, or an empty target fails at once, as [`resolve`] does.
pub async fn list_naming<A: MembershipApi>(
    api: &A,
    observer: &dyn Observer,
    targets: &[&str],
    deadline: Instant,
) -> Result<MemberList, Error> {
    let mut told = false;
    loop {
        let list = api.member_list().await?;
        let mut missing = None;
        for target in targets {
            if find(&list, target)?.is_none() {
                missing = Some(*target);
                break;
            }
        }
        let Some(target) = missing else {
            return Ok(list);
        };
        let waiting = unstarted(&list);
        if waiting.is_empty() || never_a_name(target) {
            return Err(unknown(&list, target, Purpose::Promote));
        }
        if Instant::now() + NAME_POLL > deadline {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "no member named {} has started within --timeout; start it with the \
                     settings `member add` printed, or name it by its hex ID",
                    quoted(target),
                ),
            )
            .with_unstarted(listed(&waiting)));
        }
        if !told {
            let left = deadline.saturating_duration_since(Instant::now());
            observer.notice(&format!(
                "waiting up to {} for {} to start: etcd learns a member's name only once it \
                 runs, so start it with the settings `member add` printed (unstarted: {})",
                humantime::format_duration(Duration::from_secs(left.as_secs().max(1))),
                quoted(target),
                inline(&waiting)
            ));
            told = true;
        }
        tokio::time::sleep(NAME_POLL).await;
    }
}

/// The member `target` names, `None` when no member has that name or ID, or
/// an error when the name is ambiguous.
fn find<'a>(list: &'a MemberList, target: &str) -> Result<Option<&'a Member>, Error> {
    let by_name: Vec<&Member> = list
        .members
        .iter()
        .filter(|m| !m.name.is_empty() && m.name == target)
        .collect();
    let by_id = target.parse::<MemberId>().ok().and_then(|id| list.get(id));
    match (by_name.as_slice(), by_id) {
        ([m], Some(other)) if m.id != other.id => Err(Error::usage(format!(
            "{} is both the name of member {} and the ID of member {}; \
             use the full 16-digit ID to choose",
            quoted(target),
            m.id,
            other.label()
        ))),
        ([m], _) => Ok(Some(m)),
        ([], by_id) => Ok(by_id),
        (many, _) => Err(Error::usage(format!(
            "{} members are named {}; use a member's hex ID instead",
            many.len(),
            quoted(target)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> MemberList {
        let m = |id: u64, name: &str| Member {
            id: MemberId(id),
            name: name.into(),
            ..Default::default()
        };
        MemberList::new(
            MemberId(7),
            vec![
                m(0xabc, "m1"),
                m(0x2, "m2"),
                m(0xdead, ""),
                m(0xbeef, "abc"),
            ],
        )
    }

    #[test]
    fn by_name_and_by_id() {
        let l = list();
        let r = |t| resolve(&l, t, Purpose::Remove).unwrap().id;
        assert_eq!(r("m1"), MemberId(0xabc));
        assert_eq!(r("000000000000dead"), MemberId(0xdead));
        assert_eq!(r("dead"), MemberId(0xdead));
    }

    #[test]
    fn unknown_and_ambiguous() {
        let l = list();
        let e = resolve(&l, "m9", Purpose::Remove).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Refused);
        let e = resolve(&l, "abc", Purpose::Remove).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Usage);
        let m = resolve(&l, "0000000000000abc", Purpose::Remove).unwrap();
        assert_eq!(m.name, "m1");
    }
}
