//! A node's life: opens its store, binds its listeners, starts raft, the
//! transport and the services, and serves until a signal or until the member
//! is removed (then drains requests under way and exits).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::bootstrap::prepare;
use super::error::{because, StartupError};
use super::{ListenerTls, NodeOptions};
use crate::error::panic_message;
use crate::log;
use crate::node::{self, NodeConfig, Stopped};
use crate::server;
use crate::storage::{Store, StoreError, StoreErrorKind};
use crate::transport::{Partition, Transport};

/// How long a removed member keeps answering requests under way before it exits.
const DRAIN: Duration = Duration::from_secs(5);

/// The address a listen URL binds: `http(s)://IP:PORT` (or localhost).
fn socket_addr(url: &str) -> Result<SocketAddr, StartupError> {
    let flag = |why: String| StartupError::Flags(format!("{url:?}: {why}"));
    let u = url::Url::parse(url).map_err(|e| flag(format!("not a URL ({e})")))?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return Err(flag(
            "listen on http:// or https:// (with --cert-file/--peer-cert-file)".into(),
        ));
    }
    let host = u.host_str().ok_or_else(|| flag("has no host".into()))?;
    let port = u.port().ok_or_else(|| flag("has no port".into()))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let ip = match host {
        "localhost" => std::net::IpAddr::from([127, 0, 0, 1]),
        _ => host
            .parse()
            .map_err(|_| flag("listen on an IP address".into()))?,
    };
    Ok(SocketAddr::new(ip, port))
}

