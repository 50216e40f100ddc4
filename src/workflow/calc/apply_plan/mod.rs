//! `member apply`'s plan: from the membership there is to the target voters,
//! one change at a time, in an order that keeps fault tolerance, with the
//! voters, quorum and fault tolerance after each step. Pure: no I/O.

use std::collections::HashSet;

use super::quorum::{fault_tolerance, quorum};
use crate::model::{Member, MemberId, MemberList, PeerUrls};

/// One member of the target: its name and peer URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetMember {
    /// The name it runs (or will run) under.
    pub name: String,
    /// Its peer URLs, read once.
    pub peer_urls: PeerUrls,
}

/// One change of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Give a member the target's peer URLs.
    Update {
        /// The member.
        member: Member,
        /// Its new peer URLs.
        peer_urls: PeerUrls,
    },
    /// Add a target member as a learner (it is then started and caught up).
    AddLearner(TargetMember),
    /// Wait for a learner to start and catch up, then promote it.
    Promote {
        /// The learner (ID 0 while it is yet to be added).
        member: Member,
        /// The name it starts under.
        name: String,
    },
    /// Hand leadership from a member that is to be removed to a voter that stays.
    MoveLeader {
        /// The leader, to be removed.
        from: Member,
        /// The voter that takes over.
        to: Member,
    },
    /// Remove a member (learner or voter) that is not in the target.
    Remove(Member),
    /// Wait for a learner to start and catch up (the engine: it is promoted
    /// in the joint change that follows).
    CatchUp {
        /// The learner (ID 0 while it is yet to be added).
        member: Member,
        /// The name it starts under.
        name: String,
    },
    /// Enter one joint configuration: every learner promoted and every
    /// member removed at once (memberctl engine).
    JointEnter {
        /// Learners that become voters (ID 0: added earlier in the plan).
        promote: Vec<(Member, String)>,
        /// Voters and learners that go.
        remove: Vec<Member>,
    },
    /// Leave the joint configuration (memberctl engine).
    JointLeave,
}

impl Action {
    /// The action's name in plans and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Update { .. } => "update",
            Action::AddLearner(_) => "add-learner",
            Action::Promote { .. } => "promote",
            Action::MoveLeader { .. } => "move-leader",
            Action::Remove(_) => "remove",
            Action::CatchUp { .. } => "catch-up",
            Action::JointEnter { .. } => "joint-enter",
            Action::JointLeave => "joint-leave",
        }
    }

    /// The member it acts on, as the operator knows it.
    pub fn member(&self) -> String {
        match self {
            Action::Update { member, .. } | Action::Remove(member) => member.label(),
            Action::AddLearner(t) => t.name.clone(),
            Action::Promote { member, name } if member.id.0 == 0 => name.clone(),
            Action::Promote { member, name } => format!("{name} ({})", member.id),
            Action::MoveLeader { to, .. } => to.label(),
            Action::CatchUp { member, name } if member.id.0 == 0 => name.clone(),
            Action::CatchUp { member, name } => format!("{name} ({})", member.id),
            Action::JointEnter { promote, remove } => {
                let mut parts: Vec<String> = promote
                    .iter()
                    .map(|(m, n)| match m.id.0 {
                        0 => format!("+{n}"),
                        _ => format!("+{n} ({})", m.id),
                    })
                    .collect();
                parts.extend(remove.iter().map(|m| format!("-{}", m.label())));
                parts.join(" ")
            }
            Action::JointLeave => String::new(),
        }
    }
}

/// A step of the plan: the action and the configuration after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyStep {
    /// What is done.
    pub action: Action,
    /// Voters after the step.
    pub voters_after: usize,
    /// The votes a decision needs after the step.
    pub quorum_after: usize,
    /// How many more voters may fail after the step (unreachable ones count as failed).
    pub fault_tolerance_after: usize,
    /// Voters after the step that answer (new ones counted once promoted).
    pub healthy_after: usize,
}

/// The whole plan, and what it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyPlan {
    /// The steps, in order.
    pub steps: Vec<ApplyStep>,
    /// Fault tolerance before the first step.
    pub fault_tolerance_before: usize,
    /// The lowest fault tolerance along the way.
    pub lowest_fault_tolerance: usize,
    /// Why fault tolerance must drop below min(now, target), when it must.
    pub warning: Option<String>,
}

/// How the target lines up with the members.
struct Matched {
    /// Target members that exist (by name, or by peer URLs before they started).
    kept: Vec<(TargetMember, Member)>,
    /// Target members to add.
    added: Vec<TargetMember>,
    /// Members not in the target.
    removed: Vec<Member>,
}

fn match_target(list: &MemberList, target: &[TargetMember]) -> Matched {
    let mut kept = Vec::new();
    let mut added = Vec::new();
    let mut used = HashSet::new();
    for t in target {
        let found = list
            .members
            .iter()
            .find(|m| m.started() && m.name == t.name)
            .or_else(|| {
                list.members
                    .iter()
                    .find(|m| !m.started() && t.peer_urls.same_as(&m.peer_urls))
            });
        match found {
            Some(m) if used.insert(m.id) => kept.push((t.clone(), m.clone())),
            _ => added.push(t.clone()),
        }
    }
    let removed = list
        .members
        .iter()
        .filter(|m| !used.contains(&m.id))
        .cloned()
        .collect();
    Matched {
        kept,
        added,
        removed,
    }
}

