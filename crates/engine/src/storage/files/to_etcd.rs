//! The state machine written as an etcd snapshot (what `Maintenance.Snapshot`
//! streams, so `etcdctl snapshot save` against the engine gives a file that
//! `etcdctl snapshot status/restore` and etcd itself read): etcd 3.4's
//! backend buckets filled from a fixed state, laid out by the bbolt writer.
//!
//! What each bucket holds, as etcd writes it: `key` — revision keys (main
//! revision big-endian, `_`, sub revision big-endian, `t` for a deletion) to
//! `mvccpb.KeyValue` (a deletion's carries only the key); `meta` —
//! `consistent_index` (the applied index) and the compaction's revision keys;
//! `lease` — ID to `leasepb.Lease`; `members` — ID in hex to the member's
//! JSON; `alarm` — `AlarmMember`s; `auth`, `authUsers`, `authRoles`;
//! `cluster` — the cluster version; `members_removed` — removed IDs in hex.

use prost::encoding::{encode_key, encode_varint, WireType};
use prost::Message as _;

use crate::etcd_db::writer::{self, Listed, Source, WriteError};
use crate::proto::etcdbackend as bpb;
use crate::storage::State;

/// The `key` bucket: the key history in revision order.
struct KeyHistory<'a>(&'a State);

impl Source for KeyHistory<'_> {
    fn name(&self) -> &[u8] {
        b"key"
    }

    fn entries(&self, f: &mut dyn FnMut(&[u8], &[u8])) {
        let state = self.0;
        let mut value = Vec::with_capacity(256);
        for (&(rev, sub), key) in state.events.iter() {
            let Some(rec) = state.revs.get(&(key.clone(), rev)) else {
                continue;
            };
            let mut rk = [0u8; 18];
            rk[..8].copy_from_slice(&rev.to_be_bytes());
            rk[8] = b'_';
            rk[9..17].copy_from_slice(&u64::from(sub).to_be_bytes());
            value.clear();
            let len = if rec.tombstone {
                rk[17] = b't';
                key_value(&mut value, &rec.key, 0, 0, 0, &[], 0);
                18
            } else {
                key_value(
                    &mut value,
                    &rec.key,
                    rec.create_revision,
                    rec.mod_revision,
                    rec.version,
                    &rec.value.get(),
                    rec.lease,
                );
                17
            };
            f(&rk[..len], &value);
        }
    }
}

/// `mvccpb.KeyValue` encoded as etcd's marshaller does (fields in number
/// order, zeros left out), without copying the key and value.
fn key_value(
    buf: &mut Vec<u8>,
    key: &[u8],
    create: i64,
    modified: i64,
    version: i64,
    value: &[u8],
    lease: i64,
) {
    let bytes = |buf: &mut Vec<u8>, tag: u32, b: &[u8]| {
        if !b.is_empty() {
            encode_key(tag, WireType::LengthDelimited, buf);
            encode_varint(b.len() as u64, buf);
            buf.extend_from_slice(b);
        }
    };
    let int = |buf: &mut Vec<u8>, tag: u32, v: i64| {
        if v != 0 {
            encode_key(tag, WireType::Varint, buf);
            encode_varint(v as u64, buf);
        }
    };
    bytes(buf, 1, key);
    int(buf, 2, create);
    int(buf, 3, modified);
    int(buf, 4, version);
    bytes(buf, 5, value);
    int(buf, 6, lease);
}

/// etcd's revision key of a main revision (sub revision 0).
fn revision_key(main: i64) -> Vec<u8> {
    let mut k = main.to_be_bytes().to_vec();
    k.push(b'_');
    k.extend_from_slice(&[0u8; 8]);
    k
}

/// A member as etcd 3.4 stores it in its `members` bucket (Go's JSON of its
/// `Member`: fields in this order, empty ones left out).
#[derive(serde::Serialize)]
struct MemberJson<'a> {
    id: u64,
    #[serde(rename = "peerURLs")]
    peer_urls: &'a [String],
    #[serde(rename = "isLearner", skip_serializing_if = "std::ops::Not::not")]
    is_learner: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    #[serde(rename = "clientURLs", skip_serializing_if = "<[String]>::is_empty")]
    client_urls: &'a [String],
}

