//! Glue for `memberctl member …`: arguments → workflow request → report.

use anyhow::Context;

use super::shortened;
use crate::cli::{CheckFor, GlobalArgs, JointCommand, MemberCommand};
use crate::error::Error;
use crate::printer::Report;
use crate::workflow::add::{self, AddOutcome, AddRequest};
use crate::workflow::apply::{self, ApplyOutcome, ApplyRequest, StartMember};
use crate::workflow::joint::{self, JointOutcome, JointRequest};
use crate::workflow::leader::{self, MoveRequest};
use crate::workflow::preflight::{self, Planned, Preflight};
use crate::workflow::promote::{self, PromoteRequest};
use crate::workflow::remove::{self, RemoveOutcome, RemoveRequest};
use crate::workflow::replace::{self, InProgress, ReplaceOutcome, ReplaceRequest, StartNew};
use crate::workflow::validate::system_resolver;
use crate::workflow::{status, update, MembershipApi, Observer};

/// `--start-local` of `member replace` and `member apply` (and `cluster
/// recover`): new members are started on the local test cluster in this
/// directory (default: the usual one), as `cluster start-node` does.
pub(super) struct LocalStart(pub(super) Option<std::path::PathBuf>);

impl LocalStart {
    fn dir(&self) -> std::path::PathBuf {
        self.0
            .clone()
            .unwrap_or_else(|| crate::testcluster::cluster_dir(None))
    }

    async fn start_node(&self, name: &str, peer_urls: &[String]) -> Result<(), Error> {
        let dir = self.dir();
        let url = peer_urls.first().map(String::as_str);
        crate::testcluster::start_node(&dir, name, url)
            .await
            .map(|_| ())
    }
}

impl StartNew for LocalStart {
    async fn start(
        &self,
        state: &InProgress,
        req: &ReplaceRequest,
        _: &dyn Observer,
    ) -> Result<(), Error> {
        self.start_node(&state.new.name, &req.peer_urls).await
    }
}

impl StartMember for LocalStart {
    async fn start(
        &self,
        name: &str,
        member: &crate::model::Member,
        _: &str,
        _: &dyn Observer,
    ) -> Result<(), Error> {
        // An interrupted earlier run may have started it already.
        if crate::testcluster::node_running(&self.dir(), name)? {
            return Ok(());
        }
        self.start_node(name, &member.peer_urls).await
    }
}

