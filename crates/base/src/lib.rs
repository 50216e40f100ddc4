//! What lies below both halves of memberctl, the tool and the engine: the rules both check ([`rules`]: peer-URL syntax, quorum, readiness), errors and their exit codes ([`error`]), X.509 certificates read ([`der`]) and trusted as Go trusts them ([`trust`]).

#![warn(missing_docs)]

pub mod der;
pub mod error;
pub mod rules;
pub mod trust;

pub use error::{Error, ErrorKind};
