//! The JSON output: one document per command, snake_case keys, IDs as 16-digit hex strings.

use std::io::{self, Write};

use serde::Serialize;

use super::Report;
use crate::error::Unstarted;
use crate::model::{Member, MemberId};
use crate::workflow::preflight::Check;
use crate::workflow::quorum::PlanStep;

#[derive(Serialize)]
struct JsonMember<'a> {
    id: String,
    name: &'a str,
    peer_urls: &'a [String],
    client_urls: &'a [String],
    is_learner: bool,
    started: bool,
}

fn member(m: &Member) -> JsonMember<'_> {
    JsonMember {
        id: m.id.to_string(),
        name: &m.name,
        peer_urls: &m.peer_urls,
        client_urls: &m.client_urls,
        is_learner: m.is_learner,
        started: m.started(),
    }
}

fn members(ms: &[Member]) -> Vec<JsonMember<'_>> {
    ms.iter().map(member).collect()
}

#[derive(Serialize)]
struct ListDoc<'a> {
    cluster_id: String,
    members: Vec<JsonMember<'a>>,
}

#[derive(Serialize)]
struct AddDoc<'a> {
    cluster_id: String,
    member: JsonMember<'a>,
    members: Vec<JsonMember<'a>>,
    initial_cluster: &'a str,
    initial_cluster_state: &'a str,
    already_added: bool,
}

#[derive(Serialize)]
struct ReplaceDoc<'a> {
    cluster_id: String,
    removed: JsonMember<'a>,
    member: JsonMember<'a>,
    members: Vec<JsonMember<'a>>,
}

#[derive(Serialize)]
struct ApplyPlanDoc<'a> {
    plan: Vec<ApplyStepDoc>,
    fault_tolerance_before: usize,
    lowest_fault_tolerance: usize,
    warning: Option<&'a str>,
}

#[derive(Serialize)]
struct ApplyStepDoc {
    step: usize,
    action: &'static str,
    member: String,
    voters_after: usize,
    quorum_after: usize,
    fault_tolerance_after: usize,
}

#[derive(Serialize)]
struct AppliedDoc<'a> {
    cluster_id: String,
    nothing_to_do: bool,
    steps: Vec<AppliedStepDoc<'a>>,
    members: Vec<JsonMember<'a>>,
}

#[derive(Serialize)]
struct AppliedStepDoc<'a> {
    step: usize,
    action: &'static str,
    member: &'a str,
}

#[derive(Serialize)]
struct PromoteDoc<'a> {
    cluster_id: String,
    member: JsonMember<'a>,
    members: Vec<JsonMember<'a>>,
    waited_ms: u128,
}

#[derive(Serialize)]
struct StatusMember<'a> {
    #[serde(flatten)]
    member: JsonMember<'a>,
    reachable: bool,
    raft_term: Option<u64>,
    raft_index: Option<u64>,
    raft_applied_index: Option<u64>,
    lag: Option<u64>,
    progress_state: Option<&'a str>,
    match_index: Option<u64>,
    version: Option<&'a str>,
    error: Option<&'a str>,
}

#[derive(Serialize)]
struct MovedDoc<'a> {
    from: JsonMember<'a>,
    to: JsonMember<'a>,
    took_ms: u128,
}

#[derive(Serialize)]
struct SnapshotDoc<'a> {
    action: &'a str,
    file: &'a str,
    size: u64,
    format: &'a str,
    revision: Option<i64>,
    compact_revision: Option<i64>,
    records: Option<u64>,
    leases: Option<usize>,
    hash: Option<u32>,
    total_key: Option<u64>,
    total_size: Option<u64>,
    sha256: Option<&'a str>,
    data_dir: Option<&'a str>,
    member_id: Option<String>,
}

#[derive(Serialize)]
struct MoveLeaderDoc<'a> {
    cluster_id: String,
    #[serde(flatten)]
    moved: MovedDoc<'a>,
}

