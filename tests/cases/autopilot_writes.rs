//! `memberctl autopilot --dead-after 10s` on a local engine cluster while
//! clients work: a steady writer (every acknowledged put read back at the
//! end) and the robustness recorder (its history checked linearizable). A
//! follower killed with `kill -9` is replaced by the standby learner, then
//! the leader by a second standby, each within `--dead-after` + 30 s of the
//! kill, with the clients going on after each.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::autopilot::{follower, is_voter, list, voter, Autopilot};
use crate::util::local::Local;
use crate::util::members::{add_and_start, ids, member_named};
use crate::util::robustness::Run;
use crate::util::wait_for;
use crate::util::writer::{check_acked, SteadyWriter};

/// `--dead-after` of this case.
const DEAD_AFTER: Duration = Duration::from_secs(10);
/// How soon after the kill the replacement must be complete.
const BUDGET: Duration = Duration::from_secs(10 + 30);
/// The steady writer's keys.
const PREFIX: &str = "autopilot/w/";

/// The hex ID of member `name` in `list`.
fn id_in(list: &Value, name: &str) -> String {
    member_named(list, name)["id"].as_str().unwrap().to_string()
}

/// The client URLs of the named members.
fn urls(local: &Local, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| local.client_url(n)).collect()
}

/// Kills voter `victim` with SIGKILL and waits until autopilot has made
/// `standby` a voter and removed the victim, at most [`BUDGET`] after the
/// kill; how long it took.
fn kill_and_await_replacement(local: &Local, victim: &str, standby: &str) -> Duration {
    let dead = id_in(&list(local), victim);
    let killed = Instant::now();
    local.kill_node(victim);
    let limit = BUDGET.saturating_sub(killed.elapsed());
    wait_for(
        &format!("{standby} a voter and {victim} removed, within --dead-after + 30 s"),
        limit,
        || {
            let l = list(local);
            (is_voter(&l, standby) && !ids(&l).contains(&dead)).then_some(())
        },
    );
    let took = killed.elapsed();
    assert!(
        took >= DEAD_AFTER,
        "replaced {victim} before --dead-after: {took:?}"
    );
    took
}

fn autopilot_replaces_a_killed_follower_then_the_leader_under_writes() {
    let local = Local::up(&[]);
    let (s4, _) = add_and_start(&local, "s4");
    let voters = ["n1", "n2", "n3"];
    let writer = SteadyWriter::start(urls(&local, &voters), PREFIX, Duration::from_millis(10));
    let run = Run::start("engine-autopilot", urls(&local, &voters));
    let ap = Autopilot::start(&local, "ap", &["--dead-after", "10s"]);
    ap.wait_line("a first look", 0, Duration::from_secs(20), |l| {
        l["reason"] == "healthy"
    });

    // A follower.
    let f = follower(&local);
    let f_id = id_in(&list(&local), &f);
    let took_f = kill_and_await_replacement(&local, &f, &s4);
    let left: Vec<&str> = voters.iter().copied().filter(|v| *v != f).collect();
    let mut now = left.clone();
    now.push("s4");
    run.recorder.set_endpoints(urls(&local, &now));
    run.settle();
    writer.wait_for_more(50, Duration::from_secs(20));

    // A second standby, then the leader.
    let (s5, _) = add_and_start(&local, "s5");
    let leader = voter(&local, true);
    assert!(left.contains(&leader.as_str()), "{leader} leads");
    let leader_id = id_in(&list(&local), &leader);
    let took_l = kill_and_await_replacement(&local, &leader, &s5);
    let survivor = *left.iter().find(|v| **v != leader).unwrap();
    let last = [survivor, "s4", "s5"];
    run.recorder.set_endpoints(urls(&local, &last));
    run.settle();
    writer.wait_for_more(50, Duration::from_secs(20));
    eprintln!(
        "autopilot replaced the follower {took_f:?} and the leader {took_l:?} after the kill"
    );

    // Exactly the two replacements, in order, and nothing else done.
    let lines = ap.stop();
    let done: Vec<(&str, &str, &str)> = lines
        .iter()
        .filter(|l| l["phase"] == "done")
        .map(|l| {
            (
                l["action"].as_str().unwrap(),
                l["member"]["id"].as_str().unwrap(),
                l["standby"]["id"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        done,
        [
            ("replace", f_id.as_str(), s4.as_str()),
            ("replace", leader_id.as_str(), s5.as_str())
        ],
        "{lines:?}"
    );
    assert!(lines.iter().all(|l| l["phase"] != "failed"), "{lines:?}");
    let end = list(&local);
    let mut want = vec![id_in(&end, survivor), s4.clone(), s5.clone()];
    want.sort();
    let mut got = ids(&end);
    got.sort();
    assert_eq!(got, want, "{end}");
    assert!(want.iter().all(|id| is_voter(&end, id)), "{end}");

    // Every acknowledged write is there; the history is linearizable.
    let written = writer.finish();
    let checked = check_acked(&urls(&local, &last), PREFIX, &written.acked);
    assert!(checked >= 100, "only {checked} writes were acknowledged");
    let history = run.finish();
    history.assert_linearizable(|| local.logs());
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![autopilot_replaces_a_killed_follower_then_the_leader_under_writes,]
}
