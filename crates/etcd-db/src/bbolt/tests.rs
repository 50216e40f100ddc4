//! The bbolt reader on hand-made files: a tree of a branch, leaves, an
//! overflow value and an inline bucket read in order; loops, bad meta pages
//! and cut files refused with the reason, never a hang or a panic.

use std::fs::File;
use std::io::Write;

use super::*;

const PS: usize = 4096;

/// A page header.
fn head(id: u64, flags: u16, count: u16, overflow: u32) -> Vec<u8> {
    let mut h = id.to_le_bytes().to_vec();
    h.extend(flags.to_le_bytes());
    h.extend(count.to_le_bytes());
    h.extend(overflow.to_le_bytes());
    h
}

/// Pads a page to whole pages, setting its overflow count.
fn whole(mut p: Vec<u8>) -> Vec<u8> {
    let pages = p.len().div_ceil(PS).max(1);
    p.resize(pages * PS, 0);
    p[12..16].copy_from_slice(&((pages - 1) as u32).to_le_bytes());
    p
}

/// Meta page `id` (0 or 1).
fn meta(id: u64, root: u64, high_water: u64, txid: u64) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend(MAGIC.to_le_bytes());
    m.extend(2u32.to_le_bytes());
    m.extend((PS as u32).to_le_bytes());
    m.extend(0u32.to_le_bytes());
    m.extend(root.to_le_bytes());
    m.extend(0u64.to_le_bytes());
    m.extend(u64::MAX.to_le_bytes());
    m.extend(high_water.to_le_bytes());
    m.extend(txid.to_le_bytes());
    let sum = fnv1a64(&m);
    m.extend(sum.to_le_bytes());
    let mut p = head(id, META, 0, 0);
    p.extend(m);
    whole(p)
}

/// A leaf page's bytes (not padded): (key, value, is a bucket) elements.
fn leaf_bytes(id: u64, elems: &[(&[u8], Vec<u8>, bool)]) -> Vec<u8> {
    let mut p = head(id, LEAF, elems.len() as u16, 0);
    let mut data = Vec::new();
    for (i, (k, v, bucket)) in elems.iter().enumerate() {
        let at = PAGE_HEADER + i * ELEMENT;
        let pos = PAGE_HEADER + elems.len() * ELEMENT + data.len() - at;
        p.extend(u32::from(*bucket).to_le_bytes());
        p.extend((pos as u32).to_le_bytes());
        p.extend((k.len() as u32).to_le_bytes());
        p.extend((v.len() as u32).to_le_bytes());
        data.extend_from_slice(k);
        data.extend_from_slice(v);
    }
    p.extend(data);
    p
}

/// A branch page: (first key, child page) elements.
fn branch(id: u64, children: &[(&[u8], u64)]) -> Vec<u8> {
    let mut p = head(id, BRANCH, children.len() as u16, 0);
    let mut data = Vec::new();
    for (i, (k, child)) in children.iter().enumerate() {
        let at = PAGE_HEADER + i * ELEMENT;
        let pos = PAGE_HEADER + children.len() * ELEMENT + data.len() - at;
        p.extend((pos as u32).to_le_bytes());
        p.extend((k.len() as u32).to_le_bytes());
        p.extend(child.to_le_bytes());
        data.extend_from_slice(k);
    }
    p.extend(data);
    whole(p)
}

/// A bucket's header value: its root page (0: inline, `inline` follows).
fn bucket(root: u64, inline: &[u8]) -> Vec<u8> {
    let mut v = root.to_le_bytes().to_vec();
    v.extend(0u64.to_le_bytes());
    v.extend_from_slice(inline);
    v
}

/// The pages written to a file, opened with its whole length.
fn open(pages: &[Vec<u8>]) -> (tempfile::NamedTempFile, Result<Db, DbError>) {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for p in pages {
        f.write_all(p).unwrap();
    }
    f.flush().unwrap();
    let len = f.as_file().metadata().unwrap().len();
    let db = Db::open(File::open(f.path()).unwrap(), len);
    (f, db)
}

