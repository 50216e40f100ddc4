//! Memo of visited search states with dominance: a state is the set of linearized
//! answered operations, the key state, and the set of operations of unknown outcome used
//! so far; it is covered by a seen state equal in the first two that used a subset of
//! the third (fewer used leaves more options).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::bitset::{mix, Bits, Snapshot};
use super::model::KeyState;

/// Key of the memo: linearized ordinary operations and possible states.
#[derive(Debug, PartialEq, Eq)]
struct Key {
    hash: u64,
    main: Snapshot,
    state: KeyState,
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// Hasher for keys that are already well mixed.
#[derive(Default)]
struct PassHasher(u64);

impl Hasher for PassHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix(self.0 ^ v);
    }
}

/// Visited search states.
#[derive(Default)]
pub(crate) struct Memo {
    seen: HashMap<Key, Vec<Snapshot>, BuildHasherDefault<PassHasher>>,
    entries: usize,
    bytes: usize,
}

impl Memo {
    /// Records a state; returns false when an equal or dominating state was seen before.
    pub(crate) fn visit(&mut self, main: &Bits, extra: &Bits, state: KeyState) -> bool {
        let key = Key {
            hash: main.hash() ^ mix(u64::from(state) ^ 0x517C_C1B7_2722_0A95),
            main: main.snapshot(),
            state,
        };
        let extra = extra.snapshot();
        let extra_size = std::mem::size_of::<Snapshot>() + extra.tail.len() * 8;
        if let Some(list) = self.seen.get_mut(&key) {
            if list.iter().any(|seen| seen.is_subset(&extra)) {
                return false;
            }
            list.push(extra);
            self.bytes += extra_size;
        } else {
            self.bytes += std::mem::size_of::<(Key, Vec<Snapshot>)>()
                + key.main.tail.len() * 8
                + extra_size
                + 40;
            self.seen.insert(key, vec![extra]);
        }
        self.entries += 1;
        true
    }

    /// Number of states recorded.
    pub(crate) fn entries(&self) -> usize {
        self.entries
    }

    /// Estimated bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes + self.seen.capacity()
    }
}