/// Runs `memberctl member …`.
pub(super) async fn member<A: MembershipApi>(
    api: &A,
    cmd: &MemberCommand,
    global: &GlobalArgs,
    observer: &dyn Observer,
) -> anyhow::Result<Report> {
    let timeout = global.command_timeout;
    Ok(match cmd {
        MemberCommand::List => {
            let list = api
                .member_list()
                .await
                .map_err(Error::from)
                .context("cannot list the members")?;
            if list.unconfirmed {
                // No leader confirmed it: say why, when the quorum is lost.
                match status::diagnose(api, &list).await {
                    Some(q) => q.advice().iter().for_each(|l| observer.notice(l)),
                    None => observer.notice(
                        "no leader confirmed this list (it is one member's own view); \
                         see `memberctl member status`",
                    ),
                }
            }
            Report::MemberList(list)
        }
        MemberCommand::Add(a) => {
            let req = AddRequest {
                name: a.name.clone(),
                peer_urls: a.peer_urls.clone(),
                learner: a.learner,
                dry_run: a.dry_run,
                preflight: Preflight::Run(a.checks.skip_check.clone()),
            };
            match add::add(api, observer, &req, &system_resolver, timeout)
                .await
                .with_context(|| format!("member add {}", shortened(&a.name)))?
            {
                AddOutcome::Added(added) => Report::Added(added),
                AddOutcome::Plan(plan) => Report::Plan(plan),
            }
        }
        MemberCommand::Promote(p) => {
            let req = PromoteRequest {
                target: p.target.member.clone(),
                wait: !p.no_wait,
                timeout: p.wait.timeout,
                poll_interval: p.wait.poll_interval,
                command_timeout: timeout,
                preflight: Preflight::Run(p.checks.skip_check.clone()),
            };
            Report::Promoted(
                promote::promote(api, observer, &req)
                    .await
                    .with_context(|| format!("member promote {}", shortened(&p.target.member)))?,
            )
        }
        MemberCommand::Remove(r) => {
            let req = RemoveRequest {
                target: r.target.member.clone(),
                dry_run: r.dry_run,
                force: r.force,
                timeout: r.wait.timeout,
                command_timeout: timeout,
                preflight: Preflight::Run(r.checks.skip_check.clone()),
            };
            match remove::remove(api, observer, &req)
                .await
                .with_context(|| format!("member remove {}", shortened(&r.target.member)))?
            {
                RemoveOutcome::Removed {
                    removed,
                    list,
                    moved,
                } => Report::Removed {
                    removed,
                    list,
                    moved,
                },
                RemoveOutcome::Plan(plan) => Report::Plan(plan),
            }
        }
        MemberCommand::MoveLeader(m) => {
            let req = MoveRequest {
                target: m.target.clone(),
                timeout: m.wait.timeout,
                command_timeout: timeout,
            };
            Report::MovedLeader(
                leader::move_leader(api, observer, &req)
                    .await
                    .with_context(|| match &m.target {
                        Some(t) => format!("member move-leader {}", shortened(t)),
                        None => "member move-leader".to_string(),
                    })?,
            )
        }
        MemberCommand::Update(u) => Report::Updated(
            update::update(
                api,
                observer,
                &u.target.member,
                &u.peer_urls,
                &system_resolver,
                timeout,
                &Preflight::Run(u.checks.skip_check.clone()),
            )
            .await
            .with_context(|| format!("member update {}", shortened(&u.target.member)))?,
        ),
        MemberCommand::Check(c) => {
            let planned = match (c.change, c.member.clone()) {
                (None, _) => Planned::Inspect,
                (Some(CheckFor::Add), _) => Planned::Add { learner: true },
                (Some(CheckFor::AddVoter), _) => Planned::Add { learner: false },
                (Some(CheckFor::Promote), Some(m)) => Planned::Promote(m),
                (Some(CheckFor::Remove), Some(m)) => Planned::Remove(m),
                (Some(CheckFor::Update), Some(m)) => Planned::Update(m),
                (Some(CheckFor::Replace), Some(m)) => Planned::Replace(m),
                (Some(_), None) => {
                    return Err(Error::usage("--for promote, remove, update and replace need the member: `memberctl member check --for remove NAME`").into())
                }
            };
            Report::Checks(
                preflight::check(api, &planned)
                    .await
                    .context("member check")?,
            )
        }
        MemberCommand::Status => {
            let s = status::status(api)
                .await
                .context("cannot read the members' status")?;
            if let Some(q) = &s.quorum_lost {
                for line in q.advice() {
                    observer.notice(&line);
                }
            }
            Report::Status(s)
        }
        MemberCommand::Replace(r) => {
            let req = ReplaceRequest {
                old: r.old.clone(),
                name: r.name.clone(),
                peer_urls: r.peer_urls.clone(),
                dry_run: r.dry_run,
                timeout: r.wait.timeout,
                poll_interval: r.wait.poll_interval,
                command_timeout: timeout,
                preflight: Preflight::Run(r.checks.skip_check.clone()),
            };
            let what = || format!("member replace {}", shortened(&r.old));
            let done = if r.start_local {
                replace::run(api, observer, &req, &system_resolver, &LocalStart(None)).await
            } else {
                replace::run(api, observer, &req, &system_resolver, &replace::Manual).await
            };
            match done.with_context(what)? {
                ReplaceOutcome::Plan(plan) => Report::Plan(plan),
                ReplaceOutcome::Replaced(done) => Report::Replaced(done),
            }
        }
        MemberCommand::Apply(a) => {
            let target = match &a.target_file {
                Some(path) => super::target::from_file(path)?,
                None => super::target::from_args(&a.target)?,
            };
            let req = ApplyRequest {
                target,
                dry_run: a.dry_run,
                force: a.force,
                timeout: a.wait.timeout,
                poll_interval: a.wait.poll_interval,
                command_timeout: timeout,
                preflight: Preflight::Run(a.checks.skip_check.clone()),
            };
            let done = if a.start_local {
                apply::run(api, observer, &req, &system_resolver, &LocalStart(None)).await
            } else {
                apply::run(api, observer, &req, &system_resolver, &apply::Manual).await
            };
            match done.context("member apply")? {
                ApplyOutcome::Plan(p) => Report::ApplyPlan(p),
                ApplyOutcome::Applied(a) => Report::Applied(a),
            }
        }
        MemberCommand::Joint(JointCommand::Status) => {
            Report::Config(joint::status(api).await.context("member joint status")?)
        }
        MemberCommand::Joint(JointCommand::Leave) => Report::Config(
            joint::leave(api, observer, timeout)
                .await
                .context("member joint leave")?,
        ),
        MemberCommand::Joint(JointCommand::Enter(j)) => {
            let req = JointRequest {
                add_learners: j.add_learner.clone(),
                promote: j.promote.clone(),
                demote: j.demote.clone(),
                remove: j.remove.clone(),
                dry_run: j.dry_run,
                force: j.force,
                timeout: j.wait.timeout,
                preflight: Preflight::Run(j.checks.skip_check.clone()),
            };
            match joint::enter(api, observer, &req, &system_resolver, timeout)
                .await
                .context("member joint enter")?
            {
                JointOutcome::Config(c) => Report::Config(c),
                JointOutcome::Plan(plan) => Report::Plan(plan),
            }
        }
    })
}
