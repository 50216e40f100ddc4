//! The catch-up check on a real etcd 3.5.34 leader's `/metrics` (taken
//! after it had sent a learner a 33 MB snapshot), read twice (a second apart here)
//! with the write figures altered: by snapshot or by the log, the bandwidth's
//! source, the budget, and the figures scripts read.

use super::*;
use crate::workflow::calc::preflight::catch_up::{estimate, ASSUMED_BYTES_PER_SECOND};

const LEADER: &str =
    include_str!("../../../../tests/fixtures/metrics/etcd-3.5.34-leader-after-snapshot.txt");
const N1: u64 = 0x616c_c07e_b526_2bc7;
const N2: u64 = 0xce33_854d_3acb_8be2;
const N3: u64 = 0x60cb_7576_d7f1_569a;
const DB: u64 = 33_169_408;
const IN_USE: u64 = 30_875_648;
const COMMITTED: f64 = 7211.0;
const SENT_N2: f64 = 2.3997481e7;
const SENT_N3: f64 = 2.3983483e7;

fn etcd_member(id: u64, name: &str) -> Member {
    Member {
        id: MemberId(id),
        name: name.into(),
        peer_urls: vec![format!("http://127.0.0.1:2{id:04}")],
        client_urls: vec![format!("http://{name}:2379")],
        is_learner: false,
    }
}

fn etcd_status(id: u64, raft_index: u64) -> MemberStatus {
    MemberStatus {
        member_id: MemberId(id),
        leader: MemberId(N1),
        raft_term: 2,
        raft_index,
        raft_applied_index: raft_index,
        version: "3.5.34".into(),
        db_size: DB,
        db_size_in_use: IN_USE,
        revision: 7201,
        ..Default::default()
    }
}

/// The leader's page a second later: `entries` more committed and
/// `bytes` more sent to each voter.
fn second_later(entries: f64, bytes: f64) -> ServerMetrics {
    let n2 = format!("etcd_network_peer_sent_bytes_total{{To=\"{N2:016x}\"}}");
    let n3 = format!("etcd_network_peer_sent_bytes_total{{To=\"{N3:016x}\"}}");
    parse_metrics(&altered(
        LEADER,
        &[
            (
                "etcd_server_proposals_committed_total",
                &(COMMITTED + entries).to_string(),
            ),
            (&n2, &(SENT_N2 + bytes).to_string()),
            (&n3, &(SENT_N3 + bytes).to_string()),
        ],
    ))
}

/// Three 3.5.34 voters, n1 leads at `raft_index`; a second between the
/// two readings, with `entries` committed and `bytes` sent to each voter.
fn etcd_facts(raft_index: u64, entries: f64, bytes: f64) -> Facts {
    let members = vec![
        etcd_member(N1, "n1"),
        etcd_member(N2, "n2"),
        etcd_member(N3, "n3"),
    ];
    let list = MemberList::new(MemberId(N1), members);
    let statuses = [N1, N2, N3]
        .iter()
        .map(|&id| Ok(etcd_status(id, raft_index)))
        .collect();
    let leader = parse_metrics(LEADER);
    let mut f = facts();
    f.health = Health { list, statuses };
    f.leader_again = Some(Ok(etcd_status(N1, raft_index)));
    f.metrics = vec![Ok(leader.clone()), Ok(leader.clone()), Ok(leader)];
    f.leader_metrics_again = Some(Ok(second_later(entries, bytes)));
    f.version = version("3.5.34", "3.5.0");
    f.metrics_interval = Duration::from_secs(1);
    f
}

fn given(mbit: f64) -> CatchUpInputs {
    CatchUpInputs {
        bandwidth: Some(Bandwidth {
            bytes_per_second: mbit * 1e6 / 8.0,
            source: BandwidthSource::Given,
        }),
        snapshot_count: None,
    }
}

fn catch_up_check(f: &Facts) -> Check {
    evaluate(f, &[Change::Add { learner: true }])
        .into_iter()
        .find(|c| c.name == CheckName::CatchUp)
        .expect("a catch-up check")
}

