//! The state machine's authentication state (users, roles, permissions,
//! enabled) as etcd's auth store keeps it: changes applied with etcd's
//! rules to the state kept whole in the state machine.

use std::sync::Arc;

use super::writes::Batch;
use crate::proto::memberctl_store_v1 as spb;

/// etcd's root user and role.
pub const ROOT: &str = "root";

/// etcd's permission types.
pub const READ: i32 = 0;
/// Write only.
pub const WRITE: i32 = 1;
/// Read and write.
pub const READWRITE: i32 = 2;

/// Why the state machine refused an auth change: etcd's auth store errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthRefusal {
    /// Enabling without a root user.
    #[error("root user does not exist")]
    RootUserNotExist,
    /// Enabling while root lacks the root role.
    #[error("root user does not have root role")]
    RootRoleNotExist,
    /// Adding a user that exists.
    #[error("user name already exists")]
    UserAlreadyExist,
    /// An empty user name.
    #[error("user name is empty")]
    UserEmpty,
    /// A user that does not exist.
    #[error("user name not found")]
    UserNotFound,
    /// Adding a role that exists.
    #[error("role name already exists")]
    RoleAlreadyExist,
    /// A role that does not exist.
    #[error("role name not found")]
    RoleNotFound,
    /// An empty role name.
    #[error("role name is empty")]
    RoleEmpty,
    /// Revoking a role the user does not have.
    #[error("role is not granted to the user")]
    RoleNotGranted,
    /// Revoking a permission the role does not have.
    #[error("permission is not granted to the role")]
    PermissionNotGranted,
    /// Deleting root, or its role, while authentication is on; an invalid
    /// permission range.
    #[error("invalid auth management")]
    InvalidAuthMgmt,
}

/// Whether `[key, range_end)` may be granted, by etcd's rules: a non-empty
/// key, and no range end, a larger one, or "\0" (to the end).
pub fn valid_permission_range(key: &[u8], range_end: &[u8]) -> bool {
    !key.is_empty() && (range_end.is_empty() || key < range_end || range_end == [0])
}

impl Batch<'_> {
    /// Applies an auth change with etcd's rules; the state after it, or why
    /// it was refused (nothing changed then).
    pub fn auth(&mut self, change: &spb::AuthChange) -> Result<Arc<spb::AuthState>, AuthRefusal> {
        let Some(c) = &change.change else {
            return Ok(self.state.auth.clone());
        };
        let mut state = (*self.state.auth).clone();
        if change_state(&mut state, c)? {
            state.revision += 1;
            self.state.auth = Arc::new(state);
        }
        Ok(self.state.auth.clone())
    }
}

/// Applies `c` to `state` in memory; whether it changed anything.
fn change_state(
    state: &mut spb::AuthState,
    c: &spb::auth_change::Change,
) -> std::result::Result<bool, AuthRefusal> {
    use spb::auth_change::Change as C;
    use AuthRefusal as R;
    match c {
        C::Enable(_) => {
            if state.enabled {
                return Ok(false);
            }
            let root = user(state, ROOT).ok_or(R::RootUserNotExist)?;
            if !root.roles.iter().any(|r| r == ROOT) {
                return Err(R::RootRoleNotExist);
            }
            state.enabled = true;
        }
        C::Disable(_) => {
            if !state.enabled {
                return Ok(false);
            }
            state.enabled = false;
        }
        C::UserAdd(u) => {
            if u.name.is_empty() {
                return Err(R::UserEmpty);
            }
            let Err(at) = state.users.binary_search_by(|x| x.name.cmp(&u.name)) else {
                return Err(R::UserAlreadyExist);
            };
            state.users.insert(
                at,
                spb::AuthUser {
                    roles: Vec::new(),
                    ..u.clone()
                },
            );
        }
        C::UserDelete(name) => {
            if state.enabled && name == ROOT {
                return Err(R::InvalidAuthMgmt);
            }
            let at = user_at(state, name)?;
            state.users.remove(at);
        }
        C::UserChangePassword(u) => {
            let at = user_at(state, &u.name)?;
            let old = &mut state.users[at];
            if !old.no_password {
                old.password_hash = u.password_hash.clone();
            }
        }
        C::UserGrantRole(g) => {
            let at = user_at(state, &g.user)?;
            if g.role != ROOT && role(state, &g.role).is_none() {
                return Err(R::RoleNotFound);
            }
            let roles = &mut state.users[at].roles;
            let Err(i) = roles.binary_search(&g.role) else {
                return Ok(false);
            };
            roles.insert(i, g.role.clone());
        }
        C::UserRevokeRole(g) => {
            if state.enabled && g.user == ROOT && g.role == ROOT {
                return Err(R::InvalidAuthMgmt);
            }
            let at = user_at(state, &g.user)?;
            let roles = &mut state.users[at].roles;
            let i = roles
                .binary_search(&g.role)
                .map_err(|_| R::RoleNotGranted)?;
            roles.remove(i);
        }
        C::RoleAdd(name) => {
            if name.is_empty() {
                return Err(R::RoleEmpty);
            }
            let Err(at) = state.roles.binary_search_by(|x| x.name.cmp(name)) else {
                return Err(R::RoleAlreadyExist);
            };
            state.roles.insert(
                at,
                spb::AuthRole {
                    name: name.clone(),
                    permissions: Vec::new(),
                },
            );
        }
        C::RoleDelete(name) => {
            if state.enabled && name == ROOT {
                return Err(R::InvalidAuthMgmt);
            }
            let at = role_at(state, name)?;
            state.roles.remove(at);
            for u in &mut state.users {
                u.roles.retain(|r| r != name);
            }
        }
        C::RoleGrantPermission(g) => {
            let p = g.permission.clone().unwrap_or_default();
            if !valid_permission_range(&p.key, &p.range_end) {
                return Err(R::InvalidAuthMgmt);
            }
            let at = role_at(state, &g.role)?;
            let perms = &mut state.roles[at].permissions;
            match perms
                .iter_mut()
                .find(|x| x.key == p.key && x.range_end == p.range_end)
            {
                Some(x) => x.perm_type = p.perm_type,
                None => {
                    let i = perms.partition_point(|x| x.key <= p.key);
                    perms.insert(i, p);
                }
            }
        }
        C::RoleRevokePermission(g) => {
            let p = g.permission.clone().unwrap_or_default();
            let at = role_at(state, &g.role)?;
            let perms = &mut state.roles[at].permissions;
            let before = perms.len();
            perms.retain(|x| x.key != p.key || x.range_end != p.range_end);
            if perms.len() == before {
                return Err(R::PermissionNotGranted);
            }
        }
    }
    Ok(true)
}

/// The user named `name`.
pub fn user<'s>(state: &'s spb::AuthState, name: &str) -> Option<&'s spb::AuthUser> {
    user_at(state, name).ok().map(|i| &state.users[i])
}

/// The role named `name`.
pub fn role<'s>(state: &'s spb::AuthState, name: &str) -> Option<&'s spb::AuthRole> {
    role_at(state, name).ok().map(|i| &state.roles[i])
}

fn user_at(state: &spb::AuthState, name: &str) -> std::result::Result<usize, AuthRefusal> {
    state
        .users
        .binary_search_by(|u| u.name.as_str().cmp(name))
        .map_err(|_| AuthRefusal::UserNotFound)
}

fn role_at(state: &spb::AuthState, name: &str) -> std::result::Result<usize, AuthRefusal> {
    state
        .roles
        .binary_search_by(|r| r.name.as_str().cmp(name))
        .map_err(|_| AuthRefusal::RoleNotFound)
}
