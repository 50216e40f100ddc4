//! Reading bbolt database files, the format of etcd's backend and of its
//! snapshots: the meta pages, then each bucket's keys walked in order, one
//! page at a time (memory stays a few pages deep, whatever the file's size).
//!
//! The layout (little-endian, as bbolt writes it on x86-64 and arm64): every
//! page starts with a 16-byte header (id u64, flags u16, count u16, overflow
//! u32); pages 0 and 1 are meta pages (magic, version, page size, flags, the
//! root bucket, freelist page, high-water page, transaction ID, FNV-1a
//! checksum), the newer valid one describes the file; branch pages hold
//! (pos u32, key size u32, child page u64) elements, leaf pages (flags u32,
//! pos u32, key size u32, value size u32) elements; a bucket's value is its
//! root page and sequence (16 bytes), followed by the bucket's only page when
//! it is small enough to be stored inline (root page 0). etcd writes no
//! freelist (the meta says page `u64::MAX`); none is needed to read.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::DbError;

/// bbolt's magic number, the first field of a meta page.
pub const MAGIC: u32 = 0xED0C_DAED;
/// The file format version bbolt writes.
pub(super) const VERSION: u32 = 2;
/// Bytes of a page header.
pub(super) const PAGE_HEADER: usize = 16;
/// Bytes of a branch or leaf element.
pub(super) const ELEMENT: usize = 16;
/// Page flags.
pub(super) const BRANCH: u16 = 0x01;
pub(super) const LEAF: u16 = 0x02;
pub(super) const META: u16 = 0x04;
/// A leaf element whose value is a nested bucket.
pub(super) const BUCKET_FLAG: u32 = 0x01;
/// Bytes of a meta, and of its part covered by the checksum.
pub(super) const META_SIZE: usize = 64;
pub(super) const META_CHECKSUMMED: usize = 56;
/// Deeper trees than this are damage (a loop of pages), not data.
const MAX_DEPTH: usize = 64;
/// Page sizes a file may use (meta 1 starts one page in).
const PAGE_SIZES: [u64; 5] = [4096, 8192, 16384, 32768, 65536];

/// What a meta page says about the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Bytes per page.
    pub page_size: u64,
    /// The root bucket's page.
    pub root: u64,
    /// The freelist's page (`u64::MAX` when none was written, as etcd's files).
    pub freelist: u64,
    /// The first page past the data (the file's used size in pages).
    pub high_water: u64,
    /// The transaction that wrote this meta.
    pub txid: u64,
}

/// Where a bucket's keys are: a page of the file, or the page stored inline
/// in its parent's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BucketRoot {
    /// The bucket's root page.
    Page(u64),
    /// The bucket's only page, stored inside its parent.
    Inline(Vec<u8>),
}

impl BucketRoot {
    /// The root of the bucket whose header is `value`.
    fn of(value: &[u8]) -> Result<BucketRoot, DbError> {
        let root = read_u64(value, 0)
            .ok_or_else(|| DbError::Corrupt("a bucket's header is cut short".into()))?;
        Ok(if root == 0 {
            BucketRoot::Inline(value[16.min(value.len())..].to_vec())
        } else {
            BucketRoot::Page(root)
        })
    }
}

/// One key of a bucket as the walk meets it.
pub struct Entry<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The value (a nested bucket's header when `is_bucket`).
    pub value: &'a [u8],
    /// Whether the key names a nested bucket.
    pub is_bucket: bool,
}

/// An open bbolt file, read-only.
pub struct Db {
    file: File,
    /// Bytes of the file that belong to the database (a snapshot's trailer excluded).
    len: u64,
    meta: Meta,
}

