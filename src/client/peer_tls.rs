//! Peer certificates for the `peer-tls` check: the new member's files
//! (`--peer-cert`, `--peer-key`, `--peer-trusted-ca`) read once, and the
//! certificate chain a member presents on its https peer URL, read with a
//! TLS handshake. That handshake only READS the certificate: it accepts
//! whatever the member presents (and records it), sends no client
//! certificate and no request, and closes the connection. A member that asks
//! for a client certificate (`--peer-client-cert-auth`) has sent its own
//! before it asks, so its chain is read all the same.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

use crate::error::Error;
use crate::model::cert::{NewPeerTls, PeerCertificate};

/// How long the handshake with one member's peer URL may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// The new member's peer TLS files, as paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerTlsFiles {
    /// `--peer-cert`: the certificate (PEM; intermediates may follow it).
    pub cert: PathBuf,
    /// `--peer-key`: its private key (PEM).
    pub key: PathBuf,
    /// `--peer-trusted-ca`: the CA bundle the members trust on their peer ports (PEM).
    pub trusted_ca: Option<PathBuf>,
}

fn read(flag: &str, p: &std::path::Path) -> Result<Vec<u8>, Error> {
    std::fs::read(p).map_err(|e| {
        Error::usage(format!(
            "cannot read {flag} {}: {e}; give the PEM file the new member will be started with",
            p.display()
        ))
    })
}

/// The certificates of a PEM file, parsed; a usage error naming the flag
/// when it holds none or one cannot be read.
fn certificates(flag: &str, p: &std::path::Path) -> Result<Vec<PeerCertificate>, Error> {
    let pem = read(flag, p)?;
    let ders: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| {
            Error::usage(format!(
                "{flag} {} is not PEM ({e}); give a certificate file in PEM",
                p.display()
            ))
        })?;
    if ders.is_empty() {
        return Err(Error::usage(format!(
            "{flag} {} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give a \
             certificate file in PEM",
            p.display()
        )));
    }
    ders.iter()
        .map(|d| {
            PeerCertificate::from_der(d).map_err(|e| {
                Error::usage(format!(
                    "{flag} {}: {e}; give an X.509 certificate in PEM",
                    p.display()
                ))
            })
        })
        .collect()
}

impl PeerTlsFiles {
    /// Reads the files once: certificates that cannot be read are usage
    /// errors naming their flag; a key that is not the certificate's is a
    /// fact for the check to judge (`key_matches`).
    pub fn load(&self) -> Result<NewPeerTls, Error> {
        let chain = certificates("--peer-cert", &self.cert)?;
        let pem = read("--peer-key", &self.key)?;
        let key = PrivateKeyDer::from_pem_slice(&pem).map_err(|_| {
            Error::usage(format!(
                "--peer-key {} holds no PEM private key (-----BEGIN PRIVATE KEY-----); give \
                 the key of --peer-cert in PEM",
                self.key.display()
            ))
        })?;
        let trusted_ca = match &self.trusted_ca {
            Some(p) => Some((
                p.display().to_string(),
                certificates("--peer-trusted-ca", p)?,
            )),
            None => None,
        };
        Ok(NewPeerTls {
            cert_file: self.cert.display().to_string(),
            key_matches: keys_match(&chain, key),
            chain,
            key_file: self.key.display().to_string(),
            trusted_ca,
        })
    }
}

/// Whether `key` is the private key of `chain`'s first certificate
/// (rustls compares the public key it derives with the certificate's).
fn keys_match(chain: &[PeerCertificate], key: PrivateKeyDer<'static>) -> Result<(), String> {
    let signing = rustls::crypto::ring::sign::any_supported_type(&key)
        .map_err(|e| format!("its key type is not supported ({e})"))?;
    let certs: Vec<CertificateDer<'static>> = chain
        .iter()
        .map(|c| CertificateDer::from(c.der.clone()))
        .collect();
    match rustls::sign::CertifiedKey::new(certs, signing).keys_match() {
        Ok(()) => Ok(()),
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
            Err("the key's public key is not the certificate's".to_string())
        }
        Err(e) => Err(format!("cannot compare them ({e})")),
    }
}

