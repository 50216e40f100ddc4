//! Certificates trusted as Go trusts them: one that is itself among the trusted roots verifies (a self-signed CA:TRUE certificate serving as a server's or a client's own, which Go — hence etcd — accepts and webpki refuses as "CA used as end entity"); everything else is webpki's verdict. And [`AcceptAny`], which trusts every server certificate (memberctl's `--insecure-skip-tls-verify`, the peer-tls check's look at a chain, the engine's `--peer-auto-tls` peers). Below both halves: memberctl's client and the engine's listeners and peer dialling use it.

use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The certificates of a PEM bundle.
pub fn roots_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let roots = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if roots.is_empty() {
        return Err("no PEM certificate in it".into());
    }
    Ok(roots)
}

/// Whether `cert` is one of `roots`, valid at `now` (and, for a server, for
/// `name`): Go's verdict on a certificate that is its own root.
pub fn is_root_itself(
    cert: &CertificateDer<'_>,
    roots: &[CertificateDer<'static>],
    now: UnixTime,
    name: Option<&ServerName<'_>>,
) -> bool {
    if !roots.iter().any(|r| r.as_ref() == cert.as_ref()) {
        return false;
    }
    let Ok(fields) = crate::der::read(cert.as_ref()) else {
        return false;
    };
    let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    if now < fields.not_before || now > fields.not_after {
        return false;
    }
    match name {
        None => true,
        Some(name) => webpki::EndEntityCert::try_from(cert)
            .is_ok_and(|ee| ee.verify_is_valid_for_subject_name(name).is_ok()),
    }
}

/// webpki's server verification over `roots`, with Go's rule for a
/// certificate that is its own root.
pub fn server_verifier(
    roots: Vec<CertificateDer<'static>>,
) -> Result<Arc<dyn ServerCertVerifier>, String> {
    let mut store = rustls::RootCertStore::empty();
    for r in &roots {
        store.add(r.clone()).map_err(|e| e.to_string())?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let inner =
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider)
            .build()
            .map_err(|e| e.to_string())?;
    Ok(Arc::new(RootItselfServer { inner, roots }))
}

/// A server verifier with Go's rule for a certificate that is its own root.
#[derive(Debug)]
struct RootItselfServer {
    inner: Arc<dyn ServerCertVerifier>,
    roots: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for RootItselfServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(_) if is_root_itself(end_entity, &self.roots, now, Some(server_name)) => {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// Accepts every certificate, and records the chain presented (the
/// `peer-tls` check's handshake is made only to read it); signatures are
/// still checked by the handshake's algorithms.
#[derive(Debug)]
pub struct AcceptAny {
    provider: Arc<rustls::crypto::CryptoProvider>,
    presented: Mutex<Option<Vec<CertificateDer<'static>>>>,
}

impl AcceptAny {
    /// A verifier for `provider`'s algorithms.
    pub fn new(provider: Arc<rustls::crypto::CryptoProvider>) -> Self {
        AcceptAny {
            provider,
            presented: Mutex::new(None),
        }
    }

    /// The chain the server presented (its own certificate first), once.
    pub fn presented(&self) -> Option<Vec<CertificateDer<'static>>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed CA:TRUE certificate for `names`, valid for `days` from
    /// now (negative: expired).
    fn root(names: &[&str], days: i64) -> CertificateDer<'static> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut p =
            rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let now = time::OffsetDateTime::now_utc();
        p.not_before = now - time::Duration::days(2);
        p.not_after = now + time::Duration::days(days);
        p.self_signed(&key).unwrap().der().clone()
    }

    #[test]
    fn a_certificate_that_is_its_own_root_verifies_as_in_go() {
        let now = UnixTime::now();
        let host = ServerName::try_from("127.0.0.1").unwrap();
        let own = root(&["127.0.0.1"], 30);
        let verifier = server_verifier(vec![own.clone()]).unwrap();
        // webpki alone refuses it; with Go's rule it verifies.
        assert!(verifier
            .verify_server_cert(&own, &[], &host, &[], now)
            .is_ok());
        // Not for another host, not when expired, not when it is not the root.
        let other = ServerName::try_from("10.0.0.9").unwrap();
        assert!(verifier
            .verify_server_cert(&own, &[], &other, &[], now)
            .is_err());
        let expired = root(&["127.0.0.1"], -1);
        let v = server_verifier(vec![expired.clone()]).unwrap();
        assert!(v
            .verify_server_cert(&expired, &[], &host, &[], now)
            .is_err());
        let stranger = root(&["127.0.0.1"], 30);
        assert!(verifier
            .verify_server_cert(&stranger, &[], &host, &[], now)
            .is_err());
        assert!(roots_from_pem(b"nothing").is_err());
    }
}
