//! The peer prober: every member (leader, follower or learner) times a small
//! call to each peer every [`PROBE_INTERVAL`] and records its round trip in
//! etcd_network_peer_round_trip_time_seconds{To}, as etcd's rafthttp prober
//! times `GET /raft/probing` on every peer.
//!
//! A probe goes on a connection of its own, not on the raft stream's: it
//! never takes the raft stream's HTTP/2 windows or waits in its queue, so it
//! neither delays a heartbeat or an append nor is delayed by a batch of
//! appends (etcd's probes, too, go on requests beside its streams). It costs
//! one idle connection per peer and a few dozen bytes every four seconds. It
//! is not part of the snapshot's pacing (engine::pacing), which goes on
//! reading the leader's heartbeats only: a probe every four seconds says
//! nothing of the queue a snapshot builds in a second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::dial::PeerTls;
use tokio::task::AbortHandle;

use crate::dial::dial;
use crate::metrics;
use crate::proto::memberctl_v1::ProbeRequest;

/// Time between two probes of a peer: etcd's `proberInterval`
/// (`ConnReadTimeout` − 1 s).
pub const PROBE_INTERVAL: Duration = Duration::from_secs(4);

/// Whether the traffic to a peer is dropped now (fault injection's
/// partition): such a peer is not probed.
pub type Blocked = Arc<dyn Fn() -> bool + Send + Sync>;

/// What a prober needs to probe one peer.
pub struct Probe {
    /// This member's ID (the peer refuses it while their traffic is dropped).
    pub me: u64,
    /// The peer.
    pub to: u64,
    /// The peer's URLs, dialled in turn.
    pub urls: Vec<String>,
    /// Dials https peers.
    pub tls: Option<PeerTls>,
    /// Whether the traffic to the peer is dropped (fault injection): it is
    /// not probed then.
    pub blocked: Blocked,
    /// Called when the peer refuses a probe because this member was removed
    /// from the cluster: a learner sends no raft message of its own (it
    /// never campaigns), so its probes are how a removed learner started
    /// again on its old data learns that it must stop.
    pub removed: Arc<dyn Fn() + Send + Sync>,
}

/// A prober running on the current runtime, stopped when dropped (its peer
/// was removed or changed its URLs).
pub struct Prober(AbortHandle);

impl Prober {
    /// Probes `probe.to` every `every` until dropped, the first one interval
    /// after it starts (as etcd's prober, whose ticker fires first then):
    /// not while the members are still starting, whose first answers come
    /// late (a fresh cluster would show them as a slow network).
    pub fn start(probe: Probe, every: Duration) -> Prober {
        Prober(tokio::spawn(run(probe, every)).abort_handle())
    }
}

impl Drop for Prober {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Probes until aborted: one probe at a time, each given one interval to be
/// answered. A probe not answered (no connection, a refusal, a timeout)
/// records nothing and drops the connection, dialled again at the next one
/// (the next URL); a round trip is timed on a connection already up.
async fn run(probe: Probe, every: Duration) {
    let Probe {
        me,
        to,
        urls,
        tls,
        blocked,
        removed,
    } = probe;
    if urls.is_empty() {
        return;
    }
    let rtt = metrics::get()
        .peer_rtt
        .with_label_values(&[&metrics::peer(to)]);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let (mut client, mut url) = (None, 0usize);
    loop {
        ticks.tick().await;
        if blocked() {
            client = None;
            continue;
        }
        if client.is_none() {
            // Default HTTP/2 windows: a probe is a few bytes.
            client = dial(&urls[url % urls.len()], tls.as_ref(), None).await;
            url = url.wrapping_add(1);
        }
        let Some(c) = client.as_mut() else {
            continue;
        };
        let start = Instant::now();
        match tokio::time::timeout(every, c.probe(ProbeRequest { from: me })).await {
            Ok(Ok(_)) => rtt.observe(start.elapsed().as_secs_f64()),
            Ok(Err(s)) if crate::transport::is_removed_answer(&s) => {
                removed();
                client = None;
            }
            _ => client = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::memberctl_v1 as pb;
    use crate::proto::memberctl_v1::raft_server::{Raft, RaftServer};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use tonic::{Request, Response, Status, Streaming};

    /// A peer that answers probes only, counting them.
    struct Peer(Arc<AtomicU64>);

    #[tonic::async_trait]
    impl Raft for Peer {
        async fn stream(
            &self,
            _: Request<Streaming<pb::RaftBatch>>,
        ) -> Result<Response<pb::RaftAck>, Status> {
            Err(Status::unimplemented("probes only"))
        }

        async fn snapshot(
            &self,
            _: Request<Streaming<pb::SnapshotPart>>,
        ) -> Result<Response<pb::RaftAck>, Status> {
            Err(Status::unimplemented("probes only"))
        }

        async fn members(
            &self,
            _: Request<pb::MembersRequest>,
        ) -> Result<Response<pb::MembersResponse>, Status> {
            Err(Status::unimplemented("probes only"))
        }

        async fn hash_kv(
            &self,
            _: Request<pb::PeerHashKvRequest>,
        ) -> Result<Response<pb::PeerHashKvResponse>, Status> {
            Err(Status::unimplemented("probes only"))
        }

        async fn probe(
            &self,
            req: Request<pb::ProbeRequest>,
        ) -> Result<Response<pb::ProbeResponse>, Status> {
            assert_eq!(req.into_inner().from, 7);
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Response::new(pb::ProbeResponse {}))
        }
    }

    fn observed(to: u64) -> u64 {
        metrics::get()
            .peer_rtt
            .with_label_values(&[&metrics::peer(to)])
            .get_sample_count()
    }

    /// Waits up to 10 s for `done`, polling.
    async fn until(mut done: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }

    #[tokio::test]
    async fn a_peer_is_probed_every_interval_and_each_round_trip_recorded() {
        let incoming = tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse().unwrap())
            .expect("bind");
        let url = format!("http://{}", incoming.local_addr().unwrap());
        let answered = Arc::new(AtomicU64::new(0));
        let peer = Peer(answered.clone());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(RaftServer::new(peer))
                .serve_with_incoming(incoming),
        );
        let isolated = Arc::new(AtomicBool::new(false));
        let flag = isolated.clone();
        // A first URL nobody serves: dialled, skipped, the next one probed.
        let dead = format!("http://127.0.0.1:{}", {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        });
        let to = 0xfeed_0001;
        let prober = Prober::start(
            Probe {
                me: 7,
                to,
                urls: vec![dead, url],
                tls: None,
                blocked: Arc::new(move || flag.load(Ordering::SeqCst)),
                removed: Arc::new(|| {}),
            },
            Duration::from_millis(50),
        );
        assert!(until(|| observed(to) >= 3).await, "no round trips recorded");
        let rtt = metrics::get()
            .peer_rtt
            .with_label_values(&[&metrics::peer(to)]);
        assert!(rtt.get_sample_sum() / (rtt.get_sample_count() as f64) < 1.0);
        assert_eq!(answered.load(Ordering::SeqCst), observed(to));

        // An isolated peer is not probed; healed, it is again.
        isolated.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let before = answered.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            answered.load(Ordering::SeqCst),
            before,
            "probed while isolated"
        );
        isolated.store(false, Ordering::SeqCst);
        assert!(until(|| answered.load(Ordering::SeqCst) > before + 1).await);

        // Dropped: no more probes.
        drop(prober);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let last = answered.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(answered.load(Ordering::SeqCst), last, "probed after drop");
    }
}
