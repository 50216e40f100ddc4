//! The mark a removed member leaves in its data directory (as etcd's
//! "the member has been permanently removed from the cluster"): written when
//! the member stops because it was removed, checked before a member starts,
//! so that a stale copy of the data never serves or disturbs the cluster again.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind};

/// The mark's file name inside the data directory.
const FILE: &str = "removed";

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// What a removed member says, when it stops and when it is started again.
fn advice(name: &str, data_dir: &Path, member: &str, cluster: &str) -> Error {
    Error::new(
        ErrorKind::Removed,
        format!(
            "memberctl node {name}: member {member} was permanently removed from cluster \
             {cluster}; its data directory {} is stale and is not served again: delete it, \
             and to bring this machine back run `memberctl member add` (it gets a new ID) \
             and start it on an empty data directory",
            data_dir.display()
        ),
    )
}

/// Refuses to start a member whose data directory carries the mark.
pub fn check(name: &str, data_dir: &Path) -> Result<(), Error> {
    let Ok(text) = std::fs::read_to_string(path(data_dir)) else {
        return Ok(());
    };
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| "(unknown)".into())
    };
    Err(advice(
        name,
        data_dir,
        &field("member "),
        &field("cluster "),
    ))
}

/// Leaves the mark (made durable) and returns what the member says as it stops.
pub fn mark(name: &str, data_dir: &Path, member_id: u64, cluster_id: u64) -> Error {
    let (member, cluster) = (format!("{member_id:016x}"), format!("{cluster_id:016x}"));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(path(data_dir))?;
        writeln!(f, "member {member}\ncluster {cluster}")?;
        f.sync_all()?;
        std::fs::File::open(data_dir)?.sync_all()
    };
    let err = advice(name, data_dir, &member, &cluster);
    match write() {
        Ok(()) => err,
        Err(e) => err.context(format!(
            "(could not mark {} as removed: {e})",
            data_dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_directory_refuses_to_start() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check("n1", dir.path()).is_ok());
        let said = mark("n1", dir.path(), 0xab, 0xcd);
        assert_eq!(said.kind, ErrorKind::Removed);
        let refused = check("n1", dir.path()).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Removed);
        assert_eq!(refused.message, said.message);
        assert!(
            refused.message.contains("00000000000000ab")
                && refused.message.contains("00000000000000cd"),
            "{}",
            refused.message
        );
    }
}
