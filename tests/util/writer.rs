//! The one steady writer of the tests and benches (every put recorded: when,
//! how long, whether acknowledged), bulk loading, and the check that no
//! acknowledged put was lost.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tonic::transport::Channel;

use super::local::{channel, get_prefix, get_prefix_linearizable, runtime};
use super::wait_for;

/// One put of a [`SteadyWriter`].
#[derive(Clone, Debug)]
pub struct Sample {
    /// When it was issued.
    pub start: Instant,
    /// How long it took, in ms (up to the 10 s timeout).
    pub ms: f64,
    /// Whether it was acknowledged.
    pub ok: bool,
    /// The error, when it was not.
    pub error: Option<String>,
}

/// What a writer did: the puts acknowledged (key, value), the failed
/// attempts, and every attempt.
#[derive(Debug, Default)]
pub struct Written {
    pub acked: Vec<(String, String)>,
    pub failed: usize,
    pub samples: Vec<Sample>,
}

/// A writer that puts a new key on every attempt through `endpoints` in turn
/// (moving on after a failure) until stopped, and records which puts were
/// acknowledged. A failed put is not retried: it may or may not have been
/// applied, so only acknowledged ones are checked later.
pub struct SteadyWriter {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<(String, String)>>>,
    samples: Arc<Mutex<Vec<Sample>>>,
    failed: Arc<AtomicUsize>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl SteadyWriter {
    /// Starts writing keys `{prefix}{n:06}`, pausing `pace` after each acknowledged put.
    pub fn start(endpoints: Vec<String>, prefix: &str, pace: Duration) -> SteadyWriter {
        SteadyWriter::start_sized(endpoints, prefix, pace, 0)
    }

    /// As [`SteadyWriter::start`], each value padded to `value_bytes` bytes
    /// (`v{n}` then `x`s).
    pub fn start_sized(
        endpoints: Vec<String>,
        prefix: &str,
        pace: Duration,
        value_bytes: usize,
    ) -> SteadyWriter {
        assert!(!endpoints.is_empty(), "the writer needs an endpoint");
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(Vec::new()));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let failed = Arc::new(AtomicUsize::new(0));
        let (flag, out, record, fails, prefix) = (
            stop.clone(),
            acked.clone(),
            samples.clone(),
            failed.clone(),
            prefix.to_string(),
        );
        let handle = std::thread::spawn(move || {
            let mut ep = 0usize;
            let mut n = 0u64;
            // One connection per endpoint, dropped after a failure.
            let mut channels: Vec<Option<Channel>> = vec![None; endpoints.len()];
            while !flag.load(Ordering::Relaxed) {
                let key = format!("{prefix}{n:06}");
                let mut value = format!("v{n}");
                let pad = value_bytes.saturating_sub(value.len());
                value.push_str(&"x".repeat(pad));
                n += 1;
                let i = ep % endpoints.len();
                let start = Instant::now();
                let result = put_via(&mut channels[i], &endpoints[i], &key, &value);
                record.lock().unwrap().push(Sample {
                    start,
                    ms: start.elapsed().as_secs_f64() * 1000.0,
                    ok: result.is_ok(),
                    error: result.as_ref().err().cloned(),
                });
                match result {
                    Ok(()) => {
                        out.lock().unwrap().push((key, value));
                        std::thread::sleep(pace);
                    }
                    Err(_) => {
                        fails.fetch_add(1, Ordering::Relaxed);
                        ep += 1;
                        // Pacing while the cluster is unavailable, not synchronisation.
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        });
        SteadyWriter {
            stop,
            acked,
            samples,
            failed,
            handle: Some(handle),
        }
    }

    /// Puts acknowledged so far.
    pub fn acked(&self) -> usize {
        self.acked.lock().unwrap().len()
    }

    /// The puts acknowledged so far.
    pub fn snapshot(&self) -> Vec<(String, String)> {
        self.acked.lock().unwrap().clone()
    }

    /// Failed attempts so far.
    pub fn failed(&self) -> usize {
        self.failed.load(Ordering::Relaxed)
    }

    /// Waits until `more` puts beyond those acknowledged now are acknowledged:
    /// writes are going through.
    pub fn wait_for_more(&self, more: usize, limit: Duration) {
        let target = self.acked() + more;
        wait_for("more acknowledged writes", limit, || {
            (self.acked() >= target).then_some(())
        });
    }

    /// Waits (boundedly, 20 s) until at least `n` puts have been acknowledged in all.
    pub fn wait_for_writes(&self, n: usize) {
        wait_for("the writer's writes", Duration::from_secs(20), || {
            (self.acked() >= n).then_some(())
        });
    }

    /// Stops (after the put under way) and returns what was written.
    pub fn finish(mut self) -> Written {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.join().expect("the writer panicked");
        }
        Written {
            acked: std::mem::take(&mut self.acked.lock().unwrap()),
            failed: self.failed(),
            samples: std::mem::take(&mut self.samples.lock().unwrap()),
        }
    }
}

impl Drop for SteadyWriter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Puts `key` through `endpoint` on the connection in `cached` (made when
/// there is none, dropped when the put fails); Ok once acknowledged.
fn put_via(
    cached: &mut Option<Channel>,
    endpoint: &str,
    key: &str,
    value: &str,
) -> Result<(), String> {
    use memberctl::proto::etcdserverpb::kv_client::KvClient;
    use memberctl::proto::etcdserverpb::PutRequest;
    let r = runtime().block_on(async {
        let ch = match cached.as_ref() {
            Some(ch) => ch.clone(),
            None => channel(endpoint).await?,
        };
        *cached = Some(ch.clone());
        let req = PutRequest {
            key: key.into(),
            value: value.into(),
            ..Default::default()
        };
        match tokio::time::timeout(Duration::from_secs(10), KvClient::new(ch).put(req)).await {
            Ok(r) => r.map(|_| ()).map_err(|s| s.message().to_string()),
            Err(_) => Err("put timed out".to_string()),
        }
    });
    if r.is_err() {
        *cached = None;
    }
    r
}

/// Puts `n` keys `{prefix}{i:05}` with values of `size` bytes through
/// `endpoint`, 16 at a time; returns them (all acknowledged, else it panics).
pub fn load(endpoint: &str, prefix: &str, n: usize, size: usize) -> Vec<(String, String)> {
    use memberctl::proto::etcdserverpb::kv_client::KvClient;
    use memberctl::proto::etcdserverpb::PutRequest;
    let keys: Vec<(String, String)> = (0..n)
        .map(|i| {
            let v = format!("{i}-");
            (
                format!("{prefix}{i:05}"),
                v.repeat(size / v.len() + 1)[..size].to_string(),
            )
        })
        .collect();
    runtime().block_on(async {
        let ch = channel(endpoint).await.expect("connect to load data");
        for chunk in keys.chunks(16) {
            let mut puts = tokio::task::JoinSet::new();
            for (k, v) in chunk {
                let mut c = KvClient::new(ch.clone());
                let req = PutRequest {
                    key: k.clone().into(),
                    value: v.clone().into(),
                    ..Default::default()
                };
                puts.spawn(async move {
                    match tokio::time::timeout(Duration::from_secs(10), c.put(req)).await {
                        Ok(r) => r.map(|_| ()).map_err(|s| s.message().to_string()),
                        Err(_) => Err("put timed out".to_string()),
                    }
                });
            }
            while let Some(r) = puts.join_next().await {
                r.expect("a put task").expect("a put while loading data");
            }
        }
    });
    keys
}

/// Reads `prefix` linearizably through the first of `endpoints` that answers
/// (waiting up to 20 s for one), and panics unless every acknowledged put is
/// there with its value; returns how many were checked.
pub fn check_acked(endpoints: &[String], prefix: &str, acked: &[(String, String)]) -> usize {
    let stored = wait_for(
        "a linearizable read of the acknowledged writes",
        Duration::from_secs(20),
        || {
            endpoints
                .iter()
                .find_map(|ep| get_prefix_linearizable(ep, prefix).ok())
        },
    );
    let stored: std::collections::HashMap<String, String> = stored.into_iter().collect();
    let lost: Vec<&(String, String)> = acked
        .iter()
        .filter(|(k, v)| stored.get(k) != Some(v))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged writes are lost or wrong, e.g. {:?}",
        lost.len(),
        acked.len(),
        &lost[..lost.len().min(5)]
    );
    acked.len()
}

/// How many acknowledged puts `endpoint`'s own copy (a serializable read)
/// lacks or holds with another value; None when it does not answer.
pub fn missing(endpoint: &str, prefix: &str, acked: &[(String, String)]) -> Option<usize> {
    let got: std::collections::HashMap<String, String> =
        get_prefix(endpoint, prefix).ok()?.into_iter().collect();
    Some(acked.iter().filter(|(k, v)| got.get(k) != Some(v)).count())
}

/// (puts, worst, p99) of the acknowledged puts issued in `[from, to)`.
pub fn latency(samples: &[Sample], from: Instant, to: Instant) -> (usize, Duration, Duration) {
    let mut l: Vec<Duration> = samples
        .iter()
        .filter(|s| s.ok && s.start >= from && s.start < to)
        .map(|s| Duration::from_secs_f64(s.ms / 1000.0))
        .collect();
    let max = super::percentile(&mut l, 1.0).unwrap_or_default();
    let p99 = super::percentile(&mut l, 0.99).unwrap_or(max);
    (l.len(), max, p99)
}
