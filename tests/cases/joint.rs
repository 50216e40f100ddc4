//! Explicit joint consensus on the engine: the seed's worked example and a leader killed while joint.

use std::time::Duration;

use crate::util::faults::leader_and_others;
use crate::util::local::Local;
use crate::util::members::{add_learner_at, hex_list, id_of, member_named};
use crate::util::writer::{latency, SteadyWriter};
use crate::util::{free_port, wait_for};

/// The seed's worked example end to end: voters {n1,n2}; n3 added as a learner
/// and caught up; one joint change promotes n3, demotes n2, adds learner n4;
/// then leave. A steady writer keeps succeeding throughout.
fn joint_consensus_seed_example() {
    let local = Local::up(&["--nodes", "2", "--max-learners", "2"]);
    let (n1, n2) = (id_of(&local, "n1"), id_of(&local, "n2"));
    let writer = SteadyWriter::start(local.endpoints(), "writer/", Duration::from_millis(10));

    // Refusals first: leave while not joint; promote a learner that has not caught up.
    let r = local.ctl(&["member", "joint", "leave"]).expect(3);
    assert!(r.stderr.contains("not joint"), "{}", r.stderr);
    let peer3 = format!("http://127.0.0.1:{}", free_port());
    let added = add_learner_at(|a| local.ctl(a), "n3", &peer3);
    let n3 = added["member"]["id"].as_str().unwrap().to_string();
    let r = local
        .ctl(&["member", "joint", "enter", "--promote", &n3, "--no-wait"])
        .expect(3);
    assert!(r.stderr.contains("rule 6"), "{}", r.stderr);
    // Waited for, a learner that never starts times the command out; nothing changed.
    let r = local
        .ctl(&[
            "member",
            "joint",
            "enter",
            "--promote",
            &n3,
            "--timeout",
            "2s",
        ])
        .expect(4);
    assert!(
        r.stderr.contains("waiting for member") && r.stderr.contains("to catch up"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("has not started"), "{}", r.stderr);
    assert_eq!(local.joint_status()["joint"], false);
    local.ctl(&["cluster", "start-node", "n3"]).expect(0);

    let peer4 = format!("http://127.0.0.1:{}", free_port());
    let add4 = format!("n4={peer4}");
    let plan = local.ctl(&[
        "member",
        "joint",
        "enter",
        "--promote",
        "n3",
        "--demote",
        "n2",
        "--add-learner",
        &add4,
        "--dry-run",
        "-w",
        "json",
    ]);
    // The dry run may be refused by rule 6 until n3 has caught up; it never changes anything.
    // When n2 leads, the plan first moves leadership to n1.
    if plan.code == 0 {
        let n2_leads = leader_and_others(&local).0.name == "n2";
        let steps = plan.json()["plan"].as_array().unwrap().clone();
        assert_eq!(steps.len(), 3 + usize::from(n2_leads), "{steps:?}");
        let joint_step = &steps[1 + usize::from(n2_leads)];
        assert_eq!(joint_step["quorum_outgoing"], 2, "{steps:?}");
    }
    assert_eq!(local.joint_status()["joint"], false);

    let t_enter = std::time::Instant::now();
    let joint = local.joint_enter(&["--promote", "n3", "--demote", "n2", "--add-learner", &add4]);
    let t_entered = std::time::Instant::now();
    assert_eq!(joint["joint"], true);
    assert_eq!(hex_list(&joint["voters"]), {
        let mut v = vec![n1.clone(), n3.clone()];
        v.sort();
        v
    });
    assert_eq!(hex_list(&joint["voters_outgoing"]), {
        let mut v = vec![n1.clone(), n2.clone()];
        v.sort();
        v
    });
    assert_eq!(hex_list(&joint["learners_next"]), vec![n2.clone()]);
    let learners = hex_list(&joint["learners"]);
    assert_eq!(learners.len(), 1);
    let n4 = learners[0].clone();
    let status = local.joint_status();
    assert_eq!(status, joint);

    // Rule 5: one change at a time.
    let r = local
        .ctl(&["member", "joint", "enter", "--remove", &n4])
        .expect(3);
    assert!(r.stderr.contains("rule 5"), "{}", r.stderr);
    let r = local.ctl(&["member", "remove", &n4]).expect(3);
    assert!(r.stderr.contains("joint"), "{}", r.stderr);

    let t_leave = std::time::Instant::now();
    let after = local.ctl(&["member", "joint", "leave", "-w", "json"]);
    assert_eq!(after.code, 0, "{}\n{}", after.stderr, local.logs());
    let t_left = std::time::Instant::now();
    let after = after.json();
    assert_eq!(after["joint"], false);
    assert_eq!(hex_list(&after["voters"]), hex_list(&joint["voters"]));
    assert_eq!(hex_list(&after["learners"]), {
        let mut v = vec![n2.clone(), n4.clone()];
        v.sort();
        v
    });
    assert!(after["learners_next"].as_array().unwrap().is_empty());
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(member_named(&list, "n2")["is_learner"], true);
    assert_eq!(member_named(&list, "n3")["is_learner"], false);

    let written = writer.finish();
    let (n, max, p99) = latency(&written.samples, t_enter, t_entered);
    eprintln!("writer during joint enter: {n} puts, max {max:?}, p99 {p99:?}");
    let (n, max, p99) = latency(&written.samples, t_leave, t_left);
    eprintln!("writer during joint leave: {n} puts, max {max:?}, p99 {p99:?}");
    assert!(!written.acked.is_empty());
}

/// The leader killed with kill -9 while joint: a new leader is elected, the
/// configuration is still joint, leave succeeds; writes go on throughout.
fn joint_survives_a_killed_leader() {
    let local = Local::up(&[]);
    let peer = format!("http://127.0.0.1:{}", free_port());
    local
        .ctl(&["member", "add", "n4", "--learner", "--peer-urls", &peer])
        .expect(0);
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    let status = local.status();
    let leader = status["leader"].as_str().unwrap().to_string();
    let nodes = status["nodes"].as_array().unwrap().clone();
    let leader_node = nodes
        .iter()
        .find(|n| n["id"] == leader.as_str())
        .unwrap()
        .clone();
    // Demote a voter that is not the leader.
    let demoted = nodes
        .iter()
        .find(|n| n["id"] != leader.as_str() && n["name"] != "n4")
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    let survivors: Vec<String> = local
        .endpoints()
        .into_iter()
        .filter(|e| {
            !leader_node["client_url"]
                .as_str()
                .unwrap()
                .ends_with(e.as_str())
        })
        .collect();
    let writer = SteadyWriter::start(survivors, "writer/", Duration::from_millis(10));
    let joint = local.joint_enter(&["--promote", "n4", "--demote", &demoted]);
    assert_eq!(joint["joint"], true);

    local.kill9(leader_node["pid"].as_u64().unwrap() as u32);
    let status = wait_for("a new leader", Duration::from_secs(15), || {
        let v = local.ctl(&["member", "status", "-w", "json", "--dial-timeout", "300ms"]);
        let v = (v.code == 0).then(|| v.json())?;
        (v["leader"].is_string() && v["leader"] != leader.as_str()).then_some(v)
    });
    assert_ne!(status["leader"], leader.as_str());
    let still = local.joint_status();
    assert_eq!(still["joint"], true);
    let left = local.ctl(&["member", "joint", "leave", "-w", "json"]);
    assert_eq!(left.code, 0, "{}\n{}", left.stderr, local.logs());
    let left = left.json();
    assert_eq!(left["joint"], false);
    assert!(hex_list(&left["voters"]).contains(&id_of(&local, "n4")));
    // The writer goes on after the leader change and the leave.
    writer.wait_for_writes(6);
    let written = writer.finish();
    assert!(written.acked.len() > 5, "{written:?}");
}

/// etcd's rule for every forwarded change: a member that answers a
/// membership change shows it at once in its own (serializable, etcdctl
/// 3.4's) `MemberList` — joint enter and remove sent to a follower whose
/// apply stage is held back for 300 ms (fault injection), then read back
/// from it, three times over.
fn a_change_through_a_follower_is_in_its_member_list_at_once() {
    use memberctl::proto::etcdserverpb::cluster_client::ClusterClient;
    use memberctl::proto::etcdserverpb::{Member, MemberListRequest, MemberRemoveRequest};
    use memberctl::proto::memberctl_v1::joint_change::Change;
    use memberctl::proto::memberctl_v1::membership_client::MembershipClient;
    use memberctl::proto::memberctl_v1::{
        JointChange, JointEnterRequest, JointLeaveRequest, NewLearner,
    };

    use crate::util::faults::apply_fault;
    use crate::util::local::{channel, runtime};

    let local = Local::up(&["--fault-injection"]);
    let (_, others) = leader_and_others(&local);
    let follower = others[0].client_url.clone();
    let ch = runtime().block_on(channel(&follower)).unwrap();
    let mut cluster = ClusterClient::new(ch.clone());
    let mut membership = MembershipClient::new(ch);
    let lister = cluster.clone();
    let listed = || -> Vec<Member> {
        runtime()
            .block_on(lister.clone().member_list(MemberListRequest {
                linearizable: false,
            }))
            .unwrap()
            .into_inner()
            .members
    };
    // The follower applies nothing for 300 ms from now.
    let hold_apply = |endpoint: &str| {
        apply_fault(endpoint, true);
        let endpoint = endpoint.to_string();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            apply_fault(&endpoint, false);
        })
    };
    for round in 0..3 {
        let url = format!("http://127.0.0.1:{}", free_port());
        let change = Change::AddLearner(NewLearner {
            name: String::new(),
            peer_urls: vec![url.clone()],
        });
        let held = hold_apply(&follower);
        runtime()
            .block_on(membership.joint_enter(JointEnterRequest {
                changes: vec![JointChange {
                    change: Some(change),
                }],
            }))
            .unwrap_or_else(|e| panic!("round {round}: joint enter: {e}"));
        let added = listed()
            .into_iter()
            .find(|m| m.peer_ur_ls == [url.clone()])
            .unwrap_or_else(|| panic!("round {round}: the follower does not list {url} yet"));
        assert!(added.is_learner);
        held.join().unwrap();
        runtime()
            .block_on(membership.joint_leave(JointLeaveRequest {}))
            .unwrap_or_else(|e| panic!("round {round}: joint leave: {e}"));
        let held = hold_apply(&follower);
        runtime()
            .block_on(cluster.member_remove(MemberRemoveRequest { id: added.id }))
            .unwrap_or_else(|e| panic!("round {round}: remove: {e}"));
        assert!(
            listed().iter().all(|m| m.id != added.id),
            "round {round}: the follower still lists {url}"
        );
        held.join().unwrap();
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        joint_consensus_seed_example,
        joint_survives_a_killed_leader,
        a_change_through_a_follower_is_in_its_member_list_at_once,
    ]
}
