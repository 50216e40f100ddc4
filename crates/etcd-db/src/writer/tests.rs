//! Unit tests of the bbolt writer: what it writes reads back through the
//! reader, whole and in order, with inline buckets, branch levels and
//! overflow pages; a source that breaks the rules is refused.

use std::cell::Cell;

use super::*;
use crate::bbolt::{BucketRoot, Db};

/// Bucket `name` with `n` keys, the i-th's value `value(i)`.
fn mem(name: &'static str, n: usize, value: impl Fn(usize) -> Vec<u8>) -> Listed {
    Listed::new(
        name,
        (0..n)
            .map(|i| (format!("key-{i:08}").into_bytes(), value(i)))
            .collect(),
    )
}

/// The file written for `sources`, whole.
fn written(sources: &[&dyn Source]) -> (Plan, Vec<u8>) {
    let plan = plan(sources).expect("plan");
    let mut file = Vec::new();
    let mut remaining = Vec::new();
    let done = write(&plan, sources, &mut |piece, left| {
        file.extend_from_slice(&piece);
        remaining.push(left);
        true
    })
    .expect("write");
    assert!(done);
    assert_eq!(remaining.last(), Some(&0), "the last piece leaves nothing");
    assert!(remaining.windows(2).all(|w| w[0] > w[1]), "{remaining:?}");
    (plan, file)
}

/// Keys and values, in order.
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// Every bucket of the database in `file` (trailer cut off): name, whether
/// inline, entries.
fn read_back(file: &[u8]) -> Vec<(String, bool, Entries)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    std::fs::write(&path, file).unwrap();
    let db = Db::open(
        std::fs::File::open(&path).unwrap(),
        file.len() as u64 - TRAILER,
    )
    .expect("the reader opens it");
    let mut out = Vec::new();
    for (name, root) in db.buckets().unwrap() {
        let inline = matches!(root, BucketRoot::Inline(_));
        let mut entries = Vec::new();
        db.for_each(&root, &mut |e| {
            assert!(!e.is_bucket);
            entries.push((e.key.to_vec(), e.value.to_vec()));
            Ok(())
        })
        .expect("walk");
        out.push((String::from_utf8(name).unwrap(), inline, entries));
    }
    out
}

#[test]
fn what_is_written_reads_back_in_order() {
    let empty = mem("alarm", 0, |_| vec![]);
    let small = mem("auth", 3, |i| vec![i as u8; 10]);
    // 20,000 entries of 120 bytes: hundreds of leaves, two branch levels.
    let many = mem("key", 20_000, |i| format!("{i:0100}").into_bytes());
    // Values larger than a page among small ones: overflow pages.
    let big = mem("lease", 7, |i| {
        vec![b'x'; if i % 3 == 1 { 10_000 } else { 5 }]
    });
    let sources: [&dyn Source; 4] = [&empty, &small, &many, &big];
    let (plan, file) = written(&sources);
    assert_eq!(file.len() as u64, plan.file_len());
    assert_eq!(file.len() % PAGE_SIZE, TRAILER as usize);
    let (data, trailer) = file.split_at(file.len() - TRAILER as usize);
    assert_eq!(
        ring::digest::digest(&ring::digest::SHA256, data).as_ref(),
        trailer
    );
    let back = read_back(&file);
    let names: Vec<(&str, bool)> = back.iter().map(|(n, i, _)| (n.as_str(), *i)).collect();
    assert_eq!(
        names,
        [
            ("alarm", true),
            ("auth", true),
            ("key", false),
            ("lease", false)
        ]
    );
    for (src, (_, _, entries)) in [&empty, &small, &many, &big].iter().zip(&back) {
        assert_eq!(&src.entries, entries, "bucket {}", src.name);
    }
    // Two branch levels above the leaves of `key`: a root branch pointing
    // to branches.
    match &plan.buckets[2].1 {
        Body::Paged(levels) => assert_eq!(levels.len(), 3, "leaves and two branch levels"),
        Body::Inline(_) => panic!("key is not inline"),
    }
}

#[test]
fn etcdctls_status_summary_reads_it() {
    let small = mem("key", 2, |_| b"v".to_vec());
    let meta = mem("meta", 1, |_| 7u64.to_be_bytes().to_vec());
    let sources: [&dyn Source; 2] = [&small, &meta];
    let (plan, file) = written(&sources);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.db");
    std::fs::write(&path, &file).unwrap();
    let status = crate::status(&path).expect("status");
    assert_eq!(status.total_key, 3);
    assert_eq!(status.total_size, plan.file_len() - TRAILER);
    assert!(status.sha256.is_some(), "the trailer is checked");
}

#[test]
fn unsorted_sources_are_refused() {
    let a = mem("b", 1, |_| vec![]);
    let b = mem("a", 1, |_| vec![]);
    assert!(matches!(
        plan(&[&a as &dyn Source, &b]),
        Err(WriteError::Unsorted { .. })
    ));
    let mut keys = mem("key", 3, |_| vec![]);
    keys.entries.swap(0, 2);
    assert!(matches!(
        plan(&[&keys as &dyn Source]),
        Err(WriteError::Unsorted { bucket }) if bucket == "key"
    ));
}

/// A bucket whose entries differ on the second call.
struct Shifting {
    calls: Cell<usize>,
}

impl Source for Shifting {
    fn name(&self) -> &[u8] {
        b"key"
    }
    fn entries(&self, f: &mut dyn FnMut(&[u8], &[u8])) {
        let n = 500 + self.calls.get();
        self.calls.set(self.calls.get() + 1);
        for i in 0..n {
            f(format!("{i:08}").as_bytes(), &[0u8; 40]);
        }
    }
}

#[test]
fn a_source_that_changes_is_caught() {
    let s = Shifting {
        calls: Cell::new(0),
    };
    let sources: [&dyn Source; 1] = [&s];
    let plan = plan(&sources).unwrap();
    let r = write(&plan, &sources, &mut |_, _| true);
    assert!(matches!(r, Err(WriteError::Changed { .. })), "{r:?}");
}

#[test]
fn a_receiver_that_goes_away_stops_it() {
    let many = mem("key", 50_000, |_| vec![0u8; 100]);
    let sources: [&dyn Source; 1] = [&many];
    let plan = plan(&sources).unwrap();
    let mut pieces = 0;
    let done = write(&plan, &sources, &mut |_, _| {
        pieces += 1;
        false
    })
    .unwrap();
    assert!(!done);
    assert_eq!(pieces, 1);
}
