//! The checks judged on hand-made facts whose metrics are a real etcd's
//! scrape (tests/fixtures/metrics): thresholds, the change they are run
//! for, and `unknown` (never `ok`) where a source could not be read; the
//! checks on the servers' figures are in `server`.

use std::time::Duration;

use super::*;
use crate::client::metrics::parse_metrics;
use crate::model::{
    Alarm, AlarmKind, Member, MemberId, MemberList, MemberStatus, ProgressReport, ServerMetrics,
    ServerVersion,
};
use crate::workflow::ApiErrorKind;

mod catch_up;
mod changes;
mod peer_tls;
mod server;

/// A three-member etcd 3.4.23's `/metrics`, as scraped.
const SCRAPED: &str = include_str!("../../../../tests/fixtures/metrics/etcd-3.4.23.txt");

/// The scrape with every sample of `series` (a bucket's bounds included in
/// the name, e.g. `…_bucket{le="0.001"}`) given `value` instead.
fn altered(text: &str, changes: &[(&str, &str)]) -> String {
    text.lines()
        .map(|line| {
            for (series, value) in changes {
                if let Some(rest) = line.strip_prefix(series) {
                    if rest.starts_with(' ') {
                        return format!("{series} {value}");
                    }
                }
            }
            line.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The scrape as a member that has written for a while would give it: the
/// disk histograms' counts ×100 (the fixture's member had written 7 times).
fn busier(text: &str) -> String {
    text.lines()
        .map(|line| {
            let disk = line.starts_with("etcd_disk_wal_fsync_duration_seconds_")
                || line.starts_with("etcd_disk_backend_commit_duration_seconds_");
            match line.rsplit_once(' ') {
                Some((series, n)) if disk && !series.ends_with("_sum") => {
                    format!("{series} {}", n.parse::<f64>().unwrap() * 100.0)
                }
                _ => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn version(server: &str, cluster: &str) -> Option<Result<ServerVersion, ApiError>> {
    Some(Ok(ServerVersion {
        server: server.into(),
        cluster: cluster.into(),
    }))
}

fn member(id: u64, learner: bool) -> Member {
    Member {
        id: MemberId(id),
        name: format!("m{id}"),
        peer_urls: vec![format!("http://127.0.0.1:{}", 2380 + id)],
        client_urls: vec![format!("http://127.0.0.1:{}", 2370 + id)],
        is_learner: learner,
    }
}

fn status(id: u64, version: &str) -> MemberStatus {
    MemberStatus {
        member_id: MemberId(id),
        leader: MemberId(1),
        raft_term: 4,
        raft_index: 100,
        raft_applied_index: 100,
        version: version.to_string(),
        db_size: 10 << 20,
        db_size_in_use: 9 << 20,
        revision: 42,
        ..Default::default()
    }
}

/// Three voters (m1 leads), all answering 3.5.17; no alarm; a stable leader.
fn facts() -> Facts {
    let list = MemberList::new(MemberId(9), (1..=3).map(|i| member(i, false)).collect());
    let statuses = (1..=3).map(|i| Ok(status(i, "3.5.17"))).collect();
    let metrics = parse_metrics(&busier(SCRAPED));
    Facts {
        health: Health { list, statuses },
        alarms: Ok(Vec::new()),
        leader_again: Some(Ok(status(1, "3.5.17"))),
        metrics: vec![
            Ok(metrics.clone()),
            Ok(metrics.clone()),
            Ok(metrics.clone()),
        ],
        start_flags: (1..=3).map(|_| Ok(started(false))).collect(),
        leader_metrics_again: Some(Ok(metrics)),
        version: version("3.5.17", "3.5.0"),
        metrics_interval: Duration::from_secs(1),
        progress: None,
        told: CatchUpInputs::default(),
        peer_tls: PeerTlsFacts::default(),
    }
}

/// A member's start flags as read from its command line on `/debug/vars`.
fn started(force_new_cluster: bool) -> crate::model::StartFlags {
    crate::model::StartFlags {
        force_new_cluster,
        source: "its command line (/debug/vars)".into(),
        complete: true,
    }
}

fn verdict(facts: &Facts, change: Change, name: CheckName) -> Verdict {
    let checks = evaluate(facts, &[change]);
    checks.iter().find(|c| c.name == name).unwrap().verdict
}

#[test]
fn a_healthy_cluster_passes_everything() {
    let checks = evaluate(&facts(), &[Change::Inspect]);
    let names: Vec<CheckName> = checks.iter().map(|c| c.name).collect();
    // `upgrade` is evaluated only for `member check --for upgrade`.
    assert_eq!(names, CheckName::ALL[..CheckName::ALL.len() - 1]);
    for c in &checks {
        assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    }
    let disk = &checks[6];
    assert!(disk.detail.contains("wal fsync p99"), "{}", disk.detail);
    assert!(
        checks[7].detail.contains("m1 (0000000000000001)→"),
        "{}",
        checks[7].detail
    );
    assert!(checks[3].detail.contains("cluster version 3.5.0"));
    assert!(
        checks[4].detail.contains("% of the 2048.0 MiB quota"),
        "{}",
        checks[4].detail
    );
}

#[test]
fn nospace_fails_adds_and_promotions_and_warns_removals() {
    let mut f = facts();
    f.alarms = Ok(vec![Alarm {
        member_id: MemberId(2),
        kind: AlarmKind::NoSpace,
    }]);
    for change in [
        Change::Inspect,
        Change::Add { learner: true },
        Change::Promote(MemberId(3)),
    ] {
        assert_eq!(verdict(&f, change, CheckName::Alarms), Verdict::Fail);
    }
    assert_eq!(
        verdict(&f, Change::Remove(MemberId(3)), CheckName::Alarms),
        Verdict::Warn
    );
    let c = evaluate(&f, &[Change::Inspect]).remove(1);
    assert!(c.remedy.contains("etcdctl compaction 42"), "{}", c.remedy);
    assert_eq!(c.members, vec!["m2 (0000000000000002)".to_string()]);
}

#[test]
fn corrupt_fails_everything_but_removing_the_corrupt_member() {
    let mut f = facts();
    f.alarms = Ok(vec![Alarm {
        member_id: MemberId(2),
        kind: AlarmKind::Corrupt,
    }]);
    assert_eq!(
        verdict(&f, Change::Remove(MemberId(3)), CheckName::Alarms),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&f, Change::Remove(MemberId(2)), CheckName::Alarms),
        Verdict::Warn
    );
}

#[test]
fn unreadable_alarms_and_statuses_are_unknown_never_ok() {
    let mut f = facts();
    f.alarms = Err(ApiError::new(ApiErrorKind::Unavailable, "down"));
    f.health.statuses[2] = Err(ApiError::new(ApiErrorKind::Unavailable, "m3 down"));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Alarms),
        Verdict::Unknown
    );
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Versions),
        Verdict::Unknown
    );
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Apply),
        Verdict::Unknown
    );
    f.leader_again = Some(Err(ApiError::new(ApiErrorKind::Unavailable, "gone")));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Stability),
        Verdict::Unknown
    );
}

