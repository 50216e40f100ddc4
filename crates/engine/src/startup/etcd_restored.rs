//! A data directory `etcdctl snapshot restore` (or etcdutl's) wrote, taken into the engine's format at the member's first start, as etcd starts on it: etcd's database read into a new store for the members and IDs the restore recorded, etcd's own files kept beside it (`etcd-member/`). A directory a cluster has run on is refused: the tail of its log would be lost.

use std::path::Path;

use super::error::StartupError;
use crate::log;
use crate::proto::memberctl_store_v1 as spb;

/// Where etcd's files go once taken in.
const KEPT: &str = "etcd-member";

/// Takes an etcd-restored data directory at `dir` into the engine's format;
/// nothing when `dir` is no such directory. On failure, `dir` is left as it
/// was.
pub fn adopt(dir: &Path) -> Result<(), StartupError> {
    let etcd = dir.join("member");
    let db = etcd.join("snap").join("db");
    if !etcd.is_dir() || dir.join("FORMAT").exists() || !db.is_file() {
        return Ok(());
    }
    let refuse = |why: String| {
        StartupError::Store(format!(
            "{} is etcd's data directory, and {why}",
            dir.display()
        ))
    };
    let restored = crate::etcd_db::wal::read_restored(&etcd.join("wal")).map_err(|why| {
        refuse(format!(
            "{why}: the engine starts only on one that `etcdctl snapshot restore` (or \
             etcdutl's) made and no cluster has run on; save a snapshot of that member \
             (`etcdctl snapshot save`) and restore it (`memberctl snapshot restore`)"
        ))
    })?;
    let kept = dir.join(KEPT);
    if kept.exists() {
        return Err(refuse(format!(
            "{} exists already: move it away to start the member",
            kept.display()
        )));
    }
    let members: Vec<spb::MemberMeta> = restored
        .members
        .iter()
        .map(|m| spb::MemberMeta {
            id: m.id,
            name: m.name.clone(),
            peer_urls: m.peer_urls.clone(),
            ..Default::default()
        })
        .collect();
    std::fs::rename(&etcd, &kept)
        .map_err(|e| refuse(format!("{} cannot be moved aside: {e}", etcd.display())))?;
    let taken = super::restore::from_etcd(
        &kept.join("snap").join("db"),
        true,
        dir,
        restored.cluster_id,
        restored.member_id,
        &members,
        None,
    );
    match taken {
        Ok((content, _)) => {
            slog::info!(log::logger(),
                "data directory restored by etcd's snapshot restore taken into the engine's format";
                "revision" => content.revision, "members" => members.len(),
                "etcd-files-kept-in" => kept.display().to_string());
            Ok(())
        }
        Err(e) => {
            // Back as it was: what the restore made goes, etcd's files return.
            for made in ["FORMAT", "member", "raft", "snap"] {
                let p = dir.join(made);
                let _ = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
            }
            let _ = std::fs::rename(&kept, &etcd);
            Err(refuse(format!("its database cannot be taken in: {e}")))
        }
    }
}
