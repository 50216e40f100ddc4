//! Which comes first when a member is replaced — removing the old one or
//! adding the new one — chosen from what the cluster shows (rule 4): a dead
//! voter ([`Seen::dead`]) is removed first, since every server memberctl
//! knows refuses each member add while a voter is down and removing a dead
//! voter never lowers fault tolerance; a live one is replaced add-first.
//! A standby that is a learner already replaces a dead voter in the
//! engine's one joint swap, and elsewhere after the dead voter's removal
//! (promoted first, a voter that came back before its removal would stay
//! beside it as an extra voter). Pure: `member replace`, its plan and its
//! pre-flight checks ask it.

use std::fmt;

use super::look::Seen;
use crate::model::Member;

/// Which step comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    /// Remove the old member, then add the new one as a learner, start it
    /// and promote it once it has caught up.
    Remove,
    /// Add the new member as a learner, start it, and once it has caught up
    /// promote it and remove the old one (on the memberctl engine in one
    /// joint change).
    Add,
}

impl First {
    /// The order's name in JSON: `remove_first`, `add_first`.
    pub fn as_str(self) -> &'static str {
        match self {
            First::Remove => "remove_first",
            First::Add => "add_first",
        }
    }

    /// The order as a person reads it: `remove first`, `add first`.
    pub fn words(self) -> &'static str {
        match self {
            First::Remove => "remove first",
            First::Add => "add first",
        }
    }
}

/// The order of a replacement and the rule that chose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    /// Which step comes first.
    pub first: First,
    /// Why, in a sentence: what the cluster showed and the rule it met.
    pub rule: String,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.first.words(), self.rule)
    }
}

/// The order of replacing `old`, as one look `seen` it, with the member
/// named `name`; `new`: that member when it exists already (an earlier run
/// or a standby added it); `swap`: whether the server swaps them in one
/// joint change (the engine).
pub fn decide(
    old: &Member,
    seen: Option<&Seen>,
    name: &str,
    new: Option<&Member>,
    swap: bool,
) -> Order {
    let old_label = old.label();
    let dead = seen.is_some_and(Seen::dead);
    if let Some(n) = new.filter(|n| n.is_learner && dead && !old.is_learner && !swap) {
        return Order {
            first: First::Remove,
            rule: format!(
                "{old_label} is dead: it answers nothing and the leader has lost it too, and {} \
                 is a learner already; removing a dead voter does not lower fault tolerance, \
                 and the server has no joint swap: {old_label} is removed first, then {name} \
                 promoted (promoted first, {old_label} coming back before its removal would \
                 stay beside {name} as one voter too many)",
                n.label()
            ),
        };
    }
    if let Some(n) = new {
        let role = if n.is_learner { "a learner" } else { "a voter" };
        return Order {
            first: First::Add,
            rule: format!(
                "{name} is {role} already (an earlier run, or a standby, added it): nothing is \
                 left to add, so {name} is promoted before {old_label} goes"
            ),
        };
    }
    let Some(seen) = seen else {
        return Order {
            first: First::Add,
            rule: format!(
                "{old_label} was not looked at: not taken for dead, so {name} is added first"
            ),
        };
    };
    if seen.dead() {
        let why = if old.is_learner {
            "removing it first frees its learner slot"
        } else {
            "with a voter down the server refuses a member add, a learner's too (every etcd \
             release and the engine with three voters; etcd before 3.5.30 and 3.6.11, and the \
             engine, with any number), and removing a dead voter does not lower fault tolerance \
             (it tolerates nothing while it is down)"
        };
        return Order {
            first: First::Remove,
            rule: format!(
                "{old_label} is dead: it answers nothing and the leader has lost it too; {why}: \
                 it is removed, then {name} added as a learner, started, and promoted once it \
                 has caught up"
            ),
        };
    }
    let state = match (seen.answered, seen.leader_hears) {
        (true, _) => format!("{old_label} answers"),
        (false, Some(true)) => {
            format!("{old_label} does not answer memberctl, but the leader still hears it")
        }
        (false, _) => format!(
            "{old_label} does not answer, and whether the leader has lost it could not be read \
             (not taken for dead; if the server refuses the add, remove it first: `memberctl \
             member remove {}`)",
            old.id
        ),
    };
    Order {
        first: First::Add,
        rule: format!(
            "{state}: {name} is added as a learner and caught up before {old_label} goes, so \
             the cluster never has fewer voters than now"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemberId;

    fn old() -> Member {
        Member {
            id: MemberId(3),
            name: "m3".into(),
            ..Default::default()
        }
    }

    fn seen(answered: bool, leader_hears: Option<bool>) -> Seen {
        Seen {
            id: MemberId(3),
            answered,
            leader_hears,
            ..Default::default()
        }
    }

    #[test]
    fn a_dead_voter_goes_first_and_a_live_one_last() {
        let dead = decide(&old(), Some(&seen(false, Some(false))), "m4", None, false);
        assert_eq!(dead.first, First::Remove);
        assert!(dead.rule.contains("dead"), "{}", dead.rule);
        assert!(dead.rule.contains("refuses a member add"), "{}", dead.rule);
        for (answered, hears) in [(true, Some(true)), (false, Some(true)), (false, None)] {
            let o = decide(&old(), Some(&seen(answered, hears)), "m4", None, false);
            assert_eq!(o.first, First::Add, "{answered} {hears:?}: {}", o.rule);
        }
        let unknown = decide(&old(), Some(&seen(false, None)), "m4", None, false);
        assert!(
            unknown.rule.contains("could not be read"),
            "{}",
            unknown.rule
        );
        assert_eq!(decide(&old(), None, "m4", None, false).first, First::Add);
    }

    fn standby() -> Member {
        Member {
            id: MemberId(4),
            name: "m4".into(),
            is_learner: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_new_member_that_exists_is_promoted_before_a_live_old_one_goes() {
        let standby = standby();
        for swap in [false, true] {
            let o = decide(
                &old(),
                Some(&seen(true, Some(true))),
                "m4",
                Some(&standby),
                swap,
            );
            assert_eq!(o.first, First::Add);
            assert!(o.rule.contains("a learner already"), "{}", o.rule);
        }
        // The engine swaps a dead one for it in one joint change.
        let o = decide(
            &old(),
            Some(&seen(false, Some(false))),
            "m4",
            Some(&standby),
            true,
        );
        assert_eq!(o.first, First::Add);
        assert_eq!(First::Remove.as_str(), "remove_first");
        assert_eq!(First::Add.as_str(), "add_first");
    }

    #[test]
    fn a_dead_voter_goes_before_a_standby_is_promoted_without_a_joint_swap() {
        let o = decide(
            &old(),
            Some(&seen(false, Some(false))),
            "m4",
            Some(&standby()),
            false,
        );
        assert_eq!(o.first, First::Remove, "{}", o.rule);
        assert!(o.rule.contains("one voter too many"), "{}", o.rule);
        // A voter already: nothing is left to promote.
        let voter = Member {
            is_learner: false,
            ..standby()
        };
        let o = decide(
            &old(),
            Some(&seen(false, Some(false))),
            "m4",
            Some(&voter),
            false,
        );
        assert_eq!(o.first, First::Add, "{}", o.rule);
    }
}
