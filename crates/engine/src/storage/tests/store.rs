//! Unit tests of the store: log append/overwrite/compaction, reads from the
//! tail and the file, checkpoints, snapshots streamed piece by piece,
//! restart, format checks.

use raft::eraftpb::{Entry, HardState};
use raft::{GetEntriesContext, Storage};

use super::*;
use crate::storage::files::snapfile;

fn entry(index: u64, term: u64, size: usize) -> Entry {
    Entry {
        index,
        term,
        data: vec![7u8; size].into(),
        ..Default::default()
    }
}

fn ctx() -> GetEntriesContext {
    GetEntriesContext::empty(false)
}

fn member(id: u64) -> spb::MemberMeta {
    spb::MemberMeta {
        id,
        peer_urls: vec![format!("http://127.0.0.1:{id}")],
        ..Default::default()
    }
}

fn rng(s: &Store, key: &[u8], end: &[u8], limit: i64, count_only: bool) -> RangeResult {
    let r = spb::Range {
        key: key.to_vec(),
        range_end: end.to_vec(),
        limit,
        count_only,
        ..Default::default()
    };
    s.state().range(&r).unwrap()
}

/// Hands a received piece to a staging snapshot (as the raft service does).
fn write_piece(staging: &mut snapshot::SnapshotStaging, piece: &[u8]) -> Result<()> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(staging.write(bytes::Bytes::copy_from_slice(piece)))
}

fn apply(s: &Store, durable: bool, applied: u64, puts: &[(&str, &str)]) {
    apply_published(s, applied, |a| {
        for (k, v) in puts {
            a.put(k.as_bytes(), v.as_bytes());
        }
    });
    if durable {
        s.flush().unwrap();
    }
}

#[test]
fn bootstrap_append_overwrite_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1), member(2)]).unwrap();
    assert_eq!(s.first_index().unwrap(), 2);
    assert_eq!(s.last_index(), 1);
    assert_eq!(s.term(1).unwrap(), 1);
    let ents: Vec<Entry> = (2..=5).map(|i| entry(i, 2, 10)).collect();
    let hs = HardState {
        term: 2,
        vote: 1,
        commit: 3,
        ..Default::default()
    };
    s.persist(&ents, Some(&hs), true).unwrap();
    // A conflicting suffix replaces the old one.
    s.persist(&[entry(4, 3, 10)], None, true).unwrap();
    assert_eq!(Storage::last_index(&s).unwrap(), 4);
    assert_eq!(s.term(4).unwrap(), 3);
    // A gap is refused before anything is written.
    assert!(s.persist(&[entry(9, 3, 10)], None, true).is_err());
    // A commit index alone is written with the next write.
    s.set_commit(4).unwrap();
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(Storage::last_index(&s).unwrap(), 4);
    assert_eq!(s.term(4).unwrap(), 3);
    assert_eq!(s.entries(2, 5, None, ctx()).unwrap().len(), 3);
    let state = s.initial_state().unwrap();
    assert_eq!(state.hard_state.vote, 1);
    assert_eq!(state.hard_state.commit, 3);
    assert_eq!(state.conf_state.voters, vec![1, 2]);
    assert_eq!(s.member_id(), Some(1));
    assert_eq!(s.cluster_id(), 9);
    assert_eq!(s.applied(), 1);
}

#[test]
fn entries_stop_at_the_size_limit_from_memory_and_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    let ents: Vec<Entry> = (2..=101).map(|i| entry(i, 2, 1000)).collect();
    s.persist(&ents, None, true).unwrap();
    for round in ["memory", "file"] {
        let got = s.entries(2, 102, 5_500, ctx()).unwrap();
        assert_eq!(got.len(), 5, "{round}");
        assert_eq!(got[4].index, 6, "{round}");
        assert_eq!(s.entries(2, 102, 1, ctx()).unwrap().len(), 1, "{round}");
        let all = s.entries(2, 102, None, ctx()).unwrap();
        assert_eq!(all.len(), 100, "{round}");
        assert!(all
            .iter()
            .zip(2..)
            .all(|(e, i)| e.index == i && e.data.len() == 1000));
        assert!(s.entries(2, 103, None, ctx()).is_err(), "{round}");
        // Reopened, the in-memory tail is empty: the same reads come from the file.
        drop(s);
        s = Store::open(dir.path()).unwrap();
    }
}

