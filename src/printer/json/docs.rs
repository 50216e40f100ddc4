//! The JSON documents' shapes: the stable schema scripts parse (snake_case
//! keys, IDs as 16-digit hex strings, absent values as null), and the
//! conversions of the shared parts (members, plan steps, checks).

use serde::Serialize;

use crate::model::{Member, MemberId};
use crate::workflow::calc::quorum::PlanStep;
use crate::workflow::catch_up::CatchUpSummary;
use crate::workflow::leader::Moved;
use crate::workflow::preflight::{Check, Figure, Figures};

#[derive(Serialize)]
pub(super) struct JsonMember<'a> {
    pub(super) id: String,
    pub(super) name: &'a str,
    pub(super) peer_urls: &'a [String],
    pub(super) client_urls: &'a [String],
    pub(super) is_learner: bool,
    pub(super) started: bool,
}

pub(super) fn member(m: &Member) -> JsonMember<'_> {
    JsonMember {
        id: m.id.to_string(),
        name: &m.name,
        peer_urls: &m.peer_urls,
        client_urls: &m.client_urls,
        is_learner: m.is_learner,
        started: m.started(),
    }
}

pub(super) fn members(ms: &[Member]) -> Vec<JsonMember<'_>> {
    ms.iter().map(member).collect()
}

#[derive(Serialize)]
pub(super) struct ListDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) members: Vec<JsonMember<'a>>,
}

#[derive(Serialize)]
pub(super) struct AddDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) member: JsonMember<'a>,
    pub(super) members: Vec<JsonMember<'a>>,
    pub(super) initial_cluster: &'a str,
    pub(super) initial_cluster_state: &'a str,
    pub(super) already_added: bool,
}

#[derive(Serialize)]
pub(super) struct ReplaceDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) removed: JsonMember<'a>,
    pub(super) member: JsonMember<'a>,
    pub(super) members: Vec<JsonMember<'a>>,
    pub(super) catch_up: Option<CatchUpDoc>,
    /// `remove_first` or `add_first`; `null` when nothing was left to do.
    pub(super) order: Option<&'static str>,
    /// The rule that chose the order, or `null`.
    pub(super) order_rule: Option<&'a str>,
    /// The steps this run took, by their names in the plan.
    pub(super) steps: &'a [String],
}

/// A learner's catch-up as the wait saw it.
#[derive(Serialize)]
pub(super) struct CatchUpDoc {
    pub(super) member: String,
    pub(super) bytes: Option<u64>,
    pub(super) seconds: f64,
    pub(super) predicted_seconds: Option<f64>,
    pub(super) phases: Vec<PhaseDoc>,
}

#[derive(Serialize)]
pub(super) struct PhaseDoc {
    pub(super) phase: &'static str,
    pub(super) seconds: f64,
}

pub(super) fn catch_up_doc(c: &CatchUpSummary) -> CatchUpDoc {
    CatchUpDoc {
        member: hex(c.member),
        bytes: c.bytes,
        seconds: c.seconds,
        predicted_seconds: c.predicted_seconds,
        phases: c
            .phases
            .iter()
            .map(|(p, s)| PhaseDoc {
                phase: p.as_str(),
                seconds: *s,
            })
            .collect(),
    }
}

#[derive(Serialize)]
pub(super) struct ApplyPlanDoc<'a> {
    pub(super) plan: Vec<ApplyStepDoc>,
    pub(super) fault_tolerance_before: usize,
    pub(super) lowest_fault_tolerance: usize,
    pub(super) warning: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct ApplyStepDoc {
    pub(super) step: usize,
    pub(super) action: &'static str,
    pub(super) member: String,
    pub(super) voters_after: usize,
    pub(super) quorum_after: usize,
    pub(super) fault_tolerance_after: usize,
}

#[derive(Serialize)]
pub(super) struct AppliedDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) nothing_to_do: bool,
    pub(super) steps: Vec<AppliedStepDoc<'a>>,
    pub(super) members: Vec<JsonMember<'a>>,
    pub(super) catch_up: Vec<CatchUpDoc>,
}

#[derive(Serialize)]
pub(super) struct AppliedStepDoc<'a> {
    pub(super) step: usize,
    pub(super) action: &'static str,
    pub(super) member: &'a str,
}

