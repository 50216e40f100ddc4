//! The pre-flight checks, listed once: each one's name, meaning and judge.
//! A new check is its judge (a pure function of [`Facts`] and the change's
//! steps), one entry here, and its row in docs/commands.md.

use std::fmt;
use std::str::FromStr;

use super::{catch_up, checks, forced, peer_tls, server, versions};
use super::{Change, Check, Facts};

/// A judge: the check's result for the change made of the steps, or `None`
/// when the check does not concern that change.
pub(super) type Judge = fn(&Facts, &[Change]) -> Option<Check>;

/// Declares the checks once: each variant with its meaning, its stable name
/// and its judge; [`CheckName`], [`CheckName::ALL`] (in the order they are
/// reported), [`CheckName::as_str`] and the judges [`evaluate`](super::evaluate)
/// runs come from this one list, and so do `--skip-check`'s accepted values,
/// its help and the completions. A judge answers `None` when its check does
/// not concern the change (the upgrade check, but for `--for upgrade`).
macro_rules! checks {
    ($($(#[doc = $doc:literal])+ $variant:ident => $name:literal, $judge:expr,)+) => {
        /// The checks, by their stable names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CheckName {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl CheckName {
            /// Every check, in the order they are reported.
            pub const ALL: &'static [CheckName] = &[$(CheckName::$variant,)+];

            /// The stable name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(CheckName::$variant => $name,)+
                }
            }
        }

        /// Every check's judge, in the order of [`CheckName::ALL`].
        pub(super) const JUDGES: &[Judge] = &[$($judge,)+];
    };
}

checks! {
    /// A leader, and a majority of voters that answer.
    Quorum => "quorum", |f, s| Some(checks::quorum(f, s)),
    /// Alarms raised (NOSPACE, CORRUPT).
    Alarms => "alarms", |f, s| Some(checks::alarms(f, s)),
    /// Learners already in the cluster (etcd allows one by default), and a
    /// learner's update on a release that would list it as a voter.
    Learners => "learners", |f, s| Some(checks::learners(f, s)),
    /// Server versions: one minor version, not an upgrade half done.
    Versions => "versions", |f, s| Some(versions::versions(f, s)),
    /// Database size and free pages (a new member receives the whole file).
    Db => "db", |f, s| Some(server::db(f, s)),
    /// Entries committed but not applied, per member.
    Apply => "apply", |f, _| Some(checks::apply_lag(f)),
    /// WAL fsync and backend commit latencies (`/metrics`).
    Disk => "disk", |f, s| Some(server::disk(f, s)),
    /// Peer round trips (`/metrics`).
    Network => "network", |f, _| Some(server::network(f)),
    /// The leader and term stay the same while the checks run.
    Stability => "stability", |f, _| Some(server::stability(f)),
    /// Whether a new member can catch up before the leader compacts its log
    /// past the snapshot it receives, and how long it will take.
    CatchUp => "catch-up", |f, s| Some(catch_up::check(f, s)),
    /// Peer certificates: the members' (expiry) and the new member's
    /// (names, CA, key usage, key, validity).
    PeerTls => "peer-tls", |f, _| Some(peer_tls::judge(&f.peer_tls)),
    /// Whether a member still runs with `--force-new-cluster` (after a
    /// recovery from a lost quorum): a restart with it would undo the recovery.
    ForceNewCluster => "force-new-cluster", |f, _| Some(forced::check(f)),
    /// Whether the cluster may move to a minor version (`member check --for
    /// upgrade`): one at a time, every member first on the minimum patch release.
    Upgrade => "upgrade", versions::upgrade,
}

impl fmt::Display for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CheckName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        CheckName::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = CheckName::ALL.iter().map(|c| c.as_str()).collect();
                format!(
                    "no check is named {s:?}; the checks are {}",
                    names.join(", ")
                )
            })
    }
}