#[test]
fn compaction_waits_for_a_checkpoint_and_an_fsynced_write() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    s.persist(
        &(2..=10).map(|i| entry(i, 2, 10)).collect::<Vec<_>>(),
        None,
        true,
    )
    .unwrap();
    apply(&s, false, 10, &[("a", "1")]);
    // Applied but in no checkpoint: the log keeps what a crash would apply again.
    s.compact(8).unwrap();
    s.persist(&[entry(11, 2, 10)], None, true).unwrap();
    assert_eq!(s.first_index().unwrap(), 2);
    apply(&s, true, 10, &[]);
    assert_eq!(s.durable_applied(), 10);
    s.compact(8).unwrap();
    // Not before a write that is fsync'd anyway: none of its own.
    s.persist(
        &[],
        Some(&HardState {
            term: 2,
            commit: 9,
            ..Default::default()
        }),
        false,
    )
    .unwrap();
    assert_eq!(s.first_index().unwrap(), 2);
    s.persist(&[entry(12, 2, 10)], None, true).unwrap();
    assert_eq!(s.first_index().unwrap(), 9);
    assert!(s.entries(5, 9, None, ctx()).is_err());
    assert_eq!(s.term(8).unwrap(), 2);
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.first_index().unwrap(), 9);
    assert_eq!(s.entries(9, 13, None, ctx()).unwrap().len(), 4);
    assert_eq!(s.applied(), 10);
    assert_eq!(rng(&s, b"a", b"", 0, false).kvs[0].value, b"1");
}

#[test]
fn a_log_that_lost_applied_entries_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    s.persist(
        &(2..=5).map(|i| entry(i, 2, 10)).collect::<Vec<_>>(),
        None,
        true,
    )
    .unwrap();
    // As if the log had lost entries a checkpoint holds.
    apply(&s, true, 8, &[("a", "1")]);
    drop(s);
    let e = Store::open(dir.path()).err().expect("refused");
    assert_eq!(e.kind, StoreErrorKind::Damaged, "{e}");
    let e = e.message;
    assert!(e.contains("ends at index 5"), "{e}");
    assert!(e.contains(&dir.path().display().to_string()), "{e}");
}

