//! The listeners' TLS: a rustls server configuration from etcd's files
//! (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth).

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;

/// The server side of a listener: `cert` and `key` served; with `ca`, client
/// certificates signed by it are checked, and required when
/// `client_cert_auth`. HTTP/2 only (ALPN `h2`), as gRPC needs.
pub fn server_config(
    cert: &Path,
    key: &Path,
    ca: Option<&Path>,
    client_cert_auth: bool,
) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("cannot set up TLS")?;
    let builder = match ca {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for c in certs(ca)? {
                roots
                    .add(c)
                    .with_context(|| format!("cannot use {} as a CA certificate", ca.display()))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if client_cert_auth {
                verifier
            } else {
                verifier.allow_unauthenticated()
            };
            builder.with_client_cert_verifier(
                verifier
                    .build()
                    .with_context(|| format!("cannot use {} as a CA", ca.display()))?,
            )
        }
        None if client_cert_auth => bail!(
            "--client-cert-auth needs --trusted-ca-file (and --peer-client-cert-auth --peer-trusted-ca-file)"
        ),
        None => builder.with_no_client_auth(),
    };
    let key = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("cannot read a private key from {}", key.display()))?;
    let mut config = builder
        .with_single_cert(certs(cert)?, key)
        .with_context(|| format!("cannot use {} with its key", cert.display()))?;
    // gRPC over HTTP/2; HTTP/1.1 for the health checks, metrics and gateway.
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The certificates of a PEM file.
fn certs(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|i| i.collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("cannot read certificates from {}", path.display()))?;
    if certs.is_empty() {
        bail!("no certificate in {}: give a PEM file", path.display());
    }
    Ok(certs)
}
