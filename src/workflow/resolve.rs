//! Finds the member a command names, by name or by hex ID, waiting for a name that a member has not published yet.

use std::time::Duration;

use tokio::time::Instant;

use super::{MembershipApi, Observer};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId, MemberList};
use crate::workflow::validate::quoted;

/// How often the member list is read again while waiting for a name.
const NAME_POLL: Duration = Duration::from_millis(100);

/// The member `target` names: an exact member name, else a hex ID.
pub fn resolve<'a>(list: &'a MemberList, target: &str) -> Result<&'a Member, Error> {
    find(list, target)?.ok_or_else(|| unknown(list, target))
}

/// The members that have not started (published their name) yet.
fn unstarted(list: &MemberList) -> Vec<String> {
    list.members
        .iter()
        .filter(|m| !m.started())
        .map(|m| m.id.to_string())
        .collect()
}

/// The refusal for a name or ID no member has.
fn unknown(list: &MemberList, target: &str) -> Error {
    let unstarted = unstarted(list);
    let hint = if unstarted.is_empty() {
        String::new()
    } else {
        format!(
            " (a member has no name until it starts: unstarted {}; use the hex ID)",
            unstarted.join(", ")
        )
    };
    Error::refused(format!(
        "no member has the name or ID {}{hint}; run `memberctl member list` to see \
         the members",
        quoted(target)
    ))
}

/// The member list, read again until every one of `targets` names a member:
/// a member publishes its name only once it runs and has joined, so a command
/// given the name a member was added under, right after starting it, waits
/// for the name (until `deadline`, telling the observer once) instead of
/// failing at the first look. A target that names no member while every
/// member has started, an unknown full 16-digit ID, or an empty target fails
/// at once, as [`resolve`] does.
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
        // A full 16-digit ID, or nothing at all, is never a name to wait for.
        let full_id = target.len() == 16 && target.parse::<MemberId>().is_ok();
        if waiting.is_empty() || full_id || target.trim().is_empty() {
            return Err(unknown(&list, target));
        }
        if Instant::now() + NAME_POLL > deadline {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "no member named {} has started within --timeout (unstarted: {}); start \
                     it with the settings `member add` printed, or name it by its hex ID",
                    quoted(target),
                    waiting.join(", ")
                ),
            ));
        }
        if !told {
            observer.notice(&format!(
                "waiting for {} to start (a member publishes its name once it runs; \
                 unstarted: {})",
                quoted(target),
                waiting.join(", ")
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
        assert_eq!(resolve(&l, "m1").unwrap().id, MemberId(0xabc));
        assert_eq!(
            resolve(&l, "000000000000dead").unwrap().id,
            MemberId(0xdead)
        );
        assert_eq!(resolve(&l, "dead").unwrap().id, MemberId(0xdead));
    }

    #[test]
    fn unknown_and_ambiguous() {
        let l = list();
        let e = resolve(&l, "m9").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Refused);
        let e = resolve(&l, "abc").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Usage);
        assert_eq!(resolve(&l, "0000000000000abc").unwrap().name, "m1");
    }
}
