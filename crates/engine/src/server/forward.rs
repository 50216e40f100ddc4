//! Forwards a request from a follower to the leader, over the leader's peer URL.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};

use super::access::{mark_forwarded, Caller, FORWARDED};
use super::{errors, Shared, REQUEST_TIMEOUT};
use crate::proto::etcdserverpb as epb;
use crate::proto::memberctl_v1 as pb;

/// How long a follower waits for a leader to be elected before giving up.
const LEADER_WAIT: Duration = Duration::from_secs(3);
/// How long a write that was not applied waits for the view to change
/// (a new leader) before it is tried again.
const RETRY_WAIT: Duration = Duration::from_millis(50);

/// Cached connections to peers.
#[derive(Default)]
pub struct Forwarder {
    channels: Mutex<HashMap<String, Channel>>,
    tls: Option<crate::dial::PeerTls>,
}

impl Forwarder {
    /// A forwarder that dials https peers with `tls`.
    pub fn new(tls: Option<crate::dial::PeerTls>) -> Self {
        Forwarder {
            channels: Mutex::new(HashMap::new()),
            tls,
        }
    }

    fn channel(&self, url: &str) -> Result<Channel, Status> {
        let mut cache = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = cache.get(url) {
            return Ok(c.clone());
        }
        let mut ep = Endpoint::from_shared(url.to_string())
            .map_err(|_| errors::leader_changed())?
            .connect_timeout(Duration::from_secs(1))
            .tcp_nodelay(true);
        if let Some(tls) = self.tls.as_ref().filter(|_| url.starts_with("https://")) {
            ep = tls.endpoint(ep).map_err(|_| errors::leader_changed())?;
        }
        let ch = ep.connect_lazy();
        cache.insert(url.to_string(), ch.clone());
        Ok(ch)
    }
}

/// Where a request must go.
pub enum Route {
    /// This node leads: serve it here.
    Here,
    /// Send it to the leader over this channel.
    Leader(Channel),
}

/// When a request served at the leader is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Once this member has applied it too (writes, membership changes):
    /// what a client changed through a member, that member then shows, and
    /// a member that answers a membership change lists it at once (etcd's
    /// rule).
    Applied,
    /// As soon as the leader has served it (reads the leader confirms).
    Served,
}

impl Answer {
    /// [`Answer::Applied`] for a request that `changes` something, else
    /// [`Answer::Served`].
    pub fn for_change(changes: bool) -> Self {
        if changes {
            Answer::Applied
        } else {
            Answer::Served
        }
    }
}

/// A response whose header names the member that answered: an answer the
/// leader gave goes back under this member's ID and term, as each etcd
/// member answers for itself.
pub trait Answered {
    /// Names `member_id` at `raft_term` in the header, if there is one.
    fn answered_by(&mut self, member_id: u64, raft_term: u64);

    /// For a key write, the store's revision once the leader applied it:
    /// a member whose own store reaches it has applied the write too.
    fn written_at(&self) -> Option<i64> {
        None
    }
}

impl<T: Answered> Answered for tonic::Response<T> {
    fn answered_by(&mut self, member_id: u64, raft_term: u64) {
        self.get_mut().answered_by(member_id, raft_term);
    }

    fn written_at(&self) -> Option<i64> {
        self.get_ref().written_at()
    }
}

/// Names `member_id` at `raft_term` in a response's header, if it has one.
fn name_in(header: Option<&mut epb::ResponseHeader>, member_id: u64, raft_term: u64) {
    if let Some(h) = header {
        h.member_id = member_id;
        h.raft_term = raft_term;
    }
}

/// [`Answered`] for responses with etcd's `header` field (left unset when
/// the response has none, as etcd 3.4's Alarm).
macro_rules! with_header {
    ($($t:ty),* $(,)?) => {$(
        impl Answered for $t {
            fn answered_by(&mut self, member_id: u64, raft_term: u64) {
                name_in(self.header.as_mut(), member_id, raft_term);
            }
        }
    )*};
}

