//! `member replace`'s steps from where the cluster is now: which acts are
//! left, in the order chosen ([`super::order`]), and the configuration
//! each passes through (quorum and fault tolerance). Pure: `--dry-run`
//! prints these steps and a run takes them, so the plan is what runs; a
//! rerun plans again from what the earlier run left. Taking them is
//! `workflow::replace`'s.

use std::collections::{HashMap, HashSet};

use super::configuration::{self, RaftChange};
use super::health::Health;
use super::joint;
use super::leader;
use super::order::First;
use super::preflight::Change;
use super::quorum::{Config, PlanStep};
use crate::model::{Configuration, Member, MemberId, MemberList};

/// What one step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Remove the old member (`member remove`: rule 4, leadership moved
    /// away first when it leads).
    Remove,
    /// Add the new member as a learner and start it.
    Add,
    /// Wait for the new member to start and catch up, then promote it.
    Promote,
    /// (memberctl engine) Wait for the new member to catch up, then one
    /// joint change promotes it and removes the old one, then leave it.
    Joint,
    /// (memberctl engine) Leave the joint configuration an earlier run left.
    Leave,
}

/// One step: what it does and the configurations it passes through (a
/// leadership transfer before a removal, the joint one before its leave).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What it does.
    pub act: Act,
    /// The configurations after it, in order; the last is where it ends.
    pub shows: Vec<PlanStep>,
}

/// Where the replacement stands.
pub struct Where<'a> {
    /// The members and what each answered.
    pub health: &'a Health,
    /// The old member, while it is still a member.
    pub old: Option<&'a Member>,
    /// The new member, once it is one.
    pub new: Option<&'a Member>,
    /// The new member's name.
    pub name: &'a str,
    /// The order chosen.
    pub first: First,
    /// The raft configuration (memberctl engine; `None` on etcd).
    pub engine: Option<&'a Configuration>,
}

/// The name of the step that removes `old`.
pub fn removed(old: &Member) -> String {
    format!("after removing {}", old.label())
}

/// The name of the step that adds the new member `name`.
pub fn added(name: &str) -> String {
    format!("after adding {name} as a learner")
}

/// The name of the step that promotes the new member `name`.
pub fn promoted(name: &str) -> String {
    format!("after promoting {name}")
}

/// The joint step's name.
pub const JOINT: &str = "C_old∧C_new (joint: promote new, remove old)";
/// The name of the step after the joint configuration is left.
pub const LEFT: &str = "C_new (after joint leave)";

/// The configuration before, and the steps left from `w`.
pub fn steps(w: &Where) -> (PlanStep, Vec<Step>) {
    let reachable = w.health.reachable();
    let new_label = w
        .new
        .map_or_else(|| format!("{} (new)", w.name), |m| m.id.to_string());
    let mut config = Config::of(&w.health.list, &reachable);
    let before = config.step("before");
    let mut out = Vec::new();
    if let Some(cfg) = w.engine.filter(|c| c.is_joint()) {
        // An earlier run entered the joint configuration: only leaving is left.
        if let Ok(after) = configuration::leave(cfg) {
            let labels = labels(&w.health.list, None, "");
            let shows = vec![joint::step(LEFT, &after, &reachable, &labels)];
            out.push(Step {
                act: Act::Leave,
                shows,
            });
        }
        return (before, out);
    }
    let new_voter = w.new.is_some_and(Member::is_voter);
    let transfer = |old: &Member| {
        leader::planned(w.health, &HashSet::from([old.id]))
            .map(|(from, to)| leader::step_name(&from, &to))
    };
    let remove_old = |config: &mut Config, old: &Member| {
        let mut shows = Vec::new();
        if let Some(name) = transfer(old) {
            shows.push(config.step(name));
        }
        config.remove(&old.id.to_string());
        shows.push(config.step(removed(old)));
        Step {
            act: Act::Remove,
            shows,
        }
    };
    let add_new = |config: &mut Config| {
        config.add_learner(new_label.clone());
        Step {
            act: Act::Add,
            shows: vec![config.step(added(w.name))],
        }
    };
    let promote_new = |config: &mut Config| {
        config.promote(&new_label, true);
        Step {
            act: Act::Promote,
            shows: vec![config.step(promoted(w.name))],
        }
    };
    match (w.first, w.old) {
        // Remove first, or what is left of it once the old member is gone.
        (First::Remove, _) | (First::Add, None) => {
            if let Some(old) = w.old {
                out.push(remove_old(&mut config, old));
            }
            if w.new.is_none() {
                out.push(add_new(&mut config));
            }
            if !new_voter {
                out.push(promote_new(&mut config));
            }
        }
        (First::Add, Some(old)) => {
            if w.new.is_none() {
                out.push(add_new(&mut config));
            }
            match w.engine {
                Some(cfg) => out.extend(joint_step(w, cfg, old, &reachable, transfer(old))),
                None => {
                    if !new_voter {
                        out.push(promote_new(&mut config));
                    }
                    out.push(remove_old(&mut config, old));
                }
            }
        }
    }
    (before, out)
}

