//! memberctl: change the membership of Raft clusters (etcd v3 API) safely.
//!
//! Two halves, and what lies below both (arrows point down only):
//!
//! ```text
//! the tool (client side)                      the Raft node (engine)
//! cli → command → workflow ← client           engine: startup → server → listen
//!       command → printer, testcluster                → transport → node (owns RawNode)
//!       command → engine::startup only                → metrics → storage
//!
//! below both: rules (peer-URL syntax, quorum, readiness), etcd_db (etcd's
//!             database and snapshot files), proto (generated),
//!             error (kinds and exit codes), der (X.509 certificates read),
//!             trust; model is the client half's domain types
//! ```
//!
//! (docs/ARCHITECTURE.md draws every arrow; `src/arrows.rs` holds them.)
//!
//! [`cli`] holds the clap definitions, [`command`] the glue from arguments to
//! a workflow and a report, [`workflow`] the safety rules over plain domain
//! types and the [`workflow::MembershipApi`] trait, [`client`] the tonic client
//! implementing it; [`printer`] formats reports; [`testcluster`] runs local
//! clusters of engine processes and talks to them as a client. The
//! [`engine`] never imports the client half; the client half uses of the
//! engine only [`engine::startup`], for `memberctl node run` and `snapshot
//! restore`. [`rules`] holds
//! what both halves check, defined once; [`etcd_db`] reads etcd's database
//! and snapshot files; [`der`] reads X.509 certificates (the `peer-tls`
//! check's, and the engine's client-certificate users); [`error`] decides exit codes.
//! [`link`] stands apart too: a user-space link model (delay, bandwidth,
//! queue per member pair) that local clusters and tests put between members.
//! [`history`] stands apart: the linearizability checker of the robustness
//! tests, over histories any etcd-API server produced.

#![warn(missing_docs)]

#[cfg(test)]
mod arrows;
pub mod cli;
pub mod client;
pub mod command;
pub mod der;
pub mod engine;
pub mod error;
pub mod etcd_db;
pub mod history;
pub mod link;
pub mod model;
pub mod printer;
pub mod proto;
pub mod rules;
pub mod testcluster;
pub mod trust;
pub mod workflow;

pub use error::{Error, ErrorKind};
