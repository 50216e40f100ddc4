//! Unit tests of `member prune`: the judge over looks made by hand, and the
//! workflow against the fake (etcd's way and the engine's).

use super::*;
use crate::model::{MemberId, ServerMetrics};
use crate::workflow::fake::Fake;
use crate::workflow::tests::{cx, member};

const MS: Duration = Duration::from_millis(1);

/// A look at `ms` with the leader (1) at `leader_index` and `seen`.
fn look_at(ms: u64, leader_index: u64, seen: Vec<Seen>) -> Look {
    Look {
        at: MS * ms as u32,
        leader: Some(MemberId(1)),
        leader_applied: Some(leader_index),
        leader_last: Some(leader_index),
        members: seen,
    }
}

/// Member 9 answering at `applied`.
fn answering(applied: u64) -> Seen {
    Seen {
        id: MemberId(9),
        answered: true,
        applied: Some(applied),
        leader_hears: Some(true),
        ..Default::default()
    }
}

/// Member 9 not answering; the leader's view of it.
fn silent(leader_hears: Option<bool>) -> Seen {
    Seen {
        id: MemberId(9),
        leader_hears,
        ..Default::default()
    }
}

const WATCH: Rules = Rules {
    stalled_for: Duration::from_secs(2),
    dead_voters: false,
};

/// The verdict on member 9 (a learner unless `voter`) after `looks`.
fn verdict(m: Member, looks: &[Look], rules: Rules) -> Verdict {
    let list = MemberList::new(MemberId(0xc1), vec![member(1, "m1", false), m]);
    judge(&list, looks, rules).pop().unwrap().1
}

fn learner9() -> Member {
    member(9, "m9", true)
}

#[test]
fn a_learner_that_never_started_goes_without_watching() {
    let unstarted = Member {
        name: String::new(),
        ..learner9()
    };
    let zero = Rules {
        stalled_for: Duration::ZERO,
        ..WATCH
    };
    let once = [look_at(0, 100, vec![silent(Some(false))])];
    assert_eq!(
        verdict(unstarted, &once, zero),
        Verdict::Remove(Reason::NeverStarted)
    );
    // A started one is not judged without a window.
    let v = verdict(learner9(), &once, zero);
    assert_eq!(v, Verdict::Keep(Reason::NotWatched));
}

#[test]
fn a_learner_behind_whose_index_stands_still_is_stalled() {
    let looks = [
        look_at(0, 100, vec![answering(40)]),
        look_at(1000, 100, vec![answering(40)]),
        look_at(2000, 100, vec![answering(40)]),
    ];
    let v = verdict(learner9(), &looks, WATCH);
    assert_eq!(
        v,
        Verdict::Remove(Reason::Stalled {
            index: 40,
            leader_index: Some(100),
            watched: Duration::from_secs(2),
        })
    );
}

#[test]
fn an_idle_caught_up_learner_is_kept() {
    // Nothing written: neither the learner nor the leader moves.
    let looks = [
        look_at(0, 100, vec![answering(100)]),
        look_at(2000, 100, vec![answering(100)]),
    ];
    let v = verdict(learner9(), &looks, WATCH);
    assert_eq!(v, Verdict::Keep(Reason::CaughtUp { index: 100 }));
}

#[test]
fn a_learner_whose_index_moves_or_receives_a_snapshot_is_kept() {
    let looks = [
        look_at(0, 500, vec![answering(40)]),
        look_at(1000, 510, vec![answering(90)]),
        look_at(2000, 520, vec![answering(90)]),
    ];
    let v = verdict(learner9(), &looks, WATCH);
    assert_eq!(v, Verdict::Keep(Reason::Moving { from: 40, to: 90 }));
    let snapshot = Seen {
        snapshot: true,
        ..silent(Some(true))
    };
    let looks = [
        look_at(0, 500, vec![snapshot.clone()]),
        look_at(2000, 500, vec![silent(Some(true))]),
    ];
    let v = verdict(learner9(), &looks, WATCH);
    assert_eq!(v, Verdict::Keep(Reason::ReceivingSnapshot));
}

