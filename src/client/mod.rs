//! The gRPC client for etcd's membership API, in rooms: [`auth`] (credentials
//! and the token), [`tls`] (the TLS files, read once), [`endpoint`]
//! (normalisation), `channels` (connections and failover), `identity`
//! (whose server a connection reaches), `api` (the
//! [`MembershipApi`](crate::workflow::MembershipApi) implementation) and
//! `convert` (protobuf ↔ domain, the one place protobuf types end);
//! [`peer_tls`] reads peer certificates (the new member's files, and what a
//! member presents on its peer URL) for the `peer-tls` check; `start_flags`
//! reads whether a member runs with `--force-new-cluster`.

mod api;
pub mod auth;
mod channels;
mod convert;
mod election;
pub mod endpoint;
mod gather;
mod http;
mod identity;
mod insecure;
pub(crate) mod metrics;
pub mod peer_tls;
mod snapshot;
mod start_flags;
pub mod tls;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::FutureExt;

use tonic::transport::ClientTlsConfig;

pub use auth::Credentials;
pub use endpoint::normalize_endpoint;
use endpoint::normalize_with;
pub use tls::ClientTlsFiles;
use tls::IdentityPem;

use crate::error::Error;
use crate::workflow::{ApiError, ApiErrorKind};

/// How to reach the cluster.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Client URLs (`http://host:port` or `host:port`), tried in order.
    pub endpoints: Vec<String>,
    /// Connection timeout per endpoint.
    pub dial_timeout: Duration,
    /// Timeout of one request.
    pub command_timeout: Duration,
    /// Credentials, when the cluster has authentication enabled.
    pub credentials: Option<Credentials>,
    /// TLS material for https endpoints.
    pub tls: ClientTlsFiles,
}

/// A client of etcd's Cluster and Maintenance services.
pub struct Client {
    endpoints: Vec<String>,
    dial_timeout: Duration,
    command_timeout: Duration,
    channels: Mutex<HashMap<String, std::sync::Arc<channels::ChannelSlot>>>,
    preferred: Mutex<usize>,
    /// Client URLs of members seen in member lists, tried after `endpoints`:
    /// a command outlives the removal of every endpoint it was given (a
    /// move to new hosts).
    learned: Mutex<Vec<String>>,
    /// The cluster this command works on: the ID its first member list
    /// gave; a server of another cluster is asked nothing.
    cluster: Mutex<Option<u64>>,
    /// Each member's client URLs as the last member list gave them (a
    /// removal is sent through the members that stay).
    urls_of: Mutex<HashMap<crate::model::MemberId, Vec<String>>>,
    credentials: Option<Credentials>,
    tls: Option<ClientTlsConfig>,
    /// The servers' certificates verified as Go verifies them, with `--cacert`.
    verifier: Option<std::sync::Arc<dyn rustls::client::danger::ServerCertVerifier>>,
    insecure: bool,
    /// The client certificate and key (PEM), for the unverified TLS path.
    identity: Option<IdentityPem>,
    /// The CA bundle (PEM), for HTTPS GETs of a member's HTTP face.
    ca: Option<Vec<u8>>,
    /// The TLS configuration of those GETs, built on first use.
    http_tls: std::sync::OnceLock<Result<std::sync::Arc<rustls::ClientConfig>, String>>,
    /// This machine's process table, read once for every member's start
    /// flags.
    processes: start_flags::ProcessTable,
    /// How each client URL's server was started, read once per moment.
    start_flags: start_flags::Readings,
}

fn unavailable(msg: String) -> ApiError {
    ApiError::new(ApiErrorKind::Unavailable, msg)
}

impl Client {
    /// Builds a client; fails on a malformed endpoint. Connects lazily.
    pub fn new(config: ClientConfig) -> Result<Self, Error> {
        // As etcdctl: with TLS options, endpoints without a scheme use https.
        let scheme = if config.tls.any() { "https" } else { "http" };
        let endpoints = config
            .endpoints
            .iter()
            .map(|e| normalize_with(e, scheme))
            .collect::<Result<Vec<_>, _>>()?;
        let loaded = if config.tls.any() {
            Some(config.tls.load()?)
        } else {
            None
        };
        if endpoints.is_empty() {
            return Err(Error::usage(
                "no endpoint given; pass --endpoints host:port",
            ));
        }
        Ok(Client {
            endpoints,
            dial_timeout: config.dial_timeout,
            command_timeout: config.command_timeout,
            channels: Mutex::new(HashMap::new()),
            preferred: Mutex::new(0),
            learned: Mutex::new(Vec::new()),
            cluster: Mutex::new(None),
            urls_of: Mutex::new(HashMap::new()),
            credentials: config.credentials,
            tls: loaded.as_ref().map(|l| l.config.clone()),
            verifier: loaded.as_ref().and_then(|l| l.verifier.clone()),
            insecure: config.tls.insecure_skip_verify,
            ca: loaded.as_ref().and_then(|l| l.ca.clone()),
            identity: loaded.and_then(|l| l.identity),
            http_tls: std::sync::OnceLock::new(),
            processes: start_flags::ProcessTable::default(),
            start_flags: start_flags::Readings::default(),
        })
    }

