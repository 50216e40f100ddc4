//! The client half's domain types (workflow, client, printer, command, local
//! cluster): member IDs, members, member lists, per-member status,
//! configurations and progress, what a member's HTTP face reports
//! ([`ServerMetrics`], [`ServerVersion`], [`StartFlags`]), peer certificates ([`cert`]) and
//! the peer URLs an operator gives ([`PeerUrls`], read once), and the error a
//! server answers ([`ApiError`]).
//! The engine keeps its own (`engine::node`).

use std::fmt;
use std::str::FromStr;

mod api_error;
pub mod cert;
mod peer_urls;
mod server;

pub use api_error::{ApiError, ApiErrorKind};
pub use peer_urls::{PeerUrl, PeerUrls};
pub use server::{mib, Histogram, ServerMetrics, ServerVersion, SnapshotTransfers, StartFlags};

/// A member (or cluster) ID: a u64, shown to people as 16 lower-case hex digits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemberId(pub u64);

impl fmt::Display for MemberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Why a string is not a member ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a hexadecimal member id (1 to 16 hex digits)")]
pub struct BadMemberId(pub String);

impl FromStr for MemberId {
    type Err = BadMemberId;

    /// Parses 1–16 hex digits, as etcdctl does (`1234abcd` is `000000001234abcd`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let ok = !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
        if !ok {
            return Err(BadMemberId(s.to_string()));
        }
        u64::from_str_radix(s, 16)
            .map(MemberId)
            .map_err(|_| BadMemberId(s.to_string()))
    }
}

/// One member of the cluster, as the membership API reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Member {
    /// The member's ID.
    pub id: MemberId,
    /// Its name; empty until the member has started and published it.
    pub name: String,
    /// URLs its peers reach it on.
    pub peer_urls: Vec<String>,
    /// URLs clients reach it on; empty until started.
    pub client_urls: Vec<String>,
    /// Whether it is a non-voting learner.
    pub is_learner: bool,
}

impl Member {
    /// A member has started once it has published its name (etcd's definition).
    pub fn started(&self) -> bool {
        !self.name.is_empty()
    }

    /// Whether the member votes.
    pub fn is_voter(&self) -> bool {
        !self.is_learner
    }

    /// The name if it has one, else its hex ID: how to refer to it in a message.
    pub fn label(&self) -> String {
        match (self.name.is_empty(), self.id.0) {
            (true, _) => self.id.to_string(),
            (false, 0) => self.name.clone(),
            (false, _) => format!("{} ({})", self.name, self.id),
        }
    }
}

/// The cluster's membership as one server answered it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberList {
    /// The cluster's ID.
    pub cluster_id: MemberId,
    /// Every member, sorted by ID.
    pub members: Vec<Member>,
    /// One member's own view: no leader confirmed the list (a lost quorum?).
    pub unconfirmed: bool,
}

impl MemberList {
    /// Builds a list, sorting the members by ID as etcd does.
    pub fn new(cluster_id: MemberId, mut members: Vec<Member>) -> Self {
        members.sort_by_key(|m| m.id);
        MemberList {
            cluster_id,
            members,
            unconfirmed: false,
        }
    }

    /// The member with this ID, if any.
    pub fn get(&self, id: MemberId) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id)
    }

    /// The voting members.
    pub fn voters(&self) -> impl Iterator<Item = &Member> {
        self.members.iter().filter(|m| m.is_voter())
    }
}

/// What a member said about itself through Maintenance.Status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberStatus {
    /// The ID of the member that answered.
    pub member_id: MemberId,
    /// The leader it knows of (0: none).
    pub leader: MemberId,
    /// Its current raft term.
    pub raft_term: u64,
    /// Its raft (committed) index.
    pub raft_index: u64,
    /// Its applied index.
    pub raft_applied_index: u64,
    /// Whether it is a learner.
    pub is_learner: bool,
    /// The server's version string.
    pub version: String,
    /// Alarms or errors the member reports.
    pub errors: Vec<String>,
    /// Size of its backend database file, in bytes.
    pub db_size: u64,
    /// Bytes of that file in use (the rest is free pages; 0 when not reported).
    pub db_size_in_use: u64,
    /// The store's current revision as this member has it.
    pub revision: i64,
}

/// An alarm raised on a member (etcd's Maintenance.Alarm).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alarm {
    /// The member it is raised on.
    pub member_id: MemberId,
    /// What it is.
    pub kind: AlarmKind,
}

/// The alarms etcd raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlarmKind {
    /// The backend database reached its quota: writes are refused.
    NoSpace,
    /// The member's data differs from the others'.
    Corrupt,
    /// An alarm this version does not know (its number).
    Other(i32),
}

