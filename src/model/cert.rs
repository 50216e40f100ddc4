//! Peer certificates as the `peer-tls` check sees them: what one holds
//! ([`PeerCertificate`], read with `der.rs`), the new member's files as read
//! ([`NewPeerTls`]), and the judgements made with webpki, a TLS library's own
//! verifier (chain, names, key usage), answered in words. Pure: no file, no
//! socket; webpki's types stay inside this file.

use std::net::IpAddr;

use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use webpki::{EndEntityCert, KeyPurposeIdIter, KeyUsage};

use crate::der;
pub use crate::der::{format_time, DerError};

/// One certificate, as the checks judge it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerCertificate {
    /// The subject in words (`CN=…, O=…`).
    pub subject: String,
    /// The issuer in words.
    pub issuer: String,
    /// The issuer's DER `Name` (compared byte for byte with other subjects).
    pub issuer_der: Vec<u8>,
    /// The subject's DER `Name`.
    pub subject_der: Vec<u8>,
    /// subjectAltName DNS names.
    pub dns_names: Vec<String>,
    /// subjectAltName IP addresses.
    pub ips: Vec<IpAddr>,
    /// notBefore, seconds since the Unix epoch.
    pub not_before: i64,
    /// notAfter, seconds since the Unix epoch.
    pub not_after: i64,
    /// Its extended key usage allows server authentication (or it has none).
    pub server_auth: bool,
    /// Its extended key usage allows client authentication (or it has none).
    pub client_auth: bool,
    /// The extended key usage in words (`serverAuth, clientAuth`), or `None`
    /// when the certificate has no such extension (any use).
    pub key_usage: Option<String>,
    /// A CA certificate (basicConstraints cA).
    pub is_ca: bool,
    /// Its authorityKeyIdentifier (which key of its issuer signed it), if it has one.
    pub authority_key_id: Option<Vec<u8>>,
    /// The certificate itself, DER.
    pub der: Vec<u8>,
}

impl PeerCertificate {
    /// Reads a DER certificate.
    pub fn from_der(der: &[u8]) -> Result<Self, DerError> {
        let f = der::read(der)?;
        let allows = |purpose: &str| {
            f.key_purposes
                .as_ref()
                .is_none_or(|p| p.iter().any(|x| x == purpose || x == der::ANY_USAGE))
        };
        let key_usage = f.key_purposes.as_ref().map(|p| {
            let words: Vec<&str> = p
                .iter()
                .map(|oid| match oid.as_str() {
                    der::SERVER_AUTH => "serverAuth",
                    der::CLIENT_AUTH => "clientAuth",
                    der::ANY_USAGE => "anyExtendedKeyUsage",
                    other => other,
                })
                .collect();
            if words.is_empty() {
                "nothing".to_string()
            } else {
                words.join(", ")
            }
        });
        Ok(PeerCertificate {
            server_auth: allows(der::SERVER_AUTH),
            client_auth: allows(der::CLIENT_AUTH),
            key_usage,
            subject: f.subject,
            issuer: f.issuer,
            issuer_der: f.issuer_der,
            subject_der: f.subject_der,
            dns_names: f.dns_names,
            ips: f.ips,
            not_before: f.not_before,
            not_after: f.not_after,
            is_ca: f.is_ca,
            authority_key_id: f.authority_key_id,
            der: der.to_vec(),
        })
    }

    /// Its subjectAltName entries in words (`DNS a, IP 10.0.0.1`), or "no
    /// subjectAltName".
    pub fn names(&self) -> String {
        let names: Vec<String> = self
            .dns_names
            .iter()
            .map(|d| format!("DNS {d}"))
            .chain(self.ips.iter().map(|i| format!("IP {i}")))
            .collect();
        if names.is_empty() {
            "no subjectAltName".to_string()
        } else {
            names.join(", ")
        }
    }