/// A configuration being walked through: voters with whether they answer.
struct Walk {
    voters: Vec<(String, bool)>,
    steps: Vec<ApplyStep>,
}

impl Walk {
    fn push(&mut self, action: Action) {
        let n = self.voters.len();
        let healthy = self.voters.iter().filter(|(_, h)| *h).count();
        self.steps.push(ApplyStep {
            action,
            voters_after: n,
            quorum_after: quorum(n),
            fault_tolerance_after: fault_tolerance(n, healthy),
            healthy_after: healthy,
        });
    }

    /// A joint step: `outgoing` must also keep a quorum, so the step shows
    /// the configuration with less room.
    fn push_joint(&mut self, action: Action, outgoing: &[(String, bool)]) {
        let margin = |v: &[(String, bool)]| {
            let healthy = v.iter().filter(|(_, h)| *h).count();
            (healthy as i64 - quorum(v.len()) as i64, v.len(), healthy)
        };
        let (new, old) = (margin(&self.voters), margin(outgoing));
        let (_, n, healthy) = if old.0 < new.0 { old } else { new };
        self.steps.push(ApplyStep {
            action,
            voters_after: self.voters.len(),
            quorum_after: quorum(n),
            fault_tolerance_after: fault_tolerance(n, healthy),
            healthy_after: healthy,
        });
    }

    fn drop_voter(&mut self, key: &str) {
        self.voters.retain(|(k, _)| k != key);
    }
}

/// The memberctl engine's way: learners added and caught up, then one joint
/// change for all promotions and removals, then leave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Engine {
    /// A joint configuration is open (it is left first).
    pub joint: bool,
    /// How many learners the cluster takes at once (`usize::MAX` until a
    /// refusal tells).
    pub learner_limit: usize,
    /// Learners seen caught up already (not waited for again).
    pub caught_up: HashSet<MemberId>,
}

/// Plans the way from `list` to `target` (the voters wanted), one change at a
/// time: peer URL updates; learners not in the target and `dead` voters
/// ([`super::look::Seen::dead`]) removed first (they add no fault
/// tolerance, and the server refuses every add while a voter is down); then
/// each new member added as
/// a learner and promoted, followed by one removal while some are left, so
/// the cluster never shrinks before it has grown; the leader removed last,
/// after leadership moved to a voter that stays. `reachable` are the members
/// that answer now (the fault tolerance counts them); `leader` the current
/// leader.
///
/// With `engine`, after the same first steps, new members are added as
/// learners and caught up (as many at once as the cluster takes), then one
/// joint change promotes every learner of the target and removes every
/// member that goes (the removals wait for the last batch), then it is left.
pub fn plan(
    list: &MemberList,
    target: &[TargetMember],
    reachable: &HashSet<MemberId>,
    dead: &HashSet<MemberId>,
    leader: Option<MemberId>,
    engine: Option<&Engine>,
) -> ApplyPlan {
    let m = match_target(list, target);
    let mut walk = Walk {
        voters: list
            .voters()
            .map(|v| (v.id.to_string(), reachable.contains(&v.id)))
            .collect(),
        steps: Vec::new(),
    };
    let before = {
        let n = walk.voters.len();
        fault_tolerance(n, walk.voters.iter().filter(|(_, h)| *h).count())
    };
    for (t, member) in &m.kept {
        if member.started() && !t.peer_urls.same_as(&member.peer_urls) {
            walk.push(Action::Update {
                member: member.clone(),
                peer_urls: t.peer_urls.clone(),
            });
        }
    }
    // Learners that go, and dead voters, first.
    let (early, mut later): (Vec<Member>, Vec<Member>) = m
        .removed
        .iter()
        .cloned()
        .partition(|r| r.is_learner || dead.contains(&r.id));
    for r in early {
        walk.drop_voter(&r.id.to_string());
        walk.push(Action::Remove(r));
    }
    if let Some(e) = engine {
        if e.joint {
            walk.push(Action::JointLeave);
        } else {
            joint_steps(&mut walk, &m, list, later, e, leader);
        }
        return finish(walk, before);
    }
    // The leader goes last.
    later.sort_by_key(|r| Some(r.id) == leader);
    let mut later = later.into_iter().peekable();
    type Later = std::iter::Peekable<std::vec::IntoIter<Member>>;
    let remove_one = |walk: &mut Walk, later: &mut Later| {
        let Some(r) = later.next() else {
            return;
        };
        if Some(r.id) == leader {
            // A voter that stays, or (in a plan shown before they exist) a new one.
            let stays = m
                .kept
                .iter()
                .map(|(_, k)| k.clone())
                .find(|k| k.is_voter() && reachable.contains(&k.id))
                .or_else(|| {
                    m.added.first().map(|t| Member {
                        name: t.name.clone(),
                        peer_urls: t.peer_urls.texts(),
                        ..Default::default()
                    })
                });
            if let Some(to) = stays {
                walk.push(Action::MoveLeader {
                    from: r.clone(),
                    to,
                });
            }
        }
        walk.drop_voter(&r.id.to_string());
        walk.push(Action::Remove(r));
    };
    // A cluster larger than the target (it grew by one in an earlier step)
    // shrinks by one before it grows again.
    if walk.voters.len() > target.len() {
        remove_one(&mut walk, &mut later);
    }
    // Learners that stay are promoted before new members are added.
    for (t, member) in m.kept.iter().filter(|(_, k)| k.is_learner) {
        walk.voters.push((member.id.to_string(), true));
        walk.push(Action::Promote {
            member: member.clone(),
            name: t.name.clone(),
        });
        remove_one(&mut walk, &mut later);
    }
    for t in &m.added {
        walk.push(Action::AddLearner(t.clone()));
        walk.voters.push((format!("new:{}", t.name), true));
        let placeholder = Member {
            peer_urls: t.peer_urls.texts(),
            is_learner: true,
            ..Default::default()
        };
        walk.push(Action::Promote {
            member: placeholder,
            name: t.name.clone(),
        });
        remove_one(&mut walk, &mut later);
    }
    while later.peek().is_some() {
        remove_one(&mut walk, &mut later);
    }
    finish(walk, before)
}

