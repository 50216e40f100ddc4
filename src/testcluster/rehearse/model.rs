//! The rehearsal's report, pure: the raw samples a rehearsal took, and what
//! is computed from them — the writer's latency percentiles per second and
//! per window (before, during, after the change), the change's steps, the
//! leader's elections, the catch-up against the prediction — into the
//! [`RehearsalReport`] that `report.json` serializes (its schema is
//! documented in docs/commands.md) and `report.html` draws.

use serde::Serialize;

/// The version of `report.json`'s schema (`"schema"`); raised when a field
/// changes meaning or goes away (new fields do not raise it).
pub const SCHEMA: u32 = 1;

/// One put of the steady writer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WriteSample {
    /// When it was issued, seconds since the rehearsal began.
    pub at_s: f64,
    /// How long it took, milliseconds (up to the writer's timeout).
    pub ms: f64,
    /// Whether it was acknowledged.
    pub ok: bool,
    /// The error, when it was not.
    pub error: Option<String>,
}

/// One look at one node of the local cluster: its status and its `/metrics`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeSample {
    /// When, seconds since the rehearsal began.
    pub at_s: f64,
    /// The node's name (the cluster's state file).
    pub name: String,
    /// Whether it answered its status.
    pub answered: bool,
    /// Its member ID (16 hex digits), when it answered.
    pub member_id: Option<String>,
    /// The leader it knows of (16 hex digits), when it knows one.
    pub leader: Option<String>,
    /// Its raft term.
    pub term: Option<u64>,
    /// Its raft index.
    pub raft_index: Option<u64>,
    /// Bytes received from its peers (`etcd_network_peer_received_bytes_total`, summed).
    pub bytes_received: Option<u64>,
    /// Snapshots received whole (`etcd_network_snapshot_receive_success`, summed).
    pub snapshots_received: Option<u64>,
}

/// One member of a member list sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListedMember {
    /// Its ID, 16 hex digits.
    pub id: String,
    /// Its name (empty until it started).
    pub name: String,
    /// Whether it is a learner.
    pub is_learner: bool,
}

/// One member list, as the cluster answered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListSample {
    /// When, seconds since the rehearsal began (milliseconds: an integer, for `Eq`).
    pub at_ms: u64,
    /// The members.
    pub members: Vec<ListedMember>,
}

/// A catch-up progress line of the change (`{"catch_up": {…}}` on its stderr).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgressLine {
    /// When it was read, seconds since the rehearsal began.
    pub at_s: f64,
    /// The line's `catch_up` object, as the change printed it.
    pub catch_up: serde_json::Value,
}

/// A step of the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A new member appeared in the member list.
    Add,
    /// The new member's process answered.
    Start,
    /// The new member received a snapshot whole.
    SnapshotReceived,
    /// The change said the new member is ready (its catch-up progress).
    Ready,
    /// The new member became a voter.
    Promoted,
    /// A member left the member list.
    Removed,
}

impl StepKind {
    /// Its name in report.json and on the charts.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Add => "add",
            StepKind::Start => "start",
            StepKind::SnapshotReceived => "snapshot_received",
            StepKind::Ready => "ready",
            StepKind::Promoted => "promoted",
            StepKind::Removed => "removed",
        }
    }
}

/// A step of the change, when it was first seen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Which step.
    pub step: StepKind,
    /// When it was first seen, seconds since the rehearsal began.
    pub at_s: f64,
    /// The member it concerns (name, else ID).
    pub member: String,
}

/// The catch-up check's prediction, taken before the change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// `snapshot` or `log`.
    pub path: String,
    /// Bytes to send.
    pub bytes: u64,
    /// The link's bandwidth, bytes per second.
    pub bandwidth_bytes_per_second: f64,
    /// Where the bandwidth comes from (`given`, `link`, `past-sends`, `assumed`).
    pub bandwidth_source: String,
    /// Seconds from the new member's start until it has caught up (none: never).
    pub predicted_seconds: Option<f64>,
}

