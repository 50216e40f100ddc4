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
            peer_urls: PeerUrls::read(&[format!("http://10.0.0.{i}:2380")]),
        })
        .collect()
}

/// The plan, with every voter that does not answer dead (silent, and the
/// leader has lost it).
fn plan(
    list: &MemberList,
    target: &[TargetMember],
    reachable: &HashSet<MemberId>,
    leader: Option<MemberId>,
    engine: Option<&Engine>,
) -> ApplyPlan {
    let dead = list
        .voters()
        .filter(|m| !reachable.contains(&m.id))
        .map(|m| m.id)
        .collect();
    super::plan(list, target, reachable, &dead, leader, engine)
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
        None,
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
        None,
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
        None,
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
        None,
    );
    assert!(same.steps.is_empty());
    // A learner in the target is promoted; one that is not goes first; a
    // voter that does not answer goes before any other change.
    let mut t = target(&[1, 2, 4]);
    t[1].peer_urls = PeerUrls::read(&["http://10.0.0.22:2380"]);
    let p = plan(
        &list(&[1, 2, 3], &[4, 5]),
        &t,
        &all(&[1, 2, 4, 5]),
        Some(MemberId(1)),
        None,
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
        None,
    );
    assert!(needs_unreachable(&p).is_some(), "{:?}", shown(&p));
    // 2 → 1: fault tolerance is 0 either way; no warning, but no tolerance.
    let p = plan(
        &list(&[1, 2], &[]),
        &target(&[1]),
        &all(&[1, 2]),
        Some(MemberId(1)),
        None,
    );
    assert_eq!(shown(&p), ["remove n2 (0000000000000002) 1/1/0"]);
}

#[test]
fn an_unstarted_member_added_by_an_earlier_run_is_matched_by_its_urls() {
    let mut l = list(&[1, 2, 3], &[]);
    let mut added = member(4, true);
    added.name.clear();
    l.members.push(added);
    let p = plan(&l, &target(&[1, 2, 3, 4]), &all(&[1, 2, 3]), None, None);
    let s = shown(&p);
    assert_eq!(s, ["promote n4 (0000000000000004) 4/3/1"]);
}

#[test]
fn the_engine_adds_learners_then_makes_one_joint_change() {
    let engine = Some(Engine {
        joint: false,
        learner_limit: usize::MAX,
        caught_up: HashSet::new(),
    });
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[3, 4, 5]),
        &all(&[1, 2, 3]),
        Some(MemberId(1)),
        engine.as_ref(),
    );
    let s = shown(&p);
    assert_eq!(
        s[..4],
        [
            "add-learner n4 3/2/1",
            "catch-up n4 3/2/1",
            "add-learner n5 3/2/1",
            "catch-up n5 3/2/1"
        ],
        "{s:?}"
    );
    assert!(s[4].starts_with("joint-enter +n4 +n5 -n1 ("), "{s:?}");
    assert!(s[4].ends_with("3/2/1"), "{s:?}");
    assert_eq!(s[5], "joint-leave  3/2/1");
    assert_eq!(s.len(), 6);
    // One learner at a time: promoted in a joint change of its own first,
    // the removals wait for the last batch.
    let one = Some(Engine {
        joint: false,
        learner_limit: 1,
        caught_up: HashSet::new(),
    });
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[3, 4, 5]),
        &all(&[1, 2, 3]),
        None,
        one.as_ref(),
    );
    let actions: Vec<&str> = p.steps.iter().map(|s| s.action.name()).collect();
    assert_eq!(
        actions,
        [
            "add-learner",
            "catch-up",
            "joint-enter",
            "joint-leave",
            "add-learner",
            "catch-up",
            "joint-enter",
            "joint-leave"
        ]
    );
    assert_eq!(shown(&p)[2], "joint-enter +n4 4/3/1");
    assert!(
        p.steps.iter().all(|s| s.fault_tolerance_after >= 1),
        "{:?}",
        shown(&p)
    );
    // An open joint configuration is left first, and nothing else is planned yet.
    let open = Some(Engine {
        joint: true,
        learner_limit: 1,
        caught_up: HashSet::new(),
    });
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[1, 2]),
        &all(&[1, 2, 3]),
        None,
        open.as_ref(),
    );
    assert_eq!(p.steps.len(), 1);
    assert_eq!(p.steps[0].action, Action::JointLeave);
}

#[test]
fn a_move_to_new_hosts_on_the_engine_promotes_before_it_removes_the_leader() {
    let engine = Engine {
        joint: false,
        learner_limit: usize::MAX,
        caught_up: HashSet::from([MemberId(9)]),
    };
    let p = plan(
        &list(&[1, 2, 3], &[]),
        &target(&[4, 5, 6]),
        &all(&[1, 2, 3]),
        Some(MemberId(2)),
        Some(&engine),
    );
    let s = shown(&p);
    assert_eq!(s.len(), 10, "{s:?}");
    assert_eq!(s[6], "joint-enter +n4 +n5 +n6 6/2/1", "{s:?}");
    assert!(s[8].starts_with("joint-enter -n1 ("), "{s:?}");
    assert!(s[8].ends_with("3/2/1"), "{s:?}");
    assert_eq!(s[9], "joint-leave  3/2/1");
    // A learner already seen caught up is not waited for again.
    let mut l = list(&[1, 2, 3], &[9]);
    l.members[3].name = "n9".into();
    let p = plan(
        &l,
        &target(&[1, 2, 3, 9]),
        &all(&[1, 2, 3, 9]),
        None,
        Some(&engine),
    );
    assert!(
        shown(&p)[0].starts_with("joint-enter +n9 ("),
        "{:?}",
        shown(&p)
    );
}

#[test]
fn a_replan_after_a_promotion_removes_before_it_adds_again() {
    // A move to new hosts, one new member already in: the cluster is one
    // larger than the target, so the next step is a removal.
    let p = plan(
        &list(&[1, 2, 3, 4], &[]),
        &target(&[4, 5, 6]),
        &all(&[1, 2, 3, 4]),
        Some(MemberId(1)),
        None,
    );
    let s = shown(&p);
    assert!(s[0].starts_with("remove n2 ("), "{s:?}");
    assert!(s[0].ends_with("3/2/1"), "{s:?}");
    assert!(p.steps.iter().all(|s| s.voters_after <= 4), "{s:?}");
}
