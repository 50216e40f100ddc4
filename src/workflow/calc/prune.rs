//! `member prune`'s judge: which members hold a place without doing its work, by the looks a watch took — learners that never started, learners whose index stood still behind the leader's, and (asked for) voters dead for the whole watch — and the floor of voters no removal goes below. The watch and the removals are `workflow::prune`'s.

use std::fmt;
use std::time::Duration;

use super::look::{Look, Seen};
use crate::model::{Member, MemberList};

/// The fewest voters prune leaves: three voters can still lose one.
pub const MIN_VOTERS: usize = 3;

/// Why a member is removed, kept or refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// A learner that has not started: it has published no name.
    NeverStarted,
    /// A started learner whose index did not move, behind the leader's.
    Stalled {
        /// Its index at the last look, when read.
        index: u64,
        /// The leader's at the same look, when read.
        leader_index: Option<u64>,
        /// How long it was watched.
        watched: Duration,
    },
    /// A started learner that answered no look, the leader not hearing it.
    Unreachable {
        /// How long it was watched.
        watched: Duration,
    },
    /// A voter that answered no look, the leader having lost it too.
    Dead {
        /// How long it was watched.
        watched: Duration,
    },
    /// Kept: its index moved while it was watched.
    Moving {
        /// Its index at the first look that read it.
        from: u64,
        /// At the last.
        to: u64,
    },
    /// Kept: at the leader's index (an idle learner does not move).
    CaughtUp {
        /// Its index.
        index: u64,
    },
    /// Kept: a snapshot was on its way to it.
    ReceivingSnapshot,
    /// Kept: the leader hears it, but its index could not be read.
    NoIndex,
    /// Kept: a started member that was not watched (`--stalled-for 0s`).
    NotWatched,
    /// Kept: a voter, and `--dead-voters` was not given.
    Voter,
    /// Kept: a voter that answered.
    Answers,
    /// Kept: a voter that does not answer, but the leader still hears it.
    LeaderHearsIt,
    /// Kept: a voter that does not answer; whether the leader hears it
    /// could not be read.
    LeaderUnknown,
    /// Refused: the voters that would remain are fewer than the minimum.
    BelowMinimum {
        /// The voters after its removal.
        voters_after: usize,
        /// The minimum.
        min: usize,
    },
    /// Refused by `member remove` (rule 4, a pre-flight check, the server).
    Refused(String),
}

impl Reason {
    /// The reason's name in JSON: `never_started`, `stalled`, …
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::NeverStarted => "never_started",
            Reason::Stalled { .. } => "stalled",
            Reason::Unreachable { .. } => "unreachable",
            Reason::Dead { .. } => "dead",
            Reason::Moving { .. } => "moving",
            Reason::CaughtUp { .. } => "caught_up",
            Reason::ReceivingSnapshot => "receiving_snapshot",
            Reason::NoIndex => "no_index",
            Reason::NotWatched => "not_watched",
            Reason::Voter => "voter",
            Reason::Answers => "answers",
            Reason::LeaderHearsIt => "leader_hears_it",
            Reason::LeaderUnknown => "leader_unknown",
            Reason::BelowMinimum { .. } => "below_minimum",
            Reason::Refused(_) => "refused",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |d: &Duration| d.as_secs_f64();
        match self {
            Reason::NeverStarted => f.write_str(
                "a learner that never started (no name published): it holds a learner slot",
            ),
            Reason::Stalled {
                index,
                leader_index,
                watched,
            } => {
                let leader = leader_index.map_or("?".to_string(), |l| l.to_string());
                write!(
                    f,
                    "its index stood at {index}, behind the leader's {leader}, for {:.1} s",
                    secs(watched)
                )
            }
            Reason::Unreachable { watched } => write!(
                f,
                "it answered nothing for {:.1} s and the leader does not hear it",
                secs(watched)
            ),
            Reason::Dead { watched } => write!(
                f,
                "a voter that answered nothing for {:.1} s, and the leader has lost it too",
                secs(watched)
            ),
            Reason::Moving { from, to } => write!(f, "its index moved from {from} to {to}"),
            Reason::CaughtUp { index } => {
                write!(f, "at the leader's index ({index}): caught up")
            }
            Reason::ReceivingSnapshot => f.write_str("a snapshot is on its way to it"),
            Reason::NoIndex => f.write_str("the leader hears it, but its index could not be read"),
            Reason::NotWatched => f.write_str(
                "started; not watched (--stalled-for 0s judges only unstarted learners)",
            ),
            Reason::Voter => f.write_str("a voter: prune removes voters only with --dead-voters"),
            Reason::Answers => f.write_str("a voter that answers"),
            Reason::LeaderHearsIt => {
                f.write_str("it does not answer, but the leader still hears it")
            }
            Reason::LeaderUnknown => f.write_str(
                "it does not answer, but whether the leader has lost it could not be read",
            ),
            Reason::BelowMinimum { voters_after, min } => write!(
                f,
                "dead, but removing it would leave {voters_after} voters, fewer than the \
                 minimum of {min} (--min-voters; three voters can still lose one): bring it \
                 back, or replace it (`memberctl member replace DEAD --name NEW --peer-urls \
                 URL` removes a dead voter first, then adds, starts and promotes the new \
                 member: the server refuses every add while a voter is down)"
            ),
            Reason::Refused(why) => write!(f, "member remove refused: {why}"),
        }
    }
}

