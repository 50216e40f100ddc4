//! Unit tests of the store: log append/overwrite/compaction, reads from the
//! tail and the file, snapshots streamed chunk by chunk, restart, format checks.

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

fn apply(s: &Store, durable: bool, applied: u64, puts: &[(&str, &str)]) {
    s.apply_with(durable, |txn| {
        let mut a = Apply::begin(txn)?;
        for (k, v) in puts {
            a.put(k.as_bytes(), v.as_bytes())?;
        }
        a.finish(applied, 2, None)
    })
    .unwrap();
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
    assert_eq!(s.member_id().unwrap(), Some(1));
    assert_eq!(s.cluster_id().unwrap(), 9);
    assert_eq!(s.applied().unwrap(), 1);
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
fn compaction_waits_for_durable_apply() {
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
    // Applied but not durably: the log keeps what a crash would apply again.
    s.compact(8).unwrap();
    assert_eq!(s.first_index().unwrap(), 2);
    apply(&s, true, 10, &[]);
    s.compact(8).unwrap();
    assert_eq!(s.first_index().unwrap(), 9);
    assert!(s.entries(5, 9, None, ctx()).is_err());
    assert_eq!(s.term(8).unwrap(), 2);
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.first_index().unwrap(), 9);
    assert_eq!(s.entries(9, 11, None, ctx()).unwrap().len(), 2);
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
    // As if the log had lost entries the state machine applied.
    apply(&s, true, 8, &[("a", "1")]);
    drop(s);
    let e = Store::open(dir.path()).err().expect("refused").0;
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
    let keys = source
        .read(|c| {
            chunks.push(c);
            true
        })
        .unwrap();
    assert_eq!(keys, Some(3001));
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    assert!(chunks
        .iter()
        .all(|c| c.len() <= snapshot::CHUNK_BYTES + 2048));
    // Once the stream ends, nothing holds the read open (it would keep redb
    // from reusing pages): the next request prepares a new snapshot.
    drop(source);
    apply(&s, true, 11, &[("c", "4")]);
    assert_eq!(s.snapshot(8, 2).unwrap().get_metadata().index, 11);
    assert!(s.snapshot_source(10, snap.get_metadata().term).is_none());

    let other = tempfile::tempdir().unwrap();
    let t = Store::open(other.path()).unwrap();
    t.join(9, 3, &[member(1)]).unwrap();
    // A stream cut short leaves nothing behind.
    {
        let mut staging = t.stage_snapshot(&snap).unwrap();
        staging.write(&chunks[0]).unwrap();
    }
    assert_eq!(std::fs::read_dir(t.layout().snap_dir()).unwrap().count(), 0);
    assert!(t.apply_snapshot(&snap).is_err());
    let mut staging = t.stage_snapshot(&snap).unwrap();
    for c in &chunks {
        staging.write(c).unwrap();
    }
    assert_eq!(staging.keys(), 3001);
    staging.finish().unwrap();
    // A crash between the log's reset and the rename: the open finishes it.
    t.log()
        .reset(10, snap.get_metadata().term, &HardState::default())
        .unwrap();
    drop(t);
    let t = Store::open(other.path()).unwrap();
    assert_eq!(t.applied().unwrap(), 10);
    drop(t);
    let other2 = tempfile::tempdir().unwrap();
    let t = Store::open(other2.path()).unwrap();
    t.join(9, 3, &[member(1)]).unwrap();
    let mut staging = t.stage_snapshot(&snap).unwrap();
    for c in &chunks {
        staging.write(c).unwrap();
    }
    staging.finish().unwrap();
    t.apply_snapshot(&snap).unwrap();
    let r = t.range(b"a", b"", 0, false).unwrap();
    assert_eq!(r.kvs[0].value, b"2");
    assert_eq!(r.kvs[0].version, 2);
    assert_eq!(r.revision, 3003);
    assert!(t.range(b"b", b"", 0, false).unwrap().kvs.is_empty());
    assert_eq!(t.range(b"k", b"l", 0, true).unwrap().count, 3000);
    assert_eq!(t.applied().unwrap(), 10);
    assert_eq!(t.first_index().unwrap(), 11);
    assert_eq!(t.conf_state().voters, vec![1, 2]);
    assert_eq!(t.members().unwrap().len(), 2);
    assert_eq!(t.member_id().unwrap(), Some(3));
    drop(t);
    // Durable: the same after a restart.
    let t = Store::open(other2.path()).unwrap();
    assert_eq!(t.applied().unwrap(), 10);
    assert_eq!(t.range(b"k", b"l", 0, true).unwrap().count, 3000);
    assert_eq!(t.member_id().unwrap(), Some(3));
    assert_eq!(Storage::last_index(&t).unwrap(), 10);
}

#[test]
fn other_storage_formats_are_refused_with_the_directory_named() {
    let old = tempfile::tempdir().unwrap();
    std::fs::write(old.path().join("member.redb"), b"redb").unwrap();
    let e = Store::open(old.path()).err().expect("format 1 refused").0;
    assert!(e.contains(&old.path().display().to_string()), "{e}");
    assert!(e.contains("storage format 1"), "{e}");
    assert!(e.contains("memberctl member remove"), "{e}");

    let newer = tempfile::tempdir().unwrap();
    std::fs::write(newer.path().join("FORMAT"), "memberctl storage format 3\n").unwrap();
    let e = Store::open(newer.path()).err().expect("format 3 refused").0;
    assert!(e.contains("newer memberctl"), "{e}");

    let fresh = tempfile::tempdir().unwrap();
    drop(Store::open(fresh.path()).unwrap());
    let text = std::fs::read_to_string(fresh.path().join("FORMAT")).unwrap();
    assert_eq!(
        text.trim(),
        format!("memberctl storage format {}", layout::FORMAT)
    );
    std::fs::remove_file(fresh.path().join("FORMAT")).unwrap();
    let e = Store::open(fresh.path())
        .err()
        .expect("no FORMAT refused")
        .0;
    assert!(e.contains("damaged"), "{e}");
}

#[test]
fn ranges_follow_etcd_conventions() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.bootstrap(9, 1, &[member(1)]).unwrap();
    s.apply_with(false, |txn| {
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
