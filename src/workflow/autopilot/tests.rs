//! Unit tests of autopilot's `decide`, over observations made by hand.

use std::time::Duration;

use super::*;
use crate::model::{Configuration, MemberId, MemberList};
use crate::workflow::calc::autopilot::*;
use crate::workflow::prune::{Look, Seen};
use crate::workflow::tests::member;

const S: Duration = Duration::from_secs(1);

fn up(id: u64) -> Seen {
    Seen {
        id: MemberId(id),
        answered: true,
        applied: Some(100),
        leader_hears: Some(true),
        ..Default::default()
    }
}

fn down(id: u64, leader_hears: Option<bool>) -> Seen {
    Seen {
        id: MemberId(id),
        leader_hears,
        ..Default::default()
    }
}

/// Voters 1 (leader), 2, 3 and learner 4 ("s4"), seen as `seen` at `secs`.
fn obs(secs: u64, seen: Vec<Seen>) -> Observation {
    let list = MemberList::new(
        MemberId(0xc1),
        vec![
            member(1, "m1", false),
            member(2, "m2", false),
            member(3, "m3", false),
            member(4, "s4", true),
        ],
    );
    Observation {
        list,
        look: Look {
            at: S * secs as u32,
            leader: Some(MemberId(1)),
            leader_applied: Some(100),
            leader_last: Some(100),
            members: seen,
        },
        config: Some(Configuration {
            voters: vec![MemberId(1), MemberId(2), MemberId(3)],
            learners: vec![MemberId(4)],
            ..Default::default()
        }),
        intent: None,
    }
}

fn settings() -> Settings {
    Settings {
        dead_after: 3 * S,
        stable_for: 2 * S,
        stalled_for: 10 * S,
        ..Settings::default()
    }
}

/// Runs `decide` over each observation in turn; returns the last decision.
fn run(looks: &[Observation], settings: &Settings) -> Decision {
    let mut memory = Memory::default();
    let mut last = None;
    for o in looks {
        last = Some(decide(o, settings, &memory));
        memory.remember(o, settings);
    }
    last.unwrap()
}

fn all_up(secs: u64) -> Observation {
    obs(secs, vec![up(1), up(2), up(3), up(4)])
}

fn three_dead(secs: u64, hears: Option<bool>) -> Observation {
    obs(secs, vec![up(1), up(2), down(3, hears), up(4)])
}

#[test]
fn a_healthy_cluster_needs_nothing() {
    let d = run(&[all_up(0), all_up(1)], &settings());
    assert_eq!(d, Decision::none(Why::Healthy));
    assert!(d.sentence().starts_with("no action: every member answers"));
}

#[test]
fn a_dead_voter_is_replaced_by_the_ready_standby_after_dead_after() {
    let s = settings();
    let waiting = run(
        &[
            all_up(0),
            three_dead(1, Some(false)),
            three_dead(2, Some(false)),
        ],
        &s,
    );
    assert_eq!(waiting.action, Action::None);
    assert!(matches!(waiting.why, Why::Waiting { .. }), "{waiting:?}");
    assert_eq!(waiting.about.as_ref().map(|m| m.id), Some(MemberId(3)));
    let d = run(
        &[
            all_up(0),
            three_dead(1, Some(false)),
            three_dead(2, Some(false)),
            three_dead(4, Some(false)),
        ],
        &s,
    );
    assert_eq!(
        d.action,
        Action::Replace {
            dead: member(3, "m3", false),
            standby: member(4, "s4", true)
        }
    );
    assert_eq!(d.why, Why::Dead { for_: 3 * S });
    assert!(d.sentence().starts_with("replacing m3"), "{}", d.sentence());
}

#[test]
fn a_voter_the_leader_still_hears_is_never_touched_and_autopilot_says_why() {
    let s = Settings {
        cleanup_dead: true,
        ..settings()
    };
    for (hears, why) in [(Some(true), Why::LeaderHearsIt), (None, Why::LeaderUnknown)] {
        let looks: Vec<Observation> = (0..10).map(|t| three_dead(t, hears)).collect();
        let d = run(&looks, &s);
        assert_eq!(d.action, Action::None);
        assert_eq!(d.why, why);
        assert_eq!(d.about.map(|m| m.id), Some(MemberId(3)));
    }
}

