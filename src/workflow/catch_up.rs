//! Samples how far a learner is behind the leader — its phase, the bytes it
//! received and the time left, from its own `/metrics` — and etcd's
//! readiness rule for promotion.

use std::time::Duration;

use tokio::time::Instant;

use super::health::{status_of, LEARNER_WAIT};
use super::{ApiError, ApiErrorKind, MembershipApi};
use crate::model::{MemberId, MemberList, MemberStatus, ServerMetrics};

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
}

/// Takes successive samples of one learner, remembering the last for the
/// rates and the phases seen for the summary.
pub struct CatchUp {
    id: MemberId,
    started: Instant,
    last: Option<(Instant, u64)>,
    /// Whether the server answers GetProgress (the exact match index).
    progress: bool,
    /// The bytes received at the previous sample, and when.
    last_bytes: Option<(Instant, u64)>,
    /// The leader's database size, read once.
    expected: Option<u64>,
    /// The phases seen: each with when it was first seen.
    phases: Vec<(CatchUpPhase, Instant)>,
    /// The catch-up check's prediction.
    predicted: Option<f64>,
    label: String,
}

impl CatchUp {
    /// Starts watching learner `id`.
    pub fn new(id: MemberId) -> Self {
        CatchUp {
            id,
            started: Instant::now(),
            last: None,
            progress: true,
            last_bytes: None,
            expected: None,
            phases: Vec::new(),
            predicted: None,
            label: id.to_string(),
        }
    }

    /// With the catch-up check's prediction, for the summary.
    pub fn predicted(mut self, seconds: Option<f64>) -> Self {
        self.predicted = seconds;
        self
    }

    /// The catch-up so far: bytes, seconds and phases.
    pub fn summary(&self) -> CatchUpSummary {
        let now = Instant::now();
        let phases = self
            .phases
            .iter()
            .enumerate()
            .map(|(i, (p, from))| {
                let until = self.phases.get(i + 1).map_or(now, |n| n.1);
                (*p, until.duration_since(*from).as_secs_f64())
            })
            .collect();
        // Since the learner started: a learner is watched from its start.
        let bytes = self.last_bytes.map(|(_, b)| b);
        CatchUpSummary {
            member: self.id,
            label: self.label.clone(),
            bytes,
            seconds: now.duration_since(self.started).as_secs_f64(),
            predicted_seconds: self.predicted,
            phases,
        }
    }

    /// Notes the phase of a sample (a new one when it differs from the last).
    fn enter(&mut self, phase: CatchUpPhase) {
        if self.phases.last().map(|p| p.0) != Some(phase) {
            self.phases.push((phase, Instant::now()));
        }
    }

    /// Notes the bytes received so far, and their rate since the last sample.
    fn record_bytes(&mut self, sample: &mut CatchUpSample, bytes: u64) {
        let now = Instant::now();
        if let Some((t, b)) = self.last_bytes {
            let secs = now.duration_since(t).as_secs_f64();
            if secs > 0.0 {
                sample.byte_rate = Some(bytes.saturating_sub(b) as f64 / secs);
            }
        }
        self.last_bytes = Some((now, bytes));
        sample.bytes_received = Some(bytes);
    }

    /// Reads the learner's own metrics: the phase they show and the bytes.
    fn read_metrics(&mut self, sample: &mut CatchUpSample, metrics: &ServerMetrics) {
        self.record_bytes(sample, metrics.received_bytes().max(0.0) as u64);
        if metrics.snapshot_apply_in_progress.is_some_and(|v| v > 0.0) {
            sample.phase = CatchUpPhase::ApplyingSnapshot;
        } else if metrics.receiving_snapshot() {
            sample.phase = CatchUpPhase::ReceivingSnapshot;
        }
    }

