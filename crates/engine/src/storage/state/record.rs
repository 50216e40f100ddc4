//! One revision of a key as the state machine keeps it: its key shared with the maps that name it (held once however many revisions and tables refer to it), and its encoding as the snapshot file's `KvRecord`, written from the fields without a copy.

use prost::encoding::{self, WireType};

use super::Key;
use crate::storage::values::Value;

/// One revision of a key: its value and counters, or its deletion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The key, the same allocation the state's maps hold.
    pub key: Key,
    /// The value (empty for a deletion), wherever it is kept.
    pub value: Value,
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
    /// prost's `encode_raw` of the same `KvRecord`. Returns where in `buf`
    /// its value's bytes begin (None when it is empty).
    pub fn encode_raw(&self, buf: &mut Vec<u8>) -> Option<usize> {
        put_bytes(1, &self.key, buf);
        let value = self.value.get();
        let before = buf.len();
        put_bytes(2, &value, buf);
        let at = (!value.is_empty()).then(|| buf.len() - value.len());
        debug_assert!(at.is_none_or(|a| a > before));
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
        at
    }
}

/// A stored `KvRecord` read in place: its key and value are slices of the
/// encoding, so a value can stay where the file holds it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Stored<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The value (empty for a deletion).
    pub value: &'a [u8],
    /// Its counters and flags (its key and value left empty).
    pub rest: Record,
}

/// Reads a `KvRecord`'s encoding as prost's `decode` would (the last of a
/// repeated field wins; unknown fields are skipped), without copying its
/// key or value. The error says what is wrong.
pub fn parse(mut buf: &[u8]) -> Result<Stored<'_>, String> {
    let bad = |e: prost::DecodeError| e.to_string();
    let mut out = Stored::default();
    while !buf.is_empty() {
        let (tag, wire) = encoding::decode_key(&mut buf).map_err(bad)?;
        let want = match tag {
            1 | 2 => WireType::LengthDelimited,
            3..=8 => WireType::Varint,
            _ => {
                encoding::skip_field(wire, tag, &mut buf, encoding::DecodeContext::default())
                    .map_err(bad)?;
                continue;
            }
        };
        if wire != want {
            return Err(format!(
                "KvRecord field {tag}: wire type {wire:?}, expected {want:?}"
            ));
        }
        if want == WireType::LengthDelimited {
            let len = encoding::decode_varint(&mut buf).map_err(bad)?;
            let len = usize::try_from(len)
                .ok()
                .filter(|l| *l <= buf.len())
                .ok_or_else(|| format!("KvRecord field {tag}: longer than the record"))?;
            let (field, rest) = buf.split_at(len);
            buf = rest;
            if tag == 1 {
                out.key = field;
            } else {
                out.value = field;
            }
            continue;
        }
        let v = encoding::decode_varint(&mut buf).map_err(bad)?;
        match tag {
            3 => out.rest.create_revision = v as i64,
            4 => out.rest.mod_revision = v as i64,
            5 => out.rest.version = v as i64,
            6 => out.rest.lease = v as i64,
            7 => out.rest.sub = v as u32,
            _ => out.rest.tombstone = v != 0,
        }
    }
    Ok(out)
}

impl Record {
    /// The record `stored` holds with `key` (its own key, shared) and
    /// `value` (its value, wherever it is kept).
    pub fn from_parsed(stored: Stored<'_>, key: Key, value: Value) -> Record {
        debug_assert_eq!(*key, *stored.key);
        Record {
            key,
            value,
            ..stored.rest
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
    use crate::proto::memberctl_store_v1 as spb;
    use prost::Message as _;
    use std::sync::Arc;

    fn stored(r: &Record) -> spb::KvRecord {
        spb::KvRecord {
            key: r.key.to_vec(),
            value: r.value.to_vec(),
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
            value: Value::from(vec![7; 300]),
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
            let mut mine = vec![1, 2, 3];
            let at = r.encode_raw(&mut mine);
            let mine = mine.split_off(3);
            assert_eq!(mine, stored(&r).encode_to_vec(), "{r:?}");
            assert_eq!(r.encoded_len(), mine.len());
            let value = r.value.to_vec();
            match at {
                Some(at) => assert_eq!(&mine[at - 3..at - 3 + value.len()], &value[..]),
                None => assert!(value.is_empty()),
            }
            assert_eq!(spb::KvRecord::decode(mine.as_slice()).unwrap(), stored(&r));
            let parsed = parse(&mine).unwrap();
            let value = Value::new(parsed.value);
            let again = Record::from_parsed(parsed, r.key.clone(), value);
            assert_eq!(again, r);
        }
    }

    #[test]
    fn parsing_reads_what_prost_reads_and_refuses_what_it_refuses() {
        // Fields out of order, a repeated field (the last wins), an unknown one.
        let mut buf = Vec::new();
        encoding::int64::encode(4, &9, &mut buf);
        encoding::bytes::encode(2, &b"old".to_vec(), &mut buf);
        encoding::string::encode(99, &"extra".to_string(), &mut buf);
        encoding::bytes::encode(1, &b"key".to_vec(), &mut buf);
        encoding::bytes::encode(2, &b"new".to_vec(), &mut buf);
        encoding::bool::encode(8, &true, &mut buf);
        let theirs = spb::KvRecord::decode(buf.as_slice()).unwrap();
        let mine = parse(&buf).unwrap();
        assert_eq!(mine.key, &theirs.key[..]);
        assert_eq!(mine.value, &theirs.value[..]);
        assert_eq!((mine.rest.mod_revision, mine.rest.tombstone), (9, true));
        // A value longer than what is left, and a key sent as a number.
        for bad in [vec![0x12, 0x05, b'a'], vec![0x08, 0x01]] {
            assert!(spb::KvRecord::decode(bad.as_slice()).is_err());
            assert!(parse(&bad).is_err(), "{bad:?}");
        }
    }
}
