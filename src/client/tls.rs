//! The client's TLS files (`--cacert`, `--cert`, `--key`, `--insecure-skip-tls-verify`), read and checked once per command.

use tonic::transport::{ClientTlsConfig, Endpoint, Identity};

use crate::error::Error;

/// A client certificate chain and its key, PEM.
pub type IdentityPem = (Vec<u8>, Vec<u8>);

/// The TLS options of the command line, as paths.
#[derive(Clone, Debug, Default)]
pub struct ClientTlsFiles {
    /// CA bundle that signs the servers' certificates.
    pub cacert: Option<std::path::PathBuf>,
    /// Client certificate (with `key`), for servers that require one.
    pub cert: Option<std::path::PathBuf>,
    /// Client key.
    pub key: Option<std::path::PathBuf>,
    /// Skip verifying the servers' certificates.
    pub insecure_skip_verify: bool,
}

/// What the TLS files hold, read once: the configuration to dial with and,
/// for the unverified path, the client certificate and key themselves.
#[derive(Clone, Debug)]
pub struct LoadedTls {
    /// The tonic TLS configuration.
    pub config: ClientTlsConfig,
    /// The client certificate and key (PEM), when given.
    pub identity: Option<IdentityPem>,
    /// The CA bundle (PEM), when given: HTTPS GETs of /metrics verify with it.
    pub ca: Option<Vec<u8>>,
    /// The servers' certificates verified against `ca`, as Go verifies them
    /// ([`crate::trust`]), when a CA was given.
    pub verifier: Option<std::sync::Arc<dyn rustls::client::danger::ServerCertVerifier>>,
}

fn read(flag: &str, p: &std::path::Path) -> Result<Vec<u8>, Error> {
    std::fs::read(p).map_err(|e| Error::usage(format!("cannot read {flag} {}: {e}", p.display())))
}

/// Refuses a file that holds no PEM certificate, naming its flag.
fn has_certificates(flag: &str, p: &std::path::Path, pem: &[u8]) -> Result<(), Error> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    let certs: Result<Vec<CertificateDer<'static>>, _> =
        CertificateDer::pem_slice_iter(pem).collect();
    match certs {
        Ok(c) if !c.is_empty() => Ok(()),
        _ => Err(Error::usage(format!(
            "{flag} {} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give a \
             certificate file in PEM",
            p.display()
        ))),
    }
}

impl ClientTlsFiles {
    /// Whether any TLS option was given.
    pub fn any(&self) -> bool {
        self.cacert.is_some()
            || self.cert.is_some()
            || self.key.is_some()
            || self.insecure_skip_verify
    }

    /// Reads each file once and checks that it holds what its flag needs (PEM
    /// certificates, a PEM private key) and that TLS can be set up with them,
    /// so that wrong material is a usage error naming the flag rather than a
    /// failed connection.
    pub fn load(&self) -> Result<LoadedTls, Error> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::PrivateKeyDer;
        let certificates = |flag: &str, path: &Option<std::path::PathBuf>| {
            path.as_deref()
                .map(|p| {
                    let pem = read(flag, p)?;
                    has_certificates(flag, p, &pem).map(|()| pem)
                })
                .transpose()
        };
        let ca = certificates("--cacert", &self.cacert)?;
        let cert = certificates("--cert", &self.cert)?;
        let key = match &self.key {
            Some(p) => {
                let pem = read("--key", p)?;
                if PrivateKeyDer::from_pem_slice(&pem).is_err() {
                    return Err(Error::usage(format!(
                        "--key {} holds no PEM private key (-----BEGIN PRIVATE KEY-----); give \
                         the client certificate's key in PEM",
                        p.display()
                    )));
                }
                Some(pem)
            }
            None => None,
        };
        let identity = match (cert, key) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            _ => return Err(Error::usage("--cert and --key go together")),
        };
        let mut config = ClientTlsConfig::new();
        let verifier = match &ca {
            Some(pem) => Some(
                crate::trust::roots_from_pem(pem)
                    .and_then(crate::trust::server_verifier)
                    .map_err(|e| {
                        Error::usage(format!(
                            "--cacert cannot be used as a CA bundle ({e}); give the PEM \
                             certificate(s) that sign the servers' certificates"
                        ))
                    })?,
            ),
            None => None,
        };
        if let Some((c, k)) = &identity {
            config = config.identity(Identity::from_pem(c, k));
        }
        if !self.insecure_skip_verify {
            let ep = Endpoint::from_static("https://127.0.0.1");
            match &verifier {
                Some(v) => ep.tls_config_with_verifier(config.clone(), v.clone()),
                None => ep.tls_config(config.clone()),
            }
            .map_err(|e| {
                let mut cause = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    cause = s.to_string();
                    source = s.source();
                }
                Error::usage(format!(
                    "the TLS files cannot be used ({cause}); check --cacert, --cert and --key"
                ))
            })?;
        }
        Ok(LoadedTls {
            config,
            identity,
            ca,
            verifier,
        })
    }
}

