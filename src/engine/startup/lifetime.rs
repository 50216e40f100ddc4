//! A node's life: opens its store, binds its listeners, starts raft, the
//! transport and the services, and serves until a signal or until the member
//! is removed (then drains requests under way and exits).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use tokio::net::TcpListener;

use super::bootstrap::prepare;
use super::{ListenerTls, NodeOptions};
use crate::engine::log;
use crate::engine::node::{self, NodeConfig, Stopped};
use crate::engine::server;
use crate::engine::storage::{Store, StoreError, StoreErrorKind};
use crate::engine::transport::{Partition, Transport};
use crate::error::panic_message;

/// How long a removed member keeps answering requests under way before it exits.
const DRAIN: Duration = Duration::from_secs(5);

fn socket_addr(url: &str) -> anyhow::Result<SocketAddr> {
    let u = url::Url::parse(url).with_context(|| format!("{url:?} is not a URL"))?;
    if u.scheme() != "http" && u.scheme() != "https" {
        bail!("{url:?}: listen on http:// or https:// (with --cert-file/--peer-cert-file)");
    }
    let host = u.host_str().ok_or_else(|| anyhow!("{url:?} has no host"))?;
    let port = u.port().ok_or_else(|| anyhow!("{url:?} has no port"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let ip = host
        .parse()
        .or_else(|_| {
            if host == "localhost" {
                Ok("127.0.0.1".parse()?)
            } else {
                Err(anyhow!(""))
            }
        })
        .map_err(|_: anyhow::Error| anyhow!("{url:?}: listen on an IP address"))?;
    Ok(SocketAddr::new(ip, port))
}

/// Opens the member's store. Files the store cannot read (truncated,
/// overwritten, another format) are reported with the directory and what to
/// do, never as a panic: the storage libraries assert on some damage instead
/// of returning an error.
fn open_store(opts: &NodeOptions) -> anyhow::Result<Store> {
    let dir = &opts.data_dir;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(|| Store::open(dir));
    std::panic::set_hook(hook);
    let (kind, cause) = match opened {
        Ok(Ok(store)) => return Ok(store),
        Ok(Err(e)) => (e.kind, e.to_string()),
        Err(panic) => (
            StoreErrorKind::Damaged,
            panic_message(panic.as_ref(), "the storage library panicked"),
        ),
    };
    match kind {
        StoreErrorKind::Format => bail!("cannot open member {}: {cause}", opts.name),
        StoreErrorKind::Locked => bail!(
            "cannot open {}: {cause}; another process has it open: is member {} already \
             running? stop it first (`memberctl cluster status` lists a local cluster's nodes)",
            dir.display(),
            opts.name
        ),
        StoreErrorKind::Disk => bail!(
            "cannot open {}: {cause}; check that {} is a writable directory with free space",
            dir.display(),
            dir.display()
        ),
        // What the store cannot read at start is damage.
        StoreErrorKind::Damaged | StoreErrorKind::Log | StoreErrorKind::Other => {}
    }
    bail!(
        "cannot open the data directory {}: {cause}; its files are damaged (truncated or \
         overwritten) beyond what the store recovers from after a crash; {}",
        dir.display(),
        rebuild_advice(opts)
    )
}

/// What to do with a member whose data directory is damaged.
fn rebuild_advice(opts: &NodeOptions) -> String {
    format!(
        "do not start member {name} on it: if the rest of the cluster has a quorum, remove the \
         member (`memberctl member remove {name}`), delete {dir} and add it again as a new \
         learner (`memberctl member add {name} --learner --peer-urls URL`), otherwise restore \
         {dir} from a backup",
        name = opts.name,
        dir = opts.data_dir.display(),
    )
}

/// A node process reports an internal error in one line, without the
/// backtrace a panic prints by default.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let what = panic_message(info.payload(), "");
        let at = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        slog::crit!(log::logger(), "internal error{at}: {what}");
    }));
}

