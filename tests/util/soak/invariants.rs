//! The soak's invariants, judged from the watcher's samples, the chaos
//! events and the autopilots' decisions: each a count of violations with
//! the first few described.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::watcher::Sample;

/// One invariant's verdict.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub name: &'static str,
    pub checked: usize,
    pub violations: Vec<String>,
}

impl Verdict {
    fn new(name: &'static str) -> Verdict {
        Verdict {
            name,
            ..Default::default()
        }
    }
}

fn quorum(n: usize) -> usize {
    n / 2 + 1
}

/// A membership change seen between two samples: a member gone.
#[derive(Clone, Debug)]
pub struct Removal {
    pub unix_ms: u64,
    pub id: u64,
    pub name: String,
    pub voter: bool,
    /// Whether the leader heard it at the last sample before.
    pub heard_before: bool,
    pub before_ms: u64,
    pub voters_after: usize,
    pub heard_voters_after: usize,
}

/// The members that left between consecutive samples that had a leader.
pub fn removals(samples: &[Sample]) -> Vec<Removal> {
    let led: Vec<&Sample> = samples.iter().filter(|s| s.leader.is_some()).collect();
    let mut out = vec![];
    for w in led.windows(2) {
        let (a, b) = (w[0], w[1]);
        for m in &a.members {
            if b.members.iter().any(|x| x.id == m.id) {
                continue;
            }
            out.push(Removal {
                unix_ms: b.unix_ms,
                id: m.id,
                name: m.name.clone(),
                voter: !m.is_learner,
                heard_before: m.heard,
                before_ms: a.unix_ms,
                voters_after: b.voters().count(),
                heard_voters_after: b.voters().filter(|v| v.heard).count(),
            });
        }
    }
    out
}

/// Autopilot never removed a voter the leader could hear at the moment it
/// decided to: for each voter removed, the decision that named it (the
/// latest before the removal) and the watcher's last sample at or before
/// that decision (at most `gap_ms` older): the leader must not have heard
/// it there. Also returns the removals where the leader heard the voter
/// again between the decision and the removal (a restart racing the
/// removal, after autopilot's look again): reported, not a violation.
pub fn no_heard_voter_removed(
    samples: &[Sample],
    removals: &[Removal],
    spans: &[ActionSpan],
    gap_ms: u64,
) -> (Verdict, Vec<String>) {
    let mut v = Verdict::new("no voter removed that the leader could hear when autopilot decided");
    let mut raced = vec![];
    for r in removals.iter().filter(|r| r.voter) {
        v.checked += 1;
        let decided = spans
            .iter()
            .filter(|s| s.member.as_deref() == Some(&r.name) && s.from_ms <= r.unix_ms)
            .filter(|s| matches!(s.action.as_str(), "replace" | "remove_dead"))
            .map(|s| s.from_ms)
            .max();
        let Some(decided) = decided else {
            v.violations.push(format!(
                "voter {} ({:016x}) removed at {} with no autopilot decision naming it",
                r.name, r.id, r.unix_ms
            ));
            continue;
        };
        let heard_at = |s: &Sample| {
            s.members
                .iter()
                .find(|m| m.id == r.id)
                .is_some_and(|m| m.heard)
        };
        let before = samples
            .iter()
            .rfind(|s| s.leader.is_some() && s.unix_ms <= decided)
            .filter(|s| decided - s.unix_ms <= gap_ms);
        if before.is_some_and(heard_at) {
            v.violations.push(format!(
                "voter {} ({:016x}) removed at {}: the leader heard it at {} when autopilot decided at {decided}",
                r.name,
                r.id,
                r.unix_ms,
                before.map_or(0, |s| s.unix_ms)
            ));
        } else if samples
            .iter()
            .filter(|s| s.unix_ms > decided && s.unix_ms < r.unix_ms)
            .any(heard_at)
        {
            raced.push(format!(
                "voter {} ({:016x}) heard again between the decision at {decided} and the removal at {}",
                r.name, r.id, r.unix_ms
            ));
        }
    }
    (v, raced)
}

/// Voters never fewer than `min` after a removal, and a quorum of them
/// heard by the leader after each.
pub fn minimum_and_quorum_kept(removals: &[Removal], min: usize) -> (Verdict, Verdict) {
    let mut minimum = Verdict::new("voters never fewer than --min-voters by a removal");
    let mut quorum_kept = Verdict::new("no quorum lost by a removal");
    for r in removals.iter().filter(|r| r.voter) {
        minimum.checked += 1;
        quorum_kept.checked += 1;
        if r.voters_after < min {
            minimum.violations.push(format!(
                "{} removed at {}: {} voters left, fewer than {min}",
                r.name, r.unix_ms, r.voters_after
            ));
        }
        if r.heard_voters_after < quorum(r.voters_after) {
            quorum_kept.violations.push(format!(
                "{} removed at {}: the leader heard {} of {} voters after",
                r.name, r.unix_ms, r.heard_voters_after, r.voters_after
            ));
        }
    }
    (minimum, quorum_kept)
}

