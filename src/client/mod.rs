//! The gRPC client for etcd's membership API: endpoints with failover, dial and
//! command timeouts, and the [`MembershipApi`] implementation.

mod convert;
mod insecure;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use crate::error::Error;
use crate::model::{
    Added, Configuration, JointChange, Member, MemberId, MemberList, MemberStatus, ProgressReport,
};
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::auth_client::AuthClient;
use crate::proto::etcdserverpb::cluster_client::ClusterClient;
use crate::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use crate::proto::memberctl_v1 as mpb;
use crate::proto::memberctl_v1::membership_client::MembershipClient;
use crate::workflow::{ApiError, ApiErrorKind, MembershipApi};

/// A user name and password for etcd's authentication.
#[derive(Clone)]
pub struct Credentials {
    /// The user.
    pub user: String,
    /// The password (never printed).
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Credentials {{ user: {:?}, password: <hidden> }}",
            self.user
        )
    }
}

/// Adds the authentication token (when there is one) to every request.
#[derive(Clone, Default)]
pub struct Token(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Token {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(t) = &self.0 {
            req.metadata_mut().insert("token", t.clone());
        }
        Ok(req)
    }
}

/// A connection with the token interceptor.
pub type AuthChannel = tonic::service::interceptor::InterceptedService<Channel, Token>;

/// A client certificate chain and its key, PEM.
pub type IdentityPem = (Vec<u8>, Vec<u8>);

/// TLS material for https endpoints (PEM files, read once).
#[derive(Clone, Debug, Default)]
pub struct TlsFiles {
    /// CA bundle that signs the servers' certificates.
    pub cacert: Option<std::path::PathBuf>,
    /// Client certificate (with `key`), for servers that require one.
    pub cert: Option<std::path::PathBuf>,
    /// Client key.
    pub key: Option<std::path::PathBuf>,
    /// Skip verifying the servers' certificates.
    pub insecure_skip_verify: bool,
}

impl TlsFiles {
    /// Whether any TLS option was given.
    pub fn any(&self) -> bool {
        self.cacert.is_some()
            || self.cert.is_some()
            || self.key.is_some()
            || self.insecure_skip_verify
    }

    /// The client certificate and key, read.
    pub fn identity_pem(&self) -> Result<Option<IdentityPem>, Error> {
        let read = |flag: &str, p: &std::path::Path| {
            std::fs::read(p)
                .map_err(|e| Error::usage(format!("cannot read {flag} {}: {e}", p.display())))
        };
        match (&self.cert, &self.key) {
            (Some(c), Some(k)) => Ok(Some((read("--cert", c)?, read("--key", k)?))),
            _ => Ok(None),
        }
    }

    /// Checks that the files hold what their flags need (PEM certificates, a
    /// PEM private key) and that TLS can be set up with them, so that wrong
    /// material is a usage error naming the flag rather than a failed
    /// connection; the TLS configuration they describe.
    pub fn check(&self) -> Result<ClientTlsConfig, Error> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let read = |flag: &str, p: &std::path::Path| {
            std::fs::read(p)
                .map_err(|e| Error::usage(format!("cannot read {flag} {}: {e}", p.display())))
        };
        let certificates = |flag: &str, p: &std::path::Path| -> Result<(), Error> {
            let pem = read(flag, p)?;
            let certs: Result<Vec<CertificateDer<'static>>, _> =
                CertificateDer::pem_slice_iter(&pem).collect();
            match certs {
                Ok(c) if !c.is_empty() => Ok(()),
                _ => Err(Error::usage(format!(
                    "{flag} {} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give a \
                     certificate file in PEM",
                    p.display()
                ))),
            }
        };
        if let Some(ca) = &self.cacert {
            certificates("--cacert", ca)?;
        }
        if let Some(cert) = &self.cert {
            certificates("--cert", cert)?;
        }
        if let Some(key) = &self.key {
            if PrivateKeyDer::from_pem_slice(&read("--key", key)?).is_err() {
                return Err(Error::usage(format!(
                    "--key {} holds no PEM private key (-----BEGIN PRIVATE KEY-----); give the \
                     client certificate's key in PEM",
                    key.display()
                )));
            }
        }
        let config = self.client_config()?;
        if self.insecure_skip_verify {
            return Ok(config);
        }
        Endpoint::from_static("https://127.0.0.1")
            .tls_config(config.clone())
            .map(|_| config)
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
            })
    }

    /// The tonic TLS configuration these files describe.
    pub fn client_config(&self) -> Result<ClientTlsConfig, Error> {
        let read = |flag: &str, p: &std::path::Path| {
            std::fs::read(p)
                .map_err(|e| Error::usage(format!("cannot read {flag} {}: {e}", p.display())))
        };
        let mut cfg = ClientTlsConfig::new();
        if let Some(ca) = &self.cacert {
            cfg = cfg.ca_certificate(Certificate::from_pem(read("--cacert", ca)?));
        }
        match (&self.cert, &self.key) {
            (Some(c), Some(k)) => {
                cfg = cfg.identity(Identity::from_pem(read("--cert", c)?, read("--key", k)?))
            }
            (None, None) => {}
            _ => return Err(Error::usage("--cert and --key go together")),
        }
        Ok(cfg)
    }
}

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
    pub tls: TlsFiles,
}