#[test]
fn a_standby_must_be_ready_for_stable_for_and_named_when_standby_is_given() {
    // Ready only since the dead voter died: 1 s < --stable-for 2 s... at first.
    let lagging = |t| {
        let mut o = three_dead(t, Some(false));
        o.look.members[3].applied = Some(10);
        o
    };
    let s = settings();
    let d = run(&[lagging(0), lagging(1), three_dead(4, Some(false))], &s);
    assert_eq!(d.why, Why::NoStandby, "ready 0 s: {d:?}");
    let d = run(
        &[
            lagging(0),
            three_dead(1, Some(false)),
            three_dead(4, Some(false)),
        ],
        &s,
    );
    assert!(matches!(d.action, Action::Replace { .. }), "{d:?}");
    let named = Settings {
        standby: vec!["other".into()],
        ..settings()
    };
    let d = run(
        &[three_dead(0, Some(false)), three_dead(4, Some(false))],
        &named,
    );
    assert_eq!(d.why, Why::NoStandby);
}

#[test]
fn without_a_standby_a_dead_voter_goes_only_with_cleanup_dead_and_above_the_minimum() {
    let no_learner = |t| {
        let mut o = three_dead(t, Some(false));
        o.list.members.retain(|m| m.id != MemberId(4));
        o.look.members.retain(|m| m.id != MemberId(4));
        o
    };
    let looks = [no_learner(0), no_learner(5)];
    let d = run(&looks, &settings());
    assert_eq!(d.why, Why::NoStandby);
    // The server would refuse a learner's add now: not suggested; the
    // remove-first replacement is.
    let said = d.sentence();
    assert!(!said.contains("member add"), "{said}");
    assert!(said.contains("member replace DEAD"), "{said}");
    assert!(said.contains("before a"), "{said}");
    let cleanup = Settings {
        cleanup_dead: true,
        ..settings()
    };
    assert_eq!(
        run(&looks, &cleanup).why,
        Why::BelowMinimum {
            voters_after: 2,
            min: 3
        }
    );
    let below = run(&looks, &cleanup);
    assert!(
        below.sentence().contains("member replace DEAD"),
        "{below:?}"
    );
    assert!(!below.sentence().contains("add a standby"), "{below:?}");
    // A new member can be started (--start-standby): replaced remove-first.
    let local = Settings {
        start_standby: true,
        ..cleanup.clone()
    };
    let d = run(&looks, &local);
    assert_eq!(
        d.action,
        Action::RemoveDead {
            dead: member(3, "m3", false)
        }
    );
    assert!(
        matches!(
            d.why,
            Why::RemoveFirst {
                voters_after: 2,
                min: 3,
                ..
            }
        ),
        "{d:?}"
    );
    // A fourth voter: three remain.
    let four = |t| {
        let mut o = no_learner(t);
        o.list.members.push(member(5, "m5", false));
        o.look.members.push(up(5));
        o
    };
    let d = run(&[four(0), four(5)], &cleanup);
    assert_eq!(
        d.action,
        Action::RemoveDead {
            dead: member(3, "m3", false)
        }
    );
}