impl Prediction {
    /// The link floor: the bytes over the bandwidth, the least a catch-up can take.
    pub fn link_floor_seconds(&self) -> f64 {
        self.bytes as f64 / self.bandwidth_bytes_per_second.max(1.0)
    }

    /// The bytes the prediction expects the new member to have received
    /// `seconds` after its start: all of them spread evenly over the
    /// predicted time.
    pub fn bytes_at(&self, seconds: f64) -> f64 {
        match self.predicted_seconds {
            Some(p) if p > 0.0 => self.bytes as f64 * (seconds / p).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }
}

/// The writer's latency over some seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Puts issued.
    pub writes: usize,
    /// Puts that failed.
    pub failed: usize,
    /// The median latency of the acknowledged puts, ms.
    pub p50_ms: Option<f64>,
    /// The 99th percentile, ms.
    pub p99_ms: Option<f64>,
    /// The slowest, ms.
    pub max_ms: Option<f64>,
}

/// The writer's latency in one second of the rehearsal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Second {
    /// The second (0: the rehearsal's first).
    pub second: u64,
    /// Its latency.
    #[serde(flatten)]
    pub latency: Latency,
}

/// A change of leader or term seen by the sampler.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Election {
    /// When it was first seen, seconds since the rehearsal began.
    pub at_s: f64,
    /// The new leader (name, else ID), if one is known.
    pub leader: Option<String>,
    /// The new term.
    pub term: u64,
}

/// The leader and its term at one sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeaderPoint {
    /// When, seconds since the rehearsal began.
    pub at_s: f64,
    /// The leader (name, else ID), if the members agree on one.
    pub leader: Option<String>,
    /// The highest term a member reported.
    pub term: u64,
}

/// When each part of the rehearsal began and ended, seconds since it began.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timeline {
    /// The change was started.
    pub change_started_s: f64,
    /// The change ended.
    pub change_ended_s: f64,
    /// The cluster was seen settled (or the wait for it ended).
    pub settled_s: f64,
    /// The sampling ended.
    pub ended_s: f64,
    /// Whether the cluster settled within the wait.
    pub settled: bool,
}

/// How the change ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChangeResult {
    /// The command, as given after `--`.
    pub command: Vec<String>,
    /// Its exit code (none: killed by a signal, or stopped at the timeout).
    pub exit_code: Option<i32>,
    /// Whether it succeeded.
    pub ok: bool,
    /// Its error, when it failed (its `-w json` error document's message, else its last stderr line).
    pub error: Option<String>,
    /// Its JSON output (stdout), when it printed one.
    pub output: Option<serde_json::Value>,
}

/// What the change cost the cluster (`workflow::cost`, every member's counters before and after).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    /// Leader changes the members counted.
    pub leader_changes: u64,
    /// Heartbeats that could not be sent.
    pub heartbeat_send_failures: u64,
    /// Applies slower than 100 ms.
    pub slow_applies: u64,
}

/// The figures of the summary table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The new member's catch-up, seconds: the change's own time from the
    /// start of its wait to its first `ready` progress line; without progress
    /// lines, from the sampled start (else add) until promoted.
    pub catch_up_seconds: Option<f64>,
    /// The link floor (the predicted bytes over the bandwidth), seconds.
    pub link_floor_seconds: Option<f64>,
    /// The catch-up over the link floor.
    pub catch_up_to_floor_ratio: Option<f64>,
    /// The catch-up check's predicted time, seconds.
    pub predicted_seconds: Option<f64>,
    /// The catch-up check's bytes to send.
    pub predicted_bytes: Option<u64>,
    /// The bytes the new member received (its last sample).
    pub bytes_received: Option<u64>,
    /// The writer before the change.
    pub before: Latency,
    /// The writer during the change (until settled).
    pub during: Latency,
    /// The writer after.
    pub after: Latency,
    /// Puts that failed in all.
    pub failed_writes: usize,
    /// Elections the sampler saw (leader or term changes after the first sample).
    pub leader_changes: usize,
    /// What the change cost, from the members' counters (none when not read).
    pub cost: Option<Cost>,
}

