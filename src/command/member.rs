//! Glue for `memberctl member …`: arguments → workflow request → report.

use anyhow::Context;

use super::shortened;
use crate::cli::{GlobalArgs, JointCommand, MemberCommand};
use crate::error::Error;
use crate::model::PeerUrls;
use crate::printer::Report;
use crate::workflow::add::{self, AddOutcome};
use crate::workflow::apply::{self, ApplyOutcome, ApplyRequest};
use crate::workflow::calc::validate::system_resolver;
use crate::workflow::joint::{self, JointOutcome};
use crate::workflow::preflight::{
    self, Bandwidth, BandwidthSource, CatchUpInputs, Check, CheckOptions, Planned,
};
use crate::workflow::remove::{self, RemoveOutcome};
use crate::workflow::replace::{self, ReplaceOutcome};
use crate::workflow::start::{self, StartMember, Starting};
use crate::workflow::{leader, promote, prune, status, update, Ctx, MembershipApi, Observer};

/// `--start-local` of `member replace` and `member apply` (and `cluster
/// recover`): new members are started on the local test cluster in this
/// directory (default: the usual one), as `cluster start-node` does.
pub(super) struct LocalStart(pub(super) Option<std::path::PathBuf>);

impl StartMember for LocalStart {
    async fn start(&self, new: &Starting<'_>, _: &dyn Observer) -> Result<(), Error> {
        let dir = self
            .0
            .clone()
            .unwrap_or_else(|| crate::testcluster::cluster_dir(None));
        // An interrupted earlier run may have started it already.
        if crate::testcluster::node_running(&dir, new.name)? {
            return Ok(());
        }
        let url = new.member.peer_urls.first().map(String::as_str);
        crate::testcluster::start_node(&dir, new.name, url)
            .await
            .map(|_| ())
    }
}

/// Runs `memberctl member …`: its report, and the pre-flight checks the
/// change passed (none for a command that changes nothing), which the
/// caller puts around the report.
pub(super) async fn member<A: MembershipApi>(
    api: &A,
    cmd: &MemberCommand,
    global: &GlobalArgs,
    observer: &dyn Observer,
) -> anyhow::Result<(Report, Vec<Check>)> {
    let cx = Ctx {
        api,
        observer,
        resolver: &system_resolver,
        command_timeout: global.command_timeout,
    };
    let local = LocalStart(None);
    // The local cluster's state file is read only by the commands that use it.
    let link = || local_link(api);
    let unchecked = |report| (report, Vec::new());
    Ok(match cmd {
        MemberCommand::List => unchecked(list(&cx).await?),
        MemberCommand::Status => {
            let s = status::status(api)
                .await
                .context("cannot read the members' status")?;
            for line in s.quorum_lost.iter().flat_map(|q| q.advice()) {
                observer.notice(&line);
            }
            for line in s.warnings() {
                observer.notice(&format!("warning: {line}"));
            }
            unchecked(Report::Status(s))
        }
        MemberCommand::Check(c) => {
            let planned = Planned::try_from(c)?;
            let mut options = CheckOptions {
                catch_up: CatchUpInputs::from(&c.catch_up),
                peer_tls: super::requests::peer_tls(&c.peer_tls, &c.peer_urls.urls())?,
                ..CheckOptions::default()
            };
            options.catch_up.bandwidth = options.catch_up.bandwidth.or_else(link);
            unchecked(Report::Checks(
                preflight::check(api, &planned, &options)
                    .await
                    .context("member check")?,
            ))
        }
        MemberCommand::Add(a) => match add::add(&cx, &{
            let mut req = add::AddRequest::try_from(a)?;
            req.preflight = req.preflight.or_bandwidth(link());
            req
        })
        .await
        .with_context(|| format!("member add {}", shortened(&a.name)))?
        {
            AddOutcome::Added { added, checks } => (Report::Added(added), checks),
            AddOutcome::Plan { steps, checks } => (Report::Plan(steps.into()), checks),
        },
        MemberCommand::Promote(p) => {
            let mut promoted = promote::promote(&cx, &{
                let mut req: promote::PromoteRequest = p.into();
                req.preflight = req.preflight.or_bandwidth(link());
                req
            })
            .await
            .with_context(|| format!("member promote {}", shortened(&p.target.member)))?;
            let checks = std::mem::take(&mut promoted.checks);
            (Report::Promoted(promoted), checks)
        }
        MemberCommand::Remove(r) => match remove::remove(&cx, &r.into())
            .await
            .with_context(|| format!("member remove {}", shortened(&r.target.member)))?
        {
            RemoveOutcome::Removed {
                removed,
                list,
                moved,
                checks,
            } => (
                Report::Removed {
                    removed,
                    list,
                    moved,
                },
                checks,
            ),
            RemoveOutcome::Plan { steps, checks } => (Report::Plan(steps.into()), checks),
        },
        MemberCommand::Prune(p) => {
            let mut pruned = prune::prune(&cx, &p.into()).await.context("member prune")?;
            let checks = std::mem::take(&mut pruned.checks);
            (Report::Pruned(pruned), checks)
        }
        MemberCommand::MoveLeader(m) => unchecked(Report::MovedLeader(
            leader::move_leader(&cx, &m.into())
                .await
                .with_context(|| match &m.target {
                    Some(t) => format!("member move-leader {}", shortened(t)),
                    None => "member move-leader".to_string(),
                })?,
        )),
        MemberCommand::Update(u) => {
            let mut updated = update::update(&cx, &u.into())
                .await
                .with_context(|| format!("member update {}", shortened(&u.target.member)))?;
            let checks = std::mem::take(&mut updated.checks);
            (Report::Updated(updated), checks)
        }
        MemberCommand::Replace(r) => {
            let mut req = replace::ReplaceRequest::try_from(r)?;
            req.preflight = req.preflight.or_bandwidth(link());
            let done = if r.start_local {
                replace::run(&cx, &req, &local).await
            } else {
                replace::run(&cx, &req, &start::Manual).await
            };
            match done.with_context(|| format!("member replace {}", shortened(&r.old)))? {
                ReplaceOutcome::Plan { plan, checks } => (Report::Plan(plan), checks),
                ReplaceOutcome::Replaced { replaced, checks } => {
                    (Report::Replaced(*replaced), checks)
                }
            }
        }
        MemberCommand::Apply(a) => {
            let mut req = ApplyRequest::try_from(a)?;
            req.preflight = req.preflight.or_bandwidth(link());
            let done = if a.start_local {
                apply::run(&cx, &req, &local).await
            } else {
                apply::run(&cx, &req, &start::Manual).await
            };
            match done.context("member apply")? {
                ApplyOutcome::Plan { plan, checks } => (Report::ApplyPlan(plan), checks),
                ApplyOutcome::Applied { applied, checks } => (Report::Applied(applied), checks),
            }
        }
        MemberCommand::Joint(JointCommand::Status) => unchecked(Report::Config(
            joint::status(api).await.context("member joint status")?,
        )),
        MemberCommand::Joint(JointCommand::Leave) => unchecked(Report::Config(
            joint::leave(&cx).await.context("member joint leave")?,
        )),
        MemberCommand::Joint(JointCommand::Enter(j)) => {
            let mut req: joint::JointRequest = j.into();
            req.preflight = req.preflight.or_bandwidth(link());
            match joint::enter(&cx, &req)
                .await
                .context("member joint enter")?
            {
                JointOutcome::Entered { entered, checks } => {
                    (Report::JointEntered(entered), checks)
                }
                JointOutcome::Plan { steps, checks } => (Report::Plan(steps.into()), checks),
            }
        }
    })
}

