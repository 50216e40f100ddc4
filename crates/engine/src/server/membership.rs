//! The `memberctl.v1.Membership` extension: configuration, leader-side
//! progress, and explicit joint consensus (enter with many changes, leave),
//! each change checked before it is proposed and confirmed once applied.

use std::sync::Arc;

use tonic::{Code, Request, Response, Status};

use super::access::Caller;
use super::forward::{forwarded, Answer, Route};
use super::{errors, Shared};
use crate::node::{Applied, ConfView, MemberChange};
use crate::proto::memberctl_store_v1 as spb;
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::membership_client::MembershipClient;
use crate::proto::memberctl_v1::membership_server::Membership;

/// The Membership service.
pub struct MembershipService(pub Arc<Shared>);

fn config(c: &ConfView) -> pb::Config {
    pb::Config {
        voters: c.voters.clone(),
        voters_outgoing: c.voters_outgoing.clone(),
        learners: c.learners.clone(),
        learners_next: c.learners_next.clone(),
        auto_leave: c.auto_leave,
    }
}

fn refused(msg: &str) -> Status {
    Status::new(Code::FailedPrecondition, format!("memberctl: {msg}"))
}

impl MembershipService {
    async fn propose(
        &self,
        changes: Vec<MemberChange>,
        explicit: bool,
        added: Vec<spb::MemberMeta>,
    ) -> Result<ConfView, Status> {
        let s = &self.0;
        match s.wait(s.node.change_conf(changes, explicit, added)).await? {
            Applied::Conf(view) => Ok(view),
            other => Err(Status::internal(format!(
                "etcdserver: unexpected result {other:?}"
            ))),
        }
    }
}

#[tonic::async_trait]
impl Membership for MembershipService {
    async fn get_config(
        &self,
        req: Request<pb::GetConfigRequest>,
    ) -> Result<Response<pb::Config>, Status> {
        // Answered by the leader once it has applied everything committed:
        // a lagging member (a learner still joining) would answer a stale one.
        let s = &self.0;
        let caller = &s.caller(&req).await?;
        s.at_leader(req, Answer::Served, |route, r| async move {
            match route {
                Route::Leader(ch) => {
                    MembershipClient::new(ch)
                        .get_config(forwarded(r, caller))
                        .await
                }
                Route::Here => {
                    s.wait(s.node.read_index()).await?;
                    Ok(Response::new(config(&s.node.view().conf)))
                }
            }
        })
        .await
    }

    async fn get_progress(
        &self,
        req: Request<pb::GetProgressRequest>,
    ) -> Result<Response<pb::Progress>, Status> {
        let s = &self.0;
        let caller = &s.caller(&req).await?;
        s.at_leader(req, Answer::Served, |route, r| async move {
            match route {
                Route::Leader(ch) => {
                    MembershipClient::new(ch)
                        .get_progress(forwarded(r, caller))
                        .await
                }
                Route::Here => self.progress().await,
            }
        })
        .await
    }

    async fn joint_enter(
        &self,
        req: Request<pb::JointEnterRequest>,
    ) -> Result<Response<pb::Config>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { MembershipClient::new(ch).joint_enter(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.enter(r).await
            },
        )
        .await
    }

    async fn joint_leave(
        &self,
        req: Request<pb::JointLeaveRequest>,
    ) -> Result<Response<pb::Config>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { MembershipClient::new(ch).joint_leave(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.leave(r, &caller).await
            },
        )
        .await
    }
}

/// The reads and changes as the leader serves them.
impl MembershipService {
    /// `GetProgress` at the leader: raft's view of each peer.
    async fn progress(&self) -> Result<Response<pb::Progress>, Status> {
        let s = &self.0;
        let view = s.node.view();
        let replication = s.wait(s.node.progress()).await?;
        // Recently active: a message from it within one election timeout.
        let config = s.node.config();
        let election_timeout = config.heartbeat * config.election_ticks as u32;
        let peers = replication
            .peers
            .into_iter()
            .map(|p| pb::PeerProgress {
                recent_active: p.heard_within(election_timeout),
                id: p.id,
                match_index: p.matched,
                next_index: p.next,
                state: p.state,
                is_learner: p.is_learner,
                pending_snapshot: p.pending_snapshot,
            })
            .collect();
        Ok(Response::new(pb::Progress {
            leader: view.id,
            last_index: view.last_index,
            peers,
            first_index: replication.first_index,
            snapshot_count: replication.snapshot_count,
            catch_up_entries: replication.catch_up_entries,
            checkpoint_bytes: replication.checkpoint_bytes,
        }))
    }