#[test]
fn a_quiet_cluster_on_a_given_link_is_predicted_from_its_size() {
    // 80 Mbit/s = 10 MB/s; 300 entries/s, 100 kB/s to each voter.
    let mut f = etcd_facts(250_000, 300.0, 100_000.0);
    f.told = given(80.0);
    let e = estimate(&f).unwrap();
    assert_eq!(e.path, CatchUpPath::Snapshot);
    assert_eq!(e.bytes, DB);
    assert_eq!(e.entries_per_second, Some(300.0));
    assert_eq!(e.write_bytes_per_second, Some(100_000.0));
    assert!((e.send_seconds - DB as f64 / 10e6).abs() < 1e-9);
    // The backlog: 100 kB/s for 3.3 s, drained on 9.9 MB/s.
    let backlog = 100_000.0 * e.send_seconds / (10e6 - 100_000.0);
    assert!((e.backlog_seconds - backlog).abs() < 1e-9);
    // The budget: 30 s of paused compaction and 5000 entries at 300/s.
    assert!((e.budget_seconds.unwrap() - (30.0 + 5000.0 / 300.0)).abs() < 1e-9);
    assert_eq!(e.snapshot_count, (100_000, "default"));
    let c = catch_up_check(&f);
    assert_eq!(c.verdict, Verdict::Ok, "{}", c.detail);
    assert!(c.detail.contains("by snapshot"), "{}", c.detail);
    assert!(
        c.detail.contains("given with --link-bandwidth"),
        "{}",
        c.detail
    );
    assert_eq!(c.figures.get("bytes"), Some(DB as f64));
    assert_eq!(c.figures.get("bandwidth_bytes_per_second"), Some(10e6));
    assert_eq!(c.figures.get("entries_per_second"), Some(300.0));
    assert!(c.figures.get("predicted_seconds").unwrap() > e.send_seconds);
}

#[test]
fn writes_that_nearly_fill_the_link_cannot_drain_before_the_compaction() {
    // 9.5 MB/s of writes to each voter on a 10 MB/s link: 3.3 s of sending
    // leaves 31 MB that drain at 0.5 MB/s, beyond 30 s + 5000/2000 s.
    let mut f = etcd_facts(250_000, 2000.0, 9.5e6);
    f.told = given(80.0);
    let c = catch_up_check(&f);
    assert_eq!(c.verdict, Verdict::Fail, "{}", c.detail);
    assert!(c.detail.contains("budget 32.5 s"), "{}", c.detail);
    assert!(c.detail.contains("another snapshot"), "{}", c.detail);
    for remedy in ["quieter moment", "--snapshot-count", "faster link"] {
        assert!(c.remedy.contains(remedy), "{}", c.remedy);
    }
    // Past half the budget warns: 8 MB/s drains in 13 s (ok), 8.5 MB/s in 19 s.
    let mut f = etcd_facts(250_000, 2000.0, 8e6);
    f.told = given(80.0);
    assert_eq!(catch_up_check(&f).verdict, Verdict::Ok);
    let mut f = etcd_facts(250_000, 2000.0, 8.5e6);
    f.told = given(80.0);
    assert_eq!(catch_up_check(&f).verdict, Verdict::Warn);
    // Writes that fill the link: never.
    let mut f = etcd_facts(250_000, 2000.0, 12e6);
    f.told = given(80.0);
    let c = catch_up_check(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.detail.contains("never"), "{}", c.detail);
    assert_eq!(c.figures.get("backlog_seconds"), None);
}

#[test]
fn without_a_given_bandwidth_the_past_sends_then_etcds_assumption_are_used() {
    // The fixture's leader sent one 33 MB snapshot in 0.125 s.
    let f = etcd_facts(250_000, 10.0, 1000.0);
    let e = estimate(&f).unwrap();
    match e.bandwidth.source {
        BandwidthSource::PastSends {
            sends,
            mean_seconds,
        } => {
            assert_eq!(sends, 1);
            assert!((mean_seconds - 0.125).abs() < 0.01, "{mean_seconds}");
        }
        other => panic!("not from the past sends: {other:?}"),
    }
    let c = catch_up_check(&f);
    assert!(c.detail.contains("past snapshot send"), "{}", c.detail);
    assert_eq!(
        c.figures.0.iter().find(|(n, _)| *n == "bandwidth_source"),
        Some(&("bandwidth_source", Figure::Text("past-sends".into())))
    );
    // A leader that never sent one: etcd's own assumption, said so.
    let mut f = etcd_facts(250_000, 10.0, 1000.0);
    let plain = parse_metrics(&busier(SCRAPED));
    f.metrics = vec![Ok(plain.clone()), Ok(plain.clone()), Ok(plain)];
    let e = estimate(&f).unwrap();
    assert_eq!(e.bandwidth.source, BandwidthSource::Assumed);
    assert_eq!(e.bandwidth.bytes_per_second, ASSUMED_BYTES_PER_SECOND);
    assert!(catch_up_check(&f).detail.contains("assumed"));
}

