//! memberctl: change the membership of Raft clusters (etcd v3 API) safely.
//!
//! The layers, each pointing one way: [`cli`] (clap definitions) → [`command`]
//! (glue) → [`workflow`] (safety rules, plain domain types, the
//! [`workflow::MembershipApi`] trait) → [`client`] (tonic client for etcd's
//! API). [`printer`] formats what the commands return; [`error`] decides exit
//! codes.

#![warn(missing_docs)]

pub mod cli;
pub mod client;
pub mod command;
pub mod engine;
pub mod error;
pub mod model;
pub mod printer;
pub mod proto;
pub mod rules;
pub mod testcluster;
pub mod workflow;

pub use error::{Error, ErrorKind};
