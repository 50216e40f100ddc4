//! The listeners' TLS: a rustls server configuration from etcd's files
//! (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth) and its
//! policy (--cipher-suites, --tls-min-version, --tls-max-version).

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

/// A TLS version etcd's --tls-min-version / --tls-max-version name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    /// `TLS1.2`.
    V12,
    /// `TLS1.3`.
    V13,
}

impl TlsVersion {
    /// etcd's spelling (`""`: unset) read, as etcd reads it.
    pub fn parse(s: &str) -> Result<Option<TlsVersion>, TlsError> {
        match s {
            "" => Ok(None),
            "TLS1.2" => Ok(Some(TlsVersion::V12)),
            "TLS1.3" => Ok(Some(TlsVersion::V13)),
            other => Err(TlsError(format!(
                "unexpected TLS version {other:?} (must be one of: TLS1.2, TLS1.3)"
            ))),
        }
    }
}

/// What etcd's --cipher-suites, --tls-min-version and --tls-max-version ask
/// of every listener (client and peer, as in etcd).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsPolicy {
    /// The TLS 1.2 cipher suites offered, by IANA name (as Go names them);
    /// empty: all of the engine's. TLS 1.3's are always offered, as Go's.
    pub cipher_suites: Vec<String>,
    /// The lowest version accepted.
    pub min: TlsVersion,
    /// The highest version accepted.
    pub max: TlsVersion,
}

impl Default for TlsPolicy {
    fn default() -> Self {
        TlsPolicy {
            cipher_suites: Vec::new(),
            min: TlsVersion::V12,
            max: TlsVersion::V13,
        }
    }
}

/// Go's cipher suites the engine's TLS (rustls) does not have: CBC, RC4,
/// 3DES and RSA key exchange (none forward-secret and AEAD both).
const GO_ONLY_SUITES: &[&str] = &[
    "TLS_RSA_WITH_RC4_128_SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
];

/// A suite's IANA name.
fn suite_name(s: &rustls::SupportedCipherSuite) -> String {
    s.suite()
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{:?}", s.suite()))
}

impl TlsPolicy {
    /// The policy checked as etcd checks it (min ≤ max; no suites when only
    /// TLS 1.3 is on; every name one Go knows) with the suites the engine
    /// offers, and one line per suite named that it does not have (Go's CBC,
    /// RC4, 3DES and RSA key-exchange suites), for the log.
    pub fn check(&self) -> Result<(Vec<rustls::SupportedCipherSuite>, Vec<String>), TlsError> {
        if self.min > self.max {
            return Err(TlsError(format!(
                "min version ({:?}) is greater than max version ({:?}): --tls-min-version \
                 must not pass --tls-max-version",
                self.min, self.max
            )));
        }
        let all = rustls::crypto::ring::ALL_CIPHER_SUITES;
        let tls13 = all
            .iter()
            .filter(|s| s.version() == &rustls::version::TLS13);
        if self.cipher_suites.is_empty() {
            return Ok((all.to_vec(), vec![]));
        }
        if self.min == TlsVersion::V13 {
            return Err(TlsError(
                "cipher suites cannot be configured when only TLS1.3 is enabled (as in etcd): \
                 drop --cipher-suites or --tls-min-version TLS1.3"
                    .into(),
            ));
        }
        let mut chosen: Vec<rustls::SupportedCipherSuite> = tls13.copied().collect();
        let mut notes = Vec::new();
        let mut tls12_named = false;
        for name in &self.cipher_suites {
            // Go's older names of the ChaCha20 suites, as etcd takes them.
            let name = match name.as_str() {
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305"
                | "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305" => {
                    format!("{name}_SHA256")
                }
                _ => name.clone(),
            };
            if let Some(s) = all.iter().find(|s| suite_name(s) == name) {
                if s.version() == &rustls::version::TLS12 {
                    tls12_named = true;
                    if !chosen.contains(s) {
                        chosen.push(*s);
                    }
                }
                continue;
            }
            if GO_ONLY_SUITES.contains(&name.as_str()) {
                tls12_named = true;
                notes.push(format!(
                    "--cipher-suites: {name} is not offered: the engine's TLS has only AEAD, \
                     forward-secret suites (ECDHE with AES-GCM or ChaCha20-Poly1305)"
                ));
                continue;
            }
            return Err(TlsError(format!(
                "unexpected TLS cipher suite {name:?} (as etcd says): give Go's names, e.g. \
                 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
            )));
        }
        let offered12 = chosen
            .iter()
            .any(|s| s.version() == &rustls::version::TLS12);
        if tls12_named && !offered12 && self.max == TlsVersion::V12 {
            return Err(TlsError(
                "none of --cipher-suites is one the engine's TLS has, and --tls-max-version \
                 TLS1.2 leaves nothing to offer: add one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, \
                 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 \
                 (or their ECDSA forms)"
                    .into(),
            ));
        }
        Ok((chosen, notes))
    }