/// Every bucket but `key`, from `state`.
fn listed(state: &State, cluster_version: &str) -> Vec<Listed> {
    let mut alarm = Vec::new();
    for &(member, kind) in state.alarms.iter() {
        let mut k = Vec::new();
        if member != 0 {
            encode_key(1, WireType::Varint, &mut k);
            encode_varint(member, &mut k);
        }
        if kind != 0 {
            encode_key(2, WireType::Varint, &mut k);
            encode_varint(kind as u64, &mut k);
        }
        alarm.push((k, Vec::new()));
    }
    let auth_state = &state.auth;
    let mut auth = vec![(
        b"authRevision".to_vec(),
        auth_state.revision.to_be_bytes().to_vec(),
    )];
    if auth_state.enabled {
        auth.push((b"authEnabled".to_vec(), vec![1]));
    }
    let users = auth_state
        .users
        .iter()
        .map(|u| {
            let user = bpb::User {
                name: u.name.clone().into_bytes(),
                password: u.password_hash.clone().into_bytes(),
                roles: u.roles.clone(),
                options: Some(crate::proto::etcdserverpb::UserAddOptions {
                    no_password: u.no_password,
                }),
            };
            (u.name.clone().into_bytes(), user.encode_to_vec())
        })
        .collect();
    let roles = auth_state
        .roles
        .iter()
        .map(|r| {
            let role = bpb::Role {
                name: r.name.clone().into_bytes(),
                key_permission: r
                    .permissions
                    .iter()
                    .map(|p| crate::proto::etcdserverpb::Permission {
                        perm_type: p.perm_type,
                        key: p.key.clone(),
                        range_end: p.range_end.clone(),
                    })
                    .collect(),
            };
            (r.name.clone().into_bytes(), role.encode_to_vec())
        })
        .collect();
    let leases = state
        .leases
        .values()
        .map(|l| {
            let lease = bpb::Lease {
                id: l.id,
                ttl: l.ttl,
                remaining_ttl: 0,
            };
            (l.id.to_be_bytes().to_vec(), lease.encode_to_vec())
        })
        .collect();
    let members = state
        .members
        .values()
        .map(|m| {
            let json = MemberJson {
                id: m.id,
                peer_urls: &m.peer_urls,
                is_learner: m.is_learner,
                name: &m.name,
                client_urls: &m.client_urls,
            };
            (
                format!("{:x}", m.id).into_bytes(),
                serde_json::to_vec(&json).unwrap_or_default(),
            )
        })
        .collect();
    let mut meta = vec![(
        b"consistent_index".to_vec(),
        state.applied.to_be_bytes().to_vec(),
    )];
    if state.compacted > 0 {
        for name in ["finishedCompactRev", "scheduledCompactRev"] {
            meta.push((name.as_bytes().to_vec(), revision_key(state.compacted)));
        }
    }
    vec![
        Listed::new("alarm", alarm),
        Listed::new("auth", auth),
        Listed::new("authRoles", roles),
        Listed::new("authUsers", users),
        Listed::new(
            "cluster",
            vec![(
                b"clusterVersion".to_vec(),
                cluster_version.as_bytes().to_vec(),
            )],
        ),
        Listed::new("lease", leases),
        Listed::new("members", members),
        Listed::new(
            "members_removed",
            state
                .removed
                .iter()
                .map(|id| (format!("{id:x}").into_bytes(), b"removed".to_vec()))
                .collect(),
        ),
        Listed::new("meta", meta),
    ]
}

/// Writes `state` as an etcd snapshot (etcd 3.4's backend,
/// `cluster_version` its cluster version, and the SHA-256 trailer), in
/// pieces handed to `emit` with the bytes that remain after each; stops
/// when `emit` returns false. Returns whether it went to the end.
pub fn write_etcd(
    state: &State,
    cluster_version: &str,
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> Result<bool, WriteError> {
    let listed = listed(state, cluster_version);
    let keys = KeyHistory(state);
    // In name order: `key` sits between `cluster` and `lease`.
    let mut sources: Vec<&dyn Source> = listed.iter().map(|l| l as &dyn Source).collect();
    sources.insert(5, &keys);
    let plan = writer::plan(&sources)?;
    writer::write(&plan, &sources, emit)
}