    /// The endpoints, normalised.
    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// GETs `path` from `member`'s first client URL (its HTTP face), within
    /// the dial and command timeouts.
    async fn http_get(
        &self,
        member: &crate::model::Member,
        path: &str,
    ) -> Result<String, ApiError> {
        let raw = member.client_urls.first().ok_or_else(|| {
            unavailable(format!(
                "{} has no client URL (not started)",
                member.label()
            ))
        })?;
        let (base, tls) = self
            .http_face(raw, path)
            .map_err(|e| unavailable(format!("{}: {e}", member.label())))?;
        http::get(&base, path, tls, self.dial_timeout + self.command_timeout)
            .await
            .map_err(unavailable)
    }

    /// The HTTP face of client URL `raw` (normalised) and the TLS settings
    /// its GETs use (for https); `path` names the page in an error.
    fn http_face(
        &self,
        raw: &str,
        path: &str,
    ) -> Result<(String, Option<std::sync::Arc<rustls::ClientConfig>>), String> {
        let base = self.member_url(raw).map_err(|e| e.to_string())?;
        let tls = if base.starts_with("https://") {
            let built = self.http_tls.get_or_init(|| {
                http::tls_config(self.ca.as_deref(), self.insecure, self.identity.as_ref())
                    .map(std::sync::Arc::new)
            });
            Some(
                built
                    .clone()
                    .map_err(|e| format!("cannot read {base}{path}: TLS settings: {e}"))?,
            )
        } else {
            None
        };
        Ok((base, tls))
    }

    /// The reading of how the server at client URL `raw` was started: its
    /// `/debug/vars` and, where needed, /proc (see `start_flags`); started
    /// now unless a prefetch or another member's question started it.
    fn start_flags_of(&self, raw: &str) -> start_flags::Gathering {
        let key = self.member_url(raw).unwrap_or_else(|_| raw.to_string());
        self.start_flags.of(&key, || {
            let face = self.http_face(raw, "/debug/vars");
            let timeout = self.dial_timeout + self.command_timeout;
            let table = self.processes.reading();
            let url = raw.to_string();
            async move {
                let vars = async {
                    let (base, tls) = face?;
                    http::get(&base, "/debug/vars", tls, timeout).await
                };
                start_flags::gather(url, vars, table).await
            }
            .boxed()
        })
    }

    /// Remembers the cluster of `list` (the first one listed is the one this
    /// command works on) and its members' client URLs as endpoints to try
    /// after the given ones.
    fn learn(&self, list: &crate::model::MemberList) {
        let members = &list.members;
        if list.cluster_id.0 != 0 {
            let mut cluster = self.cluster.lock().unwrap_or_else(|p| p.into_inner());
            cluster.get_or_insert(list.cluster_id.0);
        }
        let scheme = if self.tls.is_some() || self.insecure {
            "https"
        } else {
            "http"
        };
        let mut urls_of = self.urls_of.lock().unwrap_or_else(|p| p.into_inner());
        let mut learned = self.learned.lock().unwrap_or_else(|p| p.into_inner());
        for m in members {
            let urls: Vec<String> = m
                .client_urls
                .iter()
                .filter_map(|u| normalize_with(u, scheme).ok())
                .collect();
            for url in &urls {
                if !self.endpoints.contains(url) && !learned.contains(url) {
                    learned.push(url.clone());
                }
            }
            urls_of.insert(m.id, urls);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_normalised() {
        assert_eq!(
            normalize_endpoint("127.0.0.1:2379").unwrap(),
            "http://127.0.0.1:2379"
        );
        assert_eq!(normalize_endpoint("http://h:1/").unwrap(), "http://h:1");
        assert_eq!(normalize_endpoint("https://h:1").unwrap(), "https://h:1");
        assert!(normalize_endpoint("h").is_err());
        assert!(normalize_endpoint("").is_err());
        assert!(normalize_endpoint("ftp://h:1").is_err());
    }

    #[test]
    fn tls_files_that_are_not_pem_are_usage_errors_naming_the_flag() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("garbage.pem");
        std::fs::write(&garbage, "not PEM").unwrap();
        let files = |cacert: bool, cert: bool, key: bool| ClientTlsFiles {
            cacert: cacert.then(|| garbage.clone()),
            cert: cert.then(|| garbage.clone()),
            key: key.then(|| garbage.clone()),
            insecure_skip_verify: false,
        };
        for (f, flag) in [
            (files(true, false, false), "--cacert"),
            (files(false, true, true), "--cert"),
        ] {
            let e = f.load().unwrap_err();
            assert_eq!(e.kind, crate::ErrorKind::Usage);
            assert!(e.message.starts_with(flag), "{}", e.message);
        }
        let e = ClientTlsFiles {
            key: Some(garbage.clone()),
            ..Default::default()
        }
        .load()
        .unwrap_err();
        assert!(e.message.contains("no PEM private key"), "{}", e.message);
    }
}