#[derive(Serialize)]
pub(super) struct PromoteDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) member: JsonMember<'a>,
    pub(super) members: Vec<JsonMember<'a>>,
    pub(super) waited_ms: u128,
    pub(super) catch_up: Option<CatchUpDoc>,
}

#[derive(Serialize)]
pub(super) struct StatusMember<'a> {
    #[serde(flatten)]
    pub(super) member: JsonMember<'a>,
    pub(super) reachable: bool,
    pub(super) raft_term: Option<u64>,
    pub(super) raft_index: Option<u64>,
    pub(super) raft_applied_index: Option<u64>,
    pub(super) lag: Option<u64>,
    pub(super) progress_state: Option<&'a str>,
    pub(super) match_index: Option<u64>,
    pub(super) version: Option<&'a str>,
    pub(super) error: Option<&'a str>,
    /// `leader`, `follower`, `learner`, `no_leader`, `unreachable`.
    pub(super) status: &'static str,
    /// Whether it runs with `--force-new-cluster`; `null` when not read.
    pub(super) force_new_cluster: Option<bool>,
}

#[derive(Serialize)]
pub(super) struct MovedDoc<'a> {
    pub(super) from: JsonMember<'a>,
    pub(super) to: JsonMember<'a>,
    pub(super) took_ms: u128,
}

#[derive(Serialize)]
pub(super) struct SnapshotDoc<'a> {
    pub(super) action: &'a str,
    pub(super) file: &'a str,
    pub(super) size: u64,
    pub(super) format: &'a str,
    pub(super) revision: Option<i64>,
    pub(super) compact_revision: Option<i64>,
    pub(super) records: Option<u64>,
    pub(super) leases: Option<usize>,
    pub(super) hash: Option<u32>,
    pub(super) total_key: Option<u64>,
    pub(super) total_size: Option<u64>,
    pub(super) sha256: Option<&'a str>,
    pub(super) data_dir: Option<&'a str>,
    pub(super) member_id: Option<String>,
    pub(super) restored_revision: Option<i64>,
    pub(super) restored_compact_revision: Option<i64>,
}

#[derive(Serialize)]
pub(super) struct MoveLeaderDoc<'a> {
    pub(super) cluster_id: String,
    #[serde(flatten)]
    pub(super) moved: MovedDoc<'a>,
}

#[derive(Serialize)]
pub(super) struct RemoveDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) members: Vec<JsonMember<'a>>,
    pub(super) leader_moved: Option<MovedDoc<'a>>,
}

pub(super) fn moved_doc(m: &Moved) -> MovedDoc<'_> {
    MovedDoc {
        from: member(&m.from),
        to: member(&m.to),
        took_ms: m.took.as_millis(),
    }
}

#[derive(Serialize)]
pub(super) struct StatusDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) leader: Option<String>,
    pub(super) members: Vec<StatusMember<'a>>,
    pub(super) quorum_lost: Option<QuorumLostDoc>,
    pub(super) voters: usize,
    pub(super) quorum: usize,
    pub(super) answering_voters: usize,
    pub(super) fault_tolerance: usize,
    pub(super) warnings: Vec<String>,
}

/// `member status`'s diagnosis of a lost quorum.
#[derive(Serialize)]
pub(super) struct QuorumLostDoc {
    pub(super) voters: usize,
    pub(super) quorum: usize,
    pub(super) answering: Vec<String>,
    pub(super) lost: Vec<String>,
    pub(super) survivor: Option<SurvivorDoc>,
    pub(super) steps: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct SurvivorDoc {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) raft_term: u64,
    pub(super) raft_index: u64,
}

#[derive(Serialize)]
pub(super) struct PlanDoc<'a> {
    pub(super) plan: &'a [JsonStep<'a>],
    /// `remove_first` or `add_first` (`member replace`), else `null`.
    pub(super) order: Option<&'static str>,
    /// The rule that chose the order, else `null`.
    pub(super) order_rule: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct JsonStep<'a> {
    pub(super) step: &'a str,
    pub(super) voters: &'a [String],
    pub(super) voters_outgoing: &'a [String],
    pub(super) learners: &'a [String],
    pub(super) quorum: usize,
    pub(super) quorum_outgoing: Option<usize>,
    pub(super) healthy_voters: usize,
    pub(super) fault_tolerance: usize,
}

