//! Changes of several steps (replace, apply, joint enter) judged as one:
//! the pure rules, then the workflows against the fake, which refuse before
//! they send anything.

use std::time::Duration;

use super::*;
use crate::model::{AlarmKind, MemberList, PeerUrls};
use crate::workflow::apply::{self, ApplyRequest};
use crate::workflow::calc::apply_plan::TargetMember;
use crate::workflow::calc::order::First;
use crate::workflow::fake::Fake;
use crate::workflow::replace::{self, Prepared, ReplaceRequest};
use crate::workflow::start::Manual;
use crate::workflow::tests::cx;

fn alarm(f: &mut Facts, id: u64, kind: AlarmKind) {
    f.alarms = Ok(vec![Alarm {
        member_id: MemberId(id),
        kind,
    }]);
}

fn judged(f: &Facts, steps: &[Change], name: CheckName) -> Check {
    evaluate(f, steps)
        .into_iter()
        .find(|c| c.name == name)
        .unwrap()
}

fn removals(ids: &[u64]) -> Vec<Change> {
    ids.iter().map(|&i| Change::Remove(MemberId(i))).collect()
}

#[test]
fn nospace_fails_a_replacement_and_warns_a_plan_of_removals() {
    let mut f = facts();
    alarm(&mut f, 2, AlarmKind::NoSpace);
    let replacing3 = replacing(MemberId(3), None, First::Add);
    assert_eq!(
        judged(&f, &replacing3, CheckName::Alarms).verdict,
        Verdict::Fail
    );
    // Resumed after the add: the promotion still brings data to a new voter.
    let resumed = replacing(MemberId(3), Some((MemberId(4), true)), First::Add);
    assert_eq!(
        resumed,
        vec![Change::Promote(MemberId(4)), Change::Remove(MemberId(3))]
    );
    assert_eq!(
        judged(&f, &resumed, CheckName::Alarms).verdict,
        Verdict::Fail
    );
    let last = replacing(MemberId(3), Some((MemberId(4), false)), First::Add);
    assert_eq!(judged(&f, &last, CheckName::Alarms).verdict, Verdict::Warn);
    assert_eq!(
        judged(&f, &removals(&[2, 3]), CheckName::Alarms).verdict,
        Verdict::Warn
    );
}

#[test]
fn a_lost_quorum_is_judged_by_rule_4_only_for_removals() {
    let mut f = facts();
    for i in 1..3 {
        f.health.statuses[i] = Err(ApiError::new(ApiErrorKind::Unavailable, "down"));
    }
    assert_eq!(
        judged(&f, &removals(&[2, 3]), CheckName::Quorum).verdict,
        Verdict::Warn
    );
    assert_eq!(
        judged(
            &f,
            &replacing(MemberId(3), None, First::Add),
            CheckName::Quorum
        )
        .verdict,
        Verdict::Fail
    );
}

#[test]
fn replacing_the_corrupt_member_passes_unless_it_leads() {
    let mut f = facts();
    alarm(&mut f, 2, AlarmKind::Corrupt);
    assert_eq!(
        judged(
            &f,
            &replacing(MemberId(2), None, First::Add),
            CheckName::Alarms
        )
        .verdict,
        Verdict::Warn
    );
    assert_eq!(
        judged(
            &f,
            &replacing(MemberId(3), None, First::Add),
            CheckName::Alarms
        )
        .verdict,
        Verdict::Fail
    );
    // m1 leads: a new member would copy its data.
    alarm(&mut f, 1, AlarmKind::Corrupt);
    let c = judged(
        &f,
        &replacing(MemberId(1), None, First::Add),
        CheckName::Alarms,
    );
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.remedy.contains("member move-leader"), "{}", c.remedy);
    assert_eq!(
        judged(&f, &removals(&[1]), CheckName::Alarms).verdict,
        Verdict::Warn
    );
}

#[test]
fn a_learner_blocks_an_add_unless_the_change_promotes_or_removes_it() {
    let mut f = facts();
    f.health.list = MemberList::new(
        MemberId(9),
        (1..=3)
            .map(|i| member(i, false))
            .chain([member(4, true)])
            .collect(),
    );
    f.health.statuses.push(Ok(status(4, "3.5.17")));
    f.metrics.push(f.metrics[0].clone());
    let add = Change::Add { learner: true };
    let c = judged(
        &f,
        &replacing(MemberId(3), None, First::Add),
        CheckName::Learners,
    );
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.remedy.contains("member promote 0000000000000004"),
        "{}",
        c.remedy
    );
    for steps in [
        vec![Change::Promote(MemberId(4)), add, Change::PromoteNew],
        vec![Change::Remove(MemberId(4)), add],
        // Its own new learners a change promotes itself.
        vec![Change::Promote(MemberId(4)), add, Change::PromoteNew, add],
        // The engine's apply adds a batch, then promotes every learner at
        // once (it learns the server's limit from a refusal).
        vec![add, Change::Promote(MemberId(4)), Change::PromoteNew],
    ] {
        assert_eq!(
            judged(&f, &steps, CheckName::Learners).verdict,
            Verdict::Ok,
            "{steps:?}"
        );
    }
    assert_eq!(
        judged(
            &f,
            &[Change::Promote(MemberId(3)), add],
            CheckName::Learners
        )
        .verdict,
        Verdict::Fail
    );
}

