//! etcd's Auth service as etcd answers it: users, roles and permissions
//! changed through raft at the leader (root only once authentication is on),
//! read at the leader, and Authenticate issuing simple tokens every member
//! knows (through raft) or JWTs any member checks with the public key.

use std::future::Future;
use std::sync::Arc;

use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use super::access::Caller;
use super::errors::{internal, unexpected};
use super::forward::{Answer, Answered};
use super::jwt::AuthToken;
use super::{errors, password, Shared};
use crate::node::Applied;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::auth_client::AuthClient;
use crate::proto::etcdserverpb::auth_server::Auth;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{auth_role, auth_user, AuthRefusal};
use spb::auth_change::Change;

/// The etcd-compatible Auth service.
pub struct AuthService(pub Arc<Shared>);

type Header = Option<epb::ResponseHeader>;

impl Shared {
    /// Applies an auth change (this node leads); the response header.
    async fn change_auth(&self, change: Change) -> Result<Header, Status> {
        let op = spb::command::Op::Auth(spb::AuthChange {
            change: Some(change),
        });
        match self.propose(op).await? {
            Applied::Auth(Ok(_)) => Ok(self.header(self.revision())),
            Applied::Auth(Err(e)) => Err(errors::from_auth_refusal(e)),
            other => Err(unexpected(other)),
        }
    }
}

/// [`Shared::unary`] with etcd's Auth client for passing on.
async fn at_leader<Req, Resp, F, FFut, H, HFut>(
    s: &Shared,
    req: Request<Req>,
    answer: Answer,
    forward: F,
    here: H,
) -> Result<Response<Resp>, Status>
where
    Req: Clone,
    Resp: Answered,
    F: Fn(AuthClient<Channel>, Request<Req>) -> FFut,
    FFut: Future<Output = Result<Response<Resp>, Status>>,
    H: Fn(Caller, Req) -> HFut,
    HFut: Future<Output = Result<Resp, Status>>,
{
    let forward = &forward;
    s.unary(req, answer, |ch, r| forward(AuthClient::new(ch), r), here)
        .await
}

/// A change only root may make once authentication is on.
async fn admin_change<Req, Resp, F, FFut>(
    s: &Shared,
    req: Request<Req>,
    forward: F,
    change: impl Fn(Req) -> Result<Change, Status>,
    respond: impl Fn(Header) -> Resp,
) -> Result<Response<Resp>, Status>
where
    Req: Clone,
    Resp: Answered,
    F: Fn(AuthClient<Channel>, Request<Req>) -> FFut,
    FFut: Future<Output = Result<Response<Resp>, Status>>,
{
    let (change, respond) = (&change, &respond);
    at_leader(s, req, Answer::Applied, forward, |caller, r| async move {
        caller.admin(s)?;
        Ok(respond(s.change_auth(change(r)?).await?))
    })
    .await
}

/// Hashes a password off the async threads, at `cost` (--bcrypt-cost).
async fn hashed(password: String, cost: u32) -> Result<String, Status> {
    tokio::task::spawn_blocking(move || password::hash(&password, cost))
        .await
        .map_err(internal)
}

/// The hash to keep for a request's password: etcd 3.5's pre-hashed
/// `hashedPassword` (a bcrypt hash) as given, as etcd keeps it, else the
/// password hashed here.
async fn password_hash(
    password: String,
    hashed_password: String,
    cost: u32,
) -> Result<String, Status> {
    if hashed_password.is_empty() {
        hashed(password, cost).await
    } else {
        Ok(hashed_password)
    }
}

fn to_store(p: epb::Permission) -> spb::AuthPermission {
    spb::AuthPermission {
        perm_type: p.perm_type,
        key: p.key,
        range_end: p.range_end,
    }
}

fn to_etcd(p: &spb::AuthPermission) -> epb::Permission {
    epb::Permission {
        perm_type: p.perm_type,
        key: p.key.clone(),
        range_end: p.range_end.clone(),
    }
}