#[test]
fn a_second_learner_fails_only_a_learner_add() {
    let mut f = facts();
    let mut learner = member(4, true);
    learner.name.clear();
    learner.client_urls.clear();
    f.health.list = MemberList::new(
        MemberId(9),
        f.health
            .list
            .members
            .iter()
            .cloned()
            .chain([learner])
            .collect(),
    );
    f.health
        .statuses
        .push(Err(ApiError::new(ApiErrorKind::Unavailable, "not started")));
    let checks = evaluate(&f, &[Change::Add { learner: true }]);
    let c = &checks[2];
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.detail.contains("not started"), "{}", c.detail);
    assert!(
        c.remedy.contains("member remove 0000000000000004"),
        "{}",
        c.remedy
    );
    assert_eq!(
        verdict(&f, Change::Add { learner: false }, CheckName::Learners),
        Verdict::Ok
    );
    assert_eq!(
        verdict(&f, Change::Promote(MemberId(4)), CheckName::Learners),
        Verdict::Ok
    );
}

#[test]
fn two_minor_versions_fail_unless_an_upgrade_within_the_rules() {
    let mut f = facts();
    f.health.statuses[1] = Ok(status(2, "3.5.9"));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Versions),
        Verdict::Ok
    );
    // 3.5.9 and 3.5.17 are below 3.5.26: no member of 3.6 yet.
    f.health.statuses[2] = Ok(status(3, "3.6.1"));
    let c = evaluate(&f, &[Change::Inspect]).remove(3);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail.contains("3.5.17") && c.detail.contains("3.5.26"),
        "{}",
        c.detail
    );
    assert_eq!(c.members.len(), 2, "{c:?}");
    // On 3.5.26 and later, the upgrade by replacement may go on.
    f.health.statuses[0] = Ok(status(1, "3.5.30"));
    f.health.statuses[1] = Ok(status(2, "3.5.26"));
    let c = evaluate(&f, &[Change::Inspect]).remove(3);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert!(
        c.detail.contains("from 3.5 to 3.6 is under way"),
        "{}",
        c.detail
    );
    // Two minor versions apart: never.
    f.health.statuses[2] = Ok(status(3, "3.7.0"));
    let c = evaluate(&f, &[Change::Inspect]).remove(3);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert!(c.remedy.contains("finish it"), "{}", c.remedy);
}

