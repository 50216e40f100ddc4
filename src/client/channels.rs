//! Connections and failover: one cached, authenticated channel per endpoint;
//! a request tries the preferred endpoint and moves on while endpoints are
//! unreachable (or refuse as learners); per-member requests go to a member's
//! own client URLs.

use std::future::Future;
use std::sync::Mutex;

use tonic::transport::Endpoint;

use super::auth::AuthChannel;
use super::endpoint::normalize_with;
use super::identity::{self, Identity};
use super::{convert, gather, insecure, unavailable, Client};
use crate::model::{Member, MemberId};
use crate::proto::etcdserverpb as pb;
use crate::workflow::{ApiError, ApiErrorKind};

/// The connection to one URL, shared by the requests of a command.
#[derive(Default)]
pub(super) struct ChannelSlot {
    /// The open connection and whose server it reaches (None: it did not
    /// say); held while one is being opened.
    open: tokio::sync::Mutex<Option<(AuthChannel, Option<Identity>)>>,
    /// How many attempts to open it have failed, and the last one's error.
    failed: Mutex<(u64, Option<ApiError>)>,
    /// The status its server gave as the connection opened (the identity
    /// question) and when, until a status request takes it.
    opened_status: Mutex<Option<(std::time::Instant, pb::StatusResponse)>>,
}

/// How long the status a connection's opening read answers a status
/// request in its place: a request of the same moment.
const OPENED_STATUS_FRESH: std::time::Duration = std::time::Duration::from_millis(500);

impl Client {
    /// A member's client URL as requests use it (normalised, with the
    /// client's scheme when it has none).
    pub(super) fn member_url(&self, raw: &str) -> Result<String, crate::error::Error> {
        let scheme = if self.tls.is_some() || self.insecure {
            "https"
        } else {
            "http"
        };
        normalize_with(raw, scheme)
    }

    /// The connection to `url` and whose server it reaches: the open one,
    /// else a new one. Requests that want the same connection at once share
    /// one attempt and its answer (an unreachable endpoint is waited for
    /// once, not once per request).
    pub(super) async fn channel(
        &self,
        url: &str,
    ) -> Result<(AuthChannel, Option<Identity>), ApiError> {
        let slot = self
            .channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(url.to_string())
            .or_default()
            .clone();
        let failed = || slot.failed.lock().unwrap_or_else(|p| p.into_inner());
        let failures_before = failed().0;
        let mut open = slot.open.lock().await;
        if let Some(c) = open.as_ref() {
            return Ok(c.clone());
        }
        // An attempt that failed while this request waited answers it too.
        if let (n, Some(e)) = &*failed() {
            if *n > failures_before {
                return Err(e.clone());
            }
        }
        match self.connect(url).await {
            Ok((channel, identified)) => {
                let identity = identified.as_ref().map(|(id, _)| *id);
                if let Some((_, status)) = identified {
                    *slot.opened_status.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((std::time::Instant::now(), status));
                }
                *open = Some((channel.clone(), identity));
                Ok((channel, identity))
            }
            Err(e) => {
                let mut f = failed();
                *f = (f.0 + 1, Some(e.clone()));
                Err(e)
            }
        }
    }

    /// The status of the server at `url`: the one its connection's opening
    /// just read, when that is fresh and not taken yet (one round trip
    /// fewer for a command that opens a connection to ask it), else asked
    /// now. Refused, as every request, where another cluster answers.
    pub(super) async fn status_once(&self, url: &str) -> Result<pb::StatusResponse, ApiError> {
        if let Ok((_, identity)) = self.channel(url).await {
            if identity::other_cluster(url, identity, self.pinned_cluster()).is_none() {
                let opened = self.slot(url).and_then(|s| {
                    s.opened_status
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .take()
                });
                if let Some((at, status)) = opened {
                    if at.elapsed() <= OPENED_STATUS_FRESH {
                        return Ok(status);
                    }
                }
            }
        }
        let call = |ch| async move {
            pb::maintenance_client::MaintenanceClient::new(ch)
                .status(pb::StatusRequest {})
                .await
                .map(|r| r.into_inner())
        };
        self.once(url, true, &call).await.map_err(|(e, _)| e)
    }

