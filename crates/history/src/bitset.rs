//! Compact bitset of linearized operations with an incremental hash and a short canonical
//! snapshot (a search linearizes mostly in call order, so the set is a run of full words,
//! a short ragged tail, then zeros).

/// Mixes a 64-bit value (splitmix64 finalizer).
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A set of operation positions kept as 64-bit words.
#[derive(Debug, Clone)]
pub(crate) struct Bits {
    words: Vec<u64>,
    /// Index of the first word that is not all ones (`words.len()` if none).
    low: usize,
    /// One past the last non-zero word (0 if empty).
    high: usize,
    hash: u64,
}

/// A canonical snapshot of a [`Bits`]: the count of leading full words and the words
/// between them and the trailing zeros.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// Number of leading all-ones words.
    pub low: u32,
    /// Words from `low` up to the last non-zero word.
    pub tail: Box<[u64]>,
}

impl Snapshot {
    /// Word `i` of the set this snapshot stands for.
    fn word(&self, i: usize) -> u64 {
        let low = self.low as usize;
        if i < low {
            u64::MAX
        } else {
            self.tail.get(i - low).copied().unwrap_or(0)
        }
    }

    /// Whether every member of `self` is a member of `other`.
    pub(crate) fn is_subset(&self, other: &Snapshot) -> bool {
        let end = self.low as usize + self.tail.len();
        (0..end).all(|i| self.word(i) & !other.word(i) == 0)
    }
}

impl Bits {
    /// An empty set able to hold positions `0..n`.
    pub(crate) fn new(n: usize) -> Self {
        Bits {
            words: vec![0; n.div_ceil(64)],
            low: 0,
            high: 0,
            hash: 0,
        }
    }

    /// Hash of the current set, maintained incrementally.
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// Adds position `i` (which must be absent).
    pub(crate) fn insert(&mut self, i: usize) {
        let w = i / 64;
        let Some(word) = self.words.get_mut(w) else {
            return;
        };
        *word |= 1u64 << (i % 64);
        self.hash ^= mix(i as u64);
        self.high = self.high.max(w + 1);
        while self.low < self.words.len() && self.words[self.low] == u64::MAX {
            self.low += 1;
        }
    }

    /// Removes position `i` (which must be present).
    pub(crate) fn remove(&mut self, i: usize) {
        let w = i / 64;
        let Some(word) = self.words.get_mut(w) else {
            return;
        };
        *word &= !(1u64 << (i % 64));
        self.hash ^= mix(i as u64);
        self.low = self.low.min(w);
        while self.high > 0 && self.words[self.high - 1] == 0 {
            self.high -= 1;
        }
    }

    /// The canonical snapshot of the set.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let end = self.high.max(self.low);
        Snapshot {
            low: u32::try_from(self.low).unwrap_or(u32::MAX),
            tail: self.words[self.low..end].into(),
        }
    }
}
