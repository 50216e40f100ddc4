//! Starts a node from etcd-style options: bootstraps a new cluster or joins an
//! existing one, opens the store, binds the listeners, serves until a signal
//! or until the member is removed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use tokio::net::TcpListener;
use tonic::transport::{Certificate, ClientTlsConfig, Identity, ServerTlsConfig};

use crate::node::{self, NodeConfig, Stopped};
use crate::proto::memberctl_v1 as pb;
use crate::proto::memberctl_v1::raft_client::RaftClient;
use crate::storage::Store;
use crate::transport::{Partition, Transport};

/// How a node is started (etcd's flags).
#[derive(Clone, Debug)]
pub struct NodeOptions {
    /// --name
    pub name: String,
    /// --data-dir
    pub data_dir: PathBuf,
    /// --listen-client-urls
    pub listen_client_urls: Vec<String>,
    /// --advertise-client-urls
    pub advertise_client_urls: Vec<String>,
    /// --listen-peer-urls
    pub listen_peer_urls: Vec<String>,
    /// --initial-advertise-peer-urls
    pub initial_advertise_peer_urls: Vec<String>,
    /// --initial-cluster: name=url pairs
    pub initial_cluster: Vec<(String, String)>,
    /// --initial-cluster-state existing (else new)
    pub join_existing: bool,
    /// --initial-cluster-token
    pub token: String,
    /// --heartbeat-interval
    pub heartbeat: Duration,
    /// --election-timeout
    pub election_timeout: Duration,
    /// --snapshot-count
    pub snapshot_count: u64,
    /// --max-learners
    pub max_learners: usize,
    /// TLS for client connections.
    pub client_tls: Option<TlsFiles>,
    /// TLS for peer connections (served and dialled).
    pub peer_tls: Option<TlsFiles>,
    /// --fault-injection: serve the fault-injection service (test clusters only).
    pub fault_injection: bool,
}

/// A listener's TLS files (etcd's --cert-file, --key-file, --trusted-ca-file, --client-cert-auth).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate served.
    pub cert: PathBuf,
    /// Its key.
    pub key: PathBuf,
    /// CA for the other side's certificates.
    pub ca: Option<PathBuf>,
    /// Require the other side to present a certificate signed by `ca`.
    pub client_cert_auth: bool,
}

impl TlsFiles {
    fn read(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
    }

    /// The server side.
    pub fn server(&self) -> anyhow::Result<ServerTlsConfig> {
        let mut cfg = ServerTlsConfig::new().identity(Identity::from_pem(
            Self::read(&self.cert)?,
            Self::read(&self.key)?,
        ));
        if let Some(ca) = &self.ca {
            cfg = cfg
                .client_ca_root(Certificate::from_pem(Self::read(ca)?))
                .client_auth_optional(!self.client_cert_auth);
        } else if self.client_cert_auth {
            bail!("--client-cert-auth needs --trusted-ca-file (and --peer-client-cert-auth --peer-trusted-ca-file)");
        }
        Ok(cfg)
    }

    /// The client side, for dialling peers: the same certificate, the same CA.
    pub fn client(&self) -> anyhow::Result<ClientTlsConfig> {
        let mut cfg = ClientTlsConfig::new().identity(Identity::from_pem(
            Self::read(&self.cert)?,
            Self::read(&self.key)?,
        ));
        if let Some(ca) = &self.ca {
            cfg = cfg.ca_certificate(Certificate::from_pem(Self::read(ca)?));
        }
        Ok(cfg)
    }
}

/// How long a removed member keeps answering requests under way before it exits.
const DRAIN: Duration = Duration::from_secs(5);

/// How long a joining node keeps asking its peers for the member list.
const JOIN_WAIT: Duration = Duration::from_secs(15);

/// FNV-1a, 64 bits: member and cluster IDs every initial member computes alike.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h.max(1)
}

/// The ID of an initial member: a hash of its sorted peer URLs and the token.
pub fn initial_member_id(peer_urls: &[String], token: &str) -> u64 {
    let mut urls: Vec<&str> = peer_urls.iter().map(String::as_str).collect();
    urls.sort_unstable();
    let mut parts: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    parts.push(token.as_bytes());
    fnv1a(&parts)
}

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

/// The initial members grouped by name: (name, peer URLs).
fn initial_members(pairs: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (name, url) in pairs {
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, urls)) => urls.push(url.clone()),
            None => out.push((name.clone(), vec![url.clone()])),
        }
    }
    out
}