/// Resolves when the process is asked to stop (SIGINT or SIGTERM).
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// Runs the node until it is stopped or removed.
pub async fn run(opts: NodeOptions) -> anyhow::Result<()> {
    log::name(&opts.name);
    quiet_panics();
    let ticks = (opts.election_timeout.as_millis() / opts.heartbeat.as_millis().max(1)) as usize;
    if ticks < 5 {
        bail!(
            "--election-timeout must be at least 5 times --heartbeat-interval (etcd recommends 10)"
        );
    }
    let client_addr = socket_addr(
        opts.listen_client_urls
            .first()
            .ok_or_else(|| anyhow!("--listen-client-urls is required"))?,
    )?;
    let peer_addr = socket_addr(
        opts.listen_peer_urls
            .first()
            .ok_or_else(|| anyhow!("--listen-peer-urls is required"))?,
    )?;
    super::removed::check(&opts.name, &opts.data_dir)?;
    let store = open_store(&opts)?;
    let client = TcpListener::bind(client_addr)
        .await
        .with_context(|| format!("cannot listen for clients on {client_addr}"))?;
    let peer = TcpListener::bind(peer_addr)
        .await
        .with_context(|| format!("cannot listen for peers on {peer_addr}"))?;
    let mut metrics = Vec::new();
    for url in &opts.listen_metrics_urls {
        if !url.starts_with("http://") {
            bail!("--listen-metrics-urls {url}: metrics are served over plain http:// only");
        }
        let addr = socket_addr(url)?;
        metrics.push(
            TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen for metrics on {addr}"))?,
        );
    }
    let need_tls = |urls: &[String], tls: &Option<ListenerTls>, flag: &str| -> anyhow::Result<()> {
        if urls.iter().any(|u| u.starts_with("https://")) && tls.is_none() {
            bail!("https URLs need {flag}");
        }
        Ok(())
    };
    need_tls(
        &opts.listen_client_urls,
        &opts.client_tls,
        "--cert-file and --key-file",
    )?;
    need_tls(
        &opts.listen_peer_urls,
        &opts.peer_tls,
        "--peer-cert-file and --peer-key-file",
    )?;
    let client_server_tls = opts
        .client_tls
        .as_ref()
        .map(ListenerTls::server)
        .transpose()?;
    let peer_server_tls = opts
        .peer_tls
        .as_ref()
        .map(ListenerTls::server)
        .transpose()?;
    let peer_client_tls = opts
        .peer_tls
        .as_ref()
        .map(ListenerTls::client)
        .transpose()?;
    let (cluster_id, id, fresh_rank) = prepare(&opts, &store, peer_client_tls.as_ref()).await?;
    if opts.force_new_cluster {
        force_new_cluster(&opts, &store, id, cluster_id)?;
    }
    let config = NodeConfig {
        id,
        name: opts.name.clone(),
        data_dir: opts.data_dir.clone(),
        client_urls: opts.advertise_client_urls.clone(),
        heartbeat: opts.heartbeat,
        election_ticks: ticks,
        snapshot_count: opts.snapshot_count.max(1),
        max_learners: opts.max_learners,
        fresh_rank,
    };
    let partition = Arc::new(Partition::default());
    let transport = Arc::new(Transport::new(
        id,
        peer_client_tls.clone(),
        partition.clone(),
    ));
    // What this member had committed when it stopped: applied before it
    // serves, so that it never answers from a state older than it had.
    let replay_to = store.hard_state().commit.min(store.last_index());
    let (node, mut driver) = node::start(config, store, transport.clone())?;
    transport.attach(node.clone());
    slog::info!(
        log::logger(),
        "member {id:016x} of cluster {cluster_id:016x}: clients on {client_addr}, peers on {peer_addr}"
    );
    let applied = node.view().applied;
    if applied < replay_to {
        slog::info!(
            log::logger(),
            "applying its raft log from index {} to {replay_to} before serving",
            applied + 1
        );
        let started = std::time::Instant::now();
        let mut watch = node.watch();
        tokio::select! {
            _ = watch.wait_for(|v| v.applied >= replay_to) => {}
            r = &mut driver => return stopped(r, &opts, id, cluster_id),
        }
        slog::info!(
            log::logger(),
            "applied up to {replay_to} in {:.2}s",
            started.elapsed().as_secs_f64()
        );
    }
    crate::engine::storage::set_ack_before_fsync(opts.fault_ack_before_fsync);
    for (on, bug) in [
        (
            opts.fault_stale_reads,
            "--fault-stale-reads: linearizable reads are served locally",
        ),
        (
            opts.fault_ack_before_fsync,
            "--fault-ack-before-fsync: raft log writes are acknowledged before they are written",
        ),
    ] {
        if on {
            slog::warn!(
                log::logger(),
                "DELIBERATE BUG {bug}; for testing the checker only"
            );
        }
    }
    if opts.fault_injection {
        slog::warn!(
            log::logger(),
            "fault injection is on (--fault-injection): any client can cut this node off from \
             its peers; for test clusters only"
        );
    }
    let mut watch = node.watch();
    tokio::spawn(async move {
        let mut leader = 0;
        while watch.changed().await.is_ok() {
            let v = watch.borrow().clone();
            if v.leader_id != leader {
                leader = v.leader_id;
                if leader != 0 {
                    crate::engine::metrics::get().leader_changes.inc();
                }
                slog::info!(
                    log::logger(),
                    "leader is now {leader:016x} (term {})",
                    v.term
                );
            }
        }
    });
    let (removed_tx, removed_rx) = tokio::sync::oneshot::channel::<()>();
    let tls = server::ServeTls {
        client: client_server_tls,
        peer: peer_server_tls,
        peer_client: peer_client_tls,
    };
    let server = tokio::spawn(server::serve(
        node,
        cluster_id,
        server::Listeners {
            client,
            peer,
            metrics,
        },
        tls,
        opts.fault_injection.then_some(server::Faults {
            partition,
            stale_reads: opts.fault_stale_reads,
        }),
        opts.quota_backend_bytes,
        async move {
            tokio::select! {
                _ = stop_signal() => {}
                _ = removed_rx => {}
            }
        },
    ));
    let mut server = server;
    tokio::select! {
        r = driver => {
            // Stop serving, but let requests under way finish (a forwarded
            // request may still be waiting for this member's answer).
            let _ = removed_tx.send(());
            let _ = tokio::time::timeout(DRAIN, &mut server).await;
            stopped(r, &opts, id, cluster_id)
        }
        r = &mut server => {
            r.context("the server panicked")?.context("the server failed")?;
            slog::info!(log::logger(),"stopped");
            Ok(())
        }
    }
}

