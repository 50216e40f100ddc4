//! The rehearsal's I/O while it watches: the steady writer (one put every
//! `1/rate` seconds, answered or not, each timed from when it was due) and
//! the sampler (the member list, and each node's status and `/metrics`,
//! every [`SAMPLE_EVERY`]), both running until told to stop, and the wait
//! for the cluster to settle.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::sync::watch;

use super::model::{ListSample, ListedMember, NodeSample, WriteSample};
use crate::client::Client;
use crate::model::Member;
use crate::testcluster::state::ClusterState;
use crate::workflow::MembershipApi;

/// How often the sampler looks.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// The most puts the writer keeps in flight; a put due while that many are
/// unanswered is not sent and is recorded as failed, saying so.
pub const IN_FLIGHT: usize = 10_000;

/// The prefix of the writer's keys.
pub const KEY_PREFIX: &str = "memberctl/rehearse/";

/// The steady writer: a thread of its own (so that the sampler's work never
/// delays a put's timing), putting a new key every `1 / rate` seconds until
/// stopped, whether or not earlier puts have been answered (at most
/// [`IN_FLIGHT`] at once); each put is timed from the moment it was due, so
/// a stall shows in every put it held up, not only in the first.
pub struct Writer {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<Vec<WriteSample>>,
}

impl Writer {
    /// Starts writing through `endpoints`; times are taken from `began`.
    pub fn start(endpoints: Vec<String>, rate: f64, value_size: usize, began: Instant) -> Writer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return Vec::new();
            };
            rt.block_on(write(endpoints, rate, value_size, began, flag))
        });
        Writer { stop, handle }
    }

    /// Stops it and answers every put it made.
    pub async fn stop(self) -> Vec<WriteSample> {
        self.stop.store(true, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || self.handle.join().unwrap_or_default())
            .await
            .unwrap_or_default()
    }
}

/// The writer's loop (see [`Writer`]).
async fn write(
    endpoints: Vec<String>,
    rate: f64,
    value_size: usize,
    began: Instant,
    stop: Arc<AtomicBool>,
) -> Vec<WriteSample> {
    let mut out = Vec::new();
    let Ok(client) = crate::testcluster::client_of(endpoints) else {
        return out;
    };
    let client = Arc::new(client);
    let period = Duration::from_secs_f64(1.0 / rate.max(0.001));
    let mut tick = tokio::time::interval(period);
    // A late tick (the thread was not scheduled) is made up at once: the
    // writer keeps its rate, and each put's time counts from when it was due.
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let value: Arc<str> = "x".repeat(value_size).into();
    let mut puts = tokio::task::JoinSet::new();
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = tick.tick().await.into_std();
        while let Some(done) = puts.try_join_next() {
            out.extend(done.ok());
        }
        let at_s = due.saturating_duration_since(began).as_secs_f64();
        if puts.len() >= IN_FLIGHT {
            out.push(WriteSample {
                at_s,
                ms: 0.0,
                ok: false,
                error: Some(format!(
                    "not sent: {IN_FLIGHT} puts were already waiting for an answer"
                )),
            });
            continue;
        }
        let key = format!("{KEY_PREFIX}{n:08}");
        n += 1;
        let (client, value) = (client.clone(), value.clone());
        puts.spawn(async move {
            let r = client.key_put(&key, Some(&value)).await;
            WriteSample {
                at_s,
                ms: due.elapsed().as_secs_f64() * 1000.0,
                ok: r.is_ok(),
                error: r.err().map(|e| e.message),
            }
        });
    }
    while let Some(done) = puts.join_next().await {
        out.extend(done.ok());
    }
    out.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    out
}

/// A member that stands for a node's client URL (what `/metrics` and status are asked at).
fn at_url(url: &str) -> Member {
    Member {
        client_urls: vec![url.to_string()],
        ..Member::default()
    }
}

