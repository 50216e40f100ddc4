//! The Cluster service with etcd's rules: URL checks, learner limit, strict
//! reconfiguration checks, the promote readiness rule (90 % of the leader's
//! match), and removal of the leader after handing leadership over.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::access::Caller;
use super::forward::{forwarded, Answer};
use super::{errors, etcd_member, Shared};
use crate::node::{Applied, ConfView, MemberChange};
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::cluster_client::ClusterClient;
use crate::proto::etcdserverpb::cluster_server::Cluster;
use crate::proto::memberctl_store_v1 as spb;
use crate::rules::peer_url::{check_url_syntax, endpoint_of, Endpoint};
use crate::rules::{learner_ready, quorum};

/// The etcd-compatible Cluster service.
pub struct ClusterService(pub Arc<Shared>);

/// Parses member URLs after checking them with memberctl's rule 1 syntax
/// (scheme://host:port written as parsers read it, nothing more: no white
/// space, path, query, user info or rewritten host), so that a client other
/// than memberctl (etcdctl) cannot store a URL memberctl would refuse; any
/// problem is etcd's "given member URLs are invalid".
fn check_urls(urls: &[String]) -> Result<Vec<Endpoint>, Status> {
    if urls.is_empty() {
        return Err(errors::bad_urls());
    }
    urls.iter()
        .map(|u| {
            if !check_url_syntax(u).is_empty() {
                return Err(errors::bad_urls());
            }
            endpoint_of(u).ok_or_else(errors::bad_urls)
        })
        .collect()
}

/// Refuses URLs that another member (not `except`) already has (the same
/// endpoint as rule 1 compares them).
fn check_taken(shared: &Shared, urls: &[Endpoint], except: Option<u64>) -> Result<(), Status> {
    for m in shared.node.store().members() {
        if Some(m.id) == except {
            continue;
        }
        if urls
            .iter()
            .any(|e| m.peer_urls.iter().any(|u| e.same_as(u)))
        {
            return Err(errors::peer_url_exists());
        }
    }
    Ok(())
}

/// Checks the peer URLs of a member to be added: valid, and nobody else's.
pub(super) fn check_new_urls(shared: &Shared, urls: &[String]) -> Result<(), Status> {
    let parsed = check_urls(urls)?;
    check_taken(shared, &parsed, None)
}

/// A random member ID that no member has and no removed member had (a
/// removed ID never rejoins).
pub(super) fn new_member_id(shared: &Shared, members: &[spb::MemberMeta]) -> u64 {
    let state = shared.node.store().state();
    loop {
        let id: u64 = rand::random();
        if id != 0 && !members.iter().any(|m| m.id == id) && !state.is_removed(id) {
            return id;
        }
    }
}

/// One configuration change at a time: nothing else while a joint configuration is open.
fn refuse_while_joint(shared: &Shared) -> Result<(), Status> {
    if shared.node.view().conf.voters_outgoing.is_empty() {
        return Ok(());
    }
    Err(Status::failed_precondition(
        "memberctl: a joint configuration is open; leave it first (memberctl member joint leave)",
    ))
}

impl ClusterService {
    fn members(&self) -> Result<Vec<spb::MemberMeta>, Status> {
        Ok(self.0.node.store().members())
    }

    fn list(&self) -> Result<Vec<epb::Member>, Status> {
        Ok(self.members()?.iter().map(etcd_member).collect())
    }

    /// Started voters after a change, against the quorum of the new voter count.
    fn check_started(&self, voters_after: &[u64], started_extra: usize) -> Result<(), Status> {
        if !self.0.node.config().strict_reconfig_check {
            return Ok(());
        }
        let members = self.members()?;
        let started = voters_after
            .iter()
            .filter(|id| members.iter().any(|m| m.id == **id && !m.name.is_empty()))
            .count()
            + started_extra;
        if started < quorum(voters_after.len()) {
            return Err(errors::not_enough_started());
        }
        Ok(())
    }

    /// The leader has heard from every other voter within two election
    /// timeouts (etcd 3.4's strict check asks for connections to all voters).
    async fn check_connected(&self) -> Result<(), Status> {
        let s = &self.0;
        let view = s.node.view();
        let config = s.node.config();
        if !config.strict_reconfig_check {
            return Ok(());
        }
        let window = config.heartbeat * (2 * config.election_ticks as u32);
        let progress = s.wait(s.node.progress()).await?.peers;
        let cut_off = progress.iter().any(|p| {
            p.id != view.id && view.conf.voters.contains(&p.id) && !p.heard_within(window)
        });
        if cut_off {
            return Err(errors::unhealthy());
        }
        Ok(())
    }

