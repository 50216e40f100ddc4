//! etcd's Watch service: many watches per stream, each replaying history
//! from its start revision and then following the applied changes. A watch
//! that falls behind (a slow client, a snapshot installed, a missed batch)
//! reads what it missed from the store's history, so events are never lost,
//! repeated or reordered, and writers never wait for watchers.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tonic::{Request, Response, Status, Streaming};

use super::access::{Caller, Need};
use super::{convert, Shared};
use crate::node::EventBatch;
use crate::proto::etcdserverpb as epb;
use crate::proto::etcdserverpb::watch_server::Watch;
use crate::storage::{bounds, Change, Refusal};
use tokio_stream::wrappers::ReceiverStream;

/// The etcd-compatible Watch service.
pub struct WatchService(pub Arc<Shared>);

type WatchStream = Pin<Box<dyn Stream<Item = Result<epb::WatchResponse, Status>> + Send>>;

/// Responses queued per stream before its watches wait (etcd: 128).
const STREAM_QUEUE: usize = 128;
/// Changes read from history at a time while a watch catches up.
const CATCH_UP_PAGE: usize = 1000;
/// How often a watch that asked for progress notifications gets one when
/// idle (etcd: 10 minutes), unless `--watch-progress-notify-interval` says.
const PROGRESS_NOTIFY: Duration = Duration::from_secs(600);
/// etcd's cancel reason for a watch ID already used on the stream.
const DUPLICATE_ID: &str = "mvcc: duplicate watch ID provided on the WatchStream";
/// etcd's cancel reason for a range whose end is not above its key.
const EMPTY_RANGE: &str = "mvcc: watcher range is empty";

/// The progress interval when `--watch-progress-notify-interval` is not
/// given: etcd's 10 minutes, or `MEMBERCTL_WATCH_PROGRESS_NOTIFY_INTERVAL`
/// (humantime, e.g. `500ms`) where the tests' command lines cannot add the flag.
pub fn progress_default() -> Duration {
    std::env::var("MEMBERCTL_WATCH_PROGRESS_NOTIFY_INTERVAL")
        .ok()
        .and_then(|v| humantime::parse_duration(&v).ok())
        .unwrap_or(PROGRESS_NOTIFY)
}

/// What one watch selects.
struct Spec {
    id: i64,
    key: Vec<u8>,
    range_end: Vec<u8>,
    prev_kv: bool,
    no_put: bool,
    no_delete: bool,
    progress_notify: bool,
}

impl Spec {
    fn selects(&self, c: &Change) -> bool {
        use std::ops::RangeBounds;
        if (c.kv.tombstone && self.no_delete) || (!c.kv.tombstone && self.no_put) {
            return false;
        }
        RangeBounds::<&[u8]>::contains(&bounds(&self.key, &self.range_end), &&c.kv.key[..])
    }
}

/// A running watch: its task, and the revision up to which it has sent everything.
struct Running {
    task: JoinHandle<()>,
    synced: Arc<AtomicI64>,
}

type Out = mpsc::Sender<Result<epb::WatchResponse, Status>>;

/// Why a watch stopped sending.
enum End {
    /// The stream is gone.
    Closed,
    /// The history it needs was compacted at this revision.
    Compacted(i64),
    /// The node stopped or the store failed.
    Failed(Status),
}

struct Watcher {
    shared: Arc<Shared>,
    spec: Spec,
    out: Out,
    synced: Arc<AtomicI64>,
    /// Whether anything was sent since the last progress tick.
    sent: bool,
}

impl Watcher {
    /// Sends the changes above `after` that the watch selects, and records
    /// that everything up to `revision` was sent.
    async fn send(&mut self, changes: &[Change], after: i64, revision: i64) -> Result<(), End> {
        let events: Vec<_> = changes
            .iter()
            .filter(|c| c.revision() > after && self.spec.selects(c))
            .map(|c| convert::event(c, self.spec.prev_kv))
            .collect();
        if !events.is_empty() {
            let resp = epb::WatchResponse {
                header: self.shared.header(revision),
                watch_id: self.spec.id,
                events,
                ..Default::default()
            };
            self.out.send(Ok(resp)).await.map_err(|_| End::Closed)?;
            self.sent = true;
        }
        self.synced.store(revision, Ordering::Release);
        Ok(())
    }

