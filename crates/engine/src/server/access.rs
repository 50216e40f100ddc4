//! Who a request comes from and what they may do, as etcd's auth store
//! decides it: the caller is resolved from the request's token (or, on the
//! peer listener, from the member that forwarded it), then every service
//! checks key-range permissions or the root role before serving.

use std::sync::Arc;

use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Status};

use super::jwt::AuthToken;
use super::{errors, Shared};
use crate::proto::etcdserverpb as epb;
use crate::proto::memberctl_store_v1 as spb;
use crate::storage::{
    auth_role, auth_user, AuthRefusal, AUTH_ROOT, PERM_READ, PERM_READWRITE, PERM_WRITE,
};

/// Metadata a forwarding member sets: the user its client authenticated as.
pub const FORWARDED_USER: &str = "memberctl-user";
/// Metadata a forwarding member sets: the auth revision its client's JWT
/// carries (none for a simple token).
pub const FORWARDED_REVISION: &str = "memberctl-auth-revision";
/// Metadata a forwarding member sets (see `forward`).
pub const FORWARDED: &str = "memberctl-forwarded";

/// The user a request comes from (None: no token), in its extensions, and
/// the auth revision its JWT was issued at (None: a simple token or a
/// certificate's user, which etcd takes at the current revision).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caller(pub Option<String>, pub Option<u64>);

/// What the listener's interceptor found in a request's metadata.
#[derive(Clone, Debug)]
enum Resolved {
    /// The caller is known.
    Known(Caller),
    /// A token this member does not know (yet).
    Unknown(String),
    /// A JWT that is expired, badly signed or without etcd's claims.
    Invalid,
}

impl Shared {
    /// The caller of `req`. A token this member does not know may have been
    /// issued a moment ago through raft and not be applied here yet: this
    /// member catches up with the leader once before refusing it as etcd
    /// does (`invalid auth token`).
    pub async fn caller<T>(&self, req: &Request<T>) -> Result<Caller, Status> {
        match req.extensions().get::<Resolved>() {
            None => Ok(Caller::default()),
            Some(Resolved::Known(c)) => Ok(c.clone()),
            Some(Resolved::Invalid) => Err(errors::invalid_auth_token()),
            Some(Resolved::Unknown(token)) => {
                self.catch_up().await;
                match self.node.tokens().user(token) {
                    Some(user) => Ok(Caller(Some(user), None)),
                    None => Err(errors::invalid_auth_token()),
                }
            }
        }
    }
}

/// The listeners' interceptor. On the client listener clients cannot
/// claim a request was forwarded, and a token is resolved to its user (an
/// unknown token is refused while authentication is on, as etcd refuses
/// it). On the peer listener a forwarded request carries its caller; any
/// other is resolved from its token.
#[derive(Clone)]
pub struct Access {
    shared: Arc<Shared>,
    peer: bool,
}

impl Access {
    /// The interceptor of the peer listener (`peer`) or the client one.
    pub fn new(shared: Arc<Shared>, peer: bool) -> Access {
        Access { shared, peer }
    }
}

impl tonic::service::Interceptor for Access {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        let caller = if self.peer && req.metadata().contains_key(FORWARDED) {
            let md = req.metadata();
            let text = |key| md.get(key).and_then(|v| v.to_str().ok());
            Resolved::Known(Caller(
                text(FORWARDED_USER).map(str::to_string),
                text(FORWARDED_REVISION).and_then(|r| r.parse().ok()),
            ))
        } else {
            req.metadata_mut().remove(FORWARDED);
            req.metadata_mut().remove(FORWARDED_USER);
            req.metadata_mut().remove(FORWARDED_REVISION);
            let cert_user = req
                .extensions()
                .get::<crate::listen::ConnInfo>()
                .and_then(|c| c.cert_user.as_deref());
            from_token(&self.shared, req.metadata(), cert_user)
        };
        req.extensions_mut().insert(caller);
        Ok(req)
    }
}

