//! The node's listeners: accepted TCP connections, TLS when configured, and
//! the `:authority` repair, handed to tonic as a stream of connections.

mod allowed;
mod authority;
mod tls;

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

pub use allowed::Allowed;
pub use authority::{Repaired, MAX_BLOCK as MAX_HEADER_BLOCK};
pub use tls::{server_config, TlsError, TlsPolicy, TlsVersion};

/// How long a TLS handshake may take before the connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Accepted connections waiting for the server to take them.
const BACKLOG: usize = 64;

/// A served connection: read through the `:authority` repair.
pub type Conn = authority::Repaired<Stream>;

/// An accepted connection: TCP, or TLS over TCP.
pub enum Stream {
    /// Without TLS.
    Plain(TcpStream),
    /// After the TLS handshake; the user its client certificate names.
    Tls(Box<TlsStream<TcpStream>>, Option<String>),
}

/// What a connection tells each of its requests (in their extensions).
#[derive(Clone, Debug)]
pub struct ConnInfo {
    /// Its TCP addresses.
    pub tcp: TcpConnectInfo,
    /// With `--client-cert-auth`: the common name of the client
    /// certificate the handshake verified, which etcd takes as the user of
    /// a request without a token.
    pub cert_user: Option<String>,
}

impl Connected for Conn {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> ConnInfo {
        let (tcp, cert_user) = match self.get_ref() {
            Stream::Plain(s) => (s, None),
            Stream::Tls(s, user) => (s.get_ref().0, user.clone()),
        };
        ConnInfo {
            tcp: tcp.connect_info(),
            cert_user,
        }
    }
}

/// The common name of the client certificate `tls` verified, if any.
fn cert_user(tls: &TlsStream<TcpStream>) -> Option<String> {
    let leaf = tls.get_ref().1.peer_certificates()?.first()?;
    let cn = crate::der::read(leaf).ok()?.subject_cn?;
    (!cn.is_empty()).then_some(cn)
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s, _) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s, _) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s, _) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s, _) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s, _) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s, _) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// Accepts connections on `listener` until the receiver is dropped: TCP_NODELAY
/// (with Nagle's algorithm a small HTTP/2 frame written after another waits
/// for the peer's delayed ACK), then the TLS handshake when `tls` is given
/// (each on its own task, so a slow client holds up no other), then, when
/// `repair`, the `:authority` repair (the client listener: etcdctl's calls;
/// the peer listener serves memberctl's own transport and forwarding, whose
/// authority is always valid, and reads straight through). With
/// `cert_users` (`--client-cert-auth`), each connection carries the user
/// its client certificate names.
pub fn incoming(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    repair: bool,
    cert_users: bool,
) -> impl futures_util::Stream<Item = Result<Conn, std::io::Error>> + Send + 'static {
    let wrap = move |s: Stream| {
        if repair {
            authority::Repaired::new(s)
        } else {
            authority::Repaired::unrepaired(s)
        }
    };
    let (tx, rx) = tokio::sync::mpsc::channel(BACKLOG);
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    tokio::spawn(async move {
        loop {
            let tcp = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = tx.closed() => return,
            };
            let tcp = match tcp {
                Ok((tcp, _)) => tcp,
                // Out of descriptors and the like: keep serving the others.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let _ = tcp.set_nodelay(true);
            match &acceptor {
                None => {
                    if tx
                        .send(authority::Repaired::new(Stream::Plain(tcp)))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Some(acceptor) => {
                    let (acceptor, tx) = (acceptor.clone(), tx.clone());
                    tokio::spawn(async move {
                        let shaken =
                            tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await;
                        if let Ok(Ok(tls)) = shaken {
                            let user = cert_users.then(|| cert_user(&tls)).flatten();
                            let conn = Stream::Tls(Box::new(tls), user);
                            let _ = tx.send(wrap(conn)).await;
                        }
                    });
                }
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok)
}
