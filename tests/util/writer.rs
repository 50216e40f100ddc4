//! A writer for the fault tests that records which puts were acknowledged,
//! bulk loading, and the check that no acknowledged put was lost.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tonic::transport::Channel;

use super::local::{channel, get_prefix_linearizable, runtime};
use super::wait_for;

/// What a writer did: the puts acknowledged (key, value) and the failed attempts.
#[derive(Debug, Default)]
pub struct Written {
    pub acked: Vec<(String, String)>,
    pub failed: usize,
}

/// A writer that puts a new key on every attempt through `endpoints` in turn
/// (moving on after a failure) until stopped, and records which puts were
/// acknowledged. A failed put is not retried: it may or may not have been
/// applied, so only acknowledged ones are checked later.
pub struct AckedWriter {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<(String, String)>>>,
    failed: Arc<AtomicUsize>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl AckedWriter {
    /// Starts writing keys `{prefix}{n:06}`, pausing `pace` after each acknowledged put.
    pub fn start(endpoints: Vec<String>, prefix: &str, pace: Duration) -> AckedWriter {
        assert!(!endpoints.is_empty(), "the writer needs an endpoint");
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(Vec::new()));
        let failed = Arc::new(AtomicUsize::new(0));
        let (flag, out, fails, prefix) = (
            stop.clone(),
            acked.clone(),
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
                let value = format!("v{n}");
                n += 1;
                let i = ep % endpoints.len();
                match put_via(&mut channels[i], &endpoints[i], &key, &value) {
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
        AckedWriter {
            stop,
            acked,
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

    /// Stops (after the put under way) and returns what was written.
    pub fn finish(mut self) -> Written {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.join().expect("the writer panicked");
        }
        Written {
            acked: std::mem::take(&mut self.acked.lock().unwrap()),
            failed: self.failed(),
        }
    }
}

impl Drop for AckedWriter {
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
