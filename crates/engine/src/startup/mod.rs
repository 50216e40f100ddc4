//! Starting a node from etcd-style options: who it is (`bootstrap`: a new
//! cluster's initial IDs, or asking the existing members when joining) and its
//! lifetime (`lifetime`: store, listeners, raft, services, until stopped or
//! removed). Start-up, not a service: the services live in `engine::server`.

mod bootstrap;
mod corrupt_check;
mod error;
mod etcd_restored;
mod lifetime;
mod options;
mod removed;
pub mod restore;
mod self_cert;

pub use crate::listen::{Allowed, TlsError, TlsPolicy, TlsVersion};
pub use crate::server::{
    watch_progress_default, AuthToken, AuthTokenError, AutoCompaction, Keepalive, BCRYPT_COSTS,
    BCRYPT_COST_DEFAULT, DEFAULT_QUOTA_BYTES,
};
pub use bootstrap::{initial_member_id, new_cluster};
pub use error::StartupError;
pub use lifetime::run;
pub use options::{AutoTls, InitialCluster, ListenerTls, NodeOptions};
