//! What an etcd database holds, read out of its buckets: the key history
//! (handed over one change at a time, in revision order, so a large file is
//! never held whole), the revision and compaction, leases, users, roles and
//! whether authentication is on. Membership, alarms and the cluster version
//! are left behind, as `etcdutl snapshot restore` leaves them.

use std::fs::File;
use std::path::Path;

use prost::Message as _;

use super::bbolt::{BucketRoot, Db};
use super::snapshot::{checked_while, has_trailer};
use super::DbError;
use crate::proto::etcdbackend as epb;
use crate::proto::mvccpb;

/// The buckets etcd 3.4 to 3.7 write; a file with another is from a
/// version this does not know, and is refused rather than half read.
pub const KNOWN_BUCKETS: [&str; 10] = [
    "alarm",
    "auth",
    "authRoles",
    "authUsers",
    "cluster",
    "key",
    "lease",
    "members",
    "members_removed",
    "meta",
];

/// One change of the key history, as etcd's `key` bucket holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The revision it was made at.
    pub main: i64,
    /// Its place among that revision's changes.
    pub sub: i64,
    /// Whether it deleted the key (the record then carries only the key).
    pub tombstone: bool,
    /// The key as it was after the change.
    pub kv: mvccpb::KeyValue,
}

/// A user: name, bcrypt password hash (empty without a password), roles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// The user's name.
    pub name: String,
    /// etcd's bcrypt hash of the password; empty for a user without one.
    pub password_bcrypt: String,
    /// The roles granted.
    pub roles: Vec<String>,
    /// Added with `--no-password`: it cannot authenticate with a password.
    pub no_password: bool,
}

/// A role's key permission: kind (0 read, 1 write, 2 readwrite), key, range end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permission {
    /// 0 read, 1 write, 2 readwrite (etcd's numbers).
    pub kind: i32,
    /// The key, or the start of the range.
    pub key: Vec<u8>,
    /// The end of the range; empty for a single key.
    pub range_end: Vec<u8>,
}

/// A role and its permissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    /// The role's name.
    pub name: String,
    /// Its key permissions.
    pub permissions: Vec<Permission>,
}

/// Everything but the key history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Content {
    /// The store's revision: the newest change's, or the compaction's when later.
    pub revision: i64,
    /// The revision compacted at (0 when never).
    pub compact_revision: i64,
    /// Changes in the key history.
    pub changes: u64,
    /// Leases as (ID, granted TTL in seconds).
    pub leases: Vec<(i64, i64)>,
    /// Whether authentication is on.
    pub auth_enabled: bool,
    /// etcd's auth revision.
    pub auth_revision: u64,
    /// Users, by name.
    pub users: Vec<User>,
    /// Roles, by name.
    pub roles: Vec<Role>,
    /// The file's SHA-256 trailer, checked; None when the check was skipped.
    pub sha256: Option<String>,
}

/// Reads the etcd database at `path`: every bucket, `on_change` called with
/// each change of the key history in revision order, while the SHA-256
/// trailer is checked (unless `skip_hash_check`, for a database copied out
/// of a data directory, which has none). A caller keeps what `on_change`
/// got only when this returns Ok.
pub fn read(
    path: &Path,
    skip_hash_check: bool,
    on_change: &mut dyn FnMut(Change) -> Result<(), DbError>,
) -> Result<Content, DbError> {
    let file = File::open(path).map_err(DbError::Io)?;
    let len = file.metadata().map_err(DbError::Io)?.len();
    let trailer = has_trailer(len);
    if !trailer && !skip_hash_check {
        return Err(DbError::NoTrailer);
    }
    let data_len = if trailer { len - 32 } else { len };
    let pages = file.try_clone().map_err(DbError::Io)?;
    let check = trailer && !skip_hash_check;
    let (content, sha256) = checked_while(&file, data_len, check, || {
        read_pages(Db::open(pages, data_len)?, on_change)
    })?;
    Ok(Content { sha256, ..content })
}