/// The raw samples, as the rehearsal took them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Samples {
    /// Every put of the writer.
    pub writes: Vec<WriteSample>,
    /// Every look at every node.
    pub nodes: Vec<NodeSample>,
    /// Every member list.
    pub lists: Vec<ListSample>,
    /// The change's catch-up progress lines.
    pub progress: Vec<ProgressLine>,
}

/// What the rehearsal was asked.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// Puts per second of the writer.
    pub writer_rate_per_second: f64,
    /// Bytes of each put's value.
    pub value_size_bytes: usize,
    /// `engine` or `etcd`.
    pub server: String,
    /// The server's version.
    pub server_version: String,
    /// The cluster directory.
    pub cluster_dir: String,
}

/// report.json: every figure and the raw samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RehearsalReport {
    /// The schema's version ([`SCHEMA`]).
    pub schema: u32,
    /// When the rehearsal began, milliseconds since the Unix epoch.
    pub started_unix_ms: u64,
    /// What it was asked.
    pub settings: Settings,
    /// How the change ended.
    pub change: ChangeResult,
    /// When each part began and ended.
    pub timeline: Timeline,
    /// The catch-up check's prediction (none when it made none).
    pub prediction: Option<Prediction>,
    /// The change's steps, in the order seen.
    pub steps: Vec<Step>,
    /// The leader and term at each sample.
    pub leaders: Vec<LeaderPoint>,
    /// The elections seen.
    pub elections: Vec<Election>,
    /// The writer's latency per second.
    pub per_second: Vec<Second>,
    /// The new member's bytes received over time (`[seconds, bytes]`).
    pub new_member_bytes: Vec<(f64, u64)>,
    /// The summary table's figures.
    pub summary: Summary,
    /// The raw samples.
    pub samples: Samples,
}

/// The `q` quantile (0–1) of `sorted` by nearest rank.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The latency of the puts issued in `[from, to)`.
pub fn latency<'a>(
    writes: impl IntoIterator<Item = &'a WriteSample>,
    from: f64,
    to: f64,
) -> Latency {
    let mut ms = Vec::new();
    let (mut n, mut failed) = (0, 0);
    for w in writes {
        if w.at_s < from || w.at_s >= to {
            continue;
        }
        n += 1;
        if w.ok {
            ms.push(w.ms);
        } else {
            failed += 1;
        }
    }
    ms.sort_by(f64::total_cmp);
    Latency {
        writes: n,
        failed,
        p50_ms: percentile(&ms, 0.50),
        p99_ms: percentile(&ms, 0.99),
        max_ms: ms.last().copied(),
    }
}

/// The writer's latency in each second from the first to the last put's.
pub fn per_second(writes: &[WriteSample]) -> Vec<Second> {
    let Some(last) = writes.iter().map(|w| w.at_s).max_by(f64::total_cmp) else {
        return Vec::new();
    };
    (0..=last.max(0.0).floor() as u64)
        .map(|s| Second {
            second: s,
            latency: latency(writes, s as f64, s as f64 + 1.0),
        })
        .collect()
}

/// The name of the member `id` among the lists and node samples, else `id`.
fn name_of(id: &str, samples: &Samples) -> String {
    samples
        .lists
        .iter()
        .rev()
        .flat_map(|l| &l.members)
        .find(|m| m.id == id && !m.name.is_empty())
        .map(|m| m.name.clone())
        .or_else(|| {
            samples
                .nodes
                .iter()
                .find(|n| n.member_id.as_deref() == Some(id))
                .map(|n| n.name.clone())
        })
        .unwrap_or_else(|| id.to_string())
}