fn replace_req(old: &str, preflight: Preflight) -> ReplaceRequest {
    ReplaceRequest {
        old: old.into(),
        name: "m4".into(),
        peer_urls: PeerUrls::read(&["http://127.0.0.1:2390"]),
        dry_run: false,
        timeout: Duration::from_secs(2),
        poll_interval: Duration::from_millis(5),
        preflight,
        only_dead: false,
    }
}

/// The refusal of the `alarms` check, with nothing sent to the fake.
fn refused_by_alarms(fake: &Fake, err: crate::Error) {
    assert_eq!(err.kind, crate::ErrorKind::Refused);
    assert!(
        err.message.contains("check alarms failed"),
        "{}",
        err.message
    );
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn replace_is_refused_before_its_add_and_a_skip_lets_it_through() {
    let fake = Fake::three().with_alarm(2, AlarmKind::NoSpace);
    let req = replace_req("m3", Preflight::default());
    let err = replace::prepare(&cx(&fake), &req).await;
    refused_by_alarms(&fake, err.unwrap_err());

    let req = replace_req(
        "m3",
        Preflight::Run(CheckOptions {
            skip: vec![CheckName::Alarms],
            ..Default::default()
        }),
    );
    let ready = replace::prepare(&cx(&fake), &req).await;
    assert!(matches!(ready, Ok(Prepared::Ready(_))), "{ready:?}");
    assert!(fake.calls().is_empty(), "prepare sends nothing");
}

fn apply_req(names: &[u64]) -> ApplyRequest {
    ApplyRequest {
        target: names
            .iter()
            .map(|&i| TargetMember {
                name: format!("m{i}"),
                peer_urls: PeerUrls::read(&[format!("http://127.0.0.1:{}", 2380 + i)]),
            })
            .collect(),
        dry_run: false,
        force: false,
        timeout: Duration::from_secs(2),
        poll_interval: Duration::from_millis(5),
        preflight: Preflight::default(),
    }
}

#[tokio::test]
async fn apply_checks_the_whole_plan_once_before_its_first_step() {
    let fake = Fake::three().with_alarm(1, AlarmKind::NoSpace);
    // Growing adds data: refused, nothing sent.
    let err = apply::run(&cx(&fake), &apply_req(&[1, 2, 3, 4]), &Manual).await;
    refused_by_alarms(&fake, err.unwrap_err());
    // Shrinking frees space: the alarm only warns.
    let done = apply::run(&cx(&fake), &apply_req(&[1, 2]), &Manual).await;
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(fake.calls(), vec!["remove"]);
}

/// No leader for a while (a removed leader, an election on a loaded
/// machine): the run looks at the cluster again, pausing longer each time,
/// and takes the step once the cluster answers; it is not given up after a
/// few quick tries.
#[tokio::test(start_paused = true)]
async fn apply_looks_past_a_cluster_without_a_leader_for_seconds() {
    let no_leader = || ApiError::new(ApiErrorKind::Unavailable, "etcdserver: no leader");
    let removals = |f: &Fake| f.calls().iter().filter(|c| *c == "remove").count();
    let fake = Fake::three();
    fake.state().remove_errors = (0..8).map(|_| no_leader()).collect();
    // A removal's lost answer is confirmed from the member list for a
    // --command-timeout; short here, so that the pacing is the run's own.
    let mut quick = cx(&fake);
    quick.command_timeout = Duration::from_millis(100);
    let started = tokio::time::Instant::now();
    let done = apply::run(&quick, &apply_req(&[1, 2]), &Manual).await;
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(removals(&fake), 9, "{:?}", fake.calls());
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(5), "paced: {took:?}");
    // Without an answer for longer than that, the run gives up: exit 5.
    let fake = Fake::three();
    fake.state().remove_errors = (0..100).map(|_| no_leader()).collect();
    let mut quick = cx(&fake);
    quick.command_timeout = Duration::from_millis(100);
    let err = apply::run(&quick, &apply_req(&[1, 2]), &Manual)
        .await
        .unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::Unavailable, "{err}");
    let tried = removals(&fake);
    assert!((10..30).contains(&tried), "{tried} removals tried");
}