    /// `JointEnter` at the leader: one ConfChangeV2 with every change.
    async fn enter(&self, r: pb::JointEnterRequest) -> Result<pb::Config, Status> {
        let s = &self.0;
        let view = s.node.view();
        if !view.conf.voters_outgoing.is_empty() {
            return Err(refused(
                "a joint configuration is already open; leave it first (joint leave)",
            ));
        }
        let members = s.node.store().members();
        let known = |id: u64| members.iter().find(|m| m.id == id);
        let mut changes = Vec::new();
        let mut added = Vec::new();
        for c in r.changes {
            use pb::joint_change::Change as C;
            match c.change {
                Some(C::AddLearner(l)) => {
                    super::cluster::check_new_urls(s, &l.peer_urls)?;
                    let id = super::cluster::new_member_id(s, &members);
                    added.push(spb::MemberMeta {
                        id,
                        name: String::new(),
                        peer_urls: l.peer_urls,
                        client_urls: vec![],
                        is_learner: true,
                    });
                    changes.push(MemberChange::AddLearner(id));
                }
                Some(C::Promote(id)) => match known(id) {
                    None => return Err(errors::member_not_found()),
                    Some(m) if !m.is_learner => return Err(errors::not_learner()),
                    Some(_) => changes.push(MemberChange::AddVoter(id)),
                },
                Some(C::Demote(id)) => match known(id) {
                    None => return Err(errors::member_not_found()),
                    Some(m) if m.is_learner => {
                        return Err(refused(&format!("member {id:016x} is already a learner")))
                    }
                    Some(_) => changes.push(MemberChange::AddLearner(id)),
                },
                Some(C::Remove(id)) => match known(id) {
                    None => return Err(errors::member_not_found()),
                    Some(_) => changes.push(MemberChange::Remove(id)),
                },
                None => return Err(Status::invalid_argument("memberctl: an empty change")),
            }
        }
        if changes.is_empty() {
            return Err(Status::invalid_argument(
                "memberctl: a joint change needs at least one change",
            ));
        }
        let learners_after = view.conf.learners.len() + added.len();
        if !added.is_empty() && learners_after > s.node.config().max_learners {
            return Err(errors::too_many_learners());
        }
        let conf = self.propose(changes, true, added).await?;
        if conf.voters_outgoing.is_empty() {
            return Err(Status::internal(
                "memberctl: the joint change was not applied",
            ));
        }
        Ok(config(&conf))
    }

    /// `JointLeave` at the leader; a leader that is not a voter of the new
    /// configuration hands leadership over first and passes it on.
    async fn leave(&self, r: pb::JointLeaveRequest, caller: &Caller) -> Result<pb::Config, Status> {
        let s = &self.0;
        let view = s.node.view();
        if view.conf.voters_outgoing.is_empty() {
            return Err(refused(
                "the configuration is not joint; there is nothing to leave",
            ));
        }
        if !view.conf.voters.contains(&view.id) {
            // This leader is not a voter of the new configuration: hand
            // leadership to the most up-to-date incoming voter first.
            let progress = s.wait(s.node.progress()).await?.peers;
            let next = progress
                .iter()
                .filter(|p| view.conf.voters.contains(&p.id))
                .max_by_key(|p| p.matched)
                .map(|p| p.id)
                .ok_or_else(errors::leader_changed)?;
            let ch = s.hand_over(next).await?;
            let answer = MembershipClient::new(ch)
                .joint_leave(forwarded(r, caller))
                .await?;
            // Passed on from here: applied here before it is answered, as
            // `Shared::at_leader` does for what it passes on.
            s.catch_up().await;
            return Ok(answer.into_inner());
        }
        let conf = self.propose(vec![], false, vec![]).await?;
        if !conf.voters_outgoing.is_empty() {
            return Err(Status::internal(
                "memberctl: leaving the joint configuration was not applied",
            ));
        }
        Ok(config(&conf))
    }
}
