//! Unit tests of hashes, alarms, defragmentation and snapshot files.

use super::*;
use crate::storage::files::snapfile;

fn write(s: &Store, applied: u64, puts: &[(&str, &str)], alarm: Option<bool>) {
    apply_published(s, applied, |a| {
        for (k, v) in puts {
            a.put(k.as_bytes(), v.as_bytes());
        }
        if let Some(activate) = alarm {
            a.alarm(&spb::Alarm {
                activate,
                member_id: 7,
                alarm: NOSPACE,
            });
        }
    });
}

fn member(id: u64) -> spb::MemberMeta {
    spb::MemberMeta {
        id,
        name: format!("m{id}"),
        peer_urls: vec![format!("http://127.0.0.1:{id}")],
        ..Default::default()
    }
}

#[test]
fn hashes_agree_on_equal_keyspaces_and_differ_otherwise() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (
        Store::open(d1.path()).unwrap(),
        Store::open(d2.path()).unwrap(),
    );
    a.bootstrap(1, 1, &[member(1)]).unwrap();
    b.bootstrap(1, 1, &[member(1)]).unwrap();
    write(&a, 2, &[("k", "v1"), ("j", "x")], None);
    write(&b, 2, &[("k", "v1"), ("j", "x")], None);
    assert_eq!(a.state().hash_kv(0).unwrap(), b.state().hash_kv(0).unwrap());
    assert_eq!(a.state().hash(), b.state().hash());
    write(&a, 3, &[("k", "v2")], None);
    write(&b, 3, &[("k", "v3")], None);
    let (ha, hb) = (a.state().hash_kv(0).unwrap(), b.state().hash_kv(0).unwrap());
    assert_ne!(ha.hash, hb.hash);
    // At the revision before the difference they agree again.
    assert_eq!(
        a.state().hash_kv(3).unwrap().hash,
        b.state().hash_kv(3).unwrap().hash
    );
    assert_eq!(a.state().hash_kv(99), Err(Refusal::FutureRevision));
}

#[test]
fn alarms_are_raised_once_cleared_and_refuse_writes_that_add_data() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    s.bootstrap(1, 1, &[member(1)]).unwrap();
    write(&s, 2, &[], Some(true));
    write(&s, 3, &[], Some(true));
    assert_eq!(s.state().alarms(), vec![(7, NOSPACE)]);
    assert!(s.state().no_space());
    let put = spb::command::Op::Txn(spb::Txn {
        success: vec![spb::Op {
            op: Some(spb::op::Op::Put(spb::Put::default())),
        }],
        ..Default::default()
    });
    let delete = spb::command::Op::Txn(spb::Txn {
        success: vec![spb::Op {
            op: Some(spb::op::Op::DeleteRange(spb::DeleteRange::default())),
        }],
        ..Default::default()
    });
    assert!(adds_data(&put));
    assert!(!adds_data(&delete));
    write(&s, 4, &[], Some(false));
    assert!(s.state().alarms().is_empty());
}

#[test]
fn defragmentation_keeps_everything_and_gives_space_back() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    s.bootstrap(1, 1, &[member(1)]).unwrap();
    let big = "x".repeat(200_000);
    for i in 0..40u64 {
        write(&s, 2 + i, &[("big", &big)], None);
    }
    let in_use = s.db_size_in_use();
    apply_published(&s, 50, |a| a.compact(a.revision()).unwrap());
    // Compaction frees history, but the size reported stays until a
    // defragmentation (as a database file's does).
    assert!(
        s.db_size_in_use() < in_use / 10,
        "{in_use} -> {}",
        s.db_size_in_use()
    );
    assert!(s.db_size() >= in_use);
    let before = (s.state().hash(), s.state().hash_kv(0).unwrap());
    let (size_before, size_after) = s.defragment().unwrap();
    assert!(
        size_after < size_before / 10,
        "{size_before} -> {size_after}"
    );
    assert_eq!(s.db_size() as u64, size_after);
    assert_eq!((s.state().hash(), s.state().hash_kv(0).unwrap()), before);
    assert_eq!(s.applied(), 50);
    // The newest checkpoint is the one defragmentation wrote.
    let (_, state) = checkpoint::load_newest(s.layout()).unwrap().unwrap();
    assert_eq!(state.applied().0, 50);
    assert_eq!(state.records(), 1);
}