#[test]
fn no_action_without_quorum_during_an_election_or_in_a_joint_configuration() {
    let s = Settings {
        cleanup_dead: true,
        ..settings()
    };
    let mut lost = obs(5, vec![up(1), down(2, None), down(3, None), up(4)]);
    lost.list.unconfirmed = true;
    assert_eq!(run(&[lost.clone()], &s).why, Why::NoQuorum);
    lost.list.unconfirmed = false;
    lost.look.leader = None;
    assert_eq!(run(&[lost], &s).why, Why::NoQuorum);

    let mut moved = three_dead(5, Some(false));
    moved.look.leader = Some(MemberId(2));
    let d = run(&[three_dead(0, Some(false)), moved], &s);
    assert_eq!(
        d.why,
        Why::Election {
            from: Some(MemberId(1)),
            to: Some(MemberId(2))
        }
    );

    let mut joint = three_dead(5, Some(true));
    joint.config.as_mut().unwrap().voters_outgoing = vec![MemberId(1), MemberId(2), MemberId(3)];
    joint.config.as_mut().unwrap().voters = vec![MemberId(1), MemberId(2), MemberId(4)];
    assert_eq!(
        run(&[three_dead(0, Some(true)), joint.clone()], &s).why,
        Why::JointOpen,
        "the dropped voter is alive: not autopilot's"
    );
    // The same joint configuration with the dropped voter dead: an earlier
    // replacement's, finished.
    let mut resumed = joint;
    resumed.look.members[2].leader_hears = Some(false);
    let d = run(&[three_dead(0, Some(false)), resumed], &s);
    assert_eq!(
        d.action,
        Action::FinishReplace {
            dead: vec![member(3, "m3", false)]
        }
    );
}

#[test]
fn a_stalled_learner_is_pruned_once_watched_for_stalled_for() {
    let behind = |t| {
        let mut o = all_up(t);
        o.look.leader_applied = Some(100 + t * 10);
        o.look.members[3].applied = Some(50);
        o
    };
    let s = settings();
    assert_eq!(run(&[behind(0), behind(5)], &s).why, Why::Healthy);
    let d = run(&[behind(0), behind(5), behind(10)], &s);
    assert_eq!(
        d.action,
        Action::Prune {
            learner: member(4, "s4", true)
        }
    );
    assert_eq!(d.why.as_str(), "prune");
    // A moving learner stays.
    let moving = |t: u64| {
        let mut o = behind(t);
        o.look.members[3].applied = Some(50 + t);
        o
    };
    assert_eq!(
        run(&[moving(0), moving(5), moving(10)], &s).why,
        Why::Healthy
    );
}

#[test]
fn after_a_remove_first_replacement_a_standby_is_started_then_promoted() {
    let s = Settings {
        cleanup_dead: true,
        start_standby: true,
        ..settings()
    };
    // Two voters (the dead one removed), no learner: start a standby.
    let two = |t, learner: bool| {
        let mut o = all_up(t);
        o.list.members.retain(|m| m.id != MemberId(3));
        o.look.members.retain(|m| m.id != MemberId(3));
        if !learner {
            o.list.members.retain(|m| !m.is_learner);
            o.look.members.retain(|m| m.id != MemberId(4));
        }
        o
    };
    assert_eq!(run(&[two(0, false)], &s).action, Action::StartStandby);
    // The standby ready for --stable-for: promoted, back to three voters.
    let d = run(&[two(0, true), two(1, true), two(3, true)], &s);
    assert_eq!(
        d.action,
        Action::PromoteStandby {
            standby: member(4, "s4", true)
        }
    );
    assert_eq!(d.why, Why::Grow { voters: 2, min: 3 });
    assert_eq!(d.why.as_str(), "grow");
    // Not ready long enough yet, or without --cleanup-dead: nothing.
    assert_eq!(run(&[two(0, true)], &s).why, Why::Healthy);
    let plain = Settings {
        cleanup_dead: false,
        ..s.clone()
    };
    let looks = [two(0, true), two(1, true), two(3, true)];
    assert_eq!(run(&looks, &plain).why, Why::Healthy);
}

#[test]
fn start_standby_asks_for_a_learner_when_there_is_none() {
    let s = Settings {
        start_standby: true,
        ..settings()
    };
    assert_eq!(run(&[all_up(0)], &s).why, Why::Healthy, "one exists");
    let mut none = all_up(0);
    none.list.members.retain(|m| !m.is_learner);
    none.look.members.retain(|m| m.id != MemberId(4));
    assert_eq!(run(&[none], &s).action, Action::StartStandby);
}

