//! Formats command results and errors as table, simple lines or JSON: the only writer to stdout.

mod format;
mod json;
mod progress;
mod simple;
mod table;

use crate::workflow::catch_up::CatchUpSummary;
use crate::workflow::cost::ChangeCost;
use crate::workflow::joint::JointEntered;
use std::io::{self, IsTerminal, Write};

use crate::cli::OutputFormat;
use crate::model::{Configuration, Member, MemberId, MemberList};
use crate::testcluster::LocalCluster;
use crate::workflow::add::AddedMember;
use crate::workflow::apply::Applied;
use crate::workflow::autopilot::Reported;
use crate::workflow::calc::apply_plan::ApplyPlan;
use crate::workflow::calc::quorum::Plan;
use crate::workflow::leader::Moved;
use crate::workflow::preflight::{Check, Verdict};
use crate::workflow::promote::Promoted;
use crate::workflow::prune::{Pruned, PrunedMember};
use crate::workflow::replace::Replaced;
use crate::workflow::status::ClusterStatus;
use crate::workflow::update::Updated;

pub use progress::StderrObserver;

/// What a command produced, for the printer to format.
#[derive(Clone, Debug)]
pub enum Report {
    /// `member list`.
    MemberList(MemberList),
    /// `member add`.
    Added(AddedMember),
    /// `member promote`.
    Promoted(Promoted),
    /// `member remove`.
    Removed {
        /// The member that was removed.
        removed: Member,
        /// The membership after.
        list: MemberList,
        /// The leadership transfer done first, when the member led.
        moved: Option<Box<Moved>>,
    },
    /// `member prune`: what was removed, kept and refused, and why.
    Pruned(Pruned),
    /// `autopilot`: one decision (JSON: one line per decision).
    Decision(Reported),
    /// `cluster rehearse`: the change, its steps and the summary (the rest is in its report files).
    Rehearsed(Box<crate::testcluster::rehearse::Rehearsal>),
    /// `cluster chaos`: one fault's start, end or skip (JSON: one line each).
    Chaos(crate::testcluster::chaos::ChaosEvent),
    /// `member move-leader`.
    MovedLeader(Moved),
    /// `member update`.
    Updated(Updated),
    /// `member status`.
    Status(ClusterStatus),
    /// `--dry-run` of a change.
    Plan(Plan),
    /// `cluster up|start-node|status|down`.
    Cluster(LocalCluster),
    /// `member joint status|leave`: the raft configuration.
    Config(Configuration),
    /// `member joint enter`: the configuration entered and the learners'
    /// catch-up.
    JointEntered(JointEntered),
    /// Text printed as it is in every format (a completion script).
    Text(Vec<u8>),
    /// `member replace`.
    Replaced(Replaced),
    /// `snapshot save|status|restore`.
    Snapshot(SnapshotReport),
    /// `member apply --dry-run`: the plan.
    ApplyPlan(ApplyPlan),
    /// `member apply`: the steps taken and the membership at the end.
    Applied(Applied),
    /// `member check`: the pre-flight checks.
    Checks(Vec<Check>),
    /// A change's report with the pre-flight checks it passed (JSON: a
    /// `checks` array beside the report's fields; a `--dry-run` plan also
    /// lists them in table and simple output).
    Checked {
        /// The change's own report.
        report: Box<Report>,
        /// The checks, warnings and skips included.
        checks: Vec<Check>,
    },
    /// A change's report with what it cost the cluster (JSON: a `cost`
    /// object beside the report's fields; table and simple: a line after).
    Costed {
        /// The change's report (perhaps with its checks).
        report: Box<Report>,
        /// Leader changes, heartbeat send failures, slow applies.
        cost: ChangeCost,
    },
}

impl Report {
    /// Whether the report itself is a refusal (a pre-flight check failed,
    /// a member prune would remove was refused): `main` exits with the
    /// refusal's code after printing it.
    pub fn refuses(&self) -> bool {
        match self {
            Report::Checks(checks) => any_failed(checks),
            _ => matches!(self.inner(), Report::Pruned(p) if !p.refused.is_empty()),
        }
    }

    /// The rehearsed change's failure (`cluster rehearse`), when it failed:
    /// `main` exits with the kind's code after printing the report.
    pub fn change_failed(&self) -> Option<crate::error::ErrorKind> {
        match self.inner() {
            Report::Rehearsed(r) => r.failure().map(|(kind, _)| kind),
            _ => None,
        }
    }

