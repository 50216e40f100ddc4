//! What the raft loop hands to the transport: encoded messages, each
//! snapshot with the source its keys are read from, and the members' peer URLs.

use protobuf::Message as _;
use raft::eraftpb::{Message, MessageType};

use crate::proto::memberctl_store_v1 as spb;
use crate::storage::SnapshotSource;
use crate::storage::Store;

/// A raft message on its way to a peer, encoded.
pub struct Outgoing {
    /// The peer.
    pub to: u64,
    /// The encoded raft message.
    pub bytes: Vec<u8>,
    /// For a snapshot: where its keys are read from as they are sent (its
    /// outcome must be reported).
    pub snapshot: Option<SnapshotSource>,
    /// Whether it is a leader's heartbeat (one that cannot be sent counts in
    /// etcd_server_heartbeat_send_failures_total).
    pub heartbeat: bool,
}

/// Where the driver sends messages and announces the members' peer URLs (the transport).
pub trait Outbox: Send + Sync + 'static {
    /// Sends messages; never blocks.
    fn send(&self, messages: Vec<Outgoing>);
    /// The members and their peer URLs changed.
    fn peers(&self, peers: Vec<(u64, Vec<String>)>);
}

/// Encodes raft's messages for the transport; a snapshot message gets the
/// source of the snapshot prepared for it. Returns the messages and the
/// peers whose snapshot is not the one prepared (raft is told it failed, and
/// asks for another).
pub fn encode(store: &Store, messages: Vec<Message>) -> (Vec<Outgoing>, Vec<u64>) {
    let mut failed = Vec::new();
    let out = messages
        .into_iter()
        .filter_map(|m| {
            let snapshot = if m.get_msg_type() == MessageType::MsgSnapshot {
                let md = m.get_snapshot().get_metadata();
                match store.snapshot_source(md.index, md.term) {
                    Some(source) => Some(source),
                    None => {
                        failed.push(m.to);
                        return None;
                    }
                }
            } else {
                None
            };
            let heartbeat = m.get_msg_type() == MessageType::MsgHeartbeat;
            m.write_to_bytes().ok().map(|bytes| Outgoing {
                to: m.to,
                bytes,
                snapshot,
                heartbeat,
            })
        })
        .collect();
    (out, failed)
}

/// The members and their peer URLs, for the transport.
pub fn peer_list(members: &[spb::MemberMeta]) -> Vec<(u64, Vec<String>)> {
    members
        .iter()
        .map(|m| (m.id, m.peer_urls.clone()))
        .collect()
}
