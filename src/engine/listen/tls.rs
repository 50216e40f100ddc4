//! The listeners' TLS: a rustls server configuration from etcd's files
//! (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth).

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, CertificateRevocationListDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;

use super::allowed::{Allowed, AllowedVerifier};

/// Why a listener's TLS files could not be used: the file and the cause.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(String);

fn fail(what: String) -> impl FnOnce(rustls::Error) -> TlsError {
    move |e| TlsError(format!("{what}: {e}"))
}

/// The server side of a listener: `cert` and `key` served; with `ca`, client
/// certificates signed by it are checked, and required when
/// `client_cert_auth`; with `crl` (etcd's --client-crl-file, PEM or DER),
/// one it revokes is refused at the handshake (the end entity's, as etcd
/// checks the serial numbers of the certificates presented); a client
/// certificate must also name what `allowed` allows. HTTP/2 only (ALPN
/// `h2`), as gRPC needs.
pub fn server_config(
    cert: &Path,
    key: &Path,
    ca: Option<&Path>,
    (client_cert_auth, crl): (bool, Option<&Path>),
    allowed: &Allowed,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(fail("cannot set up TLS".into()))?;
    let builder = match ca {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for c in certs(ca)? {
                roots.add(c).map_err(fail(format!(
                    "cannot use {} as a CA certificate",
                    ca.display()
                )))?;
            }
            let mut verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            if let Some(crl) = crl {
                // A certificate of another issuer than the list's passes, as
                // in etcd (which looks only for revoked serial numbers).
                verifier = verifier
                    .with_crls(crls(crl)?)
                    .only_check_end_entity_revocation()
                    .allow_unknown_revocation_status();
            }
            let verifier = if client_cert_auth {
                verifier
            } else {
                verifier.allow_unauthenticated()
            };
            let verifier = verifier
                .build()
                .map_err(|e| TlsError(format!("cannot use {} as a CA: {e}", ca.display())))?;
            let verifier: Arc<dyn rustls::server::danger::ClientCertVerifier> = match allowed {
                Allowed::Any => verifier,
                _ => Arc::new(AllowedVerifier {
                    inner: verifier,
                    allowed: allowed.clone(),
                }),
            };
            builder.with_client_cert_verifier(verifier)
        }
        None if crl.is_some() => {
            return Err(TlsError(
                "--client-crl-file (--peer-crl-file) needs --trusted-ca-file \
                 (--peer-trusted-ca-file): a client certificate is checked against the list \
                 once it is verified against the CA"
                    .into(),
            ))
        }
        None if client_cert_auth => {
            return Err(TlsError(
                "--client-cert-auth needs --trusted-ca-file (and --peer-client-cert-auth \
                 --peer-trusted-ca-file)"
                    .into(),
            ))
        }
        None => builder.with_no_client_auth(),
    };
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        TlsError(format!(
            "cannot read a private key from {}: {e}",
            key.display()
        ))
    })?;
    let mut config = builder
        .with_single_cert(certs(cert)?, key)
        .map_err(fail(format!("cannot use {} with its key", cert.display())))?;
    // gRPC over HTTP/2; HTTP/1.1 for the health checks, metrics and gateway.
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The revocation lists of a file, PEM (`X509 CRL` blocks) or DER.
fn crls(path: &Path) -> Result<Vec<CertificateRevocationListDer<'static>>, TlsError> {
    let bytes = std::fs::read(path)
        .map_err(|e| TlsError(format!("cannot read {}: {e}", path.display())))?;
    if !bytes.starts_with(b"-----") {
        return Ok(vec![CertificateRevocationListDer::from(bytes)]);
    }
    let lists = CertificateRevocationListDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            TlsError(format!(
                "cannot read a certificate revocation list from {}: {e}",
                path.display()
            ))
        })?;
    if lists.is_empty() {
        return Err(TlsError(format!(
            "no certificate revocation list in {}: give a PEM (X509 CRL) or DER file",
            path.display()
        )));
    }
    Ok(lists)
}

/// The certificates of a PEM file.
fn certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|i| i.collect::<Result<Vec<_>, _>>())
        .map_err(|e| {
            TlsError(format!(
                "cannot read certificates from {}: {e}",
                path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(TlsError(format!(
            "no certificate in {}: give a PEM file",
            path.display()
        )));
    }
    Ok(certs)
}
