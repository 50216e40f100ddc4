//! The one place that maps failures to exit codes: the error kinds of the command-line contract.

use std::fmt;

/// The exit code of a command that succeeded.
pub const SUCCESS: i32 = 0;

/// What kind of failure ended a command; each kind has a stable exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bug or an unexpected server answer (exit 1).
    Internal,
    /// Bad arguments (exit 2).
    Usage,
    /// Refused by a validation or safety rule, client- or server-side; the cluster is unchanged (exit 3).
    Refused,
    /// Timed out waiting (catch-up, leader) (exit 4).
    Timeout,
    /// The cluster is unreachable or unavailable (exit 5).
    Unavailable,
    /// The server does not support the operation (exit 6).
    Unsupported,
    /// `node run`: this member was removed from its cluster, for good; its
    /// data directory is stale (exit 7).
    Removed,
    /// `member status`: the cluster has lost its quorum (fewer voters answer
    /// than a quorum and none leads); the status was printed in full, with
    /// the diagnosis and the way back (exit 8). Never an error document's kind.
    QuorumLost,
}

impl ErrorKind {
    /// The process exit code for this kind.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Internal => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Refused => 3,
            ErrorKind::Timeout => 4,
            ErrorKind::Unavailable => 5,
            ErrorKind::Unsupported => 6,
            // As etcd's member stops (3.4: removed while running and started
            // again on its data; 3.6: while running): for good, with success,
            // so that a supervisor does not start it again.
            ErrorKind::Removed => 0,
            ErrorKind::QuorumLost => 8,
        }
    }

    /// The name used in JSON error documents.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Internal => "internal",
            ErrorKind::Usage => "usage",
            ErrorKind::Refused => "refused",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Removed => "removed",
            ErrorKind::QuorumLost => "quorum_lost",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure the caller can classify: a kind, a lower-case message saying what
/// happened and what to do, and (for validation) every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// The kind, which decides the exit code.
    pub kind: ErrorKind,
    /// What happened and what to do instead.
    pub message: String,
    /// Each problem found, when there were several (URL validation).
    pub problems: Vec<String>,
    /// The members that have not started, when a command named a member by a
    /// name no started member has: etcd keeps no name for them, so the
    /// caller must choose one by ID.
    pub unstarted: Vec<Unstarted>,
}

/// A member that has not started (published its name) yet, as a refusal lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unstarted {
    /// Its hex ID.
    pub id: String,
    /// The peer URLs it was added with.
    pub peer_urls: Vec<String>,
    /// Whether it was added as a learner.
    pub is_learner: bool,
}

impl Error {
    /// An error of `kind` with `message` and no problem list.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            problems: Vec::new(),
            unstarted: Vec::new(),
        }
    }

    /// A refusal by a safety or validation rule.
    pub fn refused(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Refused, message)
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Usage, message)
    }

    /// The same error, its message preceded by `what` ("what: message").
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// Attaches the members that have not started.
    pub fn with_unstarted(mut self, unstarted: Vec<Unstarted>) -> Self {
        self.unstarted = unstarted;
        self
    }

    /// Attaches the list of problems found.
    pub fn with_problems(mut self, problems: Vec<String>) -> Self {
        self.problems = problems;
        self
    }
}

/// The kind of any error chain: the first [`Error`] in it, else internal.
pub fn kind_of(err: &anyhow::Error) -> ErrorKind {
    find(err).map_or(ErrorKind::Internal, |e| e.kind)
}

/// The first [`Error`] in an error chain, if any.
pub fn find(err: &anyhow::Error) -> Option<&Error> {
    err.chain().find_map(|e| e.downcast_ref::<Error>())
}

/// The exit code for an error chain.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    kind_of(err).exit_code()
}

/// The message a panic carried (its `&str` or `String` payload), or `default`.
pub fn panic_message(payload: &(dyn std::any::Any + Send), default: &str) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| default.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn exit_codes_match_the_contract() {
        let codes: Vec<i32> = [
            ErrorKind::Internal,
            ErrorKind::Usage,
            ErrorKind::Refused,
            ErrorKind::Timeout,
            ErrorKind::Unavailable,
            ErrorKind::Unsupported,
            ErrorKind::Removed,
            ErrorKind::QuorumLost,
        ]
        .iter()
        .map(|k| k.exit_code())
        .collect();
        assert_eq!(codes, vec![1, 2, 3, 4, 5, 6, 0, 8]);
    }

    #[test]
    fn kind_survives_context() {
        let err: anyhow::Error = Error::refused("no").into();
        let err = err.context("while adding");
        assert_eq!(kind_of(&err), ErrorKind::Refused);
        let plain = anyhow::anyhow!("boom");
        assert_eq!(exit_code(&plain), 1);
        let r: Result<(), Error> = Err(Error::new(ErrorKind::Timeout, "slow"));
        let err = r.context("promote").unwrap_err();
        assert_eq!(exit_code(&err), 4);
    }
}