/// Opens the member's store. Files the store cannot read (truncated,
/// overwritten, another format) are reported with the directory and what to
/// do, never as a panic: the storage libraries assert on some damage instead
/// of returning an error.
fn open_store(opts: &NodeOptions) -> Result<Store, StartupError> {
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
    Err(StartupError::Store(match kind {
        StoreErrorKind::Format => format!("cannot open member {}: {cause}", opts.name),
        StoreErrorKind::Locked => format!(
            "cannot open {}: {cause}; another process has it open: is member {} already \
             running? stop it first (`memberctl cluster status` lists a local cluster's nodes)",
            dir.display(),
            opts.name
        ),
        StoreErrorKind::Disk => format!(
            "cannot open {}: {cause}; check that {} is a writable directory with free space",
            dir.display(),
            dir.display()
        ),
        // What the store cannot read at start is damage.
        StoreErrorKind::Damaged | StoreErrorKind::Log | StoreErrorKind::Other => format!(
            "cannot open the data directory {}: {cause}; its files are damaged (truncated or \
             overwritten) beyond what the store recovers from after a crash; {}",
            dir.display(),
            rebuild_advice(opts)
        ),
    }))
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

/// The sockets a node serves on, bound before anything else starts.
struct Bound {
    client: TcpListener,
    peer: TcpListener,
    metrics: Vec<TcpListener>,
    client_addr: SocketAddr,
    peer_addr: SocketAddr,
}

/// Raft's election timeout in heartbeats, refused below five.
fn election_ticks(opts: &NodeOptions) -> Result<usize, StartupError> {
    let ticks = (opts.election_timeout.as_millis() / opts.heartbeat.as_millis().max(1)) as usize;
    if ticks < 5 {
        return Err(StartupError::Flags(
            "--election-timeout must be at least 5 times --heartbeat-interval (etcd recommends 10)"
                .into(),
        ));
    }
    Ok(ticks)
}

/// The first URL of a listen flag, required.
fn first_addr(urls: &[String], flag: &str) -> Result<SocketAddr, StartupError> {
    socket_addr(
        urls.first()
            .ok_or_else(|| StartupError::Flags(format!("{flag} is required")))?,
    )
}

/// Binds `addr`, saying for what when it cannot.
async fn bind(what: &'static str, addr: SocketAddr) -> Result<TcpListener, StartupError> {
    TcpListener::bind(addr)
        .await
        .map_err(|cause| StartupError::Listen { what, addr, cause })
}

/// Binds the client, peer and metrics listeners.
async fn bind_all(opts: &NodeOptions) -> Result<Bound, StartupError> {
    let client_addr = first_addr(&opts.listen_client_urls, "--listen-client-urls")?;
    let peer_addr = first_addr(&opts.listen_peer_urls, "--listen-peer-urls")?;
    let client = bind("clients", client_addr).await?;
    let peer = bind("peers", peer_addr).await?;
    let mut metrics = Vec::new();
    for url in &opts.listen_metrics_urls {
        if !url.starts_with("http://") {
            return Err(StartupError::Flags(format!(
                "--listen-metrics-urls {url}: metrics are served over plain http:// only"
            )));
        }
        metrics.push(bind("metrics", socket_addr(url)?).await?);
    }
    Ok(Bound {
        client,
        peer,
        metrics,
        client_addr,
        peer_addr,
    })
}

/// The listeners' and the peer dialer's TLS, from the files given; https
/// URLs need them.
fn tls(opts: &NodeOptions) -> Result<server::ServeTls, StartupError> {
    let need = |urls: &[String], tls: &Option<ListenerTls>, flag: &str| {
        if urls.iter().any(|u| u.starts_with("https://")) && tls.is_none() {
            return Err(StartupError::Flags(format!("https URLs need {flag}")));
        }
        Ok(())
    };
    need(
        &opts.listen_client_urls,
        &opts.client_tls,
        "--cert-file and --key-file (or --auto-tls)",
    )?;
    need(
        &opts.listen_peer_urls,
        &opts.peer_tls,
        "--peer-cert-file and --peer-key-file (or --peer-auto-tls)",
    )?;
    Ok(server::ServeTls {
        client: opts
            .client_tls
            .as_ref()
            .map(ListenerTls::server)
            .transpose()?,
        client_cert_auth: opts.client_tls.as_ref().is_some_and(|t| t.client_cert_auth),
        peer: opts
            .peer_tls
            .as_ref()
            .map(ListenerTls::server)
            .transpose()?,
        peer_client: opts
            .peer_tls
            .as_ref()
            .map(ListenerTls::client)
            .transpose()?,
    })
}

/// Says which deliberate bugs and test-only switches are on.
fn warn_faults(opts: &NodeOptions) {
    crate::storage::set_ack_before_fsync(opts.fault_ack_before_fsync);
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
}

/// Logs each change of leader and counts it (etcd's leader changes series).
fn watch_leaders(node: &node::Node) {
    let mut watch = node.watch();
    tokio::spawn(async move {
        let mut leader = 0;
        while watch.changed().await.is_ok() {
            let v = watch.borrow().clone();
            if v.leader_id != leader {
                leader = v.leader_id;
                if leader != 0 {
                    crate::metrics::get().leader_changes.inc();
                }
                slog::info!(
                    log::logger(),
                    "leader is now {leader:016x} (term {})",
                    v.term
                );
            }
        }
    });
}

/// Runs the node until it is stopped or removed: checks its flags and its
/// removal mark, opens its store, binds its listeners, prepares its identity,
/// starts raft and the transport, replays what it had committed, then serves.
pub async fn run(opts: NodeOptions) -> Result<(), StartupError> {
    log::name(&opts.name);
    quiet_panics();
    let ticks = election_ticks(&opts)?;
    super::removed::check(&opts.name, &opts.data_dir).map_err(StartupError::Removed)?;
    super::etcd_restored::adopt(&opts.data_dir)?;
    let store = open_store(&opts)?;
    let bound = bind_all(&opts).await?;
    let opts = super::self_cert::fill(opts)?;
    let tls = tls(&opts)?;
    let (cluster_id, id, fresh_rank) = prepare(&opts, &store, tls.peer_client.as_ref()).await?;
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
        strict_reconfig_check: opts.strict_reconfig_check,
        max_concurrent_streams: opts.max_concurrent_streams,
        watch_progress_notify: opts.watch_progress_notify,
        simple_token_ttl: opts.auth_token_ttl,
        fresh_rank,
    };
    let partition = Arc::new(Partition::default());
    let transport = Arc::new(Transport::new(
        id,
        tls.peer_client.clone(),
        partition.clone(),
    ));
    // What this member had committed when it stopped: applied before it
    // serves, so that it never answers from a state older than it had.
    let replay_to = store.hard_state().commit.min(store.last_index());
    let had_data = fresh_rank.is_none() && replay_to > 0;
    let (node, mut driver) = node::start(config, store, transport.clone())
        .map_err(|e| StartupError::Store(because("cannot start raft", e)))?;
    transport.attach(node.clone());
    slog::info!(
        log::logger(),
        "member {id:016x} of cluster {cluster_id:016x}: clients on {}, peers on {}",
        bound.client_addr,
        bound.peer_addr
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
    // A member that had data before this start (etcd checks only those),
    // once its committed entries are applied and before it serves: its peer
    // listener is not served yet, and as a follower it has sent nothing but
    // perhaps a pre-vote, which changes nothing at a peer.
    if opts.initial_corrupt_check && had_data {
        super::corrupt_check::check(node.store(), id, tls.peer_client.as_ref()).await?;
    }
    warn_faults(&opts);
    watch_leaders(&node);
    let (removed_tx, removed_rx) = tokio::sync::oneshot::channel::<()>();
    let mut server = tokio::spawn(server::serve(
        node,
        cluster_id,
        server::Listeners {
            client: bound.client,
            peer: bound.peer,
            metrics: bound.metrics,
        },
        tls,
        opts.fault_injection.then_some(server::Faults {
            partition,
            stale_reads: opts.fault_stale_reads,
        }),
        server::Settings {
            limits: server::Limits {
                quota_bytes: opts.quota_backend_bytes,
                max_request_bytes: opts.max_request_bytes,
                max_txn_ops: opts.max_txn_ops,
                auto_compaction: opts.auto_compaction,
            },
            keepalive: opts.keepalive,
            corrupt_check: opts.corrupt_check_time,
            auth: server::AuthOptions {
                token: opts.auth_token.clone(),
                bcrypt_cost: opts.bcrypt_cost,
            },
        },
        async move {
            tokio::select! {
                _ = stop_signal() => {}
                _ = removed_rx => {}
            }
        },
    ));
    tokio::select! {
        r = driver => {
            // Stop serving, but let requests under way finish (a forwarded
            // request may still be waiting for this member's answer).
            let _ = removed_tx.send(());
            let _ = tokio::time::timeout(DRAIN, &mut server).await;
            stopped(r, &opts, id, cluster_id)
        }
        r = &mut server => {
            r.map_err(|e| StartupError::Serve(because("the server panicked", e)))?
                .map_err(|e| StartupError::Serve(because("the server failed", e)))?;
            slog::info!(log::logger(), "stopped");
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
) -> Result<(), StartupError> {
    if store.applied() == 0 && store.last_index() == 0 {
        return Err(StartupError::Flags(format!(
            "--force-new-cluster needs this member's data: {} holds none (start the survivor \
             of the lost cluster on its own data directory)",
            opts.data_dir.display()
        )));
    }
    let forced = store.force_new_cluster(id).map_err(|e| {
        StartupError::Store(because(
            "--force-new-cluster: cannot rewrite the configuration",
            e,
        ))
    })?;
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
) -> Result<(), StartupError> {
    let stopped = r.map_err(|e| StartupError::Serve(because("the raft driver failed", e)))?;
    let stopped = stopped.map_err(|e| {
        StartupError::Store(match e.kind {
            StoreErrorKind::Damaged => format!("{e}; {}", rebuild_advice(opts)),
            StoreErrorKind::Log | StoreErrorKind::Disk => format!(
                "{e}: this member stopped so that it acknowledges nothing it did not \
                 persist; make room on (or repair) the disk of {}, then start the member \
                 again",
                opts.data_dir.display()
            ),
            StoreErrorKind::Format | StoreErrorKind::Locked | StoreErrorKind::Other => {
                e.to_string()
            }
        })
    })?;
    match stopped {
        Stopped::Removed => Err(StartupError::Removed(super::removed::mark(
            &opts.name,
            &opts.data_dir,
            id,
            cluster_id,
        ))),
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