/// The store with two keys, an overwrite, an alarm and a role.
fn filled(dir: &std::path::Path) -> Store {
    let s = Store::open(dir).unwrap();
    s.bootstrap(1, 1, &[member(1)]).unwrap();
    write(&s, 2, &[("a", "1"), ("b", "2")], Some(true));
    write(&s, 3, &[("a", "3")], None);
    // Users and roles go with the keys (as etcd's snapshots carry its auth store).
    apply_published(&s, 4, |a| {
        let add = spb::auth_change::Change::RoleAdd("app".into());
        a.auth(&spb::AuthChange { change: Some(add) })
            .expect("a new role is added");
    });
    assert_eq!(s.state().auth().roles.len(), 1);
    s
}

#[test]
fn an_etcd_snapshot_of_the_store_restores_under_new_ids() {
    let (d1, d2, files) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let s = filled(d1.path());
    let mut bytes = Vec::new();
    let mut remaining = Vec::new();
    let done = s.etcd_snapshot("3.4.0", |b, left| {
        bytes.extend_from_slice(&b);
        remaining.push(left);
        true
    });
    assert!(done.unwrap());
    // Pages of 4096 bytes and the SHA-256 trailer, as etcd's.
    assert_eq!(bytes.len() % 4096, 32);
    // The bytes that remain are known from the first piece on.
    assert_eq!(remaining.last(), Some(&0));
    let mut first = 0;
    let stopped = s.etcd_snapshot("3.4.0", |b, _| {
        first = b.len();
        false
    });
    assert!(!stopped.unwrap());
    assert_eq!(remaining[0] as usize, bytes.len() - first);
    let file = files.path().join("s.db");
    std::fs::write(&file, &bytes).unwrap();
    let status = crate::etcd_db::status(&file).unwrap();
    assert_eq!(status.revision, s.state().revision());
    let data = d2.path().join("r");
    let (content, at) =
        restore_etcd(&file, false, &data, 9, 5, &[member(5), member(6)], None).unwrap();
    assert_eq!(content.changes, 3);
    let rev = s.state().revision();
    assert_eq!((at.revision, at.compact_revision), (rev, 0));
    let t = Store::open(&data).unwrap();
    assert_eq!(
        t.state().hash_kv(0).unwrap().hash,
        s.state().hash_kv(0).unwrap().hash
    );
    assert_eq!(t.state().revision(), s.state().revision());
    assert_eq!((t.cluster_id(), t.member_id()), (9, Some(5)));
    assert_eq!(t.conf_state().voters, vec![5, 6]);
    assert!(t.state().alarms().is_empty());
    assert_eq!(t.state().auth(), s.state().auth());

    // --bump-revision 1000 --mark-compacted: the revision 1000 ahead and
    // compacted there; the keys as they were, their history gone.
    let bumped = d2.path().join("b");
    let (_, at) = restore_etcd(&file, false, &bumped, 9, 5, &[member(5)], Some(1000)).unwrap();
    assert_eq!((at.revision, at.compact_revision), (rev + 1000, rev + 1000));
    let b = Store::open(&bumped).unwrap();
    assert_eq!(
        (b.state().revision(), b.state().compacted()),
        (rev + 1000, rev + 1000)
    );
    let past = spb::Range {
        key: b"a".to_vec(),
        revision: rev,
        ..Default::default()
    };
    assert!(matches!(b.state().range(&past), Err(Refusal::Compacted)));
    let now = spb::Range {
        key: b"a".to_vec(),
        range_end: b"c".to_vec(),
        ..Default::default()
    };
    let read = |st: &Store| {
        let r = st.state().range(&now).unwrap();
        r.kvs
            .iter()
            .map(|k| (k.key.clone(), k.value.clone(), k.mod_revision))
            .collect::<Vec<_>>()
    };
    assert_eq!(read(&b), read(&s));
    assert_eq!(b.state().range(&now).unwrap().revision, rev + 1000);
}

