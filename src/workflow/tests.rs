//! Unit tests of the workflows against the in-memory fake: what is sent, what is refused, retries and waits.

use std::time::Duration;

use super::add::{add, AddOutcome, AddRequest};
use super::fake::Fake;
use super::leader::{move_leader, MoveRequest};
use super::preflight::Preflight;
use super::promote::{promote, PromoteRequest};
use super::remove::{remove, RemoveOutcome, RemoveRequest};
use super::{update, ApiError, ApiErrorKind, Ctx, Silent};
use crate::error::ErrorKind;
use crate::model::{Member, MemberId, PeerUrls};

/// A resolver under which every host resolves.
pub(super) fn resolves(_: &str, _: u16) -> bool {
    true
}

const T: Duration = Duration::from_secs(2);

/// The context the workflows run in here: silent, every host resolving, `T`
/// per request.
/// A member `id` named `name` on 10.0.0.`id` (peer port 2380, client 2379).
pub(crate) fn member(id: u64, name: &str, learner: bool) -> Member {
    Member {
        id: MemberId(id),
        name: name.into(),
        peer_urls: vec![format!("http://10.0.0.{id}:2380")],
        client_urls: vec![format!("http://10.0.0.{id}:2379")],
        is_learner: learner,
    }
}

pub(crate) fn cx<A>(api: &A) -> Ctx<'_, A> {
    Ctx {
        api,
        observer: &Silent,
        resolver: &resolves,
        command_timeout: T,
    }
}

fn learner_add(name: &str, url: &str) -> AddRequest {
    AddRequest {
        name: name.into(),
        peer_urls: PeerUrls::read(&[url]),
        learner: true,
        dry_run: false,
        preflight: Preflight::default(),
        window: None,
    }
}

/// Adds learner m4 on a free URL.
async fn add_m4(fake: &Fake) -> Result<AddOutcome, crate::Error> {
    let req = learner_add("m4", "http://127.0.0.1:2390");
    add(&cx(fake), &req).await
}

fn rm(target: &str, dry_run: bool, force: bool, command_timeout: Duration) -> RemoveRequest {
    RemoveRequest {
        target: target.into(),
        dry_run,
        force,
        timeout: command_timeout,
        preflight: Preflight::default(),
    }
}

fn update_req(target: &str, peer_urls: &[String]) -> update::UpdateRequest {
    update::UpdateRequest {
        target: target.into(),
        peer_urls: PeerUrls::read(peer_urls),
        preflight: Preflight::default(),
    }
}

fn promote_req(target: &str, wait: bool, timeout: Duration) -> PromoteRequest {
    PromoteRequest {
        target: target.into(),
        wait,
        timeout,
        poll_interval: Duration::from_millis(5),
        stable_for: Duration::ZERO,
        preflight: Preflight::default(),
    }
}

