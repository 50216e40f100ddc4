//! Unit tests of `member replace` against the fake: the order it chooses
//! from what the cluster shows, that a run takes the steps its `--dry-run`
//! plan shows, and that a rerun after an interruption finishes.

use std::time::Duration;

use super::*;
use crate::model::MemberId;
use crate::workflow::fake::Fake;
use crate::workflow::start::{StartMember, Starting};
use crate::workflow::tests::cx;
use crate::workflow::Observer;

/// Starts a new member in the fake: it publishes its name and client URL.
struct FakeStart<'a>(&'a Fake);

impl StartMember for FakeStart<'_> {
    async fn start(&self, new: &Starting<'_>, _: &dyn Observer) -> Result<(), Error> {
        let mut s = self.0.state();
        s.calls.push(format!("start {}", new.name));
        if let Some(m) = s.list.members.iter_mut().find(|m| m.id == new.member.id) {
            m.name = new.name.to_string();
            m.client_urls = vec!["http://127.0.0.1:3390".into()];
        }
        // It catches up at once.
        let caught_up = s.leader_index;
        s.index.insert(new.member.id, caught_up);
        Ok(())
    }
}

const NEW_URL: &str = "http://127.0.0.1:2390";

fn req(old: &str, dry_run: bool) -> ReplaceRequest {
    ReplaceRequest {
        old: old.into(),
        name: "m4".into(),
        peer_urls: PeerUrls::read(&[NEW_URL]),
        dry_run,
        timeout: Duration::from_secs(2),
        poll_interval: Duration::from_millis(5),
        preflight: Preflight::default(),
        only_dead: false,
    }
}

/// Three voters; m3 dead (down, and the leader's progress shows it lost),
/// the server refusing every add while it is listed, as etcd does.
fn dead_m3() -> Fake {
    let fake = Fake::three();
    {
        let mut s = fake.state();
        s.down.insert(MemberId(3));
        s.progress = true;
        s.strict_adds = true;
        s.gain = 100;
    }
    fake
}

async fn dry_run(fake: &Fake, old: &str) -> Plan {
    match run(&cx(fake), &req(old, true), &FakeStart(fake)).await {
        Ok(ReplaceOutcome::Plan { plan, .. }) => plan,
        other => panic!("{other:?}"),
    }
}

async fn replaced(fake: &Fake, old: &str) -> Replaced {
    match run(&cx(fake), &req(old, false), &FakeStart(fake)).await {
        Ok(ReplaceOutcome::Replaced { replaced, .. }) => *replaced,
        other => panic!("{other:?}"),
    }
}

/// The plan's steps after "before", by name.
fn names(plan: &Plan) -> Vec<String> {
    plan.steps[1..].iter().map(|s| s.step.clone()).collect()
}

fn changes(fake: &Fake) -> Vec<String> {
    fake.calls()
        .into_iter()
        .filter(|c| !c.starts_with("put "))
        .collect()
}

#[tokio::test]
async fn a_dead_voter_is_removed_first_and_the_run_takes_the_plan() {
    let fake = dead_m3();
    let plan = dry_run(&fake, "m3").await;
    let order = plan.order.clone().unwrap();
    assert_eq!(order.first, First::Remove, "{}", order.rule);
    assert!(order.rule.contains("dead"), "{}", order.rule);
    assert_eq!(
        names(&plan),
        [
            "after removing m3 (0000000000000003)",
            "after adding m4 as a learner",
            "after promoting m4"
        ]
    );
    // Quorum 2 and fault tolerance 0 before and after the removal: the dead
    // voter tolerated nothing.
    let q_ft: Vec<(usize, usize)> = plan
        .steps
        .iter()
        .map(|s| (s.quorum, s.fault_tolerance))
        .collect();
    assert_eq!(q_ft, [(2, 0), (2, 0), (2, 0), (2, 1)]);
    assert!(
        fake.calls().is_empty(),
        "the dry run sent {:?}",
        fake.calls()
    );

    let done = replaced(&fake, "m3").await;
    assert_eq!(done.steps, names(&plan));
    assert_eq!(done.order, Some(order));
    assert_eq!(changes(&fake), ["remove", "add", "start m4", "promote"]);
    // The intent was recorded before the removal and deleted at the end.
    assert_eq!(fake.calls()[0], format!("put {INTENT}"));
    assert!(fake.state().keys.is_empty());
    let list = fake.state().list.clone();
    assert_eq!(list.voters().count(), 3);
    assert!(list.get(MemberId(3)).is_none());
    assert_eq!(done.member.name, "m4");
    assert!(done.member.is_voter());
}

