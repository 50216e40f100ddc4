//! The table output for people (comfy-table), with the same columns as etcdctl where it has them.

use std::io::{self, Write};

use comfy_table::{CellAlignment, ContentArrangement, Table};

use super::format::Format;
use super::SnapshotReport;
use super::{
    added_headline, config_rows, moved_line, removed_lines, replaced_headline, start_lines,
    started_word,
};
use crate::model::Member;
use crate::model::{Configuration, MemberList};
use crate::testcluster::LocalCluster;
use crate::workflow::add::AddedMember;
use crate::workflow::apply::Applied;
use crate::workflow::autopilot::Reported;
use crate::workflow::calc::apply_plan::ApplyPlan;
use crate::workflow::calc::quorum::Plan;
use crate::workflow::leader::Moved;
use crate::workflow::preflight::Check;
use crate::workflow::promote::Promoted;
use crate::workflow::prune::Pruned;
use crate::workflow::replace::Replaced;
use crate::workflow::status::ClusterStatus;
use crate::workflow::update::Updated;

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    // etcdctl-style: full borders, a plain rule under the header, no rules between rows.
    t.load_preset("||--+-++|    ++++++")
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.to_vec());
    t
}

/// Wraps `t`'s long cells to the terminal's width; where the terminal reports
/// none (a pty of 0 columns, as `script`, some CI runners and `docker exec`
/// give, or no terminal at all), to `columns` (the `COLUMNS` variable); with
/// neither, lines are not wrapped. A width of 0 is no width: wrapping to it
/// would spell every cell downwards, a character per line.
fn wrap_to_screen(t: &mut Table, columns: Option<&str>) {
    let width = t.width().filter(|&w| w > 0).or_else(|| {
        columns
            .and_then(|c| c.trim().parse::<u16>().ok())
            .filter(|&w| w > 0)
    });
    match width {
        Some(w) => {
            t.set_width(w)
                .set_content_arrangement(ContentArrangement::Dynamic);
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
}

/// `member list`'s columns, as etcdctl's.
const MEMBER_COLUMNS: [&str; 6] = [
    "ID",
    "STATUS",
    "NAME",
    "PEER ADDRS",
    "CLIENT ADDRS",
    "IS LEARNER",
];

fn members_table(ms: &[Member]) -> Table {
    let mut t = table(&MEMBER_COLUMNS);
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

/// A headline, then the membership after.
fn headed(out: &mut dyn Write, headline: &str, members: &[Member]) -> io::Result<()> {
    writeln!(out, "{headline}")?;
    writeln!(out, "{}", members_table(members))
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

/// Tables, with a headline where the command changed something.
pub(super) struct Tabular;

impl Format for Tabular {
    fn member_list(&self, out: &mut dyn Write, l: &MemberList) -> io::Result<()> {
        writeln!(out, "{}", members_table(&l.members))?;
        Ok(())
    }

    fn added(&self, out: &mut dyn Write, a: &AddedMember) -> io::Result<()> {
        writeln!(out, "{}", added_headline(a))?;
        writeln!(out, "{}", members_table(std::slice::from_ref(&a.member)))?;
        writeln!(out, "Start the new member with these settings:")?;
        super::write_lines(out, start_lines(a))
    }

    fn promoted(&self, out: &mut dyn Write, p: &Promoted) -> io::Result<()> {
        headed(out, &super::promoted_headline(p), &p.list.members)
    }

    fn removed(
        &self,
        out: &mut dyn Write,
        removed: &Member,
        list: &MemberList,
        moved: Option<&Moved>,
    ) -> io::Result<()> {
        super::write_lines(out, removed_lines(removed, list, moved))?;
        writeln!(out, "{}", members_table(&list.members))?;
        Ok(())
    }

    fn pruned(&self, out: &mut dyn Write, p: &Pruned) -> io::Result<()> {
        writeln!(out, "{}", super::pruned_headline(p))?;
        let mut t = table(&["ID", "NAME", "ROLE", "ACTION", "REASON", "DETAIL"]);
        wrap_to_screen(&mut t, std::env::var("COLUMNS").ok().as_deref());
        for row in super::pruned_rows(p) {
            t.add_row(row.to_vec());
        }
        writeln!(out, "{t}")?;
        writeln!(out, "{}", members_table(&p.list.members))
    }

    fn decision(&self, out: &mut dyn Write, r: &Reported) -> io::Result<()> {
        writeln!(out, "{}", super::decision_line(r))
    }

    fn moved_leader(&self, out: &mut dyn Write, m: &Moved) -> io::Result<()> {
        writeln!(out, "{}", moved_line(m))?;
        Ok(())
    }

    fn updated(&self, out: &mut dyn Write, u: &Updated) -> io::Result<()> {
        headed(out, &super::updated_headline(u), &u.list.members)
    }

    fn status(&self, out: &mut dyn Write, s: &ClusterStatus) -> io::Result<()> {
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
        writeln!(out, "{}", tolerance_line(s))
    }

    fn plan(&self, out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
        let mut t = table(&[
            "STEP",
            "VOTERS",
            "OUTGOING VOTERS",
            "LEARNERS",
            "QUORUM",
            "HEALTHY VOTERS",
            "FAULT TOLERANCE",
        ]);
        for s in &plan.steps {
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
        if let Some(o) = &plan.order {
            writeln!(out, "Order: {o}")?;
        }
        writeln!(out, "Dry run: nothing was changed.")?;
        Ok(())
    }

    fn snapshot(&self, out: &mut dyn Write, r: &SnapshotReport) -> io::Result<()> {
        super::write_lines(out, super::snapshot_lines(r))
    }

    fn apply_plan(&self, out: &mut dyn Write, p: &ApplyPlan) -> io::Result<()> {
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
        Ok(())
    }

    fn applied(&self, out: &mut dyn Write, a: &Applied) -> io::Result<()> {
        headed(out, &super::applied_headline(a), &a.list.members)
    }

    fn replaced(&self, out: &mut dyn Write, r: &Replaced) -> io::Result<()> {
        let mut head = vec![replaced_headline(r)];
        head.extend(super::replaced_lines(r));
        headed(out, &head.join("\n"), &r.list.members)
    }

    fn config(&self, out: &mut dyn Write, c: &Configuration) -> io::Result<()> {
        let mut t = table(&["CONFIGURATION", "MEMBERS"]);
        t.add_row(vec!["joint".to_string(), c.is_joint().to_string()]);
        for (name, ids) in config_rows(c) {
            t.add_row(vec![name.to_string(), ids.join(",")]);
        }
        t.add_row(vec!["auto_leave".to_string(), c.auto_leave.to_string()]);
        writeln!(out, "{t}")?;
        Ok(())
    }

    fn checks(&self, out: &mut dyn Write, checks: &[Check]) -> io::Result<()> {
        let mut t = table(&["CHECK", "MEMBER", "RESULT", "DETAIL", "WHAT TO DO"]);
        wrap_to_screen(&mut t, std::env::var("COLUMNS").ok().as_deref());
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
        Ok(())
    }

    fn cluster(&self, out: &mut dyn Write, c: &LocalCluster) -> io::Result<()> {
        // `member list`'s columns, then the local node's.
        let mut t = table(&[&MEMBER_COLUMNS[..], &["IS LEADER", "PID", "LOG"]].concat());
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
        if let Some(l) = &c.link {
            writeln!(out, "{}", super::link_line(l))?;
        }
        if let Some(b) = &c.etcd {
            writeln!(out, "Server: etcd {} ({})", b.version, b.path.display())?;
        }
        Ok(())
    }
}

/// `member status`'s last line in a table: voters, quorum, the voters that
/// answer and the fault tolerance, and a lost quorum.
fn tolerance_line(s: &ClusterStatus) -> String {
    let t = &s.tolerance;
    format!(
        "Voters: {}, quorum: {}, answering: {}, fault tolerance: {}{}",
        t.voters,
        t.quorum,
        t.answering,
        t.fault_tolerance,
        if s.quorum_lost.is_some() {
            " (quorum lost: no leader can be elected; the way back is on standard error)"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks_table(columns: Option<&str>) -> String {
        let mut t = table(&["CHECK", "MEMBER", "RESULT", "DETAIL", "WHAT TO DO"]);
        t.force_no_tty();
        wrap_to_screen(&mut t, columns);
        t.add_row(vec![
            "db".to_string(),
            "m1".to_string(),
            "warn".to_string(),
            "the leader's database is 2.1 GB, of which 1.4 GB are free pages ".repeat(3),
            "defragment it first: etcdctl defrag --endpoints URL".to_string(),
        ]);
        t.to_string()
    }

    #[test]
    fn without_a_terminal_width_tables_wrap_to_columns() {
        let text = checks_table(Some("100"));
        assert!(text.lines().count() > 4, "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{line}");
        }
        assert!(text.lines().nth(1).unwrap().contains("CHECK"), "{text}");
    }

    #[test]
    fn with_no_width_at_all_tables_are_not_wrapped() {
        for columns in [None, Some("0"), Some("wide")] {
            let text = checks_table(columns);
            assert_eq!(text.lines().count(), 5, "{columns:?}:\n{text}");
            assert!(text.lines().nth(1).unwrap().contains("CHECK"));
        }
    }
}
