//! A decision as reported: when, by which autopilot, with the leader it saw and where it stands (decided, dry run, standing by, done, failed), and the sentence a person reads.

use std::time::Duration;

use super::Decision;
use crate::model::MemberId;

/// Where a reported decision stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Decided (and, for an action, about to be taken).
    Decided,
    /// `--dry-run`: would be taken.
    DryRun,
    /// This autopilot does not lead: only reported.
    StandingBy,
    /// The action was taken.
    Done,
    /// The action failed; the next look decides again.
    Failed(String),
}

impl Phase {
    /// The phase's name in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Phase::Decided => "decided",
            Phase::DryRun => "dry_run",
            Phase::StandingBy => "standing_by",
            Phase::Done => "done",
            Phase::Failed(_) => "failed",
        }
    }
}

/// One reported decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Reported {
    /// Time since autopilot began.
    pub at: Duration,
    /// This autopilot's name.
    pub autopilot: String,
    /// The cluster's leader at the look, when known.
    pub leader: Option<MemberId>,
    /// The decision.
    pub decision: Decision,
    /// Where it stands.
    pub phase: Phase,
}

impl Reported {
    /// The sentence a person reads (stderr), its phase first when the
    /// action was taken or failed.
    pub fn sentence(&self) -> String {
        let said = self.detail();
        match &self.phase {
            Phase::Done => format!("done: {said}"),
            Phase::Failed(_) => format!("failed: {said}"),
            Phase::Decided | Phase::StandingBy | Phase::DryRun => said,
        }
    }

    /// The decision and how it stands, without the phase's word (for a
    /// line that shows the phase in a column of its own).
    pub fn detail(&self) -> String {
        let base = self.decision.sentence();
        match &self.phase {
            Phase::Decided | Phase::StandingBy | Phase::Done => base,
            Phase::DryRun => format!("{base} (--dry-run: nothing changed)"),
            Phase::Failed(e) => format!("{base}: {e}; deciding again at the next look"),
        }
    }
}
