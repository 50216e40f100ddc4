//! A client-certificate check on top of the CA's: a certificate that is
//! itself the CA verifies, as in Go ([`crate::trust`]), and the certificate
//! must name an allowed common name or host name (etcd's
//! `--peer-cert-allowed-cn`, `--peer-cert-allowed-hostname`,
//! `--client-cert-allowed-hostname`).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, Error, SignatureScheme};

/// What a client certificate must name, besides chaining to the CA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Allowed {
    /// Any name.
    #[default]
    Any,
    /// This subject common name.
    CommonName(String),
    /// This host name (or IP address) among its subjectAltNames.
    Hostname(String),
}

impl Allowed {
    /// Whether `cert` (DER) names what is allowed; else why not.
    pub fn check(&self, cert: &[u8]) -> Result<(), String> {
        match self {
            Allowed::Any => Ok(()),
            Allowed::CommonName(cn) => {
                let got = crate::der::read(cert).ok().and_then(|f| f.subject_cn);
                if got.as_deref() == Some(cn.as_str()) {
                    return Ok(());
                }
                Err(format!(
                    "CommonName authentication failed: the certificate's common name is {}, \
                     not {cn}",
                    got.map_or("missing".to_string(), |g| format!("{g:?}"))
                ))
            }
            Allowed::Hostname(host) => {
                let der = CertificateDer::from(cert);
                let ee = webpki::EndEntityCert::try_from(&der)
                    .map_err(|e| format!("hostname authentication failed: {e}"))?;
                let name = ServerName::try_from(host.as_str())
                    .map_err(|e| format!("hostname authentication failed: {host}: {e}"))?;
                ee.verify_is_valid_for_subject_name(&name).map_err(|_| {
                    format!("hostname authentication failed: the certificate does not name {host}")
                })
            }
        }
    }
}

/// The CA's verifier (with Go's rule for a certificate that is itself the
/// CA), then [`Allowed`].
#[derive(Debug)]
pub struct AllowedVerifier {
    /// The CA's verifier.
    pub inner: Arc<dyn ClientCertVerifier>,
    /// The CA's certificates.
    pub roots: Vec<CertificateDer<'static>>,
    /// What the certificate must name.
    pub allowed: Allowed,
}

impl ClientCertVerifier for AllowedVerifier {
    fn offer_client_auth(&self) -> bool {
        self.inner.offer_client_auth()
    }

    fn client_auth_mandatory(&self) -> bool {
        self.inner.client_auth_mandatory()
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        let verified = match self
            .inner
            .verify_client_cert(end_entity, intermediates, now)
        {
            Err(_) if crate::trust::is_root_itself(end_entity, &self.roots, now, None) => {
                ClientCertVerified::assertion()
            }
            other => other?,
        };
        self.allowed.check(end_entity).map_err(Error::General)?;
        Ok(verified)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert(cn: &str, names: &[&str]) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut p =
            rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        let mut dn = rcgen::DistinguishedName::new();
        dn.push(rcgen::DnType::CommonName, cn);
        p.distinguished_name = dn;
        p.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn a_certificate_must_name_the_allowed_common_name_or_host() {
        let c = cert("peer-a", &["peer-a.example", "10.0.0.7"]);
        assert_eq!(Allowed::Any.check(&c), Ok(()));
        assert_eq!(Allowed::CommonName("peer-a".into()).check(&c), Ok(()));
        let wrong = Allowed::CommonName("peer-b".into()).check(&c).unwrap_err();
        assert!(wrong.contains("\"peer-a\", not peer-b"), "{wrong}");
        assert_eq!(Allowed::Hostname("peer-a.example".into()).check(&c), Ok(()));
        assert_eq!(Allowed::Hostname("10.0.0.7".into()).check(&c), Ok(()));
        let other = Allowed::Hostname("peer-b.example".into()).check(&c);
        assert!(other.unwrap_err().contains("does not name peer-b.example"));
        // The common name is no host name (as Go's, hence etcd's, checks).
        assert!(Allowed::Hostname("peer-a".into()).check(&c).is_err());
    }
}