pub(super) fn step(s: &PlanStep) -> JsonStep<'_> {
    JsonStep {
        step: &s.step,
        voters: &s.voters,
        voters_outgoing: &s.voters_outgoing,
        learners: &s.learners,
        quorum: s.quorum,
        quorum_outgoing: s.quorum_outgoing,
        healthy_voters: s.healthy_voters,
        fault_tolerance: s.fault_tolerance,
    }
}

#[derive(Serialize)]
pub(super) struct ClusterDoc<'a> {
    pub(super) dir: String,
    pub(super) endpoints: Vec<&'a str>,
    pub(super) leader: Option<String>,
    pub(super) ready_ms: Option<u128>,
    pub(super) link: Option<LinkDoc>,
    pub(super) server: ServerDoc,
    pub(super) nodes: Vec<NodeDoc<'a>>,
}

/// The server a local cluster's members run: `engine` (memberctl's, its
/// version memberctl's) or `etcd` (the operator's binary: its version and path).
#[derive(Serialize)]
pub(super) struct ServerDoc {
    pub(super) kind: &'static str,
    pub(super) version: String,
    pub(super) path: Option<String>,
}

/// The link model between the members of a local cluster.
#[derive(Serialize)]
pub(super) struct LinkDoc {
    pub(super) spec: String,
    pub(super) rtt_ms: f64,
    pub(super) bandwidth_bits_per_s: u64,
    pub(super) queue_bytes: u64,
    pub(super) pid: Option<u32>,
    pub(super) running: bool,
}

#[derive(Serialize)]
pub(super) struct NodeDoc<'a> {
    pub(super) id: Option<String>,
    pub(super) status: &'a str,
    pub(super) name: &'a str,
    pub(super) peer_url: &'a str,
    pub(super) client_url: &'a str,
    pub(super) is_learner: Option<bool>,
    pub(super) is_leader: bool,
    pub(super) pid: Option<u32>,
    pub(super) running: bool,
    pub(super) log: String,
}

#[derive(Serialize)]
pub(super) struct ConfigDoc {
    pub(super) joint: bool,
    pub(super) voters: Vec<String>,
    pub(super) voters_outgoing: Vec<String>,
    pub(super) learners: Vec<String>,
    pub(super) learners_next: Vec<String>,
    pub(super) auto_leave: bool,
}

#[derive(Serialize)]
pub(super) struct ChecksDoc<'a> {
    pub(super) ok: bool,
    pub(super) checks: Vec<CheckDoc<'a>>,
}

#[derive(Serialize)]
pub(super) struct CheckDoc<'a> {
    pub(super) name: &'a str,
    pub(super) result: &'a str,
    pub(super) members: &'a [String],
    pub(super) detail: &'a str,
    pub(super) remedy: &'a str,
    pub(super) skipped: bool,
    /// Its numbers by name: a number, an object of numbers by member, or a word.
    pub(super) figures: serde_json::Map<String, serde_json::Value>,
}

/// A check's figures as a JSON object (numbers that are not finite left out).
pub(super) fn figures_doc(f: &Figures) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::Value;
    let number = |v: f64| serde_json::Number::from_f64(v).map(Value::Number);
    f.0.iter()
        .filter_map(|(name, figure)| {
            let value = match figure {
                Figure::Number(v) => number(*v)?,
                Figure::Text(t) => Value::String(t.clone()),
                Figure::PerMember(each) => Value::Object(
                    each.iter()
                        .filter_map(|(m, v)| Some((m.clone(), number(*v)?)))
                        .collect(),
                ),
                Figure::PerMemberText(each) => Value::Object(
                    each.iter()
                        .map(|(m, t)| (m.clone(), Value::String(t.clone())))
                        .collect(),
                ),
            };
            Some((name.to_string(), value))
        })
        .collect()
}

#[derive(Serialize)]
pub(super) struct ErrorDoc<'a> {
    pub(super) error: ErrorBody<'a>,
}

#[derive(Serialize)]
pub(super) struct ErrorBody<'a> {
    pub(super) kind: &'a str,
    pub(super) message: &'a str,
    pub(super) problems: &'a [String],
    pub(super) unstarted: Vec<UnstartedDoc<'a>>,
}

