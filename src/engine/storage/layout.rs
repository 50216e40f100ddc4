//! The data directory's layout and its storage format version: what is
//! where, and a clear refusal of a directory written in another format.
//!
//! Format 3 (this one):
//! - `FORMAT`: `memberctl storage format 3`, written before anything else;
//! - `raft/`: the raft log (raft-engine's segment files);
//! - `state.redb`: the state machine (the MVCC keyspace with its history,
//!   leases, members, applied index);
//! - `snap/`: snapshots received from the leader, staged until raft installs them.
//!
//! Format 2 had the same files, with only the live keys in `state.redb`;
//! format 1 (memberctl before the raft log left redb) kept everything in
//! `member.redb`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Result, StoreError};

/// The storage format this build reads and writes.
pub const FORMAT: u32 = 3;
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

    /// The state machine's file.
    pub fn state_file(&self) -> PathBuf {
        self.dir.join("state.redb")
    }

    /// Where received snapshots are staged.
    pub fn snap_dir(&self) -> PathBuf {
        self.dir.join("snap")
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
            Err(e) => return Err(StoreError(format!("{}: {e}", version_file.display()))),
        }
        if self.dir.join(FORMAT_1_FILE).exists() {
            return Err(self.refuse(
                1,
                "it was written by an earlier memberctl, which kept the raft log inside member.redb",
            ));
        }
        if self.state_file().exists() || self.raft_dir().exists() {
            return Err(StoreError(format!(
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
            None => Err(StoreError(format!(
                "{} does not name a storage format ({text:?}): the directory is damaged; {}",
                file.display(),
                WHAT_TO_DO
            ))),
        }
    }

    fn refuse(&self, found: u32, why: &str) -> StoreError {
        StoreError(format!(
            "data directory {} is in storage format {found} ({why}); this memberctl reads \
             format {FORMAT} only: start the member with the memberctl that wrote it, or \
             {}",
            self.dir.display(),
            WHAT_TO_DO
        ))
    }
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
