//! Unit tests of `member apply`'s plans.

use super::*;

fn member(id: u64, learner: bool) -> Member {
    Member {
        id: MemberId(id),
        name: format!("n{id}"),
        peer_urls: vec![format!("http://10.0.0.{id}:2380")],
        client_urls: vec![format!("http://10.0.0.{id}:2379")],
        is_learner: learner,
    }
}

fn list(voters: &[u64], learners: &[u64]) -> MemberList {
    let mut m: Vec<Member> = voters.iter().map(|&i| member(i, false)).collect();
    m.extend(learners.iter().map(|&i| member(i, true)));
    MemberList::new(MemberId(99), m)
}

fn target(ids: &[u64]) -> Vec<TargetMember> {
    ids.iter()
        .map(|&i| TargetMember {
            name: format!("n{i}"),
            peer_urls: vec![format!("http://10.0.0.{i}:2380")],
        })
        .collect()
}

fn all(ids: &[u64]) -> HashSet<MemberId> {
    ids.iter().map(|&i| MemberId(i)).collect()
}

/// The plan as "action member voters/quorum/ft" strings.
fn shown(p: &ApplyPlan) -> Vec<String> {
    p.steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {}/{}/{}",
                s.action.name(),
                s.action.member(),
                s.voters_after,
                s.quorum_after,
                s.fault_tolerance_after
            )
        })
        .collect()
}

#[test]
fn growing_3_to_5_adds_learners_then_promotes_each() {
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[1, 2, 3, 4, 5]),
        &all(&[1, 2, 3]),
        Some(MemberId(1)),
    );
    assert_eq!(
        shown(&p),
        [
            "add-learner n4 3/2/1",
            "promote n4 4/3/1",
            "add-learner n5 4/3/1",
            "promote n5 5/3/2",
        ]
    );
    assert_eq!((p.fault_tolerance_before, p.lowest_fault_tolerance), (1, 1));
    assert!(p.warning.is_none());
}

#[test]
fn shrinking_5_to_3_removes_the_leader_last_after_moving_leadership() {
    let p = plan(
        &list(&[1, 2, 3, 4, 5], &[]),
        &target(&[1, 2, 3]),
        &all(&[1, 2, 3, 4, 5]),
        Some(MemberId(4)),
    );
    let s = shown(&p);
    assert_eq!(s.len(), 3, "{s:?}");
    assert!(s[0].starts_with("remove n5 ("), "{s:?}");
    assert!(s[1].starts_with("move-leader n1 ("), "{s:?}");
    assert!(
        s[2].starts_with("remove n4 (") && s[2].ends_with("3/2/1"),
        "{s:?}"
    );
    assert_eq!(p.lowest_fault_tolerance, 1);
}

#[test]
fn moving_to_new_hosts_alternates_adds_and_removes() {
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[4, 5, 6]),
        &all(&[1, 2, 3]),
        Some(MemberId(1)),
    );
    let s = shown(&p);
    let actions: Vec<&str> = p.steps.iter().map(|s| s.action.name()).collect();
    assert_eq!(
        actions,
        [
            "add-learner",
            "promote",
            "remove",
            "add-learner",
            "promote",
            "remove",
            "add-learner",
            "promote",
            "move-leader",
            "remove"
        ],
        "{s:?}"
    );
    // The leader (n1) goes last, to a voter that stays and is already in.
    assert!(s[9].starts_with("remove n1 ("), "{s:?}");
    assert!(
        p.steps.iter().all(|s| s.fault_tolerance_after >= 1),
        "{s:?}"
    );
    assert!(p.steps.iter().all(|s| s.voters_after <= 4), "{s:?}");
}

#[test]
fn no_op_learners_updates_and_unreachable_members() {
    let same = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[1, 2, 3]),
        &all(&[1, 2, 3]),
        None,
    );
    assert!(same.steps.is_empty());
    // A learner in the target is promoted; one that is not goes first; a
    // voter that does not answer goes before any other change.
    let mut t = target(&[1, 2, 4]);
    t[1].peer_urls = vec!["http://10.0.0.22:2380".into()];
    let p = plan(
        &list(&[1, 2, 3], &[4, 5]),
        &t,
        &all(&[1, 2, 4, 5]),
        Some(MemberId(1)),
    );
    let s = shown(&p);
    assert!(s[0].starts_with("update n2 ("), "{s:?}");
    assert!(s[1].starts_with("remove n3 ("), "{s:?}");
    assert!(s[2].starts_with("remove n5 ("), "{s:?}");
    assert!(s[3].starts_with("promote n4 ("), "{s:?}");
    assert_eq!(s.len(), 4, "{s:?}");
    assert!(needs_unreachable(&p).is_none());
}

#[test]
fn a_plan_that_needs_an_unreachable_voter_is_found() {
    // Two of three voters are down: nothing can be decided.
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[1, 2, 3, 4]),
        &all(&[1]),
        None,
    );
    assert!(needs_unreachable(&p).is_some(), "{:?}", shown(&p));
    // 2 → 1: fault tolerance is 0 either way; no warning, but no tolerance.
    let p = plan(
        &list(&[1, 2], &[]),
        &target(&[1]),
        &all(&[1, 2]),
        Some(MemberId(1)),
    );
    assert_eq!(shown(&p), ["remove n2 (0000000000000002) 1/1/0"]);
}

#[test]
fn an_unstarted_member_added_by_an_earlier_run_is_matched_by_its_urls() {
    let mut l = list(&[1, 2, 3], &[]);
    let mut added = member(4, true);
    added.name.clear();
    l.members.push(added);
    let p = plan(&l, &target(&[1, 2, 3, 4]), &all(&[1, 2, 3]), None);
    let s = shown(&p);
    assert_eq!(s, ["promote n4 (0000000000000004) 4/3/1"]);
}