/// A removed member never came back: its ID never listed again, and its
/// node's process not running for longer than `grace_ms` at a stretch
/// after the removal (it must find it was removed and stop).
pub fn removed_stay_gone(samples: &[Sample], removals: &[Removal], grace_ms: u64) -> Verdict {
    let mut v = Verdict::new("no removed member came back (a removed member stops)");
    let mut flagged = HashSet::new();
    for r in removals {
        v.checked += 1;
        let later = samples.iter().filter(|s| s.unix_ms > r.unix_ms);
        let mut running_since: Option<u64> = None;
        for s in later {
            if s.members.iter().any(|m| m.id == r.id) && flagged.insert((r.id, "listed")) {
                v.violations.push(format!(
                    "{} ({:016x}) listed again at {} after its removal at {}",
                    r.name, r.id, s.unix_ms, r.unix_ms
                ));
            }
            let runs = s.processes.iter().any(|(n, up)| *n == r.name && *up);
            match (runs, running_since) {
                (true, None) => running_since = Some(s.unix_ms),
                (false, _) => running_since = None,
                (true, Some(since)) => {
                    if s.unix_ms - since > grace_ms && flagged.insert((r.id, "runs")) {
                        v.violations.push(format!(
                            "{} ({:016x}) removed at {} still runs at {} (since {since})",
                            r.name, r.id, r.unix_ms, s.unix_ms
                        ));
                    }
                }
            }
        }
    }
    v
}

/// No learner stuck: none listed for more than `limit_ms` at a stretch
/// without being started, heard and caught up.
pub fn no_stuck_learner(samples: &[Sample], limit_ms: u64) -> Verdict {
    let mut v = Verdict::new("no stuck learner left behind");
    let mut behind_since: HashMap<u64, u64> = HashMap::new();
    let mut flagged = HashSet::new();
    let mut seen = HashSet::new();
    for s in samples.iter().filter(|s| s.leader.is_some()) {
        for m in s.members.iter().filter(|m| m.is_learner) {
            seen.insert(m.id);
            let ready = !m.name.is_empty() && m.heard && m.matched * 10 >= s.last_index * 9;
            if ready {
                behind_since.remove(&m.id);
                continue;
            }
            let since = *behind_since.entry(m.id).or_insert(s.unix_ms);
            if s.unix_ms - since > limit_ms && flagged.insert(m.id) {
                v.violations.push(format!(
                    "learner {:?} ({:016x}) not ready from {since} to {}",
                    m.name, m.id, s.unix_ms
                ));
            }
        }
        behind_since.retain(|id, _| s.members.iter().any(|m| m.id == *id));
    }
    v.checked = seen.len();
    v
}

/// One autopilot action: from its decision to done or failed (or to the
/// kill of its autopilot).
#[derive(Clone, Debug)]
pub struct ActionSpan {
    pub autopilot: String,
    /// The member the action is about, by name.
    pub member: Option<String>,
    pub incarnation: usize,
    pub action: String,
    pub from_ms: u64,
    pub to_ms: u64,
    pub result: String,
}

/// The actions in one autopilot's JSON lines (several incarnations when
/// chaos restarted it: `at_ms` starts again); an action its autopilot was
/// killed in ends at the first kill after it (`kills`: the kill times of
/// this autopilot), else at `end_ms`.
pub fn actions(name: &str, lines: &[Value], kills: &[u64], end_ms: u64) -> Vec<ActionSpan> {
    let mut out = vec![];
    let mut incarnation = 0;
    let mut last_at = 0;
    let mut open: Option<ActionSpan> = None;
    let close = |open: &mut Option<ActionSpan>, out: &mut Vec<ActionSpan>| {
        if let Some(mut a) = open.take() {
            a.to_ms = kills
                .iter()
                .copied()
                .find(|k| *k >= a.from_ms)
                .unwrap_or(end_ms);
            a.result = "killed".into();
            out.push(a);
        }
    };
    for l in lines {
        let at = l["at_ms"].as_u64().unwrap_or(0);
        if at < last_at {
            incarnation += 1;
            close(&mut open, &mut out);
        }
        last_at = at;
        let unix = l["unix_ms"].as_u64().unwrap_or(0);
        let action = l["action"].as_str().unwrap_or("none");
        match l["phase"].as_str().unwrap_or("") {
            "decided" if action != "none" => {
                close(&mut open, &mut out);
                open = Some(ActionSpan {
                    autopilot: name.to_string(),
                    member: l["member"]["name"].as_str().map(str::to_string),
                    incarnation,
                    action: action.to_string(),
                    from_ms: unix,
                    to_ms: unix,
                    result: String::new(),
                });
            }
            phase @ ("done" | "failed") => {
                if let Some(mut a) = open.take() {
                    a.to_ms = unix;
                    a.result = phase.to_string();
                    out.push(a);
                }
            }
            _ => {}
        }
    }
    close(&mut open, &mut out);
    out
}