#[test]
fn snapshot_streams_in_chunks_and_installs() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1), member(2)]).unwrap();
    s.persist(
        &(2..=10).map(|i| entry(i, 2, 10)).collect::<Vec<_>>(),
        None,
        true,
    )
    .unwrap();
    let big = "x".repeat(1000);
    let puts: Vec<(String, String)> = (0..3000)
        .map(|i| (format!("k{i:05}"), big.clone()))
        .collect();
    let refs: Vec<(&str, &str)> = puts.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    apply(&s, true, 10, &refs);
    apply(&s, true, 10, &[("a", "1"), ("a", "2")]);
    // Not for a member the configuration lacks.
    assert!(s.snapshot(0, 7).is_err());
    let snap = s.snapshot(8, 2).unwrap();
    assert_eq!(snap.get_metadata().index, 10);
    // Writes after it do not change what it sends.
    apply(&s, false, 10, &[("b", "3")]);
    let source = s
        .snapshot_source(10, snap.get_metadata().term)
        .expect("the prepared snapshot");
    let mut chunks = Vec::new();
    let keys = source.read(|c| {
        chunks.push(c);
        true
    });
    // Every kept revision goes: 3000 keys and both of a's.
    assert_eq!(keys, Some(3002));
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    assert!(chunks
        .iter()
        .all(|c| c.len() <= snapfile::CHUNK_BYTES + 2048));
    // Once the stream ends, nothing holds the old state (it would keep
    // memory from being shared): the next request prepares a new snapshot.
    drop(source);
    apply(&s, true, 11, &[("c", "4")]);
    assert_eq!(s.snapshot(8, 2).unwrap().get_metadata().index, 11);
    assert!(s.snapshot_source(10, snap.get_metadata().term).is_none());

    let other = tempfile::tempdir().unwrap();
    let t = Store::open(other.path()).unwrap();
    t.join(9, 3, &[member(1)]).unwrap();
    let files = |t: &Store| {
        let mut names: Vec<String> = std::fs::read_dir(t.layout().snap_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let joined = files(&t);
    // A stream cut short leaves nothing behind.
    {
        let mut staging = t.stage_snapshot(&snap).unwrap();
        write_piece(&mut staging, &chunks[0]).unwrap();
    }
    assert_eq!(files(&t), joined);
    assert!(t.apply_snapshot(&snap).is_err());
    // A damaged stream is refused at its end, and leaves nothing behind.
    let mut bad = t.stage_snapshot(&snap).unwrap();
    for (i, c) in chunks.iter().enumerate() {
        let mut c = c.clone();
        if i == 1 {
            let n = c.len() / 2;
            c[n] ^= 0x55;
        }
        // A flipped byte in a value is found by the hash; in a frame, sooner.
        if write_piece(&mut bad, &c).is_err() {
            break;
        }
    }
    assert!(bad.finish().is_err());
    assert_eq!(files(&t), joined);
    let mut staging = t.stage_snapshot(&snap).unwrap();
    for c in &chunks {
        write_piece(&mut staging, c).unwrap();
    }
    staging.finish().unwrap();
    // A crash between the log's reset and the rename: the open finishes it.
    t.log()
        .reset(10, snap.get_metadata().term, &HardState::default())
        .unwrap();
    drop(t);
    let t = Store::open(other.path()).unwrap();
    assert_eq!(t.applied(), 10);
    assert_eq!(rng(&t, b"k", b"l", 0, true).count, 3000);
    drop(t);
    let other2 = tempfile::tempdir().unwrap();
    let t = Store::open(other2.path()).unwrap();
    t.join(9, 3, &[member(1)]).unwrap();
    let mut staging = t.stage_snapshot(&snap).unwrap();
    for c in &chunks {
        write_piece(&mut staging, c).unwrap();
    }
    staging.finish().unwrap();
    let state = t.apply_snapshot(&snap).unwrap();
    assert_eq!(state.applied(), (10, 2));
    t.publish(std::sync::Arc::new(state));
    let r = rng(&t, b"a", b"", 0, false);
    assert_eq!(r.kvs[0].value, b"2");
    // The history came too: a at its first revision.
    let past = spb::Range {
        key: b"a".to_vec(),
        revision: r.kvs[0].mod_revision - 1,
        ..Default::default()
    };
    assert_eq!(t.state().range(&past).unwrap().kvs[0].value, b"1");
    assert_eq!(r.kvs[0].version, 2);
    assert_eq!(r.revision, 3003);
    assert!(rng(&t, b"b", b"", 0, false).kvs.is_empty());
    assert_eq!(rng(&t, b"k", b"l", 0, true).count, 3000);
    assert_eq!(t.first_index().unwrap(), 11);
    assert_eq!(t.member_id(), Some(3));
    // Installed, the state is the apply stage's to publish.
    drop(t);
    // Durable: the snapshot is the newest checkpoint after a restart.
    let t = Store::open(other2.path()).unwrap();
    assert_eq!(t.applied(), 10);
    assert_eq!(rng(&t, b"k", b"l", 0, true).count, 3000);
    assert_eq!(t.conf_state().voters, vec![1, 2]);
    assert_eq!(t.members().len(), 2);
    assert_eq!(t.member_id(), Some(3));
    assert_eq!(Storage::last_index(&t).unwrap(), 10);
    assert_eq!(files(&t), vec![checkpoint::file_name(10, 2)]);
}

#[test]
fn other_storage_formats_are_refused_with_the_directory_named() {
    let old = tempfile::tempdir().unwrap();
    std::fs::write(old.path().join("member.redb"), b"redb").unwrap();
    let e = Store::open(old.path()).err().expect("format 1 refused");
    assert_eq!(e.kind, StoreErrorKind::Format, "{e}");
    let e = e.message;
    assert!(e.contains(&old.path().display().to_string()), "{e}");
    assert!(e.contains("storage format 1"), "{e}");
    assert!(e.contains("memberctl member remove"), "{e}");

    let newer = tempfile::tempdir().unwrap();
    std::fs::write(newer.path().join("FORMAT"), "memberctl storage format 5\n").unwrap();
    let e = Store::open(newer.path()).err().expect("format 5 refused");
    assert_eq!(e.kind, StoreErrorKind::Format, "{e}");
    let e = e.message;
    assert!(e.contains("newer memberctl"), "{e}");

    let redb = tempfile::tempdir().unwrap();
    std::fs::write(redb.path().join("FORMAT"), "memberctl storage format 3\n").unwrap();
    let e = Store::open(redb.path())
        .err()
        .expect("format 3 refused")
        .message;
    assert!(e.contains("storage format 3"), "{e}");
    assert!(e.contains("earlier memberctl"), "{e}");

    let fresh = tempfile::tempdir().unwrap();
    drop(Store::open(fresh.path()).unwrap());
    let text = std::fs::read_to_string(fresh.path().join("FORMAT")).unwrap();
    assert_eq!(
        text.trim(),
        format!("memberctl storage format {}", layout::FORMAT)
    );
    std::fs::remove_file(fresh.path().join("FORMAT")).unwrap();
    let e = Store::open(fresh.path()).err().expect("no FORMAT refused");
    assert_eq!(e.kind, StoreErrorKind::Damaged, "{e}");
    assert!(e.message.contains("damaged"), "{e}");
}

#[test]
fn ranges_follow_etcd_conventions() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    apply_published(&s, 2, |a| {
        for k in ["a", "ab", "abc", "b"] {
            a.put(k.as_bytes(), b"v");
        }
        let (deleted, _) = a.delete_range(b"zz", b"");
        assert_eq!(deleted, 0);
    });
    assert_eq!(rng(&s, b"ab", b"", 0, false).kvs.len(), 1);
    assert_eq!(rng(&s, b"a", b"b", 0, false).kvs.len(), 3);
    assert_eq!(rng(&s, b"a", &[0], 0, false).count, 4);
    let limited = rng(&s, b"a", &[0], 2, false);
    assert_eq!(
        (limited.kvs.len(), limited.more, limited.count),
        (2, true, 4)
    );
    assert_eq!(s.state().revision(), 5);
}

