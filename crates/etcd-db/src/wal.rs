//! etcd's write-ahead log (`member/wal/*.wal`) read, and the judgement of whether it is what `etcdctl`/`etcdutl snapshot restore` writes and nothing more: a member's identity, the members as configuration changes at term 1, committed, and no entry a cluster ever added.
//!
//! A record is framed by a little-endian u64: its length in the low 56 bits
//! and, with the top bit set, the zero padding that aligns it to 8 bytes in
//! bits 56–58; a zero length ends the log (etcd preallocates its files with
//! zeros). The record (`walpb.Record`: type, CRC, data) carries a CRC-32C
//! chained over every record's data since the file's CRC record.

use std::path::Path;

use prost::Message;

use super::Crc32c;

/// `etcdserverpb.Metadata`: who wrote the log.
#[derive(Clone, PartialEq, Message)]
struct Metadata {
    #[prost(uint64, tag = "1")]
    node_id: u64,
    #[prost(uint64, tag = "2")]
    cluster_id: u64,
}

/// `walpb.Record`.
#[derive(Clone, PartialEq, Message)]
struct Record {
    #[prost(int64, tag = "1")]
    kind: i64,
    #[prost(uint32, tag = "2")]
    crc: u32,
    #[prost(bytes = "vec", tag = "3")]
    data: Vec<u8>,
}

/// `raftpb.Entry`.
#[derive(Clone, PartialEq, Message)]
struct Entry {
    #[prost(int32, tag = "1")]
    kind: i32,
    #[prost(uint64, tag = "2")]
    term: u64,
    #[prost(uint64, tag = "3")]
    index: u64,
    #[prost(bytes = "vec", tag = "4")]
    data: Vec<u8>,
}

/// `raftpb.ConfChange`.
#[derive(Clone, PartialEq, Message)]
struct ConfChange {
    #[prost(int32, tag = "2")]
    kind: i32,
    #[prost(uint64, tag = "3")]
    node_id: u64,
    #[prost(bytes = "vec", tag = "4")]
    context: Vec<u8>,
}

/// `raftpb.HardState`.
#[derive(Clone, PartialEq, Message)]
struct HardState {
    #[prost(uint64, tag = "1")]
    term: u64,
    #[prost(uint64, tag = "2")]
    vote: u64,
    #[prost(uint64, tag = "3")]
    commit: u64,
}

const METADATA: i64 = 1;
const ENTRY: i64 = 2;
const STATE: i64 = 3;
const CRC: i64 = 4;
const SNAPSHOT: i64 = 5;
/// `raftpb.EntryConfChange`.
const ENTRY_CONF_CHANGE: i32 = 1;
/// `raftpb.ConfChangeAddNode`.
const ADD_NODE: i32 = 0;

/// A member as a restore records it (the configuration change's context).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct RestoredMember {
    /// Its ID.
    pub id: u64,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its peer URLs.
    #[serde(rename = "peerURLs", default)]
    pub peer_urls: Vec<String>,
}

/// What a freshly restored log says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// This member's ID.
    pub member_id: u64,
    /// The cluster's ID.
    pub cluster_id: u64,
    /// The members, in the log's order.
    pub members: Vec<RestoredMember>,
}

/// The records of one WAL file's bytes, their CRC chain checked.
fn records(bytes: &[u8], name: &str, crc: &mut Option<u32>) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let field = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        if field == 0 {
            break;
        }
        let len = (field & 0x00ff_ffff_ffff_ffff) as usize;
        let pad = if field >> 63 == 1 {
            ((field >> 56) & 0x7) as usize
        } else {
            0
        };
        let start = at + 8;
        let end = start
            .checked_add(len)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| format!("{name}: a record at byte {at} runs past the file's end"))?;
        let rec = Record::decode(&bytes[start..end])
            .map_err(|e| format!("{name}: the record at byte {at} is not etcd's: {e}"))?;
        match rec.kind {
            CRC => {
                if let Some(prev) = *crc {
                    if prev != rec.crc {
                        return Err(format!("{name}: the CRC chain breaks at byte {at}"));
                    }
                }
                *crc = Some(rec.crc);
            }
            _ => {
                let mut c = Crc32c::resume(crc.unwrap_or(0));
                c.update(&rec.data);
                if c.finish() != rec.crc {
                    return Err(format!("{name}: the record at byte {at} fails its CRC"));
                }
                *crc = Some(rec.crc);
            }
        }
        out.push(rec);
        at = end + pad;
    }
    Ok(out)
}

/// Reads the WAL in `dir` (its `.wal` files in name order) and judges
/// whether a snapshot restore wrote it and nothing has been added since;
/// else why not, in words.
pub fn read_restored(dir: &Path) -> Result<Restored, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wal"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{} holds no .wal file", dir.display()));
    }
    let mut crc = None;
    let mut all = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        all.extend(records(&bytes, &f.display().to_string(), &mut crc)?);
    }
    judge(&all)
}

