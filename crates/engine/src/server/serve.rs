//! The server's entry: the client, peer and metrics listeners, each with
//! its services (TLS, the HTTP face, fault injection), until shutdown.

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Server;

use super::{
    access, auth, cluster, compactor, corruption, election, expiry, fault, forward, http, kv,
    lease, lessor, lock, maintenance, membership, raft, watch, Limits, Shared,
};
use crate::listen;
use crate::node::Node;
use crate::proto::etcdserverpb::auth_server::AuthServer;
use crate::proto::etcdserverpb::cluster_server::ClusterServer;
use crate::proto::etcdserverpb::kv_server::KvServer;
use crate::proto::etcdserverpb::lease_server::LeaseServer;
use crate::proto::etcdserverpb::maintenance_server::MaintenanceServer;
use crate::proto::etcdserverpb::watch_server::WatchServer;
use crate::proto::memberctl_v1::fault_server::FaultServer;
use crate::proto::memberctl_v1::membership_server::MembershipServer;
use crate::proto::memberctl_v1::raft_server::RaftServer;
use crate::proto::v3electionpb::election_server::ElectionServer;
use crate::proto::v3lockpb::lock_server::LockServer;
use crate::transport::{Partition, MAX_MESSAGE, PEER_CONNECTION_WINDOW, PEER_STREAM_WINDOW};

/// The largest request header list served (the listener repairs blocks up to this too).
const MAX_HEADER_LIST: u32 = listen::MAX_HEADER_BLOCK as u32;

/// TLS for the node's listeners and for dialling peers.
#[derive(Clone, Default)]
pub struct ServeTls {
    /// Served on the client URL.
    pub client: Option<Arc<rustls::ServerConfig>>,
    /// `--client-cert-auth`: a request without a token comes from the user
    /// its client certificate names (its common name), as in etcd.
    pub client_cert_auth: bool,
    /// Served on the peer URL.
    pub peer: Option<Arc<rustls::ServerConfig>>,
    /// Used to dial peers (forwarding to the leader).
    pub peer_client: Option<crate::dial::PeerTls>,
}

/// What fault injection (`--fault-injection`) serves and switches on.
pub struct Faults {
    /// The peers whose raft traffic is dropped.
    pub partition: Arc<Partition>,
    /// `--fault-stale-reads`.
    pub stale_reads: bool,
}

/// What a node serves with (etcd's flags the services read).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// What etcd's flags limit: the quota, request sizes, automatic compaction.
    pub limits: Limits,
    /// --grpc-keepalive-interval and --grpc-keepalive-timeout.
    pub keepalive: Keepalive,
    /// --corrupt-check-time: how often the leader compares hashes (0: never).
    pub corrupt_check: std::time::Duration,
    /// --auth-token and --bcrypt-cost.
    pub auth: super::AuthOptions,
}

/// etcd's gRPC keepalive of client connections: an idle connection is
/// pinged after `interval`, and closed when the ping is not answered within
/// `timeout`.
#[derive(Clone, Copy, Debug)]
pub struct Keepalive {
    /// --grpc-keepalive-interval (etcd's default 2h).
    pub interval: std::time::Duration,
    /// --grpc-keepalive-timeout (etcd's default 20s).
    pub timeout: std::time::Duration,
}

impl Default for Keepalive {
    fn default() -> Self {
        Keepalive {
            interval: std::time::Duration::from_secs(2 * 3600),
            timeout: std::time::Duration::from_secs(20),
        }
    }
}

/// Where a node listens.
pub struct Listeners {
    /// Clients: gRPC and the HTTP face.
    pub client: TcpListener,
    /// Peers: the raft transport, and the client services for forwarded requests.
    pub peer: TcpListener,
    /// `--listen-metrics-urls`: metrics and health checks over plain HTTP.
    pub metrics: Vec<TcpListener>,
}

