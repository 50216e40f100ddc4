//! The steps of a `member replace` run taken one by one: remove the old
//! member (recording the replacement first when it goes before the new one is
//! added), add and start the new one, wait for it and promote it, or (the
//! engine) swap them in one joint change.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::intent::{Intent, INTENT};
use super::{Going, ReplaceRequest};
use crate::error::{Error, ErrorKind};
use crate::model::{Member, MemberId, MemberList};
use crate::workflow::add::{self, AddOutcome, AddRequest};
use crate::workflow::calc::replacement::Act;
use crate::workflow::catch_up::CatchUpSummary;
use crate::workflow::joint::{self, JointRequest};
use crate::workflow::preflight::Preflight;
use crate::workflow::promote::wait_ready;
use crate::workflow::remove::{self, RemoveRequest};
use crate::workflow::start::{StartMember, Starting};
use crate::workflow::{Ctx, MembershipApi};

/// A run under way: the new member as it stands and what was waited for.
pub(super) struct Running<'a, 'c, A, S> {
    pub(super) cx: &'a Ctx<'c, A>,
    pub(super) req: &'a ReplaceRequest,
    pub(super) starter: &'a S,
    /// The new member, once added.
    pub(super) new: Option<Member>,
    /// The members this run started (or told the operator to start).
    pub(super) started: HashSet<MemberId>,
    /// The catch-up check's prediction.
    pub(super) predicted: Option<f64>,
    /// The new member's catch-up, once waited for.
    pub(super) catch_up: Option<CatchUpSummary>,
    /// The membership after the last step.
    pub(super) list: MemberList,
}

impl<A: MembershipApi, S: StartMember> Running<'_, '_, A, S> {
    /// Takes one step.
    pub(super) async fn take(&mut self, act: Act, going: &Going) -> Result<(), Error> {
        let (cx, req) = (self.cx, self.req);
        match act {
            Act::Remove => self.remove(going).await,
            Act::Add => {
                let add_req = AddRequest {
                    name: req.name.clone(),
                    peer_urls: req.peer_urls.clone(),
                    learner: true,
                    dry_run: false,
                    preflight: Preflight::ByCaller,
                    window: Some(req.timeout),
                };
                let added = match add::add(cx, &add_req).await? {
                    AddOutcome::Added { added, .. } => added,
                    AddOutcome::Plan { .. } => {
                        return Err(Error::new(
                            ErrorKind::Internal,
                            "add returned a plan without --dry-run",
                        ))
                    }
                };
                self.list = added.list.clone();
                self.new = Some(added.member.clone());
                self.start().await
            }
            Act::Promote => {
                self.start().await?;
                let new = self.new_member()?;
                let deadline = Instant::now() + req.timeout;
                let timing = (req.timeout, req.poll_interval, Duration::ZERO);
                let api = cx.api;
                let waited = wait_ready(
                    api,
                    cx.observer,
                    &new,
                    timing,
                    deadline,
                    true,
                    self.predicted,
                )
                .await;
                cx.observer.catch_up_done();
                let (list, summary) = waited?;
                self.catch_up = Some(summary);
                self.list = list;
                Ok(())
            }
            Act::Joint => self.joint(going).await,
            Act::Leave => {
                joint::leave(cx).await?;
                Ok(())
            }
        }
    }

    fn new_member(&self) -> Result<Member, Error> {
        self.new.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::Internal,
                "the new member was to be promoted before it was added",
            )
        })
    }

    /// Starts the new member unless it runs or this run started it.
    async fn start(&mut self) -> Result<(), Error> {
        let new = self.new_member()?;
        if new.started() || !self.started.insert(new.id) {
            return Ok(());
        }
        let initial = add::initial_cluster(&self.list, &new, &self.req.name);
        let starting = Starting {
            name: &self.req.name,
            member: &new,
            initial_cluster: &initial,
            wait: self.req.timeout,
        };
        self.starter.start(&starting, self.cx.observer).await
    }

    /// Removes the old member (recording the replacement first when it is
    /// removed before the new member is added).
    async fn remove(&mut self, going: &Going) -> Result<(), Error> {
        let (cx, req) = (self.cx, self.req);
        if self.new.is_none() {
            let intent = serde_json::to_string(&Intent::of(&going.old, req))
                .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
            if let Err(e) = cx.api.key_put(INTENT, Some(&intent)).await {
                cx.observer.notice(&format!(
                    "could not record this replacement in {INTENT} ({e}); if this run stops \
                     after the removal, finish by hand: `memberctl member add {} --learner \
                     --peer-urls {}`, start it, then `memberctl member promote {}`",
                    req.name, req.peer_urls, req.name
                ));
            }
        }
        let remove_req = RemoveRequest {
            target: going.old.id.to_string(),
            dry_run: false,
            force: false,
            timeout: req.timeout,
            preflight: Preflight::ByCaller,
        };
        match remove::remove(cx, &remove_req).await {
            Ok(remove::RemoveOutcome::Removed { list, .. }) => self.list = list,
            Ok(remove::RemoveOutcome::Plan { .. }) => {}
            // Gone already: an answer that was lost had removed it.
            Err(e) => {
                let list = cx.api.member_list().await?;
                if list.get(going.old.id).is_some() {
                    return Err(e);
                }
                self.list = list;
            }
        }
        Ok(())
    }

    /// The engine's swap: wait for the new member to catch up, then one
    /// joint change promotes it and removes the old one; then leave.
    async fn joint(&mut self, going: &Going) -> Result<(), Error> {
        let (cx, req) = (self.cx, self.req);
        self.start().await?;
        let new = self.new_member()?;
        let cfg = cx.api.get_config().await?;
        let promote = !cfg.voters.contains(&new.id);
        if promote {
            let deadline = Instant::now() + req.timeout;
            let timing = (req.timeout, req.poll_interval, Duration::ZERO);
            let waited = wait_ready(
                cx.api,
                cx.observer,
                &new,
                timing,
                deadline,
                false,
                self.predicted,
            )
            .await;
            cx.observer.catch_up_done();
            self.catch_up = Some(waited?.1);
        }
        let present = |v: &[MemberId]| v.contains(&going.old.id);
        let joint_req = JointRequest {
            promote: if promote {
                vec![new.id.to_string()]
            } else {
                vec![]
            },
            remove: if present(&cfg.voters) || present(&cfg.learners) {
                vec![going.old.id.to_string()]
            } else {
                vec![]
            },
            timeout: req.timeout,
            preflight: Preflight::ByCaller,
            ..Default::default()
        };
        if !joint_req.promote.is_empty() || !joint_req.remove.is_empty() {
            joint::enter(cx, &joint_req).await?;
        }
        if cx.api.get_config().await?.is_joint() {
            joint::leave(cx).await?;
        }
        Ok(())
    }
}