    /// Reads the history after `synced` up to the store's revision.
    async fn catch_up(&mut self) -> Result<(), End> {
        loop {
            let from = self.synced.load(Ordering::Acquire) + 1;
            let store = self.shared.node.store().clone();
            let prev = self.spec.prev_kv;
            let read = tokio::task::spawn_blocking(move || -> Result<_, String> {
                match store.state().changes_since(from, CATCH_UP_PAGE, prev) {
                    Ok(found) => Ok(Ok(found)),
                    Err(Refusal::Compacted) => Ok(Err(store.state().revisions().1)),
                    Err(other) => Err(other.to_string()),
                }
            })
            .await
            .map_err(|e| End::Failed(Status::internal(e.to_string())))?;
            let (changes, upto) = match read {
                Ok(Ok(found)) => found,
                Ok(Err(compacted)) => return Err(End::Compacted(compacted)),
                Err(e) => return Err(End::Failed(Status::internal(format!("etcdserver: {e}")))),
            };
            let full = changes.len() >= CATCH_UP_PAGE;
            let upto = upto.max(from - 1);
            self.send(&changes, from - 1, upto).await?;
            if !full {
                return Ok(());
            }
        }
    }

    /// Follows the applied batches; returns when it must read history again.
    async fn follow(&mut self, sub: &mut broadcast::Receiver<Arc<EventBatch>>) -> Result<(), End> {
        let mut progress = tokio::time::interval(self.shared.node.config().watch_progress_notify);
        progress.tick().await;
        loop {
            let batch = tokio::select! {
                b = sub.recv() => b,
                _ = progress.tick(), if self.spec.progress_notify => {
                    if !self.sent {
                        let rev = self.synced.load(Ordering::Acquire);
                        let resp = epb::WatchResponse {
                            header: self.shared.header(rev),
                            watch_id: self.spec.id,
                            ..Default::default()
                        };
                        self.out.send(Ok(resp)).await.map_err(|_| End::Closed)?;
                    }
                    self.sent = false;
                    continue;
                }
            };
            let batch = match batch {
                Ok(b) => b,
                Err(broadcast::error::RecvError::Lagged(_)) => return Ok(()),
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(End::Failed(Status::unavailable(
                        "etcdserver: server stopped",
                    )))
                }
            };
            let synced = self.synced.load(Ordering::Acquire);
            if batch.after <= synced {
                continue;
            }
            if batch.before > synced {
                return Ok(());
            }
            self.send(&batch.changes, synced, batch.after).await?;
        }
    }

    async fn run(mut self) {
        let mut sub = self.shared.node.subscribe();
        let end = loop {
            if let Err(e) = self.catch_up().await {
                break e;
            }
            if let Err(e) = self.follow(&mut sub).await {
                break e;
            }
        };
        let last = match end {
            End::Closed => return,
            End::Compacted(rev) => Ok(epb::WatchResponse {
                header: self.shared.header(0),
                watch_id: self.spec.id,
                canceled: true,
                compact_revision: rev,
                ..Default::default()
            }),
            End::Failed(status) => Err(status),
        };
        let _ = self.out.send(last).await;
    }
}

/// One client stream and its watches.
struct StreamState {
    shared: Arc<Shared>,
    /// Who opened the stream: each watch needs read permission on its range.
    caller: Caller,
    out: Out,
    watches: HashMap<i64, Running>,
    next_id: i64,
}

impl StreamState {
    async fn reply(&self, resp: epb::WatchResponse) -> bool {
        self.out.send(Ok(resp)).await.is_ok()
    }