/// The certificate chain presented on the https peer URL `url` (the
/// member's own first), read with a handshake bounded by `timeout`.
pub async fn read_chain(url: &str, timeout: Duration) -> Result<Vec<PeerCertificate>, String> {
    let u = url::Url::parse(url).map_err(|e| format!("{url} is not a URL ({e})"))?;
    if u.scheme() != "https" {
        return Err(format!("{url} is not an https URL"));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let record = Arc::new(crate::trust::AcceptAny::new(provider.clone()));
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(record.clone())
        .with_no_client_auth();
    let handshake = async {
        let (tcp, host) = super::endpoint::dial(&u)
            .await
            .map_err(|e| format!("cannot connect to {url}: {e}"))?;
        let name = ServerName::try_from(host).map_err(|e| e.to_string())?;
        tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .map(drop)
            .map_err(|e| format!("TLS handshake with {url}: {e}"))
    };
    let outcome = match tokio::time::timeout(timeout, handshake).await {
        Ok(r) => r,
        Err(_) => Err(format!(
            "no TLS handshake with {url} within {}",
            humantime::format_duration(timeout)
        )),
    };
    // A handshake refused after the member presented its certificate (it
    // asked for a client certificate) still read the chain.
    let seen = record.presented();
    match (seen, outcome) {
        (Some(chain), _) if !chain.is_empty() => chain
            .iter()
            .map(|d| PeerCertificate::from_der(d).map_err(|e| format!("{url} presented {e}")))
            .collect(),
        (_, Err(e)) => Err(e),
        (_, Ok(())) => Err(format!("{url} presented no certificate")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn the_files_are_read_and_the_key_compared() {
        let dir = tempfile::tempdir().unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let other = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let files = PeerTlsFiles {
            cert: write(dir.path(), "c.pem", &cert.pem()),
            key: write(dir.path(), "k.pem", &key.serialize_pem()),
            trusted_ca: Some(write(dir.path(), "ca.pem", &cert.pem())),
        };
        let loaded = files.load().unwrap();
        assert_eq!(loaded.key_matches, Ok(()));
        assert_eq!(loaded.chain.len(), 1);
        assert_eq!(loaded.trusted_ca.as_ref().unwrap().1.len(), 1);
        let wrong = PeerTlsFiles {
            key: write(dir.path(), "other.pem", &other.serialize_pem()),
            ..files.clone()
        };
        let e = wrong.load().unwrap().key_matches.unwrap_err();
        assert!(e.contains("not the certificate's"), "{e}");
        let garbage = write(dir.path(), "garbage.pem", "not PEM");
        let e = PeerTlsFiles {
            cert: garbage.clone(),
            ..files.clone()
        }
        .load()
        .unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Usage);
        assert!(e.message.starts_with("--peer-cert"), "{}", e.message);
        let e = PeerTlsFiles {
            key: garbage,
            ..files.clone()
        }
        .load()
        .unwrap_err();
        assert!(e.message.starts_with("--peer-key"), "{}", e.message);
        let e = PeerTlsFiles {
            trusted_ca: Some(dir.path().join("missing.pem")),
            ..files
        }
        .load()
        .unwrap_err();
        assert!(
            e.message.contains("cannot read --peer-trusted-ca"),
            "{}",
            e.message
        );
    }

    /// A peer port that requires a client certificate (as etcd's with
    /// `--peer-client-cert-auth`): its chain is read all the same.
    #[tokio::test]
    async fn the_chain_is_read_from_a_server_that_wants_a_client_certificate() {
        use rustls::pki_types::PrivatePkcs8KeyDer;
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = p.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.der().clone()).unwrap();
        let clients = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        .unwrap();
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_client_cert_verifier(clients)
            .with_single_cert(
                vec![cert.der().clone(), ca.der().clone()],
                PrivatePkcs8KeyDer::from(key.serialize_der()).into(),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let _ = acceptor.accept(tcp).await;
        });
        let chain = read_chain(&format!("https://127.0.0.1:{port}"), Duration::from_secs(3))
            .await
            .unwrap();
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].der, cert.der().to_vec());
        assert!(chain[1].is_ca);
        server.abort();
    }

    #[tokio::test]
    async fn a_closed_port_or_plain_url_is_an_error_naming_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let url = format!("https://127.0.0.1:{port}");
        let e = read_chain(&url, Duration::from_secs(1)).await.unwrap_err();
        assert!(e.contains(&url), "{e}");
        let e = read_chain("http://127.0.0.1:1", Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!(e.contains("not an https URL"), "{e}");
    }
}