/// The caller named by a request's token: etcd clients send it as `token`
/// (newer ones also as `authorization`). Without a token, while
/// authentication is on, the user its connection's client certificate
/// names (`cert_user`, with `--client-cert-auth`), as etcd takes it. A JWT
/// is checked here, with the public key (no other member is asked).
fn from_token(s: &Shared, md: &MetadataMap, cert_user: Option<&str>) -> Resolved {
    let token = md
        .get("token")
        .or_else(|| md.get("authorization"))
        .and_then(|v| v.to_str().ok());
    let enabled = || s.node.store().state().auth().enabled;
    let Some(token) = token else {
        let user = cert_user.filter(|_| enabled()).map(str::to_string);
        return Resolved::Known(Caller(user, None));
    };
    if !enabled() {
        return Resolved::Known(Caller::default());
    }
    if let AuthToken::Jwt(jwt) = &s.auth.token {
        return match jwt.check(token) {
            Some(info) => Resolved::Known(Caller(Some(info.user), Some(info.revision))),
            None => Resolved::Invalid,
        };
    }
    match s.node.tokens().user(token) {
        Some(user) => Resolved::Known(Caller(Some(user), None)),
        None => Resolved::Unknown(token.to_string()),
    }
}

/// Sets the metadata that carries `caller` on a request forwarded to the leader.
pub fn mark_forwarded(md: &mut MetadataMap, caller: &Caller) {
    md.insert(FORWARDED, MetadataValue::from_static("1"));
    if let Some(user) = &caller.0 {
        if let Ok(v) = MetadataValue::try_from(user.as_str()) {
            md.insert(FORWARDED_USER, v);
        }
    }
    if let Some(revision) = caller.1 {
        md.insert(FORWARDED_REVISION, MetadataValue::from(revision));
    }
}

/// A permission a request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Read a key or range.
    Read,
    /// Write a key or range.
    Write,
}

impl Caller {
    /// Refuses unless authentication is off or the caller has the root role
    /// (etcd's admin check: membership, maintenance and auth changes).
    pub fn admin(&self, s: &Shared) -> Result<(), Status> {
        admin(&s.node.store().state().auth(), self.0.as_deref())
    }

    /// Refuses unless authentication is off or the caller may `need` the
    /// key (empty `range_end`) or `[key, range_end)` (`"\0"`: to the end).
    pub fn may(&self, s: &Shared, need: Need, key: &[u8], range_end: &[u8]) -> Result<(), Status> {
        let state = s.node.store().state().auth();
        self.current(&state)?;
        permitted(&state, self.0.as_deref(), need, key, range_end)
    }

    /// etcd's check of a key request's auth revision, before the user's
    /// permissions: a JWT issued before the auth store last changed is
    /// refused (`revision of auth store is old`, so that the client
    /// authenticates again); admin requests are not checked (as in etcd).
    fn current(&self, state: &spb::AuthState) -> Result<(), Status> {
        match self.1 {
            Some(revision) if state.enabled && revision < state.revision => {
                Err(errors::auth_old_revision())
            }
            _ => Ok(()),
        }
    }
}

/// etcd's admin check on `state`.
pub fn admin(state: &spb::AuthState, user: Option<&str>) -> Result<(), Status> {
    if !state.enabled {
        return Ok(());
    }
    let Some(name) = user.filter(|u| !u.is_empty()) else {
        return Err(errors::user_empty());
    };
    let Some(u) = auth_user(state, name) else {
        return Err(errors::from_auth_refusal(AuthRefusal::UserNotFound));
    };
    if u.roles.iter().any(|r| r == AUTH_ROOT) {
        Ok(())
    } else {
        Err(errors::permission_denied())
    }
}

