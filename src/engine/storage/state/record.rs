//! One revision of a key as the state machine keeps it: its key shared with the maps that name it (held once however many revisions and tables refer to it), and its encoding as the snapshot file's `KvRecord`, written from the fields without a copy.

use prost::encoding::{self, WireType};

use super::Key;
use crate::proto::memberctl_store_v1 as spb;

/// One revision of a key: its value and counters, or its deletion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The key, the same allocation the state's maps hold.
    pub key: Key,
    /// The value (empty for a deletion).
    pub value: Vec<u8>,
    /// The revision the key was created at (0 for a deletion).
    pub create_revision: i64,
    /// The revision of this change.
    pub mod_revision: i64,
    /// How many times the key was written since it was created (0 for a deletion).
    pub version: i64,
    /// The lease the key is attached to (0: none).
    pub lease: i64,
    /// Position among the changes of its revision (a transaction's order).
    pub sub: u32,
    /// The key was deleted at this revision.
    pub tombstone: bool,
}

/// Bytes a length-delimited field of `len` bytes takes (nothing when empty,
/// as proto3 leaves it out).
fn bytes_len(tag: u32, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        encoding::key_len(tag) + encoding::encoded_len_varint(len as u64) + len
    }
}

/// Writes a length-delimited field (nothing when empty).
fn put_bytes(tag: u32, bytes: &[u8], buf: &mut Vec<u8>) {
    if !bytes.is_empty() {
        encoding::encode_key(tag, WireType::LengthDelimited, buf);
        encoding::encode_varint(bytes.len() as u64, buf);
        buf.extend_from_slice(bytes);
    }
}

impl Record {
    /// The record read from the snapshot file's `KvRecord`, with `key` (the
    /// record's own key, shared) in place of its copy.
    pub fn from_stored(rec: spb::KvRecord, key: Key) -> Record {
        debug_assert_eq!(*key, *rec.key);
        Record {
            key,
            value: rec.value,
            create_revision: rec.create_revision,
            mod_revision: rec.mod_revision,
            version: rec.version,
            lease: rec.lease,
            sub: rec.sub,
            tombstone: rec.tombstone,
        }
    }

    /// The size of its `KvRecord` encoding, as prost's `encoded_len`.
    pub fn encoded_len(&self) -> usize {
        bytes_len(1, self.key.len())
            + bytes_len(2, self.value.len())
            + nonzero(self.create_revision, |v| encoding::int64::encoded_len(3, v))
            + nonzero(self.mod_revision, |v| encoding::int64::encoded_len(4, v))
            + nonzero(self.version, |v| encoding::int64::encoded_len(5, v))
            + nonzero(self.lease, |v| encoding::int64::encoded_len(6, v))
            + nonzero(self.sub, |v| encoding::uint32::encoded_len(7, v))
            + nonzero(self.tombstone, |v| encoding::bool::encoded_len(8, v))
    }

    /// Appends its `KvRecord` encoding (the message's fields, no frame), as
    /// prost's `encode_raw` of the same `KvRecord`.
    pub fn encode_raw(&self, buf: &mut Vec<u8>) {
        put_bytes(1, &self.key, buf);
        put_bytes(2, &self.value, buf);
        if self.create_revision != 0 {
            encoding::int64::encode(3, &self.create_revision, buf);
        }
        if self.mod_revision != 0 {
            encoding::int64::encode(4, &self.mod_revision, buf);
        }
        if self.version != 0 {
            encoding::int64::encode(5, &self.version, buf);
        }
        if self.lease != 0 {
            encoding::int64::encode(6, &self.lease, buf);
        }
        if self.sub != 0 {
            encoding::uint32::encode(7, &self.sub, buf);
        }
        if self.tombstone {
            encoding::bool::encode(8, &self.tombstone, buf);
        }
    }
}

/// `len(v)` unless `v` is its type's default (proto3 leaves those out).
fn nonzero<T: Default + PartialEq>(v: T, len: impl Fn(&T) -> usize) -> usize {
    if v == T::default() {
        0
    } else {
        len(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;
    use std::sync::Arc;

    fn stored(r: &Record) -> spb::KvRecord {
        spb::KvRecord {
            key: r.key.to_vec(),
            value: r.value.clone(),
            create_revision: r.create_revision,
            mod_revision: r.mod_revision,
            version: r.version,
            lease: r.lease,
            sub: r.sub,
            tombstone: r.tombstone,
        }
    }

    #[test]
    fn its_encoding_is_the_stored_records_byte_for_byte() {
        let put = Record {
            key: Arc::from(&b"k/1"[..]),
            value: vec![7; 300],
            create_revision: 5,
            mod_revision: 1 << 40,
            version: 3,
            lease: -2,
            sub: 9,
            tombstone: false,
        };
        let deletion = Record {
            key: Arc::from(&[0xff; 200][..]),
            mod_revision: 6,
            tombstone: true,
            ..Default::default()
        };
        for r in [put, deletion, Record::default()] {
            let mut mine = Vec::new();
            r.encode_raw(&mut mine);
            assert_eq!(mine, stored(&r).encode_to_vec(), "{r:?}");
            assert_eq!(r.encoded_len(), mine.len());
            let back = spb::KvRecord::decode(mine.as_slice()).unwrap();
            assert_eq!(Record::from_stored(back, r.key.clone()), r);
        }
    }
}
