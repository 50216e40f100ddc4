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
//! The engine and what lies below both halves are crates of one workspace
//! (`crates/`): `memberctl-engine`, `memberctl-etcd-db`, `memberctl-proto`,
//! `memberctl-base` (rules, error, der, trust), and, standing apart,
//! `memberctl-link` and `memberctl-history`. This crate re-exports each under
//! its module's name, so `crate::engine::startup` reads as before; the
//! engine cannot name the client half, as its crate does not depend on this
//! one. (docs/ARCHITECTURE.md draws every arrow; the compiler holds the
//! crates' and `src/arrows.rs` the rest.)
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
pub mod model;
pub mod printer;
pub mod testcluster;
pub mod workflow;

// The workspace's other crates (crates/), under the names the modules use.
pub use memberctl_base::{der, error, rules, trust};
pub use memberctl_engine as engine;
pub use memberctl_etcd_db as etcd_db;
pub use memberctl_history as history;
pub use memberctl_link as link;
pub use memberctl_proto as proto;

pub use error::{Error, ErrorKind};
