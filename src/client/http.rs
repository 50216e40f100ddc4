//! Plain HTTP/1.1 GETs of a member's HTTP face (`/metrics`, `/version`) at
//! its client URL, over TCP or TLS with the same TLS files as the gRPC calls.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};

use super::IdentityPem;

/// The largest body read (etcd's `/metrics` is ~150 KB).
const MAX_BODY: usize = 32 << 20;

/// The TLS configuration for HTTPS GETs: the servers' CA from `--cacert`
/// (or no verification with `--insecure-skip-tls-verify`) and the client
/// certificate, offering HTTP/1.1.
pub(super) fn tls_config(
    ca: Option<&[u8]>,
    insecure: bool,
    identity: Option<&IdentityPem>,
) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = if insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(crate::trust::AcceptAny::new(provider)))
    } else if let Some(ca) = ca {
        // Verified as Go verifies (a certificate that is its own root too).
        let roots = crate::trust::roots_from_pem(ca).map_err(|e| format!("--cacert: {e}"))?;
        let verifier =
            crate::trust::server_verifier(roots).map_err(|e| format!("--cacert: {e}"))?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
    } else {
        builder.with_root_certificates(rustls::RootCertStore::empty())
    };
    let mut config = match identity {
        Some((cert, key)) => {
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
                .filter_map(Result::ok)
                .collect();
            let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| format!("--key: {e}"))?;
            builder
                .with_client_auth_cert(certs, key)
                .map_err(|e| format!("--cert/--key: {e}"))?
        }
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// GETs `path` from `base` (`http://host:port` or `https://…`) within
/// `timeout`, answering the body of a 200 answer; any other outcome is an
/// error that names the URL.
pub(super) async fn get(
    base: &str,
    path: &str,
    tls: Option<Arc<rustls::ClientConfig>>,
    timeout: Duration,
) -> Result<String, String> {
    let url = format!("{}{path}", base.trim_end_matches('/'));
    match tokio::time::timeout(timeout, fetch(base, path, tls)).await {
        Ok(Ok(body)) => Ok(body),
        Ok(Err(e)) => Err(format!("cannot read {url}: {e}")),
        Err(_) => Err(format!(
            "cannot read {url}: no answer within {}",
            humantime::format_duration(timeout)
        )),
    }
}

async fn fetch(
    base: &str,
    path: &str,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Result<String, String> {
    let u = url::Url::parse(base).map_err(|e| e.to_string())?;
    let authority = match u.port() {
        Some(p) => format!("{}:{p}", u.host_str().unwrap_or_default()),
        None => u.host_str().unwrap_or_default().to_string(),
    };
    let (tcp, host) = super::endpoint::dial(&u).await.map_err(|e| e.to_string())?;
    if u.scheme() == "https" {
        let config =
            tls.ok_or("https needs TLS settings (--cacert or --insecure-skip-tls-verify)")?;
        let name = ServerName::try_from(host).map_err(|e| e.to_string())?;
        let stream = tokio_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS: {e}"))?;
        exchange(stream, &authority, path).await
    } else {
        exchange(tcp, &authority, path).await
    }
}

/// One request on a fresh connection.
async fn exchange<S>(io: S, authority: &str, path: &str) -> Result<String, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| why(&e))?;
    let driver = tokio::spawn(conn);
    // Gzipped where the server can (etcd's /metrics, the engine's): a poll
    // every half second then costs the member's link a tenth of the page.
    let request = hyper::Request::get(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::ACCEPT_ENCODING, "gzip")
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let answer = async {
        let response = sender.send_request(request).await.map_err(|e| why(&e))?;
        let status = response.status();
        let gzipped = response
            .headers()
            .get(hyper::header::CONTENT_ENCODING)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
        let body = Limited::new(response.into_body(), MAX_BODY)
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        let body = if gzipped {
            gunzip(&body, MAX_BODY)?
        } else {
            body
        };
        if status != hyper::StatusCode::OK {
            let text = String::from_utf8_lossy(&body);
            return Err(format!("HTTP {status}: {}", text.trim()));
        }
        String::from_utf8(body.to_vec()).map_err(|_| "the answer is not UTF-8".to_string())
    }
    .await;
    driver.abort();
    answer
}

/// A gzipped body, unpacked: refused when it unpacks to more than `limit`
/// bytes.
fn gunzip(body: &[u8], limit: usize) -> Result<Bytes, String> {
    use std::io::Read;
    let mut out = Vec::with_capacity(body.len() * 8);
    flate2::read::GzDecoder::new(body)
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the gzipped answer does not unpack: {e}"))?;
    if out.len() > limit {
        return Err(format!("the answer unpacks to more than {limit} bytes"));
    }
    Ok(Bytes::from(out))
}

/// A failed exchange in words: a server that does not speak HTTP/1.1 here
/// (a gRPC-only port) is named as such.
fn why(e: &hyper::Error) -> String {
    if e.is_parse() || e.is_canceled() || e.is_incomplete_message() {
        format!("no HTTP/1.1 answer ({e}): this URL serves only gRPC")
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::gunzip;
    use std::io::Write;

    fn zipped(bytes: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(bytes).unwrap();
        z.finish().unwrap()
    }

    #[test]
    fn a_gzipped_answer_unpacks_within_its_limit() {
        let page = b"etcd_server_has_leader 1\n".repeat(100);
        assert_eq!(&gunzip(&zipped(&page), page.len()).unwrap()[..], &page[..]);
        let e = gunzip(&zipped(&page), page.len() - 1).unwrap_err();
        assert!(e.contains("more than"), "{e}");
        let e = gunzip(b"not gzip", 100).unwrap_err();
        assert!(e.contains("does not unpack"), "{e}");
    }
}
