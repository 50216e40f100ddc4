//! A pre-flight check's result: its stable name, its verdict, the figures it
//! read (for scripts) and what to do.

use std::fmt;
use std::str::FromStr;

/// Declares the checks once: each variant with its stable name and its
/// meaning; [`CheckName`], [`CheckName::ALL`] (in the order they are
/// reported) and [`CheckName::as_str`] come from this one list, and so do
/// `--skip-check`'s accepted values, its help and the completions.
macro_rules! checks {
    ($($(#[doc = $doc:literal])+ $variant:ident => $name:literal,)+) => {
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
    };
}

checks! {
    /// A leader, and a majority of voters that answer.
    Quorum => "quorum",
    /// Alarms raised (NOSPACE, CORRUPT).
    Alarms => "alarms",
    /// Learners already in the cluster (etcd allows one by default), and a
    /// learner's update on a release that would list it as a voter.
    Learners => "learners",
    /// Server versions: one minor version, not an upgrade half done.
    Versions => "versions",
    /// Database size and free pages (a new member receives the whole file).
    Db => "db",
    /// Entries committed but not applied, per member.
    Apply => "apply",
    /// WAL fsync and backend commit latencies (`/metrics`).
    Disk => "disk",
    /// Peer round trips (`/metrics`).
    Network => "network",
    /// The leader and term stay the same while the checks run.
    Stability => "stability",
    /// Whether a new member can catch up before the leader compacts its log
    /// past the snapshot it receives, and how long it will take.
    CatchUp => "catch-up",
    /// Peer certificates: the members' (expiry) and the new member's
    /// (names, CA, key usage, key, validity).
    PeerTls => "peer-tls",
    /// Whether a member still runs with `--force-new-cluster` (after a
    /// recovery from a lost quorum): a restart with it would undo the recovery.
    ForceNewCluster => "force-new-cluster",
    /// Whether the cluster may move to a minor version (`member check --for
    /// upgrade`): one at a time, every member first on the minimum patch release.
    Upgrade => "upgrade",
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

/// A check's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Nothing in the way.
    Ok,
    /// Its source could not be read: never taken as ok.
    Unknown,
    /// The change may go ahead; read the detail.
    Warn,
    /// The change would hurt the cluster: refused.
    Fail,
}

impl Verdict {
    /// The result as printed: `ok`, `unknown`, `warn`, `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Unknown => "unknown",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Which check.
    pub name: CheckName,
    /// Its result.
    pub verdict: Verdict,
    /// The members it concerns (by label), if any.
    pub members: Vec<String>,
    /// What it read: the figures.
    pub detail: String,
    /// What to do (empty when nothing is to be done).
    pub remedy: String,
    /// The numbers it read or computed, for scripts (`detail` says them to people).
    pub figures: Figures,
    /// Passed knowingly with `--skip-check`.
    pub skipped: bool,
}

/// One figure of a check: a number, one number per member (by label), or a
/// word (where a number came from).
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// A number, in the unit its name ends with (`_bytes`, `_seconds`, …).
    Number(f64),
    /// One number per member or pair of members, by label.
    PerMember(Vec<(String, f64)>),
    /// A word or phrase (`bandwidth_source`: `given`, `link`, …).
    Text(String),
    /// One word per member, by label (`version`: "3.5.25").
    PerMemberText(Vec<(String, String)>),
}

/// A check's figures by name, in the order they were added. Names end with
/// their unit (`_bytes`, `_seconds`, `_bytes_per_second`, `_per_second`) or
/// count something (`voters`, `entries`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures(pub Vec<(&'static str, Figure)>);

impl Figures {
    /// Adds a number.
    pub fn number(&mut self, name: &'static str, value: f64) {
        self.0.push((name, Figure::Number(value)));
    }

    /// Adds a number when there is one.
    pub fn maybe(&mut self, name: &'static str, value: Option<f64>) {
        if let Some(v) = value {
            self.number(name, v);
        }
    }

    /// Adds one number for a member (or pair), under `name`.
    pub fn member(&mut self, name: &'static str, member: impl Into<String>, value: f64) {
        let member = member.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, Figure::PerMember(v))) => v.push((member, value)),
            _ => self
                .0
                .push((name, Figure::PerMember(vec![(member, value)]))),
        }
    }

    /// Adds `member`'s word to the per-member figure `name`.
    pub fn member_text(
        &mut self,
        name: &'static str,
        member: impl Into<String>,
        value: impl Into<String>,
    ) {
        let (member, value) = (member.into(), value.into());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, Figure::PerMemberText(v))) => v.push((member, value)),
            _ => self
                .0
                .push((name, Figure::PerMemberText(vec![(member, value)]))),
        }
    }

    /// Adds a word.
    pub fn text(&mut self, name: &'static str, value: impl Into<String>) {
        self.0.push((name, Figure::Text(value.into())));
    }

    /// The number named `name`, if it was added as one.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find_map(|(n, f)| match f {
            Figure::Number(v) if *n == name => Some(*v),
            _ => None,
        })
    }
}