    /// Looks at the learner and the leader once: the leader's own view of
    /// the learner's match index when the server reports progress (memberctl
    /// engine), else each member's Status (etcd: the learner's raft index).
    /// Fails only when the member is gone or the cluster cannot be reached.
    pub async fn sample<A: MembershipApi>(
        &mut self,
        api: &A,
    ) -> Result<(CatchUpSample, MemberList), ApiError> {
        let list = api.member_list().await?;
        let Some(member) = list.get(self.id).cloned() else {
            return Err(ApiError::new(
                ApiErrorKind::NotFound,
                format!(
                    "member {} is no longer in the cluster (was it removed?)",
                    self.id
                ),
            ));
        };
        let mut sample = CatchUpSample {
            member: self.id,
            label: member.label(),
            state: CatchUpState::NotStarted,
            learner_index: None,
            leader_index: None,
            lag: None,
            rate: None,
            progress_state: None,
            elapsed: self.started.elapsed(),
            phase: CatchUpPhase::NotStarted,
            bytes_received: None,
            byte_rate: None,
            bytes_expected: self.expected,
            time_left: None,
            ready_for: None,
        };
        self.label = member.label();
        if !member.is_learner {
            sample.state = CatchUpState::Promoted;
            sample.phase = CatchUpPhase::Ready;
            self.enter(CatchUpPhase::Ready);
            return Ok((sample, list));
        }
        let mut indexes = None;
        let mut active = true;
        let mut leader_hint = MemberId(0);
        if self.progress {
            match api.get_progress().await {
                Ok(p) => {
                    leader_hint = p.leader;
                    if let Some(peer) = p.peers.iter().find(|p| p.id == self.id) {
                        sample.progress_state = Some(peer.state.clone());
                        active = peer.recent_active;
                        if member.started() || peer.matched > 0 {
                            indexes = Some((peer.matched, Some(p.last_index)));
                        }
                    }
                }
                Err(e) if e.kind == ApiErrorKind::Unimplemented => self.progress = false,
                Err(_) => {}
            }
        }
        let mut leader_status = None;
        if indexes.is_none() && sample.progress_state.is_none() && member.started() {
            if let Ok(own) = status_of(api, &member).await {
                leader_status = leader_of(api, &list, own.leader).await;
                indexes = Some((own.raft_index, leader_status.as_ref().map(|s| s.raft_index)));
            }
        }
        if leader_status.is_none() {
            // The engine named its leader: asked first, no voter scanned.
            leader_status = leader_of(api, &list, leader_hint).await;
        }
        if self.expected.is_none() {
            self.expected = leader_status.as_ref().map(|s| s.db_size).filter(|b| *b > 0);
        }
        sample.bytes_expected = self.expected;
        // The leader's side: a snapshot on its way to the learner (etcd's
        // learner does not answer before it has joined).
        let mut sending = false;
        let mut sent = None;
        if let Some(l) = leader_status.as_ref().and_then(|s| list.get(s.member_id)) {
            if let Ok(m) = api.server_metrics(l).await {
                sending = m
                    .snapshot_sends
                    .iter()
                    .any(|(to, t)| *to == self.id && t.inflight > 0.0);
                sent = m
                    .peer_sent_bytes
                    .iter()
                    .find(|(to, _)| *to == self.id)
                    .map(|(_, b)| *b);
            }
        }
        let mut metrics_read = false;
        if member.started() || indexes.is_some() {
            let asked = tokio::time::timeout(LEARNER_WAIT, api.server_metrics(&member)).await;
            if let Ok(Ok(m)) = asked {
                sample.phase = CatchUpPhase::AppendingLog;
                self.read_metrics(&mut sample, &m);
                metrics_read = true;
            }
        }
        if !metrics_read {
            if let Some(b) = sent {
                self.record_bytes(&mut sample, b.max(0.0) as u64);
            }
        }
        let snapshot_under_way = sending || sample.progress_state.as_deref() == Some("snapshot");
        if snapshot_under_way && sample.phase != CatchUpPhase::ApplyingSnapshot {
            sample.phase = CatchUpPhase::ReceivingSnapshot;
        }
        let Some((own_index, leader)) = indexes else {
            if sample.phase != CatchUpPhase::NotStarted {
                self.enter(sample.phase);
            }
            return Ok((sample, list));
        };
        sample.learner_index = Some(own_index);
        sample.state = CatchUpState::CatchingUp;
        if !metrics_read && sample.phase == CatchUpPhase::NotStarted {
            sample.phase = CatchUpPhase::AppendingLog;
        }
        sample.leader_index = leader;
        if let Some(leader) = leader {
            sample.lag = Some(leader.saturating_sub(own_index));
            if is_ready(own_index, leader) {
                sample.state = if active {
                    sample.phase = CatchUpPhase::Ready;
                    CatchUpState::Ready
                } else {
                    CatchUpState::Unreachable
                };
            }
        }
        self.enter(sample.phase);
        let now = Instant::now();
        if let Some((t, i)) = self.last {
            let secs = now.duration_since(t).as_secs_f64();
            if secs > 0.0 {
                sample.rate = Some(own_index.saturating_sub(i) as f64 / secs);
            }
        }
        self.last = Some((now, own_index));
        sample.time_left = time_left(&sample);
        Ok((sample, list))
    }
}

/// How long a learner has been ready without a break (`--stable-for`,
/// Consul's stabilization time): a sample that is not ready starts the span
/// again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadySpan {
    /// How long it must hold.
    need: Duration,
    /// The first ready sample of the current span.
    since: Option<Instant>,
}

impl ReadySpan {
    /// A span that must hold `need` (zero: the first ready sample is enough).
    pub(crate) fn new(need: Duration) -> Self {
        ReadySpan { need, since: None }
    }

    /// Notes `sample`, taken at `now`, and shows the span in it; returns the
    /// state to act on: ready only once the span has held `need`, else
    /// catching up.
    pub(crate) fn note(&mut self, sample: &mut CatchUpSample, now: Instant) -> CatchUpState {
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
    pub(crate) fn reset(&mut self) {
        self.since = None;
    }
}

/// The time left from the sample's rates: the snapshot's bytes still to
/// come at the rate they arrive, or the entries behind at the rate they
/// are applied.
fn time_left(s: &CatchUpSample) -> Option<Duration> {
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

/// The leader's status: ask the leader the learner named, else any voter
/// that names a leader.
async fn leader_of<A: MembershipApi>(
    api: &A,
    list: &MemberList,
    hint: MemberId,
) -> Option<MemberStatus> {
    if let Some(l) = list.get(hint) {
        if let Ok(s) = api.member_status(l).await {
            if s.leader == s.member_id {
                return Some(s);
            }
        }
    }
    for v in list.voters() {
        let Ok(s) = api.member_status(v).await else {
            continue;
        };
        if s.leader == s.member_id && s.leader.0 != 0 {
            return Some(s);
        }
        if let Some(l) = list.get(s.leader).filter(|l| l.id != v.id) {
            if let Ok(ls) = api.member_status(l).await {
                return Some(ls);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_rule_is_ninety_percent() {
        assert!(is_ready(90, 100));
        assert!(!is_ready(89, 100));
        assert!(is_ready(100, 100));
        assert!(is_ready(9, 10));
        assert!(!is_ready(0, 0));
        assert!(!is_ready(0, 5));
    }
}