fn txn_of(
    compare: Vec<spb::Compare>,
    success: Vec<spb::op::Op>,
    failure: Vec<spb::op::Op>,
) -> spb::Txn {
    let ops = |v: Vec<spb::op::Op>| v.into_iter().map(|op| spb::Op { op: Some(op) }).collect();
    spb::Txn {
        compare,
        success: ops(success),
        failure: ops(failure),
    }
}

fn put_op(k: &str, v: &str, lease: i64) -> spb::op::Op {
    spb::op::Op::Put(spb::Put {
        key: k.into(),
        value: v.into(),
        lease,
        prev_kv: true,
        ..Default::default()
    })
}

#[test]
fn history_compaction_transactions_and_leases() {
    use spb::compare::{Result as Cmp, Target};
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    let at = |rev: i64, key: &str| {
        let r = spb::Range {
            key: key.into(),
            revision: rev,
            ..Default::default()
        };
        s.state().range(&r)
    };
    // Revisions 2..=5: a=1, a=2, b=1, delete a.
    apply_published(&s, 2, |a| {
        a.put(b"a", b"1");
        a.put(b"a", b"2");
        a.put(b"b", b"1");
        assert_eq!(a.delete_range(b"a", b""), (1, 5));
    });
    assert_eq!(at(2, "a").unwrap().kvs[0].value, b"1");
    assert_eq!(at(3, "a").unwrap().kvs[0].version, 2);
    assert!(at(5, "a").unwrap().kvs.is_empty());
    assert_eq!(at(6, "a"), Err(Refusal::FutureRevision));
    let changes = s.state().changes_since(2, 100, true).unwrap();
    assert_eq!(changes.1, 5);
    let revs: Vec<i64> = changes.0.iter().map(|c| c.revision()).collect();
    assert_eq!(revs, vec![2, 3, 4, 5]);
    assert!(changes.0[3].kv.tombstone);
    assert_eq!(changes.0[3].prev.as_ref().unwrap().value.to_vec(), b"2");

    // A transaction: compare, put with a lease, one revision for all of it.
    let outcome = apply_published(&s, 3, |a| {
        assert_eq!(a.grant(7, 10), Ok(()));
        assert_eq!(a.grant(7, 10), Err(Refusal::LeaseExists));
        let unknown = txn_of(vec![], vec![put_op("c", "x", 8)], vec![]);
        assert_eq!(a.txn(&unknown), Err(Refusal::LeaseNotFound));
        let cas = txn_of(
            vec![spb::Compare {
                result: Cmp::Equal as i32,
                target: Target::Value as i32,
                key: b"b".to_vec(),
                value: b"1".to_vec(),
                ..Default::default()
            }],
            vec![put_op("b", "2", 7), put_op("c", "3", 7)],
            vec![],
        );
        a.txn(&cas)
    })
    .unwrap();
    assert!(outcome.succeeded);
    assert_eq!(outcome.revision, 6);
    assert_eq!(s.state().lease(7, true).unwrap().keys.len(), 2);

    // Compaction at 4 keeps each key's newest record there (a's at 3, b's
    // at 4) and drops the older ones.
    apply_published(&s, 4, |a| {
        assert_eq!(a.compact(4), Ok(()));
        assert_eq!(a.compact(4), Err(Refusal::Compacted));
        assert_eq!(a.revoke(7), Ok(()));
    });
    assert_eq!(at(3, "a"), Err(Refusal::Compacted));
    assert_eq!(at(4, "b").unwrap().kvs[0].value, b"1");
    assert_eq!(at(4, "a").unwrap().kvs[0].value, b"2");
    assert_eq!(
        s.state().changes_since(3, 100, false),
        Err(Refusal::Compacted)
    );
    let after: Vec<i64> = s
        .state()
        .changes_since(4, 100, false)
        .unwrap()
        .0
        .iter()
        .map(|c| c.revision())
        .collect();
    // b at 4 (kept), a's deletion at 5, b and c at 6, their revoke at 7.
    assert_eq!(after, vec![4, 5, 6, 6, 7, 7]);
    assert!(s.state().lease(7, false).is_none());
    assert!(at(0, "b").unwrap().kvs.is_empty());
    assert_eq!(s.state().revisions(), (7, 4));
    // The compacted history is what a checkpoint holds (this store has no
    // log to reopen with: read the checkpoint).
    s.flush().unwrap();
    let layout = s.layout().clone();
    let before = s.state().hash_kv(0).unwrap();
    drop(s);
    let (_, state) = checkpoint::load_newest(&layout).unwrap().unwrap();
    assert_eq!((state.revision(), state.compacted()), (7, 4));
    assert_eq!(state.records(), 7);
    let other = tempfile::tempdir().unwrap();
    let t = Store::open(other.path()).unwrap();
    t.publish(std::sync::Arc::new(state));
    assert_eq!(t.state().hash_kv(0).unwrap(), before);
}

