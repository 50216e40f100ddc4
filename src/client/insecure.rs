//! `--insecure-skip-tls-verify`: a TLS connection that accepts any server
//! certificate (still encrypted, not authenticated), for test clusters only.

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tonic::transport::{Channel, Endpoint, Uri};

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
            .with_custom_certificate_verifier(Arc::new(crate::trust::AcceptAny::new(
                provider.clone(),
            )))
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
    // One dial per connection, as on the verified paths (identity::OneDial).
    let one_dial = super::identity::OneDial::default();
    endpoint
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let (connector, target, one_dial) =
                (connector.clone(), target.clone(), one_dial.clone());
            async move {
                one_dial.dial()?;
                let u = url::Url::parse(&target).map_err(std::io::Error::other)?;
                let (tcp, host) = super::endpoint::dial(&u).await?;
                let name = ServerName::try_from(host).map_err(std::io::Error::other)?;
                let tls = connector.connect(name, tcp).await?;
                Ok::<_, std::io::Error>(TokioIo::new(tls))
            }
        }))
        .await
}
