//! etcd's `--auto-tls` and `--peer-auto-tls`: a self-signed certificate made at start, kept in the data directory (`fixtures/client`, `fixtures/peer`, as etcd keeps it) and used again at the next start.

use std::path::{Path, PathBuf};

use super::error::{because, StartupError};
use super::options::{AutoTls, ListenerTls, NodeOptions};
use crate::log;

/// `opts` with the self-signed certificates its auto-TLS flags ask for:
/// made (or found) for a side without certificate files; a side with files
/// keeps them, and the log says the flag is ignored, as etcd's does.
pub fn fill(mut opts: NodeOptions) -> Result<NodeOptions, StartupError> {
    let auto = opts.auto_tls.clone();
    if auto.client {
        if opts.client_tls.is_some() {
            slog::warn!(log::logger(), "ignoring client auto TLS since certs given");
        } else {
            let dir = opts.data_dir.join("fixtures").join("client");
            opts.client_tls = Some(listener(&dir, &opts.listen_client_urls, false, &auto)?);
        }
    }
    if auto.peer {
        if opts.peer_tls.is_some() {
            slog::warn!(log::logger(), "ignoring peer auto TLS since certs given");
        } else {
            let dir = opts.data_dir.join("fixtures").join("peer");
            opts.peer_tls = Some(listener(&dir, &opts.listen_peer_urls, true, &auto)?);
        }
    }
    Ok(opts)
}

/// The hosts of `urls` (IP addresses or names), once each.
fn hosts(urls: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for u in urls {
        let host = url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(|h| h.trim_matches(['[', ']']).to_string()));
        if let Some(h) = host.filter(|h| !out.contains(h)) {
            out.push(h);
        }
    }
    out
}

/// The certificate in `dir` (`cert.pem`, `key.pem`), made first when
/// either is missing, for the hosts of `urls`; a peer's also for client
/// authentication, as it is presented when dialling peers.
fn listener(
    dir: &Path,
    urls: &[String],
    peer: bool,
    auto: &AutoTls,
) -> Result<ListenerTls, StartupError> {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    if !(cert.exists() && key.exists()) {
        make(dir, (&cert, &key), &hosts(urls), peer, auto.validity_years)?;
        slog::info!(log::logger(), "created cert file"; "path" => cert.display().to_string());
    }
    Ok(ListenerTls {
        cert,
        key,
        ca: None,
        client_cert_auth: false,
        crl: None,
        allowed: crate::listen::Allowed::Any,
        policy: auto.policy.clone(),
        self_signed: true,
    })
}

/// Writes a self-signed certificate for `hosts` and its key (mode 0600).
fn make(
    dir: &Path,
    (cert, key): (&PathBuf, &PathBuf),
    hosts: &[String],
    peer: bool,
    years: u32,
) -> Result<(), StartupError> {
    use std::os::unix::fs::DirBuilderExt;
    let fail = |what: &str, e: rcgen::Error| {
        StartupError::Tls(format!(
            "cannot make a self-signed certificate ({what}): {e}"
        ))
    };
    let io = |what: String| move |e: std::io::Error| StartupError::Tls(because(what, e));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io(format!("cannot create {}", dir.display())))?;
    let pair = rcgen::KeyPair::generate().map_err(|e| fail("key", e))?;
    let mut params = rcgen::CertificateParams::new(hosts.to_vec()).map_err(|e| fail("names", e))?;
    let mut name = rcgen::DistinguishedName::new();
    name.push(rcgen::DnType::OrganizationName, "etcd");
    params.distinguished_name = name;
    params.is_ca = rcgen::IsCa::ExplicitNoCa;
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now;
    params.not_after = now + time::Duration::days(365 * i64::from(years.max(1)));
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    if peer {
        params
            .extended_key_usages
            .push(rcgen::ExtendedKeyUsagePurpose::ClientAuth);
    }
    let made = params.self_signed(&pair).map_err(|e| fail("signing", e))?;
    write(key, &pair.serialize_pem(), 0o600)?;
    write(cert, &made.pem(), 0o644)?;
    Ok(())
}

/// Writes `text` into `path` with `mode`, durably.
fn write(path: &Path, text: &str, mode: u32) -> Result<(), StartupError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |e| StartupError::Tls(because(format!("cannot write {}", path.display()), e));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(path)
        .map_err(fail)?;
    f.write_all(text.as_bytes()).map_err(fail)?;
    f.sync_all().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_is_made_once_for_the_urls_hosts() {
        let dir = tempfile::tempdir().unwrap();
        let urls = [
            "https://127.0.0.1:2379".to_string(),
            "https://localhost:2379".to_string(),
            "https://127.0.0.1:22379".to_string(),
        ];
        assert_eq!(hosts(&urls), ["127.0.0.1", "localhost"]);
        let auto = AutoTls {
            peer: true,
            validity_years: 1,
            ..AutoTls::default()
        };
        let first = listener(dir.path(), &urls, true, &auto).unwrap();
        assert!(first.self_signed);
        let pem = std::fs::read(&first.cert).unwrap();
        let der = rustls::pki_types::pem::PemObject::from_pem_slice(&pem)
            .map(|c: rustls::pki_types::CertificateDer<'_>| c.to_vec())
            .unwrap();
        for host in ["127.0.0.1", "localhost"] {
            crate::listen::Allowed::Hostname(host.into())
                .check(&der)
                .unwrap();
        }
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&first.key).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        // The next start uses it again.
        let again = listener(dir.path(), &urls, true, &auto).unwrap();
        assert_eq!(std::fs::read(&again.cert).unwrap(), pem);
    }
}