    async fn change(
        &self,
        changes: Vec<MemberChange>,
        added: Vec<spb::MemberMeta>,
    ) -> Result<ConfView, Status> {
        let s = &self.0;
        match s.wait(s.node.change_conf(changes, false, added)).await? {
            Applied::Conf(view) => Ok(view),
            other => Err(errors::unexpected(other)),
        }
    }

    fn response_members(&self) -> Result<(Option<epb::ResponseHeader>, Vec<epb::Member>), Status> {
        Ok((self.0.header(0), self.list()?))
    }
}

#[tonic::async_trait]
impl Cluster for ClusterService {
    async fn member_add(
        &self,
        req: Request<epb::MemberAddRequest>,
    ) -> Result<Response<epb::MemberAddResponse>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { ClusterClient::new(ch).member_add(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.add(r).await
            },
        )
        .await
    }

    async fn member_remove(
        &self,
        req: Request<epb::MemberRemoveRequest>,
    ) -> Result<Response<epb::MemberRemoveResponse>, Status> {
        let s = &self.0;
        // A member that removes itself has nothing more to apply.
        let removes_itself = req.get_ref().id == s.node.with_view(|v| v.id);
        let answer = Answer::for_change(!removes_itself);
        s.unary(
            req,
            answer,
            |ch, r| async move { ClusterClient::new(ch).member_remove(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.remove(r, &caller).await
            },
        )
        .await
    }

    async fn member_update(
        &self,
        req: Request<epb::MemberUpdateRequest>,
    ) -> Result<Response<epb::MemberUpdateResponse>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { ClusterClient::new(ch).member_update(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.update(r).await
            },
        )
        .await
    }

    async fn member_list(
        &self,
        req: Request<epb::MemberListRequest>,
    ) -> Result<Response<epb::MemberListResponse>, Status> {
        let s = &self.0;
        let list = || {
            let (header, members) = self.response_members()?;
            Ok(epb::MemberListResponse { header, members })
        };
        if !req.get_ref().linearizable {
            s.caller(&req).await?;
            s.refuse_learner()?;
            return list().map(Response::new);
        }
        // etcd 3.5's linearizable list: confirmed by the leader, never stale.
        s.unary(
            req,
            Answer::Served,
            |ch, r| async move { ClusterClient::new(ch).member_list(r).await },
            |_, _| async move { list() },
        )
        .await
    }

    async fn member_promote(
        &self,
        req: Request<epb::MemberPromoteRequest>,
    ) -> Result<Response<epb::MemberPromoteResponse>, Status> {
        let s = &self.0;
        s.unary(
            req,
            Answer::Applied,
            |ch, r| async move { ClusterClient::new(ch).member_promote(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                self.promote(r).await
            },
        )
        .await
    }
}

/// The changes as the leader makes them.
impl ClusterService {
    /// `MemberAdd` at the leader.
    async fn add(&self, r: epb::MemberAddRequest) -> Result<epb::MemberAddResponse, Status> {
        let s = &self.0;
        let urls = check_urls(&r.peer_ur_ls)?;
        check_taken(s, &urls, None)?;
        let view = s.node.view();
        if r.is_learner {
            if view.conf.learners.len() + 1 > s.node.config().max_learners {
                return Err(errors::too_many_learners());
            }
        } else {
            let mut voters = view.conf.voters.clone();
            voters.push(0);
            // etcd's exception (3.4.23 measured): a voter added to a
            // cluster of one started voter is accepted, though the two
            // have no quorum until the new one starts (etcd's way to grow
            // a cluster restored from one member's data).
            if view.conf.voters.len() != 1 {
                self.check_started(&voters, 0)?;
            }
        }
        self.check_connected().await?;
        refuse_while_joint(s)?;
        let id = new_member_id(s, &self.members()?);
        let meta = spb::MemberMeta {
            id,
            name: String::new(),
            peer_urls: r.peer_ur_ls.clone(),
            client_urls: vec![],
            is_learner: r.is_learner,
        };
        let change = if r.is_learner {
            MemberChange::AddLearner(id)
        } else {
            MemberChange::AddVoter(id)
        };
        let conf = self.change(vec![change], vec![meta.clone()]).await?;
        let present = if r.is_learner {
            conf.learners.contains(&id)
        } else {
            conf.voters.contains(&id)
        };
        if !present {
            return Err(errors::internal("the configuration change was not applied"));
        }
        let (header, members) = self.response_members()?;
        Ok(epb::MemberAddResponse {
            header,
            member: Some(epb::Member {
                id,
                name: String::new(),
                peer_ur_ls: r.peer_ur_ls,
                client_ur_ls: vec![],
                is_learner: r.is_learner,
            }),
            members,
        })
    }

