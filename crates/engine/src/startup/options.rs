//! How a node is started: etcd's flags as options, and the listeners' TLS files.

use std::path::PathBuf;
use std::time::Duration;

use tonic::transport::{ClientTlsConfig, Identity};

use super::error::{because, StartupError};
use crate::dial::PeerTls;

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
    /// --initial-cluster, read once
    pub initial_cluster: InitialCluster,
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
    /// --max-request-bytes
    pub max_request_bytes: usize,
    /// --grpc-keepalive-interval and --grpc-keepalive-timeout
    pub keepalive: crate::server::Keepalive,
    /// --corrupt-check-time (0: no periodic corruption check)
    pub corrupt_check_time: Duration,
    /// --max-txn-ops
    pub max_txn_ops: usize,
    /// --auto-compaction-mode and --auto-compaction-retention
    pub auto_compaction: crate::server::AutoCompaction,
    /// TLS for client connections.
    pub client_tls: Option<ListenerTls>,
    /// TLS for peer connections (served and dialled).
    pub peer_tls: Option<ListenerTls>,
    /// etcd's --auto-tls and --peer-auto-tls: without certificate files, a
    /// self-signed certificate made at start serves the client (peer) URLs.
    pub auto_tls: AutoTls,
    /// --fault-injection: serve the fault-injection service (test clusters only).
    pub fault_injection: bool,
    /// --fault-stale-reads: a deliberate bug, linearizable reads served locally.
    pub fault_stale_reads: bool,
    /// --fault-ack-before-fsync: a deliberate bug, log writes acknowledged
    /// before they are written.
    pub fault_ack_before_fsync: bool,
    /// --force-new-cluster: keep this member's data, make it the only member.
    pub force_new_cluster: bool,
    /// --initial-corrupt-check (etcd's --experimental-initial-corrupt-check):
    /// a member with data compares its hash with its peers' before it serves.
    pub initial_corrupt_check: bool,
    /// --strict-reconfig-check (etcd's default: true).
    pub strict_reconfig_check: bool,
    /// --max-concurrent-streams: per client connection.
    pub max_concurrent_streams: u32,
    /// --watch-progress-notify-interval.
    pub watch_progress_notify: Duration,
    /// --auth-token: simple tokens or JWTs (their keys read).
    pub auth_token: crate::server::AuthToken,
    /// --auth-token-ttl: a simple token's life after its last use (zero:
    /// etcd's default, 300 s).
    pub auth_token_ttl: Duration,
    /// --bcrypt-cost: bcrypt's cost for passwords hashed here (4..=31).
    pub bcrypt_cost: u32,
}

/// `--initial-cluster` (of `node run` and `snapshot restore`) read once: the
/// initial members, each name with its peer URLs, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitialCluster {
    /// (name, peer URLs), a name once, its URLs in the order given.
    members: Vec<(String, Vec<String>)>,
}

impl InitialCluster {
    /// Reads the `name=url` items of `--initial-cluster` (split at commas;
    /// empty items are skipped); a name given twice has each of its URLs.
    pub fn parse(items: &[String]) -> Result<Self, StartupError> {
        let mut members: Vec<(String, Vec<String>)> = Vec::new();
        for item in items.iter().filter(|s| !s.is_empty()) {
            let Some((name, url)) = item
                .split_once('=')
                .filter(|(n, u)| !n.is_empty() && !u.is_empty())
            else {
                return Err(StartupError::Flags(format!(
                    "--initial-cluster item {item:?} is not name=url"
                )));
            };
            match members.iter_mut().find(|(n, _)| n == name) {
                Some((_, urls)) => urls.push(url.to_string()),
                None => members.push((name.to_string(), vec![url.to_string()])),
            }
        }
        Ok(InitialCluster { members })
    }

    /// The members: (name, peer URLs).
    pub fn members(&self) -> &[(String, Vec<String>)] {
        &self.members
    }

    /// The peer URLs of the member called `name`, if it is one.
    pub fn urls_of(&self, name: &str) -> Option<&[String]> {
        self.members
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, urls)| urls.as_slice())
    }
}

/// etcd's --auto-tls, --peer-auto-tls and --self-signed-cert-validity.
#[derive(Clone, Debug, Default)]
pub struct AutoTls {
    /// --auto-tls: a certificate for the client URLs.
    pub client: bool,
    /// --peer-auto-tls: a certificate for the peer URLs.
    pub peer: bool,
    /// Years the certificates made last (etcd's default: 1).
    pub validity_years: u32,
    /// The cipher suites and versions the listeners offer.
    pub policy: crate::listen::TlsPolicy,
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
    /// Certificates revoked (etcd's --client-crl-file, --peer-crl-file).
    pub crl: Option<PathBuf>,
    /// What the other side's certificate must name (etcd's
    /// --peer-cert-allowed-cn, --peer-cert-allowed-hostname).
    pub allowed: crate::listen::Allowed,
    /// The cipher suites and versions offered (etcd's --cipher-suites,
    /// --tls-min-version, --tls-max-version).
    pub policy: crate::listen::TlsPolicy,
    /// The certificate is one made at start (etcd's --auto-tls,
    /// --peer-auto-tls): peers dialled take any certificate, as etcd's.
    pub self_signed: bool,
}

impl ListenerTls {
    fn read(path: &std::path::Path) -> Result<Vec<u8>, StartupError> {
        std::fs::read(path)
            .map_err(|e| StartupError::Tls(because(format!("cannot read {}", path.display()), e)))
    }

    /// The server side.
    pub fn server(&self) -> Result<std::sync::Arc<rustls::ServerConfig>, StartupError> {
        crate::listen::server_config(
            &self.cert,
            &self.key,
            self.ca.as_deref(),
            (self.client_cert_auth, self.crl.as_deref()),
            &self.allowed,
            &self.policy,
        )
        .map_err(|e| StartupError::Tls(e.to_string()))
    }

    /// The client side, for dialling peers: the same certificate, the same
    /// CA (a self-signed certificate: any peer's).
    pub fn client(&self) -> Result<PeerTls, StartupError> {
        let cfg = ClientTlsConfig::new().identity(Identity::from_pem(
            Self::read(&self.cert)?,
            Self::read(&self.key)?,
        ));
        if self.self_signed {
            return Ok(PeerTls::self_signed(cfg));
        }
        let roots = match &self.ca {
            Some(ca) => Some(crate::trust::roots_from_pem(&Self::read(ca)?).map_err(|e| {
                StartupError::Tls(format!("cannot use {} as a CA: {e}", ca.display()))
            })?),
            None => None,
        };
        PeerTls::verified(cfg, roots).map_err(StartupError::Tls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_cluster_is_read_once_grouped_by_name() {
        let items: Vec<String> = ["a=http://a:1", "", "b=http://b:2", "a=http://a:3"]
            .map(String::from)
            .to_vec();
        let c = InitialCluster::parse(&items).unwrap();
        assert_eq!(c.members().len(), 2);
        assert_eq!(
            c.urls_of("a"),
            Some(&["http://a:1".to_string(), "http://a:3".to_string()][..])
        );
        assert_eq!(c.urls_of("c"), None);
        for bad in ["a", "=http://a:1", "a="] {
            let e = InitialCluster::parse(&[bad.to_string()]).unwrap_err();
            assert!(e.to_string().contains("is not name=url"), "{bad}: {e}");
        }
    }
}
