//! Robustness against real etcd: the recorder and checker of the engine's
//! scenarios, for the faults that need no engine switch (kill -9 of the
//! leader, of a follower, of all; a learner promoted; the leader removed; a
//! member replaced). etcd is expected to pass, which validates the checker.
//! The bounded profile runs etcd 3.4; the long one every version.

use std::time::Duration;

use crate::util::members::{add_learner_at, member_named};
use crate::util::robustness::Run;
use crate::util::versions::etcd_server;
use crate::util::{free_port, wait_for, Etcd};

/// The etcd versions of this profile.
fn versions() -> Vec<&'static str> {
    if crate::util::robustness::profile().long {
        vec!["3.4", "3.5", "3.6", "3.7"]
    } else {
        vec!["3.4"]
    }
}

/// The index (in `etcd.members`) of the leader.
fn leader(etcd: &Etcd) -> usize {
    wait_for("etcd to name a leader", Duration::from_secs(20), || {
        let r = etcd.ctl(&["member", "status", "-w", "json"]);
        if r.code != 0 {
            return None;
        }
        let id = r.json()["leader"].as_str()?.to_string();
        let list = etcd.list();
        let name = list["members"]
            .as_array()?
            .iter()
            .find(|m| m["id"] == id.as_str())?["name"]
            .as_str()?
            .to_string();
        etcd.members.iter().position(|m| m.name == name)
    })
}

fn endpoints(etcd: &Etcd) -> Vec<String> {
    etcd.endpoints().split(',').map(str::to_string).collect()
}

/// Runs `fault` (once per round) on a 3-member etcd of each version while
/// clients record; every history must be linearizable.
fn against_etcd(scenario: &str, fault: impl Fn(&mut Etcd, &Run)) {
    for version in versions() {
        let bin = etcd_server(version);
        let mut etcd = Etcd::start(bin, 3);
        let name = format!("etcd-{version}-{scenario}");
        let run = Run::start(&name, endpoints(&etcd));
        for _ in 0..run.profile.rounds {
            fault(&mut etcd, &run);
            run.settle();
        }
        let checked = run.finish();
        checked.assert_linearizable(|| {
            etcd.members
                .iter()
                .map(|m| etcd.log(&m.name))
                .collect::<Vec<_>>()
                .join("\n")
        });
    }
}

fn robustness_etcd_kill_leader() {
    against_etcd("kill-leader", |etcd, _| {
        let i = leader(etcd);
        etcd.kill(i);
        etcd.restart(i);
        etcd.wait_healthy();
    });
}

fn robustness_etcd_kill_follower() {
    against_etcd("kill-follower", |etcd, _| {
        let i = (leader(etcd) + 1) % etcd.members.len();
        etcd.kill(i);
        etcd.restart(i);
        etcd.wait_healthy();
    });
}

fn robustness_etcd_kill_all() {
    against_etcd("kill-all", |etcd, _| {
        let n = etcd.members.len();
        let pids: Vec<u32> = (0..n).filter_map(|i| etcd.pid(i)).collect();
        crate::util::faults::kill9_all(&pids);
        for i in 0..n {
            etcd.kill(i);
        }
        for i in 0..n {
            etcd.restart(i);
        }
        etcd.wait_healthy();
    });
}

/// A learner added with memberctl, started, promoted once caught up; then
/// the leader removed (memberctl moves leadership away first).
fn robustness_etcd_learner_promoted_and_leader_removed() {
    against_etcd("learner-then-remove-leader", |etcd, run| {
        let name = format!("m{}", free_port());
        let peer_port = free_port();
        let peer = format!("http://127.0.0.1:{peer_port}");
        let added = add_learner_at(|a| etcd.ctl(a), &name, &peer);
        etcd.start_added(&name, peer_port, added["initial_cluster"].as_str().unwrap());
        let p = etcd.ctl(&["member", "promote", &name, "--timeout", "180s"]);
        assert_eq!(p.code, 0, "{}\n{}", p.stderr, etcd.log(&name));
        run.recorder.set_endpoints(endpoints(etcd));
        run.settle();
        let l = leader(etcd);
        let id = member_named(&etcd.list(), &etcd.members[l].name)["id"]
            .as_str()
            .unwrap()
            .to_string();
        let r = etcd.ctl(&["member", "remove", &id]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        etcd.stop(l);
        run.recorder.set_endpoints(endpoints(etcd));
    });
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        // 3.4 always; the long profile fetches 3.5–3.7 from crates.io too.
        robustness_etcd_kill_leader: [Etcd],
        robustness_etcd_kill_follower: [Etcd],
        robustness_etcd_kill_all: [Etcd],
        robustness_etcd_learner_promoted_and_leader_removed: [Etcd],
    ]
}