/// Pages 0–6: two metas, the root (bucket `b` at page 3, bucket `i`
/// inline), a branch over two leaves, the second with a 5,000-byte value
/// (one overflow page).
fn tree(branch3: Vec<u8>) -> Vec<Vec<u8>> {
    let inline = leaf_bytes(0, &[(b"k", b"v".to_vec(), false)]);
    vec![
        meta(0, 2, 7, 4),
        meta(1, 2, 7, 3),
        whole(leaf_bytes(
            2,
            &[
                (b"b", bucket(3, &[]), true),
                (b"i", bucket(0, &inline), true),
            ],
        )),
        branch3,
        whole(leaf_bytes(
            4,
            &[(b"a", b"1".to_vec(), false), (b"b", b"2".to_vec(), false)],
        )),
        whole(leaf_bytes(5, &[(b"c", vec![7u8; 5000], false)])),
    ]
}

fn keys(db: &Db, root: &BucketRoot) -> Result<Vec<(Vec<u8>, usize)>, DbError> {
    let mut out = Vec::new();
    db.for_each(root, &mut |e| {
        out.push((e.key.to_vec(), e.value.len()));
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn a_tree_is_read_in_key_order() {
    let (_f, db) = open(&tree(branch(3, &[(b"a", 4), (b"c", 5)])));
    let db = db.unwrap();
    assert_eq!(db.size(), 7 * PS as u64);
    assert_eq!(db.meta().txid, 4);
    let buckets = db.buckets().unwrap();
    let names: Vec<&[u8]> = buckets.iter().map(|(n, _)| n.as_slice()).collect();
    assert_eq!(names, [b"b".as_slice(), b"i".as_slice()]);
    assert_eq!(
        keys(&db, &buckets[0].1).unwrap(),
        [
            (b"a".to_vec(), 1),
            (b"b".to_vec(), 1),
            (b"c".to_vec(), 5000)
        ]
    );
    assert_eq!(keys(&db, &buckets[1].1).unwrap(), [(b"k".to_vec(), 1)]);
}

#[test]
fn a_loop_of_pages_is_refused_not_followed() {
    // The branch lists itself: without a bound the walk would not end.
    let (_f, db) = open(&tree(branch(3, &[(b"a", 3), (b"b", 3), (b"c", 3)])));
    let db = db.unwrap();
    let buckets = db.buckets().unwrap();
    let e = keys(&db, &buckets[0].1).unwrap_err();
    assert!(e.to_string().contains("loop"), "{e}");
}

#[test]
fn a_damaged_meta_falls_back_to_the_other_and_two_are_refused() {
    let mut pages = tree(branch(3, &[(b"a", 4), (b"c", 5)]));
    pages[0][PAGE_HEADER + 20] ^= 1;
    let (_f, db) = open(&pages);
    assert_eq!(db.unwrap().meta().txid, 3);
    pages[1][PAGE_HEADER + 20] ^= 1;
    let (_f, db) = open(&pages);
    let e = db.err().unwrap();
    assert!(e.to_string().contains("checksum"), "{e}");
}

#[test]
fn cut_and_foreign_files_are_refused() {
    let pages = tree(branch(3, &[(b"a", 4), (b"c", 5)]));
    let (_f, db) = open(&pages[..5]);
    assert!(
        matches!(db, Err(DbError::Truncated { needed, have }) if needed == 7 * PS as u64 && have == 5 * PS as u64)
    );
    let (_f, db) = open(&[b"hello, not a database".to_vec()]);
    assert!(matches!(db, Err(DbError::NotBbolt)));
    let (_f, db) = open(&[vec![0u8; 3 * PS]]);
    assert!(matches!(db, Err(DbError::NotBbolt)));
    // A child page number past the data.
    let (_f, db) = open(&tree(branch(3, &[(b"a", 4), (b"c", 99)])));
    let db = db.unwrap();
    let buckets = db.buckets().unwrap();
    let e = keys(&db, &buckets[0].1).unwrap_err();
    assert!(e.to_string().contains("outside the data"), "{e}");
}