/// Prepares the store: (cluster ID, member ID, fresh rank for the first election).
async fn prepare(
    opts: &NodeOptions,
    store: &Store,
    peer_tls: Option<&ClientTlsConfig>,
) -> anyhow::Result<(u64, u64, Option<usize>)> {
    if let Some(id) = store.member_id()? {
        return Ok((store.cluster_id()?, id, None));
    }
    let members = initial_members(&opts.initial_cluster);
    let mut own_urls = opts.initial_advertise_peer_urls.clone();
    own_urls.sort();
    if !opts.join_existing {
        let mut metas: Vec<pb::MemberMeta> = members
            .iter()
            .map(|(_, urls)| pb::MemberMeta {
                id: initial_member_id(urls, &opts.token),
                peer_urls: urls.clone(),
                ..Default::default()
            })
            .collect();
        metas.sort_by_key(|m| m.id);
        let (_, mine) = members
            .iter()
            .find(|(n, _)| *n == opts.name)
            .ok_or_else(|| {
                anyhow!(
                    "--initial-cluster has no member named {:?}; add {}=<peer url>",
                    opts.name,
                    opts.name
                )
            })?;
        let mut mine_sorted = mine.clone();
        mine_sorted.sort();
        if mine_sorted != own_urls {
            bail!(
                "--initial-cluster gives {} the peer URLs {:?} but --initial-advertise-peer-urls is {:?}; they must match",
                opts.name, mine, opts.initial_advertise_peer_urls
            );
        }
        let id = initial_member_id(mine, &opts.token);
        let ids: Vec<Vec<u8>> = metas.iter().map(|m| m.id.to_be_bytes().to_vec()).collect();
        let mut parts: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
        parts.push(opts.token.as_bytes());
        let cluster_id = fnv1a(&parts);
        store.bootstrap(cluster_id, id, &metas)?;
        let rank = metas.iter().position(|m| m.id == id);
        return Ok((cluster_id, id, rank));
    }
    // Joining: ask the other members who we are.
    let others: Vec<String> = members
        .iter()
        .filter(|(n, _)| *n != opts.name)
        .flat_map(|(_, urls)| urls.clone())
        .collect();
    if others.is_empty() {
        bail!("--initial-cluster-state existing needs the other members in --initial-cluster");
    }
    let deadline = tokio::time::Instant::now() + JOIN_WAIT;
    let mut last_err = String::new();
    while tokio::time::Instant::now() < deadline {
        for url in &others {
            match ask_members(url, peer_tls).await {
                Ok(resp) => {
                    let me = resp.members.iter().find(|m| {
                        let mut u = m.peer_urls.clone();
                        u.sort();
                        u == own_urls
                    });
                    let Some(me) = me else {
                        bail!(
                            "the cluster has no member with peer URLs {:?}: add it first with \
                             `memberctl member add {} --learner --peer-urls {}`",
                            opts.initial_advertise_peer_urls,
                            opts.name,
                            opts.initial_advertise_peer_urls.join(",")
                        );
                    };
                    store.join(resp.cluster_id, me.id, &resp.members)?;
                    return Ok((resp.cluster_id, me.id, None));
                }
                Err(e) => last_err = format!("{url}: {e}"),
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    bail!("cannot reach any member of the existing cluster to join it ({last_err})")
}

async fn ask_members(
    url: &str,
    tls: Option<&ClientTlsConfig>,
) -> anyhow::Result<pb::MembersResponse> {
    let mut ep = tonic::transport::Endpoint::from_shared(url.to_string())?
        .connect_timeout(Duration::from_secs(1));
    if let Some(tls) = tls.filter(|_| url.starts_with("https://")) {
        ep = ep.tls_config(tls.clone())?;
    }
    let ch = tokio::time::timeout(Duration::from_secs(2), ep.connect()).await??;
    let resp = tokio::time::timeout(
        Duration::from_secs(2),
        RaftClient::new(ch).members(pb::MembersRequest {}),
    )
    .await??;
    Ok(resp.into_inner())
}

/// The file in the data directory that holds a member's raft log, state and data.
const STORE_FILE: &str = "member.redb";

/// Opens the member's store. A file the store cannot read (truncated,
/// overwritten) is reported with its path and what to do, never as a panic:
/// the store library asserts on some damage instead of returning an error.
fn open_store(opts: &NodeOptions) -> anyhow::Result<Store> {
    let dir = &opts.data_dir;
    let file = dir.join(STORE_FILE);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(|| Store::open(dir));
    std::panic::set_hook(hook);
    let cause = match opened {
        Ok(Ok(store)) => return Ok(store),
        Ok(Err(e)) => e.to_string(),
        Err(panic) => panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the store library panicked".into()),
    };
    let lower = cause.to_ascii_lowercase();
    if lower.contains("already open") {
        bail!(
            "cannot open {}: {cause}; another process has it open: is member {} already \
             running? stop it first (`memberctl cluster status` lists a local cluster's nodes)",
            file.display(),
            opts.name
        );
    }
    if !file.is_file()
        || ["permission denied", "read-only", "no space"]
            .iter()
            .any(|s| lower.contains(s))
    {
        bail!(
            "cannot open {}: {cause}; check that {} is a writable directory with free space",
            file.display(),
            dir.display()
        );
    }
    bail!(
        "cannot open {}: {cause}; the file is damaged (truncated or overwritten) beyond what \
         the store recovers from after a crash; do not start member {name} on it: if the rest \
         of the cluster has a quorum, remove the member (`memberctl member remove {name}`), \
         delete {dir} and add it again as a new learner (`memberctl member add {name} \
         --learner --peer-urls URL`), otherwise restore {dir} from a backup",
        file.display(),
        name = opts.name,
        dir = dir.display(),
    )
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
    let store = open_store(&opts)?;
    let client = TcpListener::bind(client_addr)
        .await
        .with_context(|| format!("cannot listen for clients on {client_addr}"))?;
    let peer = TcpListener::bind(peer_addr)
        .await
        .with_context(|| format!("cannot listen for peers on {peer_addr}"))?;
    let need_tls = |urls: &[String], tls: &Option<TlsFiles>, flag: &str| -> anyhow::Result<()> {
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
    let client_server_tls = opts.client_tls.as_ref().map(TlsFiles::server).transpose()?;
    let peer_server_tls = opts.peer_tls.as_ref().map(TlsFiles::server).transpose()?;
    let peer_client_tls = opts.peer_tls.as_ref().map(TlsFiles::client).transpose()?;
    let (cluster_id, id, fresh_rank) = prepare(&opts, &store, peer_client_tls.as_ref()).await?;
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
    let (node, driver) = node::start(config, store, transport.clone())?;
    transport.attach(node.clone());
    eprintln!(
        "memberctl node {} ({id:016x}) of cluster {cluster_id:016x}: clients on {client_addr}, peers on {peer_addr}",
        opts.name
    );
    if opts.fault_injection {
        eprintln!(
            "memberctl node {}: fault injection is on (--fault-injection): any client can cut \
             this node off from its peers; for test clusters only",
            opts.name
        );
    }
    let mut watch = node.watch();
    tokio::spawn(async move {
        let mut leader = 0;
        while watch.changed().await.is_ok() {
            let v = watch.borrow().clone();
            if v.leader_id != leader {
                leader = v.leader_id;
                eprintln!(
                    "memberctl node: leader is now {leader:016x} (term {})",
                    v.term
                );
            }
        }
    });
    let (removed_tx, removed_rx) = tokio::sync::oneshot::channel::<()>();
    let tls = super::ServeTls {
        client: client_server_tls,
        peer: peer_server_tls,
        peer_client: peer_client_tls,
    };
    let server = tokio::spawn(super::serve(
        node,
        cluster_id,
        (client, peer),
        tls,
        opts.fault_injection.then_some(partition),
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
            match r.context("the raft driver panicked")?? {
                Stopped::Removed => eprintln!("memberctl node {}: this member was removed from the cluster; exiting", opts.name),
                Stopped::Shutdown => {}
            }
            Ok(())
        }
        r = &mut server => {
            r.context("the server panicked")?.context("the server failed")?;
            eprintln!("memberctl node {}: stopped", opts.name);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_ids_are_stable_and_order_free() {
        let a = initial_member_id(&["http://a:1".into(), "http://b:2".into()], "t");
        let b = initial_member_id(&["http://b:2".into(), "http://a:1".into()], "t");
        assert_eq!(a, b);
        assert_ne!(a, initial_member_id(&["http://a:1".into()], "t"));
        assert_ne!(
            a,
            initial_member_id(&["http://a:1".into(), "http://b:2".into()], "u")
        );
    }

    #[test]
    fn listen_urls_need_an_ip_and_port() {
        assert_eq!(socket_addr("http://127.0.0.1:2379").unwrap().port(), 2379);
        assert!(socket_addr("http://127.0.0.1").is_err());
        assert!(socket_addr("http://example.com:1").is_err());
        assert_eq!(socket_addr("https://127.0.0.1:1").unwrap().port(), 1);
        assert!(socket_addr("ftp://127.0.0.1:1").is_err());
    }
}
