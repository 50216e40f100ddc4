//! Certificates for the TLS tests, generated on the spot (rcgen): a CA, a server certificate for 127.0.0.1, a client certificate; CAs of their own names issuing peer certificates of any names, usages and lifetime.

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

/// A CA with a name of its own, issuing peer certificates (the peer-tls check's tests).
pub struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
    /// The CA certificate's PEM file.
    pub pem: PathBuf,
}

/// A certificate to issue: its subjectAltNames, usages and how long it lasts.
pub struct Issue<'a> {
    pub names: &'a [&'a str],
    /// Extended key usages (empty: none, i.e. any use).
    pub usages: Vec<rcgen::ExtendedKeyUsagePurpose>,
    /// Days from now until it expires (negative: expired that long ago).
    pub days: i64,
}

impl Issue<'_> {
    /// A peer certificate for 127.0.0.1, serverAuth and clientAuth, valid a year.
    pub fn peer() -> Issue<'static> {
        Issue {
            names: &["127.0.0.1", "localhost"],
            usages: vec![
                rcgen::ExtendedKeyUsagePurpose::ServerAuth,
                rcgen::ExtendedKeyUsagePurpose::ClientAuth,
            ],
            days: 365,
        }
    }
}

impl Ca {
    /// A CA named `name` (its common name), its PEM written into `dir`.
    pub fn new(dir: &Path, name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let mut dn = rcgen::DistinguishedName::new();
        dn.push(rcgen::DnType::CommonName, name);
        p.distinguished_name = dn;
        let cert = p.self_signed(&key).unwrap();
        let pem = dir.join(format!("{}-ca.pem", name.replace(' ', "-")));
        std::fs::write(&pem, cert.pem()).unwrap();
        Ca { cert, key, pem }
    }

    /// Issues `what`, written into `dir` as `{tag}.pem` and `{tag}-key.pem`:
    /// (certificate, key).
    pub fn issue(&self, dir: &Path, tag: &str, what: Issue<'_>) -> (PathBuf, PathBuf) {
        self.issue_numbered(dir, tag, what, None)
    }

    /// As [`Ca::issue`], with the serial number `serial` (else rcgen's).
    pub fn issue_numbered(
        &self,
        dir: &Path,
        tag: &str,
        what: Issue<'_>,
        serial: Option<u64>,
    ) -> (PathBuf, PathBuf) {
        let key = KeyPair::generate().unwrap();
        let mut p =
            CertificateParams::new(what.names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .unwrap();
        p.extended_key_usages = what.usages;
        p.serial_number = serial.map(rcgen::SerialNumber::from);
        let mut dn = rcgen::DistinguishedName::new();
        dn.push(rcgen::DnType::CommonName, tag);
        p.distinguished_name = dn;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let not_after = now + what.days * 86_400;
        let not_before = (now - 86_400).min(not_after - 86_400);
        let epoch = rcgen::date_time_ymd(1970, 1, 1);
        p.not_before = epoch + std::time::Duration::from_secs(not_before as u64);
        p.not_after = epoch + std::time::Duration::from_secs(not_after as u64);
        let cert = p.signed_by(&key, &self.cert, &self.key).unwrap();
        let (c, k) = (
            dir.join(format!("{tag}.pem")),
            dir.join(format!("{tag}-key.pem")),
        );
        std::fs::write(&c, cert.pem()).unwrap();
        std::fs::write(&k, key.serialize_pem()).unwrap();
        (c, k)
    }

    /// A revocation list of this CA revoking `serials`, valid from yesterday
    /// for a year, written into `dir` as `{tag}.pem` (PEM, `X509 CRL`).
    pub fn revoke(&self, dir: &Path, tag: &str, serials: &[u64]) -> PathBuf {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        let epoch = rcgen::date_time_ymd(1970, 1, 1);
        let yesterday = epoch + now - std::time::Duration::from_secs(86_400);
        let params = rcgen::CertificateRevocationListParams {
            this_update: yesterday,
            next_update: yesterday + std::time::Duration::from_secs(366 * 86_400),
            crl_number: rcgen::SerialNumber::from(1u64),
            issuing_distribution_point: None,
            revoked_certs: serials
                .iter()
                .map(|s| rcgen::RevokedCertParams {
                    serial_number: rcgen::SerialNumber::from(*s),
                    revocation_time: yesterday,
                    reason_code: Some(rcgen::RevocationReason::KeyCompromise),
                    invalidity_date: None,
                })
                .collect(),
            key_identifier_method: rcgen::KeyIdMethod::Sha256,
        };
        let crl = params.signed_by(&self.cert, &self.key).unwrap();
        let path = dir.join(format!("{tag}.pem"));
        std::fs::write(&path, crl.pem().unwrap()).unwrap();
        path
    }
}
