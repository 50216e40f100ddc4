//! Two `memberctl autopilot`s on a local engine cluster of three voters and
//! a started standby learner: a follower killed, the acting autopilot is
//! killed with `kill -9` the moment its intent key (the replacement it
//! began) appears; the other takes over the autopilots' leadership once the
//! first's lease ends and finishes that replacement — the standby a voter,
//! the dead member removed, nothing else changed, the intent cleared.

use std::time::Duration;

use serde_json::Value;

use crate::util::autopilot::{follower, intent, is_voter, kill, list, Autopilot};
use crate::util::local::Local;
use crate::util::members::{add_and_start, ids, member_named};
use crate::util::{wait_for, wait_for_every};

fn autopilot_killed_mid_replacement_is_finished_by_the_other() {
    let local = Local::up(&[]);
    let dead_name = follower(&local);
    let (standby, _) = add_and_start(&local, "s4");
    let before = list(&local);
    let dead = member_named(&before, &dead_name)["id"]
        .as_str()
        .unwrap()
        .to_string();
    // The endpoints that stay up, to read the intent key through.
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

    kill(&local, &dead_name);
    // ap1 writes its intent before the first step of the replacement and
    // deletes it after the last: killed as soon as it appears, ap1 is in
    // the middle.
    let recorded = wait_for_every(
        "ap1's intent",
        Duration::from_secs(30),
        Duration::from_millis(2),
        || intent(&endpoints).ok().flatten(),
    );
    let ap1_lines = ap1.kill9();
    let at_kill = list(&local);
    let joint_at_kill = local.joint_status();
    eprintln!(
        "ap1 killed mid-replacement; the members then: {at_kill}\nthe configuration: {joint_at_kill}"
    );
    assert_eq!(recorded, format!("replace {dead} {standby}"));
    assert_eq!(
        intent(&endpoints).unwrap().as_deref(),
        Some(recorded.as_str()),
        "the intent outlives ap1: it had not finished"
    );
    let began = |l: &Value| l["action"] == "replace" && l["phase"] == "decided";
    assert!(ap1_lines.iter().any(began), "{ap1_lines:?}");
    assert!(
        ap1_lines.iter().all(|l| l["phase"] != "done"),
        "{ap1_lines:?}"
    );

    // ap2 takes over and finishes.
    wait_for(
        "the standby a voter, the dead member removed and the intent cleared",
        Duration::from_secs(40),
        || {
            let l = list(&local);
            let swapped = is_voter(&l, &standby) && !ids(&l).contains(&dead);
            (swapped && intent(&endpoints).ok()?.is_none()).then_some(())
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
    let action = done[0]["action"].as_str().unwrap();
    assert!(
        ["replace", "finish_replace"].contains(&action),
        "{}",
        done[0]
    );
    assert_eq!(done[0]["member"]["id"], dead.as_str(), "{}", done[0]);
    assert!(lines.iter().all(|l| l["phase"] != "failed"), "{lines:?}");

    // Exactly this replacement: the other voters stay, nothing was added.
    let after = list(&local);
    let mut want: Vec<String> = ids(&before).into_iter().filter(|i| *i != dead).collect();
    want.sort();
    let mut got = ids(&after);
    got.sort();
    assert_eq!(got, want, "{after}");
    assert!(got.iter().all(|i| is_voter(&after, i)), "{after}");
    assert_eq!(local.joint_status()["joint"], false);
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![autopilot_killed_mid_replacement_is_finished_by_the_other,]
}