    async fn create(&mut self, c: epb::WatchCreateRequest) -> bool {
        use epb::watch_create_request::FilterType;
        self.watches.retain(|_, w| !w.task.is_finished());
        let current = self.shared.revision();
        let refuse = |reason: &str| epb::WatchResponse {
            header: self.shared.header(current),
            watch_id: -1,
            created: true,
            canceled: true,
            cancel_reason: reason.to_string(),
            ..Default::default()
        };
        let key = if c.key.is_empty() { vec![0] } else { c.key };
        if !c.range_end.is_empty() && c.range_end != [0] && key >= c.range_end {
            return self.reply(refuse(EMPTY_RANGE)).await;
        }
        // etcd cancels a watch the caller may not read, with the gRPC
        // error's text as the reason.
        if let Err(e) = self
            .caller
            .may(&self.shared, Need::Read, &key, &c.range_end)
        {
            let reason = format!("rpc error: code = {:?} desc = {}", e.code(), e.message());
            return self.reply(refuse(&reason)).await;
        }
        let id = if c.watch_id == 0 {
            while self.watches.contains_key(&self.next_id) {
                self.next_id += 1;
            }
            self.next_id += 1;
            self.next_id - 1
        } else if self.watches.contains_key(&c.watch_id) {
            return self.reply(refuse(DUPLICATE_ID)).await;
        } else {
            c.watch_id
        };
        let start = if c.start_revision <= 0 {
            current + 1
        } else {
            c.start_revision
        };
        let created = epb::WatchResponse {
            header: self.shared.header(current),
            watch_id: id,
            created: true,
            ..Default::default()
        };
        if !self.reply(created).await {
            return false;
        }
        let filter = |f: FilterType| c.filters.contains(&(f as i32));
        let synced = Arc::new(AtomicI64::new(start - 1));
        let watcher = Watcher {
            shared: self.shared.clone(),
            spec: Spec {
                id,
                key,
                range_end: c.range_end,
                prev_kv: c.prev_kv,
                no_put: filter(FilterType::Noput),
                no_delete: filter(FilterType::Nodelete),
                progress_notify: c.progress_notify,
            },
            out: self.out.clone(),
            synced: synced.clone(),
            sent: false,
        };
        let task = tokio::spawn(watcher.run());
        self.watches.insert(id, Running { task, synced });
        true
    }

    async fn cancel(&mut self, id: i64) -> bool {
        let Some(w) = self.watches.remove(&id) else {
            return true;
        };
        w.task.abort();
        let resp = epb::WatchResponse {
            header: self.shared.header(self.shared.revision()),
            watch_id: id,
            canceled: true,
            ..Default::default()
        };
        self.reply(resp).await
    }

    /// A progress request: the revision up to which every watch of the
    /// stream has sent everything (the current one when all are caught up).
    async fn progress(&mut self) -> bool {
        self.watches.retain(|_, w| !w.task.is_finished());
        let current = self.shared.revision();
        let rev = self
            .watches
            .values()
            .map(|w| w.synced.load(Ordering::Acquire))
            .min()
            .unwrap_or(current)
            .min(current);
        let resp = epb::WatchResponse {
            header: self.shared.header(rev),
            watch_id: -1,
            ..Default::default()
        };
        self.reply(resp).await
    }

    fn stop(&mut self) {
        for (_, w) in self.watches.drain() {
            w.task.abort();
        }
    }
}

/// Returns once the server stops.
pub async fn until_stopped(rx: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await.map(|_| ());
}

async fn serve_stream(
    shared: Arc<Shared>,
    caller: Caller,
    mut inbound: Streaming<epb::WatchRequest>,
    out: Out,
) {
    use epb::watch_request::RequestUnion;
    let mut stopping = shared.stopping.clone();
    let mut state = StreamState {
        shared,
        caller,
        out,
        watches: HashMap::new(),
        next_id: 0,
    };
    loop {
        let next = tokio::select! {
            n = inbound.next() => n,
            _ = state.out.closed() => break,
            _ = until_stopped(&mut stopping) => {
                let _ = state.out.send(Err(Status::unavailable("etcdserver: server stopped"))).await;
                break;
            }
        };
        let Some(Ok(req)) = next else {
            break;
        };
        let alive = match req.request_union {
            Some(RequestUnion::CreateRequest(c)) => state.create(c).await,
            Some(RequestUnion::CancelRequest(c)) => state.cancel(c.watch_id).await,
            Some(RequestUnion::ProgressRequest(_)) => state.progress().await,
            None => true,
        };
        if !alive {
            break;
        }
    }
    state.stop();
}

#[tonic::async_trait]
impl Watch for WatchService {
    type WatchStream = WatchStream;

    async fn watch(
        &self,
        req: Request<Streaming<epb::WatchRequest>>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let s = self.0.clone();
        // As etcd 3.4: a learner serves no stream.
        s.refuse_learner()?;
        s.require_leader(&req)?;
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let caller = s.caller(&req).await?;
        tokio::spawn(serve_stream(s, caller, req.into_inner(), tx));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}
