//! A learner catching up, judged from what was sampled: where it stands
//! ([`CatchUpState`]) and what it is doing ([`CatchUpPhase`]), the phases
//! it went through, the rates between two samples, how long it has been
//! ready ([`ReadySpan`], `--stable-for`) and the time left — and etcd's
//! readiness rule for promotion. Every instant is given (`now`): reading
//! the clock and the members is `workflow::catch_up`'s.

use std::time::Duration;

use tokio::time::Instant;

use crate::model::MemberId;

pub use crate::rules::learner_ready as is_ready;

/// Where a learner stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUpState {
    /// It has not started (no name published, or it does not answer).
    NotStarted,
    /// It answers but is below the readiness rule.
    CatchingUp,
    /// It meets the readiness rule.
    Ready,
    /// It meets the readiness rule by its match index, but the leader has
    /// not heard from it recently (cut off, or stopped): not promoted, since
    /// it would be a voter the quorum cannot count on.
    Unreachable,
    /// It is a voter already (someone promoted it).
    Promoted,
}

impl CatchUpState {
    /// A short word for people.
    pub fn as_str(self) -> &'static str {
        match self {
            CatchUpState::NotStarted => "not started",
            CatchUpState::CatchingUp => "catching up",
            CatchUpState::Ready => "ready",
            CatchUpState::Unreachable => "unreachable",
            CatchUpState::Promoted => "promoted",
        }
    }
}

/// What a learner is doing, as its own `/metrics` and the leader show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUpPhase {
    /// It has not started, or does not answer yet.
    NotStarted,
    /// A snapshot is on its way to it (`etcd_network_snapshot_receive_inflights_total`,
    /// or the leader's progress for it is `snapshot`).
    ReceivingSnapshot,
    /// It applies the snapshot it received (`etcd_server_snapshot_apply_in_progress_total`).
    ApplyingSnapshot,
    /// It receives and applies log entries.
    AppendingLog,
    /// It meets the readiness rule (or was promoted).
    Ready,
}

impl CatchUpPhase {
    /// The phase as printed: `not started`, `receiving snapshot`, …
    pub fn as_str(self) -> &'static str {
        match self {
            CatchUpPhase::NotStarted => "not started",
            CatchUpPhase::ReceivingSnapshot => "receiving snapshot",
            CatchUpPhase::ApplyingSnapshot => "applying snapshot",
            CatchUpPhase::AppendingLog => "appending the log",
            CatchUpPhase::Ready => "ready",
        }
    }
}

/// A learner's whole catch-up, as the wait saw it: returned with the
/// change's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CatchUpSummary {
    /// The learner.
    pub member: MemberId,
    /// Its label.
    pub label: String,
    /// Bytes it received from its peers since it started (its
    /// `etcd_network_peer_received_bytes_total` at the last sample), when read.
    pub bytes: Option<u64>,
    /// Seconds the wait took.
    pub seconds: f64,
    /// The catch-up check's prediction, when it made one.
    pub predicted_seconds: Option<f64>,
    /// Each phase seen, in order, with the seconds spent in it (as sampled:
    /// a phase shorter than a poll may not be seen).
    pub phases: Vec<(CatchUpPhase, f64)>,
}

