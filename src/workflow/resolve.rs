//! Finds the member a command names, by name or by hex ID.

use crate::error::Error;
use crate::model::{Member, MemberId, MemberList};
use crate::workflow::validate::quoted;

/// The member `target` names: an exact member name, else a hex ID.
pub fn resolve<'a>(list: &'a MemberList, target: &str) -> Result<&'a Member, Error> {
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
        ([m], _) => Ok(m),
        ([], Some(m)) => Ok(m),
        ([], None) => {
            let unstarted: Vec<String> = list
                .members
                .iter()
                .filter(|m| !m.started())
                .map(|m| m.id.to_string())
                .collect();
            let hint = if unstarted.is_empty() {
                String::new()
            } else {
                format!(
                    " (a member has no name until it starts: unstarted {}; use the hex ID)",
                    unstarted.join(", ")
                )
            };
            Err(Error::refused(format!(
                "no member has the name or ID {}{hint}; run `memberctl member list` to see \
                 the members",
                quoted(target)
            )))
        }
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
