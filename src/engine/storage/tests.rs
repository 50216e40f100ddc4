//! Unit tests of the store: log append/overwrite/compaction, size-limited reads, snapshots, restart.

use raft::eraftpb::{Entry, HardState};
use raft::{GetEntriesContext, Storage};

use super::state::Apply;
use super::*;

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
        ..Default::default()
    };
    s.persist(&ents, Some(&hs)).unwrap();
    // A conflicting suffix replaces the old one.
    s.persist(&[entry(4, 3, 10)], None).unwrap();
    assert_eq!(Storage::last_index(&s).unwrap(), 4);
    assert_eq!(s.term(4).unwrap(), 3);
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(Storage::last_index(&s).unwrap(), 4);
    assert_eq!(s.hard_state().vote, 1);
    assert_eq!(s.initial_state().unwrap().conf_state.voters, vec![1, 2]);
    assert_eq!(s.member_id().unwrap(), Some(1));
    assert_eq!(s.cluster_id().unwrap(), 9);
}

#[test]
fn entries_stop_at_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    let ents: Vec<Entry> = (2..=101).map(|i| entry(i, 2, 1000)).collect();
    s.persist(&ents, None).unwrap();
    let got = s.entries(2, 102, 5_500, ctx()).unwrap();
    assert_eq!(got.len(), 5);
    let one = s.entries(2, 102, 1, ctx()).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(s.entries(2, 102, None, ctx()).unwrap().len(), 100);
}

#[test]
fn compaction_and_snapshot_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1), member(2)]).unwrap();
    s.persist(&(2..=10).map(|i| entry(i, 2, 10)).collect::<Vec<_>>(), None)
        .unwrap();
    s.apply_with(|txn| {
        let mut a = Apply::begin(txn)?;
        a.put(b"a", b"1")?;
        a.put(b"a", b"2")?;
        a.put(b"b", b"3")?;
        a.finish(10, 2, None)
    })
    .unwrap();
    s.compact(8).unwrap();
    assert_eq!(s.first_index().unwrap(), 9);
    assert!(s.entries(5, 9, None, ctx()).is_err());
    assert_eq!(s.term(8).unwrap(), 2);
    // Built in the background: the first asks are answered "temporarily unavailable".
    let snap = (0..200)
        .find_map(|_| match s.snapshot(8, 2) {
            Ok(snap) => Some(snap),
            Err(_) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
                None
            }
        })
        .expect("a snapshot within 2 s");
    assert_eq!(snap.get_metadata().index, 10);

    let other = tempfile::tempdir().unwrap();
    let t = Store::open(other.path()).unwrap();
    t.join(9, 3, &[member(1)]).unwrap();
    t.apply_snapshot(&snap).unwrap();
    let r = t.range(b"a", &[0], 0, false).unwrap();
    assert_eq!(r.kvs.len(), 2);
    assert_eq!(r.kvs[0].value, b"2");
    assert_eq!(r.kvs[0].version, 2);
    assert_eq!(r.revision, 4);
    assert_eq!(t.applied().unwrap(), 10);
    assert_eq!(t.first_index().unwrap(), 11);
    assert_eq!(t.conf_state().voters, vec![1, 2]);
    assert_eq!(t.members().unwrap().len(), 2);
}

#[test]
fn ranges_follow_etcd_conventions() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    s.apply_with(|txn| {
        let mut a = Apply::begin(txn)?;
        for k in ["a", "ab", "abc", "b"] {
            a.put(k.as_bytes(), b"v")?;
        }
        let (deleted, _) = a.delete_range(b"zz", b"")?;
        assert_eq!(deleted, 0);
        a.finish(2, 1, None)
    })
    .unwrap();
    assert_eq!(s.range(b"ab", b"", 0, false).unwrap().kvs.len(), 1);
    assert_eq!(s.range(b"a", b"b", 0, false).unwrap().kvs.len(), 3);
    assert_eq!(s.range(b"a", &[0], 0, false).unwrap().count, 4);
    let limited = s.range(b"a", &[0], 2, false).unwrap();
    assert_eq!(
        (limited.kvs.len(), limited.more, limited.count),
        (2, true, 4)
    );
    assert_eq!(s.revision().unwrap(), 5);
}