/// etcd's key permission check on `state`.
pub fn permitted(
    state: &spb::AuthState,
    user: Option<&str>,
    need: Need,
    key: &[u8],
    range_end: &[u8],
) -> Result<(), Status> {
    if !state.enabled {
        return Ok(());
    }
    let Some(name) = user.filter(|u| !u.is_empty()) else {
        return Err(errors::user_empty());
    };
    let Some(u) = auth_user(state, name) else {
        return Err(errors::permission_denied());
    };
    if u.roles.iter().any(|r| r == AUTH_ROOT) {
        return Ok(());
    }
    let wanted = match need {
        Need::Read => PERM_READ,
        Need::Write => PERM_WRITE,
    };
    // The user's ranges for `need`: [start, end) with None for the end of
    // the keyspace; a single key is [key, key + "\0").
    let mut ranges: Vec<(&[u8], Option<Vec<u8>>)> = Vec::new();
    for role in u.roles.iter().filter_map(|r| auth_role(state, r)) {
        for p in &role.permissions {
            if p.perm_type != wanted && p.perm_type != PERM_READWRITE {
                continue;
            }
            let end = match p.range_end.as_slice() {
                [] => Some(successor(&p.key)),
                [0] => None,
                e => Some(e.to_vec()),
            };
            ranges.push((&p.key, end));
        }
    }
    let covered = if range_end.is_empty() {
        ranges
            .iter()
            .any(|(s, e)| *s <= key && e.as_deref().is_none_or(|e| key < e))
    } else {
        covers(&mut ranges, key, (range_end != [0]).then_some(range_end))
    };
    if covered {
        Ok(())
    } else {
        Err(errors::permission_denied())
    }
}

/// The smallest key after `key`.
fn successor(key: &[u8]) -> Vec<u8> {
    let mut k = key.to_vec();
    k.push(0);
    k
}

/// Whether the union of `ranges` covers `[from, to)` (`to` None: to the end).
fn covers(ranges: &mut [(&[u8], Option<Vec<u8>>)], from: &[u8], to: Option<&[u8]>) -> bool {
    ranges.sort_by(|a, b| a.0.cmp(b.0));
    let mut at = from.to_vec();
    for (start, end) in ranges.iter() {
        if *start > at.as_slice() {
            break;
        }
        match end {
            None => return true,
            Some(e) if e.as_slice() > at.as_slice() => at = e.clone(),
            Some(_) => {}
        }
        if to.is_some_and(|t| at.as_slice() >= t) {
            return true;
        }
    }
    false
}

/// etcd's checks of KV requests.
impl Caller {
    /// A range reads its keys.
    pub fn may_range(&self, s: &Shared, r: &epb::RangeRequest) -> Result<(), Status> {
        self.may(s, Need::Read, &r.key, &r.range_end)
    }

    /// A put writes its key, reads it for `prev_kv`, and (unless root) may
    /// write every key already on its lease.
    pub fn may_put(&self, s: &Shared, r: &epb::PutRequest) -> Result<(), Status> {
        self.may(s, Need::Write, &r.key, b"")?;
        if r.prev_kv {
            self.may(s, Need::Read, &r.key, b"")?;
        }
        if r.lease != 0 {
            self.may_lease_keys(s, r.lease, Need::Write)?;
        }
        Ok(())
    }

    /// A delete writes its range, and reads it for `prev_kv`.
    pub fn may_delete(&self, s: &Shared, r: &epb::DeleteRangeRequest) -> Result<(), Status> {
        self.may(s, Need::Write, &r.key, &r.range_end)?;
        if r.prev_kv {
            self.may(s, Need::Read, &r.key, &r.range_end)?;
        }
        Ok(())
    }

    /// A transaction reads what it compares, and does what its operations
    /// do on both branches.
    pub fn may_txn(&self, s: &Shared, t: &epb::TxnRequest) -> Result<(), Status> {
        if !s.node.store().state().auth().enabled {
            return Ok(());
        }
        for c in &t.compare {
            self.may(s, Need::Read, &c.key, &c.range_end)?;
        }
        for op in t.success.iter().chain(&t.failure) {
            use epb::request_op::Request as R;
            match &op.request {
                Some(R::RequestRange(r)) => self.may_range(s, r)?,
                Some(R::RequestPut(p)) => self.may_put(s, p)?,
                Some(R::RequestDeleteRange(d)) => self.may_delete(s, d)?,
                Some(R::RequestTxn(t)) => self.may_txn(s, t)?,
                None => {}
            }
        }
        Ok(())
    }

    /// A lease revoke: a JWT older than the auth store is refused when the
    /// lease has keys, root's too (etcd 3.4 checks each key as a put, the
    /// revision first; measured), then [`Caller::may_lease_keys`].
    pub fn may_revoke(&self, s: &Shared, lease: i64) -> Result<(), Status> {
        let state = s.node.store().state().auth();
        let has_keys = || {
            s.node
                .store()
                .state()
                .lease(lease, true)
                .is_some_and(|l| !l.keys.is_empty())
        };
        if self.1.is_some() && state.enabled && has_keys() {
            self.current(&state)?;
        }
        self.may_lease_keys(s, lease, Need::Write)
    }