impl Db {
    /// Opens the database held in the first `len` bytes of `file`: reads and
    /// checks both meta pages and keeps the newer valid one.
    pub fn open(file: File, len: u64) -> Result<Db, DbError> {
        let mut first = [0u8; PAGE_HEADER + META_SIZE];
        // Too short to hold a meta page: not a bbolt file at all.
        read_exact_at(&file, &mut first, 0, len).map_err(|e| match e {
            DbError::Truncated { .. } => DbError::NotBbolt,
            e => e,
        })?;
        let meta0 = parse_meta(&first);
        // Meta 1 is one page in: the page size meta 0 gives, or any usual one.
        let offsets: Vec<u64> = match &meta0 {
            Ok(m) => vec![m.page_size],
            Err(_) => PAGE_SIZES.to_vec(),
        };
        let mut meta1 = Err(DbError::NotBbolt);
        for off in offsets {
            let mut buf = [0u8; PAGE_HEADER + META_SIZE];
            if read_exact_at(&file, &mut buf, off, len).is_ok() {
                meta1 = parse_meta(&buf).and_then(|m| {
                    if m.page_size == off {
                        Ok(m)
                    } else {
                        Err(DbError::Corrupt(
                            "the two meta pages disagree on the page size".into(),
                        ))
                    }
                });
                if meta1.is_ok() {
                    break;
                }
            }
        }
        let meta = match (meta0, meta1) {
            (Ok(a), Ok(b)) => {
                if a.txid >= b.txid {
                    a
                } else {
                    b
                }
            }
            (Ok(m), Err(_)) | (Err(_), Ok(m)) => m,
            (Err(e), Err(_)) => return Err(e),
        };
        let used = meta.high_water.checked_mul(meta.page_size);
        match used {
            Some(used) if used <= len => {}
            _ => {
                return Err(DbError::Truncated {
                    needed: used.unwrap_or(u64::MAX),
                    have: len,
                })
            }
        }
        if meta.root < 2 || meta.root >= meta.high_water {
            return Err(DbError::Corrupt(format!(
                "the root bucket's page {} is outside the data",
                meta.root
            )));
        }
        Ok(Db { file, len, meta })
    }

    /// The meta page in use.
    pub fn meta(&self) -> Meta {
        self.meta
    }

    /// The database's size as bbolt reports it (`tx.Size()`): the used pages.
    pub fn size(&self) -> u64 {
        self.meta.high_water * self.meta.page_size
    }