    /// `MemberRemove` at the leader; the leader removing itself hands
    /// leadership over first and passes the request on.
    async fn remove(
        &self,
        r: epb::MemberRemoveRequest,
        caller: &Caller,
    ) -> Result<epb::MemberRemoveResponse, Status> {
        let s = &self.0;
        refuse_while_joint(s)?;
        let id = r.id;
        let members = self.members()?;
        let Some(target) = members.iter().find(|m| m.id == id) else {
            return Err(errors::member_not_found());
        };
        let view = s.node.view();
        if !target.is_learner {
            let rest: Vec<u64> = view
                .conf
                .voters
                .iter()
                .copied()
                .filter(|v| *v != id)
                .collect();
            self.check_started(&rest, 0)?;
        }
        if id == view.id {
            // Hand leadership to the most up-to-date other voter first, then
            // let the new leader remove this member.
            let progress = s.wait(s.node.progress()).await?.peers;
            let next = progress
                .iter()
                .filter(|p| p.id != id && view.conf.voters.contains(&p.id))
                .max_by_key(|p| p.matched)
                .map(|p| p.id)
                .ok_or_else(errors::not_enough_started)?;
            let ch = s.hand_over(next).await?;
            return ClusterClient::new(ch)
                .member_remove(forwarded(r, caller))
                .await
                .map(Response::into_inner);
        }
        let conf = self.change(vec![MemberChange::Remove(id)], vec![]).await?;
        if conf.voters.contains(&id) || conf.learners.contains(&id) {
            return Err(errors::internal("the configuration change was not applied"));
        }
        let (header, members) = self.response_members()?;
        Ok(epb::MemberRemoveResponse { header, members })
    }

    /// `MemberUpdate` at the leader.
    async fn update(
        &self,
        r: epb::MemberUpdateRequest,
    ) -> Result<epb::MemberUpdateResponse, Status> {
        let s = &self.0;
        if !self.members()?.iter().any(|m| m.id == r.id) {
            return Err(errors::member_not_found());
        }
        let urls = check_urls(&r.peer_ur_ls)?;
        check_taken(s, &urls, Some(r.id))?;
        let op = spb::command::Op::UpdateMember(spb::UpdateMember {
            id: r.id,
            peer_urls: r.peer_ur_ls,
        });
        s.wait(s.node.propose(op)).await?;
        let (header, members) = self.response_members()?;
        Ok(epb::MemberUpdateResponse { header, members })
    }

    /// `MemberPromote` at the leader, with etcd's readiness rule.
    async fn promote(
        &self,
        r: epb::MemberPromoteRequest,
    ) -> Result<epb::MemberPromoteResponse, Status> {
        let s = &self.0;
        refuse_while_joint(s)?;
        let id = r.id;
        let Some(target) = self.members()?.into_iter().find(|m| m.id == id) else {
            return Err(errors::member_not_found());
        };
        if !target.is_learner {
            return Err(errors::not_learner());
        }
        let view = s.node.view();
        let progress = s.wait(s.node.progress()).await?.peers;
        let matched = |who: u64| {
            progress
                .iter()
                .find(|p| p.id == who)
                .map_or(0, |p| p.matched)
        };
        if !learner_ready(matched(id), matched(view.id)) {
            return Err(errors::learner_not_ready());
        }
        let mut voters = view.conf.voters.clone();
        voters.push(id);
        self.check_started(&voters, usize::from(target.name.is_empty()))?;
        let conf = self
            .change(vec![MemberChange::AddVoter(id)], vec![])
            .await?;
        if !conf.voters.contains(&id) {
            return Err(errors::internal("the configuration change was not applied"));
        }
        let (header, members) = self.response_members()?;
        Ok(epb::MemberPromoteResponse { header, members })
    }
}