#[derive(Serialize)]
struct RemoveDoc<'a> {
    cluster_id: String,
    members: Vec<JsonMember<'a>>,
    leader_moved: Option<MovedDoc<'a>>,
}

fn moved(m: &crate::workflow::leader::Moved) -> MovedDoc<'_> {
    MovedDoc {
        from: member(&m.from),
        to: member(&m.to),
        took_ms: m.took.as_millis(),
    }
}

#[derive(Serialize)]
struct StatusDoc<'a> {
    cluster_id: String,
    leader: Option<String>,
    members: Vec<StatusMember<'a>>,
    quorum_lost: Option<QuorumLostDoc>,
}

/// `member status`'s diagnosis of a lost quorum.
#[derive(Serialize)]
struct QuorumLostDoc {
    voters: usize,
    quorum: usize,
    answering: Vec<String>,
    lost: Vec<String>,
    survivor: Option<SurvivorDoc>,
    steps: Vec<String>,
}

#[derive(Serialize)]
struct SurvivorDoc {
    id: String,
    name: String,
    raft_term: u64,
    raft_index: u64,
}

#[derive(Serialize)]
struct PlanDoc<'a> {
    plan: &'a [JsonStep<'a>],
}

#[derive(Serialize)]
struct JsonStep<'a> {
    step: &'a str,
    voters: &'a [String],
    voters_outgoing: &'a [String],
    learners: &'a [String],
    quorum: usize,
    quorum_outgoing: Option<usize>,
    healthy_voters: usize,
    fault_tolerance: usize,
}

fn step(s: &PlanStep) -> JsonStep<'_> {
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
struct ClusterDoc<'a> {
    dir: String,
    endpoints: Vec<&'a str>,
    leader: Option<String>,
    ready_ms: Option<u128>,
    nodes: Vec<NodeDoc<'a>>,
}

#[derive(Serialize)]
struct NodeDoc<'a> {
    id: Option<String>,
    status: &'a str,
    name: &'a str,
    peer_url: &'a str,
    client_url: &'a str,
    is_learner: Option<bool>,
    is_leader: bool,
    pid: Option<u32>,
    running: bool,
    log: String,
}

#[derive(Serialize)]
struct ConfigDoc {
    joint: bool,
    voters: Vec<String>,
    voters_outgoing: Vec<String>,
    learners: Vec<String>,
    learners_next: Vec<String>,
    auto_leave: bool,
}

#[derive(Serialize)]
struct ChecksDoc<'a> {
    ok: bool,
    checks: Vec<CheckDoc<'a>>,
}

#[derive(Serialize)]
struct CheckDoc<'a> {
    name: &'a str,
    result: &'a str,
    members: &'a [String],
    detail: &'a str,
    remedy: &'a str,
    skipped: bool,
}

#[derive(Serialize)]
struct ErrorDoc<'a> {
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    kind: &'a str,
    message: &'a str,
    problems: &'a [String],
    unstarted: Vec<UnstartedDoc<'a>>,
}

#[derive(Serialize)]
struct UnstartedDoc<'a> {
    id: &'a str,
    peer_urls: &'a [String],
    is_learner: bool,
}

fn write(out: &mut dyn Write, doc: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(io::Error::other)?;
    writeln!(out)
}

fn hex(id: MemberId) -> String {
    id.to_string()
}

fn check_docs(checks: &[Check]) -> Vec<CheckDoc<'_>> {
    checks
        .iter()
        .map(|c| CheckDoc {
            name: c.name.as_str(),
            result: c.verdict.as_str(),
            members: &c.members,
            detail: &c.detail,
            remedy: &c.remedy,
            skipped: c.skipped,
        })
        .collect()
}