    /// The top-level buckets, in key order, with their roots.
    pub fn buckets(&self) -> Result<Vec<(Vec<u8>, BucketRoot)>, DbError> {
        let mut out = Vec::new();
        self.for_each(&BucketRoot::Page(self.meta.root), &mut |e| {
            if !e.is_bucket {
                return Err(DbError::Corrupt(format!(
                    "the root holds a key that is not a bucket ({:?})",
                    String::from_utf8_lossy(e.key)
                )));
            }
            out.push((e.key.to_vec(), BucketRoot::of(e.value)?));
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `f` with every key of the bucket at `root`, in key order.
    pub fn for_each(
        &self,
        root: &BucketRoot,
        f: &mut dyn FnMut(Entry<'_>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        // A tree visits each page once: more visits than pages is a loop
        // (a page listed under two branches), refused before it runs long.
        let mut budget = self.meta.high_water;
        match root {
            BucketRoot::Page(id) => {
                let page = self.page(*id, &mut budget)?;
                self.walk(&page, 0, &mut budget, f)
            }
            BucketRoot::Inline(page) => self.walk(page, 0, &mut budget, f),
        }
    }

    /// Walks the subtree under `page` in key order.
    fn walk(
        &self,
        page: &[u8],
        depth: usize,
        budget: &mut u64,
        f: &mut dyn FnMut(Entry<'_>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        if depth > MAX_DEPTH {
            return Err(DbError::Corrupt(format!(
                "a bucket's tree is deeper than {MAX_DEPTH} levels (its pages loop)"
            )));
        }
        let id = read_u64(page, 0).unwrap_or(0);
        let (flags, count) = match (read_u16(page, 8), read_u16(page, 10)) {
            (Some(flags), Some(count)) => (flags, usize::from(count)),
            _ => return Err(DbError::Corrupt(format!("page {id} is cut short"))),
        };
        let short = || DbError::Corrupt(format!("page {id}: an element points outside the page"));
        if flags & LEAF != 0 {
            for i in 0..count {
                let at = PAGE_HEADER + i * ELEMENT;
                let (Some(eflags), Some(pos), Some(ksize), Some(vsize)) = (
                    read_u32(page, at),
                    read_u32(page, at + 4),
                    read_u32(page, at + 8),
                    read_u32(page, at + 12),
                ) else {
                    return Err(short());
                };
                let start = at + pos as usize;
                let key = page.get(start..start + ksize as usize).ok_or_else(short)?;
                let vstart = start + ksize as usize;
                let value = page
                    .get(vstart..vstart + vsize as usize)
                    .ok_or_else(short)?;
                f(Entry {
                    key,
                    value,
                    is_bucket: eflags & BUCKET_FLAG != 0,
                })?;
            }
            Ok(())
        } else if flags & BRANCH != 0 {
            for i in 0..count {
                let at = PAGE_HEADER + i * ELEMENT;
                let child = read_u64(page, at + 8).ok_or_else(short)?;
                let child = self.page(child, budget)?;
                self.walk(&child, depth + 1, budget, f)?;
            }
            Ok(())
        } else {
            Err(DbError::Corrupt(format!(
                "page {id} is neither a branch nor a leaf (flags {flags:#x})"
            )))
        }
    }

    /// Page `id` with its overflow pages, one of the walk's `budget` of visits.
    fn page(&self, id: u64, budget: &mut u64) -> Result<Vec<u8>, DbError> {
        let ps = self.meta.page_size;
        if *budget == 0 {
            return Err(DbError::Corrupt(
                "a bucket's tree visits more pages than the file has (its pages loop)".into(),
            ));
        }
        *budget -= 1;
        if id < 2 || id >= self.meta.high_water {
            return Err(DbError::Corrupt(format!(
                "a reference to page {id}, outside the data (pages 2 to {})",
                self.meta.high_water.saturating_sub(1)
            )));
        }
        let mut header = [0u8; PAGE_HEADER];
        read_exact_at(&self.file, &mut header, id * ps, self.len)?;
        let overflow = u64::from(read_u32(&header, 12).unwrap_or(0));
        if id + overflow >= self.meta.high_water {
            return Err(DbError::Corrupt(format!(
                "page {id} runs past the end of the data ({overflow} overflow pages)"
            )));
        }
        let mut page = vec![0u8; ((1 + overflow) * ps) as usize];
        read_exact_at(&self.file, &mut page, id * ps, self.len)?;
        if read_u64(&page, 0) != Some(id) {
            return Err(DbError::Corrupt(format!(
                "page {id} carries another page's number"
            )));
        }
        Ok(page)
    }
}

/// The meta in a page that starts with `buf`.
fn parse_meta(buf: &[u8]) -> Result<Meta, DbError> {
    let flags = read_u16(buf, 8).unwrap_or(0);
    let m = &buf[PAGE_HEADER..PAGE_HEADER + META_SIZE];
    if read_u32(m, 0) != Some(MAGIC) {
        return Err(DbError::NotBbolt);
    }
    if flags & META == 0 {
        return Err(DbError::Corrupt("a meta page is not marked as one".into()));
    }
    let version = read_u32(m, 4).unwrap_or(0);
    if version != VERSION {
        return Err(DbError::Corrupt(format!(
            "bbolt format version {version} (this reads version {VERSION})"
        )));
    }
    if read_u64(m, META_CHECKSUMMED) != Some(fnv1a64(&m[..META_CHECKSUMMED])) {
        return Err(DbError::Corrupt(
            "a meta page's checksum does not match".into(),
        ));
    }
    let page_size = u64::from(read_u32(m, 8).unwrap_or(0));
    if !PAGE_SIZES.contains(&page_size) {
        return Err(DbError::Corrupt(format!("page size {page_size}")));
    }
    Ok(Meta {
        page_size,
        root: read_u64(m, 16).unwrap_or(0),
        freelist: read_u64(m, 32).unwrap_or(0),
        high_water: read_u64(m, 40).unwrap_or(0),
        txid: read_u64(m, 48).unwrap_or(0),
    })
}

/// FNV-1a, 64 bits: bbolt's meta checksum.
pub(super) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Fills `buf` from `offset`, refusing to read past the database's `len` bytes.
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64, len: u64) -> Result<(), DbError> {
    let end = offset.saturating_add(buf.len() as u64);
    if end > len {
        return Err(DbError::Truncated {
            needed: end,
            have: len,
        });
    }
    file.read_exact_at(buf, offset).map_err(DbError::Io)
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests;
