//! Writing bbolt database files laid out as etcd writes its snapshots, for
//! the engine's `Maintenance.Snapshot`: buckets given in name order, each
//! with its keys in order, written once from a fixed source in two passes.
//! [`plan`] sizes every page (which leaf each key falls in, the first key of
//! each leaf for the branches above) so that the meta pages, written first,
//! know the root and the high-water page; [`write()`] then emits the pages in
//! page order followed by the SHA-256 trailer, in pieces, so nothing holds
//! the whole file.
//!
//! As bbolt lays a file out: a bucket whose page fits a quarter page is
//! stored inline in its parent (as etcd's small buckets are); leaves are
//! filled up to a page (an entry larger than a page gets a leaf of its own,
//! with overflow pages); branches are built bottom-up; no freelist is written
//! (the meta says page `u64::MAX`, as in every file etcd makes: bbolt
//! rebuilds it on open).

use super::bbolt::{
    fnv1a64, BRANCH, BUCKET_FLAG, ELEMENT, LEAF, MAGIC, META, META_CHECKSUMMED, PAGE_HEADER,
    VERSION,
};

/// Bytes per page (bbolt's on x86-64 and arm64 Linux).
pub const PAGE_SIZE: usize = 4096;
/// Bytes of the SHA-256 trailer after the pages.
pub const TRAILER: u64 = 32;
/// A bucket whose page is at most this large is stored inline (bbolt's rule).
const INLINE_MAX: usize = PAGE_SIZE / 4;
/// Bytes handed to the caller at a time (about: whole pages).
const PIECE: usize = 1 << 20;
/// Bytes of a bucket's header (root page, sequence) in its parent's value.
const BUCKET_HEADER: usize = 16;

/// A bucket to write: its name and its keys with their values.
pub trait Source {
    /// The bucket's name.
    fn name(&self) -> &[u8];
    /// Calls `f` with every key and its value, in key order; the same
    /// entries on every call (the writer reads them twice).
    fn entries(&self, f: &mut dyn FnMut(&[u8], &[u8]));
}

/// A bucket held whole in memory (a small one), its entries sorted.
pub struct Listed {
    name: &'static str,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Listed {
    /// Bucket `name` with `entries`, sorted by key.
    pub fn new(name: &'static str, mut entries: Vec<(Vec<u8>, Vec<u8>)>) -> Listed {
        entries.sort();
        Listed { name, entries }
    }
}

impl Source for Listed {
    fn name(&self) -> &[u8] {
        self.name.as_bytes()
    }

    fn entries(&self, f: &mut dyn FnMut(&[u8], &[u8])) {
        for (k, v) in &self.entries {
            f(k, v);
        }
    }
}

/// Why a file could not be written: the source broke the writer's rules.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Buckets or keys out of order, or given twice.
    #[error("bucket {bucket:?}: its names or keys are not in strictly increasing order")]
    Unsorted {
        /// The bucket (or the root, for bucket names).
        bucket: String,
    },
    /// The second pass met other entries than the first.
    #[error("bucket {bucket:?} changed while it was written")]
    Changed {
        /// The bucket.
        bucket: String,
    },
}

/// A page being planned or planned: leaf (its entries) or branch (its children).
struct Node {
    /// The page's ID (set once the layout is fixed).
    id: u64,
    /// Pages it takes (1, or more with overflow).
    pages: u64,
    /// Its first key (the key its parent lists it under).
    first: Vec<u8>,
    /// Entries (leaf) or children (branch).
    count: usize,
    /// A branch's first child in the level below.
    start: usize,
}

/// Where a bucket's keys go.
enum Body {
    /// The whole page, stored in the root bucket's value.
    Inline(Vec<u8>),
    /// Its own pages: `levels[0]` the leaves, the last level one node, the root.
    Paged(Vec<Vec<Node>>),
}

/// The layout of a file: every page's place, decided before any is written.
pub struct Plan {
    buckets: Vec<(Vec<u8>, Body)>,
    /// Pages the root bucket's leaf takes (it is page 2).
    root_pages: u64,
    /// The first page past the data.
    high_water: u64,
}

impl Plan {
    /// Bytes of the file [`write()`] emits: the pages and the trailer.
    pub fn file_len(&self) -> u64 {
        self.high_water * PAGE_SIZE as u64 + TRAILER
    }
}

