//! The engine: the Raft node that is a cluster member, serving etcd's API.
//!
//! Its rooms, lowest first (each uses only the ones before it):
//! - [`log`]: the node's one logger (its lines and raft-rs's, on stderr);
//! - [`storage`]: the raft log (raft-engine's segment files, with an
//!   in-memory tail), the state machine in persistent maps (the MVCC
//!   keyspace with its history, transactions, leases, members, users and
//!   roles) with checkpoints, streamed snapshots, etcd's snapshot files both
//!   ways, and the data directory's format;
//! - [`metrics`]: the Prometheus series under etcd's names, recorded by the
//!   rooms above;
//! - [`pacing`]: heartbeat round trips per peer, and the pace of snapshot
//!   streams they set (the catch-up yields);
//! - [`prober`]: every member's probe of each peer every 4 s, its round
//!   trip recorded (etcd's rafthttp prober);
//! - [`node`]: the only owner of raft-rs's `RawNode` (driver thread, apply,
//!   pending proposals); raft-rs types stop at node, storage and transport;
//! - [`transport`]: outbound raft traffic to peers (a prober for each), and
//!   fault injection's partition;
//! - [`listen`]: accepted connections, TLS and the `:authority` repair;
//! - [`server`]: the services (etcd's KV, Watch, Lease, Cluster,
//!   Maintenance, Auth, Lock and Election; memberctl's Membership, Raft and
//!   Fault), etcd's HTTP face (health checks, metrics, the JSON gateway),
//!   the leader's lease clock, and forwarding to the leader;
//! - [`startup`]: a node's identity at first start and its lifetime (`node run`).
//!
//! A crate of its own: it cannot name the client half (`cli`, `command`,
//! `workflow`, `client`, `printer`), and the compiler says so. Below it lie
//! `memberctl-proto` (the generated code), `memberctl-etcd-db` (etcd's
//! files) and `memberctl-base` (the rules, errors and certificates both
//! halves share), each under the name the modules use (`crate::proto`,
//! `crate::etcd_db`, `crate::rules`, `crate::error`, `crate::der`,
//! `crate::trust`).

#![warn(missing_docs)]

use memberctl_base::{der, error, rules, trust};
use memberctl_etcd_db as etcd_db;
use memberctl_proto as proto;

pub mod dial;
pub mod listen;
pub mod log;
pub mod metrics;
pub mod node;
pub mod pacing;
pub mod prober;
pub mod server;
pub mod startup;
pub mod storage;
pub mod transport;