/// The nodes of the cluster in `dir` that are not removed: name and client URL.
fn nodes(dir: &Path) -> Vec<(String, String)> {
    match ClusterState::load(dir) {
        Ok(Some(s)) => s
            .nodes
            .iter()
            .filter(|n| !n.removed)
            .map(|n| (n.name.clone(), n.client_url.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The member list, as samples take it (none when it did not answer).
pub async fn list(client: &Client) -> Option<Vec<ListedMember>> {
    let l = client.member_list().await.ok()?;
    Some(
        l.members
            .iter()
            .map(|m| ListedMember {
                id: m.id.to_string(),
                name: m.name.clone(),
                is_learner: m.is_learner,
            })
            .collect(),
    )
}

/// One look at every node of the cluster in `dir`: its status and metrics,
/// stamped `at_s` (the tick's time, the same as its member list's).
pub async fn look(client: &Client, dir: &Path, at_s: f64) -> Vec<NodeSample> {
    let nodes = nodes(dir);
    join_all(nodes.into_iter().map(|(name, url)| async move {
        let m = at_url(&url);
        let (status, metrics) =
            futures_util::future::join(client.member_status(&m), client.server_metrics(&m)).await;
        let status = status.ok();
        let metrics = metrics.ok();
        NodeSample {
            at_s,
            name,
            answered: status.is_some(),
            member_id: status.as_ref().map(|s| s.member_id.to_string()),
            leader: status.as_ref().map(|s| s.leader.to_string()),
            term: status.as_ref().map(|s| s.raft_term),
            raft_index: status.as_ref().map(|s| s.raft_index),
            bytes_received: metrics.as_ref().map(|x| x.received_bytes() as u64),
            snapshots_received: metrics.as_ref().map(|x| x.snapshots_received() as u64),
        }
    }))
    .await
}

/// What the sampler collects.
#[derive(Default)]
pub struct Sampled {
    /// Every look at every node.
    pub nodes: Vec<NodeSample>,
    /// Every member list.
    pub lists: Vec<ListSample>,
}

/// Looks at the cluster every [`SAMPLE_EVERY`] until `stop` turns true.
pub async fn sample(
    client: &Client,
    dir: &Path,
    began: Instant,
    mut stop: watch::Receiver<bool>,
) -> Sampled {
    let mut out = Sampled::default();
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return out,
        }
        if *stop.borrow() {
            return out;
        }
        let at_ms = began.elapsed().as_millis() as u64;
        let at_s = at_ms as f64 / 1000.0;
        let (members, nodes) =
            futures_util::future::join(list(client), look(client, dir, at_s)).await;
        if let Some(members) = members {
            out.lists.push(ListSample { at_ms, members });
        }
        out.nodes.extend(nodes);
    }
}

/// Whether one look shows a settled cluster: every member of `members`
/// answers, all name the same leader at the same term, and their raft
/// indexes are within `lag` of each other.
pub fn settled(members: &[ListedMember], nodes: &[NodeSample], lag: u64) -> bool {
    let answered: Vec<&NodeSample> = members
        .iter()
        .filter_map(|m| {
            nodes
                .iter()
                .find(|n| n.answered && n.member_id.as_deref() == Some(m.id.as_str()))
        })
        .collect();
    if members.is_empty() || answered.len() != members.len() {
        return false;
    }
    let first = answered[0];
    let agree = answered.iter().all(|n| {
        n.leader == first.leader
            && n.term == first.term
            && n.leader.as_deref() != Some("0000000000000000")
    });
    let indexes: Vec<u64> = answered.iter().filter_map(|n| n.raft_index).collect();
    let spread = indexes.iter().max().unwrap_or(&0) - indexes.iter().min().unwrap_or(&0);
    agree && indexes.len() == answered.len() && spread <= lag
}

/// Waits until the cluster in `dir` is [`settled`], at most `within`;
/// whether it settled.
pub async fn settle(client: &Client, dir: &Path, lag: u64, within: Duration) -> bool {
    let began = Instant::now();
    let deadline = began + within;
    loop {
        if let Some(members) = list(client).await {
            let nodes = look(client, dir, 0.0).await;
            if settled(&members, &nodes, lag) {
                return true;
            }
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(SAMPLE_EVERY).await;
    }
}