/// Writes a change's report as one JSON document with a `checks` array (the
/// pre-flight checks it passed) beside the report's own fields.
pub fn checked(out: &mut dyn Write, inner: &Report, checks: &[Check]) -> io::Result<()> {
    let mut buf = Vec::new();
    report(&mut buf, inner)?;
    let mut doc: serde_json::Value = serde_json::from_slice(&buf).map_err(io::Error::other)?;
    if let Some(fields) = doc.as_object_mut() {
        let checks = serde_json::to_value(check_docs(checks)).map_err(io::Error::other)?;
        fields.insert("checks".into(), checks);
    }
    write(out, &doc)
}

/// Writes a report as one JSON document.
pub fn report(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    match report {
        Report::MemberList(l) => write(
            out,
            &ListDoc {
                cluster_id: hex(l.cluster_id),
                members: members(&l.members),
            },
        ),
        Report::Added(a) => write(
            out,
            &AddDoc {
                cluster_id: hex(a.list.cluster_id),
                member: member(&a.member),
                members: members(&a.list.members),
                initial_cluster: &a.initial_cluster,
                initial_cluster_state: &a.initial_cluster_state,
                already_added: a.already_added,
            },
        ),
        Report::Promoted(p) => write(
            out,
            &PromoteDoc {
                cluster_id: hex(p.list.cluster_id),
                member: member(&p.member),
                members: members(&p.list.members),
                waited_ms: p.waited.as_millis(),
            },
        ),
        Report::Removed { list, moved: m, .. } => write(
            out,
            &RemoveDoc {
                cluster_id: hex(list.cluster_id),
                members: members(&list.members),
                leader_moved: m.as_deref().map(moved),
            },
        ),
        Report::MovedLeader(m) => write(
            out,
            &MoveLeaderDoc {
                cluster_id: hex(m.cluster_id),
                moved: moved(m),
            },
        ),
        Report::Updated(u) => write(
            out,
            &ListDoc {
                cluster_id: hex(u.list.cluster_id),
                members: members(&u.list.members),
            },
        ),
        Report::Status(s) => {
            let rows = s
                .rows
                .iter()
                .map(|r| {
                    let ok = r.status.as_ref().ok();
                    StatusMember {
                        member: member(&r.member),
                        reachable: ok.is_some(),
                        raft_term: ok.map(|s| s.raft_term),
                        raft_index: ok.map(|s| s.raft_index),
                        raft_applied_index: ok.map(|s| s.raft_applied_index),
                        lag: r.lag,
                        progress_state: r.progress.as_ref().map(|p| p.state.as_str()),
                        match_index: r.progress.as_ref().map(|p| p.matched),
                        version: ok.map(|s| s.version.as_str()),
                        error: r.status.as_ref().err().map(|e| e.message.as_str()),
                    }
                })
                .collect();
            write(
                out,
                &StatusDoc {
                    cluster_id: hex(s.cluster_id),
                    leader: s.leader.map(hex),
                    members: rows,
                    quorum_lost: s.quorum_lost.as_ref().map(|q| QuorumLostDoc {
                        voters: q.voters,
                        quorum: q.quorum,
                        answering: q.answering.iter().map(|m| hex(m.id)).collect(),
                        lost: q.lost.iter().map(|m| hex(m.id)).collect(),
                        survivor: q.survivor.as_ref().map(|(m, term, index)| SurvivorDoc {
                            id: hex(m.id),
                            name: m.name.clone(),
                            raft_term: *term,
                            raft_index: *index,
                        }),
                        steps: q.advice(),
                    }),
                },
            )
        }
        Report::Plan(steps) => {
            let steps: Vec<JsonStep> = steps.iter().map(step).collect();
            write(out, &PlanDoc { plan: &steps })
        }
        Report::Text(bytes) => out.write_all(bytes),
        Report::Snapshot(r) => write(
            out,
            &SnapshotDoc {
                action: r.action,
                file: &r.file,
                size: r.size,
                format: r.format,
                revision: (r.content.as_ref().map(|c| c.revision))
                    .or(r.etcd.as_ref().map(|e| e.revision)),
                compact_revision: r.content.as_ref().map(|c| c.compact_revision),
                records: r.content.as_ref().map(|c| c.records),
                leases: r.content.as_ref().map(|c| c.leases),
                hash: r.etcd.as_ref().map(|e| e.hash),
                total_key: r.etcd.as_ref().map(|e| e.total_key),
                total_size: r.etcd.as_ref().map(|e| e.total_size),
                sha256: (r.content.as_ref().map(|c| c.sha256.as_str()))
                    .filter(|s| !s.is_empty())
                    .or(r.etcd.as_ref().and_then(|e| e.sha256.as_deref())),
                data_dir: r.restored.as_ref().map(|(d, _)| d.as_str()),
                member_id: r.restored.as_ref().map(|(_, id)| format!("{id:016x}")),
            },
        ),
        Report::ApplyPlan(p) => write(
            out,
            &ApplyPlanDoc {
                plan: p
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| ApplyStepDoc {
                        step: i + 1,
                        action: s.action.name(),
                        member: s.action.member(),
                        voters_after: s.voters_after,
                        quorum_after: s.quorum_after,
                        fault_tolerance_after: s.fault_tolerance_after,
                    })
                    .collect(),
                fault_tolerance_before: p.fault_tolerance_before,
                lowest_fault_tolerance: p.lowest_fault_tolerance,
                warning: p.warning.as_deref(),
            },
        ),
        Report::Applied(a) => write(
            out,
            &AppliedDoc {
                cluster_id: hex(a.list.cluster_id),
                nothing_to_do: a.steps.is_empty(),
                steps: a
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| AppliedStepDoc {
                        step: i + 1,
                        action: s.action,
                        member: &s.member,
                    })
                    .collect(),
                members: members(&a.list.members),
            },
        ),
        Report::Replaced(r) => write(
            out,
            &ReplaceDoc {
                cluster_id: hex(r.list.cluster_id),
                removed: member(&r.removed),
                member: member(&r.member),
                members: members(&r.list.members),
            },
        ),
        Report::Config(c) => write(
            out,
            &ConfigDoc {
                joint: c.is_joint(),
                voters: super::hex_ids(&c.voters),
                voters_outgoing: super::hex_ids(&c.voters_outgoing),
                learners: super::hex_ids(&c.learners),
                learners_next: super::hex_ids(&c.learners_next),
                auto_leave: c.auto_leave,
            },
        ),
        Report::Checked {
            report: inner,
            checks,
        } => checked(out, inner, checks),
        Report::Checks(checks) => write(
            out,
            &ChecksDoc {
                ok: !report.refuses(),
                checks: check_docs(checks),
            },
        ),
        Report::Cluster(c) => write(
            out,
            &ClusterDoc {
                dir: c.dir.display().to_string(),
                endpoints: c.endpoints(),
                leader: c.leader.map(hex),
                ready_ms: c.ready_ms,
                nodes: c
                    .nodes
                    .iter()
                    .map(|n| NodeDoc {
                        id: n.id.map(hex),
                        status: n.status.as_str(),
                        name: &n.name,
                        peer_url: &n.peer_url,
                        client_url: &n.client_url,
                        is_learner: n.is_learner,
                        is_leader: n.is_leader,
                        pid: n.pid,
                        running: n.running,
                        log: n.log.display().to_string(),
                    })
                    .collect(),
            },
        ),
    }
}

/// Writes `{"error": {"kind", "message", "problems", "unstarted"}}`.
pub fn error(
    out: &mut dyn Write,
    kind: &str,
    message: &str,
    problems: &[String],
    unstarted: &[Unstarted],
) -> io::Result<()> {
    let unstarted = unstarted
        .iter()
        .map(|m| UnstartedDoc {
            id: &m.id,
            peer_urls: &m.peer_urls,
            is_learner: m.is_learner,
        })
        .collect();
    write(
        out,
        &ErrorDoc {
            error: ErrorBody {
                kind,
                message,
                problems,
                unstarted,
            },
        },
    )?;
    out.flush()
}
