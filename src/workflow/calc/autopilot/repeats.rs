//! Which of autopilot's decisions are worth a line: a change of decision, and the same decision again only once per heartbeat, so a healthy cluster costs a line every few minutes instead of one per look.

use std::time::Duration;

use super::Reported;
use crate::model::MemberId;

/// What makes two decisions the same for the log: the phase, the action,
/// the reason and the members they are about. Figures inside the sentence
/// (how long a voter has been unreachable) are not part of it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    phase: &'static str,
    action: &'static str,
    reason: &'static str,
    about: Option<MemberId>,
    member: Option<MemberId>,
}

impl Key {
    fn of(r: &Reported) -> Key {
        Key {
            phase: r.phase.as_str(),
            action: r.decision.action.as_str(),
            reason: r.decision.why.as_str(),
            about: r.decision.about.as_ref().map(|m| m.id),
            member: r.decision.action.member().map(|m| m.id),
        }
    }
}

/// Remembers the last decision reported and when.
#[derive(Clone, Debug)]
pub struct Repeats {
    heartbeat: Duration,
    last: Option<(Key, Duration)>,
}

impl Repeats {
    /// Repeats of one decision reported at most once per `heartbeat`
    /// (zero: every one).
    pub fn new(heartbeat: Duration) -> Repeats {
        Repeats {
            heartbeat,
            last: None,
        }
    }

    /// Whether `r` is reported: always when it differs from the last one
    /// reported (or is an action's progress: decided, done, failed); a
    /// repeat of the same decision once `heartbeat` has passed since that
    /// one was reported.
    pub fn report(&mut self, r: &Reported) -> bool {
        let key = Key::of(r);
        let acting = key.action != "none";
        let due = match &self.last {
            None => true,
            Some((last, at)) => {
                acting
                    || *last != key
                    || self.heartbeat.is_zero()
                    || r.at.saturating_sub(*at) >= self.heartbeat
            }
        };
        if due {
            self.last = Some((key, r.at));
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::calc::autopilot::{Decision, Phase, Why};

    fn at(secs: u64, why: Why) -> Reported {
        Reported {
            at: Duration::from_secs(secs),
            autopilot: "a".into(),
            leader: Some(MemberId(1)),
            decision: Decision::none(why),
            phase: Phase::Decided,
        }
    }

    #[test]
    fn a_repeated_decision_is_reported_once_per_heartbeat() {
        let mut r = Repeats::new(Duration::from_secs(300));
        let said: Vec<bool> = [0, 5, 10, 295, 300, 305]
            .iter()
            .map(|&s| r.report(&at(s, Why::Healthy)))
            .collect();
        assert_eq!(said, [true, false, false, false, true, false]);
    }

    #[test]
    fn a_change_of_decision_is_reported_at_once_and_figures_do_not_count() {
        let mut r = Repeats::new(Duration::from_secs(300));
        let waiting = |s| Why::Waiting {
            for_: Duration::from_secs(s),
            dead_after: Duration::from_secs(30),
        };
        assert!(r.report(&at(0, Why::Healthy)));
        assert!(r.report(&at(5, waiting(5))));
        assert!(!r.report(&at(10, waiting(10))));
        assert!(r.report(&at(15, Why::Healthy)));
        // Zero: every look.
        let mut every = Repeats::new(Duration::ZERO);
        assert!(every.report(&at(0, Why::Healthy)));
        assert!(every.report(&at(5, Why::Healthy)));
    }
}
