//! One connection to a peer's raft service: dialled with a timeout, over TLS when its URL is `https://`; the raft stream's with wide HTTP/2 windows, the prober's with the defaults.

use std::time::Duration;

use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::CertificateDer;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

use crate::proto::memberctl_v1::raft_client::RaftClient;

/// How long dialling a peer may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// HTTP/2 windows of a connection: the stream's and the connection's, or
/// the defaults (`None`: a probe is a few bytes).
pub type Windows = Option<(u32, u32)>;

/// A client of the peer at `url` on a connection of its own, or None when it
/// cannot be dialled within [`CONNECT_TIMEOUT`].
pub async fn dial(
    url: &str,
    tls: Option<&PeerTls>,
    windows: Windows,
) -> Option<RaftClient<Channel>> {
    let mut ep = Endpoint::from_shared(url.to_string())
        .ok()?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true);
    if let Some((stream, connection)) = windows {
        ep = ep
            .initial_stream_window_size(stream)
            .initial_connection_window_size(connection);
    }
    if let Some(tls) = tls.filter(|_| url.starts_with("https://")) {
        ep = tls.endpoint(ep).ok()?;
    }
    let ch = tokio::time::timeout(CONNECT_TIMEOUT, ep.connect())
        .await
        .ok()?
        .ok()?;
    Some(RaftClient::new(ch))
}

/// How this member dials its peers over TLS: its own certificate, and the
/// CA its peers' certificates chain to (verified as Go verifies them:
/// [`crate::trust`]) — or, with etcd's `--peer-auto-tls`, whatever
/// certificate a peer shows (each member's is self-signed; etcd skips
/// verification there too).
#[derive(Clone, Debug)]
pub struct PeerTls {
    config: ClientTlsConfig,
    verifier: Option<Arc<dyn ServerCertVerifier>>,
}

impl PeerTls {
    /// Peers verified against `roots` (none: against nothing, so no peer
    /// over TLS verifies).
    pub fn verified(
        config: ClientTlsConfig,
        roots: Option<Vec<CertificateDer<'static>>>,
    ) -> Result<PeerTls, String> {
        let verifier = roots.map(crate::trust::server_verifier).transpose()?;
        Ok(PeerTls { config, verifier })
    }

    /// Peers' self-signed certificates taken unverified (etcd's
    /// `--peer-auto-tls`); their handshake signatures are still checked.
    pub fn self_signed(config: ClientTlsConfig) -> PeerTls {
        PeerTls {
            config,
            verifier: Some(Arc::new(crate::trust::AcceptAny::new(Arc::new(
                rustls::crypto::ring::default_provider(),
            )))),
        }
    }

    /// `ep` dialling over this TLS.
    pub fn endpoint(&self, ep: Endpoint) -> Result<Endpoint, tonic::transport::Error> {
        match &self.verifier {
            Some(v) => ep.tls_config_with_verifier(self.config.clone(), v.clone()),
            None => ep.tls_config(self.config.clone()),
        }
    }
}
