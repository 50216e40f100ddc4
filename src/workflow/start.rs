//! Starting a member that was just added: the one trait `member replace`,
//! `member apply` and `cluster recover` start new members through, and the
//! operator's way of doing it (a hint, then memberctl waits).

use std::time::Duration;

use super::Observer;
use crate::error::Error;
use crate::model::Member;

/// A member that was added and has not started yet.
#[derive(Clone, Copy, Debug)]
pub struct Starting<'a> {
    /// The name it must start with (`--name`).
    pub name: &'a str,
    /// The member as the cluster lists it (ID, peer URLs).
    pub member: &'a Member,
    /// `--initial-cluster` for it (its `--initial-cluster-state` is `existing`).
    pub initial_cluster: &'a str,
    /// How long the workflow waits for it to start.
    pub wait: Duration,
}

/// How a new member gets started once it was added.
#[allow(async_fn_in_trait)]
pub trait StartMember {
    /// Starts `new`, or has the operator start it.
    async fn start(&self, new: &Starting<'_>, observer: &dyn Observer) -> Result<(), Error>;
}

/// The operator starts new members: memberctl says how (stderr), then waits.
pub struct Manual;

impl StartMember for Manual {
    async fn start(&self, new: &Starting<'_>, observer: &dyn Observer) -> Result<(), Error> {
        observer.notice(&hint(new));
        Ok(())
    }
}

/// How to start `new`, for the operator: etcd's flags, and the local test
/// cluster's command.
pub fn hint(new: &Starting<'_>) -> String {
    let name = new.name;
    format!(
        "start the new member {name} ({}) now, with --name {name} --initial-advertise-peer-urls {} \
         --initial-cluster {} --initial-cluster-state existing (ETCD_NAME, ETCD_INITIAL_CLUSTER, … \
         for etcd; on the local test cluster: `memberctl cluster start-node {name}`, or pass \
         --start-local); waiting up to {} for it",
        new.member.id,
        new.member.peer_urls.join(","),
        new.initial_cluster,
        humantime::format_duration(new.wait)
    )
}
