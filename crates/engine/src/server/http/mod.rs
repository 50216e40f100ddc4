//! The client port's HTTP face beside gRPC, as etcd's: a layer in front of
//! the gRPC services that answers every request that is not gRPC (health
//! checks, `/version`, `/metrics`, `/debug/vars`, the JSON gateway) and counts the gRPC
//! calls it passes on (`grpc_server_*`).

mod gateway;
mod health;
mod metered;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use hyper::body::Incoming;
use prost::bytes::Bytes;
use tonic::body::Body;

use super::Shared;
use crate::metrics;

/// Puts the HTTP face in front of a listener's gRPC services.
#[derive(Clone)]
pub struct FaceLayer {
    shared: Arc<Shared>,
    /// Which paths are served besides gRPC.
    serves: Serves,
}

/// What a listener serves besides gRPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serves {
    /// The client URL: health, version, metrics, the gateway; gRPC counted.
    Client,
    /// `--listen-metrics-urls`: metrics and health only (no gRPC behind it).
    Metrics,
}

impl FaceLayer {
    /// The face for a listener that serves `serves`.
    pub fn new(shared: Arc<Shared>, serves: Serves) -> Self {
        FaceLayer { shared, serves }
    }
}

impl<S> tower::Layer<S> for FaceLayer {
    type Service = Face<S>;

    fn layer(&self, inner: S) -> Face<S> {
        Face {
            inner,
            shared: self.shared.clone(),
            serves: self.serves,
        }
    }
}

/// The HTTP face around the gRPC services `S`.
#[derive(Clone)]
pub struct Face<S> {
    inner: S,
    shared: Arc<Shared>,
    serves: Serves,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> tower::Service<Request<Body>> for Face<S>
where
    S: tower::Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let grpc = req
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
        if grpc && self.serves != Serves::Metrics {
            let series = metrics::get().method(req.uri().path());
            // The service that was polled ready answers; a clone takes its place.
            let clone = self.inner.clone();
            let mut inner = std::mem::replace(&mut self.inner, clone);
            return match series {
                None => Box::pin(inner.call(req)),
                Some(series) => Box::pin(metered::call(inner, req, series)),
            };
        }
        if self.serves == Serves::Client && gateway::serves(req.uri().path()) {
            // grpc-gateway's answers: its routes take POST only.
            let plain = "text/plain; charset=utf-8";
            let answer = match gateway::route(req.uri().path()) {
                Some(method) if req.method() == Method::POST => {
                    let inner = self.inner.clone();
                    return Box::pin(async move { Ok(gateway::call(inner, method, req).await) });
                }
                Some(_) => text(
                    StatusCode::METHOD_NOT_ALLOWED,
                    plain,
                    "Method Not Allowed\n",
                ),
                None => text(StatusCode::NOT_FOUND, plain, "Not Found\n"),
            };
            return Box::pin(async move { Ok(answer) });
        }
        let shared = self.shared.clone();
        let serves = self.serves;
        Box::pin(async move { Ok(answer(&shared, serves, req).await) })
    }
}

/// Serves metrics and the health checks over plain HTTP/1.1 on `listener`
/// (`--listen-metrics-urls`) until the server stops.
pub async fn serve_metrics(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    let mut stopping = shared.stopping.clone();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopping.wait_for(|s| *s) => return,
        };
        let Ok((tcp, _)) = accepted else {
            // Out of descriptors and the like: keep serving.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let shared = shared.clone();
                async move {
                    let req = req.map(Body::new);
                    Ok::<_, Infallible>(answer(&shared, Serves::Metrics, req).await)
                }
            });
            let io = hyper_util::rt::TokioIo::new(tcp);
            // A connection that breaks off affects no other.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// The answer to a request that is not gRPC.
async fn answer(shared: &Arc<Shared>, serves: Serves, req: Request<Body>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let get = matches!(*req.method(), Method::GET | Method::HEAD);
    match (serves, get, path.as_str()) {
        (_, true, "/health") => health::health(shared, &query).await,
        (_, true, "/livez") => health::livez(shared, None, &query).await,
        (_, true, "/readyz") => health::readyz(shared, None, &query).await,
        (_, true, p) if p.starts_with("/livez/") => {
            health::livez(shared, Some(&p["/livez/".len()..]), &query).await
        }
        (_, true, p) if p.starts_with("/readyz/") => {
            health::readyz(shared, Some(&p["/readyz/".len()..]), &query).await
        }
        (_, true, "/metrics") => {
            let scrape = health::scrape(shared);
            // As etcd's promhttp: gzip when the scraper takes it. The page
            // (200 KB with three peers) is rendered and packed on a thread
            // of its own, not on the runtime the clients' requests wait for.
            let zip = accepts_gzip(req.headers());
            let built = tokio::task::spawn_blocking(move || {
                let page = metrics::get().render(&scrape);
                let zipped = if zip { gzip(page.as_bytes()) } else { None };
                (page, zipped)
            })
            .await;
            let Ok((page, zipped)) = built else {
                return text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "text/plain; charset=utf-8",
                    "the metrics page could not be built\n",
                );
            };
            let plain = "text/plain; version=0.0.4; charset=utf-8";
            match zipped {
                Some(zipped) => {
                    let mut r = text(StatusCode::OK, plain, zipped);
                    r.headers_mut()
                        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                    r
                }
                None => text(StatusCode::OK, plain, page),
            }
        }
        (Serves::Client, true, "/version") => {
            text(StatusCode::OK, "application/json", health::version_json())
        }
        // etcd serves Go's expvar here (GET only); its `cmdline` is what
        // memberctl reads (whether a member runs with --force-new-cluster).
        (Serves::Client, true, "/debug/vars") if req.method() == Method::GET => text(
            StatusCode::OK,
            "application/json; charset=utf-8",
            debug_vars(),
        ),
        _ => not_found(),
    }
}

/// `/debug/vars`: the process's arguments as `cmdline`, as Go's expvar
/// gives them (etcd's other variables — memory statistics, raft's status —
/// are not served).
fn debug_vars() -> String {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!("{}\n", serde_json::json!({ "cmdline": args }))
}

/// Whether a request's `Accept-Encoding` takes gzip (as promhttp reads it:
/// any listed coding that starts with `gzip`).
fn accepts_gzip(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|c| c.trim().starts_with("gzip"))
}

/// `bytes` gzipped (fast: a page is compressed at every scrape).
fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4),
        flate2::Compression::fast(),
    );
    z.write_all(bytes).ok()?;
    z.finish().ok()
}

/// etcd's (Go's) answer to a path it does not serve.
fn not_found() -> Response<Body> {
    text(
        StatusCode::NOT_FOUND,
        "text/plain; charset=utf-8",
        "404 page not found\n",
    )
}

/// A whole answer with etcd's CORS headers.
fn text(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Body::new(http_body_util::Full::new(body.into())));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        "access-control-allow-headers",
        HeaderValue::from_static("accept, content-type, authorization"),
    );
    h.insert(
        "access-control-allow-methods",
        HeaderValue::from_static("POST, GET, OPTIONS, PUT, DELETE"),
    );
    h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    r
}
