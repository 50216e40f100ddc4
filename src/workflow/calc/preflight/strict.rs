//! The server's strict reconfiguration check on a member add, predicted
//! before the add is sent (part of the `quorum` check): with a voter down,
//! etcd and the memberctl engine refuse the add — a learner's too — as
//! `unhealthy cluster`, so a plan never says ok to it. Pure.
//!
//! Measured (3, 4 and 5 voters with one killed, 5 with two; a learner's add
//! and a voter's alike): etcd 3.4, 3.5.0–3.5.29, 3.6.0–3.6.10 and the engine
//! refuse unless the member taking the add is connected to every voter;
//! 3.5.30, 3.6.11 and 3.7 (etcd#21640) unless it is connected to a quorum of
//! the voters plus the new member (3 voters with one down: refused on every
//! release; 4 or 5 with one down: accepted from 3.5.30/3.6.11); a cluster of
//! one voter takes an add on every release. In a cluster of mixed releases
//! the strictest rule among the members that answer is the one judged.

use std::time::Duration;

use super::checks::{new_check, read};
use super::upgrade::Release;
use super::{Change, Check, CheckName, Facts, Figures, Verdict};
use crate::model::MemberId;
use crate::workflow::calc::look::{self, Look};
use crate::workflow::calc::quorum::quorum;

/// How a server judges an add while a voter is down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AddRule {
    /// Every voter connected (etcd 3.4, 3.5 before 3.5.30, 3.6 before 3.6.11,
    /// the memberctl engine, and a server whose version could not be read).
    AllVoters,
    /// A quorum of the voters plus the new member connected, the new member
    /// counted as down (etcd 3.5.30, 3.6.11, 3.7 and later); a cluster of one
    /// voter takes an add (a learner's and a voter's).
    QuorumWithNew,
}

impl AddRule {
    /// Whether the add is refused with `connected` of `voters` voters connected.
    pub(super) fn refuses(self, voters: usize, connected: usize) -> bool {
        match self {
            AddRule::AllVoters => connected < voters,
            AddRule::QuorumWithNew => connected < self.needs(voters),
        }
    }

    /// How many connected voters it needs of `voters`.
    fn needs(self, voters: usize) -> usize {
        match self {
            AddRule::AllVoters => voters,
            AddRule::QuorumWithNew if voters <= 1 => voters,
            AddRule::QuorumWithNew => quorum(voters + 1),
        }
    }
}

/// The rule etcd `release` follows: every voter connected before etcd#21640
/// (3.4, 3.5.0–3.5.29, 3.6.0–3.6.10), a quorum with the new member from
/// 3.5.30, 3.6.11 and 3.7.0 (measured on 3.5.29/3.5.30 and 3.6.10/3.6.11).
fn add_rule(release: Release) -> AddRule {
    let first = match release.minor_version() {
        (3, m) if m <= 4 => return AddRule::AllVoters,
        (3, 5) => 30,
        (3, 6) => 11,
        _ => 0,
    };
    if release.patch >= first {
        AddRule::QuorumWithNew
    } else {
        AddRule::AllVoters
    }
}

/// The rule the server follows, and the server as a person reads it.
fn rule_of(facts: &Facts) -> (AddRule, String) {
    if facts.progress.is_some() {
        return (AddRule::AllVoters, "the memberctl engine".into());
    }
    // The add may reach any member: the strictest answering one decides.
    let mut releases: Vec<Release> = read(&facts.health)
        .filter_map(|(_, s)| Release::parse(&s.version))
        .collect();
    if releases.is_empty() {
        if let Some(Ok(v)) = &facts.version {
            releases.extend(Release::parse(&v.server));
        }
    }
    releases.sort_by_key(|r| (add_rule(*r) == AddRule::QuorumWithNew, *r));
    match releases.first() {
        Some(r) => (add_rule(*r), format!("etcd {r}")),
        None => (
            AddRule::AllVoters,
            "this server (its version could not be read; judged as etcd 3.4)".into(),
        ),
    }
}

/// The look the checks' facts make: who answers, whom the leader hears.
fn look_of(facts: &Facts) -> Look {
    let h = &facts.health;
    let leader_metrics = h.leader().and_then(|id| {
        let i = h.list.members.iter().position(|m| m.id == id)?;
        facts.metrics.get(i)?.as_ref().ok()
    });
    look::from_parts(h, facts.progress.as_ref(), leader_metrics, Duration::ZERO)
}

