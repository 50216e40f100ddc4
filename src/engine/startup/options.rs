//! How a node is started: etcd's flags as options, and the listeners' TLS files.

use std::path::PathBuf;
use std::time::Duration;

use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use super::error::{because, StartupError};

/// How a node is started (etcd's flags).
#[derive(Clone, Debug)]
pub struct NodeOptions {
    /// --name
    pub name: String,
    /// --data-dir
    pub data_dir: PathBuf,
    /// --listen-client-urls
    pub listen_client_urls: Vec<String>,
    /// --listen-metrics-urls: plain HTTP, /metrics and the health checks
    pub listen_metrics_urls: Vec<String>,
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
    /// --quota-backend-bytes (etcd's default when 0 is given: 2 GiB)
    pub quota_backend_bytes: u64,
    /// TLS for client connections.
    pub client_tls: Option<ListenerTls>,
    /// TLS for peer connections (served and dialled).
    pub peer_tls: Option<ListenerTls>,
    /// --fault-injection: serve the fault-injection service (test clusters only).
    pub fault_injection: bool,
    /// --fault-stale-reads: a deliberate bug, linearizable reads served locally.
    pub fault_stale_reads: bool,
    /// --fault-ack-before-fsync: a deliberate bug, log writes acknowledged
    /// before they are written.
    pub fault_ack_before_fsync: bool,
    /// --force-new-cluster: keep this member's data, make it the only member.
    pub force_new_cluster: bool,
}

/// A listener's TLS files (etcd's --cert-file, --key-file, --trusted-ca-file, --client-cert-auth).
#[derive(Clone, Debug)]
pub struct ListenerTls {
    /// The certificate served.
    pub cert: PathBuf,
    /// Its key.
    pub key: PathBuf,
    /// CA for the other side's certificates.
    pub ca: Option<PathBuf>,
    /// Require the other side to present a certificate signed by `ca`.
    pub client_cert_auth: bool,
}

impl ListenerTls {
    fn read(path: &std::path::Path) -> Result<Vec<u8>, StartupError> {
        std::fs::read(path)
            .map_err(|e| StartupError::Tls(because(format!("cannot read {}", path.display()), e)))
    }

    /// The server side.
    pub fn server(&self) -> Result<std::sync::Arc<rustls::ServerConfig>, StartupError> {
        crate::engine::listen::server_config(
            &self.cert,
            &self.key,
            self.ca.as_deref(),
            self.client_cert_auth,
        )
        .map_err(|e| StartupError::Tls(e.to_string()))
    }

    /// The client side, for dialling peers: the same certificate, the same CA.
    pub fn client(&self) -> Result<ClientTlsConfig, StartupError> {
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
