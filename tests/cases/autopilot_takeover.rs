//! Two `memberctl autopilot`s on a local engine cluster of three voters and
//! a started standby learner, a follower killed, the acting autopilot (ap1)
//! killed with `kill -9` in the middle of its replacement; the other (ap2)
//! takes over the autopilots' leadership once ap1's lease ends and finishes
//! that replacement — the standby a voter, the dead member removed, nothing
//! else changed, the intent cleared. ap1 is killed either the moment its
//! intent key appears (before the first membership change), or while the
//! joint configuration it entered is still open (after `joint enter`,
//! before `joint leave`).

use std::time::{Duration, Instant};

use memberctl::proto::memberctl_v1::membership_client::MembershipClient;
use memberctl::proto::memberctl_v1::{Config, GetConfigRequest};
use serde_json::Value;

use crate::util::autopilot::{follower, intent, is_voter, list, voter, Autopilot};
use crate::util::local::{channel, runtime, Local};
use crate::util::members::{add_and_start, ids, member_named};
use crate::util::{wait_for, wait_for_every};

/// The cluster with ap1 leading the autopilots and ap2 standing by, before
/// the follower is killed.
struct Takeover {
    local: Local,
    /// The follower to kill, by name, and its hex ID.
    dead_name: String,
    dead: String,
    /// The standby learner's hex ID.
    standby: String,
    /// `member list -w json` before anything happened.
    before: Value,
    /// The client URLs of the members that stay up (the intent is read
    /// through them).
    endpoints: Vec<String>,
}

impl Takeover {
    /// The cluster, ap1 (leading) and ap2 (standing by).
    fn up() -> (Takeover, Autopilot, Autopilot) {
        let local = Local::up(&[]);
        let dead_name = follower(&local);
        let (standby, _) = add_and_start(&local, "s4");
        let before = list(&local);
        let dead = member_named(&before, &dead_name)["id"]
            .as_str()
            .unwrap()
            .to_string();
        let endpoints: Vec<String> = ["n1", "n2", "n3"]
            .into_iter()
            .filter(|n| *n != dead_name)
            .map(|n| local.client_url(n))
            .collect();
        let ap1 = Autopilot::start(&local, "ap1", &["--dead-after", "2s"]);
        ap1.wait_line("ap1 to lead", 0, Duration::from_secs(20), |l| {
            l["phase"] == "decided" && l["reason"] == "healthy"
        });
        let ap2 = Autopilot::start(&local, "ap2", &["--dead-after", "2s"]);
        ap2.wait_line("ap2 to stand by", 0, Duration::from_secs(20), |l| {
            l["reason"] == "standing_by" && l["detail"].as_str().unwrap().contains("ap1 leads")
        });
        let t = Takeover {
            local,
            dead_name,
            dead,
            standby,
            before,
            endpoints,
        };
        (t, ap1, ap2)
    }

    /// What ap1 printed before it was killed: it began the replacement and
    /// did not finish it.
    fn assert_ap1_interrupted(ap1_lines: &[Value]) {
        let began = |l: &Value| l["action"] == "replace" && l["phase"] == "decided";
        assert!(ap1_lines.iter().any(began), "{ap1_lines:?}");
        assert!(
            ap1_lines.iter().all(|l| l["phase"] != "done"),
            "{ap1_lines:?}"
        );
    }

    /// Waits for ap2 to finish the replacement and stops it; asserts that it
    /// stood by first, then took exactly one action, without a failure, and
    /// that the cluster is exactly the replacement; ap2's `done` line and
    /// all its lines.
    fn finished_by_ap2(&self, ap2: Autopilot) -> (Value, Vec<Value>) {
        let (local, standby, dead) = (&self.local, &self.standby, &self.dead);
        wait_for(
            "the standby a voter, the dead member removed and the intent cleared",
            Duration::from_secs(40),
            || {
                let l = list(local);
                let swapped = is_voter(&l, standby) && !ids(&l).contains(dead);
                (swapped && intent(&self.endpoints).ok()?.is_none()).then_some(())
            },
        );
        let lines = ap2.stop();
        let stood_by = lines
            .iter()
            .position(|l| l["reason"] == "standing_by")
            .expect("ap2 stood by first");
        let led = lines
            .iter()
            .position(|l| l["phase"] == "decided")
            .expect("ap2 led at last");
        assert!(stood_by < led, "{lines:?}");
        let done: Vec<&Value> = lines.iter().filter(|l| l["phase"] == "done").collect();
        assert_eq!(done.len(), 1, "exactly one action: {lines:?}");
        assert_eq!(done[0]["member"]["id"], dead.as_str(), "{}", done[0]);
        assert!(lines.iter().all(|l| l["phase"] != "failed"), "{lines:?}");

        // Exactly this replacement: the other voters stay, nothing was added.
        let after = list(local);
        let mut want: Vec<String> = ids(&self.before)
            .into_iter()
            .filter(|i| i != dead)
            .collect();
        want.sort();
        let mut got = ids(&after);
        got.sort();
        assert_eq!(got, want, "{after}");
        assert!(got.iter().all(|i| is_voter(&after, i)), "{after}");
        assert_eq!(local.joint_status()["joint"], false);
        (done[0].clone(), lines)
    }
}

