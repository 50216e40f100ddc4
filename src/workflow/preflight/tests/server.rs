//! The checks that read the servers' figures (`/metrics`, `/version`),
//! judged on etcd 3.4.23's scrape with its figures altered: disk, network,
//! the database's quota, the cluster version, leader changes, and `unknown`
//! where the metrics could not be read.

use super::*;

#[test]
fn unreadable_metrics_are_unknown_never_ok() {
    let mut f = facts();
    f.metrics[1] = Err(ApiError::new(
        ApiErrorKind::Unavailable,
        "cannot read http://m2/metrics",
    ));
    f.version = Some(Err(ApiError::new(ApiErrorKind::Unavailable, "no /version")));
    for name in [
        CheckName::Disk,
        CheckName::Network,
        CheckName::Db,
        CheckName::Versions,
    ] {
        let c = evaluate(&f, &[Change::Inspect])
            .into_iter()
            .find(|c| c.name == name)
            .unwrap();
        assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
        assert!(!c.detail.is_empty());
    }
    // A scrape without the histograms (another server) is not taken as fast.
    f.metrics = vec![Ok(ServerMetrics::default()); 3];
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Disk),
        Verdict::Unknown
    );
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Network),
        Verdict::Unknown
    );
}

#[test]
fn a_slow_disk_warns_naming_the_member() {
    // Every WAL fsync of m3 above 8 ms: the p99 lands in (8, 16] ms.
    let bounds = ["0.001", "0.002", "0.004", "0.008"];
    let slow: Vec<(String, &str)> = bounds
        .iter()
        .map(|le| {
            (
                format!("etcd_disk_wal_fsync_duration_seconds_bucket{{le=\"{le}\"}}"),
                "0",
            )
        })
        .collect();
    let slow: Vec<(&str, &str)> = slow.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut f = facts();
    f.metrics[2] = Ok(parse_metrics(&busier(&altered(SCRAPED, &slow))));
    let c = evaluate(&f, &[Change::Inspect]).remove(6);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert_eq!(c.members, vec!["m3 (0000000000000003)".to_string()]);
    assert!(c.remedy.contains("10.0 ms"), "{}", c.remedy);
    // An add: only the leader (m1) sends the snapshot; m3's disk is shown,
    // not warned about.
    let add = [Change::Add { learner: true }];
    let c = evaluate(&f, &add).remove(6);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(c.detail.contains("m3"), "{}", c.detail);
    // m1's disk slow: the add warns, naming only m1.
    f.metrics[0] = f.metrics[2].clone();
    let c = evaluate(&f, &add).remove(6);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert_eq!(c.members, vec!["m1 (0000000000000001)".to_string()]);
    // A removal or a promotion sends no snapshot: no warning at all.
    for step in [Change::Remove(MemberId(2)), Change::Promote(MemberId(2))] {
        let c = evaluate(&f, std::slice::from_ref(&step)).remove(6);
        assert_eq!(c.verdict, Verdict::Ok, "{step:?}: {c:?}");
        assert!(
            c.detail.contains("not judged for this change"),
            "{}",
            c.detail
        );
    }
    f.metrics[0] = facts().metrics[0].clone();
    // The same figures a bucket lower (p99 within 8 ms) pass.
    let fast: Vec<(&str, &str)> = slow[..3].to_vec();
    f.metrics[2] = Ok(parse_metrics(&busier(&altered(SCRAPED, &fast))));
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Disk), Verdict::Ok);
    // As scraped (7 fsyncs): too few to judge a p99.
    f.metrics[2] = Ok(parse_metrics(&altered(SCRAPED, &slow)));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Disk),
        Verdict::Unknown
    );
}

#[test]
fn a_slow_backend_commit_warns() {
    let bounds = ["0.001", "0.002", "0.004", "0.008", "0.016", "0.032"];
    let slow: Vec<String> = bounds
        .iter()
        .map(|le| format!("etcd_disk_backend_commit_duration_seconds_bucket{{le=\"{le}\"}}"))
        .collect();
    let slow: Vec<(&str, &str)> = slow.iter().map(|a| (a.as_str(), "0")).collect();
    let mut f = facts();
    f.metrics[0] = Ok(parse_metrics(&busier(&altered(SCRAPED, &slow))));
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Disk), Verdict::Warn);
}

#[test]
fn a_slow_peer_link_warns_naming_the_pair() {
    let to = "54944d8e6137cb1d";
    let bounds = [
        "0.0001", "0.0002", "0.0004", "0.0008", "0.0016", "0.0032", "0.0064", "0.0128", "0.0256",
        "0.0512", "0.1024",
    ];
    let slow: Vec<String> = bounds
        .iter()
        .map(|le| {
            format!("etcd_network_peer_round_trip_time_seconds_bucket{{To=\"{to}\",le=\"{le}\"}}")
        })
        .collect();
    let slow: Vec<(&str, &str)> = slow.iter().map(|a| (a.as_str(), "0")).collect();
    let mut f = facts();
    f.metrics[1] = Ok(parse_metrics(&altered(SCRAPED, &slow)));
    let c = evaluate(&f, &[Change::Inspect]).remove(7);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert!(
        c.remedy.contains(&format!("m2 (0000000000000002)→{to}")),
        "{}",
        c.remedy
    );
    assert_eq!(c.members, vec!["m2 (0000000000000002)".to_string()]);
}

#[test]
fn a_database_near_its_quota_fails_an_add_and_warns_a_removal() {
    let mut f = facts();
    // 10 MiB files: a quota of 10.4 MiB is 96 % full, of 12 MiB 83 %.
    let quota = |f: &mut Facts, bytes: &str| {
        f.metrics[1] = Ok(parse_metrics(&altered(
            SCRAPED,
            &[("etcd_server_quota_backend_bytes", bytes)],
        )));
    };
    quota(&mut f, "10905190");
    assert_eq!(
        verdict(&f, Change::Add { learner: true }, CheckName::Db),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&f, Change::Promote(MemberId(3)), CheckName::Db),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&f, Change::Remove(MemberId(3)), CheckName::Db),
        Verdict::Warn
    );
    let c = evaluate(&f, &[Change::Inspect]).remove(4);
    assert!(c.remedy.contains("--quota-backend-bytes"), "{}", c.remedy);
    assert_eq!(c.members, vec!["m2 (0000000000000002)".to_string()]);
    quota(&mut f, "12582912");
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Db), Verdict::Warn);
    quota(&mut f, "2.147483648e+09");
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Db), Verdict::Ok);
}

#[test]
fn a_cluster_version_behind_the_members_fails() {
    let mut f = facts();
    f.version = version("3.5.17", "3.4.0");
    let c = evaluate(&f, &[Change::Inspect]).remove(3);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert!(c.remedy.contains("an upgrade is finishing"), "{}", c.remedy);
    f.version = version("3.5.17", "not_decided");
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Versions),
        Verdict::Ok
    );
}

#[test]
fn leader_changes_counted_during_the_checks_warn() {
    let mut f = facts();
    f.leader_metrics_again = Some(Ok(parse_metrics(&altered(
        SCRAPED,
        &[("etcd_server_leader_changes_seen_total", "2")],
    ))));
    let c = evaluate(&f, &[Change::Inspect]).remove(8);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert!(c.detail.contains("counted 1 then 2"), "{}", c.detail);
}