/// Labels for the configuration's members: hex IDs, and the new member's
/// label for `placeholder` while it does not exist.
fn labels(
    list: &MemberList,
    placeholder: Option<MemberId>,
    new_label: &str,
) -> HashMap<MemberId, String> {
    list.members
        .iter()
        .map(|m| (m.id, m.id.to_string()))
        .chain(placeholder.map(|p| (p, new_label.to_string())))
        .collect()
}

/// The engine's swap: one joint change that promotes the new member (when
/// it is still a learner) and removes the old one, then its leave.
fn joint_step(
    w: &Where,
    cfg: &Configuration,
    old: &Member,
    reachable: &HashSet<MemberId>,
    transfer: Option<String>,
) -> Option<Step> {
    let placeholder = MemberId(u64::MAX);
    let (new_id, label) = match w.new {
        Some(m) => (m.id, m.id.to_string()),
        None => (placeholder, format!("{} (new)", w.name)),
    };
    let mut with_learner = cfg.clone();
    if w.new.is_none() {
        with_learner.learners.push(placeholder);
    }
    let labels = labels(&w.health.list, Some(placeholder), &label);
    let mut changes = Vec::new();
    if !cfg.voters.contains(&new_id) {
        changes.push(RaftChange::AddVoter(new_id));
    }
    changes.push(RaftChange::Remove(old.id));
    // The new member counts as reachable once it has started and caught up.
    let mut up = reachable.clone();
    up.insert(new_id);
    let mut shows = Vec::new();
    if let Some(name) = transfer {
        shows.push(joint::step(&name, &with_learner, reachable, &labels));
    }
    let joint_cfg = configuration::enter(&with_learner, &changes).ok()?;
    shows.push(joint::step(JOINT, &joint_cfg, &up, &labels));
    let after = configuration::leave(&joint_cfg).ok()?;
    shows.push(joint::step(LEFT, &after, &up, &labels));
    Some(Step {
        act: Act::Joint,
        shows,
    })
}

/// The membership changes of `steps`, in order, as the pre-flight checks
/// see them (`old` and `new` as in [`Where`]).
pub fn changes(steps: &[Step], old: Option<&Member>, new: Option<&Member>) -> Vec<Change> {
    let promote = || match new {
        Some(m) => Change::Promote(m.id),
        None => Change::PromoteNew,
    };
    let remove = || old.map(|m| Change::Remove(m.id));
    let mut out = Vec::new();
    for s in steps {
        match s.act {
            Act::Remove => out.extend(remove()),
            Act::Add => out.push(Change::Add { learner: true }),
            Act::Promote => out.push(promote()),
            Act::Joint => {
                if !new.is_some_and(Member::is_voter) {
                    out.push(promote());
                }
                out.extend(remove());
            }
            Act::Leave => {}
        }
    }
    out
}