/// What the judge is told besides what it saw.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// How long the watch lasted at least (`--stalled-for`).
    pub stalled_for: Duration,
    /// Voters are judged too.
    pub dead_voters: bool,
}

/// The judge's answer for one member.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It should go.
    Remove(Reason),
    /// It stays.
    Keep(Reason),
}

/// Judges each member of `list` (the membership after the watch) by the
/// `looks` the watch took.
pub fn judge(list: &MemberList, looks: &[Look], rules: Rules) -> Vec<(Member, Verdict)> {
    list.members
        .iter()
        .map(|m| {
            let seen: Vec<(&Look, &Seen)> = looks
                .iter()
                .filter_map(|l| l.members.iter().find(|s| s.id == m.id).map(|s| (l, s)))
                .collect();
            let verdict = if m.is_learner {
                judge_learner(m, &seen, rules)
            } else {
                judge_voter(&seen, rules)
            };
            (m.clone(), verdict)
        })
        .collect()
}

/// How long the looks of a member span.
fn span(seen: &[(&Look, &Seen)]) -> Duration {
    match (seen.first(), seen.last()) {
        (Some(a), Some(b)) => b.0.at.saturating_sub(a.0.at),
        _ => Duration::ZERO,
    }
}

/// Whether the leader heard the member at the last look that could tell.
fn heard_last(seen: &[(&Look, &Seen)]) -> Option<bool> {
    seen.iter().rev().find_map(|(_, s)| s.leader_hears)
}

/// The member's index at each look that read it, with the leader's at that
/// look: its own applied index when it answered at least as many looks as
/// the leader reported its match index, else that match index (one series,
/// never the two mixed).
fn indexes(seen: &[(&Look, &Seen)]) -> Vec<(u64, Option<u64>)> {
    let applied: Vec<(u64, Option<u64>)> = seen
        .iter()
        .filter_map(|(l, s)| Some((s.applied?, l.leader_applied)))
        .collect();
    let matched: Vec<(u64, Option<u64>)> = seen
        .iter()
        .filter_map(|(l, s)| Some((s.matched?, l.leader_last)))
        .collect();
    if !applied.is_empty() && applied.len() >= matched.len() {
        applied
    } else {
        matched
    }
}

fn judge_learner(m: &Member, seen: &[(&Look, &Seen)], rules: Rules) -> Verdict {
    if !m.started() {
        return Verdict::Remove(Reason::NeverStarted);
    }
    if rules.stalled_for.is_zero() || seen.len() < 2 {
        return Verdict::Keep(Reason::NotWatched);
    }
    if seen.iter().any(|(_, s)| s.snapshot) {
        return Verdict::Keep(Reason::ReceivingSnapshot);
    }
    let series = indexes(seen);
    if let (Some(first), Some(last)) = (series.first(), series.last()) {
        if first.0 != last.0 || series.iter().any(|(i, _)| *i != first.0) {
            return Verdict::Keep(Reason::Moving {
                from: first.0,
                to: last.0,
            });
        }
    }
    let answered = seen.iter().any(|(_, s)| s.answered);
    if !answered && heard_last(seen) != Some(true) {
        return Verdict::Remove(Reason::Unreachable {
            watched: span(seen),
        });
    }
    match series.last() {
        None => Verdict::Keep(Reason::NoIndex),
        Some(&(index, Some(leader))) if index >= leader => {
            Verdict::Keep(Reason::CaughtUp { index })
        }
        Some(&(index, leader_index)) => Verdict::Remove(Reason::Stalled {
            index,
            leader_index,
            watched: span(seen),
        }),
    }
}

fn judge_voter(seen: &[(&Look, &Seen)], rules: Rules) -> Verdict {
    if !rules.dead_voters {
        return Verdict::Keep(Reason::Voter);
    }
    if rules.stalled_for.is_zero() || seen.len() < 2 {
        return Verdict::Keep(Reason::NotWatched);
    }
    if seen.iter().any(|(_, s)| s.answered) {
        return Verdict::Keep(Reason::Answers);
    }
    match heard_last(seen) {
        Some(true) => Verdict::Keep(Reason::LeaderHearsIt),
        None => Verdict::Keep(Reason::LeaderUnknown),
        Some(false) => Verdict::Remove(Reason::Dead {
            watched: span(seen),
        }),
    }
}

/// Whether one of `voters` voters may be removed with `min` the fewest to
/// leave (never fewer than [`MIN_VOTERS`]).
pub fn may_remove_voter(voters: usize, min: usize) -> Result<(), Reason> {
    let min = min.max(MIN_VOTERS);
    let voters_after = voters.saturating_sub(1);
    if voters_after < min {
        return Err(Reason::BelowMinimum { voters_after, min });
    }
    Ok(())
}

/// The order removals go in: learners that never started, then the other
/// learners, then voters.
pub fn removal_rank(m: &Member, reason: &Reason) -> u8 {
    match (m.is_learner, reason) {
        (true, Reason::NeverStarted) => 0,
        (true, _) => 1,
        (false, _) => 2,
    }
}