impl std::fmt::Display for AlarmKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AlarmKind::NoSpace => f.write_str("NOSPACE"),
            AlarmKind::Corrupt => f.write_str("CORRUPT"),
            AlarmKind::Other(n) => write!(f, "alarm {n}"),
        }
    }
}

/// The result of `member add`: the new member and the cluster after the add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Added {
    /// The member as the server created it (no name yet).
    pub member: Member,
    /// The membership after the add.
    pub list: MemberList,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_id_prints_sixteen_hex_digits() {
        assert_eq!(MemberId(0x1234abcd).to_string(), "000000001234abcd");
        assert_eq!(MemberId(u64::MAX).to_string(), "ffffffffffffffff");
    }

    #[test]
    fn member_id_parses_short_and_full_hex() {
        assert_eq!("1234abcd".parse(), Ok(MemberId(0x1234abcd)));
        assert_eq!("FFFFFFFFFFFFFFFF".parse(), Ok(MemberId(u64::MAX)));
        assert!("".parse::<MemberId>().is_err());
        assert!("zzz".parse::<MemberId>().is_err());
        assert!("12345678901234567".parse::<MemberId>().is_err());
        assert!("+1".parse::<MemberId>().is_err());
    }

    #[test]
    fn members_are_sorted_and_started_means_named() {
        let list = MemberList::new(
            MemberId(1),
            vec![
                Member {
                    id: MemberId(9),
                    ..Default::default()
                },
                Member {
                    id: MemberId(3),
                    name: "a".into(),
                    ..Default::default()
                },
            ],
        );
        assert_eq!(list.members[0].id, MemberId(3));
        assert!(list.members[0].started());
        assert!(!list.members[1].started());
    }
}

/// A Raft configuration (the conf state): while joint, decisions need a
/// majority of both `voters` (incoming) and `voters_outgoing`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Configuration {
    /// Voters of the incoming configuration.
    pub voters: Vec<MemberId>,
    /// Voters of the outgoing configuration (non-empty while joint).
    pub voters_outgoing: Vec<MemberId>,
    /// Learners.
    pub learners: Vec<MemberId>,
    /// Voters that become learners when the joint configuration is left.
    pub learners_next: Vec<MemberId>,
    /// Whether raft leaves the joint configuration by itself.
    pub auto_leave: bool,
}

impl Configuration {
    /// Whether this is a joint configuration.
    pub fn is_joint(&self) -> bool {
        !self.voters_outgoing.is_empty()
    }
}

/// One peer's replication as the leader sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerProgress {
    /// The peer.
    pub id: MemberId,
    /// Highest index known to be replicated on it.
    pub matched: u64,
    /// Next index the leader will send it.
    pub next: u64,
    /// "probe", "replicate" or "snapshot".
    pub state: String,
    /// Whether it is a learner.
    pub is_learner: bool,
    /// Whether the leader heard from it recently.
    pub recent_active: bool,
    /// Index of the snapshot being sent to it (0: none).
    pub pending_snapshot: u64,
}

/// Replication progress of every peer, from the leader (the engine's
/// extension; etcd has no such call).
///
/// When the engine checkpoints (and may then compact its log): once
/// `snapshot_count` entries were applied since the last checkpoint **and**
/// the bytes of the entries applied since then are at least half the
/// state's size at that checkpoint (`checkpoint_bytes`), so that
/// checkpoints write at most twice what the log does. A compaction keeps
/// the last `catch_up_entries` entries; a peer that needs an entry before
/// `first_index` is sent a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgressReport {
    /// The leader that answered.
    pub leader: MemberId,
    /// The leader's last log index.
    pub last_index: u64,
    /// Each peer, the leader included.
    pub peers: Vec<PeerProgress>,
    /// The first index still in the leader's raft log (the entries before
    /// it went into a checkpoint; 0 from a server that does not say).
    pub first_index: u64,
    /// The leader's `--snapshot-count`: entries applied between two
    /// checkpoints at least.
    pub snapshot_count: u64,
    /// Entries the leader keeps in its log after a compaction
    /// (min(5000, `snapshot_count`)).
    pub catch_up_entries: u64,
    /// Bytes of applied entries the next checkpoint also waits for: half
    /// the state's bytes at the last checkpoint.
    pub checkpoint_bytes: u64,
}

/// One change of a joint configuration change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointChange {
    /// Add a new member as a learner.
    AddLearner {
        /// Its name (it is published when the member starts).
        name: String,
        /// Its peer URLs.
        peer_urls: PeerUrls,
    },
    /// Make a learner a voter.
    Promote(MemberId),
    /// Make a voter a learner.
    Demote(MemberId),
    /// Remove a member.
    Remove(MemberId),
}