/// Serves the client services on `client` and the raft transport (plus the
/// client services, for requests forwarded to the leader) on `peer`, and
/// metrics and health checks on each of `metrics`, until `shutdown`
/// completes. With a `partition` (fault injection on), also the
/// fault-injection service on both, and incoming raft messages from isolated
/// peers are dropped.
pub async fn serve(
    node: Node,
    cluster_id: u64,
    listeners: Listeners,
    tls: ServeTls,
    faults: Option<Faults>,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), tonic::transport::Error> {
    let keepalive = settings.keepalive;
    let corrupt_check = settings.corrupt_check;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let shared = Arc::new(Shared {
        node,
        forward: forward::Forwarder::new(tls.peer_client.clone()),
        cluster_id,
        stale_reads: faults.as_ref().is_some_and(|f| f.stale_reads),
        partition: faults.map(|f| f.partition),
        lessor: lessor::Lessor::default(),
        stopping: stop_rx.clone(),
        limits: settings.limits,
        auth: settings.auth,
    });
    let Listeners {
        client,
        peer,
        metrics,
    } = listeners;
    let lessor = tokio::spawn(expiry::run(shared.clone()));
    let corruption = tokio::spawn(corruption::run(shared.clone(), corrupt_check));
    let compactor = tokio::spawn(compactor::run(
        shared.clone(),
        shared.limits.auto_compaction,
    ));
    for listener in metrics {
        tokio::spawn(http::serve_metrics(listener, shared.clone()));
    }
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    let client_services = |s: &Arc<Shared>, peer: bool| {
        let access = access::Access::new(s.clone(), peer);
        (
            (
                InterceptedService::new(
                    ClusterServer::new(cluster::ClusterService(s.clone())),
                    access.clone(),
                ),
                InterceptedService::new(
                    MaintenanceServer::new(maintenance::MaintenanceService(s.clone())),
                    access.clone(),
                ),
                InterceptedService::new(
                    KvServer::new(kv::KvService(s.clone()))
                        .max_decoding_message_size(s.limits.max_recv_bytes()),
                    access.clone(),
                ),
                InterceptedService::new(
                    MembershipServer::new(membership::MembershipService(s.clone())),
                    access.clone(),
                ),
            ),
            (
                InterceptedService::new(
                    WatchServer::new(watch::WatchService(s.clone())),
                    access.clone(),
                ),
                InterceptedService::new(
                    LeaseServer::new(lease::LeaseService(s.clone())),
                    access.clone(),
                ),
                InterceptedService::new(
                    AuthServer::new(auth::AuthService(s.clone())),
                    access.clone(),
                ),
            ),
        )
    };
    let ((c1, m1, k1, j1), (w1, l1, a1)) = client_services(&shared, false);
    let ((c2, m2, k2, j2), (w2, l2, a2)) = client_services(&shared, true);
    let fault = || {
        shared
            .partition
            .clone()
            .map(|p| FaultServer::new(fault::FaultService::new(p, shared.node.view().id)))
    };
    let raft = RaftServer::new(raft::RaftService(shared.clone(), stop_rx.clone()))
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    // Header lists up to 1 MiB, as the listener's repair re-encodes (Go's
    // gRPC server, etcd's, takes 16 MiB; hyper's default is 16 KiB).
    // HTTP/1.1 beside HTTP/2 on the client port, as etcd: health checks,
    // metrics and the JSON gateway answered in front of the gRPC services.
    let client_server = Server::builder()
        .http2_max_header_list_size(MAX_HEADER_LIST)
        .http2_keepalive_interval(Some(keepalive.interval))
        .http2_keepalive_timeout(Some(keepalive.timeout))
        .max_concurrent_streams(Some(shared.node.config().max_concurrent_streams))
        .accept_http1(true)
        .layer(http::FaceLayer::new(shared.clone(), http::Serves::Client))
        .add_service(c1)
        .add_service(m1)
        .add_service(k1)
        .add_service(j1)
        .add_service(w1)
        .add_service(l1)
        .add_service(a1)
        .add_service(InterceptedService::new(
            LockServer::new(lock::LockService(shared.clone())),
            access::Access::new(shared.clone(), false),
        ))
        .add_service(InterceptedService::new(
            ElectionServer::new(election::ElectionService(shared.clone())),
            access::Access::new(shared.clone(), false),
        ))
        .add_optional_service(fault())
        .serve_with_incoming_shutdown(
            listen::incoming(client, tls.client.clone(), true, tls.client_cert_auth),
            stopped(stop_rx.clone()),
        );
    // Large HTTP/2 windows: appends and snapshots are up to megabytes.
    let peer_server = Server::builder()
        .http2_max_header_list_size(MAX_HEADER_LIST)
        .initial_stream_window_size(PEER_STREAM_WINDOW)
        .initial_connection_window_size(PEER_CONNECTION_WINDOW)
        .add_service(raft)
        .add_service(c2)
        .add_service(m2)
        .add_service(k2)
        .add_service(j2)
        .add_service(w2)
        .add_service(l2)
        .add_service(a2)
        .add_optional_service(fault())
        .serve_with_incoming_shutdown(
            listen::incoming(peer, tls.peer.clone(), false, false),
            stopped(stop_rx),
        );
    let served = tokio::try_join!(client_server, peer_server);
    lessor.abort();
    compactor.abort();
    corruption.abort();
    served?;
    Ok(())
}