#[tokio::test]
async fn a_live_voter_is_replaced_add_first() {
    let fake = Fake::three();
    fake.state().gain = 100;
    let plan = dry_run(&fake, "m3").await;
    assert_eq!(plan.order.as_ref().unwrap().first, First::Add);
    assert_eq!(
        names(&plan),
        [
            "after adding m4 as a learner",
            "after promoting m4",
            "after removing m3 (0000000000000003)"
        ]
    );
    let done = replaced(&fake, "m3").await;
    assert_eq!(done.steps, names(&plan));
    assert_eq!(changes(&fake), ["add", "start m4", "promote", "remove"]);
    assert!(fake.state().keys.is_empty(), "no intent for add-first");
}

#[tokio::test]
async fn a_rerun_after_the_removal_adds_the_recorded_new_member_once() {
    let fake = dead_m3();
    // An earlier run recorded its intent, removed m3 and was killed.
    let m3 = fake.state().list.get(MemberId(3)).cloned().unwrap();
    let intent = serde_json::to_string(&Intent::of(&m3, &req("m3", false))).unwrap();
    {
        let mut s = fake.state();
        s.keys.insert(INTENT.into(), intent);
        s.list.members.retain(|m| m.id != MemberId(3));
        s.down.clear();
    }
    let plan = dry_run(&fake, "m3").await;
    assert_eq!(
        names(&plan),
        ["after adding m4 as a learner", "after promoting m4"]
    );
    let done = replaced(&fake, "m3").await;
    assert_eq!(done.steps, names(&plan));
    assert_eq!(changes(&fake), ["add", "start m4", "promote"]);
    assert_eq!(done.removed.id, MemberId(3));
    assert_eq!(fake.state().list.voters().count(), 3);
    // Run again: nothing left, nothing sent, no second new member.
    let again = replaced(&fake, "m3").await;
    assert!(again.steps.is_empty());
    assert_eq!(changes(&fake), ["add", "start m4", "promote"]);
}

#[tokio::test]
async fn a_rerun_after_the_add_promotes_the_new_member_it_finds() {
    let fake = dead_m3();
    {
        let mut s = fake.state();
        s.list.members.retain(|m| m.id != MemberId(3));
        s.down.clear();
    }
    // Killed right after the add: m4 is an unstarted learner, no intent.
    fake.state().list.members.push(Member {
        id: MemberId(0x200),
        peer_urls: vec![NEW_URL.into()],
        is_learner: true,
        ..Default::default()
    });
    let done = replaced(&fake, "m3").await;
    assert_eq!(done.steps, ["after promoting m4"]);
    assert_eq!(changes(&fake), ["start m4", "promote"]);
    assert_eq!(fake.state().list.members.len(), 3);
}

