//! The JSON output: one document per command, snake_case keys, IDs as 16-digit hex strings.

use std::io::{self, Write};

use serde::Serialize;

mod docs;
use docs::*;

use super::format::Format;
use super::Report;
use super::SnapshotReport;
use crate::error::Unstarted;
use crate::model::Member;
use crate::model::{Configuration, MemberList};
use crate::testcluster::LocalCluster;
use crate::workflow::add::AddedMember;
use crate::workflow::apply::Applied;
use crate::workflow::autopilot::Reported;
use crate::workflow::calc::apply_plan::ApplyPlan;
use crate::workflow::calc::quorum::Plan;
use crate::workflow::cost::ChangeCost;
use crate::workflow::joint::JointEntered;
use crate::workflow::leader::Moved;
use crate::workflow::preflight::Check;
use crate::workflow::promote::Promoted;
use crate::workflow::prune::Pruned;
use crate::workflow::replace::Replaced;
use crate::workflow::status::ClusterStatus;
use crate::workflow::update::Updated;

fn write(out: &mut dyn Write, doc: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(io::Error::other)?;
    writeln!(out)
}

/// One JSON document per report, with a stable schema.
pub(super) struct Json;

impl Format for Json {
    fn member_list(&self, out: &mut dyn Write, l: &MemberList) -> io::Result<()> {
        write(
            out,
            &ListDoc {
                cluster_id: hex(l.cluster_id),
                members: members(&l.members),
            },
        )
    }

    fn added(&self, out: &mut dyn Write, a: &AddedMember) -> io::Result<()> {
        write(
            out,
            &AddDoc {
                cluster_id: hex(a.list.cluster_id),
                member: member(&a.member),
                members: members(&a.list.members),
                initial_cluster: &a.initial_cluster,
                initial_cluster_state: &a.initial_cluster_state,
                already_added: a.already_added,
            },
        )
    }

    fn promoted(&self, out: &mut dyn Write, p: &Promoted) -> io::Result<()> {
        write(
            out,
            &PromoteDoc {
                cluster_id: hex(p.list.cluster_id),
                member: member(&p.member),
                members: members(&p.list.members),
                waited_ms: p.waited.as_millis(),
                catch_up: p.catch_up.as_ref().map(catch_up_doc),
            },
        )
    }

    fn removed(
        &self,
        out: &mut dyn Write,
        _: &Member,
        list: &MemberList,
        moved: Option<&Moved>,
    ) -> io::Result<()> {
        write(
            out,
            &RemoveDoc {
                cluster_id: hex(list.cluster_id),
                members: members(&list.members),
                leader_moved: moved.map(moved_doc),
            },
        )
    }

    fn pruned(&self, out: &mut dyn Write, p: &Pruned) -> io::Result<()> {
        write(
            out,
            &PruneDoc {
                cluster_id: hex(p.list.cluster_id),
                dry_run: p.dry_run,
                watched_ms: p.watched.as_millis(),
                removed: pruned_docs(&p.removed),
                refused: pruned_docs(&p.refused),
                kept: pruned_docs(&p.kept),
                members: members(&p.list.members),
            },
        )
    }

    fn decision(&self, out: &mut dyn Write, r: &Reported) -> io::Result<()> {
        // One line per decision: a stream a script reads line by line.
        serde_json::to_writer(&mut *out, &decision_doc(r)).map_err(io::Error::other)?;
        writeln!(out)
    }

    fn chaos(
        &self,
        out: &mut dyn Write,
        e: &crate::testcluster::chaos::ChaosEvent,
    ) -> io::Result<()> {
        // One line per event: a stream a script reads line by line.
        serde_json::to_writer(&mut *out, &chaos_doc(e)).map_err(io::Error::other)?;
        writeln!(out)
    }