/// The bandwidth of the local cluster's link model (`cluster up --link`)
/// when the endpoints are its members'.
fn local_link<A: MembershipApi>(api: &A) -> Option<Bandwidth> {
    let dir = crate::testcluster::cluster_dir(None);
    crate::testcluster::link_bandwidth(&dir, &api.endpoint_urls()).map(|bits| Bandwidth {
        bytes_per_second: bits as f64 / 8.0,
        source: BandwidthSource::LocalLink,
    })
}

/// `member list`, with the reason when no leader confirmed it.
async fn list<A: MembershipApi>(cx: &Ctx<'_, A>) -> anyhow::Result<Report> {
    let list = cx
        .api
        .member_list()
        .await
        .map_err(Error::from)
        .context("cannot list the members")?;
    if list.unconfirmed {
        // No leader confirmed it: say why, when the quorum is lost.
        match status::diagnose(cx.api, &list).await {
            Some(q) => q.advice().iter().for_each(|l| cx.observer.notice(l)),
            None => cx.observer.notice(
                "no leader confirmed this list (it is one member's own view); \
                 see `memberctl member status`",
            ),
        }
    }
    Ok(Report::MemberList(list))
}

/// `autopilot --start-standby`: a new standby learner added (`member add
/// --learner`, with autopilot's pre-flight checks) and started on the local
/// test cluster (`cluster start-node`).
pub(super) struct LocalStandby {
    /// The pre-flight checks of the add.
    pub(super) preflight: crate::workflow::preflight::Preflight,
}

impl crate::workflow::autopilot::StandbyStarter for LocalStandby {
    async fn start_standby<A: MembershipApi>(&self, cx: &Ctx<'_, A>) -> Result<String, Error> {
        let dir = crate::testcluster::cluster_dir(None);
        // A name no member and no earlier node of the local cluster has had.
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let name = format!("standby-{:x}", stamp & 0xff_ffff);
        let url = format!(
            "http://127.0.0.1:{}",
            crate::testcluster::ports::free_port()?
        );
        let req = add::AddRequest {
            name: name.clone(),
            peer_urls: PeerUrls::read(&[&url]),
            learner: true,
            dry_run: false,
            preflight: self.preflight.clone(),
            window: None,
        };
        add::add(cx, &req).await?;
        crate::testcluster::start_node(&dir, &name, Some(&url)).await?;
        Ok(name)
    }
}
