//! `member prune` and `member promote --stable-for` on one local engine
//! cluster: a learner that never started (its peer URL unheard) is listed by
//! `--dry-run`, then removed; a started, caught-up learner is kept; promoted
//! with `--stable-for 2s`, it was ready that long first; a killed voter of
//! four is removed as dead, a killed voter of three is refused, naming the
//! minimum.

use serde_json::Value;

use crate::util::local::Local;
use crate::util::members::{add_and_start, add_learner_args, ids, member_named};
use crate::util::{free_port, Run};

/// The IDs under `key` (`removed`, `kept`, `refused`) of a prune document,
/// with their reasons.
fn judged(doc: &Value, key: &str) -> Vec<(String, String)> {
    doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {doc}"))
        .iter()
        .map(|j| {
            (
                j["member"]["id"].as_str().unwrap().to_string(),
                j["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn prune(local: &Local, extra: &[&str]) -> Run {
    let mut args = vec!["member", "prune", "-w", "json", "--poll-interval", "250ms"];
    args.extend_from_slice(extra);
    local.ctl(&args)
}

fn prune_and_stable_promote_on_a_local_cluster() {
    let local = Local::up(&["--max-learners", "2"]);
    let (n4, _) = add_and_start(&local, "n4");
    // A second learner, that nobody will start: its peer URL is a free port
    // (the cluster takes two learners; the learners check knows one).
    let peer = format!("http://127.0.0.1:{}", free_port());
    let mut args = add_learner_args("ghost", &peer).to_vec();
    args.extend(["--skip-check", "learners"]);
    let added = local.ctl(&args).expect(0).json();
    let ghost = added["member"]["id"].as_str().unwrap().to_string();

    let dry = prune(&local, &["--stalled-for", "2s", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}\n{}", dry.stderr, dry.stdout);
    let doc = dry.json();
    assert_eq!(doc["dry_run"], true);
    assert!(doc["watched_ms"].as_u64().unwrap() >= 2000, "{doc}");
    assert_eq!(
        judged(&doc, "removed"),
        vec![(ghost.clone(), "never_started".into())]
    );
    let kept = judged(&doc, "kept");
    let n4_kept = kept.iter().find(|(id, _)| *id == n4);
    assert!(
        matches!(n4_kept, Some((_, r)) if r == "caught_up" || r == "moving"),
        "{doc}"
    );
    // Nothing changed.
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    assert!(ids(&list).contains(&ghost), "{list}");

    let run = prune(&local, &["--stalled-for", "2s"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, local.logs());
    let doc = run.json();
    assert_eq!(doc["dry_run"], false);
    assert_eq!(
        judged(&doc, "removed"),
        vec![(ghost.clone(), "never_started".into())]
    );
    assert!(judged(&doc, "refused").is_empty(), "{doc}");
    let left = ids(&doc);
    assert!(!left.contains(&ghost) && left.contains(&n4), "{doc}");
    assert!(doc["checks"].is_array(), "the removal's checks: {doc}");

    // Ready for 2 s without a break, then promoted.
    let p = local.ctl(&[
        "member",
        "promote",
        "n4",
        "--stable-for",
        "2s",
        "--poll-interval",
        "100ms",
        "--timeout",
        "30s",
        "-w",
        "json",
    ]);
    assert_eq!(p.code, 0, "{}\n{}", p.stderr, local.logs());
    let doc = p.json();
    assert_eq!(doc["member"]["is_learner"], false);
    assert!(doc["waited_ms"].as_u64().unwrap() >= 2000, "{doc}");
    let phases = doc["catch_up"]["phases"].as_array().unwrap();
    let last = phases.last().unwrap();
    assert_eq!(last["phase"], "ready", "{doc}");
    assert!(last["seconds"].as_f64().unwrap() >= 2.0, "{doc}");

    // Four voters, n3 killed: dead, and three remain.
    let n3 = member_named(
        &local
            .ctl(&["member", "list", "-w", "json"])
            .expect(0)
            .json(),
        "n3",
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    local.kill_node("n3");
    let run = prune(&local, &["--stalled-for", "3s", "--dead-voters"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let doc = run.json();
    assert_eq!(judged(&doc, "removed"), vec![(n3.clone(), "dead".into())]);
    assert!(!ids(&doc).contains(&n3), "{doc}");

    // Three voters, n2 killed: refused, naming the minimum; nothing removed.
    let n2 = member_named(&doc, "n2")["id"].as_str().unwrap().to_string();
    local.kill_node("n2");
    let run = prune(&local, &["--stalled-for", "3s", "--dead-voters"]);
    assert_eq!(run.code, 3, "{}\n{}", run.stderr, run.stdout);
    let doc = run.json();
    assert_eq!(
        judged(&doc, "refused"),
        vec![(n2.clone(), "below_minimum".into())]
    );
    let detail = doc["refused"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("minimum of 3"), "{detail}");
    assert!(judged(&doc, "removed").is_empty(), "{doc}");
    assert!(ids(&doc).contains(&n2), "{doc}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![prune_and_stable_promote_on_a_local_cluster,]
}