/// Every bucket of `db` read (see [`read`]).
fn read_pages(
    db: Db,
    on_change: &mut dyn FnMut(Change) -> Result<(), DbError>,
) -> Result<Content, DbError> {
    let buckets = db.buckets()?;
    let names: Vec<String> = buckets
        .iter()
        .map(|(n, _)| String::from_utf8_lossy(n).into_owned())
        .collect();
    let unknown: Vec<&String> = names
        .iter()
        .filter(|n| !KNOWN_BUCKETS.contains(&n.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(DbError::Layout(format!(
            "buckets this memberctl does not know ({}), from an etcd newer than 3.7?",
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let bucket = |name: &str| {
        buckets
            .iter()
            .find(|(n, _)| n == name.as_bytes())
            .map(|(_, root)| root)
    };
    let (Some(keys), Some(meta)) = (bucket("key"), bucket("meta")) else {
        return Err(DbError::Layout(
            "no `key` or no `meta` bucket: not an etcd backend".into(),
        ));
    };
    let mut content = Content::default();
    read_meta(&db, meta, &mut content)?;
    let mut newest = 0i64;
    db.for_each(keys, &mut |e| {
        let change = change(e.key, e.value)?;
        newest = newest.max(change.main);
        content.changes += 1;
        on_change(change)
    })?;
    content.revision = newest.max(content.compact_revision);
    if let Some(root) = bucket("lease") {
        db.for_each(root, &mut |e| {
            let l = epb::Lease::decode(e.value).map_err(bad("lease"))?;
            content.leases.push((l.id, l.ttl));
            Ok(())
        })?;
    }
    if let Some(root) = bucket("auth") {
        read_auth(&db, root, &mut content)?;
    }
    if let Some(root) = bucket("authUsers") {
        db.for_each(root, &mut |e| {
            let u = epb::User::decode(e.value).map_err(bad("user"))?;
            content.users.push(User {
                name: String::from_utf8_lossy(&u.name).into_owned(),
                password_bcrypt: String::from_utf8_lossy(&u.password).into_owned(),
                roles: u.roles,
                no_password: u.options.is_some_and(|o| o.no_password),
            });
            Ok(())
        })?;
    }
    if let Some(root) = bucket("authRoles") {
        db.for_each(root, &mut |e| {
            let r = epb::Role::decode(e.value).map_err(bad("role"))?;
            content.roles.push(Role {
                name: String::from_utf8_lossy(&r.name).into_owned(),
                permissions: r
                    .key_permission
                    .into_iter()
                    .map(|p| Permission {
                        kind: p.perm_type,
                        key: p.key,
                        range_end: p.range_end,
                    })
                    .collect(),
            });
            Ok(())
        })?;
    }
    Ok(content)
}

/// A record that does not decode as the message its bucket holds.
fn bad(what: &'static str) -> impl Fn(prost::DecodeError) -> DbError {
    move |e| DbError::Corrupt(format!("a {what} record does not decode: {e}"))
}

/// One entry of the `key` bucket: a revision key (main, `_`, sub, and `t`
/// for a deletion) and the key's `mvccpb.KeyValue`.
fn change(key: &[u8], value: &[u8]) -> Result<Change, DbError> {
    let (Some(main), Some(sub)) = (be_i64(key, 0), be_i64(key, 9)) else {
        return Err(DbError::Corrupt(format!(
            "a revision key of {} bytes (etcd's are 17, or 18 for a deletion)",
            key.len()
        )));
    };
    let tombstone = match key.len() {
        17 => false,
        18 if key[17] == b't' => true,
        _ => {
            return Err(DbError::Corrupt(format!(
                "a revision key of {} bytes (etcd's are 17, or 18 for a deletion)",
                key.len()
            )))
        }
    };
    let kv = mvccpb::KeyValue::decode(value).map_err(bad("key-value"))?;
    Ok(Change {
        main,
        sub,
        tombstone,
        kv,
    })
}

/// The compaction etcd finished (`finishedCompactRev`, a revision key).
fn read_meta(db: &Db, root: &BucketRoot, content: &mut Content) -> Result<(), DbError> {
    db.for_each(root, &mut |e| {
        if e.key == b"finishedCompactRev" {
            content.compact_revision = be_i64(e.value, 0)
                .ok_or_else(|| DbError::Corrupt("`finishedCompactRev` is not a revision".into()))?;
        }
        Ok(())
    })
}

/// Whether authentication is on (`authEnabled`, one byte) and its revision
/// (`authRevision`, 8 bytes big-endian).
fn read_auth(db: &Db, root: &BucketRoot, content: &mut Content) -> Result<(), DbError> {
    db.for_each(root, &mut |e| {
        match e.key {
            b"authEnabled" => content.auth_enabled = e.value.first() == Some(&1),
            b"authRevision" => {
                content.auth_revision = be_i64(e.value, 0).unwrap_or(0).max(0) as u64
            }
            _ => {}
        }
        Ok(())
    })
}

fn be_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}