/// Pages that `data` bytes of a node take.
fn pages_for(data: usize) -> u64 {
    data.div_ceil(PAGE_SIZE).max(1) as u64
}

/// The first pass: how every bucket of `sources` (given in name order) is laid out.
pub fn plan(sources: &[&dyn Source]) -> Result<Plan, WriteError> {
    let mut buckets = Vec::with_capacity(sources.len());
    for (i, source) in sources.iter().enumerate() {
        if i > 0 && sources[i - 1].name() >= source.name() {
            return Err(WriteError::Unsorted {
                bucket: "(the root: bucket names)".into(),
            });
        }
        buckets.push((source.name().to_vec(), size_bucket(*source)?));
    }
    let root_size = PAGE_HEADER
        + buckets
            .iter()
            .map(|(name, body)| {
                ELEMENT
                    + name.len()
                    + match body {
                        Body::Inline(page) => BUCKET_HEADER + page.len(),
                        Body::Paged(_) => BUCKET_HEADER,
                    }
            })
            .sum::<usize>();
    let root_pages = pages_for(root_size);
    let mut next = 2 + root_pages;
    for (_, body) in &mut buckets {
        if let Body::Paged(levels) = body {
            for node in &mut levels[0] {
                node.id = next;
                next += node.pages;
            }
            loop {
                let top = &levels[levels.len() - 1];
                if top.len() <= 1 {
                    break;
                }
                let mut up = branches(top);
                for node in &mut up {
                    node.id = next;
                    next += node.pages;
                }
                levels.push(up);
            }
        }
    }
    Ok(Plan {
        buckets,
        root_pages,
        high_water: next,
    })
}

/// One bucket sized: its leaves, or its inline page when it is small.
fn size_bucket(source: &dyn Source) -> Result<Body, WriteError> {
    let mut leaves: Vec<Node> = Vec::new();
    let mut size = PAGE_HEADER;
    let mut count = 0usize;
    let mut first = Vec::new();
    // The whole bucket while it could be inline.
    let mut small: Option<Vec<(Vec<u8>, Vec<u8>)>> = Some(Vec::new());
    let mut total = PAGE_HEADER;
    let mut prev: Option<Vec<u8>> = None;
    let mut unsorted = false;
    source.entries(&mut |k, v| {
        match &mut prev {
            Some(p) if p.as_slice() >= k => unsorted = true,
            Some(p) => {
                p.clear();
                p.extend_from_slice(k);
            }
            None => prev = Some(k.to_vec()),
        }
        let e = ELEMENT + k.len() + v.len();
        if count > 0 && size + e > PAGE_SIZE {
            leaves.push(leaf_node(size, count, std::mem::take(&mut first)));
            size = PAGE_HEADER;
            count = 0;
        }
        if count == 0 {
            first = k.to_vec();
        }
        size += e;
        count += 1;
        total += e;
        small = match small.take() {
            Some(mut s) if total <= INLINE_MAX => {
                s.push((k.to_vec(), v.to_vec()));
                Some(s)
            }
            _ => None,
        };
    });
    if unsorted {
        return Err(WriteError::Unsorted {
            bucket: String::from_utf8_lossy(source.name()).into_owned(),
        });
    }
    if let Some(entries) = small {
        let refs: Vec<(&[u8], &[u8])> = entries
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
            .collect();
        let mut page = vec![0u8; total];
        fill_leaf(&mut page, 0, &refs, 0);
        return Ok(Body::Inline(page));
    }
    leaves.push(leaf_node(size, count, first));
    Ok(Body::Paged(vec![leaves]))
}

fn leaf_node(size: usize, count: usize, first: Vec<u8>) -> Node {
    Node {
        id: 0,
        pages: pages_for(size),
        first,
        count,
        start: 0,
    }
}

/// The branch level above `below`: its nodes listed in order, each branch
/// filled up to a page.
fn branches(below: &[Node]) -> Vec<Node> {
    let mut up: Vec<Node> = Vec::new();
    let mut size = PAGE_HEADER;
    for (i, child) in below.iter().enumerate() {
        let e = ELEMENT + child.first.len();
        match up.last_mut() {
            Some(b) if size + e <= PAGE_SIZE => {
                b.count += 1;
                size += e;
                b.pages = pages_for(size);
            }
            _ => {
                size = PAGE_HEADER + e;
                up.push(Node {
                    id: 0,
                    pages: pages_for(size),
                    first: child.first.clone(),
                    count: 1,
                    start: i,
                });
            }
        }
    }
    up
}

