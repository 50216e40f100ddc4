//! The history recorder of the robustness tests: sequential clients doing
//! put, linearizable get, delete and compare-and-swap on a few keys, each
//! operation recorded with its call and return times (one monotonic clock),
//! its answer and revisions, for the linearizability checker.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use memberctl::history::{Operation, Request, Response};
use memberctl::proto::etcdserverpb as epb;
use memberctl::proto::etcdserverpb::kv_client::KvClient;
use rand::{Rng, SeedableRng};
use tonic::transport::Channel;

use super::local::channel;

/// How long one request may take before it counts as unanswered.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// The prefix of the recorded keys.
pub const KEY_PREFIX: &str = "lin/";

/// Sequential clients recording a history until stopped.
pub struct Recorder {
    stop: Arc<AtomicBool>,
    ops: Arc<Mutex<Vec<Operation>>>,
    endpoints: Arc<Mutex<Vec<String>>>,
    common: Arc<Common>,
    runtime: Option<tokio::runtime::Runtime>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// What every client shares.
struct Common {
    start: Instant,
    stop: Arc<AtomicBool>,
    ops: Arc<Mutex<Vec<Operation>>>,
    endpoints: Arc<Mutex<Vec<String>>>,
    next_id: AtomicU64,
    keys: usize,
    /// The prefix of this recorder's keys.
    prefix: String,
    /// The pause between two operations of one client.
    pace: Duration,
}

impl Recorder {
    /// Starts `clients` clients on `keys` keys, client `i` first on endpoint
    /// `i mod n`, their choices drawn from `seed`.
    pub fn start(endpoints: Vec<String>, clients: usize, keys: usize, seed: u64) -> Recorder {
        Self::start_paced(endpoints, clients, keys, seed, KEY_PREFIX, Duration::ZERO)
    }

