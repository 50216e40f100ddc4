//! Where the state machine's values are kept: not on the heap but in files
//! the process maps, so a member's memory is its keys and indexes plus the
//! values it reads, as etcd's is its index plus the pages of its database
//! file it touched. A value written or received goes to the spill arena
//! ([`arena`]: segments in the member's directory, unnamed, freed when
//! empty); once a checkpoint holds it, it moves to the checkpoint file's
//! pages ([`Value::move_to`]), and a member started from a checkpoint reads
//! its values there from the start. Nothing here is durable or needs to be:
//! the raft log and the checkpoints are, and the arena is rebuilt by
//! applying the log.
//!
//! A [`Value`] is a cell: the bytes never change, where they live may, and
//! a reader takes a handle (`Bytes`) that keeps them where they were until
//! it lets go.

mod arena;
mod region;

use std::sync::Mutex;

use bytes::Bytes;

pub use self::arena::{keep, spill_in};
pub use self::region::{map_file, release_all};

/// A record's value, wherever its bytes are kept.
#[derive(Default)]
pub struct Value(Mutex<Bytes>);

impl Value {
    /// `bytes` kept in the spill arena (on the heap where it has no room).
    pub fn new(bytes: &[u8]) -> Value {
        Value(Mutex::new(keep(bytes)))
    }

    /// The value as `bytes` holds it (a slice of a mapped file).
    pub fn from_bytes(bytes: Bytes) -> Value {
        Value(Mutex::new(bytes))
    }

    /// A handle on its bytes.
    pub fn get(&self) -> Bytes {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A copy of its bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        self.get().to_vec()
    }

    /// Its length.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps it at `bytes` from now on: the same bytes elsewhere (a
    /// checkpoint's). A handle of another length is refused (returns
    /// false): it cannot be the same value.
    pub fn move_to(&self, bytes: Bytes) -> bool {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() != bytes.len() {
            return false;
        }
        *v = bytes;
        true
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        Value::from_bytes(self.get())
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.get() == other.get()
    }
}

impl Eq for Value {}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::new(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_moves_only_to_bytes_of_its_length() {
        let v = Value::from_bytes(Bytes::from_static(b"abc"));
        assert!(!v.move_to(Bytes::from_static(b"abcd")));
        assert_eq!(&v.get()[..], b"abc");
        assert!(v.move_to(Bytes::from_static(b"abc")));
        assert_eq!(v, Value::from_bytes(Bytes::from_static(b"abc")));
    }
}
