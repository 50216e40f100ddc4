//! The engine: the Raft node that is a cluster member, serving etcd's API.
//!
//! Its rooms, lowest first (each uses only the ones before it):
//! - [`storage`]: the raft log (raft-engine's segment files, with an
//!   in-memory tail), the state machine (redb), streamed snapshots and the
//!   data directory's format;
//! - [`node`]: the only owner of raft-rs's `RawNode` (driver thread, apply,
//!   pending proposals); raft-rs types stop at node, storage and transport;
//! - [`transport`]: outbound raft traffic to peers, and fault injection's
//!   partition;
//! - [`server`]: the gRPC services (etcd's Cluster, Maintenance, KV;
//!   memberctl's Membership, Raft and Fault) and forwarding to the leader;
//! - [`startup`]: a node's identity at first start and its lifetime (`node run`).
//!
//! Rooms for what is coming: the MVCC keyspace and leases will live beside
//! the state machine in `storage`; Watch, Lease and Auth services in `server`,
//! each in a file of its own. The engine never imports the client half
//! (`cli`, `command`, `workflow`, `client`, `printer`); both halves share
//! `model`, `rules`, `proto` and `error`.

pub mod node;
pub mod server;
pub mod startup;
pub mod storage;
pub mod transport;