#[test]
fn a_silent_learner_goes_only_when_the_leader_does_not_hear_it_either() {
    let looks = |hears| {
        [
            look_at(0, 100, vec![silent(hears)]),
            look_at(2000, 100, vec![silent(hears)]),
        ]
    };
    assert_eq!(
        verdict(learner9(), &looks(Some(false)), WATCH),
        Verdict::Remove(Reason::Unreachable {
            watched: Duration::from_secs(2)
        })
    );
    assert_eq!(
        verdict(learner9(), &looks(None), WATCH),
        Verdict::Remove(Reason::Unreachable {
            watched: Duration::from_secs(2)
        })
    );
    // etcd's learner may hold its Status while it catches up: the leader hears it.
    assert_eq!(
        verdict(learner9(), &looks(Some(true)), WATCH),
        Verdict::Keep(Reason::NoIndex)
    );
    // The engine's match index for a learner that stopped at the leader's index.
    let dead_at_the_top = Seen {
        matched: Some(100),
        ..silent(Some(false))
    };
    let looks = [
        look_at(0, 100, vec![dead_at_the_top.clone()]),
        look_at(2000, 100, vec![dead_at_the_top]),
    ];
    assert!(matches!(
        verdict(learner9(), &looks, WATCH),
        Verdict::Remove(Reason::Unreachable { .. })
    ));
}

#[test]
fn a_voter_is_dead_only_when_silent_all_along_and_the_leader_lost_it() {
    let dead_voters = Rules {
        dead_voters: true,
        ..WATCH
    };
    let voter = || member(9, "m9", false);
    let silent_looks = |last| {
        [
            look_at(0, 100, vec![silent(Some(true))]),
            look_at(2000, 100, vec![silent(last)]),
        ]
    };
    assert_eq!(
        verdict(voter(), &silent_looks(Some(false)), WATCH),
        Verdict::Keep(Reason::Voter)
    );
    assert_eq!(
        verdict(voter(), &silent_looks(Some(false)), dead_voters),
        Verdict::Remove(Reason::Dead {
            watched: Duration::from_secs(2)
        })
    );
    assert_eq!(
        verdict(voter(), &silent_looks(Some(true)), dead_voters),
        Verdict::Keep(Reason::LeaderHearsIt)
    );
    let unknown = [
        look_at(0, 100, vec![silent(None)]),
        look_at(2000, 100, vec![silent(None)]),
    ];
    assert_eq!(
        verdict(voter(), &unknown, dead_voters),
        Verdict::Keep(Reason::LeaderUnknown)
    );
    // One answer in the window is enough to keep it.
    let once = [
        look_at(0, 100, vec![answering(100)]),
        look_at(2000, 100, vec![silent(Some(false))]),
    ];
    assert_eq!(
        verdict(voter(), &once, dead_voters),
        Verdict::Keep(Reason::Answers)
    );
}

#[test]
fn voters_are_removed_only_while_the_rest_can_lose_one() {
    assert_eq!(
        may_remove_voter(3, 3),
        Err(Reason::BelowMinimum {
            voters_after: 2,
            min: 3
        })
    );
    assert_eq!(may_remove_voter(4, 3), Ok(()));
    // --min-voters raises the minimum, never lowers it.
    assert_eq!(may_remove_voter(4, 1), Ok(()));
    assert_eq!(
        may_remove_voter(3, 1),
        Err(Reason::BelowMinimum {
            voters_after: 2,
            min: 3
        })
    );
    assert!(may_remove_voter(5, 5).is_err());
    assert_eq!(may_remove_voter(6, 5), Ok(()));
}

fn request(stalled_ms: u64) -> PruneRequest {
    PruneRequest {
        stalled_for: MS * stalled_ms as u32,
        poll_interval: MS * 5,
        dead_voters: false,
        min_voters: MIN_VOTERS,
        dry_run: false,
        timeout: Duration::from_secs(2),
        preflight: Preflight::default(),
    }
}

fn ids(members: &[PrunedMember]) -> Vec<u64> {
    members.iter().map(|p| p.member.id.0).collect()
}

#[tokio::test]
async fn zero_window_removes_only_learners_that_never_started() {
    // 8 never started; 9 started and stands still behind the leader.
    let fake = Fake::three()
        .with_learner(8, "", 0)
        .with_learner(9, "m9", 40);
    let done = prune(&cx(&fake), &request(0)).await.unwrap();
    assert_eq!(ids(&done.removed), vec![8]);
    assert_eq!(done.removed[0].reason, Reason::NeverStarted);
    assert!(done.list.get(MemberId(8)).is_none());
    assert!(done.list.get(MemberId(9)).is_some());
    assert_eq!(fake.calls(), vec!["remove"]);
}