/// One observation of a learner's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct CatchUpSample {
    /// The learner.
    pub member: MemberId,
    /// Its label for messages.
    pub label: String,
    /// Where it stands.
    pub state: CatchUpState,
    /// Its raft index, when it answered.
    pub learner_index: Option<u64>,
    /// The leader's raft index, when known.
    pub leader_index: Option<u64>,
    /// Entries it is behind, when both are known.
    pub lag: Option<u64>,
    /// Entries per second it gained since the previous sample.
    pub rate: Option<f64>,
    /// Its replication state as the leader sees it (probe, replicate,
    /// snapshot), when the server reports progress (memberctl engine).
    pub progress_state: Option<String>,
    /// Time since the wait began.
    pub elapsed: Duration,
    /// What it is doing.
    pub phase: CatchUpPhase,
    /// Bytes it received from its peers since it started, when its
    /// `/metrics` answered (etcd counts a snapshot once it is whole; the
    /// engine as it arrives).
    pub bytes_received: Option<u64>,
    /// Bytes per second since the previous sample.
    pub byte_rate: Option<f64>,
    /// The bytes a snapshot holds: the leader's database size.
    pub bytes_expected: Option<u64>,
    /// The time left, when it can be told from the rates.
    pub time_left: Option<Duration>,
    /// How long it has been ready without a break, and how long it must be
    /// before the promote (`--stable-for`; none without it).
    pub ready_for: Option<(Duration, Duration)>,
    /// The leader has delivered it a whole snapshot and it does not answer
    /// on its client URL ([`held_after_snapshot`]).
    pub held_after_snapshot: bool,
}

/// How long a learner may stay silent after the leader delivered its
/// snapshot before memberctl commits an entry for it ([`nudge_due`]): one
/// that is not held answers within a second or so (measured on etcd
/// 3.6.15); a held one starts at etcd's own retry of its start, 7 s after
/// the first attempt, if an entry came meanwhile.
pub const HELD_GRACE: Duration = Duration::from_secs(2);

/// The least time between two entries committed for the same learner.
pub const NUDGE_EVERY: Duration = Duration::from_secs(15);

/// Whether a learner is held after its snapshot: the leader has delivered
/// it a whole snapshot (`delivered`: a completed send and none under way)
/// and it does not answer (`answered`: its `/metrics` or status did).
///
/// etcd 3.6 and 3.7 (measured on 3.6.15) can hold a new learner there
/// forever: applying a snapshot does not move the applied index that their
/// "too many requests" check compares with the committed index (5,000
/// apart at most), and the learner's own start (publishing its name) is a
/// proposal that check refuses. It is freed by the next entry the cluster
/// commits, which the learner applies: on an idle cluster nothing comes.
pub fn held_after_snapshot(delivered: bool, answered: bool) -> bool {
    delivered && !answered
}

/// Whether to commit an entry that changes nothing for a learner held after
/// its snapshot since `since`, last done at `last` ([`HELD_GRACE`],
/// [`NUDGE_EVERY`]).
pub fn nudge_due(since: Option<Instant>, last: Option<Instant>, now: Instant) -> bool {
    since.is_some_and(|s| now.duration_since(s) >= HELD_GRACE)
        && last.is_none_or(|l| now.duration_since(l) >= NUDGE_EVERY)
}

/// The phases a learner was seen in, each with when it was first seen.
#[derive(Clone, Debug, Default)]
pub struct Phases(Vec<(CatchUpPhase, Instant)>);

impl Phases {
    /// Notes the phase of a sample taken at `now` (a new one when it differs
    /// from the last).
    pub fn enter(&mut self, phase: CatchUpPhase, now: Instant) {
        if self.0.last().map(|p| p.0) != Some(phase) {
            self.0.push((phase, now));
        }
    }

    /// Each phase seen, in order, with the seconds spent in it until the
    /// next one (the last until `now`).
    pub fn spent(&self, now: Instant) -> Vec<(CatchUpPhase, f64)> {
        self.0
            .iter()
            .enumerate()
            .map(|(i, (p, from))| {
                let until = self.0.get(i + 1).map_or(now, |n| n.1);
                (*p, until.duration_since(*from).as_secs_f64())
            })
            .collect()
    }
}

/// A rate per second: what `to` gained over `from` in the time between
/// them (none when no time passed).
pub fn rate((then, from): (Instant, u64), (now, to): (Instant, u64)) -> Option<f64> {
    let secs = now.duration_since(then).as_secs_f64();
    (secs > 0.0).then(|| to.saturating_sub(from) as f64 / secs)
}