#[test]
fn a_learner_is_promoted_only_by_the_upgrade_rules() {
    let mut f = facts();
    f.health.list.members.push(member(4, true));
    f.health.statuses.push(Ok(status(4, "3.6.2")));
    f.metrics.push(f.metrics[0].clone());
    let c = evaluate(&f, &[Change::Promote(MemberId(4))]).remove(3);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert!(
        c.detail.contains("3.6.2") && c.detail.contains("3.5.26"),
        "{}",
        c.detail
    );
    for s in f.health.statuses[..3].iter_mut().flatten() {
        s.version = "3.5.27".into();
    }
    let c = evaluate(&f, &[Change::Promote(MemberId(4))]).remove(3);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    f.health.statuses[3] = Ok(status(4, "3.4.30"));
    let c = evaluate(&f, &[Change::Promote(MemberId(4))]).remove(3);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert!(
        c.detail.contains("older than the cluster version"),
        "{}",
        c.detail
    );
}

#[test]
fn the_upgrade_check_names_the_members_and_the_order() {
    let f = facts();
    let checks = evaluate(&f, &[Change::Upgrade { to: (3, 6) }]);
    let c = checks.last().unwrap();
    assert_eq!(c.name, CheckName::Upgrade);
    assert_eq!(c.verdict, Verdict::Fail, "{c:?}");
    assert_eq!(c.members.len(), 3, "{c:?}");
    assert!(c.remedy.contains("the leader ("), "{}", c.remedy);
    let c = evaluate(&f, &[Change::Upgrade { to: (3, 5) }])
        .pop()
        .unwrap();
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(c.detail.contains("patch upgrade"), "{}", c.detail);
}

#[test]
fn apply_lag_warns_then_fails_at_etcds_gap_and_ignores_learners() {
    let mut f = facts();
    let lag = |f: &mut Facts, i: usize, gap: u64| {
        let mut s = status(i as u64 + 1, "3.5.17");
        s.raft_index = 10_000;
        s.raft_applied_index = 10_000 - gap;
        f.health.statuses[i] = Ok(s);
    };
    lag(&mut f, 1, APPLY_WARN);
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Apply), Verdict::Ok);
    lag(&mut f, 1, APPLY_WARN + 1);
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Apply),
        Verdict::Warn
    );
    lag(&mut f, 2, APPLY_FAIL + 1);
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Apply),
        Verdict::Fail
    );
    f.health.list.members[2].is_learner = true;
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Apply),
        Verdict::Warn
    );
}

