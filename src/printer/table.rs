//! The table output for people (comfy-table), with the same columns as etcdctl where it has them.

use std::io::{self, Write};

use comfy_table::{CellAlignment, ContentArrangement, Table};

use super::{
    added_headline, config_rows, moved_line, removed_lines, replaced_headline, start_lines,
    started_word, Report,
};
use crate::model::Member;

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    // etcdctl-style: full borders, a plain rule under the header, no rules between rows.
    t.load_preset("||--+-++|    ++++++")
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.to_vec());
    t
}

fn members_table(ms: &[Member]) -> Table {
    let mut t = table(&[
        "ID",
        "STATUS",
        "NAME",
        "PEER ADDRS",
        "CLIENT ADDRS",
        "IS LEARNER",
    ]);
    for m in ms {
        t.add_row(vec![
            m.id.to_string(),
            started_word(m).to_string(),
            m.name.clone(),
            m.peer_urls.join(","),
            m.client_urls.join(","),
            m.is_learner.to_string(),
        ]);
    }
    t
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

/// Writes a report as a table (with a headline where the command changed something).
pub fn report(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    match report {
        Report::MemberList(l) => writeln!(out, "{}", members_table(&l.members))?,
        Report::Added(a) => {
            writeln!(out, "{}", added_headline(a))?;
            writeln!(out, "{}", members_table(std::slice::from_ref(&a.member)))?;
            writeln!(out, "Start the new member with these settings:")?;
            for line in start_lines(a) {
                writeln!(out, "{line}")?;
            }
        }
        Report::Promoted(p) => {
            writeln!(
                out,
                "Member {} promoted in cluster {} (waited {:.1}s)",
                p.member.id,
                p.list.cluster_id,
                p.waited.as_secs_f64()
            )?;
            writeln!(out, "{}", members_table(&p.list.members))?;
        }
        Report::MovedLeader(m) => writeln!(out, "{}", moved_line(m))?,
        Report::Removed {
            removed,
            list,
            moved,
        } => {
            for line in removed_lines(removed, list, moved.as_deref()) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "{}", members_table(&list.members))?;
        }
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
            )?;
            writeln!(out, "{}", members_table(&u.list.members))?;
        }
        Report::Status(s) => {
            let mut t = table(&[
                "ID",
                "NAME",
                "REACHABLE",
                "LEADER",
                "LEARNER",
                "RAFT TERM",
                "RAFT INDEX",
                "APPLIED INDEX",
                "LAG",
                "STATE",
                "VERSION",
                "ERROR",
            ]);
            for r in &s.rows {
                let ok = r.status.as_ref().ok();
                t.add_row(vec![
                    r.member.id.to_string(),
                    r.member.name.clone(),
                    ok.is_some().to_string(),
                    (s.leader == Some(r.member.id)).to_string(),
                    r.member.is_learner.to_string(),
                    opt(ok.map(|s| s.raft_term)),
                    opt(ok.map(|s| s.raft_index)),
                    opt(ok.map(|s| s.raft_applied_index)),
                    opt(r.lag),
                    r.progress
                        .as_ref()
                        .map_or(String::new(), |p| p.state.clone()),
                    ok.map_or(String::new(), |s| s.version.clone()),
                    r.status
                        .as_ref()
                        .err()
                        .map_or(String::new(), |e| e.message.clone()),
                ]);
            }
            for col in 5..9 {
                if let Some(c) = t.column_mut(col) {
                    c.set_cell_alignment(CellAlignment::Right);
                }
            }
            writeln!(out, "{t}")?;
        }
        Report::Plan(steps) => {
            let mut t = table(&[
                "STEP",
                "VOTERS",
                "OUTGOING VOTERS",
                "LEARNERS",
                "QUORUM",
                "HEALTHY VOTERS",
                "FAULT TOLERANCE",
            ]);
            for s in steps {
                let quorum = match s.quorum_outgoing {
                    Some(q) => format!("{} and {q}", s.quorum),
                    None => s.quorum.to_string(),
                };
                t.add_row(vec![
                    s.step.clone(),
                    s.voters.join(","),
                    s.voters_outgoing.join(","),
                    s.learners.join(","),
                    quorum,
                    s.healthy_voters.to_string(),
                    s.fault_tolerance.to_string(),
                ]);
            }
            writeln!(out, "{t}")?;
            writeln!(out, "Dry run: nothing was changed.")?;
        }
        Report::Text(bytes) => out.write_all(bytes)?,
        Report::Snapshot(r) => {
            for line in super::snapshot_lines(r) {
                writeln!(out, "{line}")?;
            }
        }
        Report::ApplyPlan(p) => {
            let mut t = table(&[
                "STEP",
                "ACTION",
                "MEMBER",
                "VOTERS AFTER",
                "QUORUM AFTER",
                "FAULT TOLERANCE AFTER",
            ]);
            for (i, s) in p.steps.iter().enumerate() {
                t.add_row(vec![
                    (i + 1).to_string(),
                    s.action.name().to_string(),
                    s.action.member(),
                    s.voters_after.to_string(),
                    s.quorum_after.to_string(),
                    s.fault_tolerance_after.to_string(),
                ]);
            }
            if p.steps.is_empty() {
                writeln!(out, "Nothing to do: the cluster has the target membership.")?;
            } else {
                writeln!(out, "{t}")?;
            }
            if let Some(w) = &p.warning {
                writeln!(out, "Warning: {w}")?;
            }
            writeln!(out, "Dry run: nothing was changed.")?;
        }
        Report::Applied(a) => {
            writeln!(out, "{}", super::applied_headline(a))?;
            writeln!(out, "{}", members_table(&a.list.members))?;
        }
        Report::Replaced(r) => {
            writeln!(out, "{}", replaced_headline(r))?;
            writeln!(out, "{}", members_table(&r.list.members))?;
        }
        Report::Config(c) => {
            let mut t = table(&["CONFIGURATION", "MEMBERS"]);
            t.add_row(vec!["joint".to_string(), c.is_joint().to_string()]);
            for (name, ids) in config_rows(c) {
                t.add_row(vec![name.to_string(), ids.join(",")]);
            }
            t.add_row(vec!["auto_leave".to_string(), c.auto_leave.to_string()]);
            writeln!(out, "{t}")?;
        }
        Report::Checked { report: inner, .. } => self::report(out, inner)?,
        Report::Checks(checks) => {
            let mut t = table(&["CHECK", "MEMBER", "RESULT", "DETAIL", "WHAT TO DO"]);
            t.set_content_arrangement(ContentArrangement::Dynamic);
            for c in checks {
                t.add_row(vec![
                    c.name.to_string(),
                    c.members.join("\n"),
                    c.verdict.to_string(),
                    c.detail.clone(),
                    c.remedy.clone(),
                ]);
            }
            writeln!(out, "{t}")?;
        }
        Report::Cluster(c) => {
            // `member list`'s columns, then the local node's.
            let mut t = table(&[
                "ID",
                "STATUS",
                "NAME",
                "PEER ADDRS",
                "CLIENT ADDRS",
                "IS LEARNER",
                "IS LEADER",
                "PID",
                "LOG",
            ]);
            for n in &c.nodes {
                t.add_row(vec![
                    n.id.map_or(String::new(), |i| i.to_string()),
                    n.status.as_str().to_string(),
                    n.name.clone(),
                    n.peer_url.clone(),
                    n.client_url.clone(),
                    n.is_learner.map_or(String::new(), |l| l.to_string()),
                    n.is_leader.to_string(),
                    n.pid.map_or(String::new(), |p| p.to_string()),
                    n.log.display().to_string(),
                ]);
            }
            writeln!(out, "{t}")?;
            if let Some(ms) = c.ready_ms {
                writeln!(
                    out,
                    "Ready in {:.2}s. Data, logs and state in {}",
                    ms as f64 / 1000.0,
                    c.dir.display()
                )?;
            }
            let eps = c.endpoints();
            if !eps.is_empty() {
                writeln!(out, "Endpoints: {}", eps.join(","))?;
            }
        }
    }
    Ok(())
}