/// [`Answered`] for the key writes: the header's revision says when this
/// member has applied them ([`Answered::written_at`]).
macro_rules! key_write {
    ($($t:ty),* $(,)?) => {$(
        impl Answered for $t {
            fn answered_by(&mut self, member_id: u64, raft_term: u64) {
                name_in(self.header.as_mut(), member_id, raft_term);
            }

            fn written_at(&self) -> Option<i64> {
                self.header.as_ref().map(|h| h.revision)
            }
        }
    )*};
}

/// [`Answered`] for responses without a header (memberctl's own services).
macro_rules! without_header {
    ($($t:ty),* $(,)?) => {$(
        impl Answered for $t {
            fn answered_by(&mut self, _: u64, _: u64) {}
        }
    )*};
}

key_write!(epb::PutResponse, epb::DeleteRangeResponse, epb::TxnResponse,);

with_header!(
    epb::RangeResponse,
    epb::CompactionResponse,
    epb::LeaseGrantResponse,
    epb::LeaseRevokeResponse,
    epb::LeaseTimeToLiveResponse,
    epb::LeaseLeasesResponse,
    epb::LeaseKeepAliveResponse,
    epb::MemberAddResponse,
    epb::MemberRemoveResponse,
    epb::MemberUpdateResponse,
    epb::MemberListResponse,
    epb::MemberPromoteResponse,
    epb::AlarmResponse,
    epb::AuthEnableResponse,
    epb::AuthDisableResponse,
    epb::AuthStatusResponse,
    epb::AuthenticateResponse,
    epb::AuthUserAddResponse,
    epb::AuthUserGetResponse,
    epb::AuthUserListResponse,
    epb::AuthUserDeleteResponse,
    epb::AuthUserChangePasswordResponse,
    epb::AuthUserGrantRoleResponse,
    epb::AuthUserRevokeRoleResponse,
    epb::AuthRoleAddResponse,
    epb::AuthRoleGetResponse,
    epb::AuthRoleListResponse,
    epb::AuthRoleDeleteResponse,
    epb::AuthRoleGrantPermissionResponse,
    epb::AuthRoleRevokePermissionResponse,
);

without_header!(pb::Config, pb::Progress);

impl Shared {
    /// Decides where a request is served: here when this node leads, else
    /// at the leader (waiting briefly for one to be elected). A request that
    /// was already forwarded once (`forwarded`) is not forwarded again.
    async fn route(&self, forwarded: bool) -> Result<Route, Status> {
        let mut watch = self.node.watch();
        let (leader_id, leads) =
            match tokio::time::timeout(LEADER_WAIT, watch.wait_for(|v| v.leader_id != 0)).await {
                Ok(Ok(v)) => (v.leader_id, v.is_leader()),
                _ => return Err(errors::no_leader()),
            };
        if leads {
            return Ok(Route::Here);
        }
        if forwarded {
            return Err(errors::not_applied());
        }
        Ok(Route::Leader(self.channel_to(leader_id)?))
    }

    /// The one way a request is served at the leader: `run` serves it here
    /// when this node leads, or passes it on over the leader's channel.
    ///
    /// When it was certainly not applied because leadership was moving (raft
    /// did not append it, it reached a member that no longer leads, or the
    /// leader it was sent to refused the connection: it died), it is run
    /// again once the view changes, within [`REQUEST_TIMEOUT`]: a client sees
    /// no error for a leadership transfer. A request that was itself
    /// forwarded is tried once; the member that forwarded it tries again.
    ///
    /// The leader's answer goes back under this member's ID and term, after
    /// this member has applied the request when `answer` says so: for a key
    /// write, once its own store reaches the write's revision (the leader
    /// sends the commit on at once: about half a round trip, where a read
    /// index costs the leader's heartbeat round to a quorum and the way
    /// there and back, so a write through a follower took four round trips
    /// instead of etcd's two); for anything else, after a read index.
    pub async fn at_leader<B, T, F, Fut>(
        &self,
        req: Request<B>,
        answer: Answer,
        run: F,
    ) -> Result<T, Status>
    where
        B: Clone,
        T: Answered,
        F: Fn(Route, B) -> Fut,
        Fut: Future<Output = Result<T, Status>>,
    {
        let forwarded = req.metadata().contains_key(FORWARDED);
        let body = req.into_inner();
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        loop {
            let mut at_leader = false;
            let result = match self.route(forwarded).await {
                Ok(route) => {
                    at_leader = matches!(route, Route::Leader(_));
                    run(route, body.clone()).await
                }
                Err(e) => Err(e),
            };
            let unsent = |e: &Status| errors::is_not_applied(e) || (at_leader && never_sent(e));
            match result {
                Err(e) if !forwarded && unsent(&e) && Instant::now() < deadline => {
                    let mut watch = self.node.watch();
                    let _ = tokio::time::timeout(RETRY_WAIT, watch.changed()).await;
                }
                Ok(mut reply) if at_leader => {
                    if answer == Answer::Applied {
                        match reply.written_at() {
                            Some(revision) => self.applied_revision(revision).await,
                            None => self.catch_up().await,
                        }
                    }
                    let (id, term) = self.node.with_view(|v| (v.id, v.term));
                    reply.answered_by(id, term);
                    return Ok(reply);
                }
                other => return other,
            }
        }
    }

