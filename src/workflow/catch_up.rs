//! Samples how far a learner is behind the leader — its phase, the bytes it
//! received and the time left, from its own `/metrics`; what a sample
//! shows is judged in `calc::catching_up` (its items re-exported here).

use tokio::time::Instant;

use super::calc::catching_up::{held_after_snapshot, rate, time_left, Phases};
pub use super::calc::catching_up::{
    is_ready, CatchUpPhase, CatchUpSample, CatchUpState, CatchUpSummary, ReadySpan,
};
use super::health::{status_of, LEARNER_WAIT};
use super::{ApiError, ApiErrorKind, MembershipApi};
use crate::model::{MemberId, MemberList, MemberStatus, ServerMetrics};

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
    /// The phases seen.
    phases: Phases,
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
            phases: Phases::default(),
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
        let phases = self.phases.spent(now);
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
        self.phases.enter(phase, Instant::now());
    }

    /// Notes the bytes received so far, and their rate since the last sample.
    fn record_bytes(&mut self, sample: &mut CatchUpSample, bytes: u64) {
        let now = Instant::now();
        sample.byte_rate = self.last_bytes.and_then(|last| rate(last, (now, bytes)));
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
            held_after_snapshot: false,
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
        let mut metrics_read = false;
        if member.started() || indexes.is_some() {
            let asked = tokio::time::timeout(LEARNER_WAIT, api.server_metrics(&member)).await;
            if let Ok(Ok(m)) = asked {
                sample.phase = CatchUpPhase::AppendingLog;
                self.read_metrics(&mut sample, &m);
                metrics_read = true;
            }
        }
        // The leader's side: a snapshot on its way to the learner (etcd's
        // learner does not answer before it has joined). Not asked when the
        // learner answered and the leader's progress names its state (the
        // engine), once the leader's database size is known: every read of
        // the leader is work for the member that carries the clients'
        // writes, and its page is the largest.
        let leader_needed = !(metrics_read && sample.progress_state.is_some());
        if leader_status.is_none() && (leader_needed || self.expected.is_none()) {
            // The engine named its leader: asked first, no voter scanned.
            leader_status = leader_of(api, &list, leader_hint).await;
        }
        if self.expected.is_none() {
            self.expected = leader_status.as_ref().map(|s| s.db_size).filter(|b| *b > 0);
        }
        sample.bytes_expected = self.expected;
        let mut sending = false;
        let mut delivered = false;
        let mut sent = None;
        if let Some(l) = leader_status
            .as_ref()
            .filter(|_| leader_needed)
            .and_then(|s| list.get(s.member_id))
        {
            if let Ok(m) = api.server_metrics(l).await {
                let to_it = || m.snapshot_sends.iter().filter(|(to, _)| *to == self.id);
                sending = to_it().any(|(_, t)| t.inflight > 0.0);
                delivered = !sending && to_it().any(|(_, t)| t.success > 0.0);
                sent = m
                    .peer_sent_bytes
                    .iter()
                    .find(|(to, _)| *to == self.id)
                    .map(|(_, b)| *b);
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
            sample.held_after_snapshot = held_after_snapshot(delivered, metrics_read);
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
        sample.rate = self.last.and_then(|last| rate(last, (now, own_index)));
        self.last = Some((now, own_index));
        sample.time_left = time_left(&sample);
        Ok((sample, list))
    }
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
