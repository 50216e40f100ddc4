//! Explicit joint consensus planned: each configuration's quorums and fault tolerance as a plan step, and rule 7 (the reachable members can decide in the joint configuration and in the one after it). The requests and the waits are `workflow::joint`'s.

use std::collections::{HashMap, HashSet};

use super::configuration::{self, RaftChange};
use super::quorum::{fault_tolerance, quorum, PlanStep};
use crate::error::Error;
use crate::model::{Configuration, MemberId};

/// How a plan names `id`: its label, or its ID.
pub fn label(labels: &HashMap<MemberId, String>, id: MemberId) -> String {
    labels.get(&id).cloned().unwrap_or_else(|| id.to_string())
}

/// One plan step for a configuration: quorum (both when joint) and fault tolerance for the reachable members.
pub fn step(
    name: &str,
    cfg: &Configuration,
    reachable: &HashSet<MemberId>,
    labels: &HashMap<MemberId, String>,
) -> PlanStep {
    let side = |v: &[MemberId]| (v.len(), v.iter().filter(|i| reachable.contains(i)).count());
    let (n_in, up_in) = side(&cfg.voters);
    let (n_out, up_out) = side(&cfg.voters_outgoing);
    let labelled = |v: &[MemberId]| v.iter().map(|&i| label(labels, i)).collect::<Vec<_>>();
    let learners = labelled(&cfg.learners);
    let joint = cfg.is_joint();
    PlanStep {
        step: name.to_string(),
        voters: labelled(&cfg.voters),
        voters_outgoing: labelled(&cfg.voters_outgoing),
        learners,
        quorum: quorum(n_in),
        quorum_outgoing: joint.then(|| quorum(n_out)),
        healthy_voters: up_in,
        fault_tolerance: if joint {
            fault_tolerance(n_in, up_in).min(fault_tolerance(n_out, up_out))
        } else {
            fault_tolerance(n_in, up_in)
        },
    }
}

fn ids_text(v: &[MemberId], reachable: &HashSet<MemberId>) -> String {
    let up = v.iter().filter(|i| reachable.contains(i)).count();
    let all: Vec<String> = v.iter().map(|i| i.to_string()).collect();
    format!(
        "{{{}}} ({up} reachable, quorum {})",
        all.join(", "),
        quorum(v.len())
    )
}

/// Refuses (rule 7) a configuration the reachable members could not decide in.
fn check_decidable(
    cfg: &Configuration,
    reachable: &HashSet<MemberId>,
    what: &str,
) -> Result<(), Error> {
    if configuration::can_decide(cfg, reachable) {
        return Ok(());
    }
    let mut detail = format!("incoming voters {}", ids_text(&cfg.voters, reachable));
    if cfg.is_joint() {
        detail.push_str(&format!(
            ", outgoing voters {}",
            ids_text(&cfg.voters_outgoing, reachable)
        ));
    }
    Err(Error::refused(format!(
        "refused by rule 7 (keep a quorum): {what} could not reach quorum with the members that are \
         reachable now: {detail}; bring members back first"
    )))
}

/// The planner of `joint enter`: the joint configuration `changes` make of
/// `cfg` and the one after leaving it, refused (rule 7) unless the `reachable`
/// members can decide in both.
pub fn plan(
    cfg: &Configuration,
    changes: &[RaftChange],
    reachable: &HashSet<MemberId>,
) -> Result<(Configuration, Configuration), Error> {
    let joint =
        configuration::enter(cfg, changes).map_err(|e| Error::refused(format!("refused: {e}")))?;
    let after =
        configuration::leave(&joint).map_err(|e| Error::refused(format!("refused: {e}")))?;
    check_decidable(&joint, reachable, "the joint configuration")?;
    check_decidable(&after, reachable, "the new configuration")?;
    Ok((joint, after))
}

/// The check of `joint leave`: the reachable members must be able to decide
/// in the joint configuration (both majorities) to commit the leave.
pub fn check_leave(cfg: &Configuration, reachable: &HashSet<MemberId>) -> Result<(), Error> {
    check_decidable(cfg, reachable, "the joint configuration")
}
