//! The simple output: plain comma-separated lines, like etcdctl's default format.

use std::io::{self, Write};

use super::{
    added_headline, config_rows, moved_line, removed_lines, replaced_headline, start_lines,
    started_word, Report,
};
use crate::model::Member;

fn member_line(m: &Member) -> String {
    format!(
        "{}, {}, {}, {}, {}, {}",
        m.id,
        started_word(m),
        m.name,
        m.peer_urls.join(","),
        m.client_urls.join(","),
        m.is_learner
    )
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Writes a report as plain lines.
pub fn report(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    match report {
        Report::MemberList(l) => {
            for m in &l.members {
                writeln!(out, "{}", member_line(m))?;
            }
        }
        Report::Added(a) => {
            writeln!(out, "{}", added_headline(a))?;
            writeln!(out)?;
            for line in start_lines(a) {
                writeln!(out, "{line}")?;
            }
        }
        Report::Promoted(p) => writeln!(
            out,
            "Member {} promoted in cluster {} (waited {:.1}s)",
            p.member.id,
            p.list.cluster_id,
            p.waited.as_secs_f64()
        )?,
        Report::Removed {
            removed,
            list,
            moved,
        } => {
            for line in removed_lines(removed, list, moved.as_deref()) {
                writeln!(out, "{line}")?;
            }
        }
        Report::MovedLeader(m) => writeln!(out, "{}", moved_line(m))?,
        Report::Updated(u) => {
            let note = if u.unchanged {
                " (unchanged, nothing sent)"
            } else {
                ""
            };
            writeln!(
                out,
                "Member {} updated in cluster {}{note}",
                u.member.id, u.list.cluster_id
            )?
        }
        Report::Status(s) => {
            for r in &s.rows {
                let ok = r.status.as_ref().ok();
                let leader = s.leader == Some(r.member.id);
                writeln!(
                    out,
                    "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}",
                    r.member.id,
                    r.member.name,
                    if ok.is_some() {
                        "reachable"
                    } else {
                        "unreachable"
                    },
                    if leader {
                        "leader"
                    } else if r.member.is_learner {
                        "learner"
                    } else {
                        "follower"
                    },
                    opt(ok.map(|s| s.raft_term)),
                    opt(ok.map(|s| s.raft_index)),
                    opt(ok.map(|s| s.raft_applied_index)),
                    r.member.is_learner,
                    opt(r.lag),
                    r.progress.as_ref().map_or("-", |p| p.state.as_str()),
                    ok.map_or("-", |s| s.version.as_str()),
                )?;
            }
        }
        Report::Plan(steps) => {
            for s in steps {
                let outgoing = match s.quorum_outgoing {
                    Some(q) => format!(
                        " voters_outgoing={} quorum_outgoing={q}",
                        s.voters_outgoing.len()
                    ),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "{}: voters={} learners={} quorum={}{outgoing} healthy_voters={} fault_tolerance={}",
                    s.step,
                    s.voters.len(),
                    s.learners.len(),
                    s.quorum,
                    s.healthy_voters,
                    s.fault_tolerance
                )?;
            }
            writeln!(out, "dry run: nothing was changed")?;
        }
        Report::Text(bytes) => out.write_all(bytes)?,
        Report::Snapshot(r) => {
            for line in super::snapshot_lines(r) {
                writeln!(out, "{line}")?;
            }
        }
        Report::Replaced(r) => writeln!(out, "{}", replaced_headline(r))?,
        Report::ApplyPlan(p) => {
            for line in super::apply_plan_lines(p) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "dry run: nothing was changed")?;
        }
        Report::Applied(a) => writeln!(out, "{}", super::applied_headline(a))?,
        Report::Config(c) => {
            writeln!(out, "joint: {}", c.is_joint())?;
            for (name, ids) in config_rows(c) {
                writeln!(out, "{name}: {}", ids.join(","))?;
            }
            writeln!(out, "auto_leave: {}", c.auto_leave)?;
        }
        Report::Checked { report: inner, .. } => self::report(out, inner)?,
        Report::Checks(checks) => {
            for c in checks {
                writeln!(
                    out,
                    "{}, {}, {}, {}, {}",
                    c.name,
                    c.verdict,
                    if c.members.is_empty() {
                        "-".to_string()
                    } else {
                        c.members.join(" ")
                    },
                    c.detail,
                    if c.remedy.is_empty() { "-" } else { &c.remedy },
                )?;
            }
        }
        Report::Cluster(c) => {
            // `member list`'s columns, then the local node's: leader, pid, log.
            for n in &c.nodes {
                writeln!(
                    out,
                    "{}, {}, {}, {}, {}, {}, {}, {}, {}",
                    n.id.map_or("-".to_string(), |i| i.to_string()),
                    n.status.as_str(),
                    n.name,
                    n.peer_url,
                    n.client_url,
                    n.is_learner.map_or("-".to_string(), |l| l.to_string()),
                    n.is_leader,
                    n.pid.map_or("-".to_string(), |p| p.to_string()),
                    n.log.display(),
                )?;
            }
            let eps = c.endpoints();
            if !eps.is_empty() {
                writeln!(out, "endpoints: {}", eps.join(","))?;
            }
        }
    }
    Ok(())
}
