//! Unit tests of the rehearsal's pure model: percentiles, windows, steps, elections, the summary.

use super::*;

fn put(at_s: f64, ms: f64, ok: bool) -> WriteSample {
    WriteSample {
        at_s,
        ms,
        ok,
        error: (!ok).then(|| "timeout".into()),
    }
}

fn listed(id: &str, name: &str, is_learner: bool) -> ListedMember {
    ListedMember {
        id: id.into(),
        name: name.into(),
        is_learner,
    }
}

fn node(at_s: f64, name: &str, id: &str, leader: &str, term: u64) -> NodeSample {
    NodeSample {
        at_s,
        name: name.into(),
        answered: true,
        member_id: Some(id.into()),
        leader: Some(leader.into()),
        term: Some(term),
        raft_index: Some(10),
        bytes_received: Some(100),
        snapshots_received: Some(0),
    }
}

const A: &str = "000000000000000a";
const B: &str = "000000000000000b";
const C: &str = "000000000000000c";
const D: &str = "000000000000000d";

#[test]
fn percentiles_are_nearest_rank() {
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&v, 0.5), Some(50.0));
    assert_eq!(percentile(&v, 0.99), Some(99.0));
    assert_eq!(percentile(&v, 1.0), Some(100.0));
    assert_eq!(percentile(&[7.0], 0.99), Some(7.0));
    assert_eq!(percentile(&[], 0.5), None);
}

#[test]
fn latency_per_second_and_window_leaves_failures_out_of_the_percentiles() {
    let writes = vec![
        put(0.1, 2.0, true),
        put(0.5, 4.0, true),
        put(1.2, 30.0, true),
        put(1.7, 2000.0, false),
        put(3.0, 1.0, true),
    ];
    let s = per_second(&writes);
    assert_eq!(s.len(), 4);
    assert_eq!(s[0].latency.writes, 2);
    assert_eq!(s[0].latency.p50_ms, Some(2.0));
    assert_eq!(s[0].latency.max_ms, Some(4.0));
    assert_eq!(s[1].latency.failed, 1);
    assert_eq!(s[1].latency.p99_ms, Some(30.0));
    assert_eq!(s[2].latency.writes, 0);
    assert_eq!(s[2].latency.p50_ms, None);
    let w = latency(&writes, 1.0, 3.0);
    assert_eq!((w.writes, w.failed, w.max_ms), (2, 1, Some(30.0)));
}

#[test]
fn steps_come_from_the_lists_the_nodes_and_the_progress_in_order() {
    let initial = vec![
        listed(A, "n1", false),
        listed(B, "n2", false),
        listed(C, "n3", false),
    ];
    let mut samples = Samples::default();
    let list = |at_ms, members: Vec<ListedMember>| ListSample { at_ms, members };
    samples.lists = vec![
        list(500, initial.clone()),
        list(1000, {
            let mut l = initial.clone();
            l.push(listed(D, "", true));
            l
        }),
        list(2000, {
            let mut l = initial.clone();
            l.push(listed(D, "n4", true));
            l
        }),
        list(
            3000,
            vec![
                listed(A, "n1", false),
                listed(B, "n2", false),
                listed(D, "n4", false),
            ],
        ),
    ];
    let mut n4 = node(1.5, "n4", D, A, 2);
    n4.snapshots_received = Some(0);
    let mut n4_later = node(1.8, "n4", D, A, 2);
    n4_later.snapshots_received = Some(1);
    n4_later.bytes_received = Some(5000);
    samples.nodes = vec![node(1.5, "n1", A, A, 2), n4, n4_later];
    samples.progress = vec![ProgressLine {
        at_s: 2.5,
        catch_up: serde_json::json!({"member": D, "phase": "ready"}),
    }];
    let s = steps(&initial, &samples);
    let kinds: Vec<(StepKind, &str)> = s.iter().map(|s| (s.step, s.member.as_str())).collect();
    assert_eq!(
        kinds,
        vec![
            (StepKind::Add, "n4"),
            (StepKind::Start, "n4"),
            (StepKind::SnapshotReceived, "n4"),
            (StepKind::Ready, "n4"),
            (StepKind::Promoted, "n4"),
            (StepKind::Removed, "n3"),
        ]
    );
    let bytes = new_member_bytes(&s, &samples);
    assert_eq!(bytes, vec![(1.5, 100), (1.8, 5000)]);
}