    /// Whether the report says the cluster has lost its quorum (`member
    /// status`): `main` exits with its own code after printing it.
    pub fn quorum_lost(&self) -> bool {
        matches!(self.inner(), Report::Status(s) if s.quorum_lost.is_some())
    }

    /// The change's own report, without the checks and the cost around it.
    pub fn inner(&self) -> &Report {
        match self {
            Report::Checked { report, .. } | Report::Costed { report, .. } => report.inner(),
            other => other,
        }
    }

    /// Whether it is a `--dry-run` plan (nothing was changed).
    pub fn is_plan(&self) -> bool {
        matches!(self.inner(), Report::Plan(_) | Report::ApplyPlan(_))
    }
}

/// What `snapshot save|status|restore` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotReport {
    /// "saved", "checked" or "restored".
    pub action: &'static str,
    /// The file's format: "memberctl" or "etcd".
    pub format: &'static str,
    /// The snapshot file.
    pub file: String,
    /// Its size in bytes.
    pub size: u64,
    /// What it holds: a memberctl snapshot's summary, or what a restore took from an etcd one.
    pub content: Option<SnapshotContent>,
    /// What it holds, when it is an etcd snapshot (as `etcdctl snapshot status` shows it).
    pub etcd: Option<crate::etcd_db::SnapshotStatus>,
    /// `restore`: the data directory, the member, where its store starts.
    pub restored: Option<Restored>,
}

/// Where `snapshot restore` put the new member, and where its store starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// The data directory.
    pub data_dir: String,
    /// The member's ID in the new cluster.
    pub member_id: u64,
    /// The store's revision (the snapshot's, plus `--bump-revision`).
    pub revision: i64,
    /// The revision compacted at (the bumped revision with `--mark-compacted`).
    pub compact_revision: i64,
}

/// What a memberctl snapshot file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotContent {
    /// The store's revision.
    pub revision: i64,
    /// The compacted revision.
    pub compact_revision: i64,
    /// Key-history records.
    pub records: u64,
    /// Leases.
    pub leases: usize,
    /// SHA-256 of the file, hex (empty when an etcd file was restored unchecked).
    pub sha256: String,
}

/// The lines a person reads for a snapshot report (table and simple formats).
pub fn snapshot_lines(r: &SnapshotReport) -> Vec<String> {
    let mut lines = vec![format!(
        "snapshot {} {} ({} bytes)",
        r.action, r.file, r.size
    )];
    if let Some(c) = &r.content {
        lines.push(format!(
            "revision {}, compacted at {}, {} key records, {} leases",
            c.revision, c.compact_revision, c.records, c.leases
        ));
        lines.push(if c.sha256.is_empty() {
            "sha256 not checked (--skip-hash-check)".to_string()
        } else {
            format!("sha256 {}", c.sha256)
        });
    }
    if let Some(e) = &r.etcd {
        lines.push(format!(
            "etcd snapshot: hash {}, revision {}, {} keys, total size {} bytes",
            e.hash, e.revision, e.total_key, e.total_size
        ));
        lines.push(match &e.sha256 {
            Some(sha) => format!("sha256 {sha} (checked)"),
            None => "no sha256 trailer: a database copied from a data directory".to_string(),
        });
    }
    if let Some(x) = &r.restored {
        let (id, dir) = (x.member_id, &x.data_dir);
        if let Some(c) = r.content.as_ref().filter(|c| c.revision != x.revision) {
            lines.push(format!(
                "revision bumped from {} to {} and compacted there: reads and watches from \
                 earlier revisions are answered \"compacted\"",
                c.revision, x.revision
            ));
        }
        lines.push(format!(
            "member {id:016x} restored into {dir}: start it with `memberctl node run --data-dir {dir}` and the same --name, --initial-cluster and peer URLs"
        ));
    }
    lines
}

/// The format to use when none was asked for: table on a terminal, simple otherwise.
pub fn default_format() -> OutputFormat {
    if io::stdout().is_terminal() {
        OutputFormat::Table
    } else {
        OutputFormat::Simple
    }
}

/// Writes `report` in `format` to `out`.
pub fn write_report(out: &mut dyn Write, report: &Report, format: OutputFormat) -> io::Result<()> {
    match format {
        OutputFormat::Json => format::write(&json::Json, out, report),
        OutputFormat::Simple => format::write(&simple::Simple, out, report),
        OutputFormat::Table => format::write(&table::Tabular, out, report),
    }
}

