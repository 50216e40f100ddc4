//! Glue between the command line and the workflows: builds the client, runs the workflow, returns a report.

pub mod node;
mod password;

use anyhow::Context;

use crate::cli::{
    Cli, ClusterCommand, Command, GlobalArgs, JointCommand, MemberCommand, NodeCommand,
};
use crate::client::{Client, ClientConfig, TlsFiles};
use crate::error::Error;
use crate::printer::Report;
use crate::workflow::add::{self, AddOutcome, AddRequest};
use crate::workflow::joint::{self, JointOutcome, JointRequest};
use crate::workflow::leader::{self, MoveRequest};
use crate::workflow::promote::{self, PromoteRequest};
use crate::workflow::remove::{self, RemoveOutcome, RemoveRequest};
use crate::workflow::replace::{self, Prepared, ReplaceRequest};
use crate::workflow::validate::system_resolver;
use crate::workflow::{status, update, MembershipApi, Observer};

/// The endpoint used when none is given.
pub const DEFAULT_ENDPOINT: &str = "127.0.0.1:2379";

/// The endpoints to use: `--endpoints`/`MEMBERCTL_ENDPOINTS`, else
/// `ETCDCTL_ENDPOINTS`, else the local test cluster if it is up, else the default.
pub fn endpoints(global: &GlobalArgs) -> Vec<String> {
    let from_env = |name: &str| {
        std::env::var(name).ok().map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        })
    };
    let listed: Vec<String> = global
        .endpoints
        .iter()
        .filter(|e| !e.trim().is_empty())
        .cloned()
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    for var in ["MEMBERCTL_ENDPOINTS", "ETCDCTL_ENDPOINTS"] {
        if let Some(v) = from_env(var).filter(|v| !v.is_empty()) {
            return v;
        }
    }
    let local = crate::testcluster::running_endpoints(&crate::testcluster::cluster_dir(None));
    if !local.is_empty() {
        return local;
    }
    vec![DEFAULT_ENDPOINT.to_string()]
}

/// An argument as it is named in an error message: in full when short, else
/// its start and its length (hostile input must not flood the terminal).
fn shortened(arg: &str) -> String {
    const FULL: usize = 120;
    const START: usize = 60;
    if arg.len() <= FULL {
        return arg.to_string();
    }
    let mut end = START;
    while !arg.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &arg[..end], arg.len())
}

/// The TLS options of the command line.
fn tls_files(global: &GlobalArgs) -> TlsFiles {
    TlsFiles {
        cacert: global.cacert.clone(),
        cert: global.cert.clone(),
        key: global.key.clone(),
        insecure_skip_verify: global.insecure_skip_tls_verify,
    }
}

/// Runs the parsed command line and returns what to print (nothing for a node).
pub async fn run(cli: &Cli, observer: &dyn Observer) -> anyhow::Result<Option<Report>> {
    if let Command::Node(NodeCommand::Run(args)) = &cli.command {
        node::run(args).await?;
        return Ok(None);
    }
    if let Command::Cluster(cmd) = &cli.command {
        return cluster(cmd).await.map(Some);
    }
    if let Command::Completion { shell } = &cli.command {
        return Ok(Some(Report::Text(crate::cli::generate::completion(*shell))));
    }
    let client = Client::new(ClientConfig {
        endpoints: endpoints(&cli.global),
        dial_timeout: cli.global.dial_timeout,
        command_timeout: cli.global.command_timeout,
        credentials: password::credentials(&cli.global)?,
        tls: tls_files(&cli.global),
    })?;
    match &cli.command {
        Command::Member(cmd) => member(&client, cmd, &cli.global, observer).await.map(Some),
        Command::Node(_) | Command::Cluster(_) | Command::Completion { .. } => Ok(None),
    }
}

async fn member<A: MembershipApi>(
    api: &A,
    cmd: &MemberCommand,
    global: &GlobalArgs,
    observer: &dyn Observer,
) -> anyhow::Result<Report> {
    let timeout = global.command_timeout;
    Ok(match cmd {
        MemberCommand::List => Report::MemberList(
            api.member_list()
                .await
                .map_err(Error::from)
                .context("cannot list the members")?,
        ),
        MemberCommand::Add(a) => {
            let req = AddRequest {
                name: a.name.clone(),
                peer_urls: a.peer_urls.clone(),
                learner: a.learner,
                dry_run: a.dry_run,
            };
            match add::add(api, observer, &req, &system_resolver, timeout)
                .await
                .with_context(|| format!("member add {}", shortened(&a.name)))?
            {
                AddOutcome::Added(added) => {
                    observer.notice(&add::next_step(&added));
                    Report::Added(added)
                }
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
            )
            .await
            .with_context(|| format!("member update {}", shortened(&u.target.member)))?,
        ),
        MemberCommand::Status => Report::Status(
            status::status(api)
                .await
                .context("cannot read the members' status")?,
        ),
        MemberCommand::Replace(r) => {
            let req = ReplaceRequest {
                old: r.old.clone(),
                name: r.name.clone(),
                peer_urls: r.peer_urls.clone(),
                dry_run: r.dry_run,
                timeout: r.wait.timeout,
                poll_interval: r.wait.poll_interval,
                command_timeout: timeout,
            };
            let what = || format!("member replace {}", shortened(&r.old));
            match replace::prepare(api, observer, &req, &system_resolver)
                .await
                .with_context(what)?
            {
                Prepared::Plan(plan) => Report::Plan(plan),
                Prepared::Done(done) => Report::Replaced(done),
                Prepared::Started(state) => {
                    if !state.new.member.started() {
                        if r.start_local {
                            let dir = crate::testcluster::cluster_dir(None);
                            let url = r.peer_urls.first().map(String::as_str);
                            crate::testcluster::start_node(&dir, &r.name, url)
                                .await
                                .with_context(what)?;
                        } else {
                            observer.notice(&replace::start_hint(&state, r.wait.timeout));
                        }
                    }
                    Report::Replaced(
                        replace::finish(api, observer, &req, &state, &system_resolver)
                            .await
                            .with_context(what)?,
                    )
                }
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

async fn cluster(cmd: &ClusterCommand) -> anyhow::Result<Report> {
    use crate::testcluster::{self as tc, cluster_dir};
    let local = match cmd {
        ClusterCommand::Up(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            let options = tc::UpOptions {
                nodes: a.nodes,
                max_learners: a.max_learners,
                snapshot_count: a.snapshot_count,
                heartbeat_ms: a.heartbeat_interval,
                election_timeout_ms: a.election_timeout,
                fault_injection: a.fault_injection,
            };
            tc::up(&dir, &options).await.context("cluster up")?
        }
        ClusterCommand::StartNode(a) => {
            let dir = cluster_dir(a.dir.dir.as_deref());
            tc::start_node(&dir, &a.name, a.peer_url.as_deref())
                .await
                .with_context(|| format!("cluster start-node {}", a.name))?
        }
        ClusterCommand::Status(a) => tc::status(&cluster_dir(a.dir.as_deref()))
            .await
            .context("cluster status")?,
        ClusterCommand::Down(a) => tc::down(&cluster_dir(a.dir.as_deref()))
            .await
            .context("cluster down")?,
    };
    Ok(Report::Cluster(local))
}