#[test]
fn elections_are_term_or_leader_changes_after_the_first_sample() {
    let samples = Samples {
        nodes: vec![
            node(0.0, "n1", A, A, 2),
            node(0.0, "n2", B, A, 2),
            node(1.0, "n1", A, A, 2),
            // Mid-election: the members disagree; the highest term counts.
            node(2.0, "n1", A, "0000000000000000", 3),
            node(2.0, "n2", B, B, 2),
            node(3.0, "n1", A, B, 3),
            node(3.0, "n2", B, B, 3),
        ],
        ..Samples::default()
    };
    let points = leaders(&samples);
    assert_eq!(points.len(), 4);
    assert_eq!(points[0].leader.as_deref(), Some("n1"));
    assert_eq!(points[2].leader, None);
    assert_eq!(points[2].term, 3);
    let e = elections(&points);
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].at_s, e[0].term), (2.0, 3));
    assert_eq!((e[1].at_s, e[1].leader.as_deref()), (3.0, Some("n2")));
}

#[test]
fn the_summary_splits_the_writer_and_measures_the_catch_up_against_the_floor() {
    let inputs = Inputs {
        started_unix_ms: 1,
        settings: Settings {
            writer_rate_per_second: 10.0,
            value_size_bytes: 8,
            server: "engine".into(),
            server_version: "0.1.0".into(),
            cluster_dir: "/tmp/x".into(),
        },
        change: ChangeResult {
            command: vec!["memberctl".into()],
            exit_code: Some(0),
            ok: true,
            error: None,
            output: None,
        },
        timeline: Timeline {
            change_started_s: 1.0,
            change_ended_s: 3.0,
            settled_s: 4.0,
            ended_s: 5.0,
            settled: true,
        },
        initial: vec![listed(A, "n1", false)],
        prediction: Some(Prediction {
            path: "snapshot".into(),
            bytes: 1000,
            bandwidth_bytes_per_second: 2000.0,
            bandwidth_source: "link".into(),
            predicted_seconds: Some(2.0),
        }),
        cost: None,
    };
    let mut samples = Samples {
        writes: vec![
            put(0.5, 1.0, true),
            put(1.5, 50.0, true),
            put(2.5, 900.0, false),
            put(4.5, 2.0, true),
        ],
        ..Samples::default()
    };
    samples.lists = vec![ListSample {
        at_ms: 1200,
        members: vec![listed(A, "n1", false), listed(D, "n4", true)],
    }];
    let mut n4 = node(1.4, "n4", D, A, 2);
    n4.bytes_received = Some(1200);
    samples.nodes = vec![n4];
    samples.lists.push(ListSample {
        at_ms: 2400,
        members: vec![listed(A, "n1", false), listed(D, "n4", false)],
    });
    let r = report(inputs, samples);
    let s = &r.summary;
    assert_eq!(s.before.writes, 1);
    assert_eq!((s.during.writes, s.during.failed), (2, 1));
    assert_eq!(s.after.p99_ms, Some(2.0));
    assert_eq!(s.failed_writes, 1);
    let c = s.catch_up_seconds.unwrap();
    assert!((c - 1.0).abs() < 1e-9, "{c}");
    assert_eq!(s.link_floor_seconds, Some(0.5));
    assert!((s.catch_up_to_floor_ratio.unwrap() - 2.0).abs() < 1e-9);
    assert_eq!(s.bytes_received, Some(1200));
    assert_eq!(r.prediction.as_ref().unwrap().bytes_at(1.0), 500.0);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["schema"], 1);
    assert_eq!(json["steps"][0]["step"], "add");
    assert_eq!(json["per_second"][1]["p50_ms"], 50.0);
}