/// The refusal of the first add among `steps`, when the server will refuse
/// it: the voters at that point (after the removals and promotions before
/// it) that are not heard ([`look::Seen::heard`]) are down.
pub(super) fn add_refused(facts: &Facts, steps: &[Change]) -> Option<Check> {
    let at = steps.iter().position(|s| matches!(s, Change::Add { .. }))?;
    let h = &facts.health;
    let look = look_of(facts);
    // (member, connected) for each voter when the add is sent.
    let mut voters: Vec<(Option<MemberId>, bool)> = h
        .list
        .voters()
        .map(|m| (Some(m.id), look.seen(m.id).is_some_and(|s| s.heard())))
        .collect();
    for step in &steps[..at] {
        match step {
            Change::Remove(id) | Change::Demote(id) => voters.retain(|(v, _)| *v != Some(*id)),
            // A learner is promoted once it has caught up: connected.
            Change::Promote(id) => voters.push((Some(*id), true)),
            Change::PromoteNew => voters.push((None, true)),
            _ => {}
        }
    }
    let connected = voters.iter().filter(|(_, c)| *c).count();
    let (rule, server) = rule_of(facts);
    if !rule.refuses(voters.len(), connected) {
        return None;
    }
    let down: Vec<_> = voters
        .iter()
        .filter(|(_, c)| !*c)
        .filter_map(|(id, _)| h.list.get((*id)?))
        .collect();
    let labels: Vec<String> = down.iter().map(|m| m.label()).collect();
    let why = |id: MemberId| match look.seen(id).map(|s| s.dead()) {
        Some(true) => "answers nothing and the leader has lost it",
        _ => "answers nothing, and the leader's view of it could not be read",
    };
    let each: Vec<String> = down
        .iter()
        .map(|m| format!("{} {}", m.label(), why(m.id)))
        .collect();
    let removed_first = steps[..at].iter().any(|s| matches!(s, Change::Remove(_)));
    let mut f = Figures::default();
    f.number("voters_at_add", voters.len() as f64);
    f.number("connected_voters_at_add", connected as f64);
    f.number("connected_voters_needed", rule.needs(voters.len()) as f64);
    let needs = match rule {
        AddRule::AllVoters => "every voter connected".to_string(),
        AddRule::QuorumWithNew => format!(
            "{} of the {} voters connected (a quorum of them and the new member)",
            rule.needs(voters.len()),
            voters.len()
        ),
    };
    let first = down
        .first()
        .map_or("DEAD".to_string(), |m| m.id.to_string());
    let detail = format!(
        "{}{}: {server} refuses every member add — a learner's too — unless the member taking \
         it has had {needs} for the last 5 s (its strict reconfiguration check; etcd answers \
         `unhealthy cluster`), and {connected} of {} are",
        each.join(", "),
        if removed_first {
            " (after the removals planned before the add)"
        } else {
            ""
        },
        voters.len()
    );
    Some(
        new_check(CheckName::Quorum, Verdict::Fail, detail)
            .members(labels)
            .figures(f)
            .remedy(format!(
                "remove the dead member first: `memberctl member replace {first} --name NEW \
                 --peer-urls URL` removes it, then adds, starts and promotes the new member \
                 (removing a dead voter does not lower fault tolerance), or `memberctl member \
                 remove {first}` and then the add; or start the member again"
            )),
    )
}

#[cfg(test)]
mod tests {
    use super::{add_rule, AddRule, Release};

    #[test]
    fn each_release_has_its_rule() {
        let rule = |v| add_rule(Release::parse(v).unwrap());
        for v in ["3.4.23", "3.5.0", "3.5.29", "3.6.0", "3.6.10"] {
            assert_eq!(rule(v), AddRule::AllVoters, "{v}");
        }
        for v in [
            "3.5.30", "3.5.34", "3.6.11", "3.6.15", "3.7.0", "3.7.2", "3.8.0",
        ] {
            assert_eq!(rule(v), AddRule::QuorumWithNew, "{v}");
        }
    }

    #[test]
    fn the_rules_as_measured() {
        // 3 voters, one down: every release refuses.
        assert!(AddRule::AllVoters.refuses(3, 2));
        assert!(AddRule::QuorumWithNew.refuses(3, 2));
        // 5 voters, one down: etcd 3.4 and the engine refuse, 3.5.30+ accept.
        assert!(AddRule::AllVoters.refuses(5, 4));
        assert!(!AddRule::QuorumWithNew.refuses(5, 4));
        // 5 voters, two down: every release refuses.
        assert!(AddRule::QuorumWithNew.refuses(5, 3));
        // All up: accepted; one voter (a cluster restored from a snapshot,
        // or forced with --force-new-cluster) too.
        assert!(!AddRule::AllVoters.refuses(3, 3));
        assert!(!AddRule::QuorumWithNew.refuses(3, 3));
        assert!(!AddRule::AllVoters.refuses(1, 1));
        assert!(!AddRule::QuorumWithNew.refuses(1, 1));
        assert!(!AddRule::QuorumWithNew.refuses(2, 2));
    }
}
