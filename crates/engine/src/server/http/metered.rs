//! A gRPC call counted as etcd's go-grpc-prometheus middleware counts it:
//! started when it arrives, handled with its status code when the answer's
//! status is known (in the headers of a trailers-only answer, else in the
//! trailers), bytes both ways for `etcd_network_client_grpc_*_bytes_total`.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{HeaderMap, Request, Response};
use http_body::Frame;
use prost::bytes::Bytes;
use tonic::body::Body;

use crate::metrics::{self, MethodSeries};

/// gRPC's status code Canceled: the client went away before the answer ended.
const CANCELED: usize = 1;

/// Passes `req` to `inner`, counting the call in `series`.
pub async fn call<S>(
    mut inner: S,
    req: Request<Body>,
    series: &'static MethodSeries,
) -> Result<Response<Body>, S::Error>
where
    S: tower::Service<Request<Body>, Response = Response<Body>>,
{
    series.started();
    let start = Instant::now();
    let req = req.map(|b| {
        Body::new(Counted {
            inner: b,
            sent: false,
            done: None,
        })
    });
    let response = inner.call(req).await?;
    if let Some(code) = status(response.headers()) {
        series.done(code, start.elapsed());
        return Ok(response.map(|b| {
            Body::new(Counted {
                inner: b,
                sent: true,
                done: None,
            })
        }));
    }
    Ok(response.map(|b| {
        Body::new(Counted {
            inner: b,
            sent: true,
            done: Some(Done {
                series,
                start,
                recorded: false,
            }),
        })
    }))
}

/// The `grpc-status` in `headers`, if there is one.
fn status(headers: &HeaderMap) -> Option<usize> {
    headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// An answer's end, to be recorded once.
struct Done {
    series: &'static MethodSeries,
    start: Instant,
    recorded: bool,
}

impl Done {
    fn record(&mut self, code: usize) {
        if !std::mem::replace(&mut self.recorded, true) {
            self.series.done(code, self.start.elapsed());
        }
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        self.record(CANCELED);
    }
}

/// A body whose data is counted (request bodies as received, answers as
/// sent), and whose trailers, for an answer, end the call.
struct Counted {
    inner: Body,
    /// An answer (else a request).
    sent: bool,
    /// For an answer whose status comes in its trailers.
    done: Option<Done>,
}

impl http_body::Body for Counted {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let m = metrics::get();
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let counter = if self.sent {
                        &m.grpc_sent_bytes
                    } else {
                        &m.grpc_received_bytes
                    };
                    counter.inc_by(data.len() as u64);
                } else if let Some(trailers) = frame.trailers_ref() {
                    let code = status(trailers).unwrap_or(0);
                    if let Some(d) = self.done.as_mut() {
                        d.record(code);
                    }
                }
            }
            Poll::Ready(None) => {
                if let Some(d) = self.done.as_mut() {
                    d.record(0);
                }
            }
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