/// The change's steps, from the samples: members that appear in the member
/// list (add), whose node answers (start), receive a snapshot, are said
/// ready by the change's progress, become voters (promoted), or leave the
/// list (removed). `initial` is the list before the change. Sorted by time.
pub fn steps(initial: &[ListedMember], samples: &Samples) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let seen = |out: &mut Vec<Step>, step: StepKind, at_s: f64, member: String| {
        if !out.iter().any(|s| s.step == step && s.member == member) {
            out.push(Step { step, at_s, member });
        }
    };
    let is_new = |id: &str| !initial.iter().any(|m| m.id == id);
    let mut new_ids: Vec<String> = Vec::new();
    for l in &samples.lists {
        let at = l.at_ms as f64 / 1000.0;
        for m in &l.members {
            if is_new(&m.id) {
                if !new_ids.contains(&m.id) {
                    new_ids.push(m.id.clone());
                }
                seen(&mut out, StepKind::Add, at, name_of(&m.id, samples));
                if !m.is_learner {
                    seen(&mut out, StepKind::Promoted, at, name_of(&m.id, samples));
                }
            } else if let Some(was) = initial.iter().find(|i| i.id == m.id) {
                if was.is_learner && !m.is_learner {
                    seen(&mut out, StepKind::Promoted, at, name_of(&m.id, samples));
                }
            }
        }
        for i in initial {
            if !l.members.iter().any(|m| m.id == i.id) {
                seen(&mut out, StepKind::Removed, at, name_of(&i.id, samples));
            }
        }
    }
    let initial_names: Vec<&str> = samples
        .nodes
        .iter()
        .filter(|n| n.answered && n.member_id.as_deref().is_some_and(|id| !is_new(id)))
        .map(|n| n.name.as_str())
        .collect();
    for n in &samples.nodes {
        let new = match n.member_id.as_deref() {
            Some(id) => is_new(id),
            None => !initial_names.contains(&n.name.as_str()),
        };
        if !new {
            continue;
        }
        let label = n
            .member_id
            .as_deref()
            .map_or_else(|| n.name.clone(), |id| name_of(id, samples));
        if n.answered || n.bytes_received.is_some() {
            seen(&mut out, StepKind::Start, n.at_s, label.clone());
        }
        if n.snapshots_received.is_some_and(|s| s > 0) {
            seen(&mut out, StepKind::SnapshotReceived, n.at_s, label);
        }
    }
    for p in &samples.progress {
        let phase = p.catch_up.get("phase").and_then(|v| v.as_str());
        if phase == Some("ready") {
            let id = p
                .catch_up
                .get("member")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            seen(&mut out, StepKind::Ready, p.at_s, name_of(id, samples));
        }
    }
    out.sort_by(|a, b| a.at_s.total_cmp(&b.at_s).then(a.step.cmp(&b.step)));
    out
}

/// The leader and highest term at each sample time, from the node samples.
pub fn leaders(samples: &Samples) -> Vec<LeaderPoint> {
    let mut out: Vec<LeaderPoint> = Vec::new();
    let mut i = 0;
    let nodes = &samples.nodes;
    while i < nodes.len() {
        let at = nodes[i].at_s;
        let group: Vec<&NodeSample> = nodes[i..].iter().take_while(|n| n.at_s == at).collect();
        i += group.len();
        let Some(term) = group.iter().filter_map(|n| n.term).max() else {
            continue;
        };
        let at_term: Vec<&str> = group
            .iter()
            .filter(|n| n.term == Some(term))
            .filter_map(|n| n.leader.as_deref())
            .filter(|l| *l != "0000000000000000")
            .collect();
        let leader = at_term
            .first()
            .filter(|l| at_term.iter().all(|x| x == *l))
            .map(|l| name_of(l, samples));
        out.push(LeaderPoint {
            at_s: at,
            leader,
            term,
        });
    }
    out
}

/// The elections: each point whose leader (when known) or term differs from
/// the last known one, after the first.
pub fn elections(points: &[LeaderPoint]) -> Vec<Election> {
    let mut out = Vec::new();
    let mut last: Option<(Option<&str>, u64)> = None;
    for p in points {
        match last {
            None => last = Some((p.leader.as_deref(), p.term)),
            Some((leader, term)) => {
                let moved = p.leader.is_some() && p.leader.as_deref() != leader;
                if p.term > term || moved {
                    out.push(Election {
                        at_s: p.at_s,
                        leader: p.leader.clone(),
                        term: p.term,
                    });
                }
                if p.term >= term {
                    last = Some((p.leader.as_deref().or(leader), p.term));
                }
            }
        }
    }
    out
}