    /// For a listener that serves gRPC (HTTP/2) over TLS 1.2: the suites
    /// must hold one HTTP/2 requires (RFC 7540's AES-128-GCM), as Go's HTTP/2
    /// server demands — etcd 3.4 stops at its first client request without
    /// one (measured: "listener failed").
    pub fn check_http2(&self) -> Result<(), TlsError> {
        const REQUIRED: [&str; 2] = [
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        ];
        if self.cipher_suites.is_empty()
            || self.min == TlsVersion::V13
            || self
                .cipher_suites
                .iter()
                .any(|s| REQUIRED.contains(&s.as_str()))
        {
            return Ok(());
        }
        Err(TlsError(format!(
            "--cipher-suites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at \
             least one of {} or {}), as etcd's listener says: add one",
            REQUIRED[0], REQUIRED[1]
        )))
    }

    /// The protocol versions offered.
    fn versions(&self) -> Vec<&'static rustls::SupportedProtocolVersion> {
        let mut v = Vec::new();
        if self.min <= TlsVersion::V12 {
            v.push(&rustls::version::TLS12);
        }
        if self.max >= TlsVersion::V13 {
            v.push(&rustls::version::TLS13);
        }
        v
    }
}

fn fail(what: String) -> impl FnOnce(rustls::Error) -> TlsError {
    move |e| TlsError(format!("{what}: {e}"))
}

/// The server side of a listener: `cert` and `key` served; with `ca`, client
/// certificates signed by it are checked, and required when
/// `client_cert_auth`; with `crl` (etcd's --client-crl-file, PEM or DER),
/// one it revokes is refused at the handshake (the end entity's, as etcd
/// checks the serial numbers of the certificates presented); a client
/// certificate must also name what `allowed` allows; the suites and
/// versions `policy` gives. HTTP/2 and HTTP/1.1 (ALPN).
pub fn server_config(
    cert: &Path,
    key: &Path,
    ca: Option<&Path>,
    (client_cert_auth, crl): (bool, Option<&Path>),
    allowed: &Allowed,
    policy: &TlsPolicy,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let (suites, _) = policy.check()?;
    let provider = Arc::new(rustls::crypto::CryptoProvider {
        cipher_suites: suites,
        ..rustls::crypto::ring::default_provider()
    });
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&policy.versions())
        .map_err(fail("cannot set up TLS".into()))?;
    let builder = match ca {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            let trusted = certs(ca)?;
            for c in trusted.clone() {
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
            // A client certificate that is itself the CA verifies, as in Go.
            let verifier: Arc<dyn rustls::server::danger::ClientCertVerifier> =
                Arc::new(AllowedVerifier {
                    inner: verifier,
                    roots: trusted,
                    allowed: allowed.clone(),
                });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(suites: &[&str], min: TlsVersion, max: TlsVersion) -> TlsPolicy {
        TlsPolicy {
            cipher_suites: suites.iter().map(|s| s.to_string()).collect(),
            min,
            max,
        }
    }

    fn names(suites: &[rustls::SupportedCipherSuite]) -> Vec<String> {
        suites.iter().map(suite_name).collect()
    }

    #[test]
    fn cipher_suites_and_versions_are_judged_as_etcd_judges_them() {
        use TlsVersion::{V12, V13};
        let (all, notes) = TlsPolicy::default().check().unwrap();
        assert_eq!(all.len(), rustls::crypto::ring::ALL_CIPHER_SUITES.len());
        assert!(notes.is_empty());
        // One TLS 1.2 suite named (Go's older ChaCha20 name too), a CBC one
        // noted, TLS 1.3's kept.
        let (s, notes) = policy(
            &[
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
                "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
            ],
            V12,
            V13,
        )
        .check()
        .unwrap();
        let s = names(&s);
        assert!(
            s.contains(&"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256".to_string()),
            "{s:?}"
        );
        assert!(s.contains(&"TLS13_AES_128_GCM_SHA256".to_string()), "{s:?}");
        assert!(
            !s.contains(&"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256".to_string()),
            "{s:?}"
        );
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("AES_128_CBC_SHA is not offered"),
            "{notes:?}"
        );
        for (p, why) in [
            (
                policy(&["TLS_NOT_A_SUITE"], V12, V13),
                "unexpected TLS cipher suite",
            ),
            (policy(&[], V13, V12), "greater than max version"),
            (
                policy(&["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"], V13, V13),
                "only TLS1.3",
            ),
            (
                policy(&["TLS_RSA_WITH_AES_128_GCM_SHA256"], V12, V12),
                "leaves nothing",
            ),
        ] {
            let e = p.check().unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        let no_aes128 = policy(&["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"], V12, V13);
        assert!(no_aes128
            .check_http2()
            .unwrap_err()
            .to_string()
            .contains("HTTP/2-required"));
        let aes128 = policy(&["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"], V12, V13);
        assert!(aes128.check_http2().is_ok());
        assert!(TlsPolicy::default().check_http2().is_ok());
        assert_eq!(policy(&[], V13, V13).versions(), [&rustls::version::TLS13]);
        assert_eq!(policy(&[], V12, V12).versions(), [&rustls::version::TLS12]);
        assert_eq!(TlsVersion::parse("").unwrap(), None);
        assert!(TlsVersion::parse("TLS1.1")
            .unwrap_err()
            .to_string()
            .contains("TLS1.2, TLS1.3"));
    }
}