#[tokio::test]
async fn bad_urls_send_nothing() {
    let fake = Fake::three();
    let req = learner_add("m4", "http://127.0.0.1:2381");
    let err = add(&cx(&fake), &req).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert_eq!(err.problems.len(), 1);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn add_is_idempotent_for_an_unstarted_member() {
    let fake = Fake::three();
    let req = learner_add("m4", "http://127.0.0.1:2390");
    let AddOutcome::Added { added: first, .. } = add(&cx(&fake), &req).await.unwrap() else {
        panic!()
    };
    let AddOutcome::Added { added: second, .. } = add(&cx(&fake), &req).await.unwrap() else {
        panic!()
    };
    assert!(!first.already_added);
    assert!(second.already_added);
    assert_eq!(first.member.id, second.member.id);
    assert_eq!(fake.calls(), vec!["add"]);
    // The same endpoint written in a form rule 1 refuses is no re-add.
    for bad in [
        "http://127.0.0.1:2390#f",
        "http://127.0.0.1:2390 ",
        "HTTP://127.0.0.1:2390",
    ] {
        let req = learner_add("m4", bad);
        let err = add(&cx(&fake), &req).await.unwrap_err();
        assert!(err.message.contains("rule 1"), "{bad}: {}", err.message);
    }
    assert_eq!(fake.calls(), vec!["add"]);
    // Asking for a voter where a learner was added is refused.
    let voter = AddRequest {
        learner: false,
        ..req
    };
    let err = add(&cx(&fake), &voter).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert_eq!(fake.calls(), vec!["add"]);
}

/// The pre-flight checks passed knowingly by name.
fn skipping(check: crate::workflow::preflight::CheckName) -> Preflight {
    Preflight::Run(crate::workflow::preflight::CheckOptions {
        skip: vec![check],
        ..Default::default()
    })
}

#[tokio::test]
async fn an_add_with_a_voter_down_is_refused_before_it_is_sent() {
    let fake = Fake::three();
    fake.state().down.insert(MemberId(3));
    let voter = AddRequest {
        learner: false,
        ..learner_add("m4", "http://127.0.0.1:2390")
    };
    let err = add(&cx(&fake), &voter).await.unwrap_err();
    assert!(err.message.contains("rule 2"), "{}", err.message);
    assert!(fake.calls().is_empty());
    // A learner too: the server refuses it while a voter is down, so the
    // quorum check says so, with the remedy, and nothing is sent.
    let err = add_m4(&fake).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(
        err.message.contains("refuses every member add"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("memberctl member replace 0000000000000003"),
        "{}",
        err.message
    );
    assert!(fake.calls().is_empty());
    // The dry run says the same.
    let dry = AddRequest {
        dry_run: true,
        ..learner_add("m4", "http://127.0.0.1:2390")
    };
    assert_eq!(
        add(&cx(&fake), &dry).await.unwrap_err().kind,
        ErrorKind::Refused
    );
    // Passed knowingly (a server without the strict check), it is sent.
    let skipped = AddRequest {
        preflight: skipping(crate::workflow::preflight::CheckName::Quorum),
        ..learner_add("m4", "http://127.0.0.1:2390")
    };
    add(&cx(&fake), &skipped).await.unwrap();
    assert_eq!(fake.calls(), vec!["add"]);
}

#[tokio::test]
async fn unhealthy_is_retried_while_all_voters_answer() {
    let fake = Fake::three();
    let unhealthy = ApiError::new(ApiErrorKind::Unhealthy, "etcdserver: unhealthy cluster");
    fake.state()
        .add_errors
        .extend([unhealthy.clone(), unhealthy]);
    add_m4(&fake).await.unwrap();
    assert_eq!(fake.calls(), vec!["add", "add", "add"]);
}

#[tokio::test]
async fn unhealthy_with_a_voter_down_is_refused_at_once() {
    let fake = Fake::three();
    fake.state().down.insert(MemberId(3));
    let unhealthy = ApiError::new(ApiErrorKind::Unhealthy, "etcdserver: unhealthy cluster");
    fake.state().add_errors.push_back(unhealthy);
    let req = AddRequest {
        preflight: skipping(crate::workflow::preflight::CheckName::Quorum),
        ..learner_add("m4", "http://127.0.0.1:2390")
    };
    let err = add(&cx(&fake), &req).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.message.contains("m3"), "{}", err.message);
    assert!(
        err.message.contains("member replace DEAD"),
        "{}",
        err.message
    );
    assert_eq!(fake.calls(), vec!["add"]);
}

#[tokio::test]
async fn promote_waits_for_catch_up_then_promotes_once() {
    let fake = Fake::three().with_learner(9, "m9", 0);
    fake.state().gain = 30;
    let p = promote(&cx(&fake), &promote_req("m9", true, T))
        .await
        .unwrap();
    assert!(!p.member.is_learner);
    assert_eq!(fake.calls(), vec!["promote"]);
}

#[tokio::test]
async fn promote_retries_when_the_server_says_not_ready() {
    let fake = Fake::three().with_learner(9, "m9", 95);
    let not_ready = ApiError::new(ApiErrorKind::LearnerNotReady, "not in sync");
    fake.state().promote_errors.push_back(not_ready);
    let p = promote(&cx(&fake), &promote_req("m9", true, T))
        .await
        .unwrap();
    assert!(!p.member.is_learner);
    assert_eq!(fake.calls(), vec!["promote", "promote"]);
}

#[tokio::test]
async fn promote_times_out_when_the_learner_never_answers() {
    let fake = Fake::three().with_learner(9, "m9", 0);
    fake.state().down.insert(MemberId(9));
    let err = promote(
        &cx(&fake),
        &promote_req("m9", true, Duration::from_millis(50)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert!(err.message.contains("not started"), "{}", err.message);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn promote_no_wait_surfaces_not_ready_as_a_refusal() {
    let fake = Fake::three().with_learner(9, "m9", 0);
    let not_ready = ApiError::new(
        ApiErrorKind::LearnerNotReady,
        "etcdserver: can only promote a learner member which is in sync with leader",
    );
    fake.state().promote_errors.push_back(not_ready);
    let err = promote(&cx(&fake), &promote_req("m9", false, T))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.message.contains("without --no-wait"), "{}", err.message);
    let err = promote(&cx(&fake), &promote_req("m1", false, T))
        .await
        .unwrap_err();
    assert!(err.message.contains("already a voter"), "{}", err.message);
}

#[tokio::test]
async fn remove_into_quorum_loss_sends_nothing_unless_forced() {
    let fake = Fake::three();
    fake.state().down.insert(MemberId(3));
    let err = remove(&cx(&fake), &rm("m2", false, false, T))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    let plan = remove(&cx(&fake), &rm("m3", true, false, T)).await.unwrap();
    assert!(matches!(plan, RemoveOutcome::Plan { steps: ref p, .. } if p.len() == 2));
    assert!(fake.calls().is_empty());
    remove(&cx(&fake), &rm("m2", false, true, T)).await.unwrap();
    assert_eq!(fake.calls(), vec!["remove"]);
}

/// The member that took the removal stopped before answering (`server
/// stopped`), and the next member lists still show it: the removal is
/// confirmed by polling the list, not reported as failed (robustness tests
/// found this against etcd 3.4 when the leader was removed).
#[tokio::test]
async fn remove_confirms_a_lost_answer_from_the_member_list() {
    let fake = Fake::three();
    fake.state().lost_removal = Some(3);
    let out = remove(&cx(&fake), &rm("m2", false, false, T))
        .await
        .unwrap();
    let RemoveOutcome::Removed { removed, list, .. } = out else {
        panic!("not removed: {out:?}");
    };
    assert_eq!(removed.id, MemberId(2));
    assert!(list.get(MemberId(2)).is_none());
    assert_eq!(fake.calls(), vec!["remove"]);
    // A removal that did not happen stays an error once the time is up.
    let fake = Fake::three();
    fake.state().remove_errors.push_back(ApiError::new(
        ApiErrorKind::Unavailable,
        "etcdserver: server stopped",
    ));
    let err = remove(
        &cx(&fake),
        &rm("m2", false, false, Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable);
    assert!(fake.state().list.get(MemberId(2)).is_some());
}

#[tokio::test]
async fn update_validates_and_skips_a_no_op() {
    let fake = Fake::three();
    let same = vec!["http://127.0.0.1:2381".to_string()];
    let u = update::update(&cx(&fake), &update_req("m1", &same))
        .await
        .unwrap();
    assert!(u.unchanged);
    let taken = vec!["http://127.0.0.1:2382".to_string()];
    let err = update::update(&cx(&fake), &update_req("m1", &taken))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(fake.calls().is_empty());
    let new = vec!["http://127.0.0.1:2999".to_string()];
    let u = update::update(&cx(&fake), &update_req("m1", &new))
        .await
        .unwrap();
    assert_eq!(u.member.peer_urls, new);
    assert_eq!(fake.calls(), vec!["update"]);
}

#[tokio::test]
async fn changes_wait_for_a_reachable_leader_then_give_up() {
    let fake = Fake::three();
    fake.state().down.insert(MemberId(1)); // m1 is the leader the others name
    let err = remove(
        &cx(&fake),
        &rm("m1", false, false, Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable);
    assert!(
        err.message.contains("no reachable leader")
            && err.message.contains("`memberctl member status`"),
        "{}",
        err.message
    );
    assert!(fake.calls().is_empty());
    // Two of three down, the leader they name among them: perhaps lost.
    fake.state().down.insert(MemberId(2));
    let err = remove(
        &cx(&fake),
        &rm("m3", false, false, Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert!(
        err.message.contains("only 1 of 3 voters answer (m3")
            && err.message.contains("the quorum may be lost"),
        "{}",
        err.message
    );
    // No leader named: a lost quorum, said as such.
    fake.state().leader = MemberId(0);
    let err = remove(
        &cx(&fake),
        &rm("m3", false, false, Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unavailable);
    assert!(
        err.message
            .contains("lost its quorum: 1 of 3 voters answer (m3")
            && err.message.contains("`memberctl member status` shows"),
        "{}",
        err.message
    );
    assert!(fake.calls().is_empty());
    fake.state().down.remove(&MemberId(2));
    // Once a reachable member leads, the same removal goes through.
    fake.state().leader = MemberId(2);
    remove(&cx(&fake), &rm("m1", false, false, T))
        .await
        .unwrap();
    assert_eq!(fake.calls(), vec!["remove"]);
}

#[tokio::test]
async fn removing_the_leader_moves_leadership_to_the_most_caught_up_voter_first() {
    let fake = Fake::three();
    fake.state().index.insert(MemberId(2), 90);
    // A dry run shows the transfer step and sends nothing.
    let RemoveOutcome::Plan { steps: plan, .. } =
        remove(&cx(&fake), &rm("m1", true, false, T)).await.unwrap()
    else {
        panic!("no plan")
    };
    let steps: Vec<&str> = plan.iter().map(|s| s.step.as_str()).collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(
        steps[1].starts_with("move leadership from m1") && steps[1].contains("to m3"),
        "{steps:?}"
    );
    assert!(fake.calls().is_empty());
    // m3 has more of the log than m2, so m3 takes over; then m1 goes.
    let RemoveOutcome::Removed { moved, .. } = remove(&cx(&fake), &rm("m1", false, false, T))
        .await
        .unwrap()
    else {
        panic!("not removed")
    };
    let moved = moved.expect("a transfer");
    assert_eq!((moved.from.id, moved.to.id), (MemberId(1), MemberId(3)));
    assert_eq!(
        fake.calls(),
        vec!["move-leader 0000000000000003".to_string(), "remove".into()]
    );
    assert_eq!(fake.state().leader, MemberId(3));
}

#[tokio::test]
async fn a_failed_transfer_removes_nothing() {
    let fake = Fake::three();
    fake.state().move_errors.push_back(ApiError::new(
        ApiErrorKind::Unavailable,
        "etcdserver: request timed out, leader transfer took too long",
    ));
    let err = remove(&cx(&fake), &rm("m1", false, false, T))
        .await
        .unwrap_err();
    assert!(
        err.message.contains("nothing was changed") && err.message.contains("took too long"),
        "{}",
        err.message
    );
    assert_eq!(fake.calls(), vec!["move-leader 0000000000000002"]);
    assert_eq!(fake.state().list.members.len(), 3);
    // A follower is removed without any transfer.
    remove(&cx(&fake), &rm("m3", false, false, T))
        .await
        .unwrap();
    assert_eq!(fake.calls().last().unwrap(), "remove");
    assert_eq!(fake.calls().len(), 2);
}

#[tokio::test]
async fn move_leader_refuses_learners_and_unknown_members_and_picks_a_voter_by_default() {
    let fake = Fake::three().with_learner(9, "l9", 100);
    let req = |target: Option<&str>| MoveRequest {
        target: target.map(String::from),
        timeout: T,
    };
    let err = move_leader(&cx(&fake), &req(Some("l9"))).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.message.contains("learner"), "{}", err.message);
    let err = move_leader(&cx(&fake), &req(Some("m9"))).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    fake.state().down.insert(MemberId(3));
    let err = move_leader(&cx(&fake), &req(Some("m3"))).await.unwrap_err();
    assert!(err.message.contains("does not answer"), "{}", err.message);
    assert!(fake.calls().is_empty());
    let moved = move_leader(&cx(&fake), &req(None)).await.unwrap();
    assert_eq!(moved.to.id, MemberId(2));
    // To the member that leads: nothing to send.
    let moved = move_leader(&cx(&fake), &req(Some("m2"))).await.unwrap();
    assert_eq!(moved.from.id, moved.to.id);
    assert_eq!(fake.calls(), vec!["move-leader 0000000000000002"]);
}

#[tokio::test]
async fn a_name_not_published_yet_is_waited_for() {
    // m4 was added and is starting: it has no name yet.
    let fake = std::sync::Arc::new(Fake::three().with_learner(4, "", 100));
    let started = fake.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let mut s = started.state();
        let m = s
            .list
            .members
            .iter_mut()
            .find(|m| m.id == MemberId(4))
            .unwrap();
        m.name = "m4".into();
        m.client_urls = vec!["http://127.0.0.1:3390".into()];
    });
    let p = promote(&cx(&*fake), &promote_req("m4", true, T))
        .await
        .unwrap();
    assert_eq!(p.member.id, MemberId(4));
    assert_eq!(fake.calls(), vec!["promote"]);
    // A name no member has while every member has started fails at once.
    let err = promote(&cx(&*fake), &promote_req("m5", true, T))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    // A promotion that waits for a member that never starts ends at --timeout (exit 4).
    let fake = Fake::three().with_learner(5, "", 0);
    let err = promote(
        &cx(&fake),
        &promote_req("m5", true, Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert_eq!(err.unstarted[0].id, "0000000000000005");
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn a_name_no_started_member_has_is_refused_at_once_except_by_a_waiting_promote() {
    let fake = Fake::three().with_learner(5, "", 0).with_learner(6, "", 0);
    let long = Duration::from_secs(600);
    let at_once = |err: crate::Error, verb: &str| {
        assert_eq!(err.kind, ErrorKind::Refused, "{verb}: {}", err.message);
        assert!(
            err.message.contains("\"m5\" has not started"),
            "{}",
            err.message
        );
        assert!(err.message.contains("does not guess"), "{}", err.message);
        let ids: Vec<&str> = err.unstarted.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["0000000000000005", "0000000000000006"], "{verb}");
        assert_eq!(err.unstarted[0].peer_urls, ["http://127.0.0.1:2390"]);
        err.message
    };
    let begun = std::time::Instant::now();
    let err = remove(&cx(&fake), &rm("m5", false, false, long)).await;
    let message = at_once(err.unwrap_err(), "remove");
    assert!(
        message.contains("`memberctl member remove ID`"),
        "{message}"
    );
    let urls = vec!["http://127.0.0.1:2999".to_string()];
    let err = update::update(&cx(&fake), &update_req("m5", &urls)).await;
    let message = at_once(err.unwrap_err(), "update");
    assert!(message.contains("`memberctl member update ID"), "{message}");
    let err = promote(&cx(&fake), &promote_req("m5", false, long)).await;
    let message = at_once(err.unwrap_err(), "promote --no-wait");
    assert!(message.contains("without --no-wait"), "{message}");
    assert!(
        begun.elapsed() < Duration::from_secs(5),
        "{:?}",
        begun.elapsed()
    );
    assert!(fake.calls().is_empty());

    // With one unstarted member the refusal names the command to run.
    let fake = Fake::three().with_learner(5, "", 0);
    let err = remove(&cx(&fake), &rm("m5", false, false, long)).await;
    let err = err.unwrap_err();
    assert!(
        err.message
            .contains("`memberctl member remove 0000000000000005`"),
        "{}",
        err.message
    );
    // A name no member has while every member has started: no list to offer.
    let err = remove(&cx(&Fake::three()), &rm("m5", false, false, long)).await;
    let err = err.unwrap_err();
    assert!(
        err.message.contains("no member has the name"),
        "{}",
        err.message
    );
    assert!(err.unstarted.is_empty());
}

#[test]
fn a_ready_span_holds_only_without_a_break() {
    use super::catch_up::{CatchUpPhase, CatchUpSample, CatchUpState, ReadySpan};
    use tokio::time::Instant;
    let sample = |state| CatchUpSample {
        member: MemberId(9),
        label: "m9".into(),
        state,
        learner_index: Some(100),
        leader_index: Some(100),
        lag: Some(0),
        rate: None,
        progress_state: None,
        elapsed: Duration::ZERO,
        phase: CatchUpPhase::Ready,
        bytes_received: None,
        byte_rate: None,
        bytes_expected: None,
        time_left: None,
        ready_for: None,
        held_after_snapshot: false,
    };
    let ms = Duration::from_millis;
    let t0 = Instant::now();
    let mut span = ReadySpan::new(ms(30));
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0), CatchUpState::CatchingUp);
    assert_eq!(s.ready_for, Some((ms(0), ms(30))));
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0 + ms(20)), CatchUpState::CatchingUp);
    assert_eq!(s.ready_for, Some((ms(20), ms(30))));
    // A sample that is not ready breaks the span: it starts again.
    let mut s = sample(CatchUpState::Unreachable);
    assert_eq!(span.note(&mut s, t0 + ms(25)), CatchUpState::Unreachable);
    assert_eq!(s.ready_for, None);
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0 + ms(40)), CatchUpState::CatchingUp);
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0 + ms(60)), CatchUpState::CatchingUp);
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0 + ms(70)), CatchUpState::Ready);
    assert_eq!(s.ready_for, Some((ms(30), ms(30))));
    // So does a sample that could not be taken.
    span.reset();
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(span.note(&mut s, t0 + ms(80)), CatchUpState::CatchingUp);
    // Without --stable-for the first ready sample is enough, and not shown.
    let mut none = ReadySpan::new(Duration::ZERO);
    let mut s = sample(CatchUpState::Ready);
    assert_eq!(none.note(&mut s, t0), CatchUpState::Ready);
    assert_eq!(s.ready_for, None);
}