/// The new member's bytes received over time: the node of the first added
/// member (the `start` step's), as `[seconds, bytes]`.
pub fn new_member_bytes(steps: &[Step], samples: &Samples) -> Vec<(f64, u64)> {
    let Some(member) = steps
        .iter()
        .find(|s| s.step == StepKind::Start)
        .map(|s| s.member.clone())
    else {
        return Vec::new();
    };
    samples
        .nodes
        .iter()
        .filter(|n| {
            n.name == member
                || n.member_id
                    .as_deref()
                    .is_some_and(|id| name_of(id, samples) == member)
        })
        .filter_map(|n| n.bytes_received.map(|b| (n.at_s, b)))
        .collect()
}

/// Everything the report needs besides the samples.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// When the rehearsal began, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// What it was asked.
    pub settings: Settings,
    /// How the change ended.
    pub change: ChangeResult,
    /// When each part began and ended.
    pub timeline: Timeline,
    /// The member list before the change.
    pub initial: Vec<ListedMember>,
    /// The catch-up check's prediction.
    pub prediction: Option<Prediction>,
    /// What the change cost.
    pub cost: Option<Cost>,
}

/// The report: the figures computed from `samples`.
pub fn report(inputs: Inputs, samples: Samples) -> RehearsalReport {
    let steps = steps(&inputs.initial, &samples);
    let leaders = leaders(&samples);
    let elections = elections(&leaders);
    let bytes = new_member_bytes(&steps, &samples);
    let t = &inputs.timeline;
    let at = |k: StepKind| steps.iter().find(|s| s.step == k).map(|s| s.at_s);
    // The start as sampled (every 250 ms) may come after the ready line the
    // change printed: the add, sampled too, bounds it then.
    let caught_up = at(StepKind::Ready).or(at(StepKind::Promoted));
    let began = match (at(StepKind::Start), at(StepKind::Add), caught_up) {
        (Some(s), _, Some(c)) if s < c => Some(s),
        (_, Some(a), _) => Some(a),
        (s, None, _) => s,
    };
    // The change's own clock, when it printed progress: the first ready
    // line's time since its wait for the learner began.
    let printed = samples
        .progress
        .iter()
        .find(|p| p.catch_up.get("phase").and_then(|v| v.as_str()) == Some("ready"))
        .and_then(|p| p.catch_up.get("elapsed_seconds").and_then(|v| v.as_f64()));
    let catch_up_seconds = printed.or(match (began, caught_up) {
        (Some(a), Some(b)) if b >= a => Some(b - a),
        _ => None,
    });
    let floor = inputs
        .prediction
        .as_ref()
        .map(Prediction::link_floor_seconds);
    let summary = Summary {
        catch_up_seconds,
        link_floor_seconds: floor,
        catch_up_to_floor_ratio: match (catch_up_seconds, floor) {
            (Some(c), Some(f)) if f > 0.0 => Some(c / f),
            _ => None,
        },
        predicted_seconds: inputs.prediction.as_ref().and_then(|p| p.predicted_seconds),
        predicted_bytes: inputs.prediction.as_ref().map(|p| p.bytes),
        bytes_received: bytes.last().map(|(_, b)| *b),
        before: latency(&samples.writes, f64::NEG_INFINITY, t.change_started_s),
        during: latency(&samples.writes, t.change_started_s, t.settled_s),
        after: latency(&samples.writes, t.settled_s, f64::INFINITY),
        failed_writes: samples.writes.iter().filter(|w| !w.ok).count(),
        leader_changes: elections.len(),
        cost: inputs.cost,
    };
    RehearsalReport {
        schema: SCHEMA,
        started_unix_ms: inputs.started_unix_ms,
        settings: inputs.settings,
        change: inputs.change,
        timeline: inputs.timeline,
        prediction: inputs.prediction,
        per_second: per_second(&samples.writes),
        steps,
        leaders,
        elections,
        new_member_bytes: bytes,
        summary,
        samples,
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
