//! etcd's authentication on the client side: credentials, the token every request carries, and getting one.

use tonic::transport::Channel;

use super::{convert, unavailable, Client};
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::auth_client::AuthClient;
use crate::workflow::{ApiError, ApiErrorKind};

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

impl Client {
    /// Authenticates on `channel` as the configured user; the token to send.
    pub(super) async fn authenticate(
        &self,
        url: &str,
        channel: Channel,
    ) -> Result<Token, ApiError> {
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
                            "{url}: the server does not serve etcd's authentication; leave out \
                             --user and --password"
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
}