    /// [`Recorder::start`] on keys under `prefix` (a history of their own,
    /// from empty keys), each client pausing `pace` between two operations
    /// (a light load for long runs).
    pub fn start_paced(
        endpoints: Vec<String>,
        clients: usize,
        keys: usize,
        seed: u64,
        prefix: &str,
        pace: Duration,
    ) -> Recorder {
        assert!(!endpoints.is_empty(), "the recorder needs an endpoint");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("recorder runtime");
        let stop = Arc::new(AtomicBool::new(false));
        let ops = Arc::new(Mutex::new(Vec::new()));
        let endpoints = Arc::new(Mutex::new(endpoints));
        let common = Arc::new(Common {
            start: Instant::now(),
            stop: stop.clone(),
            ops: ops.clone(),
            endpoints: endpoints.clone(),
            next_id: AtomicU64::new(clients as u64),
            keys: keys.max(1),
            prefix: prefix.to_string(),
            pace,
        });
        let tasks = (0..clients)
            .map(|i| {
                let common = common.clone();
                let rng = rand::rngs::StdRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9e37));
                runtime.spawn(client(common, i as u64, i, rng))
            })
            .collect();
        Recorder {
            stop,
            ops,
            endpoints,
            common,
            runtime: Some(runtime),
            tasks,
        }
    }

    /// Operations recorded so far (answered or not).
    pub fn count(&self) -> usize {
        self.ops.lock().unwrap().len()
    }

    /// Waits (at most `limit`) until `more` further operations have been
    /// recorded; false when they were not.
    pub fn wait_for_more(&self, more: usize, limit: Duration) -> bool {
        let target = self.count() + more;
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.count() >= target {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// Answered operations recorded so far.
    pub fn answered(&self) -> usize {
        let ops = self.ops.lock().unwrap();
        ops.iter().filter(|o| o.ret.is_some()).count()
    }

    /// Does one operation on key `k` at `endpoint` as a client of its own,
    /// records it in the history like the others' and returns its answer (a
    /// put's value is made unique here).
    pub fn one(&self, endpoint: &str, k: usize, request: Request) -> Response {
        let common = self.common.clone();
        let id = common.next_id.fetch_add(1, Ordering::SeqCst);
        let key = format!("{}k{}", common.prefix, k % common.keys);
        let request = match request {
            Request::Put { .. } => Request::Put {
                value: format!("o{id}"),
            },
            other => other,
        };
        let rt = self.runtime.as_ref().expect("the recorder runs");
        rt.block_on(async {
            let call = now(&common);
            let response = match connect(endpoint).await {
                None => Response::Failed {
                    error: format!("cannot connect to {endpoint}"),
                },
                Some(mut c) => answer(&mut c, &key, &request).await,
            };
            record(&common, id, call, key, request, response.clone());
            response
        })
    }

    /// Replaces the endpoints clients move to after a failure (after a
    /// membership change).
    pub fn set_endpoints(&self, endpoints: Vec<String>) {
        *self.endpoints.lock().unwrap() = endpoints;
    }

    /// Stops the clients (an operation under way is recorded as it ends, at
    /// most [`REQUEST_TIMEOUT`] later) and returns the history.
    pub fn stop(mut self) -> Vec<Operation> {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(rt) = self.runtime.take() {
            for t in std::mem::take(&mut self.tasks) {
                let _ = rt.block_on(async {
                    tokio::time::timeout(REQUEST_TIMEOUT + Duration::from_secs(3), t).await
                });
            }
            rt.shutdown_timeout(Duration::from_secs(1));
        }
        let mut ops = std::mem::take(&mut *self.ops.lock().unwrap());
        ops.sort_by_key(|o| o.call);
        ops
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

fn now(common: &Common) -> u64 {
    common.start.elapsed().as_nanos() as u64
}

async fn connect(endpoint: &str) -> Option<KvClient<Channel>> {
    channel(endpoint).await.ok().map(KvClient::new)
}

/// One sequential client: a failed operation ends its identity; it goes on
/// as a new client on the next endpoint.
async fn client(common: Arc<Common>, mut id: u64, mut at: usize, mut rng: rand::rngs::StdRng) {
    let mut seq = 0u64;
    // What this client last saw of each key: the expectation of its CAS.
    let mut seen: Vec<Option<String>> = vec![None; common.keys];
    let mut kv: Option<KvClient<Channel>> = None;
    while !common.stop.load(Ordering::SeqCst) {
        if kv.is_none() {
            let endpoint = {
                let eps = common.endpoints.lock().unwrap();
                eps[at % eps.len()].clone()
            };
            kv = connect(&endpoint).await;
            if kv.is_none() {
                at += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        }
        let Some(c) = kv.as_mut() else { continue };
        let k = rng.gen_range(0..common.keys);
        let key = format!("{}k{k}", common.prefix);
        seq += 1;
        let value = format!("c{id}-{seq}");
        let request = match rng.gen_range(0..100) {
            0..=34 => Request::Put { value },
            35..=69 => Request::Get,
            70..=79 => Request::Delete,
            _ => Request::Cas {
                expect: seen[k].clone(),
                value,
            },
        };
        let call = now(&common);
        let response = answer(c, &key, &request).await;
        let failed = matches!(response, Response::Failed { .. });
        match (&request, &response) {
            (Request::Put { value }, Response::Put { .. }) => seen[k] = Some(value.clone()),
            (Request::Get, Response::Get { value, .. }) => seen[k] = value.clone(),
            (Request::Delete, Response::Delete { .. }) => seen[k] = None,
            (
                Request::Cas { value, .. },
                Response::Cas {
                    succeeded,
                    value: v,
                    ..
                },
            ) => {
                seen[k] = if *succeeded {
                    Some(value.clone())
                } else {
                    v.clone()
                }
            }
            _ => {}
        }
        record(&common, id, call, key, request, response);
        if !common.pace.is_zero() {
            tokio::time::sleep(common.pace).await;
        }
        if failed {
            id = common.next_id.fetch_add(1, Ordering::SeqCst);
            at += 1;
            kv = None;
        }
    }
}

/// `request` on `key`, its answer within [`REQUEST_TIMEOUT`] (a failure
/// otherwise).
async fn answer(c: &mut KvClient<Channel>, key: &str, request: &Request) -> Response {
    match tokio::time::timeout(REQUEST_TIMEOUT, send(c, key, request)).await {
        Ok(Ok(r)) => r,
        Ok(Err(status)) => Response::Failed {
            error: status.message().to_string(),
        },
        Err(_) => Response::Failed {
            error: "timed out".into(),
        },
    }
}

/// Adds an operation called at `call` to the history; it returned now
/// unless it failed.
fn record(
    common: &Common,
    client: u64,
    call: u64,
    key: String,
    request: Request,
    response: Response,
) {
    let ret = (!matches!(response, Response::Failed { .. })).then(|| now(common));
    common.ops.lock().unwrap().push(Operation {
        client,
        call,
        ret,
        key,
        request,
        response,
    });
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Sends one operation; its answer in the history's terms.
async fn send(
    c: &mut KvClient<Channel>,
    key: &str,
    request: &Request,
) -> Result<Response, tonic::Status> {
    let header_rev = |h: Option<epb::ResponseHeader>| h.map_or(0, |h| h.revision);
    Ok(match request {
        Request::Put { value } => {
            let r = c
                .put(epb::PutRequest {
                    key: key.into(),
                    value: value.clone().into_bytes(),
                    ..Default::default()
                })
                .await?
                .into_inner();
            Response::Put {
                revision: header_rev(r.header),
            }
        }
        Request::Get => {
            let r = c
                .range(epb::RangeRequest {
                    key: key.into(),
                    ..Default::default()
                })
                .await?
                .into_inner();
            let kv = r.kvs.first();
            Response::Get {
                value: kv.map(|kv| text(&kv.value)),
                mod_revision: kv.map_or(0, |kv| kv.mod_revision),
                revision: header_rev(r.header),
            }
        }
        Request::Delete => {
            let r = c
                .delete_range(epb::DeleteRangeRequest {
                    key: key.into(),
                    ..Default::default()
                })
                .await?
                .into_inner();
            Response::Delete {
                deleted: r.deleted,
                revision: header_rev(r.header),
            }
        }
        Request::Cas { expect, value } => {
            use epb::compare::{CompareResult, CompareTarget, TargetUnion};
            let compare = match expect {
                Some(v) => epb::Compare {
                    result: CompareResult::Equal as i32,
                    target: CompareTarget::Value as i32,
                    key: key.into(),
                    target_union: Some(TargetUnion::Value(v.clone().into_bytes())),
                    ..Default::default()
                },
                None => epb::Compare {
                    result: CompareResult::Equal as i32,
                    target: CompareTarget::Version as i32,
                    key: key.into(),
                    target_union: Some(TargetUnion::Version(0)),
                    ..Default::default()
                },
            };
            let put = epb::RequestOp {
                request: Some(epb::request_op::Request::RequestPut(epb::PutRequest {
                    key: key.into(),
                    value: value.clone().into_bytes(),
                    ..Default::default()
                })),
            };
            let get = epb::RequestOp {
                request: Some(epb::request_op::Request::RequestRange(epb::RangeRequest {
                    key: key.into(),
                    ..Default::default()
                })),
            };
            let r = c
                .txn(epb::TxnRequest {
                    compare: vec![compare],
                    success: vec![put],
                    failure: vec![get],
                })
                .await?
                .into_inner();
            let read = r.responses.first().and_then(|op| match &op.response {
                Some(epb::response_op::Response::ResponseRange(rr)) => rr.kvs.first().cloned(),
                _ => None,
            });
            Response::Cas {
                succeeded: r.succeeded,
                value: read.as_ref().map(|kv| text(&kv.value)),
                mod_revision: read.as_ref().map_or(0, |kv| kv.mod_revision),
                revision: header_rev(r.header),
            }
        }
    })
}