/// Whether `records` are a restore's and nothing more.
fn judge(records: &[Record]) -> Result<Restored, String> {
    let mut meta = None;
    let mut members = Vec::new();
    let mut state = HardState::default();
    for r in records {
        match r.kind {
            METADATA => meta = Some(Metadata::decode(&r.data[..]).map_err(|e| e.to_string())?),
            STATE => state = HardState::decode(&r.data[..]).map_err(|e| e.to_string())?,
            ENTRY => {
                let entry = Entry::decode(&r.data[..]).map_err(|e| e.to_string())?;
                let e = &entry;
                if e.term > 1 || e.kind != ENTRY_CONF_CHANGE {
                    return Err(format!(
                        "its log holds entry {} of term {}, which a cluster wrote after the \
                         restore",
                        e.index, e.term
                    ));
                }
                let cc = ConfChange::decode(&e.data[..]).map_err(|e| e.to_string())?;
                if cc.kind != ADD_NODE {
                    return Err(format!(
                        "its log's entry {} changes the membership otherwise than a restore",
                        e.index
                    ));
                }
                let m: RestoredMember = serde_json::from_slice(&cc.context)
                    .map_err(|why| format!("entry {}'s member is not etcd's: {why}", e.index))?;
                if m.id != cc.node_id {
                    return Err(format!("entry {} names two member IDs", e.index));
                }
                members.push(m);
            }
            CRC | SNAPSHOT => {}
            other => return Err(format!("its log holds a record of unknown type {other}")),
        }
    }
    let meta = meta.ok_or("its log has no metadata record (member and cluster IDs)")?;
    if state.term > 1 || state.commit != members.len() as u64 {
        return Err(format!(
            "its log's state (term {}, commit {}) is not a restore's of {} members",
            state.term,
            state.commit,
            members.len()
        ));
    }
    if !members.iter().any(|m| m.id == meta.node_id) {
        return Err("its member ID is none of the members its log adds".into());
    }
    Ok(Restored {
        member_id: meta.node_id,
        cluster_id: meta.cluster_id,
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL file of `records`, framed and chained as etcd writes it.
    fn wal(records: &[(i64, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut crc = 0u32;
        let mut all = vec![(CRC, Vec::new())];
        all.extend(records.iter().cloned());
        for (kind, data) in all {
            if kind != CRC {
                let mut c = Crc32c::resume(crc);
                c.update(&data);
                crc = c.finish();
            }
            let rec = Record { kind, crc, data }.encode_to_vec();
            let pad = (8 - rec.len() % 8) % 8;
            let mut field = rec.len() as u64;
            if pad != 0 {
                field |= (0x80 | pad as u64) << 56;
            }
            out.extend(field.to_le_bytes());
            out.extend(&rec);
            out.extend(vec![0; pad]);
        }
        out.extend(vec![0; 64]);
        out
    }

    fn member_entry(index: u64, term: u64, id: u64, name: &str) -> (i64, Vec<u8>) {
        let context =
            format!(r#"{{"id":{id},"peerURLs":["http://127.0.0.1:{index}"],"name":"{name}"}}"#);
        let cc = ConfChange {
            kind: ADD_NODE,
            node_id: id,
            context: context.into_bytes(),
        };
        let e = Entry {
            kind: ENTRY_CONF_CHANGE,
            term,
            index,
            data: cc.encode_to_vec(),
        };
        (ENTRY, e.encode_to_vec())
    }

    fn restore_of(members: u64, term: u64) -> Vec<(i64, Vec<u8>)> {
        let mut r = vec![(
            METADATA,
            Metadata {
                node_id: 11,
                cluster_id: 99,
            }
            .encode_to_vec(),
        )];
        for i in 1..=members {
            r.push(member_entry(i, 1, 10 + i, &format!("m{i}")));
        }
        let hs = HardState {
            term,
            vote: 0,
            commit: members,
        };
        r.push((STATE, hs.encode_to_vec()));
        r
    }

    fn read(bytes: &[u8]) -> Result<Restored, String> {
        let mut crc = None;
        judge(&records(bytes, "w", &mut crc)?)
    }

    #[test]
    fn a_restores_log_is_read_and_anything_more_refused() {
        let r = read(&wal(&restore_of(3, 1))).unwrap();
        assert_eq!((r.member_id, r.cluster_id), (11, 99));
        assert_eq!(r.members.len(), 3);
        assert_eq!(r.members[2].name, "m3");
        assert_eq!(r.members[0].peer_urls, ["http://127.0.0.1:1"]);
        // A term past the restore's, or a normal entry: a cluster ran on it.
        assert!(read(&wal(&restore_of(3, 2)))
            .unwrap_err()
            .contains("term 2"));
        let mut ran = restore_of(3, 1);
        ran.push((
            ENTRY,
            Entry {
                kind: 0,
                term: 2,
                index: 4,
                data: vec![],
            }
            .encode_to_vec(),
        ));
        assert!(read(&wal(&ran)).unwrap_err().contains("after the restore"));
        // A damaged record fails its CRC.
        let mut bytes = wal(&restore_of(1, 1));
        let last = bytes.iter().rposition(|b| *b != 0).unwrap();
        bytes[last] ^= 0xff;
        assert!(read(&bytes).is_err());
    }
}
