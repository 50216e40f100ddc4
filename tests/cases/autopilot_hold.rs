//! When `memberctl autopilot` must not act, on a local engine cluster: a
//! voter autopilot cannot reach (its advertised client URL, also the first
//! of autopilot's endpoints, goes through a proxy the test cuts) while the
//! leader still hears it is never removed, and each decision says so naming
//! it, autopilot looking through its other endpoints — once it is really
//! killed the same autopilot removes it; a dead voter inside an open joint
//! configuration is left alone, decision after decision, until the
//! configuration is left.

use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::autopilot::{follower, has, list, Autopilot};
use crate::util::faults::progress_of;
use crate::util::local::Local;
use crate::util::members::{add_and_start, ids, member_named};
use crate::util::proxy::Proxy;
use crate::util::wait_for;

/// `--dead-after` of these cases, in ms.
const DEAD_AFTER_MS: u64 = 2000;
/// Their autopilot's flags: `--cleanup-dead` would remove a dead voter of four.
const FLAGS: [&str; 3] = ["--cleanup-dead", "--dead-after", "2s"];

/// A node process the test started by hand; killed (SIGKILL) when dropped.
struct ByHand(Child);

impl Drop for ByHand {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running voter other than `name`.
fn another_member(local: &Local, name: &str) -> String {
    local
        .pids()
        .into_iter()
        .map(|(n, _)| n)
        .find(|n| n != name)
        .expect("another running member")
}

fn at_ms(line: &Value) -> u64 {
    line["at_ms"].as_u64().expect("at_ms")
}

/// Waits until autopilot's decisions from index `from` on span more than
/// `--dead-after` and a second (by their own clock): by the last of them a
/// voter unreachable since the first would count as dead were nothing else
/// holding autopilot back. The decisions.
fn decisions_past_dead_after(ap: &Autopilot, from: usize) -> Vec<Value> {
    wait_for(
        "decisions over more than --dead-after",
        Duration::from_secs(30),
        || {
            let lines = ap.lines();
            let span = at_ms(lines.last()?) - at_ms(lines.get(from)?);
            (span >= DEAD_AFTER_MS + 1000).then(|| lines[from..].to_vec())
        },
    )
}

fn autopilot_never_removes_a_voter_only_it_cannot_reach() {
    // Four voters, so that `--cleanup-dead` may remove one when it is dead.
    let local = Local::up(&["--nodes", "4"]);
    let name = follower(&local);
    let id = member_named(&list(&local), &name)["id"]
        .as_str()
        .unwrap()
        .to_string();
    // The member restarted by hand, advertising a proxy in front of its
    // client port; its peer traffic is untouched.
    let (record, _) = local.record(&name);
    let real: SocketAddr = record["client_url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let proxy = Proxy::start(real);
    local.kill_node(&name);
    let log = std::fs::File::create(local.dir().join(format!("{name}.by-hand.log"))).unwrap();
    let node = ByHand(
        local
            .node_run_advertising(&name, &proxy.url(), &[])
            .stderr(Stdio::from(log))
            .spawn()
            .expect("start the member by hand"),
    );
    wait_for(
        "the member to advertise the proxy",
        Duration::from_secs(20),
        || {
            let l = list(&local);
            (member_named(&l, &name)["client_urls"][0] == proxy.url().as_str()).then_some(())
        },
    );

    // Autopilot is given every member's advertised client URL, the proxy
    // first (so that it prefers it until it stops answering); its requests
    // time out after 1 s.
    let mut endpoints = vec![proxy.url()];
    let others = ["n1", "n2", "n3", "n4"].into_iter().filter(|n| *n != name);
    endpoints.extend(others.map(|n| local.client_url(n)));
    let endpoints = endpoints.join(",");
    let mut flags = FLAGS.to_vec();
    flags.extend(["--command-timeout", "1s"]);
    let ap = Autopilot::spawn(local.dir(), "ap", &flags, |args| {
        let mut all = vec!["--endpoints", &endpoints];
        all.extend_from_slice(args);
        local.command(&all)
    });
    ap.wait_line(
        "a look that reaches every member",
        0,
        Duration::from_secs(20),
        |l| l["reason"] == "healthy",
    );
    let through = proxy.forwarded();
    assert!(
        through > 0,
        "autopilot reached the member through the proxy"
    );
    proxy.cut();
    let cut = ap.lines().len();

    // Cut off from autopilot only: never touched, and each decision says why.
    let hears = |l: &Value| l["reason"] == "leader_hears_it" && l["member"]["id"] == id.as_str();
    let first = ap.wait_line(
        "a decision about the member, or an action",
        cut,
        Duration::from_secs(20),
        |l| l["member"]["id"] == id.as_str() || l["action"] != "none",
    );
    let line = &ap.lines()[first];
    assert!(hears(line), "autopilot holds back, naming why: {line}");
    // It still looks at the cluster through the other endpoints.
    let blind = ap.lines()[cut..]
        .iter()
        .find(|l| l["reason"] == "no_look")
        .cloned();
    assert!(blind.is_none(), "{blind:?}");
    let seen = decisions_past_dead_after(&ap, first);
    assert!(seen.len() >= 2, "{seen:?}");
    for l in &seen {
        assert!(hears(l) && l["action"] == "none", "{l}");
        let detail = l["detail"].as_str().unwrap();
        assert!(
            detail.contains(&id) && detail.contains(&name),
            "the decision names the member: {detail}"
        );
        assert!(detail.contains("the leader still hears it"), "{detail}");
    }
    assert!(
        ap.stderr().contains(&format!(
            "no action on {name} ({id}): autopilot cannot reach it, but the leader still hears it"
        )),
        "{}",
        ap.stderr()
    );
    // The premise: the leader does hear it (its peer traffic is untouched).
    let via = local.client_url(&another_member(&local, &name));
    let peer = progress_of(&via, u64::from_str_radix(&id, 16).unwrap()).unwrap();
    assert!(peer.recent_active, "the leader hears the member: {peer:?}");
    let still = list(&local);
    assert_eq!(ids(&still).len(), 4, "{still}");
    assert_eq!(member_named(&still, &name)["is_learner"], false, "{still}");
    assert_eq!(
        proxy.forwarded(),
        through,
        "nothing got through the cut proxy"
    );

    // Once the leader has lost it too, the same autopilot removes it.
    drop(node);
    let lost = ap.lines().len();
    wait_for("the dead member removed", Duration::from_secs(30), || {
        (!ids(&list(&local)).contains(&id)).then_some(())
    });
    let lines = ap.stop();
    let done: Vec<&Value> = lines[lost..]
        .iter()
        .filter(|l| l["phase"] == "done")
        .collect();
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0]["action"], "remove_dead", "{}", done[0]);
    assert_eq!(done[0]["member"]["id"], id.as_str(), "{}", done[0]);
    assert!(
        lines[..lost].iter().all(|l| l["action"] == "none"),
        "{lines:?}"
    );
}