/// A client of etcd's Cluster and Maintenance services.
pub struct Client {
    endpoints: Vec<String>,
    dial_timeout: Duration,
    command_timeout: Duration,
    channels: Mutex<HashMap<String, AuthChannel>>,
    preferred: Mutex<usize>,
    credentials: Option<Credentials>,
    tls: Option<ClientTlsConfig>,
    insecure: bool,
    /// The client certificate and key (PEM), for the unverified TLS path.
    identity: Option<IdentityPem>,
}

/// Turns `host:port` into `http://host:port` and checks the scheme.
pub fn normalize_endpoint(raw: &str) -> Result<String, Error> {
    normalize_with(raw, "http")
}

/// Like [`normalize_endpoint`], with `scheme` for endpoints that have none.
fn normalize_with(raw: &str, scheme: &str) -> Result<String, Error> {
    let raw = raw.trim().trim_end_matches('/');
    if raw.is_empty() {
        return Err(Error::usage(
            "an endpoint is empty; give --endpoints host:port[,host:port]",
        ));
    }
    let url = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("{scheme}://{raw}")
    };
    let parsed = url::Url::parse(&url).map_err(|e| {
        Error::usage(format!(
            "endpoint {raw:?} is not a URL ({e}); write it as http://host:port"
        ))
    })?;
    match parsed.scheme() {
        "http" | "https" => {}
        s => {
            return Err(Error::usage(format!(
                "endpoint {raw:?} has scheme {s:?}; use http://host:port"
            )))
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) || parsed.port().is_none() {
        return Err(Error::usage(format!(
            "endpoint {raw:?} needs a host and a port, e.g. 127.0.0.1:2379"
        )));
    }
    Ok(url)
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
        let tls = if config.tls.any() {
            Some(config.tls.check()?)
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
            credentials: config.credentials,
            tls,
            insecure: config.tls.insecure_skip_verify,
            identity: config.tls.identity_pem()?,
        })
    }

    /// The endpoints, normalised.
    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// Authenticates on `channel` as the configured user; the token to send.
    async fn authenticate(&self, url: &str, channel: Channel) -> Result<Token, ApiError> {
        let Some(c) = &self.credentials else {
            return Ok(Token::default());
        };
        let req = pb::AuthenticateRequest {
            name: c.user.clone(),
            password: c.password.clone(),
        };
        let answer = tokio::time::timeout(
            self.command_timeout,
            AuthClient::new(channel).authenticate(req),
        )
        .await;
        let resp = match answer {
            Ok(Ok(r)) => r.into_inner(),
            Ok(Err(status)) => {
                let mut e = convert::api_error(&status);
                if e.message.starts_with("transport error") && url.starts_with("https://") {
                    e.message.push_str(" (a TLS server may have refused the client certificate: check --cert and --key)");
                }
                if e.kind == ApiErrorKind::Unimplemented {
                    return Err(ApiError::new(
                        ApiErrorKind::Unimplemented,
                        format!(
                            "{url}: the server does not support authentication (the memberctl \
                             engine has none); leave out --user and --password"
                        ),
                    ));
                }
                let kind = if e.kind == ApiErrorKind::Unavailable {
                    e.kind
                } else {
                    ApiErrorKind::Refused
                };
                return Err(ApiError::new(
                    kind,
                    format!(
                        "{url}: authentication as {:?} failed: {}; check --user and --password",
                        c.user, e.message
                    ),
                ));
            }
            Err(_) => {
                return Err(unavailable(format!(
                    "{url}: no answer to authentication within --command-timeout"
                )))
            }
        };
        let value = resp.token.parse().map_err(|_| {
            ApiError::new(
                ApiErrorKind::Other,
                format!("{url}: the server sent an unusable token"),
            )
        })?;
        Ok(Token(Some(value)))
    }

    async fn channel(&self, url: &str) -> Result<AuthChannel, ApiError> {
        if let Some(c) = self
            .channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(url)
        {
            return Ok(c.clone());
        }
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|e| unavailable(format!("endpoint {url}: {e}")))?
            .connect_timeout(self.dial_timeout)
            .tcp_nodelay(true);
        let https = url.starts_with("https://");
        if https && !self.insecure {
            let tls = self.tls.clone().ok_or_else(|| {
                ApiError::new(
                    ApiErrorKind::Refused,
                    format!("{url} uses https: give --cacert (and --cert/--key if the server asks for a client certificate)"),
                )
            })?;
            endpoint = endpoint.tls_config(tls).map_err(|e| {
                ApiError::new(ApiErrorKind::Refused, format!("{url}: TLS settings: {e}"))
            })?;
        }
        let connect = async {
            if https && self.insecure {
                insecure::connect(endpoint, url, self.identity.as_ref()).await
            } else {
                endpoint.connect().await
            }
        };
        let channel = match tokio::time::timeout(self.dial_timeout, connect).await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                let mut cause = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    cause = s.to_string();
                    source = s.source();
                }
                let hint = if https {
                    " (check --cacert, --cert and --key)"
                } else {
                    ""
                };
                return Err(unavailable(format!(
                    "cannot connect to {url}: {cause}{hint}"
                )));
            }
            Err(_) => {
                return Err(unavailable(format!(
                    "cannot connect to {url}: no answer within --dial-timeout {}",
                    humantime::format_duration(self.dial_timeout)
                )))
            }
        };
        let token = self.authenticate(url, channel.clone()).await?;
        let channel = tonic::service::interceptor::InterceptedService::new(channel, token);
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(url.to_string(), channel.clone());
        Ok(channel)
    }

    /// Runs one request against `url` within the command timeout. The flag
    /// with an error says whether another endpoint may be tried: always when
    /// the connection failed or a learner refused; for other unavailability
    /// only when the request is `idempotent` (a write may have been applied).
    async fn once<T, F, Fut>(
        &self,
        url: &str,
        idempotent: bool,
        call: &F,
    ) -> Result<T, (ApiError, bool)>
    where
        F: Fn(AuthChannel) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        // An unreachable endpoint: try the next; a refused authentication: stop.
        let channel = self.channel(url).await.map_err(|e| {
            let next = e.kind == ApiErrorKind::Unavailable;
            (e, next)
        })?;
        match tokio::time::timeout(self.command_timeout, call(channel)).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(status)) => {
                let e = convert::api_error(&status);
                // A learner refuses most calls; another endpoint may be a voter.
                let learner = status.message().contains("not supported for learner");
                let next = learner || (idempotent && e.kind == ApiErrorKind::Unavailable);
                Err((ApiError::new(e.kind, format!("{url}: {}", e.message)), next))
            }
            Err(_) => Err((
                ApiError::new(
                    ApiErrorKind::DeadlineExceeded,
                    format!(
                        "{url}: no answer within --command-timeout {}",
                        humantime::format_duration(self.command_timeout)
                    ),
                ),
                false,
            )),
        }
    }

    /// Runs a request on the preferred endpoint, moving on to the next one
    /// while endpoints are unreachable or refuse as unavailable.
    async fn call<T, F, Fut>(&self, idempotent: bool, call: F) -> Result<T, ApiError>
    where
        F: Fn(AuthChannel) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        let n = self.endpoints.len();
        let start = *self.preferred.lock().unwrap_or_else(|p| p.into_inner());
        let mut errors = Vec::new();
        for k in 0..n {
            let i = (start + k) % n;
            let url = &self.endpoints[i];
            match self.once(url, idempotent, &call).await {
                Ok(v) => {
                    *self.preferred.lock().unwrap_or_else(|p| p.into_inner()) = i;
                    return Ok(v);
                }
                Err((e, true)) => errors.push(e),
                Err((e, false)) => return Err(e),
            }
        }
        if errors.len() == 1 {
            return Err(errors.remove(0));
        }
        let all: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
        Err(unavailable(format!(
            "no endpoint answered: {}",
            all.join("; ")
        )))
    }

    /// Runs one request at `member` itself, through its own client URLs (tried
    /// in order), rather than at whichever endpoint answers.
    async fn at_member<T, F, Fut>(&self, member: &Member, call: F) -> Result<T, ApiError>
    where
        F: Fn(AuthChannel) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        if member.client_urls.is_empty() {
            return Err(unavailable(format!(
                "member {} has not started: it has no client URL yet",
                member.label()
            )));
        }
        let scheme = if self.tls.is_some() || self.insecure {
            "https"
        } else {
            "http"
        };
        let mut last = None;
        for raw in &member.client_urls {
            let url = match normalize_with(raw, scheme) {
                Ok(u) => u,
                Err(e) => {
                    last = Some(unavailable(e.message));
                    continue;
                }
            };
            match self.once(&url, true, &call).await {
                Ok(v) => return Ok(v),
                Err((e, _)) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| unavailable("no client URL".into())))
    }
}