/// How long a learner has been ready without a break (`--stable-for`,
/// Consul's stabilization time): a sample that is not ready starts the span
/// again.
#[derive(Clone, Copy, Debug)]
pub struct ReadySpan {
    /// How long it must hold.
    need: Duration,
    /// The first ready sample of the current span.
    since: Option<Instant>,
}

impl ReadySpan {
    /// A span that must hold `need` (zero: the first ready sample is enough).
    pub fn new(need: Duration) -> Self {
        ReadySpan { need, since: None }
    }

    /// Notes `sample`, taken at `now`, and shows the span in it; returns the
    /// state to act on: ready only once the span has held `need`, else
    /// catching up.
    pub fn note(&mut self, sample: &mut CatchUpSample, now: Instant) -> CatchUpState {
        if sample.state != CatchUpState::Ready {
            self.since = None;
            return sample.state;
        }
        if self.need.is_zero() {
            return CatchUpState::Ready;
        }
        let held = now.saturating_duration_since(*self.since.get_or_insert(now));
        sample.ready_for = Some((held, self.need));
        if held >= self.need {
            CatchUpState::Ready
        } else {
            CatchUpState::CatchingUp
        }
    }

    /// A sample could not be taken: the span is broken.
    pub fn reset(&mut self) {
        self.since = None;
    }
}

/// The time left from the sample's rates: the snapshot's bytes still to
/// come at the rate they arrive, or the entries behind at the rate they
/// are applied.
pub fn time_left(s: &CatchUpSample) -> Option<Duration> {
    let secs = match s.phase {
        CatchUpPhase::ReceivingSnapshot => {
            let (got, of, rate) = (s.bytes_received?, s.bytes_expected?, s.byte_rate?);
            (rate > 0.0).then(|| of.saturating_sub(got) as f64 / rate)?
        }
        CatchUpPhase::AppendingLog => {
            let (lag, rate) = (s.lag?, s.rate?);
            (rate > 0.0).then(|| lag as f64 / rate)?
        }
        CatchUpPhase::Ready => 0.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(secs.min(1e7)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_learner_held_after_its_snapshot_is_nudged_after_the_grace_then_seldom() {
        assert!(held_after_snapshot(true, false));
        assert!(!held_after_snapshot(true, true));
        assert!(!held_after_snapshot(false, false));
        let t0 = Instant::now();
        let s = Duration::from_secs;
        assert!(!nudge_due(None, None, t0 + s(60)));
        assert!(!nudge_due(Some(t0), None, t0 + s(1)));
        assert!(nudge_due(Some(t0), None, t0 + HELD_GRACE));
        assert!(!nudge_due(Some(t0), Some(t0 + s(2)), t0 + s(16)));
        assert!(nudge_due(Some(t0), Some(t0 + s(2)), t0 + s(17)));
    }

    #[test]
    fn readiness_rule_is_ninety_percent() {
        assert!(is_ready(90, 100));
        assert!(!is_ready(89, 100));
        assert!(is_ready(100, 100));
        assert!(is_ready(9, 10));
        assert!(!is_ready(0, 0));
        assert!(!is_ready(0, 5));
    }

    #[test]
    fn phases_and_rates_are_told_from_the_instants_given() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut p = Phases::default();
        p.enter(CatchUpPhase::ReceivingSnapshot, at(0));
        p.enter(CatchUpPhase::ReceivingSnapshot, at(500));
        p.enter(CatchUpPhase::AppendingLog, at(2_000));
        p.enter(CatchUpPhase::Ready, at(2_500));
        assert_eq!(
            p.spent(at(3_000)),
            [
                (CatchUpPhase::ReceivingSnapshot, 2.0),
                (CatchUpPhase::AppendingLog, 0.5),
                (CatchUpPhase::Ready, 0.5)
            ]
        );
        assert_eq!(rate((at(0), 100), (at(2_000), 300)), Some(100.0));
        assert_eq!(rate((at(0), 300), (at(1_000), 100)), Some(0.0));
        assert_eq!(rate((at(1_000), 1), (at(1_000), 9)), None);
    }
}