fn autopilot_does_not_act_while_a_joint_configuration_is_open() {
    let local = Local::up(&[]);
    let dead_name = follower(&local);
    let dead = member_named(&list(&local), &dead_name)["id"]
        .as_str()
        .unwrap()
        .to_string();
    add_and_start(&local, "s4");
    // Joint: C_old {n1, n2, n3}, C_new {n1, n2, n3, s4}; left open.
    local.joint_enter(&["--promote", "s4"]);
    assert_eq!(local.joint_status()["joint"], true);
    local.kill_node(&dead_name);

    // A dead voter autopilot would remove (`--cleanup-dead`, four voters),
    // but a joint configuration is open: no action, decision after decision.
    let ap = Autopilot::start(&local, "ap", &FLAGS);
    let joint = |l: &Value| l["reason"] == "joint_open";
    let first = ap.wait_line(
        "autopilot to see the joint configuration, or act",
        0,
        Duration::from_secs(20),
        |l| joint(l) || l["action"] != "none",
    );
    let line = &ap.lines()[first];
    assert!(joint(line), "autopilot holds back, naming why: {line}");
    let seen = decisions_past_dead_after(&ap, first);
    for l in &seen {
        assert!(joint(l) && l["action"] == "none", "{l}");
        assert!(
            l["detail"]
                .as_str()
                .unwrap()
                .contains("a joint configuration is open (rule 5)"),
            "{l}"
        );
    }
    assert!(ids(&list(&local)).contains(&dead));
    assert_eq!(local.joint_status()["joint"], true);

    // Left: the dead voter goes at the next looks. The lines before the
    // leave is asked are counted first: autopilot may act on the very look
    // after the leave, before this thread reads its lines again.
    let left = ap.lines().len();
    local
        .ctl(&["member", "joint", "leave", "-w", "json"])
        .expect(0);
    wait_for("the dead voter removed", Duration::from_secs(30), || {
        (!ids(&list(&local)).contains(&dead)).then_some(())
    });
    let lines = ap.stop();
    assert!(
        lines[..left].iter().all(|l| l["action"] == "none"),
        "{lines:?}"
    );
    assert!(has(&lines[left..], "remove_dead", "done"), "{lines:?}");
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        autopilot_never_removes_a_voter_only_it_cannot_reach,
        autopilot_does_not_act_while_a_joint_configuration_is_open,
    ]
}
