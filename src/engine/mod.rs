//! The engine: the Raft node that is a cluster member, serving etcd's API.
//!
//! Its rooms, lowest first (each uses only the ones before it):
//! - [`storage`]: the raft log (raft-engine's segment files, with an
//!   in-memory tail), the state machine in redb (the MVCC keyspace with its
//!   history, transactions, leases, members), streamed snapshots and the
//!   data directory's format;
//! - [`node`]: the only owner of raft-rs's `RawNode` (driver thread, apply,
//!   pending proposals); raft-rs types stop at node, storage and transport;
//! - [`transport`]: outbound raft traffic to peers, and fault injection's
//!   partition;
//! - [`server`]: the gRPC services (etcd's Cluster, Maintenance, KV, Watch,
//!   Lease; memberctl's Membership, Raft and Fault), the leader's lease
//!   clock, and forwarding to the leader;
//! - [`startup`]: a node's identity at first start and its lifetime (`node run`).
//!
//! Room for what is coming: the Auth service in `server`, in a file of its own. The engine never imports the client half
//! (`cli`, `command`, `workflow`, `client`, `printer`); both halves share
//! `model`, `rules`, `proto` and `error`.

pub mod listen;
pub mod metrics;
pub mod node;
pub mod server;
pub mod startup;
pub mod storage;
pub mod transport;