    /// Opens and authenticates a new connection to `url`, and asks whose
    /// server it reaches.
    async fn connect(
        &self,
        url: &str,
    ) -> Result<(AuthChannel, Option<(Identity, pb::StatusResponse)>), ApiError> {
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|e| unavailable(format!("endpoint {url}: {e}")))?
            .connect_timeout(self.dial_timeout);
        let https = url.starts_with("https://");
        if https && !self.insecure {
            // A TLS set-up mistake is met like every other (no answer on
            // these settings: unavailable), naming the flag to check.
            let tls = self.tls.clone().ok_or_else(|| {
                unavailable(format!(
                    "{url} uses https but no CA was given: give --cacert (and --cert/--key if \
                     the server asks for a client certificate)"
                ))
            })?;
            let with_tls = match &self.verifier {
                Some(v) => endpoint.tls_config_with_verifier(tls, v.clone()),
                None => endpoint.tls_config(tls),
            };
            endpoint = with_tls.map_err(|e| {
                unavailable(format!(
                    "{url}: the TLS settings cannot be used ({e}): check --cacert, --cert and --key"
                ))
            })?;
        }
        let target =
            url::Url::parse(url).map_err(|e| unavailable(format!("endpoint {url}: {e}")))?;
        let connect = async {
            if https && self.insecure {
                insecure::connect(endpoint, url, self.identity.as_ref()).await
            } else {
                // One dial per connection (identity::OneDial).
                let one_dial = identity::OneDial::default();
                endpoint
                    .connect_with_connector(tower::service_fn(move |_| {
                        let (target, one_dial) = (target.clone(), one_dial.clone());
                        async move {
                            one_dial.dial()?;
                            gather::connect(target).await
                        }
                    }))
                    .await
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
                let hint = self.tls_hint(url, &cause);
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
        match identity::identify(channel.clone(), self.dial_timeout).await {
            Ok(identity) => Ok((channel, identity)),
            Err(status) => {
                let e = convert::api_error(&status);
                let hint = self.tls_hint(url, &e.message);
                Err(unavailable(format!("{url}: {}{hint}", e.message)))
            }
        }
    }

    /// Runs one request against `url` within the command timeout. The flag
    /// with an error says whether another endpoint may be tried: always when
    /// the connection failed or a learner refused; for other unavailability,
    /// and for no answer within the command timeout (an endpoint whose
    /// packets are dropped), only when the request is `idempotent` (a write
    /// may have been applied).
    pub(super) async fn once<T, F, Fut>(
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
        let (channel, identity) = self.channel(url).await.map_err(|e| {
            let next = e.kind == ApiErrorKind::Unavailable;
            (e, next)
        })?;
        // Another cluster's server is asked nothing: the next may be ours.
        if let Some(e) = identity::other_cluster(url, identity, self.pinned_cluster()) {
            return Err((e, true));
        }
        match tokio::time::timeout(self.command_timeout, call(channel)).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(status)) => {
                let e = convert::api_error(&status);
                // A connection that broke (or whose call was cancelled as its
                // server stopped) is not asked again.
                if e.kind == ApiErrorKind::Unavailable || status.code() == tonic::Code::Cancelled {
                    self.forget(url).await;
                }
                // A learner refuses most calls; another endpoint may be a voter.
                let learner = status.message().contains("not supported for learner");
                // A connection refused sent nothing: a change may go on too
                // (an open channel to a member that stopped since).
                let unsent = e.kind == ApiErrorKind::Unavailable
                    && e.message.to_lowercase().contains("connection refused");
                let next = learner || unsent || (idempotent && e.kind == ApiErrorKind::Unavailable);
                let hint = if e.kind == ApiErrorKind::Unavailable {
                    self.tls_hint(url, &e.message)
                } else {
                    String::new()
                };
                Err((
                    ApiError::new(e.kind, format!("{url}: {}{hint}", e.message)),
                    next,
                ))
            }
            // A read that got no answer changed nothing; a write may have
            // been applied all the same, and the operator is told so.
            Err(_) => Err((
                ApiError::new(
                    ApiErrorKind::DeadlineExceeded,
                    format!(
                        "{url}: no answer within --command-timeout {}{}",
                        humantime::format_duration(self.command_timeout),
                        if idempotent {
                            ""
                        } else {
                            " (the change may still have been applied: run `memberctl member list`)"
                        }
                    ),
                ),
                idempotent,
            )),
        }
    }

    /// Runs a request on the preferred endpoint, moving on to the next one
    /// while endpoints are unreachable or refuse as unavailable.
    pub(super) async fn call<T, F, Fut>(&self, idempotent: bool, call: F) -> Result<T, ApiError>
    where
        F: Fn(AuthChannel) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        self.call_avoiding(&[], idempotent, call).await
    }

    /// As [`Client::call`], with the client URLs of the members in `avoid`
    /// (when the last member list named them) tried last: a member that
    /// removes itself stops as it applies its removal, and may not get its
    /// answer out.
    pub(super) async fn call_avoiding<T, F, Fut>(
        &self,
        avoid: &[MemberId],
        idempotent: bool,
        call: F,
    ) -> Result<T, ApiError>
    where
        F: Fn(AuthChannel) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        let learned = self
            .learned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let avoided: Vec<String> = {
            let urls = self.urls_of.lock().unwrap_or_else(|p| p.into_inner());
            avoid
                .iter()
                .filter_map(|id| urls.get(id))
                .flatten()
                .cloned()
                .collect()
        };
        let endpoints: Vec<&String> = self.endpoints.iter().chain(&learned).collect();
        let n = endpoints.len();
        let start = *self.preferred.lock().unwrap_or_else(|p| p.into_inner()) % n.max(1);
        let mut errors = Vec::new();
        for i in attempt_order(&endpoints, start, &avoided) {
            let url = endpoints[i];
            match self.once(url, idempotent, &call).await {
                Ok(v) => {
                    *self.preferred.lock().unwrap_or_else(|p| p.into_inner()) = i;
                    return Ok(v);
                }
                Err((e, next)) => {
                    // The next request starts elsewhere: an endpoint that
                    // did not answer (a member stopping) may hold it up again.
                    if matches!(
                        e.kind,
                        ApiErrorKind::Unavailable | ApiErrorKind::DeadlineExceeded
                    ) {
                        let mut preferred =
                            self.preferred.lock().unwrap_or_else(|p| p.into_inner());
                        if *preferred % n.max(1) == i {
                            *preferred = (i + 1) % n.max(1);
                        }
                    }
                    if !next {
                        return Err(e);
                    }
                    errors.push(e);
                }
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

    /// `: HINT` naming the TLS flag to check when `cause` (a failure at
    /// `url`) looks like a TLS set-up mistake, else nothing.
    fn tls_hint(&self, url: &str, cause: &str) -> String {
        super::tls::hint(url, cause, self.identity.is_some())
            .map(|h| format!(": {h}"))
            .unwrap_or_default()
    }

    /// Drops the open connection to `url`: the next request opens a new one
    /// and asks again who answers there.
    async fn forget(&self, url: &str) {
        if let Some(slot) = self.slot(url) {
            *slot.open.lock().await = None;
        }
    }

    /// The connection slot of `url`, if a request made one.
    fn slot(&self, url: &str) -> Option<std::sync::Arc<ChannelSlot>> {
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(url)
            .cloned()
    }

    /// The cluster this command works on: the one its first member list
    /// came from (None before one did).
    fn pinned_cluster(&self) -> Option<u64> {
        *self.cluster.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs one request at `member` itself, through its own client URLs (tried
    /// in order), rather than at whichever endpoint answers; a URL where
    /// another member answers is not asked.
    pub(super) async fn at_member<T, F, Fut>(&self, member: &Member, call: F) -> Result<T, ApiError>
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
        let mut last = None;
        for raw in &member.client_urls {
            let url = match self.member_url(raw) {
                Ok(u) => u,
                Err(e) => {
                    last = Some(unavailable(e.message));
                    continue;
                }
            };
            if let Ok((_, Some(id))) = self.channel(&url).await {
                let other = identity::other_cluster(&url, Some(id), self.pinned_cluster())
                    .or_else(|| identity::other_member(&url, id.member, member));
                if let Some(e) = other {
                    last = Some(e);
                    continue;
                }
            }
            match self.once(&url, true, &call).await {
                Ok(v) => return Ok(v),
                Err((e, _)) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| unavailable("no client URL".into())))
    }
}

/// The order in which `endpoints` are tried: round from `start` (the one
/// that answered last), those in `avoided` last.
fn attempt_order(endpoints: &[&String], start: usize, avoided: &[String]) -> Vec<usize> {
    let n = endpoints.len();
    let mut order: Vec<usize> = (0..n).map(|k| (start + k) % n).collect();
    order.sort_by_key(|&i| avoided.contains(endpoints[i]));
    order
}

#[cfg(test)]
mod tests {
    use super::attempt_order;

    #[test]
    fn endpoints_are_tried_from_the_last_that_answered_and_the_avoided_last() {
        let urls: Vec<String> = ["http://a:1", "http://b:1", "http://c:1"]
            .map(String::from)
            .to_vec();
        let endpoints: Vec<&String> = urls.iter().collect();
        assert_eq!(attempt_order(&endpoints, 1, &[]), [1, 2, 0]);
        assert_eq!(attempt_order(&endpoints, 1, &[urls[1].clone()]), [2, 0, 1]);
        assert_eq!(attempt_order(&endpoints, 0, &[urls[2].clone()]), [0, 1, 2]);
        assert!(attempt_order(&[], 0, &[]).is_empty());
    }
}