#[tokio::test]
async fn promote_with_stable_for_waits_that_long_after_ready() {
    let fake = Fake::three().with_learner(9, "m9", 100);
    let mut req = promote_req("m9", true, T);
    req.stable_for = Duration::from_millis(40);
    let p = promote(&cx(&fake), &req).await.unwrap();
    assert!(!p.member.is_learner);
    assert!(p.waited >= Duration::from_millis(40), "{:?}", p.waited);
    let phases = p.catch_up.unwrap().phases;
    let (phase, secs) = phases.last().copied().unwrap();
    assert_eq!(phase, super::catch_up::CatchUpPhase::Ready);
    assert!(secs >= 0.04, "{phases:?}");
    assert_eq!(fake.calls(), vec!["promote"]);
}

/// A catch-up sample reads the learner's own metrics; the leader's page
/// (the largest, on the member that carries the writes) only where the
/// leader's progress cannot say whether a snapshot is under way (etcd).
#[tokio::test]
async fn catch_up_reads_the_leaders_metrics_only_where_its_progress_is_not_served() {
    use super::catch_up::CatchUp;
    for progress in [true, false] {
        let fake = Fake::three().with_learner(9, "m9", 10);
        {
            let mut s = fake.state();
            s.progress = progress;
            for id in [1, 2, 3, 9] {
                s.metrics
                    .insert(MemberId(id), crate::model::ServerMetrics::default());
            }
        }
        let (sample, _) = CatchUp::new(MemberId(9)).sample(&fake).await.unwrap();
        assert_eq!(sample.learner_index, Some(10), "progress {progress}");
        let reads = fake.state().metrics_reads.clone();
        assert!(
            reads.contains(&MemberId(9)),
            "progress {progress}: {reads:?}"
        );
        assert_eq!(
            reads.contains(&MemberId(1)),
            !progress,
            "progress {progress}: {reads:?}"
        );
    }
}
