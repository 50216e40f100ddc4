//! Endpoint normalisation: `host:port` or a URL in, `scheme://host:port` out, or a usage error naming the endpoint;
//! and the TCP connection to an endpoint.

use std::io;

use tokio::net::TcpStream;

use crate::error::Error;

/// Turns `host:port` into `http://host:port` and checks the scheme.
pub fn normalize_endpoint(raw: &str) -> Result<String, Error> {
    normalize_with(raw, "http")
}

/// A TCP connection to `url`'s host and port (the scheme's default port
/// when it names none), without delay: each flush leaves as its own
/// message. Also returns the host (an IPv6 literal without its brackets),
/// the name a TLS handshake checks.
pub(super) async fn dial(url: &url::Url) -> io::Result<(TcpStream, String)> {
    let invalid =
        |what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("{url}: {what}"));
    let host = url
        .host_str()
        .ok_or_else(|| invalid("no host"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = url
        .port_or_known_default()
        .ok_or_else(|| invalid("no port"))?;
    let tcp = TcpStream::connect((host.as_str(), port)).await?;
    tcp.set_nodelay(true)?;
    Ok((tcp, host))
}

/// Like [`normalize_endpoint`], with `scheme` for endpoints that have none.
pub(super) fn normalize_with(raw: &str, scheme: &str) -> Result<String, Error> {
    let raw = raw.trim().trim_end_matches('/');
    if raw.is_empty() {
        return Err(Error::usage(
            "an endpoint is empty; give --endpoints host:port[,host:port]",
        ));
    }
    let url = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("{scheme}://{raw}")
    };
    let parsed = url::Url::parse(&url).map_err(|e| {
        Error::usage(format!(
            "endpoint {raw:?} is not a URL ({e}); write it as http://host:port"
        ))
    })?;
    match parsed.scheme() {
        "http" | "https" => {}
        s => {
            return Err(Error::usage(format!(
                "endpoint {raw:?} has scheme {s:?}; use http://host:port"
            )))
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) || parsed.port().is_none() {
        return Err(Error::usage(format!(
            "endpoint {raw:?} needs a host and a port, e.g. 127.0.0.1:2379"
        )));
    }
    Ok(url)
}
