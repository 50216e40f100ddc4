//! Outbound raft traffic: one bounded queue and one sender task per peer,
//! batching messages over gRPC; failures are reported to raft (unreachable,
//! snapshot failed) so it backs off and retries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::mpsc;
use tonic::transport::{Channel, Endpoint};

use crate::node::{Node, Outbox, Outgoing};
use crate::proto::memberctl_v1::raft_client::RaftClient;
use crate::proto::memberctl_v1::RaftBatch;

/// Messages queued per peer before new ones are dropped (raft resends).
const QUEUE: usize = 1024;
/// Messages sent in one request at most.
const BATCH: usize = 64;
/// Time to connect to a peer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Time one batch may take (snapshots can be large).
const SEND_TIMEOUT: Duration = Duration::from_secs(60);
/// Largest message accepted or sent (a snapshot of the whole state).
pub const MAX_MESSAGE: usize = 1 << 30;

struct Peer {
    urls: Vec<String>,
    queue: mpsc::Sender<Outgoing>,
}

/// The node's outbound connections.
pub struct Transport {
    node: Arc<OnceLock<Node>>,
    peers: Mutex<HashMap<u64, Peer>>,
    me: u64,
    tls: Option<tonic::transport::ClientTlsConfig>,
    /// The runtime the senders run on (the raft driver has its own thread).
    runtime: tokio::runtime::Handle,
}

impl Transport {
    /// A transport for member `me` (dialling https peers with `tls`), its
    /// senders on the current runtime; connect it to its node with
    /// [`Transport::attach`].
    pub fn new(me: u64, tls: Option<tonic::transport::ClientTlsConfig>) -> Self {
        Transport {
            node: Arc::new(OnceLock::new()),
            peers: Mutex::new(HashMap::new()),
            me,
            tls,
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// Gives the transport the node it reports failures to.
    pub fn attach(&self, node: Node) {
        let _ = self.node.set(node);
    }

    fn report(&self, m: &Outgoing) {
        if let Some(node) = self.node.get() {
            node.report_unreachable(m.to);
            if m.snapshot {
                node.report_snapshot(m.to, false);
            }
        }
    }
}

impl Outbox for Transport {
    fn send(&self, messages: Vec<Outgoing>) {
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        for m in messages {
            match peers.get(&m.to) {
                Some(p) => {
                    if let Err(e) = p.queue.try_send(m) {
                        let m = match e {
                            mpsc::error::TrySendError::Full(m)
                            | mpsc::error::TrySendError::Closed(m) => m,
                        };
                        self.report(&m);
                    }
                }
                None => self.report(&m),
            }
        }
    }

    fn peers(&self, list: Vec<(u64, Vec<String>)>) {
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.retain(|id, _| list.iter().any(|(i, _)| i == id));
        for (id, urls) in list {
            if id == self.me || urls.is_empty() {
                continue;
            }
            if peers.get(&id).is_some_and(|p| p.urls == urls) {
                continue;
            }
            let (tx, rx) = mpsc::channel(QUEUE);
            let node = self.node.clone();
            self.runtime
                .spawn(peer_task(urls.clone(), rx, node, self.tls.clone()));
            peers.insert(id, Peer { urls, queue: tx });
        }
    }
}

async fn connect(
    url: &str,
    tls: Option<&tonic::transport::ClientTlsConfig>,
) -> Option<RaftClient<Channel>> {
    let mut ep = Endpoint::from_shared(url.to_string())
        .ok()?
        .connect_timeout(CONNECT_TIMEOUT)
        .initial_stream_window_size(crate::server::PEER_STREAM_WINDOW)
        .initial_connection_window_size(crate::server::PEER_CONNECTION_WINDOW)
        .tcp_nodelay(true);
    if let Some(tls) = tls.filter(|_| url.starts_with("https://")) {
        ep = ep.tls_config(tls.clone()).ok()?;
    }
    let ch = tokio::time::timeout(CONNECT_TIMEOUT, ep.connect())
        .await
        .ok()?
        .ok()?;
    Some(
        RaftClient::new(ch)
            .max_encoding_message_size(MAX_MESSAGE)
            .max_decoding_message_size(MAX_MESSAGE),
    )
}

/// Sends one peer's messages in order until its queue closes (the peer was removed).
async fn peer_task(
    urls: Vec<String>,
    mut rx: mpsc::Receiver<Outgoing>,
    node: Arc<OnceLock<Node>>,
    tls: Option<tonic::transport::ClientTlsConfig>,
) {
    let mut client: Option<RaftClient<Channel>> = None;
    let mut url_index = 0;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        // Move the bodies into the request; keep who and what for the reports.
        let messages: Vec<Vec<u8>> = batch
            .iter_mut()
            .map(|m| std::mem::take(&mut m.bytes))
            .collect();
        if client.is_none() {
            client = connect(&urls[url_index % urls.len()], tls.as_ref()).await;
            url_index += 1;
        }
        let ok = match client.as_mut() {
            Some(c) => {
                let req = RaftBatch { messages };
                matches!(
                    tokio::time::timeout(SEND_TIMEOUT, c.send(req)).await,
                    Ok(Ok(_))
                )
            }
            None => false,
        };
        if !ok {
            client = None;
        }
        if let Some(node) = node.get() {
            for m in &batch {
                if !ok {
                    node.report_unreachable(m.to);
                }
                if m.snapshot {
                    node.report_snapshot(m.to, ok);
                }
            }
        }
    }
}
