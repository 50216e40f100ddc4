//! What every output format writes: one method per kind of report (as
//! etcdctl's printer interface has), and the one place that picks the method
//! for a report.

use std::io::{self, Write};

use super::{Report, SnapshotReport};
use crate::model::{Configuration, Member, MemberList};
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

/// One output format (table, simple, JSON): how it writes each report.
pub(super) trait Format {
    /// `member list`.
    fn member_list(&self, out: &mut dyn Write, l: &MemberList) -> io::Result<()>;
    /// `member add`.
    fn added(&self, out: &mut dyn Write, a: &AddedMember) -> io::Result<()>;
    /// `member promote`.
    fn promoted(&self, out: &mut dyn Write, p: &Promoted) -> io::Result<()>;
    /// `member remove`: the member, the membership after, the transfer first.
    fn removed(
        &self,
        out: &mut dyn Write,
        removed: &Member,
        list: &MemberList,
        moved: Option<&Moved>,
    ) -> io::Result<()>;
    /// `member prune`.
    fn pruned(&self, out: &mut dyn Write, p: &Pruned) -> io::Result<()>;
    /// `autopilot`: one decision.
    fn decision(&self, out: &mut dyn Write, r: &Reported) -> io::Result<()>;
    /// `cluster chaos`: one fault's start, end or skip.
    fn chaos(
        &self,
        out: &mut dyn Write,
        e: &crate::testcluster::chaos::ChaosEvent,
    ) -> io::Result<()> {
        writeln!(out, "{}", super::chaos_line(e))
    }
    /// `cluster rehearse`: a few lines (the report files hold the rest).
    fn rehearsed(
        &self,
        out: &mut dyn Write,
        r: &crate::testcluster::rehearse::Rehearsal,
    ) -> io::Result<()> {
        for line in super::rehearsal_lines(r) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
    /// `member move-leader`.
    fn moved_leader(&self, out: &mut dyn Write, m: &Moved) -> io::Result<()>;
    /// `member update`.
    fn updated(&self, out: &mut dyn Write, u: &Updated) -> io::Result<()>;
    /// `member status`.
    fn status(&self, out: &mut dyn Write, s: &ClusterStatus) -> io::Result<()>;
    /// `--dry-run` of a change.
    fn plan(&self, out: &mut dyn Write, plan: &Plan) -> io::Result<()>;
    /// `snapshot save|status|restore`.
    fn snapshot(&self, out: &mut dyn Write, r: &SnapshotReport) -> io::Result<()>;
    /// `member apply --dry-run`.
    fn apply_plan(&self, out: &mut dyn Write, p: &ApplyPlan) -> io::Result<()>;
    /// `member apply`.
    fn applied(&self, out: &mut dyn Write, a: &Applied) -> io::Result<()>;
    /// `member replace`.
    fn replaced(&self, out: &mut dyn Write, r: &Replaced) -> io::Result<()>;
    /// `member joint status|enter|leave`.
    fn config(&self, out: &mut dyn Write, c: &Configuration) -> io::Result<()>;
    /// `member joint enter`: the configuration, then a line per learner's
    /// catch-up.
    fn joint_entered(&self, out: &mut dyn Write, e: &JointEntered) -> io::Result<()> {
        self.config(out, &e.config)?;
        for c in &e.catch_up {
            writeln!(out, "{}", super::catch_up_line(c))?;
        }
        Ok(())
    }
    /// `member check`.
    fn checks(&self, out: &mut dyn Write, checks: &[Check]) -> io::Result<()>;
    /// `cluster up|start-node|status|down`.
    fn cluster(&self, out: &mut dyn Write, c: &LocalCluster) -> io::Result<()>;
    /// A change's report with the pre-flight checks it passed: the report;
    /// a plan also lists the checks (a change done has said its warnings on
    /// stderr already).
    fn checked(&self, out: &mut dyn Write, inner: &Report, checks: &[Check]) -> io::Result<()> {
        write(self, out, inner)?;
        if matches!(inner, Report::Plan(_) | Report::ApplyPlan(_)) {
            writeln!(out)?;
            self.checks(out, checks)?;
        }
        Ok(())
    }

    /// A change's report, then what it cost the cluster in one line.
    fn costed(&self, out: &mut dyn Write, inner: &Report, cost: &ChangeCost) -> io::Result<()> {
        write(self, out, inner)?;
        writeln!(out, "{}", super::cost_line(cost))
    }
}

/// Writes `report` with `format`'s method for its kind.
pub(super) fn write<F: Format + ?Sized>(
    format: &F,
    out: &mut dyn Write,
    report: &Report,
) -> io::Result<()> {
    match report {
        Report::MemberList(l) => format.member_list(out, l),
        Report::Added(a) => format.added(out, a),
        Report::Promoted(p) => format.promoted(out, p),
        Report::Removed {
            removed,
            list,
            moved,
        } => format.removed(out, removed, list, moved.as_deref()),
        Report::Pruned(p) => format.pruned(out, p),
        Report::Decision(r) => format.decision(out, r),
        Report::Chaos(e) => format.chaos(out, e),
        Report::Rehearsed(r) => format.rehearsed(out, r),
        Report::MovedLeader(m) => format.moved_leader(out, m),
        Report::Updated(u) => format.updated(out, u),
        Report::Status(s) => format.status(out, s),
        Report::Plan(plan) => format.plan(out, plan),
        Report::Cluster(c) => format.cluster(out, c),
        Report::Config(c) => format.config(out, c),
        Report::JointEntered(e) => format.joint_entered(out, e),
        // A completion script or a man page: the same in every format.
        Report::Text(bytes) => out.write_all(bytes),
        Report::Replaced(r) => format.replaced(out, r),
        Report::Snapshot(r) => format.snapshot(out, r),
        Report::ApplyPlan(p) => format.apply_plan(out, p),
        Report::Applied(a) => format.applied(out, a),
        Report::Checks(checks) => format.checks(out, checks),
        Report::Checked {
            report: inner,
            checks,
        } => format.checked(out, inner, checks),
        Report::Costed {
            report: inner,
            cost,
        } => format.costed(out, inner, cost),
    }
}