/// A file in memberctl's own snapshot format (what `snapshot save` wrote
/// from the engine before its snapshots were etcd's) still restores.
#[test]
fn an_older_memberctl_snapshot_file_still_restores() {
    let (d1, d2, files) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let s = filled(d1.path());
    let state = s.state();
    let header = snapfile::header(&state);
    let mut bytes = Vec::new();
    snapfile::encode(&state, &header, |piece| {
        bytes.extend_from_slice(&piece);
        true
    })
    .unwrap();
    assert_eq!(bytes.len() % 512, 32);
    let file = files.path().join("s.snap");
    std::fs::write(&file, &bytes).unwrap();
    let info = check_backup(&file).unwrap();
    assert_eq!((info.revision, info.records), (s.state().revision(), 3));
    let t = Store::open(d2.path()).unwrap();
    t.restore_backup(&file, 9, 5, &[member(5), member(6)], None)
        .unwrap();
    assert_eq!(
        t.state().hash_kv(0).unwrap().hash,
        s.state().hash_kv(0).unwrap().hash
    );
    assert_eq!((t.cluster_id(), t.member_id()), (9, Some(5)));
    assert_eq!(t.conf_state().voters, vec![5, 6]);
    assert!(t.state().alarms().is_empty());
    assert_eq!(t.state().auth(), s.state().auth());
    // A cut-short file is refused.
    std::fs::write(&file, &bytes[..bytes.len() - 512]).unwrap();
    assert!(check_backup(&file).is_err());
}

/// etcd's auth store rules, applied in the state machine.
#[test]
fn auth_changes_follow_etcds_rules() {
    use crate::storage::AuthRefusal as R;
    use spb::auth_change::Change as C;
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    s.bootstrap(1, 1, &[member(1)]).unwrap();
    let user = |name: &str| {
        C::UserAdd(spb::AuthUser {
            name: name.into(),
            password_hash: "h".into(),
            ..Default::default()
        })
    };
    let grant = |user: &str, role: &str| {
        C::UserGrantRole(spb::AuthGrant {
            user: user.into(),
            role: role.into(),
        })
    };
    let steps: Vec<(C, std::result::Result<(), R>)> = vec![
        (C::Enable(true), Err(R::RootUserNotExist)),
        (user("root"), Ok(())),
        (user("root"), Err(R::UserAlreadyExist)),
        (user(""), Err(R::UserEmpty)),
        (C::Enable(true), Err(R::RootRoleNotExist)),
        (grant("root", "nope"), Err(R::RoleNotFound)),
        (grant("root", "root"), Ok(())),
        (C::Enable(true), Ok(())),
        (C::UserDelete("root".into()), Err(R::InvalidAuthMgmt)),
        (grant("bob", "root"), Err(R::UserNotFound)),
        (C::RoleAdd("".into()), Err(R::RoleEmpty)),
        (C::RoleAdd("app".into()), Ok(())),
        (
            C::RoleGrantPermission(spb::AuthRoleGrant {
                role: "app".into(),
                permission: Some(spb::AuthPermission {
                    perm_type: 0,
                    key: b"b".to_vec(),
                    range_end: b"a".to_vec(),
                }),
            }),
            Err(R::InvalidAuthMgmt),
        ),
        (
            C::UserRevokeRole(spb::AuthGrant {
                user: "root".into(),
                role: "app".into(),
            }),
            Err(R::RoleNotGranted),
        ),
        (C::Disable(true), Ok(())),
        (C::RoleDelete("root".into()), Err(R::RoleNotFound)),
        (C::UserDelete("root".into()), Ok(())),
    ];
    for (i, (change, want)) in steps.into_iter().enumerate() {
        let got = apply_published(&s, 2 + i as u64, |a| {
            a.auth(&spb::AuthChange {
                change: Some(change.clone()),
            })
            .map(|_| ())
        });
        assert_eq!(got, want, "step {i}: {change:?}");
    }
    let state = s.state().auth();
    assert!(!state.enabled);
    assert!(state.users.is_empty());
    assert_eq!(state.roles.len(), 1);
    assert_eq!(
        state.revision, 6,
        "one revision per change that changed something"
    );
}