/// Whether a pre-flight check failed: the checks refuse the change.
fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.verdict == Verdict::Fail)
}

/// Writes `report` to stdout, then what to do next (after `member add`) to
/// stderr: a person reads the result first. A closed pipe (`| head`) is not
/// an error.
pub fn print(report: &Report, format: OutputFormat) -> io::Result<()> {
    {
        // Stdout is line-buffered: collect the report and write it at once.
        let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
        ignore_broken_pipe(write_report(&mut out, report, format).and_then(|_| out.flush()))?;
    }
    if let Report::Added(a) = report.inner() {
        eprintln!("memberctl: {}", crate::workflow::add::next_step(a));
    }
    Ok(())
}

/// Reports a failure: always a line on stderr (`memberctl: …` and one line per
/// problem); with JSON output also an `{"error": …}` document on stdout.
pub fn print_error(err: &anyhow::Error, format: OutputFormat) {
    let typed = crate::error::find(err);
    let problems = typed.map(|e| e.problems.clone()).unwrap_or_default();
    let unstarted = typed.map(|e| e.unstarted.clone()).unwrap_or_default();
    let mut message = format!("{err:#}");
    if message.is_empty() {
        message = "unknown error".into();
    }
    eprintln!("memberctl: {message}");
    for p in &problems {
        eprintln!("  - {p}");
    }
    for m in &unstarted {
        let role = if m.is_learner { "learner" } else { "voter" };
        eprintln!(
            "  - {} ({role}, unstarted), peer URLs {}",
            m.id,
            m.peer_urls.join(",")
        );
    }
    if format == OutputFormat::Json {
        let kind = crate::error::kind_of(err);
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let _ = ignore_broken_pipe(json::error(
            &mut out,
            kind.as_str(),
            &message,
            &problems,
            &unstarted,
        ));
    }
}

fn ignore_broken_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The line a person reads for one autopilot decision (table and simple):
/// the time since autopilot began, its phase and the sentence.
/// One `cluster chaos` event as a line for people (table, simple, and stderr).
pub fn chaos_line(e: &crate::testcluster::chaos::ChaosEvent) -> String {
    format!(
        "{:>9.1}s {} #{} {}: {}",
        e.at.as_secs_f64(),
        e.phase.as_str(),
        e.seq,
        e.fault.as_str(),
        e.detail
    )
}

/// What `cluster rehearse` prints for people (table and simple): the
/// change's outcome, its steps, and the summary's main figures.
pub fn rehearsal_lines(r: &crate::testcluster::rehearse::Rehearsal) -> Vec<String> {
    let s = &r.summary;
    let secs = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2} s"));
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
    let mut lines = vec![match r.failure() {
        None => format!("Rehearsed `{}`: it succeeded", r.change.command.join(" ")),
        Some((_, why)) => format!("Rehearsed: {why}"),
    }];
    lines.push(format!(
        "steps: {}",
        if r.steps.is_empty() {
            "none seen".to_string()
        } else {
            r.steps
                .iter()
                .map(|s| format!("{} {} at {:.2} s", s.step.as_str(), s.member, s.at_s))
                .collect::<Vec<_>>()
                .join("; ")
        }
    ));
    lines.push(format!(
        "catch-up {} (predicted {}, link floor {}), {} received",
        secs(s.catch_up_seconds),
        secs(s.predicted_seconds),
        secs(s.link_floor_seconds),
        s.bytes_received.map_or("-".to_string(), crate::model::mib)
    ));
    lines.push(format!(
        "writer p99: before {}, during {}, after {}; {} failed writes; {} leader changes{}",
        ms(s.before.p99_ms),
        ms(s.during.p99_ms),
        ms(s.after.p99_ms),
        s.failed_writes,
        s.leader_changes,
        if r.settled {
            ""
        } else {
            "; the cluster did not settle"
        }
    ));
    lines.push(format!(
        "report: {} and {}",
        r.report_dir.join("report.html").display(),
        r.report_dir.join("report.json").display()
    ));
    lines
}

fn decision_line(r: &Reported) -> String {
    format!(
        "{:>9.1}s {} {}",
        r.at.as_secs_f64(),
        r.phase.as_str(),
        r.detail()
    )
}

/// "started" or "unstarted", as etcdctl shows a member.
fn started_word(m: &Member) -> &'static str {
    if m.started() {
        "started"
    } else {
        "unstarted"
    }
}