    fn rehearsed(
        &self,
        out: &mut dyn Write,
        r: &crate::testcluster::rehearse::Rehearsal,
    ) -> io::Result<()> {
        // report.json's own figures (the same serialization), without the samples.
        let doc = serde_json::json!({
            "report_html": r.report_dir.join("report.html"),
            "report_json": r.report_dir.join("report.json"),
            "change": {
                "command": r.change.command,
                "exit_code": r.change.exit_code,
                "ok": r.change.ok,
                "error": r.change.error,
            },
            "steps": r.steps,
            "summary": r.summary,
            "settled": r.settled,
        });
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::other)?;
        writeln!(out)
    }

    fn moved_leader(&self, out: &mut dyn Write, m: &Moved) -> io::Result<()> {
        write(
            out,
            &MoveLeaderDoc {
                cluster_id: hex(m.cluster_id),
                moved: moved_doc(m),
            },
        )
    }

    fn updated(&self, out: &mut dyn Write, u: &Updated) -> io::Result<()> {
        write(
            out,
            &ListDoc {
                cluster_id: hex(u.list.cluster_id),
                members: members(&u.list.members),
            },
        )
    }

    fn status(&self, out: &mut dyn Write, s: &ClusterStatus) -> io::Result<()> {
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
                    status: r.state(s.leader).as_str(),
                    force_new_cluster: match &r.start_flags {
                        Some(Ok(f)) => Some(f.force_new_cluster),
                        _ => None,
                    },
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
                voters: s.tolerance.voters,
                quorum: s.tolerance.quorum,
                answering_voters: s.tolerance.answering,
                fault_tolerance: s.tolerance.fault_tolerance,
                warnings: s.warnings(),
            },
        )
    }

    fn plan(&self, out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
        let steps: Vec<JsonStep> = plan.steps.iter().map(step).collect();
        write(
            out,
            &PlanDoc {
                plan: &steps,
                order: plan.order.as_ref().map(|o| o.first.as_str()),
                order_rule: plan.order.as_ref().map(|o| o.rule.as_str()),
            },
        )
    }

    fn snapshot(&self, out: &mut dyn Write, r: &SnapshotReport) -> io::Result<()> {
        write(
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
                data_dir: r.restored.as_ref().map(|x| x.data_dir.as_str()),
                member_id: r.restored.as_ref().map(|x| format!("{:016x}", x.member_id)),
                restored_revision: r.restored.as_ref().map(|x| x.revision),
                restored_compact_revision: r.restored.as_ref().map(|x| x.compact_revision),
            },
        )
    }

    fn apply_plan(&self, out: &mut dyn Write, p: &ApplyPlan) -> io::Result<()> {
        write(
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
        )
    }

    fn applied(&self, out: &mut dyn Write, a: &Applied) -> io::Result<()> {
        write(
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
                catch_up: a.catch_up.iter().map(catch_up_doc).collect(),
            },
        )
    }

    fn replaced(&self, out: &mut dyn Write, r: &Replaced) -> io::Result<()> {
        write(
            out,
            &ReplaceDoc {
                cluster_id: hex(r.list.cluster_id),
                removed: member(&r.removed),
                member: member(&r.member),
                members: members(&r.list.members),
                catch_up: r.catch_up.as_ref().map(catch_up_doc),
                order: r.order.as_ref().map(|o| o.first.as_str()),
                order_rule: r.order.as_ref().map(|o| o.rule.as_str()),
                steps: &r.steps,
            },
        )
    }

    fn config(&self, out: &mut dyn Write, c: &Configuration) -> io::Result<()> {
        write(
            out,
            &ConfigDoc {
                joint: c.is_joint(),
                voters: super::hex_ids(&c.voters),
                voters_outgoing: super::hex_ids(&c.voters_outgoing),
                learners: super::hex_ids(&c.learners),
                learners_next: super::hex_ids(&c.learners_next),
                auto_leave: c.auto_leave,
            },
        )
    }

    /// The configuration's document with a `catch_up` array beside its fields.
    fn joint_entered(&self, out: &mut dyn Write, e: &JointEntered) -> io::Result<()> {
        let mut buf = Vec::new();
        self.config(&mut buf, &e.config)?;
        let mut doc: serde_json::Value = serde_json::from_slice(&buf).map_err(io::Error::other)?;
        if let Some(fields) = doc.as_object_mut() {
            let docs: Vec<CatchUpDoc> = e.catch_up.iter().map(catch_up_doc).collect();
            let value = serde_json::to_value(docs).map_err(io::Error::other)?;
            fields.insert("catch_up".into(), value);
        }
        write(out, &doc)
    }

    fn checks(&self, out: &mut dyn Write, checks: &[Check]) -> io::Result<()> {
        write(
            out,
            &ChecksDoc {
                ok: !super::any_failed(checks),
                checks: check_docs(checks),
            },
        )
    }

    /// One JSON document with a `checks` array (the pre-flight checks it
    /// passed) beside the report's own fields.
    fn checked(&self, out: &mut dyn Write, inner: &Report, checks: &[Check]) -> io::Result<()> {
        let mut buf = Vec::new();
        super::format::write(self, &mut buf, inner)?;
        let mut doc: serde_json::Value = serde_json::from_slice(&buf).map_err(io::Error::other)?;
        if let Some(fields) = doc.as_object_mut() {
            let checks = serde_json::to_value(check_docs(checks)).map_err(io::Error::other)?;
            fields.insert("checks".into(), checks);
        }
        write(out, &doc)
    }

    /// One JSON document with a `cost` object beside the report's fields.
    fn costed(&self, out: &mut dyn Write, inner: &Report, cost: &ChangeCost) -> io::Result<()> {
        let mut buf = Vec::new();
        super::format::write(self, &mut buf, inner)?;
        let mut doc: serde_json::Value = serde_json::from_slice(&buf).map_err(io::Error::other)?;
        if let Some(fields) = doc.as_object_mut() {
            let cost = serde_json::json!({
                "leader_changes": cost.leader_changes,
                "heartbeat_send_failures": cost.heartbeat_send_failures,
                "slow_applies": cost.slow_applies,
                "members_read": cost.members_read,
                "members_not_counted": cost.members_not_counted,
            });
            fields.insert("cost".into(), cost);
        }
        write(out, &doc)
    }

    fn cluster(&self, out: &mut dyn Write, c: &LocalCluster) -> io::Result<()> {
        write(
            out,
            &ClusterDoc {
                dir: c.dir.display().to_string(),
                endpoints: c.endpoints(),
                leader: c.leader.map(hex),
                ready_ms: c.ready_ms,
                link: c.link.as_ref().map(|l| LinkDoc {
                    spec: l.spec.to_string(),
                    rtt_ms: l.spec.rtt().as_secs_f64() * 1000.0,
                    bandwidth_bits_per_s: l.spec.bandwidth_bits,
                    queue_bytes: l.spec.queue_bytes,
                    pid: l.pid,
                    running: l.pid.is_some(),
                }),
                server: match &c.etcd {
                    Some(b) => ServerDoc {
                        kind: "etcd",
                        version: b.version.clone(),
                        path: Some(b.path.display().to_string()),
                    },
                    None => ServerDoc {
                        kind: "engine",
                        version: env!("CARGO_PKG_VERSION").to_string(),
                        path: None,
                    },
                },
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
        )
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