    /// Whether `other` has the same issuer: the same name and, when both
    /// say which of the issuer's keys signed them, the same key.
    pub fn same_issuer(&self, other: &PeerCertificate) -> bool {
        self.issuer_der == other.issuer_der
            && match (&self.authority_key_id, &other.authority_key_id) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    /// Whether it signed itself (its subject is its issuer).
    pub fn self_issued(&self) -> bool {
        self.subject_der == self.issuer_der
    }

    /// Whether webpki finds `host` (a DNS name or an IP address, as in a
    /// URL) among its subjectAltNames, as a TLS client checks a server; the
    /// common name is not used (as Go's TLS, hence etcd, since Go 1.15).
    pub fn names_host(&self, host: &str) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let Ok(name) = ServerName::try_from(host) else {
            return false;
        };
        let der = CertificateDer::from(self.der.as_slice());
        EndEntityCert::try_from(&der)
            .is_ok_and(|c| c.verify_is_valid_for_subject_name(&name).is_ok())
    }
}

/// The new member's peer TLS files, read (`--peer-cert`, `--peer-key`,
/// `--peer-trusted-ca`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPeerTls {
    /// `--peer-cert` as given.
    pub cert_file: String,
    /// Its certificates, the member's own first.
    pub chain: Vec<PeerCertificate>,
    /// `--peer-key` as given.
    pub key_file: String,
    /// Whether the key is the certificate's (`Err`: why not, in words).
    pub key_matches: Result<(), String>,
    /// `--peer-trusted-ca` as given and its certificates.
    pub trusted_ca: Option<(String, Vec<PeerCertificate>)>,
}

/// Accepts any extended key usage: the chain is judged apart from it.
struct AnyUsage;

impl webpki::ExtendedKeyUsageValidator for AnyUsage {
    fn validate(&self, _: KeyPurposeIdIter<'_, '_>) -> Result<(), webpki::Error> {
        Ok(())
    }
}

/// The usage a chain is verified for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// Any (the chain alone).
    Any,
    /// Server authentication (a member accepting a peer's connection).
    Server,
    /// Client authentication (a member dialling a peer).
    Client,
}

/// Verifies with webpki that `leaf` chains, through `intermediates`, to one
/// of `anchors` (CA certificates) at `at` (seconds since the epoch), for
/// `usage`. `Err` says why not, in words.
pub fn verify_chain(
    leaf: &PeerCertificate,
    intermediates: &[PeerCertificate],
    anchors: &[PeerCertificate],
    at: i64,
    usage: Usage,
) -> Result<(), String> {
    let leaf_der = CertificateDer::from(leaf.der.as_slice());
    let ee = EndEntityCert::try_from(&leaf_der).map_err(|e| why(&e))?;
    let anchor_ders: Vec<CertificateDer<'_>> = anchors
        .iter()
        .map(|a| CertificateDer::from(a.der.as_slice()))
        .collect();
    let trust: Vec<_> = anchor_ders
        .iter()
        .filter_map(|d| webpki::anchor_from_trusted_cert(d).ok())
        .collect();
    if trust.is_empty() {
        return Err("no CA certificate to verify it with".to_string());
    }
    let inter: Vec<CertificateDer<'_>> = intermediates
        .iter()
        .map(|c| CertificateDer::from(c.der.as_slice()))
        .collect();
    let time = UnixTime::since_unix_epoch(std::time::Duration::from_secs(at.max(0) as u64));
    let algs = webpki::ALL_VERIFICATION_ALGS;
    let done = match usage {
        Usage::Any => ee.verify_for_usage(algs, &trust, &inter, time, AnyUsage, None, None),
        Usage::Server => ee.verify_for_usage(
            algs,
            &trust,
            &inter,
            time,
            KeyUsage::server_auth(),
            None,
            None,
        ),
        Usage::Client => ee.verify_for_usage(
            algs,
            &trust,
            &inter,
            time,
            KeyUsage::client_auth(),
            None,
            None,
        ),
    };
    done.map(|_| ()).map_err(|e| why(&e))
}