/// The line that describes a local cluster's link model.
fn link_line(l: &crate::testcluster::LocalLink) -> String {
    format!(
        "Link between every pair of members, both ways: {} ({})",
        l.spec,
        l.pid
            .map_or("its process is not running".to_string(), |p| format!(
                "pid {p}"
            ))
    )
}

/// The lines that tell how to start a new member (etcd's environment variables).
fn start_lines(a: &AddedMember) -> Vec<String> {
    vec![
        format!("ETCD_NAME={:?}", a.name),
        format!("ETCD_INITIAL_CLUSTER={:?}", a.initial_cluster),
        format!(
            "ETCD_INITIAL_ADVERTISE_PEER_URLS={:?}",
            a.member.peer_urls.join(",")
        ),
        format!("ETCD_INITIAL_CLUSTER_STATE={:?}", a.initial_cluster_state),
    ]
}

/// IDs as hex strings.
fn hex_ids(v: &[MemberId]) -> Vec<String> {
    v.iter().map(|i| i.to_string()).collect()
}

/// The rows of a configuration: (name, IDs).
fn config_rows(c: &Configuration) -> Vec<(&'static str, Vec<String>)> {
    vec![
        ("voters", hex_ids(&c.voters)),
        ("voters_outgoing", hex_ids(&c.voters_outgoing)),
        ("learners", hex_ids(&c.learners)),
        ("learners_next", hex_ids(&c.learners_next)),
    ]
}

/// The lines that report a removal: the leadership transfer done first, if
/// any, then the removal.
fn removed_lines(removed: &Member, list: &MemberList, moved: Option<&Moved>) -> Vec<String> {
    let mut lines: Vec<String> = moved.map(moved_line).into_iter().collect();
    lines.push(format!(
        "Member {} removed from cluster {}",
        removed.id, list.cluster_id
    ));
    lines
}

/// The line that reports a leadership transfer.
fn moved_line(m: &Moved) -> String {
    if m.from.id == m.to.id {
        return format!(
            "Member {} already leads cluster {} (nothing sent)",
            m.to.label(),
            m.cluster_id
        );
    }
    format!(
        "Leadership moved from {} to {} in cluster {} (took {:.2}s)",
        m.from.label(),
        m.to.label(),
        m.cluster_id,
        m.took.as_secs_f64()
    )
}

/// Writes each of `lines` on a line of its own.
fn write_lines<L: std::fmt::Display>(
    out: &mut dyn Write,
    lines: impl IntoIterator<Item = L>,
) -> io::Result<()> {
    lines.into_iter().try_for_each(|l| writeln!(out, "{l}"))
}

/// The headline of a promotion.
fn promoted_headline(p: &Promoted) -> String {
    let mut line = format!(
        "Member {} promoted in cluster {} (waited {:.1}s)",
        p.member.id,
        p.list.cluster_id,
        p.waited.as_secs_f64()
    );
    if let Some(c) = &p.catch_up {
        line.push_str(&format!("; {}", catch_up_line(c)));
    }
    line
}

/// What `member prune` did, in one line.
fn pruned_headline(p: &Pruned) -> String {
    let count = |n: usize| format!("{n} member{}", if n == 1 { "" } else { "s" });
    let watched = p.watched.as_secs_f64();
    let mut line = match (p.dry_run, p.removed.len()) {
        (true, n) => format!(
            "Dry run: would remove {} from cluster {} (watched {watched:.1}s); nothing was changed",
            count(n),
            p.list.cluster_id
        ),
        (false, 0) => format!(
            "Nothing removed from cluster {} (watched {watched:.1}s)",
            p.list.cluster_id
        ),
        (false, n) => format!(
            "Removed {} from cluster {} (watched {watched:.1}s)",
            count(n),
            p.list.cluster_id
        ),
    };
    if !p.refused.is_empty() {
        line.push_str(&format!("; {} refused", count(p.refused.len())));
    }
    line
}

/// One row per member `member prune` judged: ID, name, role, what was
/// done, the reason's name and its sentence.
fn pruned_rows(p: &Pruned) -> Vec<[String; 6]> {
    let done = if p.dry_run { "would remove" } else { "removed" };
    let row = |m: &PrunedMember, action: &str| {
        [
            m.member.id.to_string(),
            m.member.name.clone(),
            if m.member.is_learner {
                "learner"
            } else {
                "voter"
            }
            .to_string(),
            action.to_string(),
            m.reason.as_str().to_string(),
            m.reason.to_string(),
        ]
    };
    let removed = p.removed.iter().map(|m| row(m, done));
    let refused = p.refused.iter().map(|m| row(m, "refused"));
    let kept = p.kept.iter().map(|m| row(m, "kept"));
    removed.chain(refused).chain(kept).collect()
}

