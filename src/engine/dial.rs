//! One connection to a peer's raft service: dialled with a timeout, over TLS when its URL is `https://`; the raft stream's with wide HTTP/2 windows, the prober's with the defaults.

use std::time::Duration;

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
    tls: Option<&ClientTlsConfig>,
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
        ep = ep.tls_config(tls.clone()).ok()?;
    }
    let ch = tokio::time::timeout(CONNECT_TIMEOUT, ep.connect())
        .await
        .ok()?
        .ok()?;
    Some(RaftClient::new(ch))
}