#[test]
fn a_replacement_left_half_done_on_etcd_is_finished_from_its_intent() {
    // s4 already promoted, m3 dead and still listed: without the intent,
    // nothing to replace it with; with it, the replacement goes on.
    let promoted = |t| {
        let mut o = three_dead(t, Some(false));
        o.list.members[3].is_learner = false;
        o.config = None;
        o
    };
    let s = settings();
    assert_eq!(run(&[promoted(0), promoted(5)], &s).why, Why::NoStandby);
    let with_intent = |t| {
        let mut o = promoted(t);
        o.intent = parse_intent(&intent(MemberId(3), MemberId(4)));
        o
    };
    let d = run(&[with_intent(0)], &s);
    assert_eq!(d.why, Why::Resume);
    let mut standby = member(4, "s4", false);
    standby.is_learner = false;
    assert_eq!(
        d.action,
        Action::Replace {
            dead: member(3, "m3", false),
            standby
        }
    );
    // The dead voter answers again: left alone.
    let mut back = with_intent(0);
    back.look.members[2] = up(3);
    assert_eq!(run(&[back], &s).why, Why::Healthy);
    assert_eq!(parse_intent("replace 3"), None);
}

#[test]
fn a_dead_standby_is_pruned_after_dead_after_and_another_started() {
    // The server takes more learners than etcd's default (--skip-check learners).
    let s = Settings {
        start_standby: true,
        learner_limit: None,
        ..settings()
    };
    let standby_dead = |t| obs(t, vec![up(1), up(2), up(3), down(4, Some(false))]);
    // Dead, but not yet for --dead-after: a new standby is started beside it.
    let d = run(&[all_up(0), standby_dead(1), standby_dead(2)], &s);
    assert_eq!(d.action, Action::StartStandby, "{d:?}");
    // At etcd's default of one learner the server would refuse it: nothing
    // is tried until the dead one is pruned.
    let limited = Settings {
        learner_limit: Some(1),
        ..s.clone()
    };
    let d = run(&[all_up(0), standby_dead(1), standby_dead(2)], &limited);
    assert_eq!(d.action, Action::None, "{d:?}");
    assert_eq!(
        d.why,
        Why::LearnerLimit {
            learners: 1,
            limit: 1
        }
    );
    let d = run(
        &[all_up(0), standby_dead(1), standby_dead(2), standby_dead(4)],
        &limited,
    );
    assert!(matches!(d.action, Action::Prune { .. }), "{d:?}");
    // Dead for --dead-after (3 s), long before --stalled-for (10 s): pruned.
    let d = run(
        &[all_up(0), standby_dead(1), standby_dead(2), standby_dead(4)],
        &s,
    );
    assert_eq!(
        d.action,
        Action::Prune {
            learner: member(4, "s4", true)
        },
        "{d:?}"
    );
    // A standby the leader still hears is not dead: kept.
    let heard = |t| obs(t, vec![up(1), up(2), up(3), down(4, Some(true))]);
    let d = run(&[all_up(0), heard(1), heard(2), heard(5)], &s);
    assert_eq!(d.action, Action::None, "{d:?}");
}

#[test]
fn a_lease_ttl_shorter_than_two_looks_or_two_timeouts_is_warned_about() {
    let warn = |ttl, interval, timeout| lease_ttl_warning(ttl * S, interval * S, timeout * S);
    assert!(warn(10, 5, 2).is_none());
    assert!(warn(3, 5, 2).is_some());
    assert!(warn(3, 1, 2).is_some());
    assert!(warn(4, 1, 2).is_none());
}

#[test]
fn with_voters_a_ready_standby_brings_the_voters_back_after_a_removal() {
    // Three voters (a fourth was removed while no standby was ready) and
    // s4 ready for --stable-for: promoted with --voters 4, not without.
    let keep = Settings {
        voters: Some(4),
        ..settings()
    };
    let looks = [all_up(0), all_up(1), all_up(3)];
    let d = run(&looks, &keep);
    assert_eq!(
        d.action,
        Action::PromoteStandby {
            standby: member(4, "s4", true)
        },
        "{d:?}"
    );
    assert_eq!(d.why, Why::Grow { voters: 3, min: 4 });
    assert_eq!(run(&looks, &settings()).action, Action::None);
}