/// What a change cost, in one line.
fn cost_line(c: &ChangeCost) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let not_counted = match c.members_not_counted {
        0 => String::new(),
        n => format!(
            "; {n} member{} added or removed by the change not counted",
            if n == 1 { "" } else { "s" }
        ),
    };
    format!(
        "cost: {}, {}, {} (counted on the {} member{} there before and after{not_counted})",
        plural(c.leader_changes, "leader change", "leader changes"),
        plural(
            c.heartbeat_send_failures,
            "heartbeat send failure",
            "heartbeat send failures"
        ),
        plural(c.slow_applies, "slow apply", "slow applies"),
        c.members_read,
        if c.members_read == 1 { "" } else { "s" }
    )
}

/// A learner's catch-up in one line: how long, against the prediction, the
/// bytes and the phases.
fn catch_up_line(c: &CatchUpSummary) -> String {
    let mut line = format!("{} caught up in {:.1} s", c.label, c.seconds);
    if let Some(p) = c.predicted_seconds {
        line.push_str(&format!(" (predicted {p:.1} s)"));
    }
    if let Some(b) = c.bytes {
        line.push_str(&format!(", {:.1} MiB received", b as f64 / 1048576.0));
    }
    if !c.phases.is_empty() {
        let phases: Vec<String> = c
            .phases
            .iter()
            .map(|(p, s)| format!("{} {s:.1} s", p.as_str()))
            .collect();
        line.push_str(&format!(" [{}]", phases.join(", ")));
    }
    line
}

/// The headline of an update.
fn updated_headline(u: &Updated) -> String {
    let note = if u.unchanged {
        " (unchanged, nothing sent)"
    } else {
        ""
    };
    format!(
        "Member {} updated in cluster {}{note}",
        u.member.id, u.list.cluster_id
    )
}

/// The headline of a replacement.
fn replaced_headline(r: &Replaced) -> String {
    let mut line = format!(
        "Member {} replaced by {} in cluster {}",
        r.removed.label(),
        r.member.label(),
        r.list.cluster_id
    );
    if let Some(c) = &r.catch_up {
        line.push_str(&format!("; {}", catch_up_line(c)));
    }
    line
}

/// What a replacement did after its headline: the order and the rule that
/// chose it, and the steps this run took.
fn replaced_lines(r: &Replaced) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(o) = &r.order {
        lines.push(format!("order: {o}"));
    }
    if !r.steps.is_empty() {
        lines.push(format!("steps: {}", r.steps.join("; ")));
    }
    lines
}

/// The headline of an add.
fn added_headline(a: &AddedMember) -> String {
    let role = if a.member.is_learner {
        " as learner"
    } else {
        ""
    };
    if a.already_added {
        format!(
            "Member {} already added{role} to cluster {} and not started yet (nothing sent)",
            a.member.id, a.list.cluster_id
        )
    } else {
        format!(
            "Member {} added{role} to cluster {}",
            a.member.id, a.list.cluster_id
        )
    }
}

#[cfg(test)]
mod tests;

/// One line per step of an `apply` plan.
fn apply_plan_lines(p: &ApplyPlan) -> Vec<String> {
    let mut lines: Vec<String> = p
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "{}: {} {}: voters={} quorum={} fault_tolerance={}",
                i + 1,
                s.action.name(),
                s.action.member(),
                s.voters_after,
                s.quorum_after,
                s.fault_tolerance_after
            )
        })
        .collect();
    if p.steps.is_empty() {
        lines.push("nothing to do: the cluster has the target membership".into());
    }
    if let Some(w) = &p.warning {
        lines.push(format!("warning: {w}"));
    }
    lines
}

/// What an `apply` did, in one line.
fn applied_headline(a: &Applied) -> String {
    if a.steps.is_empty() {
        return "nothing to do: the cluster has the target membership".into();
    }
    let steps: Vec<String> = a
        .steps
        .iter()
        .map(|s| format!("{} {}", s.action, s.member))
        .collect();
    let mut line = format!(
        "target reached in {} step{}: {}",
        a.steps.len(),
        if a.steps.len() == 1 { "" } else { "s" },
        steps.join(", ")
    );
    for c in &a.catch_up {
        line.push_str(&format!("; {}", catch_up_line(c)));
    }
    line
}