#[derive(Serialize)]
pub(super) struct UnstartedDoc<'a> {
    pub(super) id: &'a str,
    pub(super) peer_urls: &'a [String],
    pub(super) is_learner: bool,
}

pub(super) fn hex(id: MemberId) -> String {
    id.to_string()
}

pub(super) fn check_docs(checks: &[Check]) -> Vec<CheckDoc<'_>> {
    checks
        .iter()
        .map(|c| CheckDoc {
            name: c.name.as_str(),
            result: c.verdict.as_str(),
            members: &c.members,
            detail: &c.detail,
            remedy: &c.remedy,
            skipped: c.skipped,
            figures: figures_doc(&c.figures),
        })
        .collect()
}

/// `member prune`'s document.
#[derive(Serialize)]
pub(super) struct PruneDoc<'a> {
    pub(super) cluster_id: String,
    pub(super) dry_run: bool,
    pub(super) watched_ms: u128,
    pub(super) removed: Vec<PrunedDoc<'a>>,
    pub(super) refused: Vec<PrunedDoc<'a>>,
    pub(super) kept: Vec<PrunedDoc<'a>>,
    pub(super) members: Vec<JsonMember<'a>>,
}

/// A member `member prune` judged, and why.
#[derive(Serialize)]
pub(super) struct PrunedDoc<'a> {
    pub(super) member: JsonMember<'a>,
    pub(super) reason: &'static str,
    pub(super) detail: String,
}

pub(super) fn pruned_docs(ms: &[crate::workflow::prune::PrunedMember]) -> Vec<PrunedDoc<'_>> {
    ms.iter()
        .map(|m| PrunedDoc {
            member: member(&m.member),
            reason: m.reason.as_str(),
            detail: m.reason.to_string(),
        })
        .collect()
}

/// One `autopilot` decision: a JSON line.
#[derive(Serialize)]
pub(super) struct DecisionDoc<'a> {
    pub(super) at_ms: u128,
    pub(super) unix_ms: u64,
    pub(super) autopilot: &'a str,
    pub(super) leader: Option<String>,
    pub(super) action: &'static str,
    pub(super) reason: &'static str,
    pub(super) phase: &'static str,
    pub(super) member: Option<JsonMember<'a>>,
    pub(super) standby: Option<JsonMember<'a>>,
    pub(super) detail: String,
    pub(super) error: Option<&'a str>,
}

pub(super) fn decision_doc(r: &crate::workflow::autopilot::Reported) -> DecisionDoc<'_> {
    use crate::workflow::autopilot::{Action, Phase};
    let d = &r.decision;
    DecisionDoc {
        at_ms: r.at.as_millis(),
        // Printed as it is made: now, to line it up with other logs.
        unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        autopilot: &r.autopilot,
        leader: r.leader.map(|l| l.to_string()),
        action: d.action.as_str(),
        reason: d.why.as_str(),
        phase: r.phase.as_str(),
        member: d.about.as_ref().or(d.action.member()).map(member),
        standby: match &d.action {
            Action::Replace { standby, .. } | Action::PromoteStandby { standby } => {
                Some(member(standby))
            }
            _ => None,
        },
        detail: r.sentence(),
        error: match &r.phase {
            Phase::Failed(e) => Some(e),
            _ => None,
        },
    }
}

/// One `cluster chaos` event: a JSON line.
#[derive(Serialize)]
pub(super) struct ChaosDoc<'a> {
    pub(super) at_ms: u128,
    pub(super) unix_ms: u64,
    pub(super) seq: u64,
    pub(super) fault: &'static str,
    pub(super) phase: &'static str,
    pub(super) member: Option<&'a str>,
    pub(super) member_id: Option<String>,
    pub(super) voter: Option<bool>,
    pub(super) detail: &'a str,
}

pub(super) fn chaos_doc(e: &crate::testcluster::chaos::ChaosEvent) -> ChaosDoc<'_> {
    ChaosDoc {
        at_ms: e.at.as_millis(),
        unix_ms: e.unix_ms,
        seq: e.seq,
        fault: e.fault.as_str(),
        phase: e.phase.as_str(),
        member: e.member.as_deref(),
        member_id: e.member_id.map(|i| i.to_string()),
        voter: e.voter,
        detail: &e.detail,
    }
}