impl MembershipApi for Client {
    /// Asks for a linearizable list (etcd ≥ 3.5 and the memberctl engine
    /// confirm it with the leader; 3.4 ignores the flag); without a leader,
    /// falls back to a member's local view so status stays available.
    async fn member_list(&self) -> Result<MemberList, ApiError> {
        let list = |linearizable: bool| {
            self.call(true, move |ch| async move {
                ClusterClient::new(ch)
                    .member_list(pb::MemberListRequest { linearizable })
                    .await
                    .map(|r| r.into_inner())
            })
        };
        let r = match list(true).await {
            Ok(r) => r,
            Err(e)
                if matches!(
                    e.kind,
                    ApiErrorKind::Unavailable | ApiErrorKind::DeadlineExceeded
                ) =>
            {
                list(false).await?
            }
            Err(e) => return Err(e),
        };
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_add(&self, peer_urls: &[String], is_learner: bool) -> Result<Added, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = pb::MemberAddRequest {
                    peer_ur_ls: peer_urls.to_vec(),
                    is_learner,
                };
                ClusterClient::new(ch)
                    .member_add(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        let list = convert::member_list(r.header, r.members);
        let member = r.member.map(convert::member).unwrap_or_default();
        // The add response's member lacks some fields; prefer the list's copy.
        let member = list.get(member.id).cloned().unwrap_or(member);
        Ok(Added { member, list })
    }

    async fn member_remove(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let r = self
            .call(false, |ch| async move {
                ClusterClient::new(ch)
                    .member_remove(pb::MemberRemoveRequest { id: id.0 })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_update(
        &self,
        id: MemberId,
        peer_urls: &[String],
    ) -> Result<MemberList, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = pb::MemberUpdateRequest {
                    id: id.0,
                    peer_ur_ls: peer_urls.to_vec(),
                };
                ClusterClient::new(ch)
                    .member_update(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_promote(&self, id: MemberId) -> Result<MemberList, ApiError> {
        let r = self
            .call(false, |ch| async move {
                ClusterClient::new(ch)
                    .member_promote(pb::MemberPromoteRequest { id: id.0 })
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::member_list(r.header, r.members))
    }

    async fn member_status(&self, member: &Member) -> Result<MemberStatus, ApiError> {
        self.at_member(member, |ch| async move {
            MaintenanceClient::new(ch)
                .status(pb::StatusRequest {})
                .await
                .map(|r| r.into_inner())
        })
        .await
        .map(convert::status)
    }

    async fn move_leader(&self, leader: &Member, target: MemberId) -> Result<(), ApiError> {
        self.at_member(leader, |ch| async move {
            MaintenanceClient::new(ch)
                .move_leader(pb::MoveLeaderRequest {
                    target_id: target.0,
                })
                .await
                .map(|_| ())
        })
        .await
    }

    async fn get_config(&self) -> Result<Configuration, ApiError> {
        let r = self
            .call(true, |ch| async move {
                MembershipClient::new(ch)
                    .get_config(mpb::GetConfigRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
    }

    async fn get_progress(&self) -> Result<ProgressReport, ApiError> {
        let r = self
            .call(true, |ch| async move {
                MembershipClient::new(ch)
                    .get_progress(mpb::GetProgressRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::progress(r))
    }

    async fn joint_enter(&self, changes: &[JointChange]) -> Result<Configuration, ApiError> {
        let r = self
            .call(false, |ch| async move {
                let req = mpb::JointEnterRequest {
                    changes: changes.iter().map(convert::joint_change).collect(),
                };
                MembershipClient::new(ch)
                    .joint_enter(req)
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
    }

    async fn joint_leave(&self) -> Result<Configuration, ApiError> {
        let r = self
            .call(false, |ch| async move {
                MembershipClient::new(ch)
                    .joint_leave(mpb::JointLeaveRequest {})
                    .await
                    .map(|r| r.into_inner())
            })
            .await?;
        Ok(convert::configuration(r))
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
        let files = |cacert: bool, cert: bool, key: bool| TlsFiles {
            cacert: cacert.then(|| garbage.clone()),
            cert: cert.then(|| garbage.clone()),
            key: key.then(|| garbage.clone()),
            insecure_skip_verify: false,
        };
        for (f, flag) in [
            (files(true, false, false), "--cacert"),
            (files(false, true, true), "--cert"),
        ] {
            let e = f.check().unwrap_err();
            assert_eq!(e.kind, crate::ErrorKind::Usage);
            assert!(e.message.starts_with(flag), "{}", e.message);
        }
        let e = TlsFiles {
            key: Some(garbage.clone()),
            ..Default::default()
        }
        .check()
        .unwrap_err();
        assert!(e.message.contains("no PEM private key"), "{}", e.message);
    }
}
