//! The bundled engine's local test cluster: the learner flow, etcdctl against the engine, snapshot catch-up, a killed leader.

use std::time::Duration;

use crate::util::local::{get_prefix, put, Local};
use crate::util::members::{add_and_start, add_then_hint, first_endpoint, ids};
use crate::util::{self, free_port, wait_for};

/// memberctl's full learner flow on `cluster up`: add --learner, start-node,
/// promote after catch-up, remove, down (member commands find the cluster by itself).
fn learner_flow_on_a_local_cluster() {
    let local = Local::up(&[]);
    assert_eq!(local.up["nodes"].as_array().unwrap().len(), 3);
    assert!(local.up["leader"].is_string(), "{}", local.up);
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&list).len(), 3);
    assert!(list["members"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["started"] == true));
    for i in 0..50 {
        put(&first_endpoint(&local), &format!("k{i:03}"), "v").unwrap();
    }

    // The result comes before the hint of what to do next (stdout and stderr
    // into one file, in the order written).
    let (id, _) = add_then_hint(|a| local.command(a), "n4");
    local.ctl(&["cluster", "start-node", "n4"]).expect(0);
    let p = local.ctl(&["member", "promote", "n4", "--timeout", "30s", "-w", "json"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    assert_eq!(p.json()["member"]["is_learner"], false);
    // The new member holds the data.
    let n4 = local.client_url("n4");
    assert_eq!(get_prefix(&n4, "k").unwrap().len(), 50);

    let removed = local
        .ctl(&["member", "remove", &id, "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&removed).len(), 3);
    // The cluster's own view has member list's columns, and n4 as removed.
    cluster_output_matches_member_list(&local, "n4");
    let down = local
        .ctl(&["cluster", "down", "-w", "json"])
        .expect(0)
        .json();
    let status = |v: &serde_json::Value| -> Vec<(String, String)> {
        let nodes = v["nodes"].as_array().unwrap().iter();
        nodes
            .map(|n| {
                (
                    n["name"].as_str().unwrap().into(),
                    n["status"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let want = |last: &str| {
        let mut w: Vec<(String, String)> = ["n1", "n2", "n3"]
            .iter()
            .map(|n| (n.to_string(), last.to_string()))
            .collect();
        w.push(("n4".into(), "removed".into()));
        w
    };
    assert_eq!(status(&down), want("stopped"), "{down}");
    assert!(down["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["running"] == false));
    // Idempotent, and the removed member is still known as removed once all
    // are down; `cluster up` does not start it again.
    local.ctl(&["cluster", "down"]).expect(0);
    let up = local.ctl(&["cluster", "up", "-w", "json"]).expect(0).json();
    assert_eq!(status(&up), want("running"), "{up}");
    assert_eq!(up["endpoints"].as_array().unwrap().len(), 3, "{up}");
}

/// `cluster status` in every output format: `member list`'s columns in its
/// order (ID, status, name, peer URLs, client URLs, is learner) then the
/// local node's, a header in the table, no trailing separator in simple, and
/// `removed` (out of the endpoints) for the node whose member was removed.
fn cluster_output_matches_member_list(local: &Local, removed: &str) {
    let out = |args: &[&str]| local.ctl(args).expect(0).stdout;
    let list = out(&["member", "list", "-w", "simple"]);
    let simple = out(&["cluster", "status", "-w", "simple"]);
    let rows: Vec<Vec<&str>> = simple
        .lines()
        .filter(|l| !l.starts_with("endpoints: "))
        .map(|l| l.split(", ").collect())
        .collect();
    assert_eq!(rows.len(), 4, "{simple}");
    for (row, line) in rows.iter().zip(simple.lines()) {
        assert_eq!(row.len(), 9, "{line}");
        assert!(!line.ends_with(", ") && !line.ends_with(','), "{line:?}");
        if row[2] == removed {
            assert_eq!(row[1], "removed", "{line}");
            continue;
        }
        assert_eq!(row[1], "running", "{line}");
        let member: Vec<&str> = list
            .lines()
            .map(|l| l.split(", ").collect::<Vec<_>>())
            .find(|m| m[0] == row[0])
            .unwrap_or_else(|| panic!("{} not in member list:\n{list}", row[0]));
        // Name, peer URLs, client URLs, is learner: as member list has them.
        assert_eq!(member[2..6], row[2..6], "{line}\n{list}");
    }
    let table = out(&["cluster", "status", "-w", "table"]);
    let member_header = out(&["member", "list", "-w", "table"]);
    let cols = |t: &str| -> Vec<String> {
        let header = t.lines().nth(1).unwrap_or_default();
        header
            .split('|')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect()
    };
    assert_eq!(
        cols(&table)[..6],
        cols(&member_header)[..],
        "{table}\n{member_header}"
    );
    assert_eq!(cols(&table)[6..], ["IS LEADER", "PID", "LOG"], "{table}");
    let node = local.node(removed);
    assert_eq!(node["status"], "removed", "{node}");
    let url = node["client_url"].as_str().unwrap();
    let json = local.status();
    assert!(
        !json["endpoints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == url),
        "{json}"
    );
}

/// Real etcdctl against the engine: list, learner add, endpoint status, put/get,
/// promote after catch-up, remove.
fn etcdctl_administers_the_engine() {
    let etcdctl = util::require_etcdctl();
    let local = Local::up(&[]);
    let eps = local.endpoints().join(",");
    let r = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"]).expect(0);
    let v = r.json();
    assert_eq!(v["members"].as_array().unwrap().len(), 3);
    assert!(v["header"]["cluster_id"].is_u64());

    util::etcdctl(&etcdctl, &eps, &["put", "greeting", "hello"]).expect(0);
    let got = util::etcdctl(&etcdctl, &eps, &["get", "greeting", "--print-value-only"]).expect(0);
    assert_eq!(got.stdout.trim(), "hello");

    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let add = util::etcdctl(
        &etcdctl,
        &eps,
        &[
            "member",
            "add",
            "e4",
            "--learner",
            &format!("--peer-urls={peer}"),
            "-w",
            "json",
        ],
    )
    .expect(0);
    let add = add.json();
    assert_eq!(add["member"]["isLearner"], true);
    let id = add["member"]["ID"].as_u64().unwrap();
    let hex = format!("{id:x}");
    local.ctl(&["cluster", "start-node", "e4"]).expect(0);

    // The new learner knows it is one once the leader's snapshot is in.
    let status = wait_for(
        "the learner to report itself a learner",
        Duration::from_secs(10),
        || {
            let status = util::etcdctl(
                &etcdctl,
                &local.endpoints().join(","),
                &["endpoint", "status", "-w", "json"],
            )
            .expect(0)
            .json();
            let rows = status.as_array()?;
            let learners = rows
                .iter()
                .filter(|r| r["Status"]["isLearner"] == true)
                .count();
            (rows.len() == 4 && learners == 1).then_some(status)
        },
    );
    let rows = status.as_array().unwrap();
    assert!(rows
        .iter()
        .all(|r| r["Status"]["leader"].as_u64().unwrap() != 0));

    // etcdctl does not wait: retry its promote until the learner is in sync.
    wait_for(
        "etcdctl member promote to succeed",
        Duration::from_secs(30),
        || (util::etcdctl(&etcdctl, &eps, &["member", "promote", &hex]).code == 0).then_some(()),
    );
    // The member list is each member's own copy (as in etcd 3.4): the one
    // answering may apply the promotion a moment after the leader.
    let m = wait_for(
        "the promotion to be applied where etcdctl reads",
        Duration::from_secs(10),
        || {
            let v = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"])
                .expect(0)
                .json();
            let m = v["members"]
                .as_array()?
                .iter()
                .find(|m| m["ID"].as_u64() == Some(id))?
                .clone();
            (m.get("isLearner").is_none() || m["isLearner"] == false).then_some(m)
        },
    );
    assert!(
        m.get("isLearner").is_none() || m["isLearner"] == false,
        "{m}"
    );
    assert_eq!(m["name"], "e4");

    util::etcdctl(&etcdctl, &eps, &["member", "remove", &hex]).expect(0);
    // Again each member's own copy: the one answering may be a moment behind.
    wait_for(
        "the removal to be applied where etcdctl reads",
        Duration::from_secs(10),
        || {
            let v = util::etcdctl(&etcdctl, &eps, &["member", "list", "-w", "json"])
                .expect(0)
                .json();
            (v["members"].as_array()?.len() == 3).then_some(())
        },
    );
}

/// A learner that joins after the log was compacted is caught up by a snapshot,
/// then by the log, and promoted.
fn late_learner_is_caught_up_by_snapshot() {
    let local = Local::up(&["--snapshot-count", "20"]);
    let ep = first_endpoint(&local);
    for i in 0..200 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    add_and_start(&local, "late");
    // Writes go on while it catches up from the log after the snapshot.
    for i in 200..220 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    let p = local.ctl(&["member", "promote", "late", "--timeout", "30s"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    // Promoted once nearly caught up: its own copy completes a moment later.
    let late = local.client_url("late");
    let got = wait_for("late to apply every write", Duration::from_secs(10), || {
        let got = get_prefix(&late, "s").ok()?;
        (got.len() == 220).then_some(got)
    });
    // The first keys were compacted out of the log long ago: only a snapshot could bring them.
    assert_eq!(got[0], ("s000".to_string(), "value-0".to_string()));
    // A second late learner needs a new snapshot (one that holds it), not the one cached for the first.
    for i in 220..260 {
        put(&ep, &format!("s{i:03}"), &format!("value-{i}")).unwrap();
    }
    add_and_start(&local, "later");
    let p = local.ctl(&["member", "promote", "later", "--timeout", "30s"]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    let later = local.client_url("later");
    wait_for(
        "later to apply every write",
        Duration::from_secs(10),
        || (get_prefix(&later, "s").ok()?.len() == 260).then_some(()),
    );
}

/// A leader killed with kill -9 is replaced and writes go on.
fn killed_leader_is_replaced_and_writes_go_on() {
    let local = Local::up(&[]);
    let status = local.status();
    let leader = status["leader"].as_str().unwrap().to_string();
    let node = status["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == leader.as_str())
        .unwrap()
        .clone();
    let pid = node["pid"].as_u64().unwrap() as u32;
    let others: Vec<String> = local
        .endpoints()
        .into_iter()
        .filter(|e| !node["client_url"].as_str().unwrap().ends_with(e.as_str()))
        .collect();
    put(&others[0], "before", "1").unwrap();
    local.kill9(pid);
    // Writes through a surviving member succeed again once a new leader is elected.
    wait_for(
        "a write after the leader was killed",
        Duration::from_secs(15),
        || put(&others[0], "after", "1").ok(),
    );
    for i in 0..20 {
        put(&others[i % 2], &format!("w{i}"), "x").unwrap();
    }
    let after = local.status();
    assert!(after["leader"].is_string());
    assert_ne!(after["leader"], leader.as_str());
    assert_eq!(get_prefix(&others[1], "w").unwrap().len(), 20);
}

/// The leader's progress says a live peer was heard recently at every
/// moment it is read: raft's own flag of that name is cleared at each quorum
/// check (once an election timeout) and set again only by the next message,
/// so about one read in ten said "not heard" for a healthy peer, which
/// autopilot and prune would take for the leader having lost it. Read back
/// to back for three election timeouts, and at least 100 times (a busy
/// machine makes the reads slower, not fewer).
fn a_live_peer_reads_as_recently_active_at_every_moment() {
    let local = Local::up(&[]);
    let (leader, others) = util::faults::leader_and_others(&local);
    let endpoint = leader.client_url;
    let peers: Vec<u64> = others.iter().map(|n| n.id).collect();
    assert_eq!(peers.len(), 2);
    let started = std::time::Instant::now();
    let mut reads = 0;
    while started.elapsed() < Duration::from_secs(3) || reads < 100 {
        for id in &peers {
            let p = util::faults::progress_of(&endpoint, *id).expect("the leader's progress");
            assert!(
                p.recent_active,
                "read {reads}: a live peer not recently active: {p:?}"
            );
            reads += 1;
        }
    }
    eprintln!("{reads} reads in {:?}", started.elapsed());
}

/// Each member's log has etcd 3.4's readiness lines, which tools written
/// for etcd wait for: `published {Name:… ClientURLs:[…]} to cluster …`,
/// then `ready to serve client requests`; once they are there, the member
/// list has every name.
fn each_member_says_as_etcd_when_it_is_published_and_ready() {
    let local = Local::up(&[]);
    let status = local.status();
    for node in status["nodes"].as_array().unwrap() {
        let name = node["name"].as_str().unwrap();
        let url = node["client_url"].as_str().unwrap();
        let log = std::path::PathBuf::from(node["log"].as_str().unwrap());
        let published = format!("published {{Name:{name} ClientURLs:[{url}]}} to cluster ");
        let text = wait_for(
            "the member's readiness lines",
            Duration::from_secs(20),
            || {
                let text = std::fs::read_to_string(&log).ok()?;
                text.contains("ready to serve client requests")
                    .then_some(text)
            },
        );
        let p = text
            .find(&published)
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let r = text.find("ready to serve client requests").unwrap();
        assert!(p < r, "{name}: published after ready:\n{text}");
    }
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    let mut names: Vec<&str> = list["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["n1", "n2", "n3"], "{list}");
}

/// A voter (not a learner) added with etcdctl to a cluster of one member:
/// etcd 3.4 accepts it (its exception for growing a cluster restored from
/// one member's data), and so does the engine; both then wait for the new
/// member, which, once started, makes the two serve again.
fn a_voter_added_to_one_member_is_accepted_as_by_etcd_3_4() {
    let etcdctl = util::require_etcdctl();
    let etcd = util::Etcd::start(util::versions::etcd_server("3.4"), 1);
    let local = Local::up(&["--nodes", "1"]);
    let add = |endpoints: &str| {
        let peer = format!("http://127.0.0.1:{}", free_port());
        let r = util::etcd::etcdctl(
            &etcdctl,
            endpoints,
            &["member", "add", "n2", "--peer-urls", &peer],
        );
        (r.code, r.stdout.contains("added to cluster"), r.stderr)
    };
    let theirs = add(&etcd.endpoints());
    assert_eq!((theirs.0, theirs.1), (0, true), "etcd 3.4: {}", theirs.2);
    let ours = add(&first_endpoint(&local));
    assert_eq!(
        (ours.0, ours.1),
        (theirs.0, theirs.1),
        "the engine: {}",
        ours.2
    );
    // The engine's new member started: the two voters serve.
    local.ctl(&["cluster", "start-node", "n2"]).expect(0);
    wait_for("a write on two voters", Duration::from_secs(30), || {
        put(&first_endpoint(&local), "after", "add").ok()
    });
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&list).len(), 2, "{list}");
}

/// This file's cases and the tools each needs.
/// `cluster start-node` of a member whose peer port another program took
/// since `member add` fails at once, naming what the node said as it
/// stopped (its log's last line) and the log, and the cluster goes on.
fn a_node_that_cannot_bind_says_why_it_stopped() {
    let local = Local::up(&[]);
    let (_, peer) = crate::util::members::add_learner(|a| local.ctl(a), "n4");
    let port = peer.rsplit(':').next().unwrap().parse::<u16>().unwrap();
    let _taken = std::net::TcpListener::bind(("127.0.0.1", port)).expect("take the peer port");
    let r = local.ctl(&["cluster", "start-node", "n4"]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stderr.contains("node n4 exited at start (")
            && r.stderr
                .contains("Address already in use (os error 98); another process")
            && r.stderr.matches("os error 98").count() == 1
            && r.stderr.contains("n4.log"),
        "{}",
        r.stderr
    );
    let ep = first_endpoint(&local);
    put(&ep, "after", "ok").unwrap();
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_node_that_cannot_bind_says_why_it_stopped,
        a_voter_added_to_one_member_is_accepted_as_by_etcd_3_4: [Etcd, Etcdctl],
        each_member_says_as_etcd_when_it_is_published_and_ready,
        a_live_peer_reads_as_recently_active_at_every_moment,
        learner_flow_on_a_local_cluster,
        etcdctl_administers_the_engine: [Etcdctl],
        late_learner_is_caught_up_by_snapshot,
        killed_leader_is_replaced_and_writes_go_on,
    ]
}