/// Never two actions of two autopilots (or two lives of one) overlapping.
pub fn no_overlap(spans: &[ActionSpan]) -> Verdict {
    let mut v = Verdict::new("never two autopilot actions overlapping in time");
    v.checked = spans.len();
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            let same = a.autopilot == b.autopilot && a.incarnation == b.incarnation;
            if !same && a.from_ms < b.to_ms && b.from_ms < a.to_ms {
                v.violations.push(format!(
                    "{} {} [{}, {}] overlaps {} {} [{}, {}]",
                    a.autopilot,
                    a.action,
                    a.from_ms,
                    a.to_ms,
                    b.autopilot,
                    b.action,
                    b.from_ms,
                    b.to_ms
                ));
            }
        }
    }
    v
}

/// A fault as chaos reported it.
#[derive(Clone, Debug)]
pub struct Fault {
    pub seq: u64,
    pub kind: String,
    pub member: Option<String>,
    pub start_ms: u64,
    pub end_ms: Option<u64>,
}

/// The faults of chaos' JSON lines (skips left out).
pub fn faults(lines: &[Value]) -> Vec<Fault> {
    let mut by_seq: BTreeMap<u64, Fault> = BTreeMap::new();
    for l in lines {
        let seq = l["seq"].as_u64().unwrap_or(0);
        let unix = l["unix_ms"].as_u64().unwrap_or(0);
        match l["phase"].as_str() {
            Some("start") => {
                by_seq.insert(
                    seq,
                    Fault {
                        seq,
                        kind: l["fault"].as_str().unwrap_or("").to_string(),
                        member: l["member"].as_str().map(str::to_string),
                        start_ms: unix,
                        end_ms: None,
                    },
                );
            }
            Some("end") => {
                if let Some(f) = by_seq.get_mut(&seq) {
                    f.end_ms = Some(unix);
                }
            }
            _ => {}
        }
    }
    by_seq.into_values().collect()
}

/// Each fault's time to repair: from its start to the first whole sample
/// after its end (ms), `None` when the cluster was not whole again by the
/// end of the samples.
pub fn repairs(
    faults: &[Fault],
    samples: &[Sample],
    voters: usize,
    autopilots: usize,
) -> Vec<(Fault, Option<u64>)> {
    faults
        .iter()
        .map(|f| {
            let after = f.end_ms.unwrap_or(f.start_ms);
            let whole = samples
                .iter()
                .find(|s| s.unix_ms >= after && s.whole(voters, autopilots))
                .map(|s| s.unix_ms - f.start_ms);
            (f.clone(), whole)
        })
        .collect()
}

/// After each fault the cluster whole again (5 voters and a standby)
/// within `limit_ms` of its end — judged for a fault when no other fault
/// started within that time (a later fault may hold the repair up).
pub fn repaired_in_time(repairs: &[(Fault, Option<u64>)], limit_ms: u64) -> Verdict {
    let mut v = Verdict::new("after each fault, back to 5 voters and a standby in time");
    for (i, (f, took)) in repairs.iter().enumerate() {
        let after = f.end_ms.unwrap_or(f.start_ms);
        let next = repairs.get(i + 1).map(|(n, _)| n.start_ms);
        if next.is_some_and(|n| n < after + limit_ms) {
            continue;
        }
        v.checked += 1;
        let late = match took {
            Some(t) => f.start_ms + t > after + limit_ms,
            None => true,
        };
        if late {
            v.violations.push(format!(
                "fault #{} {} of {:?}: not whole within {} s of its end ({took:?} ms after its start)",
                f.seq,
                f.kind,
                f.member,
                limit_ms / 1000
            ));
        }
    }
    v
}

/// For each repair, whether it was done before any other fault began (a
/// repair another fault struck during is that fault's time too).
pub fn alone(repairs: &[(Fault, Option<u64>)]) -> Vec<bool> {
    repairs
        .iter()
        .map(|(f, took)| {
            let Some(t) = took else { return false };
            let whole = f.start_ms + t;
            !repairs
                .iter()
                .any(|(o, _)| o.seq != f.seq && o.start_ms > f.start_ms && o.start_ms < whole)
        })
        .collect()
}

/// (p50, p99, max) of `values`.
pub fn spread(values: &mut [u64]) -> (u64, u64, u64) {
    values.sort_unstable();
    let at = |p: f64| {
        if values.is_empty() {
            0
        } else {
            values[((values.len() - 1) as f64 * p).round() as usize]
        }
    };
    (at(0.5), at(0.99), at(1.0))
}