    /// [`Shared::at_leader`] for a unary request of an etcd client: refused
    /// on a learner, passed on to the leader with its caller (`pass_on`), or
    /// served here by `here` with the caller (after a read index when it
    /// only reads: `Answer::Served`).
    pub async fn unary<Req, Resp, P, PFut, H, HFut>(
        &self,
        req: Request<Req>,
        answer: Answer,
        pass_on: P,
        here: H,
    ) -> Result<tonic::Response<Resp>, Status>
    where
        Req: Clone,
        Resp: Answered,
        P: Fn(Channel, Request<Req>) -> PFut,
        PFut: Future<Output = Result<tonic::Response<Resp>, Status>>,
        H: Fn(Caller, Req) -> HFut,
        HFut: Future<Output = Result<Resp, Status>>,
    {
        self.refuse_learner()?;
        let caller = &self.caller(&req).await?;
        let (pass_on, here) = (&pass_on, &here);
        let run = |route: Route, r: Req| async move {
            match route {
                Route::Leader(ch) => pass_on(ch, forwarded(r, caller)).await,
                Route::Here => {
                    if answer == Answer::Served {
                        self.wait(self.node.read_index()).await?;
                    }
                    here(caller.clone(), r).await.map(tonic::Response::new)
                }
            }
        };
        self.at_leader(req, answer, run).await
    }

    /// A channel to member `id` over its peer URL.
    pub(super) fn channel_to(&self, id: u64) -> Result<Channel, Status> {
        let members = self.node.store().members();
        let url = members
            .iter()
            .find(|m| m.id == id)
            .and_then(|m| m.peer_urls.first())
            .ok_or_else(errors::leader_changed)?;
        self.forward.channel(url)
    }

    /// Hands leadership from this node to voter `to` and returns a channel to
    /// the new leader once there is one: for a leader that must not stay
    /// leader (it removes or demotes itself) and passes the request on.
    pub async fn hand_over(&self, to: u64) -> Result<Channel, Status> {
        let me = self.node.view().id;
        self.node.transfer_leader(to).await;
        let mut watch = self.node.watch();
        let moved = tokio::time::timeout(
            LEADER_WAIT,
            watch.wait_for(|v| v.leader_id != me && v.leader_id != 0),
        )
        .await;
        let leader = match moved {
            Ok(Ok(v)) => v.leader_id,
            _ => return Err(errors::leader_changed()),
        };
        self.channel_to(leader)
    }
}

/// Whether forwarding failed before the request left this member: the
/// leader's peer URL refused the connection (it has just died, and no new
/// leader is known yet). Such a request was certainly not applied.
fn never_sent(e: &Status) -> bool {
    e.code() == tonic::Code::Unavailable && e.message().contains("tcp connect error")
}

/// Wraps a request body for forwarding, marked so it is not forwarded
/// again, with the user it came from.
pub fn forwarded<T>(body: T, caller: &Caller) -> Request<T> {
    let mut r = Request::new(body);
    mark_forwarded(r.metadata_mut(), caller);
    r
}