/// What to check when a connection to `url` failed with `cause`, for the
/// TLS set-up mistakes an operator makes (no CA, no client certificate,
/// a wrong CA, http against a TLS port and the reverse): a sentence naming
/// the flag, or `None` when the failure does not look like one.
/// `client_cert` says whether `--cert`/`--key` were given.
pub(super) fn hint(url: &str, cause: &str, client_cert: bool) -> Option<String> {
    let https = url.starts_with("https://");
    let transport = cause.contains("transport error")
        || cause.contains("connection reset")
        || cause.contains("broken pipe")
        || cause.contains("connection closed")
        || cause.contains("unexpected end of file");
    if https {
        if cause.contains("InvalidContentType") || cause.contains("corrupt message") {
            return Some(
                "the server does not speak TLS there: use http:// (check --endpoints), or check \
                 --cacert, --cert and --key (a plain-text server takes none of them)"
                    .into(),
            );
        }
        if cause.contains("UnknownIssuer") || cause.contains("BadSignature") {
            return Some(
                "the server's certificate is not signed by the CA in --cacert: check --cacert"
                    .into(),
            );
        }
        if cause.contains("NotValidForName") || cause.contains("certificate") {
            return Some(format!(
                "the server's certificate was not accepted ({cause}): check --cacert and the \
                 host in --endpoints"
            ));
        }
        if cause.contains("handshake eof") || cause.contains("HandshakeFailure") {
            return Some(
                "the server ended the TLS handshake: it may not speak TLS there (use http://, \
                 check --endpoints) or may refuse the client certificate: check --cacert, \
                 --cert and --key"
                    .into(),
            );
        }
        if transport {
            return Some(if client_cert {
                "the server may have refused the client certificate: check --cert and --key \
                 (signed by a CA the server trusts, with client authentication)"
                    .into()
            } else {
                "the server may require a client certificate: give --cert and --key".into()
            });
        }
        // Any other failure over https: the TLS files are the first suspects.
        return (!cause.contains("connection refused") && !cause.contains("--dial-timeout"))
            .then(|| "check --cacert, --cert and --key".into());
    }
    transport.then(|| "if the server uses TLS, use https:// and give --cacert".into())
}

#[cfg(test)]
mod hint_tests {
    use super::hint;

    #[test]
    fn each_tls_mistake_names_its_flag() {
        let h = |url, cause, cert| hint(url, cause, cert).unwrap_or_default();
        assert!(h("https://a:1", "transport error", false).contains("give --cert and --key"));
        assert!(h("https://a:1", "transport error", true).contains("check --cert and --key"));
        assert!(h(
            "https://a:1",
            "invalid peer certificate: UnknownIssuer",
            true
        )
        .contains("check --cacert"));
        assert!(h(
            "https://a:1",
            "received corrupt message of type InvalidContentType",
            false
        )
        .contains("use http://"));
        assert!(h("http://a:1", "transport error", false).contains("use https://"));
        assert_eq!(hint("http://a:1", "connection refused", false), None);
        assert_eq!(hint("https://a:1", "connection refused", false), None);
        assert!(h("https://a:1", "tls handshake eof", true).contains("check --cacert"));
        assert!(h("https://a:1", "something else", true).contains("check --cacert"));
    }
}