/// Writes `entries` as a leaf into `page` (sized for them): header, elements, data.
fn fill_leaf(page: &mut [u8], id: u64, entries: &[(&[u8], &[u8])], flags: u32) {
    let overflow = (page.len() / PAGE_SIZE).saturating_sub(1) as u32;
    header(page, id, LEAF, entries.len(), overflow);
    let mut data = PAGE_HEADER + entries.len() * ELEMENT;
    for (i, (k, v)) in entries.iter().enumerate() {
        let at = PAGE_HEADER + i * ELEMENT;
        put_u32(page, at, flags);
        put_u32(page, at + 4, (data - at) as u32);
        put_u32(page, at + 8, k.len() as u32);
        put_u32(page, at + 12, v.len() as u32);
        page[data..data + k.len()].copy_from_slice(k);
        data += k.len();
        page[data..data + v.len()].copy_from_slice(v);
        data += v.len();
    }
}

fn header(page: &mut [u8], id: u64, flags: u16, count: usize, overflow: u32) {
    page[0..8].copy_from_slice(&id.to_le_bytes());
    page[8..10].copy_from_slice(&flags.to_le_bytes());
    page[10..12].copy_from_slice(&(count as u16).to_le_bytes());
    page[12..16].copy_from_slice(&overflow.to_le_bytes());
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// The file as it is emitted: pieces of about [`PIECE`] bytes, hashed.
struct Out<'a> {
    buf: Vec<u8>,
    sha: ring::digest::Context,
    sent: u64,
    total: u64,
    emit: &'a mut dyn FnMut(Vec<u8>, u64) -> bool,
    stopped: bool,
}

impl Out<'_> {
    fn page(&mut self, bytes: &[u8]) {
        self.sha.update(bytes);
        self.bytes(bytes);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= PIECE {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.stopped || self.buf.is_empty() {
            return;
        }
        let piece = std::mem::replace(&mut self.buf, Vec::with_capacity(PIECE + PAGE_SIZE));
        self.sent += piece.len() as u64;
        if !(self.emit)(piece, self.total.saturating_sub(self.sent)) {
            self.stopped = true;
        }
    }
}

/// The second pass: the file `plan` laid out, handed to `emit` in pieces
/// with the bytes that remain after each, ending with the SHA-256 of all
/// that came before. Stops early when `emit` returns false; returns whether
/// it went to the end.
pub fn write(
    plan: &Plan,
    sources: &[&dyn Source],
    emit: &mut dyn FnMut(Vec<u8>, u64) -> bool,
) -> Result<bool, WriteError> {
    let mut out = Out {
        buf: Vec::with_capacity(PIECE + PAGE_SIZE),
        sha: ring::digest::Context::new(&ring::digest::SHA256),
        sent: 0,
        total: plan.file_len(),
        emit,
        stopped: false,
    };
    // Two metas alike but for their transaction IDs: bbolt reads the newer.
    for (id, txid) in [(0u64, 2u64), (1, 3)] {
        out.page(&meta_page(id, txid, plan.high_water));
    }
    out.page(&root_page(plan));
    for ((name, body), source) in plan.buckets.iter().zip(sources) {
        if out.stopped {
            break;
        }
        if let Body::Paged(levels) = body {
            write_leaves(&levels[0], *source, &mut out).map_err(|()| WriteError::Changed {
                bucket: String::from_utf8_lossy(name).into_owned(),
            })?;
            for pair in levels.windows(2) {
                for node in &pair[1] {
                    out.page(&branch_page(node, &pair[0]));
                }
            }
        }
    }
    let sha = out.sha.clone().finish();
    out.bytes(sha.as_ref());
    out.flush();
    Ok(!out.stopped)
}