#[test]
fn a_mostly_free_database_warns_to_defragment() {
    let mut f = facts();
    let mut s = status(2, "3.5.17");
    s.db_size = 200 << 20;
    s.db_size_in_use = 100 << 20;
    f.health.statuses[1] = Ok(s.clone());
    let c = evaluate(&f, &[Change::Add { learner: true }]).remove(4);
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert!(c.remedy.contains("etcdctl defrag"), "{}", c.remedy);
    // Less than half free, or under 64 MiB free: no warning.
    s.db_size_in_use = 101 << 20;
    f.health.statuses[1] = Ok(s);
    assert_eq!(verdict(&f, Change::Inspect, CheckName::Db), Verdict::Ok);
}

#[test]
fn a_leader_change_during_the_checks_warns() {
    let mut f = facts();
    let mut again = status(1, "3.5.17");
    again.raft_term = 5;
    again.leader = MemberId(2);
    f.leader_again = Some(Ok(again));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Stability),
        Verdict::Warn
    );
}

#[test]
fn a_failed_check_refuses_unless_skipped_and_names_match() {
    let mut f = facts();
    f.alarms = Ok(vec![Alarm {
        member_id: MemberId(2),
        kind: AlarmKind::NoSpace,
    }]);
    let checks = evaluate(&f, &[Change::Add { learner: true }]);
    let err = enforce(checks.clone(), &[], &crate::workflow::Silent).unwrap_err();
    assert_eq!(err.kind, crate::ErrorKind::Refused);
    assert!(
        err.message.contains("check alarms failed"),
        "{}",
        err.message
    );
    let passed = enforce(checks, &[CheckName::Alarms], &crate::workflow::Silent).unwrap();
    assert!(passed[1].skipped);
    for &name in CheckName::ALL {
        assert_eq!(name.as_str().parse::<CheckName>(), Ok(name));
    }
    assert!("all".parse::<CheckName>().is_err());
}

#[test]
fn a_lost_quorum_fails_every_change_but_a_removal() {
    let mut f = facts();
    for i in 1..3 {
        f.health.statuses[i] = Err(ApiError::new(ApiErrorKind::Unavailable, "down"));
    }
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::Quorum),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&f, Change::Add { learner: true }, CheckName::Quorum),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&f, Change::Remove(MemberId(3)), CheckName::Quorum),
        Verdict::Warn
    );
}

#[test]
fn a_member_left_with_force_new_cluster_warns_and_refuses_nothing() {
    let mut f = facts();
    f.start_flags[0] = Ok(started(true));
    let checks = evaluate(&f, &[Change::Add { learner: true }]);
    let c = checks
        .iter()
        .find(|c| c.name == CheckName::ForceNewCluster)
        .unwrap();
    assert_eq!(c.verdict, Verdict::Warn, "{c:?}");
    assert_eq!(c.members, vec!["m1 (0000000000000001)".to_string()]);
    assert!(c.detail.contains("removed for good"), "{}", c.detail);
    assert!(c.remedy.contains("before its next restart"), "{}", c.remedy);
    assert!(enforce(checks, &[], &crate::workflow::Silent).is_ok());
    // Unread where a member answered: unknown, never ok.
    let mut f = facts();
    f.start_flags[1] = Err(ApiError::new(ApiErrorKind::Unavailable, "HTTP 404"));
    assert_eq!(
        verdict(&f, Change::Inspect, CheckName::ForceNewCluster),
        Verdict::Unknown
    );
    // An environment that cannot be seen is said, the command line judged.
    let mut f = facts();
    f.start_flags[2] = Ok(crate::model::StartFlags {
        complete: false,
        ..started(false)
    });
    let checks = evaluate(&f, &[Change::Inspect]);
    let c = checks
        .iter()
        .find(|c| c.name == CheckName::ForceNewCluster)
        .unwrap();
    assert_eq!(c.verdict, Verdict::Ok);
    assert!(c.detail.contains("the environment of m3"), "{}", c.detail);
}
