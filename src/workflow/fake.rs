//! An in-memory [`MembershipApi`] for unit tests of the workflows: members, reachability, catch-up, injected errors.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;

use super::{ApiError, ApiErrorKind, MembershipApi};
use crate::model::{
    Added, Alarm, Configuration, JointChange, Member, MemberId, MemberList, MemberStatus,
    PeerProgress, PeerUrls, ProgressReport, ServerMetrics,
};

/// The fake cluster's state; tests set it up and inspect `calls`.
#[derive(Default)]
pub struct State {
    pub list: MemberList,
    pub down: HashSet<MemberId>,
    pub leader: MemberId,
    pub leader_index: u64,
    /// Raft index of each member that is not the leader.
    pub index: HashMap<MemberId, u64>,
    /// How much a learner's index grows each time it is asked.
    pub gain: u64,
    pub add_errors: VecDeque<ApiError>,
    pub promote_errors: VecDeque<ApiError>,
    pub remove_errors: VecDeque<ApiError>,
    pub move_errors: VecDeque<ApiError>,
    /// The alarms raised.
    pub alarms: Vec<Alarm>,
    /// The changes that reached the fake, in order ("add", "promote", …).
    pub calls: Vec<String>,
    /// The next removal is applied, but its answer is lost (`server
    /// stopped`), and this many member lists read after it still show the
    /// member (answered by members that have not applied it yet).
    pub lost_removal: Option<usize>,
    /// Answer GetProgress as the memberctl engine does (from `index`,
    /// `leader_index` and `down`); else `Unimplemented`, as etcd.
    pub progress: bool,
    /// Each member's `/metrics`, when it serves them.
    pub metrics: HashMap<MemberId, ServerMetrics>,
    /// Whose `/metrics` were read, in order.
    pub metrics_reads: Vec<MemberId>,
    /// Refuse every add while a voter is down, as etcd's strict
    /// reconfiguration check does (`unhealthy cluster`).
    pub strict_adds: bool,
    /// The cluster's keyspace (`member replace`'s intent).
    pub keys: HashMap<String, String>,
    /// The list stale readers see, while `lost_removal` counts down.
    stale_list: Option<MemberList>,
    next_id: u64,
}

/// The fake server.
pub struct Fake(pub Mutex<State>);

fn member(id: u64, name: &str, port: u16, learner: bool) -> Member {
    Member {
        id: MemberId(id),
        name: name.to_string(),
        peer_urls: vec![format!("http://127.0.0.1:{port}")],
        client_urls: if name.is_empty() {
            vec![]
        } else {
            vec![format!("http://127.0.0.1:{}", port + 1000)]
        },
        is_learner: learner,
    }
}

impl Fake {
    /// Three started voters, m1 (leader) … m3, at index 100.
    pub fn three() -> Fake {
        let members = (1..=3)
            .map(|i| member(i, &format!("m{i}"), 2380 + i as u16, false))
            .collect();
        let state = State {
            list: MemberList::new(MemberId(0xc1), members),
            leader: MemberId(1),
            leader_index: 100,
            index: (1..=3).map(|i| (MemberId(i), 100)).collect(),
            next_id: 0x100,
            ..Default::default()
        };
        Fake(Mutex::new(state))
    }

    /// Raises `kind` on member `id`.
    pub fn with_alarm(self, id: u64, kind: crate::model::AlarmKind) -> Fake {
        self.state().alarms.push(Alarm {
            member_id: MemberId(id),
            kind,
        });
        self
    }

    /// Adds a learner directly (started or not) at `index`.
    pub fn with_learner(self, id: u64, name: &str, index: u64) -> Fake {
        {
            let mut s = self.state();
            s.list.members.push(member(id, name, 2390, true));
            s.index.insert(MemberId(id), index);
        }
        self
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap()
    }

    pub fn calls(&self) -> Vec<String> {
        self.state().calls.clone()
    }
}

fn unavailable(id: MemberId) -> ApiError {
    ApiError::new(ApiErrorKind::Unavailable, format!("member {id} is down"))
}

impl MembershipApi for Fake {
    async fn member_list(&self) -> Result<MemberList, ApiError> {
        let mut s = self.state();
        if let (Some(n @ 1..), Some(stale)) = (s.lost_removal, s.stale_list.clone()) {
            s.lost_removal = Some(n - 1);
            return Ok(stale);
        }
        Ok(s.list.clone())
    }

    async fn member_add(&self, peer_urls: &PeerUrls, is_learner: bool) -> Result<Added, ApiError> {
        let mut s = self.state();
        s.calls.push("add".into());
        if let Some(e) = s.add_errors.pop_front() {
            return Err(e);
        }
        if s.strict_adds && s.list.voters().any(|m| s.down.contains(&m.id)) {
            return Err(ApiError::new(
                ApiErrorKind::Unhealthy,
                "etcdserver: unhealthy cluster",
            ));
        }
        s.next_id += 1;
        let m = Member {
            id: MemberId(s.next_id),
            peer_urls: peer_urls.texts(),
            is_learner,
            ..Default::default()
        };
        s.list.members.push(m.clone());
        s.list.members.sort_by_key(|m| m.id);
        Ok(Added {
            member: m,
            list: s.list.clone(),
        })
    }