/// A meta page: the root bucket at page 2, no freelist, `high_water` pages.
fn meta_page(id: u64, txid: u64, high_water: u64) -> Vec<u8> {
    let mut page = vec![0u8; PAGE_SIZE];
    header(&mut page, id, META, 0, 0);
    let m = &mut page[PAGE_HEADER..];
    put_u32(m, 0, MAGIC);
    put_u32(m, 4, VERSION);
    put_u32(m, 8, PAGE_SIZE as u32);
    put_u64(m, 16, 2);
    put_u64(m, 32, u64::MAX);
    put_u64(m, 40, high_water);
    put_u64(m, 48, txid);
    let sum = fnv1a64(&m[..META_CHECKSUMMED]);
    put_u64(m, META_CHECKSUMMED, sum);
    page
}

/// The root bucket's leaf (page 2): each bucket's header, and its page when inline.
fn root_page(plan: &Plan) -> Vec<u8> {
    let values: Vec<Vec<u8>> = plan
        .buckets
        .iter()
        .map(|(_, body)| {
            let mut v = vec![0u8; BUCKET_HEADER];
            match body {
                Body::Inline(page) => v.extend_from_slice(page),
                Body::Paged(levels) => {
                    let root = levels.last().and_then(|l| l.first()).map_or(0, |n| n.id);
                    put_u64(&mut v, 0, root);
                }
            }
            v
        })
        .collect();
    let entries: Vec<(&[u8], &[u8])> = plan
        .buckets
        .iter()
        .zip(&values)
        .map(|((name, _), v)| (name.as_slice(), v.as_slice()))
        .collect();
    let mut page = vec![0u8; plan.root_pages as usize * PAGE_SIZE];
    fill_leaf(&mut page, 2, &entries, BUCKET_FLAG);
    page
}

/// A bucket's leaves, filled from a second pass over its entries as the
/// plan cut them; Err when the entries are not those the plan saw.
fn write_leaves(leaves: &[Node], source: &dyn Source, out: &mut Out<'_>) -> Result<(), ()> {
    let mut at = 0usize; // the leaf being filled
    let mut i = 0usize; // its next element
    let mut data = 0usize; // where its next key goes
    let mut page: Vec<u8> = Vec::new();
    let mut changed = false;
    source.entries(&mut |k, v| {
        if changed || out.stopped {
            return;
        }
        let Some(leaf) = leaves.get(at) else {
            changed = true;
            return;
        };
        if i == 0 {
            if k != leaf.first.as_slice() {
                changed = true;
                return;
            }
            page = vec![0u8; leaf.pages as usize * PAGE_SIZE];
            data = PAGE_HEADER + leaf.count * ELEMENT;
        }
        let end = data + k.len() + v.len();
        if end > page.len() {
            changed = true;
            return;
        }
        let el = PAGE_HEADER + i * ELEMENT;
        put_u32(&mut page, el + 4, (data - el) as u32);
        put_u32(&mut page, el + 8, k.len() as u32);
        put_u32(&mut page, el + 12, v.len() as u32);
        page[data..data + k.len()].copy_from_slice(k);
        page[data + k.len()..end].copy_from_slice(v);
        data = end;
        i += 1;
        if i == leaf.count {
            header(
                &mut page,
                leaf.id,
                LEAF,
                leaf.count,
                (leaf.pages - 1) as u32,
            );
            out.page(&page);
            at += 1;
            i = 0;
        }
    });
    if changed || (!out.stopped && (at != leaves.len() || i != 0)) {
        return Err(());
    }
    Ok(())
}

/// A branch page: each child's first key and page.
fn branch_page(node: &Node, below: &[Node]) -> Vec<u8> {
    let children = &below[node.start..node.start + node.count];
    let mut page = vec![0u8; node.pages as usize * PAGE_SIZE];
    let overflow = (node.pages - 1) as u32;
    header(&mut page, node.id, BRANCH, children.len(), overflow);
    let mut data = PAGE_HEADER + children.len() * ELEMENT;
    for (i, child) in children.iter().enumerate() {
        let at = PAGE_HEADER + i * ELEMENT;
        put_u32(&mut page, at, (data - at) as u32);
        put_u32(&mut page, at + 4, child.first.len() as u32);
        put_u64(&mut page, at + 8, child.id);
        page[data..data + child.first.len()].copy_from_slice(&child.first);
        data += child.first.len();
    }
    page
}

#[cfg(test)]
mod tests;