#[tokio::test]
async fn a_gone_member_with_no_record_and_no_new_member_adds_nothing() {
    let fake = Fake::three();
    let err = run(&cx(&fake), &req("m9", false), &FakeStart(&fake))
        .await
        .unwrap_err();
    assert!(err.message.contains(INTENT), "{}", err.message);
    assert!(changes(&fake).is_empty());
    // An intent for another replacement does not count.
    let m3 = fake.state().list.get(MemberId(3)).cloned().unwrap();
    let mut other = Intent::of(&m3, &req("m3", false));
    other.name = "m5".into();
    fake.state()
        .keys
        .insert(INTENT.into(), serde_json::to_string(&other).unwrap());
    fake.state().list.members.retain(|m| m.id != MemberId(3));
    let err = run(&cx(&fake), &req("m3", false), &FakeStart(&fake))
        .await
        .unwrap_err();
    assert!(err.message.contains("nothing is added"), "{}", err.message);
    assert!(changes(&fake).is_empty());
}

#[tokio::test]
async fn a_silent_voter_the_leader_may_still_hear_is_not_taken_for_dead() {
    // m3 does not answer; the leader's view cannot be read (etcd without
    // metrics): add-first, and the pre-flight check says the server will
    // refuse that add, before anything is sent.
    let fake = Fake::three();
    fake.state().down.insert(MemberId(3));
    let err = run(&cx(&fake), &req("m3", true), &FakeStart(&fake))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused, "{}", err.message);
    assert!(
        err.message.contains("check quorum failed"),
        "{}",
        err.message
    );
    assert!(err.message.contains("member replace"), "{}", err.message);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn a_standby_that_exists_is_promoted_once_the_dead_voter_is_gone() {
    // etcd has no joint swap: promoted first, a dead voter that came back
    // before its removal would stay beside the standby as a sixth voter.
    let fake = dead_m3().with_learner(4, "m4", 100);
    fake.state().list.members[3].peer_urls = vec![NEW_URL.into()];
    let done = replaced(&fake, "m3").await;
    assert_eq!(done.order.as_ref().unwrap().first, First::Remove);
    assert_eq!(changes(&fake), ["remove", "promote"]);
}

#[tokio::test]
async fn a_dead_member_hands_its_name_and_urls_on_a_live_one_does_not() {
    // The machine of m3 died; its successor comes up under the same name
    // and address (as a StatefulSet's pod does).
    let fake = dead_m3();
    let m3_url = fake.state().list.get(MemberId(3)).unwrap().peer_urls[0].clone();
    let same = ReplaceRequest {
        name: "m3".into(),
        peer_urls: PeerUrls::read(&[m3_url.as_str()]),
        ..req("m3", false)
    };
    let done = match run(&cx(&fake), &same, &FakeStart(&fake)).await {
        Ok(ReplaceOutcome::Replaced { replaced, .. }) => replaced,
        other => panic!("{other:?}"),
    };
    assert_eq!(changes(&fake), ["remove", "add", "start m3", "promote"]);
    assert_eq!(done.member.name, "m3");
    assert_ne!(done.member.id, MemberId(3));
    // A live member keeps its URLs until the new one has caught up.
    let fake = Fake::three();
    let err = run(&cx(&fake), &same, &FakeStart(&fake)).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Usage, "{}", err.message);
    assert!(err.message.contains("same member"), "{}", err.message);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn autopilot_replaces_only_a_member_that_is_still_dead() {
    // A voter that came back between autopilot's look and its replacement
    // is kept: nothing is sent.
    let fake = Fake::three().with_learner(4, "m4", 100);
    fake.state().list.members[3].peer_urls = vec![NEW_URL.into()];
    let only_dead = ReplaceRequest {
        only_dead: true,
        ..req("m3", false)
    };
    let err = run(&cx(&fake), &only_dead, &FakeStart(&fake))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused, "{}", err.message);
    assert!(err.message.contains("not dead any more"), "{}", err.message);
    assert!(changes(&fake).is_empty());
    // Still dead: replaced.
    let fake = dead_m3().with_learner(4, "m4", 100);
    fake.state().list.members[3].peer_urls = vec![NEW_URL.into()];
    match run(&cx(&fake), &only_dead, &FakeStart(&fake)).await {
        Ok(ReplaceOutcome::Replaced { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(changes(&fake), ["remove", "promote"]);
}