/// `--force-new-cluster`: entries past the commit index are dropped; a
/// joint configuration in the committed entries is left first; this member
/// is made a voter and every other member removed, one simple change per
/// entry, all committed; durable across a reopen.
#[test]
fn force_new_cluster_rewrites_the_configuration_after_the_commit_index() {
    use protobuf::Message as _;
    use raft::eraftpb::{ConfChangeSingle, ConfChangeType, ConfChangeV2, EntryType};
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1), member(2), member(3)])
        .unwrap();
    // Committed but not applied: entering a joint configuration that adds 4.
    let mut add4 = ConfChangeSingle::default();
    add4.set_change_type(ConfChangeType::AddNode);
    add4.node_id = 4;
    let mut enter = ConfChangeV2::default();
    enter.set_changes(vec![add4].into());
    enter.set_transition(raft::eraftpb::ConfChangeTransition::Explicit);
    let mut joint = entry(2, 2, 0);
    joint.set_entry_type(EntryType::EntryConfChangeV2);
    joint.data = enter.write_to_bytes().unwrap().into();
    let hs = HardState {
        term: 2,
        vote: 1,
        commit: 2,
        ..Default::default()
    };
    // Entries 3 and 4: not known to be committed.
    s.persist(&[joint, entry(3, 2, 10), entry(4, 2, 10)], Some(&hs), true)
        .unwrap();
    let forced = s.force_new_cluster(1).unwrap();
    assert_eq!(forced.kept_index, 2);
    assert_eq!(forced.dropped, 2);
    assert_eq!(forced.removed, vec![2, 3, 4]);
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.hard_state().commit, 7);
    assert_eq!(Storage::last_index(&s).unwrap(), 7);
    let changes: Vec<ConfChangeV2> = s
        .entries(3, 8, None, ctx())
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e.get_entry_type(), EntryType::EntryConfChangeV2);
            assert_eq!(e.term, 2);
            ConfChangeV2::parse_from_bytes(&e.data).unwrap()
        })
        .collect();
    assert!(
        changes[0].leave_joint(),
        "the joint configuration is left first"
    );
    let single = |cc: &ConfChangeV2| {
        assert!(cc.enter_joint().is_none(), "a simple change");
        let c = &cc.get_changes()[0];
        (c.get_change_type(), c.node_id)
    };
    assert_eq!(single(&changes[1]), (ConfChangeType::AddNode, 1));
    assert_eq!(single(&changes[2]), (ConfChangeType::RemoveNode, 2));
    assert_eq!(single(&changes[3]), (ConfChangeType::RemoveNode, 3));
    assert_eq!(single(&changes[4]), (ConfChangeType::RemoveNode, 4));
}