fn autopilot_killed_mid_replacement_is_finished_by_the_other() {
    let (t, ap1, ap2) = Takeover::up();
    t.local.kill_node(&t.dead_name);
    // ap1 writes its intent before the first step of the replacement and
    // deletes it after the last: killed as soon as it appears, ap1 is in
    // the middle.
    let recorded = wait_for_every(
        "ap1's intent",
        Duration::from_secs(30),
        Duration::from_millis(2),
        || intent(&t.endpoints).ok().flatten(),
    );
    let ap1_lines = ap1.kill9();
    let at_kill = list(&t.local);
    let joint_at_kill = t.local.joint_status();
    eprintln!(
        "ap1 killed mid-replacement; the members then: {at_kill}\nthe configuration: {joint_at_kill}"
    );
    assert_eq!(recorded, format!("replace {} {}", t.dead, t.standby));
    assert_eq!(
        intent(&t.endpoints).unwrap().as_deref(),
        Some(recorded.as_str()),
        "the intent outlives ap1: it had not finished"
    );
    Takeover::assert_ap1_interrupted(&ap1_lines);

    // ap2 takes over and finishes.
    let (done, _) = t.finished_by_ap2(ap2);
    let action = done["action"].as_str().unwrap();
    assert!(["replace", "finish_replace"].contains(&action), "{done}");
}

/// The raft configuration read from one member over a channel kept open: a
/// look takes a few milliseconds (the leader's read index), a `memberctl`
/// run per look far longer than autopilot keeps its joint configuration.
struct ConfigProbe(MembershipClient<tonic::transport::Channel>);

impl ConfigProbe {
    fn to(endpoint: &str) -> ConfigProbe {
        let ch = runtime()
            .block_on(channel(endpoint))
            .unwrap_or_else(|e| panic!("a channel to {endpoint}: {e}"));
        ConfigProbe(MembershipClient::new(ch))
    }

    /// The configuration, when it is read within a second.
    fn config(&self) -> Option<Config> {
        let mut c = self.0.clone();
        runtime().block_on(async move {
            let r = tokio::time::timeout(Duration::from_secs(1), c.get_config(GetConfigRequest {}));
            r.await.ok()?.ok().map(|r| r.into_inner())
        })
    }
}

fn hex(ids: &[u64]) -> Vec<String> {
    ids.iter().map(|i| format!("{i:016x}")).collect()
}

fn autopilot_killed_while_joint_is_finished_by_the_other() {
    let (t, ap1, ap2) = Takeover::up();
    // Read from the leader (the killed follower never leads), which answers
    // GetConfig itself.
    let probe = ConfigProbe::to(&t.local.client_url(&voter(&t.local, true)));
    assert!(probe.config().is_some_and(|c| c.voters_outgoing.is_empty()));

    let dead_url = t.local.client_url(&t.dead_name);
    t.local.kill_node(&t.dead_name);
    let follower_killed = Instant::now();
    // Once ap1 has begun (its intent written), the dead member's address
    // stops answering instead of refusing, as a host that went dark: a
    // listener no one serves. Each of ap1's looks at every member, `joint
    // leave`'s among them, then waits its --command-timeout (2 s) there, which
    // holds the joint configuration open long enough to be seen (with the
    // address refusing at once it is open 20–120 ms).
    wait_for_every(
        "ap1's intent",
        Duration::from_secs(30),
        Duration::from_millis(2),
        || intent(&t.endpoints).ok().flatten(),
    );
    let dark = std::net::TcpListener::bind(dead_url.trim_start_matches("http://"))
        .expect("the dead member's client address");
    // ap1's replacement is one joint change (promote the standby, remove the
    // dead voter), then `joint leave`: killed as soon as the configuration
    // is joint, ap1 is between the two.
    let joint = wait_for_every(
        "ap1's joint configuration",
        Duration::from_secs(30),
        Duration::from_millis(1),
        || probe.config().filter(|c| !c.voters_outgoing.is_empty()),
    );
    let seen = Instant::now();
    let ap1_lines = ap1.kill9();
    let reaped = seen.elapsed();
    let still = probe.config().expect("the configuration after the kill");
    eprintln!(
        "joint {:?} after the follower's kill; ap1 killed and reaped {reaped:?} after that: \
         {joint:?}; after the kill: {still:?}",
        seen - follower_killed
    );
    assert!(
        hex(&joint.voters).contains(&t.standby) && !hex(&joint.voters).contains(&t.dead),
        "the joint change promotes the standby and removes the dead voter: {joint:?}"
    );
    assert!(hex(&joint.voters_outgoing).contains(&t.dead), "{joint:?}");
    assert_eq!(
        still, joint,
        "killed in the middle: ap1 had not left the joint configuration"
    );
    assert_eq!(t.local.joint_status()["joint"], true);
    assert_eq!(
        intent(&t.endpoints).unwrap(),
        Some(format!("replace {} {}", t.dead, t.standby)),
        "the intent outlives ap1"
    );
    Takeover::assert_ap1_interrupted(&ap1_lines);

    // ap2 takes over once ap1's lease has ended and leaves the joint
    // configuration: `finish_replace` is decided only on a joint
    // configuration, so ap2's look, a lease after the kill, still saw it
    // (no `joint leave` of ap1's was on its way).
    let (done, lines) = t.finished_by_ap2(ap2);
    assert_eq!(done["action"], "finish_replace", "{lines:#?}");
    assert_eq!(done["reason"], "joint_replacing", "{done}");
    drop(dark);
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        autopilot_killed_mid_replacement_is_finished_by_the_other,
        autopilot_killed_while_joint_is_finished_by_the_other,
    ]
}
