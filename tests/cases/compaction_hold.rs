//! etcd's compaction hold on the engine: a learner that catches up over a
//! slow link while a writer keeps the log growing needs one snapshot, because
//! the leader holds its raft log's compaction while the snapshot is sent and
//! for a while after it (`MEMBERCTL_COMPACTION_HOLD_MS` shortens etcd's 30 s);
//! without the hold after the send, the same run needs another snapshot.

use std::time::{Duration, Instant};

use super::metrics_catch_up::{metrics, progress, sample};
use crate::util::faults::{leader_among, node_status, snapshot_fault};
use crate::util::local::Local;
use crate::util::members::add_and_start;
use crate::util::wait_for;
use crate::util::writer::{load, SteadyWriter};

/// The link the learner catches up over, set once the data is loaded.
const LINK: &str = "rtt=2ms,bandwidth=20mbit,queue=2mb";
/// The steady writers' values: a checkpoint waits for log bytes of half
/// the state's (4 MiB here), so small puts would not bring one for minutes;
/// [`WRITERS`] writers of these write several hundred KB/s, a checkpoint
/// every few seconds.
const VALUE_BYTES: usize = 4096;
/// Steady writers at the leader, each one put at a time.
const WRITERS: usize = 2;

/// A cluster loaded with 8 MiB, on the slow link, a steady writer at its
/// leader, and a learner added and started; the hold after a snapshot send
/// is `hold_ms`; with `chunk_delay_ms`, the leader waits that long before
/// each MiB of the snapshot (fault injection), so that it travels longer.
struct Busy {
    local: Local,
    leader_ep: String,
    learner_ep: String,
    /// `{To="<learner id>"}`.
    to_learner: String,
    writers: Vec<SteadyWriter>,
    started: Instant,
}

impl Busy {
    fn start(hold_ms: &str, chunk_delay_ms: u32) -> Busy {
        let mut flags = vec![
            "--link",
            "rtt=1ms,bandwidth=10gbit,queue=16mb",
            "--snapshot-count",
            "200",
        ];
        if chunk_delay_ms > 0 {
            flags.push("--fault-injection");
        }
        let local = Local::up_with_env(&flags, &[("MEMBERCTL_COMPACTION_HOLD_MS", hold_ms)]);
        let endpoints = local.endpoints();
        load(&endpoints[0], "bulk/", 1024, 8 * 1024);
        local
            .ctl(&["cluster", "link", "--set", LINK, "-w", "json"])
            .expect(0);
        let leader = leader_among(&endpoints).expect("a leader");
        let leader_ep = endpoints
            .iter()
            .find(|ep| node_status(ep).is_ok_and(|s| s.member_id == leader.member_id))
            .unwrap()
            .clone();
        if chunk_delay_ms > 0 {
            snapshot_fault(&leader_ep, chunk_delay_ms);
        }
        let writers: Vec<SteadyWriter> = (0..WRITERS)
            .map(|i| {
                let prefix = format!("w{i}/");
                SteadyWriter::start_sized(
                    vec![leader_ep.clone()],
                    &prefix,
                    Duration::ZERO,
                    VALUE_BYTES,
                )
            })
            .collect();
        for w in &writers {
            w.wait_for_writes(100);
        }
        let started = Instant::now();
        let (learner_hex, _) = add_and_start(&local, "learner");
        let learner = u64::from_str_radix(&learner_hex, 16).unwrap();
        let learner_ep = local
            .client_url("learner")
            .trim_start_matches("http://")
            .to_string();
        Busy {
            local,
            leader_ep,
            learner_ep,
            to_learner: format!("{{To=\"{learner:x}\"}}"),
            writers,
            started,
        }
    }

    /// Snapshots the leader sent the learner successfully.
    fn snapshots_sent(&self) -> f64 {
        let page = metrics(&self.leader_ep);
        sample(
            &page,
            &format!("etcd_network_snapshot_send_success{}", self.to_learner),
        )
        .unwrap_or(0.0)
    }

    /// Puts acknowledged so far.
    fn puts(&self) -> usize {
        self.writers.iter().map(SteadyWriter::acked).sum()
    }

