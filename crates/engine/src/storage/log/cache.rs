//! The in-memory tail of the raft log: the entries appended most recently,
//! from which the leader serves its followers without reading the log file
//! (as etcd's MemoryStorage and TiKV's entry cache do). Bounded in bytes;
//! older indexes are read from the log.

use std::collections::VecDeque;

use protobuf::Message as _;
use raft::eraftpb::Entry;

/// Recent log entries with contiguous indexes.
#[derive(Debug)]
pub struct EntryCache {
    entries: VecDeque<Entry>,
    bytes: usize,
    limit: usize,
}

fn size(e: &Entry) -> usize {
    e.compute_size() as usize
}

impl EntryCache {
    /// An empty cache holding at most `limit` bytes of entries (and at least
    /// the last batch appended).
    pub fn new(limit: usize) -> EntryCache {
        EntryCache {
            entries: VecDeque::new(),
            bytes: 0,
            limit,
        }
    }

    /// The first index held, if any.
    pub fn first_index(&self) -> Option<u64> {
        self.entries.front().map(|e| e.index)
    }

    /// Bytes held (the tests' view).
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds entries just appended to the log; a suffix from an index already
    /// held replaces what follows it, a gap empties the cache first.
    pub fn append(&mut self, new: &[Entry]) {
        let Some(first) = new.first().map(|e| e.index) else {
            return;
        };
        match (self.first_index(), self.entries.back().map(|e| e.index)) {
            (Some(f), Some(_)) if first <= f => self.clear(),
            (Some(f), Some(l)) if first <= l => {
                for e in self.entries.drain((first - f) as usize..) {
                    self.bytes -= size(&e);
                }
            }
            (_, Some(l)) if first != l + 1 => self.clear(),
            _ => {}
        }
        for e in new {
            self.bytes += size(e);
            self.entries.push_back(e.clone());
        }
        while self.bytes > self.limit && self.entries.len() > new.len() {
            self.pop_front();
        }
    }

    fn pop_front(&mut self) {
        if let Some(e) = self.entries.pop_front() {
            self.bytes -= size(&e);
        }
    }

    /// Drops the entries up to and including `index`.
    pub fn compact_to(&mut self, index: u64) {
        while self.first_index().is_some_and(|f| f <= index) {
            self.pop_front();
        }
    }

    /// Empties the cache.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
    }

    /// The term of `index`, if held.
    pub fn term(&self, index: u64) -> Option<u64> {
        let first = self.first_index()?;
        let e = self.entries.get(index.checked_sub(first)? as usize)?;
        Some(e.term)
    }

    /// Appends the entries of `[low, high)` to `out` while their size stays
    /// within `max_size` (at least one when `out` is empty); returns false
    /// (adding nothing) when `low` is not held.
    pub fn fetch(&self, low: u64, high: u64, max_size: u64, out: &mut Vec<Entry>) -> bool {
        let Some(first) = self.first_index() else {
            return false;
        };
        if low < first || low >= first + self.entries.len() as u64 {
            return false;
        }
        let mut total: u64 = out.iter().map(|e| size(e) as u64).sum();
        for e in self.entries.range((low - first) as usize..) {
            if e.index >= high {
                break;
            }
            total += size(e) as u64;
            if !out.is_empty() && total > max_size {
                break;
            }
            out.push(e.clone());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: u64, term: u64) -> Entry {
        Entry {
            index,
            term,
            data: vec![1u8; 100].into(),
            ..Default::default()
        }
    }

    fn indexes(c: &EntryCache, low: u64, high: u64, max: u64) -> Vec<u64> {
        let mut out = Vec::new();
        c.fetch(low, high, max, &mut out);
        out.iter().map(|e| e.index).collect()
    }

    #[test]
    fn appends_overwrites_and_bounds() {
        let mut c = EntryCache::new(1000);
        c.append(&(1..=5).map(|i| entry(i, 1)).collect::<Vec<_>>());
        assert_eq!(indexes(&c, 2, 5, u64::MAX), vec![2, 3, 4]);
        // A conflicting suffix replaces the tail.
        c.append(&[entry(4, 2)]);
        assert_eq!(indexes(&c, 1, 10, u64::MAX), vec![1, 2, 3, 4]);
        assert_eq!(c.term(4), Some(2));
        assert_eq!(c.term(5), None);
        // Over the limit: the oldest go.
        for i in 5..=20 {
            c.append(&[entry(i, 2)]);
        }
        assert!(c.bytes() <= 1000, "{}", c.bytes());
        // A batch larger than the limit is kept whole (it is the newest).
        c.append(&(21..=40).map(|i| entry(i, 2)).collect::<Vec<_>>());
        assert_eq!(c.first_index(), Some(21));
        assert!(c.first_index().unwrap() > 1);
        assert!(!c.fetch(1, 3, u64::MAX, &mut Vec::new()));
        // The size limit, but at least one.
        assert_eq!(indexes(&c, 28, 31, 1).len(), 1);
        assert_eq!(indexes(&c, 28, 31, 250), vec![28, 29]);
        // A gap empties it.
        c.append(&[entry(50, 3)]);
        assert_eq!(c.first_index(), Some(50));
        c.compact_to(50);
        assert_eq!(c.first_index(), None);
        assert_eq!(c.bytes(), 0);
    }
}