/// A store of one member with one entry in its log, and its directory.
fn one_member_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    s.persist(&[entry(2, 2, 10)], None, true).unwrap();
    (dir, s)
}

#[test]
fn values_move_to_the_pages_of_the_file_that_holds_them() {
    let (dir, s) = one_member_store();
    apply(
        &s,
        true,
        2,
        &[("a", "one"), ("b", ""), ("a", "two"), ("c", "three")],
    );
    let state = s.state();
    let header = snapfile::header(&state);
    let mut file = Vec::new();
    let mut at = Vec::new();
    snapfile::encode_noting(&state, &header, Some(&mut at), |piece| {
        file.extend_from_slice(&piece);
        true
    });
    // Three non-empty values in the history ("b" is empty).
    assert_eq!(at.len(), 3);
    let file = bytes::Bytes::from(file);
    assert_eq!(state.move_values(&file, &at), 3);
    let range = file.as_ptr() as usize..file.as_ptr() as usize + file.len();
    for (key, want) in [("a", "two"), ("c", "three")] {
        let rec = state.kv.get(key.as_bytes()).unwrap();
        let v = rec.value.get();
        assert_eq!(&v[..], want.as_bytes());
        assert!(
            range.contains(&(v.as_ptr() as usize)),
            "{key}'s value is in the file"
        );
    }
    // Positions that do not fit move nothing.
    assert_eq!(
        state.move_values(&file, &[u64::MAX, u64::MAX - 1, 1 << 40]),
        0
    );
    assert_eq!(&state.kv.get(&b"a"[..]).unwrap().value.get()[..], b"two");
    // Reopened, the store reads its values from its checkpoint's pages.
    s.flush().unwrap();
    drop((s, state));
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(
        &s.state().kv.get(&b"c"[..]).unwrap().value.get()[..],
        b"three"
    );
}

#[test]
fn a_decoder_notes_where_the_values_are_as_the_encoder_does() {
    let (_dir, s) = one_member_store();
    let big = "v".repeat(700);
    let puts: Vec<(String, String)> = (0..4000)
        .map(|i| {
            (
                format!("k{i:05}"),
                if i % 7 == 0 {
                    String::new()
                } else {
                    big.clone()
                },
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = puts.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    apply(&s, false, 2, &refs);
    let state = s.state();
    let mut file = Vec::new();
    let mut at = Vec::new();
    snapfile::encode_noting(&state, &snapfile::header(&state), Some(&mut at), |piece| {
        file.extend_from_slice(&piece);
        true
    });
    assert!(
        file.len() > 2 * snapfile::CHUNK_BYTES,
        "more than one chunk"
    );
    // Fed in pieces that cut frames and records anywhere.
    let mut d = snapfile::Decoder::new();
    for piece in file.chunks(65_537) {
        d.feed(piece).unwrap();
    }
    assert_eq!(d.value_positions(), at);
    for &p in at.iter().take(3) {
        assert_eq!(&file[p as usize..p as usize + 700], big.as_bytes());
    }
}
