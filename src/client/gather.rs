//! A client connection whose writes are gathered until it is flushed, and
//! one flush in a row is put off until the runtime's other ready tasks have
//! run: a request leaves in one system call (HTTP/2's preface, SETTINGS,
//! HEADERS and DATA together) instead of four, which the loopback stack and
//! the server each handle once.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::endpoint::dial;

/// Writes held beyond this are sent before more are taken.
const HOLD_LIMIT: usize = 64 * 1024;

/// A stream whose writes wait in `held` until the writer flushes.
pub(super) struct Gathered<T> {
    io: T,
    held: Vec<u8>,
}

impl<T> Gathered<T> {
    fn new(io: T) -> Self {
        Gathered {
            io,
            held: Vec::new(),
        }
    }
}

impl<T: AsyncWrite + Unpin> Gathered<T> {
    /// Sends what is held.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.held.is_empty() {
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &self.held))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.held.drain(..n);
        }
        Poll::Ready(Ok(()))
    }

    /// Room for more: what is held is sent first when it has reached the limit.
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.held.len() >= HOLD_LIMIT {
            ready!(self.poll_send(cx))?;
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Gathered<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Gathered<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_room(cx))?;
        self.held.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_room(cx))?;
        let mut n = 0;
        for b in bufs {
            self.held.extend_from_slice(b);
            n += b.len();
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_send(cx))?;
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_send(cx))?;
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// Opens a TCP connection to `url` ([`dial`]), its writes gathered.
pub(super) async fn connect(url: url::Url) -> io::Result<TokioIo<Gathered<TcpStream>>> {
    let (tcp, _) = dial(&url).await?;
    Ok(TokioIo::new(Gathered::new(tcp)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Two writes and a flush arrive as one read, and nothing before the flush.
    #[tokio::test]
    async fn writes_leave_together_at_the_flush() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let url = url::Url::parse(&format!("http://{addr}")).unwrap();
        let (client, accepted) = tokio::join!(connect(url), listener.accept());
        let mut client = client.unwrap().into_inner();
        let (mut server, _) = accepted.unwrap();
        client.write_all(b"PRI ").await.unwrap();
        client.write_all(b"SETTINGS").await.unwrap();
        let mut buf = [0u8; 64];
        let early =
            tokio::time::timeout(std::time::Duration::from_millis(50), server.read(&mut buf)).await;
        assert!(early.is_err(), "bytes left before the flush");
        client.flush().await.unwrap();
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), server.read(&mut buf))
            .await
            .expect("the flush sends")
            .unwrap();
        assert_eq!(&buf[..n], b"PRI SETTINGS");
    }
}
