//! The data directory's layout and its storage format version: what is
//! where, the member's identity, and a clear refusal of a directory written
//! in another format.
//!
//! Format 4 (this one):
//! - `FORMAT`: `memberctl storage format 4`, written before anything else;
//! - `member`: the cluster's and this member's IDs, written once;
//! - `raft/`: the raft log (raft-engine's segment files);
//! - `snap/`: checkpoints of the state machine (snapshot files named by the
//!   raft index and term they hold), and partial files being written or
//!   received.
//!
//! Format 3 kept the state machine in `state.redb` (redb), format 2 the
//! same with only the live keys, format 1 everything in `member.redb`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Result, StoreError, StoreErrorKind};

/// The storage format this build reads and writes.
pub const FORMAT: u32 = 4;
/// The version file's name.
const FORMAT_FILE: &str = "FORMAT";
/// What the version file says before the number.
const FORMAT_PREFIX: &str = "memberctl storage format ";
/// Format 1's single file.
const FORMAT_1_FILE: &str = "member.redb";

/// Where a member's files live inside its data directory.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The data directory.
    pub dir: PathBuf,
}

impl Layout {
    /// The layout of `dir`.
    pub fn new(dir: &Path) -> Layout {
        Layout {
            dir: dir.to_path_buf(),
        }
    }

    /// The raft log's directory.
    pub fn raft_dir(&self) -> PathBuf {
        self.dir.join("raft")
    }

    /// The member's identity file.
    pub fn identity_file(&self) -> PathBuf {
        self.dir.join("member")
    }

    /// Where checkpoints live, and snapshots are received.
    pub fn snap_dir(&self) -> PathBuf {
        self.dir.join("snap")
    }

    /// The cluster's and this member's IDs, once written.
    pub fn identity(&self) -> Result<Option<Identity>> {
        let path = self.identity_file();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(StoreError::new(
                    super::error::io_kind(&e),
                    format!("{}: {e}", path.display()),
                ))
            }
        };
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        };
        match (field("cluster"), field("member")) {
            (Some(cluster_id), Some(member_id)) => Ok(Some(Identity {
                cluster_id,
                member_id,
            })),
            _ => Err(StoreError::damaged(format!(
                "{} does not hold a cluster and a member ID ({text:?}): the directory is \
                 damaged; {WHAT_TO_DO}",
                path.display()
            ))),
        }
    }

    /// Writes the member's identity (durably, whole or not at all).
    pub fn write_identity(&self, id: Identity) -> Result<()> {
        let path = self.identity_file();
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::File::create(&tmp)?;
        writeln!(f, "cluster {:016x}", id.cluster_id)?;
        writeln!(f, "member {:016x}", id.member_id)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        sync_dir(&self.dir)
    }

    /// Checks the format of an existing directory, or claims a new (empty or
    /// absent) one for this format. A directory in another format is refused
    /// with its path, its format and what to do.
    pub fn check_or_create(&self) -> Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let version_file = self.dir.join(FORMAT_FILE);
        match std::fs::read_to_string(&version_file) {
            Ok(text) => return self.check_version(&version_file, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(StoreError::new(
                    super::error::io_kind(&e),
                    format!("{}: {e}", version_file.display()),
                ))
            }
        }
        if self.dir.join(FORMAT_1_FILE).exists() {
            return Err(self.refuse(
                1,
                "it was written by an earlier memberctl, which kept the raft log inside member.redb",
            ));
        }
        if self.identity_file().exists() || self.raft_dir().exists() {
            return Err(StoreError::damaged(format!(
                "{} holds a member's files but no {FORMAT_FILE} file: the directory is damaged; \
                 {}",
                self.dir.display(),
                WHAT_TO_DO
            )));
        }
        let mut f = std::fs::File::create(&version_file)?;
        writeln!(f, "{FORMAT_PREFIX}{FORMAT}")?;
        f.sync_all()?;
        sync_dir(&self.dir)?;
        Ok(())
    }

    fn check_version(&self, file: &Path, text: &str) -> Result<()> {
        let version = text
            .trim()
            .strip_prefix(FORMAT_PREFIX)
            .and_then(|v| v.parse::<u32>().ok());
        match version {
            Some(FORMAT) => Ok(()),
            Some(v) if v > FORMAT => Err(self.refuse(v, "it was written by a newer memberctl")),
            Some(v) => Err(self.refuse(v, "it was written by an earlier memberctl")),
            None => Err(StoreError::damaged(format!(
                "{} does not name a storage format ({text:?}): the directory is damaged; {}",
                file.display(),
                WHAT_TO_DO
            ))),
        }
    }

    fn refuse(&self, found: u32, why: &str) -> StoreError {
        StoreError::new(
            StoreErrorKind::Format,
            format!(
                "data directory {} is in storage format {found} ({why}); this memberctl reads \
             format {FORMAT} only: start the member with the memberctl that wrote it, or \
             {}",
                self.dir.display(),
                WHAT_TO_DO
            ),
        )
    }
}

/// Which cluster a data directory belongs to, and which member it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The cluster's ID.
    pub cluster_id: u64,
    /// This member's ID.
    pub member_id: u64,
}

/// The way out for a member whose directory cannot be read: it is rebuilt
/// from the rest of the cluster.
const WHAT_TO_DO: &str = "if the rest of the cluster has a quorum, remove the member \
     (`memberctl member remove NAME`), move the directory away and add the member again as a \
     new learner (`memberctl member add NAME --learner --peer-urls URL`); a local test \
     cluster is recreated with `memberctl cluster down`, deleting its cluster directory and \
     `memberctl cluster up`";

/// Makes a directory's entries (new, renamed or removed files) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}