    /// Unless root: `need` on every key attached to `lease` (etcd's check of
    /// lease revokes, renewals, puts and time-to-live reads).
    pub fn may_lease_keys(&self, s: &Shared, lease: i64, need: Need) -> Result<(), Status> {
        let state = s.node.store().state().auth();
        if !state.enabled || admin(&state, self.0.as_deref()).is_ok() {
            return Ok(());
        }
        if self.0.as_deref().is_none_or(str::is_empty) {
            return Err(errors::user_empty());
        }
        let keys = s
            .node
            .store()
            .state()
            .lease(lease, true)
            .map(|l| l.keys)
            .unwrap_or_default();
        for k in keys {
            self.current(&state)?;
            permitted(&state, self.0.as_deref(), need, &k, b"")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> spb::AuthState {
        let perm = |t: i32, k: &str, e: &[u8]| spb::AuthPermission {
            perm_type: t,
            key: k.as_bytes().to_vec(),
            range_end: e.to_vec(),
        };
        spb::AuthState {
            enabled: true,
            revision: 1,
            users: vec![
                spb::AuthUser {
                    name: "alice".into(),
                    roles: vec!["app".into(), "gone".into()],
                    ..Default::default()
                },
                spb::AuthUser {
                    name: "root".into(),
                    roles: vec!["root".into()],
                    ..Default::default()
                },
            ],
            roles: vec![spb::AuthRole {
                name: "app".into(),
                permissions: vec![
                    perm(PERM_READWRITE, "a/", b"a0"),
                    perm(PERM_READ, "b", b""),
                    perm(PERM_WRITE, "c/", b"c/m"),
                    perm(PERM_READ, "c/m", b"c0"),
                    perm(PERM_READ, "z", &[0]),
                ],
            }],
        }
    }

    #[test]
    fn ranges_keys_and_roles_as_etcd_checks_them() {
        let s = state();
        let ok = |need, k: &str, e: &[u8]| permitted(&s, Some("alice"), need, k.as_bytes(), e);
        assert!(ok(Need::Read, "a/x", b"").is_ok());
        assert!(ok(Need::Write, "a/", b"a0").is_ok());
        assert!(ok(Need::Read, "b", b"").is_ok());
        assert!(ok(Need::Write, "b", b"").is_err());
        assert!(ok(Need::Read, "b", b"c").is_err(), "a range over one key");
        assert!(ok(Need::Read, "c/a", b"").is_err(), "write only");
        assert!(ok(Need::Read, "c/m", b"c/z").is_ok());
        assert!(ok(Need::Read, "z", &[0]).is_ok(), "to the end");
        assert!(ok(Need::Read, "y", &[0]).is_err());
        assert!(ok(Need::Write, "a/", &[0]).is_err());
        // Adjacent ranges of two permissions cover their union.
        let mut st = s.clone();
        st.roles[0].permissions.push(spb::AuthPermission {
            perm_type: PERM_WRITE,
            key: b"c/m".to_vec(),
            range_end: b"d".to_vec(),
        });
        assert!(permitted(&st, Some("alice"), Need::Write, b"c/", b"c0").is_ok());
        let denied = permitted(&s, Some("bob"), Need::Read, b"a/x", b"").unwrap_err();
        assert_eq!(denied.message(), "etcdserver: permission denied");
        let empty = permitted(&s, None, Need::Read, b"a/x", b"").unwrap_err();
        assert_eq!(empty.message(), "etcdserver: user name is empty");
        assert!(permitted(&s, Some("root"), Need::Write, b"q", &[0]).is_ok());
        assert!(admin(&s, Some("root")).is_ok());
        assert_eq!(
            admin(&s, Some("alice")).unwrap_err().message(),
            "etcdserver: permission denied"
        );
        assert_eq!(
            admin(&s, Some("bob")).unwrap_err().message(),
            "etcdserver: user name not found"
        );
        let off = spb::AuthState::default();
        assert!(permitted(&off, None, Need::Write, b"k", b"").is_ok());
        assert!(admin(&off, None).is_ok());
    }
}