    /// Every node's whole log.
    fn logs(&self) -> String {
        let mut out = String::new();
        for e in std::fs::read_dir(self.local.dir()).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "log") {
                out.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
        out
    }
}

/// With the hold (10 s after the send here, etcd's 30 s in production): the
/// learner catches up 8 MiB over 20 Mbit/s while ~1 MB/s is written, with
/// exactly one snapshot; the compaction a checkpoint asked for meanwhile is
/// held and applied once the hold ends, so the leader's log is compacted
/// again after the catch-up.
fn a_busy_learner_needs_one_snapshot_while_compaction_is_held() {
    let b = Busy::start("10000", 0);
    wait_for("the learner to catch up", Duration::from_secs(120), || {
        let leader = node_status(&b.leader_ep).ok()?;
        let learner = node_status(&b.learner_ep).ok()?;
        (learner.applied > 0 && learner.applied + 200 >= leader.applied).then_some(())
    });
    let caught_up = b.started.elapsed();
    let first = progress(&b.leader_ep).first_index;
    let rose = wait_for(
        "the leader's log compacted again",
        Duration::from_secs(90),
        || {
            let p = progress(&b.leader_ep);
            (p.first_index > first).then_some(p.first_index)
        },
    );
    let compacted = b.started.elapsed();
    eprintln!(
        "caught up in {caught_up:.1?} (log from {first}), compacted again to {rose} after \
         {compacted:.1?}; {} puts",
        b.puts()
    );
    let logs = b.logs();
    assert_eq!(b.snapshots_sent(), 1.0, "one snapshot was enough:\n{logs}");
    assert!(
        logs.contains("raft log compaction to") && logs.contains("held: "),
        "a checkpoint came while the snapshot was held:\n{logs}"
    );
    assert!(
        logs.contains("held while a snapshot was sent, applied"),
        "the held compaction was applied:\n{logs}"
    );
    assert!(b.puts() >= 500, "{} puts", b.puts());
}

/// Without the hold after the send (`MEMBERCTL_COMPACTION_HOLD_MS=0`: held
/// only while in flight), the compaction held during the send is applied as
/// it completes, before the learner has the entries written since the
/// snapshot's index: the same run needs a second snapshot. The leader waits
/// 3 s before each MiB of the snapshot, so that it travels longer than a
/// checkpoint takes to come and the compaction lands well past what the
/// learner's first appends bring (without it, whether one comes in flight
/// depends on the machine's speed).
fn without_the_hold_after_the_send_the_learner_needs_another_snapshot() {
    let b = Busy::start("0", 3000);
    // The first sent, and a second on its way (or sent too).
    let deadline = Instant::now() + Duration::from_secs(150);
    crate::util::wait_for_every(
        "a second snapshot",
        Duration::from_secs(150),
        Duration::from_millis(200),
        || {
            if Instant::now() + Duration::from_millis(500) >= deadline {
                let logs = b.logs();
                let lines: Vec<&str> = logs
                    .lines()
                    .filter(|l| l.contains("snapshot") || l.contains("compaction"))
                    .collect();
                panic!("no second snapshot in 150 s:\n{}", lines.join("\n"));
            }
            let page = metrics(&b.leader_ep);
            let series =
                |name: &str| sample(&page, &format!("{name}{}", b.to_learner)).unwrap_or(0.0);
            let sent = series("etcd_network_snapshot_send_success");
            let inflight = series("etcd_network_snapshot_send_inflights_total");
            (sent >= 1.0 && sent + inflight >= 2.0).then_some(())
        },
    );
    eprintln!(
        "a second snapshot after {:.1?}; {} puts",
        b.started.elapsed(),
        b.puts()
    );
    let logs = b.logs();
    assert!(
        logs.contains("held while a snapshot was sent, applied"),
        "the compaction held during the send was applied as it ended:\n{logs}"
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_busy_learner_needs_one_snapshot_while_compaction_is_held,
        without_the_hold_after_the_send_the_learner_needs_another_snapshot,
    ]
}