/// `--force-new-cluster`: the log rewritten so that this member is the only
/// one (durable before anything is served), and what was done said.
fn force_new_cluster(
    opts: &NodeOptions,
    store: &Store,
    id: u64,
    cluster_id: u64,
) -> anyhow::Result<()> {
    if store.applied() == 0 && store.last_index() == 0 {
        bail!(
            "--force-new-cluster needs this member's data: {} holds none (start the survivor \
             of the lost cluster on its own data directory)",
            opts.data_dir.display()
        );
    }
    let forced = store
        .force_new_cluster(id)
        .context("--force-new-cluster: cannot rewrite the configuration")?;
    let removed: Vec<String> = forced.removed.iter().map(|r| format!("{r:016x}")).collect();
    slog::warn!(
        log::logger(),
        "--force-new-cluster: member {id:016x} is now the only member of cluster \
         {cluster_id:016x}; kept its log up to index {} ({} later entries, not known to be \
         committed, dropped: writes acknowledged after that index may be lost); removed {}; \
         add the other machines back with `memberctl member add NAME --learner --peer-urls \
         URL` and start them on empty data directories",
        forced.kept_index,
        forced.dropped,
        if removed.is_empty() {
            "no other member".to_string()
        } else {
            removed.join(", ")
        }
    );
    Ok(())
}

/// What the member says when its raft thread stopped.
fn stopped(
    r: Result<Result<Stopped, StoreError>, tokio::task::JoinError>,
    opts: &NodeOptions,
    id: u64,
    cluster_id: u64,
) -> anyhow::Result<()> {
    let stopped = r.context("the raft driver failed")?;
    let stopped = stopped.map_err(|e| match e.kind {
        StoreErrorKind::Damaged => anyhow!("{e}; {}", rebuild_advice(opts)),
        StoreErrorKind::Log | StoreErrorKind::Disk => anyhow!(
            "{e}: this member stopped so that it acknowledges nothing it did not \
             persist; make room on (or repair) the disk of {}, then start the member \
             again",
            opts.data_dir.display()
        ),
        StoreErrorKind::Format | StoreErrorKind::Locked | StoreErrorKind::Other => anyhow!(e),
    })?;
    match stopped {
        Stopped::Removed => {
            Err(super::removed::mark(&opts.name, &opts.data_dir, id, cluster_id).into())
        }
        Stopped::Shutdown => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_urls_need_an_ip_and_port() {
        assert_eq!(socket_addr("http://127.0.0.1:2379").unwrap().port(), 2379);
        assert!(socket_addr("http://127.0.0.1").is_err());
        assert!(socket_addr("http://example.com:1").is_err());
        assert_eq!(socket_addr("https://127.0.0.1:1").unwrap().port(), 1);
        assert!(socket_addr("ftp://127.0.0.1:1").is_err());
    }
}