#[tonic::async_trait]
impl Auth for AuthService {
    async fn auth_enable(
        &self,
        req: Request<epb::AuthEnableRequest>,
    ) -> Result<Response<epb::AuthEnableResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.auth_enable(r).await },
            |_| Ok(Change::Enable(true)),
            |header| epb::AuthEnableResponse { header },
        )
        .await
    }

    async fn auth_disable(
        &self,
        req: Request<epb::AuthDisableRequest>,
    ) -> Result<Response<epb::AuthDisableResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.auth_disable(r).await },
            |_| Ok(Change::Disable(true)),
            |header| epb::AuthDisableResponse { header },
        )
        .await
    }

    async fn auth_status(
        &self,
        req: Request<epb::AuthStatusRequest>,
    ) -> Result<Response<epb::AuthStatusResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Served,
            |mut c, r| async move { c.auth_status(r).await },
            |_, _| async move {
                let state = s.node.store().state().auth();
                Ok(epb::AuthStatusResponse {
                    header: s.header(s.revision()),
                    enabled: state.enabled,
                    auth_revision: state.revision,
                })
            },
        )
        .await
    }

    async fn authenticate(
        &self,
        req: Request<epb::AuthenticateRequest>,
    ) -> Result<Response<epb::AuthenticateResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Applied,
            |mut c, r| async move { c.authenticate(r).await },
            |_, r| async move {
                let state = s.node.store().state().auth();
                if !state.enabled {
                    return Err(errors::auth_not_enabled());
                }
                let stored = match auth_user(&state, &r.name) {
                    Some(u) if !u.no_password => u.password_hash.clone(),
                    _ => return Err(errors::auth_failed()),
                };
                let given = r.password.clone();
                let ok = tokio::task::spawn_blocking(move || password::verify(&stored, &given))
                    .await
                    .map_err(internal)?;
                if !ok {
                    return Err(errors::auth_failed());
                }
                if let AuthToken::Jwt(jwt) = &s.auth.token {
                    // Self-contained: signed here, checked by any member
                    // with the public key; nothing goes through raft.
                    let token = jwt
                        .issue(&r.name, state.revision)
                        .map_err(Status::unknown)?;
                    return Ok(epb::AuthenticateResponse {
                        header: s.header(s.revision()),
                        token,
                    });
                }
                let token = password::new_token();
                let op = spb::command::Op::IssueToken(spb::IssueToken {
                    token: token.clone(),
                    user: r.name,
                });
                s.propose(op).await?;
                Ok(epb::AuthenticateResponse {
                    header: s.header(s.revision()),
                    token,
                })
            },
        )
        .await
    }

    async fn user_add(
        &self,
        req: Request<epb::AuthUserAddRequest>,
    ) -> Result<Response<epb::AuthUserAddResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Applied,
            |mut c, r| async move { c.user_add(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                if r.name.is_empty() {
                    return Err(errors::from_auth_refusal(AuthRefusal::UserEmpty));
                }
                let no_password = r.options.is_some_and(|o| o.no_password);
                let password_hash = if no_password {
                    String::new()
                } else {
                    password_hash(r.password, r.hashed_password, s.auth.bcrypt_cost).await?
                };
                let user = spb::AuthUser {
                    name: r.name,
                    password_hash,
                    roles: vec![],
                    no_password,
                };
                let header = s.change_auth(Change::UserAdd(user)).await?;
                Ok(epb::AuthUserAddResponse { header })
            },
        )
        .await
    }

    async fn user_get(
        &self,
        req: Request<epb::AuthUserGetRequest>,
    ) -> Result<Response<epb::AuthUserGetResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Served,
            |mut c, r| async move { c.user_get(r).await },
            |caller, r| async move {
                // etcd: root, or the user asking about itself.
                if caller.0.as_deref() != Some(r.name.as_str()) {
                    caller.admin(s)?;
                }
                let state = s.node.store().state().auth();
                let user = auth_user(&state, &r.name)
                    .ok_or_else(|| errors::from_auth_refusal(AuthRefusal::UserNotFound))?;
                Ok(epb::AuthUserGetResponse {
                    header: s.header(s.revision()),
                    roles: user.roles.clone(),
                })
            },
        )
        .await
    }

    async fn user_list(
        &self,
        req: Request<epb::AuthUserListRequest>,
    ) -> Result<Response<epb::AuthUserListResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Served,
            |mut c, r| async move { c.user_list(r).await },
            |caller, _| async move {
                caller.admin(s)?;
                let state = s.node.store().state().auth();
                Ok(epb::AuthUserListResponse {
                    header: s.header(s.revision()),
                    users: state.users.iter().map(|u| u.name.clone()).collect(),
                })
            },
        )
        .await
    }

    async fn user_delete(
        &self,
        req: Request<epb::AuthUserDeleteRequest>,
    ) -> Result<Response<epb::AuthUserDeleteResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.user_delete(r).await },
            |r| Ok(Change::UserDelete(r.name)),
            |header| epb::AuthUserDeleteResponse { header },
        )
        .await
    }

    async fn user_change_password(
        &self,
        req: Request<epb::AuthUserChangePasswordRequest>,
    ) -> Result<Response<epb::AuthUserChangePasswordResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Applied,
            |mut c, r| async move { c.user_change_password(r).await },
            |caller, r| async move {
                caller.admin(s)?;
                let user = spb::AuthUser {
                    name: r.name,
                    password_hash: password_hash(r.password, r.hashed_password, s.auth.bcrypt_cost)
                        .await?,
                    ..Default::default()
                };
                let header = s.change_auth(Change::UserChangePassword(user)).await?;
                Ok(epb::AuthUserChangePasswordResponse { header })
            },
        )
        .await
    }

    async fn user_grant_role(
        &self,
        req: Request<epb::AuthUserGrantRoleRequest>,
    ) -> Result<Response<epb::AuthUserGrantRoleResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.user_grant_role(r).await },
            |r| {
                Ok(Change::UserGrantRole(spb::AuthGrant {
                    user: r.user,
                    role: r.role,
                }))
            },
            |header| epb::AuthUserGrantRoleResponse { header },
        )
        .await
    }

    async fn user_revoke_role(
        &self,
        req: Request<epb::AuthUserRevokeRoleRequest>,
    ) -> Result<Response<epb::AuthUserRevokeRoleResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.user_revoke_role(r).await },
            |r| {
                Ok(Change::UserRevokeRole(spb::AuthGrant {
                    user: r.name,
                    role: r.role,
                }))
            },
            |header| epb::AuthUserRevokeRoleResponse { header },
        )
        .await
    }

    async fn role_add(
        &self,
        req: Request<epb::AuthRoleAddRequest>,
    ) -> Result<Response<epb::AuthRoleAddResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.role_add(r).await },
            |r| Ok(Change::RoleAdd(r.name)),
            |header| epb::AuthRoleAddResponse { header },
        )
        .await
    }

    async fn role_get(
        &self,
        req: Request<epb::AuthRoleGetRequest>,
    ) -> Result<Response<epb::AuthRoleGetResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Served,
            |mut c, r| async move { c.role_get(r).await },
            |caller, r| async move {
                let state = s.node.store().state().auth();
                // etcd: root, or a user asking about a role it has.
                let has_role = caller
                    .0
                    .as_deref()
                    .and_then(|u| auth_user(&state, u))
                    .is_some_and(|u| u.roles.contains(&r.role));
                if !has_role {
                    caller.admin(s)?;
                }
                let role = auth_role(&state, &r.role)
                    .ok_or_else(|| errors::from_auth_refusal(AuthRefusal::RoleNotFound))?;
                // etcd 3.4 lists the root role's stored permissions (none);
                // root may do anything regardless.
                let perm = role.permissions.iter().map(to_etcd).collect();
                Ok(epb::AuthRoleGetResponse {
                    header: s.header(s.revision()),
                    perm,
                })
            },
        )
        .await
    }

    async fn role_list(
        &self,
        req: Request<epb::AuthRoleListRequest>,
    ) -> Result<Response<epb::AuthRoleListResponse>, Status> {
        let s = &self.0;
        at_leader(
            s,
            req,
            Answer::Served,
            |mut c, r| async move { c.role_list(r).await },
            |caller, _| async move {
                caller.admin(s)?;
                let state = s.node.store().state().auth();
                Ok(epb::AuthRoleListResponse {
                    header: s.header(s.revision()),
                    roles: state.roles.iter().map(|r| r.name.clone()).collect(),
                })
            },
        )
        .await
    }

    async fn role_delete(
        &self,
        req: Request<epb::AuthRoleDeleteRequest>,
    ) -> Result<Response<epb::AuthRoleDeleteResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.role_delete(r).await },
            |r| Ok(Change::RoleDelete(r.role)),
            |header| epb::AuthRoleDeleteResponse { header },
        )
        .await
    }

    async fn role_grant_permission(
        &self,
        req: Request<epb::AuthRoleGrantPermissionRequest>,
    ) -> Result<Response<epb::AuthRoleGrantPermissionResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.role_grant_permission(r).await },
            |r| {
                let perm = r.perm.ok_or_else(errors::permission_not_given)?;
                Ok(Change::RoleGrantPermission(spb::AuthRoleGrant {
                    role: r.name,
                    permission: Some(to_store(perm)),
                }))
            },
            |header| epb::AuthRoleGrantPermissionResponse { header },
        )
        .await
    }

    async fn role_revoke_permission(
        &self,
        req: Request<epb::AuthRoleRevokePermissionRequest>,
    ) -> Result<Response<epb::AuthRoleRevokePermissionResponse>, Status> {
        admin_change(
            &self.0,
            req,
            |mut c, r| async move { c.role_revoke_permission(r).await },
            |r| {
                Ok(Change::RoleRevokePermission(spb::AuthRoleGrant {
                    role: r.role,
                    permission: Some(spb::AuthPermission {
                        perm_type: 0,
                        key: r.key,
                        range_end: r.range_end,
                    }),
                }))
            },
            |header| epb::AuthRoleRevokePermissionResponse { header },
        )
        .await
    }
}
