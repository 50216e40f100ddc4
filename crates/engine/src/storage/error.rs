//! The store's one error: [`StoreError`] with its [`StoreErrorKind`] (what
//! the member, and its operator, do about it; startup branches on it), and
//! the kind of an I/O failure ([`io_kind`]).

/// What kind of storage failure it is: what the member, and its operator,
/// do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// The directory is in another storage format (an older or newer memberctl).
    Format,
    /// Another process holds the directory (a member already running).
    Locked,
    /// The disk refused: permission, read-only, full, not a directory.
    Disk,
    /// Files are damaged beyond what recovery after a crash repairs.
    Damaged,
    /// The raft log could not be written or read back: the member stops
    /// rather than acknowledge what it did not persist.
    Log,
    /// Anything else; the message says all there is to say.
    Other,
}

/// A storage failure; the node cannot go on safely after one.
#[derive(Debug, thiserror::Error)]
#[error("storage: {message}")]
pub struct StoreError {
    /// What kind of failure it is.
    pub kind: StoreErrorKind,
    /// What failed, for the operator.
    pub message: String,
}

impl StoreError {
    /// A failure of `kind`.
    pub fn new(kind: StoreErrorKind, message: impl Into<String>) -> Self {
        StoreError {
            kind,
            message: message.into(),
        }
    }

    /// A failure whose message says all there is to say.
    pub fn other(message: impl Into<String>) -> Self {
        StoreError::new(StoreErrorKind::Other, message)
    }

    /// Damaged files.
    pub fn damaged(message: impl Into<String>) -> Self {
        StoreError::new(StoreErrorKind::Damaged, message)
    }
}

/// The kind of an I/O failure: the disk's refusals, damaged data, or other.
pub(super) fn io_kind(e: &std::io::Error) -> StoreErrorKind {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::PermissionDenied
        | K::ReadOnlyFilesystem
        | K::StorageFull
        | K::QuotaExceeded
        | K::NotADirectory => StoreErrorKind::Disk,
        K::InvalidData | K::UnexpectedEof => StoreErrorKind::Damaged,
        _ => StoreErrorKind::Other,
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::new(io_kind(&e), e.to_string())
    }
}

impl From<protobuf::ProtobufError> for StoreError {
    fn from(e: protobuf::ProtobufError) -> Self {
        StoreError::other(e.to_string())
    }
}

impl From<prost::DecodeError> for StoreError {
    fn from(e: prost::DecodeError) -> Self {
        StoreError::other(e.to_string())
    }
}

/// Result of storage operations.
pub type Result<T> = std::result::Result<T, StoreError>;