#[tokio::test]
async fn a_stalled_learner_goes_a_moving_and_a_caught_up_one_stay() {
    // etcd's way: Status of each member, no progress.
    let fake = Fake::three().with_learner(9, "m9", 40);
    let done = prune(&cx(&fake), &request(30)).await.unwrap();
    assert!(done.watched >= MS * 30);
    assert_eq!(ids(&done.removed), vec![9]);
    assert!(matches!(
        done.removed[0].reason,
        Reason::Stalled { index: 40, .. }
    ));

    let fake = Fake::three().with_learner(9, "m9", 40);
    fake.state().gain = 1;
    let done = prune(&cx(&fake), &request(30)).await.unwrap();
    assert!(done.removed.is_empty(), "{:?}", done.removed);
    let kept = done.kept.iter().find(|k| k.member.id.0 == 9).unwrap();
    assert!(matches!(kept.reason, Reason::Moving { .. }), "{kept:?}");

    let fake = Fake::three().with_learner(9, "m9", 100);
    let done = prune(&cx(&fake), &request(30)).await.unwrap();
    assert!(done.removed.is_empty());
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn dry_run_lists_and_sends_nothing() {
    let fake = Fake::three()
        .with_learner(8, "", 0)
        .with_learner(9, "m9", 40);
    let mut req = request(20);
    req.dry_run = true;
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert!(done.dry_run);
    assert_eq!(ids(&done.removed), vec![8, 9]);
    assert_eq!(done.list.members.len(), 5);
    assert!(fake.calls().is_empty());
}

/// Fake::three with voter m4 added.
fn four_voters() -> Fake {
    let fake = Fake::three();
    {
        let mut s = fake.state();
        s.list.members.push(member(4, "m4", false));
        s.index.insert(MemberId(4), 100);
    }
    fake
}

#[tokio::test]
async fn a_dead_voter_goes_when_the_engine_leader_lost_it_and_three_remain() {
    let fake = four_voters();
    fake.state().progress = true;
    fake.state().down.insert(MemberId(4));
    let mut req = request(20);
    req.dead_voters = true;
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert_eq!(ids(&done.removed), vec![4]);
    assert!(matches!(done.removed[0].reason, Reason::Dead { .. }));
    assert!(done.refused.is_empty());
    assert_eq!(fake.calls(), vec!["remove"]);
    // Without --dead-voters it stays.
    let fake = four_voters();
    fake.state().progress = true;
    fake.state().down.insert(MemberId(4));
    let done = prune(&cx(&fake), &request(20)).await.unwrap();
    assert!(done.removed.is_empty());
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn a_dead_voter_of_three_is_refused_naming_the_minimum() {
    let fake = Fake::three();
    fake.state().progress = true;
    fake.state().down.insert(MemberId(3));
    let mut req = request(20);
    req.dead_voters = true;
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert!(done.removed.is_empty());
    assert_eq!(ids(&done.refused), vec![3]);
    let text = done.refused[0].reason.to_string();
    assert!(text.contains("minimum of 3"), "{text}");
    assert!(fake.calls().is_empty());
    // --min-voters 4 on four voters refuses too.
    let fake = four_voters();
    fake.state().progress = true;
    fake.state().down.insert(MemberId(4));
    req.min_voters = 4;
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert_eq!(ids(&done.refused), vec![4]);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn on_etcd_the_leader_agrees_through_its_active_peers() {
    let active = |peers: &[(u64, f64)]| ServerMetrics {
        active_peers: peers.iter().map(|&(p, v)| (MemberId(p), v)).collect(),
        ..Default::default()
    };
    let mut req = request(20);
    req.dead_voters = true;
    // m4 at 0: dead. Absent is the same.
    for peers in [
        &[(2, 1.0), (3, 1.0), (4, 0.0)][..],
        &[(2, 1.0), (3, 1.0)][..],
    ] {
        let fake = four_voters();
        fake.state().down.insert(MemberId(4));
        fake.state().metrics.insert(MemberId(1), active(peers));
        let done = prune(&cx(&fake), &req).await.unwrap();
        assert_eq!(ids(&done.removed), vec![4], "{peers:?}");
    }
    // The leader still hears it (only we cannot reach it): kept.
    let fake = four_voters();
    fake.state().down.insert(MemberId(4));
    let peers = [(2, 1.0), (3, 1.0), (4, 1.0)];
    fake.state().metrics.insert(MemberId(1), active(&peers));
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert!(done.removed.is_empty());
    let kept = done.kept.iter().find(|k| k.member.id.0 == 4).unwrap();
    assert_eq!(kept.reason, Reason::LeaderHearsIt);
    // No metrics at all: unknown, kept.
    let fake = four_voters();
    fake.state().down.insert(MemberId(4));
    let done = prune(&cx(&fake), &req).await.unwrap();
    assert!(done.removed.is_empty());
    assert!(fake.calls().is_empty());
}