#[test]
fn an_estimated_bandwidth_warns_where_a_given_one_fails() {
    // 12 MB/s of writes: more than the 10 MB/s given; from the past sends
    // (265 MB/s) they drain; on an assumed link they would not refuse.
    let mut f = etcd_facts(250_000, 2000.0, 12e6);
    f.told = given(80.0);
    assert_eq!(catch_up_check(&f).verdict, Verdict::Fail);
    let mut f = etcd_facts(250_000, 2000.0, 200e6);
    // Its past send not timed: nothing but etcd's assumption (100 MiB/s).
    let untimed = "etcd_network_snapshot_send_total_duration_seconds_sum{To=\"e25179af55d536a9\"}";
    let first = parse_metrics(&altered(LEADER, &[(untimed, "0")]));
    f.metrics = vec![Ok(first.clone()), Ok(first.clone()), Ok(first)];
    let c = catch_up_check(&f);
    assert_eq!(
        estimate(&f).unwrap().bandwidth.source,
        BandwidthSource::Assumed
    );
    assert_eq!(c.verdict, Verdict::Warn, "{}", c.detail);
    assert!(c.remedy.contains("--link-bandwidth"), "{}", c.remedy);
    // A database too small to say anything about the link: not from its sends.
    let mut f = etcd_facts(250_000, 10.0, 1000.0);
    for s in f.health.statuses.iter_mut().flatten() {
        s.db_size = 56;
        s.db_size_in_use = 56;
    }
    assert_eq!(
        estimate(&f).unwrap().bandwidth.source,
        BandwidthSource::Assumed
    );
}

#[test]
fn a_young_log_is_sent_whole_and_the_version_sets_the_snapshot_count() {
    // 7211 entries: below 3.5's default of 100,000, never compacted.
    let f = etcd_facts(7211, 10.0, 1000.0);
    let e = estimate(&f).unwrap();
    assert_eq!(e.path, CatchUpPath::Log);
    assert_eq!(e.bytes, IN_USE);
    assert!(catch_up_check(&f).detail.contains("by the log"));
    // 3.6's default is 10,000; --snapshot-count says otherwise.
    let mut f = etcd_facts(20_000, 10.0, 1000.0);
    for s in f.health.statuses.iter_mut().flatten() {
        s.version = "3.6.15".into();
    }
    assert_eq!(estimate(&f).unwrap().snapshot_count, (10_000, "default"));
    assert_eq!(estimate(&f).unwrap().path, CatchUpPath::Snapshot);
    f.told.snapshot_count = Some(50_000);
    let e = estimate(&f).unwrap();
    assert_eq!(e.snapshot_count, (50_000, "given"));
    assert_eq!(e.path, CatchUpPath::Log);
}

#[test]
fn a_database_a_quarter_free_says_what_defragmenting_saves() {
    let mut f = etcd_facts(250_000, 10.0, 1000.0);
    for s in f.health.statuses.iter_mut().flatten() {
        s.db_size_in_use = DB / 2;
    }
    let c = catch_up_check(&f);
    assert!(
        c.detail.contains("defragmenting first would shrink it by"),
        "{}",
        c.detail
    );
    assert!(c.remedy.contains("etcdctl defrag"), "{}", c.remedy);
    // 7 % free: not worth saying.
    let c = catch_up_check(&etcd_facts(250_000, 10.0, 1000.0));
    assert!(!c.detail.contains("defragmenting"), "{}", c.detail);
}

#[test]
fn a_change_that_adds_nothing_is_not_judged_and_no_leader_is_unknown() {
    let f = etcd_facts(250_000, 10.0, 1000.0);
    let c = evaluate(&f, &[Change::Remove(MemberId(N3))])
        .into_iter()
        .find(|c| c.name == CheckName::CatchUp)
        .unwrap();
    assert_eq!(c.verdict, Verdict::Ok);
    assert!(c.detail.contains("adds no member"));
    let mut f = etcd_facts(250_000, 10.0, 1000.0);
    for s in f.health.statuses.iter_mut().flatten() {
        s.leader = MemberId(0);
    }
    assert_eq!(catch_up_check(&f).verdict, Verdict::Unknown);
}
