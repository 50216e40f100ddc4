//! An etcd snapshot (or backend file) restored into the data directory of a
//! member of a new cluster, as `etcdutl snapshot restore` does for etcd: the
//! key history with every revision, the revision, the compaction, the leases
//! (their TTLs start again when the cluster starts), users, roles and whether
//! authentication is on come from etcd's file; the cluster ID, the member's
//! ID and the membership are new; alarms are not carried over.

use std::path::Path;
use std::sync::Arc;

use crate::etcd_db::content::{self, Content};
use crate::etcd_db::DbError;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::values::Value;
use crate::storage::{Record, State, StoreError};

/// Why a restore from an etcd file failed: the file, or the new data directory.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// etcd's file cannot be read as an etcd database (nothing was created).
    #[error("{0}")]
    File(#[from] DbError),
    /// The data directory could not be written.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// Reads the etcd database at `path` whole (its trailer checked unless
/// `skip_hash_check`) into the state of a new cluster `cluster_id` (no
/// members yet: the store's restore gives it its membership).
pub fn read(
    path: &Path,
    skip_hash_check: bool,
    cluster_id: u64,
) -> std::result::Result<(Content, State), DbError> {
    let mut state = State::new(cluster_id);
    let content = content::read(path, skip_hash_check, &mut |c| {
        let key = state.key(&c.kv.key);
        let rec = Arc::new(Record {
            key: key.clone(),
            value: Value::new(&c.kv.value),
            create_revision: c.kv.create_revision,
            mod_revision: c.main,
            version: c.kv.version,
            lease: c.kv.lease,
            sub: u32::try_from(c.sub).unwrap_or(u32::MAX),
            tombstone: c.tombstone,
        });
        state.insert_record(key.clone(), rec.clone());
        // Changes come in revision order: the last one of a key is its state.
        if let Some(prev) = state.kv.remove(&key) {
            if prev.lease != 0 {
                state.lease_keys.remove(&(prev.lease, key.clone()));
            }
        }
        if !rec.tombstone {
            if rec.lease != 0 {
                state.lease_keys.insert((rec.lease, key.clone()));
            }
            state.kv.insert(key, rec);
        }
        Ok(())
    })?;
    state.revision = content.revision;
    state.compacted = content.compact_revision;
    state.leases = content
        .leases
        .iter()
        .map(|&(id, ttl)| (id, spb::LeaseRecord { id, ttl }))
        .collect();
    state.auth = Arc::new(auth(&content));
    Ok((content, state))
}

/// etcd's users and roles as the engine keeps them (sorted; passwords stay
/// bcrypt hashes, which the engine checks as etcd does).
fn auth(c: &Content) -> spb::AuthState {
    let mut users: Vec<spb::AuthUser> = c
        .users
        .iter()
        .map(|u| {
            let mut roles = u.roles.clone();
            roles.sort();
            spb::AuthUser {
                name: u.name.clone(),
                password_hash: u.password_bcrypt.clone(),
                roles,
                no_password: u.no_password,
            }
        })
        .collect();
    users.sort_by(|a, b| a.name.cmp(&b.name));
    let mut roles: Vec<spb::AuthRole> = c
        .roles
        .iter()
        .map(|r| {
            let mut permissions: Vec<spb::AuthPermission> = r
                .permissions
                .iter()
                .map(|p| spb::AuthPermission {
                    perm_type: p.kind,
                    key: p.key.clone(),
                    range_end: p.range_end.clone(),
                })
                .collect();
            permissions.sort_by(|a, b| a.key.cmp(&b.key));
            spb::AuthRole {
                name: r.name.clone(),
                permissions,
            }
        })
        .collect();
    roles.sort_by(|a, b| a.name.cmp(&b.name));
    spb::AuthState {
        enabled: c.auth_enabled,
        revision: c.auth_revision,
        users,
        roles,
    }
}
