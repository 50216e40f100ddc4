//! The simple output: plain comma-separated lines, like etcdctl's default format.

use std::io::{self, Write};

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
use crate::workflow::status::{ClusterStatus, MemberState};
use crate::workflow::update::Updated;

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

/// Plain comma-separated lines.
pub(super) struct Simple;

impl Format for Simple {
    fn member_list(&self, out: &mut dyn Write, l: &MemberList) -> io::Result<()> {
        for m in &l.members {
            writeln!(out, "{}", member_line(m))?;
        }
        Ok(())
    }

    fn added(&self, out: &mut dyn Write, a: &AddedMember) -> io::Result<()> {
        writeln!(out, "{}", added_headline(a))?;
        writeln!(out)?;
        super::write_lines(out, start_lines(a))
    }

    fn promoted(&self, out: &mut dyn Write, p: &Promoted) -> io::Result<()> {
        writeln!(out, "{}", super::promoted_headline(p))?;
        Ok(())
    }

    fn removed(
        &self,
        out: &mut dyn Write,
        removed: &Member,
        list: &MemberList,
        moved: Option<&Moved>,
    ) -> io::Result<()> {
        super::write_lines(out, removed_lines(removed, list, moved))
    }

    fn pruned(&self, out: &mut dyn Write, p: &Pruned) -> io::Result<()> {
        writeln!(out, "{}", super::pruned_headline(p))?;
        super::write_lines(out, super::pruned_rows(p).iter().map(|r| r.join(", ")))
    }

    fn decision(&self, out: &mut dyn Write, r: &Reported) -> io::Result<()> {
        writeln!(out, "{}", super::decision_line(r))
    }

    fn moved_leader(&self, out: &mut dyn Write, m: &Moved) -> io::Result<()> {
        writeln!(out, "{}", moved_line(m))?;
        Ok(())
    }

    fn updated(&self, out: &mut dyn Write, u: &Updated) -> io::Result<()> {
        writeln!(out, "{}", super::updated_headline(u))
    }

    fn status(&self, out: &mut dyn Write, s: &ClusterStatus) -> io::Result<()> {
        for r in &s.rows {
            let ok = r.status.as_ref().ok();
            let state = r.state(s.leader);
            writeln!(
                out,
                "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}",
                r.member.id,
                r.member.name,
                if ok.is_some() {
                    "reachable"
                } else {
                    "unreachable"
                },
                if state == MemberState::Leader {
                    "leader"
                } else if r.member.is_learner {
                    "learner"
                } else if state == MemberState::Follower {
                    "follower"
                } else {
                    // A voter that does not answer, or names no leader.
                    "-"
                },
                opt(ok.map(|s| s.raft_term)),
                opt(ok.map(|s| s.raft_index)),
                opt(ok.map(|s| s.raft_applied_index)),
                r.member.is_learner,
                opt(r.lag),
                r.progress.as_ref().map_or("-", |p| p.state.as_str()),
                ok.map_or("-", |s| s.version.as_str()),
                state.as_str(),
                r.status
                    .as_ref()
                    .err()
                    .map_or("-".to_string(), |e| e.message.replace('\n', " ")),
            )?;
        }
        let t = &s.tolerance;
        writeln!(
            out,
            "cluster: voters={} quorum={} answering_voters={} fault_tolerance={} quorum_lost={}",
            t.voters,
            t.quorum,
            t.answering,
            t.fault_tolerance,
            s.quorum_lost.is_some()
        )
    }

    fn plan(&self, out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
        for s in &plan.steps {
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
        if let Some(o) = &plan.order {
            writeln!(out, "order: {}: {}", o.first.as_str(), o.rule)?;
        }
        writeln!(out, "dry run: nothing was changed")?;
        Ok(())
    }

    fn snapshot(&self, out: &mut dyn Write, r: &SnapshotReport) -> io::Result<()> {
        super::write_lines(out, super::snapshot_lines(r))
    }

    fn apply_plan(&self, out: &mut dyn Write, p: &ApplyPlan) -> io::Result<()> {
        super::write_lines(out, super::apply_plan_lines(p))?;
        writeln!(out, "dry run: nothing was changed")?;
        Ok(())
    }

    fn applied(&self, out: &mut dyn Write, a: &Applied) -> io::Result<()> {
        writeln!(out, "{}", super::applied_headline(a))?;
        Ok(())
    }

    fn replaced(&self, out: &mut dyn Write, r: &Replaced) -> io::Result<()> {
        writeln!(out, "{}", replaced_headline(r))?;
        super::write_lines(out, super::replaced_lines(r))
    }

    fn config(&self, out: &mut dyn Write, c: &Configuration) -> io::Result<()> {
        writeln!(out, "joint: {}", c.is_joint())?;
        for (name, ids) in config_rows(c) {
            writeln!(out, "{name}: {}", ids.join(","))?;
        }
        writeln!(out, "auto_leave: {}", c.auto_leave)?;
        Ok(())
    }

    fn checks(&self, out: &mut dyn Write, checks: &[Check]) -> io::Result<()> {
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
        Ok(())
    }

    fn cluster(&self, out: &mut dyn Write, c: &LocalCluster) -> io::Result<()> {
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
        if let Some(l) = &c.link {
            writeln!(
                out,
                "link: {}, {}",
                l.spec,
                l.pid.map_or("stopped", |_| "running")
            )?;
        }
        if let Some(b) = &c.etcd {
            writeln!(out, "server: etcd {}, {}", b.version, b.path.display())?;
        }
        Ok(())
    }
}