/// The checks a change passed come back in its outcome, by value (the
/// report is built from them): a skip marked, a warning kept.
#[tokio::test]
async fn the_checks_passed_come_back_in_the_outcome() {
    let fake = Fake::three().with_alarm(2, AlarmKind::NoSpace);
    let skip_alarms = Preflight::Run(CheckOptions {
        skip: vec![CheckName::Alarms],
        ..Default::default()
    });
    let prepared = replace::prepare(&cx(&fake), &replace_req("m3", skip_alarms)).await;
    let Ok(Prepared::Ready(state)) = prepared else {
        panic!("{prepared:?}")
    };
    let alarms = state.checks.iter().find(|c| c.name == CheckName::Alarms);
    assert!(alarms.is_some_and(|c| c.skipped), "{:?}", state.checks);

    let fake = Fake::three().with_alarm(1, AlarmKind::NoSpace);
    let done = apply::run(&cx(&fake), &apply_req(&[1, 2]), &Manual).await;
    let Ok(apply::ApplyOutcome::Applied { checks, .. }) = done else {
        panic!("{done:?}")
    };
    let alarms = checks.iter().find(|c| c.name == CheckName::Alarms);
    assert!(
        alarms.is_some_and(|c| c.verdict == Verdict::Warn && !c.skipped),
        "{checks:?}"
    );
}

/// `n` voters (m1 leads) answering `release`, those in `down` not answering
/// (and not among the peers the leader's metrics show active: dead).
fn voters(n: u64, down: &[u64], release: &str) -> Facts {
    let mut f = facts();
    f.health.list = MemberList::new(MemberId(9), (1..=n).map(|i| member(i, false)).collect());
    f.health.statuses = (1..=n)
        .map(|i| match down.contains(&i) {
            true => Err(ApiError::new(ApiErrorKind::Unavailable, "down")),
            false => Ok(status(i, release)),
        })
        .collect();
    f.metrics = (1..=n).map(|_| f.metrics[0].clone()).collect();
    f.version = version(release, release);
    f
}

#[test]
fn an_add_with_a_voter_down_fails_where_the_server_refuses_it() {
    let add = [Change::Add { learner: true }];
    let quorum = |f: &Facts, steps: &[Change]| judged(f, steps, CheckName::Quorum);
    for release in ["3.4.23", "3.5.34", "3.6.15", "3.7.2"] {
        // 3 voters, one dead: every release refuses (measured).
        let c = quorum(&voters(3, &[3], release), &add);
        assert_eq!(c.verdict, Verdict::Fail, "{release}: {c:?}");
        assert!(
            c.detail.contains("refuses every member add"),
            "{}",
            c.detail
        );
        assert!(
            c.remedy
                .contains("memberctl member replace 0000000000000003 --name NEW"),
            "{}",
            c.remedy
        );
        assert_eq!(c.figures.get("connected_voters_at_add"), Some(2.0));
        // 5 voters, two dead: every release refuses.
        let c = quorum(&voters(5, &[4, 5], release), &add);
        assert_eq!(c.verdict, Verdict::Fail, "{release}: {c:?}");
        // 5 voters, one dead: 3.4 refuses, 3.5 and later accept.
        let c = quorum(&voters(5, &[5], release), &add);
        let want = match release {
            "3.4.23" => Verdict::Fail,
            _ => Verdict::Ok,
        };
        assert_eq!(c.verdict, want, "{release}: {c:?}");
        // Replacing the dead voter remove-first: the add comes after the
        // removal, with every voter left connected.
        let f = voters(3, &[3], release);
        let first = replacing(MemberId(3), None, First::Remove);
        assert_eq!(first[0], Change::Remove(MemberId(3)));
        assert_eq!(quorum(&f, &first).verdict, Verdict::Ok, "{release}");
        let last = replacing(MemberId(3), None, First::Add);
        assert_eq!(quorum(&f, &last).verdict, Verdict::Fail, "{release}");
        // Replacing another voter while m3 is dead: refused, whichever order.
        for first in [First::Remove, First::Add] {
            let other = replacing(MemberId(2), None, first);
            assert_eq!(quorum(&f, &other).verdict, Verdict::Fail, "{release}");
        }
    }
    // The engine (its progress answers) judges as etcd 3.4 does.
    let mut f = voters(5, &[5], "3.4.0");
    f.progress = Some(ProgressReport {
        leader: MemberId(1),
        ..Default::default()
    });
    let c = quorum(&f, &add);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert!(c.detail.contains("the memberctl engine"), "{}", c.detail);
    // All voters up: nothing to refuse.
    assert_eq!(quorum(&voters(3, &[], "3.4.23"), &add).verdict, Verdict::Ok);
}