/// webpki's error in words.
fn why(e: &webpki::Error) -> String {
    match e {
        webpki::Error::UnknownIssuer => "no signature path to the CA (unknown issuer)".to_string(),
        webpki::Error::InvalidSignatureForPublicKey => "the CA's key did not sign it".to_string(),
        webpki::Error::CertExpired { not_after, .. } => format!(
            "a certificate of the chain expired on {}",
            format_time(not_after.as_secs() as i64)
        ),
        webpki::Error::CertNotValidYet { not_before, .. } => format!(
            "a certificate of the chain is not valid before {}",
            format_time(not_before.as_secs() as i64)
        ),
        webpki::Error::CaUsedAsEndEntity => "it is a CA certificate, not a member's".to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, KeyPair};

    fn ca() -> (rcgen::Certificate, KeyPair) {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        (p.self_signed(&key).unwrap(), key)
    }

    fn leaf(
        names: &[&str],
        usages: Vec<ExtendedKeyUsagePurpose>,
        ca: &(rcgen::Certificate, KeyPair),
    ) -> PeerCertificate {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap();
        p.extended_key_usages = usages;
        let c = p.signed_by(&key, &ca.0, &ca.1).unwrap();
        PeerCertificate::from_der(c.der()).unwrap()
    }

    const NOW: i64 = 1_750_000_000;

    #[test]
    fn chains_names_and_usages_as_webpki_judges_them() {
        use ExtendedKeyUsagePurpose::{ClientAuth, ServerAuth};
        let a = ca();
        let b = ca();
        let anchor_a = PeerCertificate::from_der(a.0.der()).unwrap();
        let anchor_b = PeerCertificate::from_der(b.0.der()).unwrap();
        let good = leaf(
            &["127.0.0.1", "peer.example"],
            vec![ServerAuth, ClientAuth],
            &a,
        );
        assert!(good.server_auth && good.client_auth);
        assert_eq!(good.key_usage.as_deref(), Some("serverAuth, clientAuth"));
        assert_eq!(good.issuer_der, anchor_a.subject_der);
        assert!(anchor_a.is_ca && anchor_a.self_issued());
        for usage in [Usage::Any, Usage::Server, Usage::Client] {
            assert_eq!(
                verify_chain(&good, &[], std::slice::from_ref(&anchor_a), NOW, usage),
                Ok(())
            );
        }
        // Both CAs have rcgen's default name: b's key did not sign it.
        let e =
            verify_chain(&good, &[], std::slice::from_ref(&anchor_b), NOW, Usage::Any).unwrap_err();
        assert!(e.contains("did not sign"), "{e}");
        assert!(good.names_host("127.0.0.1"));
        assert!(good.names_host("peer.example"));
        assert!(!good.names_host("10.0.0.1"));
        assert!(!good.names_host("other.example"));
        assert_eq!(good.names(), "DNS peer.example, IP 127.0.0.1");

        let server_only = leaf(&["127.0.0.1"], vec![ServerAuth], &a);
        assert!(server_only.server_auth && !server_only.client_auth);
        assert_eq!(
            verify_chain(
                &server_only,
                &[],
                std::slice::from_ref(&anchor_a),
                NOW,
                Usage::Any
            ),
            Ok(())
        );
        assert!(verify_chain(
            &server_only,
            &[],
            std::slice::from_ref(&anchor_a),
            NOW,
            Usage::Client
        )
        .is_err());
        // No extended key usage at all: any use.
        let unrestricted = leaf(&["127.0.0.1"], vec![], &a);
        assert!(unrestricted.server_auth && unrestricted.client_auth);
        assert_eq!(unrestricted.key_usage, None);
        assert_eq!(
            verify_chain(&unrestricted, &[], &[anchor_a], NOW, Usage::Client),
            Ok(())
        );
        assert!(verify_chain(&good, &[], &[], NOW, Usage::Any)
            .unwrap_err()
            .contains("no CA"));
    }
}
