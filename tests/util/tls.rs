//! Certificates for the TLS tests, generated on the spot (rcgen): a CA, a server certificate for 127.0.0.1, a client certificate.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};

/// PEM files of one test PKI.
pub struct Pki {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

/// Writes a CA, a server certificate (127.0.0.1, localhost) and a client certificate into `dir`.
pub fn make(dir: &Path, tag: &str) -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issue = |names: Vec<String>| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = issue(vec!["127.0.0.1".into(), "localhost".into()]);
    let (client_cert, client_key) = issue(vec!["client".into()]);
    let write = |name: &str, text: &str| {
        let p = dir.join(format!("{tag}-{name}"));
        std::fs::write(&p, text).unwrap();
        p
    };
    Pki {
        ca: write("ca.pem", &ca.pem()),
        server_cert: write("server.pem", &server_cert),
        server_key: write("server-key.pem", &server_key),
        client_cert: write("client.pem", &client_cert),
        client_key: write("client-key.pem", &client_key),
    }
}
