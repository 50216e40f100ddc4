//! An error a membership server answered (or the way to it gave), and the kinds the workflows branch on; the `MembershipApi` trait's error.

use std::fmt;

use crate::error::{Error, ErrorKind};

/// The kinds of server answers the workflows branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiErrorKind {
    /// No endpoint could be reached, or the server is unavailable.
    Unavailable,
    /// etcd's strict reconfiguration check: "etcdserver: unhealthy cluster".
    Unhealthy,
    /// The learner is not yet in sync with the leader.
    LearnerNotReady,
    /// The member is not a learner (promote of a voter).
    NotLearner,
    /// No such member.
    NotFound,
    /// The server refused the change (precondition, bad argument, limits).
    Refused,
    /// The request took longer than the command timeout.
    DeadlineExceeded,
    /// The server does not implement this call.
    Unimplemented,
    /// Anything else.
    Other,
}

/// An error answered by (or on the way to) a membership server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// What kind of failure it is.
    pub kind: ApiErrorKind,
    /// The server's text (etcd's, e.g. `etcdserver: member not found`) or the transport's.
    pub message: String,
}

impl ApiError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ApiErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        let kind = match e.kind {
            ApiErrorKind::Unavailable | ApiErrorKind::Unhealthy => ErrorKind::Unavailable,
            ApiErrorKind::DeadlineExceeded => ErrorKind::Unavailable,
            ApiErrorKind::LearnerNotReady
            | ApiErrorKind::NotLearner
            | ApiErrorKind::NotFound
            | ApiErrorKind::Refused => ErrorKind::Refused,
            ApiErrorKind::Unimplemented => ErrorKind::Unsupported,
            ApiErrorKind::Other => ErrorKind::Internal,
        };
        // A message that already names the flag to check (a TLS set-up
        // mistake) gets no second, vaguer hint.
        let names_a_flag = e.message.contains("check --") || e.message.contains("give --");
        let hint = match e.kind {
            ApiErrorKind::Unavailable if names_a_flag => "",
            ApiErrorKind::Unavailable => "; check --endpoints and that the cluster is running",
            // The client's own timeout already said so (and, for a write,
            // what to check).
            ApiErrorKind::DeadlineExceeded if e.message.contains("--command-timeout") => "",
            ApiErrorKind::DeadlineExceeded => {
                "; the server did not answer within --command-timeout (a change may still have \
                 been applied: run `memberctl member list`)"
            }
            _ => "",
        };
        Error::new(kind, format!("{}{hint}", e.message))
    }
}
