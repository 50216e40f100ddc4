//! Unit tests of autopilot's loop: against the fake cluster with a fake
//! election (leading, standing by, taking over), and its look again before
//! a removal.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use tokio::sync::watch;

use super::*;
use crate::model::MemberId;
use crate::workflow::calc::autopilot::*;
use crate::workflow::fake::Fake;
use crate::workflow::tests::{cx, member};

const S: Duration = Duration::from_secs(1);

/// An election nobody else campaigns in, or one `other` leads (for
/// `other_for` reads of the leader, then its lease ends).
struct FakeElection<'a> {
    other: Option<String>,
    other_for: Cell<usize>,
    /// Runs as this autopilot campaigns: what the cluster went through
    /// meanwhile.
    on_campaign: RefCell<Option<Box<dyn FnOnce() + 'a>>>,
    won: RefCell<Option<i64>>,
    calls: RefCell<Vec<String>>,
    kv: RefCell<std::collections::HashMap<String, String>>,
}

impl<'a> FakeElection<'a> {
    /// An election that `other` (if any) already leads.
    fn led_by(other: Option<&str>) -> Self {
        FakeElection {
            other: other.map(str::to_string),
            other_for: Cell::new(usize::MAX),
            on_campaign: RefCell::new(None),
            won: RefCell::new(None),
            calls: RefCell::new(vec![]),
            kv: Default::default(),
        }
    }

    /// An election `other` leads for `reads` reads of the leader; as this
    /// autopilot then campaigns, `meanwhile` runs.
    fn taken_over(other: &str, reads: usize, meanwhile: impl FnOnce() + 'a) -> Self {
        let e = FakeElection::led_by(Some(other));
        e.other_for.set(reads);
        *e.on_campaign.borrow_mut() = Some(Box::new(meanwhile));
        e
    }
}

impl Election for FakeElection<'_> {
    async fn lease_grant(&self, _: Duration) -> Result<i64, ApiError> {
        self.calls.borrow_mut().push("grant".into());
        Ok(7)
    }
    async fn lease_keep_alive(&self, _: i64) -> Result<(), ApiError> {
        Ok(())
    }
    async fn lease_revoke(&self, _: i64) -> Result<(), ApiError> {
        self.calls.borrow_mut().push("revoke".into());
        Ok(())
    }
    async fn campaign(&self, name: &str, lease: i64, _: &str) -> Result<Leadership, ApiError> {
        self.calls.borrow_mut().push("campaign".into());
        if let Some(meanwhile) = self.on_campaign.borrow_mut().take() {
            meanwhile();
        }
        *self.won.borrow_mut() = Some(lease);
        Ok(Leadership {
            name: name.into(),
            key: vec![],
            rev: 1,
            lease,
        })
    }
    async fn election_leader(&self, _: &str) -> Result<Option<ElectionLeader>, ApiError> {
        let won = self.won.borrow().map(|lease| ElectionLeader {
            value: "ap1".into(),
            lease,
        });
        let left = self.other_for.get();
        self.other_for.set(left.saturating_sub(1));
        let other = self.other.clone().filter(|_| left > 0);
        Ok(won.or_else(|| other.map(|value| ElectionLeader { value, lease: 99 })))
    }
    async fn resign(&self, _: &Leadership) -> Result<(), ApiError> {
        Ok(())
    }
    async fn kv_get(&self, key: &str) -> Result<Option<String>, ApiError> {
        Ok(self.kv.borrow().get(key).cloned())
    }
    async fn kv_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError> {
        let mut kv = self.kv.borrow_mut();
        self.calls.borrow_mut().push(format!("put {key} {value:?}"));
        match value {
            Some(v) => kv.insert(key.to_string(), v.to_string()),
            None => kv.remove(key),
        };
        Ok(())
    }
}

struct Collect(RefCell<Vec<Reported>>);

impl Reporter for Collect {
    fn report(&self, r: &Reported) {
        self.0.borrow_mut().push(r.clone());
    }
}

fn request(dry_run: bool) -> AutopilotRequest {
    AutopilotRequest {
        settings: Settings {
            dead_after: Duration::from_millis(30),
            stalled_for: Duration::from_secs(60),
            cleanup_dead: true,
            ..Settings::default()
        },
        interval: Duration::from_millis(10),
        name: "ap1".into(),
        lease_ttl: Duration::from_secs(10),
        dry_run,
        timeout: Duration::from_secs(1),
        poll_interval: Duration::from_millis(5),
        preflight: Preflight::ByCaller,
    }
}

