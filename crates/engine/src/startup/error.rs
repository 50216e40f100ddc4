//! Why a node did not start, or stopped with an error: one typed error whose variants name the part that failed, each message naming its subject and what to do.

use std::net::SocketAddr;

/// A node's start-up or serving failed.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// A flag is missing, or its value cannot be used.
    #[error("{0}")]
    Flags(String),
    /// A TLS file could not be read or used.
    #[error("{0}")]
    Tls(String),
    /// The data directory could not be opened, or the store failed.
    #[error("{0}")]
    Store(String),
    /// A listener could not be bound.
    #[error("cannot listen for {what} on {addr}: {cause}{}", listen_hint(cause))]
    Listen {
        /// Clients, peers or metrics.
        what: &'static str,
        /// The address.
        addr: SocketAddr,
        /// Why not (in the message once: not a `source`, whose text an
        /// error chain would print a second time).
        cause: std::io::Error,
    },
    /// Joining the existing cluster, or making a new one, failed.
    #[error("{0}")]
    Join(String),
    /// The services or the raft thread failed while serving.
    #[error("{0}")]
    Serve(String),
    /// The initial corruption check found this member's data differs from a peer's.
    #[error("{0}")]
    Corrupt(String),
    /// The member was removed from its cluster (its data directory carries
    /// the mark): the error says so with its kind, for the exit code.
    #[error(transparent)]
    Removed(crate::error::Error),
}

/// "what: why", the way a message names a failure and its cause.
pub(crate) fn because(what: impl std::fmt::Display, why: impl std::fmt::Display) -> String {
    format!("{what}: {why}")
}

/// What to do about a listener that could not be bound.
fn listen_hint(cause: &std::io::Error) -> &'static str {
    match cause.kind() {
        std::io::ErrorKind::AddrInUse => {
            "; another process listens there: stop it, or start this member on another address"
        }
        std::io::ErrorKind::AddrNotAvailable => {
            "; the address is not one of this machine's: check the URL's host"
        }
        _ => "",
    }
}
