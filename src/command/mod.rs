//! Glue between the command line and the workflows: picks the endpoints,
//! builds the client and dispatches to one file per command group (`member`,
//! `cluster`, [`node`]); each returns a report for the printer.

mod autopilot;
mod autopilot_metrics;
mod cluster;
mod member;
pub mod node;
mod password;
mod requests;
mod snapshot;
mod target;

use crate::cli::{
    Cli, ClusterCommand, Command, GlobalArgs, JointCommand, MemberCommand, NodeCommand,
};
use crate::client::{Client, ClientConfig, ClientTlsFiles};
use crate::printer::Report;
use crate::workflow::{cost, Observer};

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
fn tls_files(global: &GlobalArgs) -> ClientTlsFiles {
    ClientTlsFiles {
        cacert: global.cacert.clone(),
        cert: global.cert.clone(),
        key: global.key.clone(),
        insecure_skip_verify: global.insecure_skip_tls_verify,
    }
}

/// Whether `cmd` changes the membership or the leader (its cost is counted).
fn changes(cmd: &MemberCommand) -> bool {
    match cmd {
        MemberCommand::Add(a) => !a.dry_run,
        MemberCommand::Remove(r) => !r.dry_run,
        MemberCommand::Prune(p) => !p.dry_run,
        MemberCommand::Replace(r) => !r.dry_run,
        MemberCommand::Apply(a) => !a.dry_run,
        MemberCommand::Joint(JointCommand::Enter(j)) => !j.dry_run,
        MemberCommand::Promote(_)
        | MemberCommand::Update(_)
        | MemberCommand::MoveLeader(_)
        | MemberCommand::Joint(JointCommand::Leave) => true,
        MemberCommand::List
        | MemberCommand::Status
        | MemberCommand::Check(_)
        | MemberCommand::Joint(JointCommand::Status) => false,
    }
}

/// Runs the parsed command line and returns what to print (nothing for a node).
pub async fn run(cli: &Cli, observer: &dyn Observer) -> anyhow::Result<Option<Report>> {
    if let Command::Node(NodeCommand::Run(args)) = &cli.command {
        node::run(args).await?;
        return Ok(None);
    }
    if let Command::Cluster(ClusterCommand::LinkServe(a)) = &cli.command {
        let dir = crate::testcluster::cluster_dir(a.dir.as_deref());
        tokio::task::spawn_blocking(move || crate::testcluster::link::serve(&dir))
            .await?
            .map_err(|e| anyhow::Error::new(e).context("cluster link-serve"))?;
        return Ok(None);
    }
    if let Command::Cluster(ClusterCommand::Chaos(a)) = &cli.command {
        cluster::chaos(a, &cli.global, observer).await?;
        return Ok(None);
    }
    if let Command::Cluster(cmd) = &cli.command {
        return cluster::cluster(cmd, observer).await.map(Some);
    }
    if let Command::Snapshot(cmd) = &cli.command {
        if let Some(report) = snapshot::offline(cmd)? {
            return Ok(Some(report));
        }
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
        Command::Member(cmd) => {
            let before = match changes(cmd) {
                true => Some(cost::read(&client).await),
                false => None,
            };
            let (mut report, checks) = member::member(&client, cmd, &cli.global, observer).await?;
            if let Some(before) = before.filter(|_| !report.is_plan()) {
                let after = cost::read(&client).await;
                if let Some(cost) = cost::cost(&before, &after) {
                    report = Report::Costed {
                        report: Box::new(report),
                        cost,
                    };
                }
            }
            Ok(Some(if checks.is_empty() {
                report
            } else {
                Report::Checked {
                    report: Box::new(report),
                    checks,
                }
            }))
        }
        Command::Snapshot(cmd) => snapshot::snapshot(&client, cmd).await.map(Some),
        Command::Autopilot(a) => autopilot::autopilot(&client, a, &cli.global, observer)
            .await
            .map(|()| None)
            .map_err(|e| e.context("autopilot")),
        Command::Node(_) | Command::Cluster(_) | Command::Completion { .. } => Ok(None),
    }
}
