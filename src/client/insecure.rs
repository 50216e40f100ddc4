//! `--insecure-skip-tls-verify`: a TLS connection that accepts any server
//! certificate (still encrypted, not authenticated), for test clusters only.

use std::sync::{Arc, Mutex};

use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tonic::transport::{Channel, Endpoint, Uri};

/// Accepts every certificate, and records the chain presented (the
/// `peer-tls` check's handshake is made only to read it); signatures are
/// still checked by the handshake's algorithms.
#[derive(Debug)]
pub(super) struct AcceptAny {
    provider: Arc<rustls::crypto::CryptoProvider>,
    presented: Mutex<Option<Vec<CertificateDer<'static>>>>,
}

impl AcceptAny {
    /// A verifier for `provider`'s algorithms.
    pub(super) fn new(provider: Arc<rustls::crypto::CryptoProvider>) -> Self {
        AcceptAny {
            provider,
            presented: Mutex::new(None),
        }
    }

    /// The chain the server presented (its own certificate first), once.
    pub(super) fn presented(&self) -> Option<Vec<CertificateDer<'static>>> {
        self.presented
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }
}

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let chain = std::iter::once(end_entity)
            .chain(intermediates)
            .map(|c| c.clone().into_owned())
            .collect();
        *self.presented.lock().unwrap_or_else(|p| p.into_inner()) = Some(chain);
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Connects to the https `url` without verifying its certificate. The
/// connector does the TLS, so tonic is given the URL as plain http (it would
/// otherwise refuse an https URL without its own TLS settings).
pub async fn connect(
    endpoint: Endpoint,
    url: &str,
    identity: Option<&super::IdentityPem>,
) -> Result<Channel, tonic::transport::Error> {
    let plain = format!("http://{}", url.trim_start_matches("https://"));
    let endpoint = Endpoint::from_shared(plain)?.connect_timeout(
        endpoint
            .get_connect_timeout()
            .unwrap_or(std::time::Duration::from_secs(2)),
    );
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = || {
        rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default TLS versions")
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAny::new(provider.clone())))
    };
    // The client certificate, when given (servers with client-cert auth ask for it).
    let client_auth = identity.and_then(|(cert, key)| {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
            .filter_map(Result::ok)
            .collect();
        let key = PrivateKeyDer::from_pem_slice(key).ok()?;
        Some((certs, key))
    });
    let mut config = client_auth
        .and_then(|(certs, key)| builder().with_client_auth_cert(certs, key).ok())
        .unwrap_or_else(|| builder().with_no_client_auth());
    config.alpn_protocols = vec![b"h2".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let target = url.to_string();
    endpoint
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let (connector, target) = (connector.clone(), target.clone());
            async move {
                let u = url::Url::parse(&target).map_err(std::io::Error::other)?;
                let (tcp, host) = super::endpoint::dial(&u).await?;
                let name = ServerName::try_from(host).map_err(std::io::Error::other)?;
                let tls = connector.connect(name, tcp).await?;
                Ok::<_, std::io::Error>(TokioIo::new(tls))
            }
        }))
        .await
}