    async fn member_remove(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let mut s = self.state();
        s.calls.push("remove".into());
        if let Some(e) = s.remove_errors.pop_front() {
            return Err(e);
        }
        let before = s.list.clone();
        s.list.members.retain(|m| m.id != id);
        if s.lost_removal.is_some() && s.stale_list.is_none() {
            s.stale_list = Some(before);
            return Err(ApiError::new(
                ApiErrorKind::Unavailable,
                "etcdserver: server stopped",
            ));
        }
        Ok(s.list.clone())
    }

    async fn member_update(
        &self,
        id: MemberId,
        peer_urls: &PeerUrls,
    ) -> Result<MemberList, ApiError> {
        let mut s = self.state();
        s.calls.push("update".into());
        if let Some(m) = s.list.members.iter_mut().find(|m| m.id == id) {
            m.peer_urls = peer_urls.texts();
        }
        Ok(s.list.clone())
    }

    async fn member_promote(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let mut s = self.state();
        s.calls.push("promote".into());
        if let Some(e) = s.promote_errors.pop_front() {
            return Err(e);
        }
        if let Some(m) = s.list.members.iter_mut().find(|m| m.id == id) {
            m.is_learner = false;
        }
        Ok(s.list.clone())
    }

    async fn member_status(&self, m: &Member) -> Result<MemberStatus, ApiError> {
        let mut s = self.state();
        if s.down.contains(&m.id) || m.client_urls.is_empty() {
            return Err(unavailable(m.id));
        }
        let leader_index = s.leader_index;
        let gain = s.gain;
        let index = if m.id == s.leader {
            leader_index
        } else {
            let i = s.index.entry(m.id).or_insert(0);
            if m.is_learner {
                *i = (*i + gain).min(leader_index);
            }
            *i
        };
        Ok(MemberStatus {
            member_id: m.id,
            leader: s.leader,
            raft_term: 2,
            raft_index: index,
            raft_applied_index: index,
            is_learner: m.is_learner,
            ..Default::default()
        })
    }

    async fn move_leader(&self, leader: &Member, target: MemberId) -> Result<(), ApiError> {
        let mut s = self.state();
        s.calls.push(format!("move-leader {target}"));
        if let Some(e) = s.move_errors.pop_front() {
            return Err(e);
        }
        if s.down.contains(&leader.id) {
            return Err(unavailable(leader.id));
        }
        if leader.id != s.leader {
            return Err(ApiError::new(
                ApiErrorKind::Refused,
                "etcdserver: not leader",
            ));
        }
        let voter = s.list.get(target).is_some_and(|m| m.is_voter());
        if !voter {
            return Err(ApiError::new(
                ApiErrorKind::Refused,
                "etcdserver: bad leader transferee",
            ));
        }
        if s.down.contains(&target) {
            return Err(ApiError::new(
                ApiErrorKind::Unavailable,
                "etcdserver: request timed out, leader transfer took too long",
            ));
        }
        s.leader = target;
        Ok(())
    }

    async fn alarms(&self) -> Result<Vec<Alarm>, ApiError> {
        Ok(self.state().alarms.clone())
    }

    async fn get_config(&self) -> Result<Configuration, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            "unknown service memberctl.v1.Membership",
        ))
    }

    async fn get_progress(&self) -> Result<ProgressReport, ApiError> {
        let s = self.state();
        if !s.progress {
            return Err(ApiError::new(
                ApiErrorKind::Unimplemented,
                "unknown service memberctl.v1.Membership",
            ));
        }
        let peers = s
            .list
            .members
            .iter()
            .map(|m| PeerProgress {
                id: m.id,
                matched: match m.id == s.leader {
                    true => s.leader_index,
                    false => s.index.get(&m.id).copied().unwrap_or(0),
                },
                state: "replicate".into(),
                is_learner: m.is_learner,
                recent_active: m.started() && !s.down.contains(&m.id),
                ..Default::default()
            })
            .collect();
        Ok(ProgressReport {
            leader: s.leader,
            last_index: s.leader_index,
            peers,
            ..Default::default()
        })
    }

    async fn server_metrics(&self, m: &Member) -> Result<ServerMetrics, ApiError> {
        let mut s = self.state();
        s.metrics_reads.push(m.id);
        match s.metrics.get(&m.id) {
            Some(_) if s.down.contains(&m.id) => Err(unavailable(m.id)),
            Some(x) => Ok(x.clone()),
            None => Err(ApiError::new(
                ApiErrorKind::Unimplemented,
                format!("no metrics for {}", m.label()),
            )),
        }
    }

    async fn key_get(&self, key: &str) -> Result<Option<String>, ApiError> {
        Ok(self.state().keys.get(key).cloned())
    }

    async fn key_put(&self, key: &str, value: Option<&str>) -> Result<(), ApiError> {
        let mut s = self.state();
        s.calls.push(format!("put {key}"));
        match value {
            Some(v) => s.keys.insert(key.to_string(), v.to_string()),
            None => s.keys.remove(key),
        };
        Ok(())
    }

    async fn joint_enter(&self, _: &[JointChange]) -> Result<Configuration, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            "unknown service memberctl.v1.Membership",
        ))
    }

    async fn joint_leave(&self, _leaving: &[MemberId]) -> Result<Configuration, ApiError> {
        Err(ApiError::new(
            ApiErrorKind::Unimplemented,
            "unknown service memberctl.v1.Membership",
        ))
    }
}