/// Four voters on the fake, the progress of the engine, m4 down: runs the
/// loop for a while with `election`; returns the reports.
async fn loop_on_fake(fake: &Fake, election: &FakeElection<'_>, dry_run: bool) -> Vec<Reported> {
    {
        let mut s = fake.state();
        s.progress = true;
        s.list.members.push(member(4, "m4", false));
        s.index.insert(MemberId(4), 100);
        s.down.insert(MemberId(4));
    }
    let collect = Collect(RefCell::new(Vec::new()));
    let (tx, rx) = watch::channel(false);
    let req = request(dry_run);
    let c = cx(fake);
    let stopper = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        tx.send(true).unwrap();
    };
    let (r, ()) = tokio::join!(
        super::run(&c, election, &req, &NoStandbyStarter, &collect, rx),
        stopper
    );
    r.unwrap();
    collect.0.into_inner()
}

#[tokio::test]
async fn the_loop_removes_a_dead_voter_once_and_dry_run_changes_nothing() {
    let fake = Fake::three();
    let election = FakeElection::led_by(None);
    let reports = loop_on_fake(&fake, &election, false).await;
    let done: Vec<&Reported> = reports.iter().filter(|r| r.phase == Phase::Done).collect();
    assert_eq!(done.len(), 1, "{reports:#?}");
    assert_eq!(done[0].decision.action.as_str(), "remove_dead");
    assert!(fake.state().list.get(MemberId(4)).is_none());
    assert!(
        fake.calls().iter().any(|c| c.starts_with("remove")),
        "{:?}",
        fake.calls()
    );
    assert_eq!(
        election.calls.borrow().as_slice(),
        ["grant", "campaign", "revoke"]
    );

    let fake = Fake::three();
    let election = FakeElection::led_by(None);
    let reports = loop_on_fake(&fake, &election, true).await;
    assert!(
        reports.iter().any(|r| r.phase == Phase::DryRun),
        "{reports:#?}"
    );
    assert!(fake.state().list.get(MemberId(4)).is_some());
    assert!(!fake.calls().iter().any(|c| c.starts_with("remove")));
}

#[tokio::test]
async fn an_autopilot_that_does_not_lead_stands_by() {
    let fake = Fake::three();
    let election = FakeElection::led_by(Some("ap0"));
    let reports = loop_on_fake(&fake, &election, false).await;
    assert!(!reports.is_empty());
    for r in &reports {
        assert_eq!(r.phase, Phase::StandingBy);
        assert_eq!(
            r.decision.why,
            Why::StandingBy {
                leader: "ap0".into()
            }
        );
    }
    assert!(r_sentence(&reports[0]).contains("standing by (ap0 leads"));
    assert!(fake.state().list.get(MemberId(4)).is_some());
}

#[tokio::test]
async fn an_autopilot_that_takes_over_looks_again_before_it_acts() {
    // ap0 leads while ap1 watches m4 die; ap0 removes m4 and its lease ends
    // as ap1 campaigns, after ap1's last look. ap1 acts on none of the looks
    // it took standing by: it looks again, finds m4 gone and does nothing.
    let fake = Fake::three();
    let election = FakeElection::taken_over("ap0", 6, || {
        fake.state().list.members.retain(|m| m.id != MemberId(4));
    });
    let reports = loop_on_fake(&fake, &election, false).await;
    let first = reports
        .iter()
        .position(|r| r.phase != Phase::StandingBy)
        .expect("ap1 led at last");
    assert!(first > 0, "{reports:#?}");
    assert!(
        reports[first..]
            .iter()
            .all(|r| r.phase == Phase::Decided && !r.decision.acts()),
        "{reports:#?}"
    );
    assert!(!fake.calls().iter().any(|c| c.starts_with("remove")));
    assert_eq!(election.calls.borrow()[..2], ["grant", "campaign"]);
}

fn r_sentence(r: &Reported) -> String {
    r.sentence()
}

#[tokio::test]
async fn a_removal_looks_again_and_spares_a_voter_that_came_back() {
    let fake = Fake::three();
    {
        let mut s = fake.state();
        s.progress = true;
        s.list.members.push(member(4, "m4", false));
        s.index.insert(MemberId(4), 100);
        s.down.insert(MemberId(4));
    }
    let m4 = fake.state().list.get(MemberId(4)).cloned().unwrap();
    let decision = Decision {
        action: Action::RemoveDead { dead: m4 },
        why: Why::Dead { for_: 5 * S },
        about: None,
    };
    // Still dead at the look again: the removal goes ahead.
    assert_eq!(super::still_dead(&fake, &decision, S).await, Ok(()));
    // Back (it answers, the leader hears it) between the decision and the
    // removal: nothing is removed.
    fake.state().down.remove(&MemberId(4));
    let why = super::still_dead(&fake, &decision, S).await.unwrap_err();
    assert!(why.contains("m4 answers again"), "{why}");
    assert!(fake.state().list.get(MemberId(4)).is_some());
}