/// The engine's steps after the first ones: batches of learners, each ended
/// by one joint change and its leave.
fn joint_steps(
    walk: &mut Walk,
    m: &Matched,
    list: &MemberList,
    later: Vec<Member>,
    e: &Engine,
    leader: Option<MemberId>,
) {
    // The leader can hand over to a voter that stays only if one is there
    // before the joint change: with none (a move to new hosts), the new
    // members are promoted in a change of their own first.
    let voter_stays = m.kept.iter().any(|(_, k)| k.is_voter());
    let leader_goes = later.iter().any(|r| Some(r.id) == leader);
    let split = leader_goes && !voter_stays;
    let mut learners = list
        .members
        .iter()
        .filter(|x| x.is_learner && m.kept.iter().any(|(_, k)| k.id == x.id))
        .count();
    let mut promote: Vec<(Member, String)> = Vec::new();
    for (t, member) in m.kept.iter().filter(|(_, k)| k.is_learner) {
        if !e.caught_up.contains(&member.id) {
            walk.push(Action::CatchUp {
                member: member.clone(),
                name: t.name.clone(),
            });
        }
        promote.push((member.clone(), t.name.clone()));
    }
    let mut added = m.added.iter().peekable();
    loop {
        while learners < e.learner_limit {
            let Some(t) = added.next() else { break };
            walk.push(Action::AddLearner(t.clone()));
            let placeholder = Member {
                peer_urls: t.peer_urls.texts(),
                is_learner: true,
                ..Default::default()
            };
            walk.push(Action::CatchUp {
                member: placeholder.clone(),
                name: t.name.clone(),
            });
            promote.push((placeholder, t.name.clone()));
            learners += 1;
        }
        let last = added.peek().is_none();
        // When split, the removals wait until the new members were promoted.
        let remove = if last && (!split || promote.is_empty()) {
            later.clone()
        } else {
            Vec::new()
        };
        if promote.is_empty() && remove.is_empty() {
            return;
        }
        let removing = !remove.is_empty();
        // Both majorities decide while joint: the tolerance is the lower one.
        let outgoing = walk.voters.clone();
        for (p, name) in &promote {
            let key = match p.id.0 {
                0 => format!("new:{name}"),
                _ => p.id.to_string(),
            };
            walk.voters.push((key, true));
        }
        for r in &remove {
            walk.drop_voter(&r.id.to_string());
        }
        walk.push_joint(
            Action::JointEnter {
                promote: std::mem::take(&mut promote),
                remove,
            },
            &outgoing,
        );
        walk.push(Action::JointLeave);
        learners = 0;
        if removing || (last && !split) || e.learner_limit == 0 {
            return;
        }
    }
}

/// The plan with its tolerances, from the walk and the tolerance before it.
fn finish(walk: Walk, before: usize) -> ApplyPlan {
    let lowest = walk
        .steps
        .iter()
        .map(|s| s.fault_tolerance_after)
        .min()
        .unwrap_or(before)
        .min(before);
    let after = walk
        .steps
        .last()
        .map_or(before, |s| s.fault_tolerance_after);
    let warning = (lowest < before.min(after)).then(|| {
        format!(
            "fault tolerance drops to {lowest} on the way (it is {before} now and will be \
             {after}): no order of single changes avoids it"
        )
    });
    ApplyPlan {
        steps: walk.steps,
        fault_tolerance_before: before,
        lowest_fault_tolerance: lowest,
        warning,
    }
}

/// The first step whose voters that answer cannot form a quorum: the plan
/// would need an unreachable member to vote.
pub fn needs_unreachable(plan: &ApplyPlan) -> Option<&ApplyStep> {
    plan.steps
        .iter()
        .find(|s| s.voters_after > 0 && s.healthy_after < s.quorum_after)
}

#[cfg(test)]
mod tests;
