//! A learner caught up by snapshot, as `/metrics` shows it on both ends:
//! etcd's snapshot series and the bytes to and from the peer on the leader
//! and on the learner, and what the leader's GetProgress says of its log.

use std::time::Duration;

use memberctl::proto::memberctl_v1::membership_client::MembershipClient;
use memberctl::proto::memberctl_v1::{GetProgressRequest, Progress};

use crate::util::faults::leader_among;
use crate::util::http::get;
use crate::util::local::{channel, runtime, Local};
use crate::util::members::add_and_start;
use crate::util::wait_for;
use crate::util::writer::load;

/// The value of the sample written exactly as `series` (name and labels).
pub(super) fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// `/metrics` of the member whose client endpoint (no scheme) is `endpoint`.
pub(super) fn metrics(endpoint: &str) -> String {
    let page = get(&format!("http://{endpoint}"), "/metrics");
    assert_eq!(page.status, 200);
    page.body
}

/// GetProgress asked of the member at `endpoint`.
pub(super) fn progress(endpoint: &str) -> Progress {
    runtime().block_on(async {
        let mut c = MembershipClient::new(channel(endpoint).await.unwrap());
        c.get_progress(GetProgressRequest {})
            .await
            .unwrap()
            .into_inner()
    })
}

/// A learner that joins once the log was compacted is caught up by a
/// snapshot: the leader counts it sent (and the bytes to the learner reach
/// the store's size), the learner counts it received and installed.
fn snapshot_catch_up_shows_in_the_leader_and_learner_metrics() {
    let local = Local::up(&["--snapshot-count", "20"]);
    let endpoints = local.endpoints();
    // A few MB, well past --snapshot-count entries: the log is compacted.
    load(&endpoints[0], "m", 400, 8 * 1024);
    let leader = leader_among(&endpoints).expect("a leader");
    let leader_ep = endpoints
        .iter()
        .find(|ep| {
            crate::util::faults::node_status(ep).is_ok_and(|s| s.member_id == leader.member_id)
        })
        .unwrap()
        .clone();
    // The leader says what its log keeps, and checkpoints went into it.
    let p = progress(&leader_ep);
    assert_eq!(p.snapshot_count, 20);
    assert_eq!(p.catch_up_entries, 20);
    assert!(p.first_index > 1, "the log was compacted: {p:?}");
    assert!(p.checkpoint_bytes > 0, "{p:?}");
    let db = sample(&metrics(&leader_ep), "etcd_mvcc_db_total_size_in_bytes").unwrap();
    assert!(db >= 3e6, "{db} bytes");

    let (learner_hex, _) = add_and_start(&local, "learner");
    let learner = u64::from_str_radix(&learner_hex, 16).unwrap();
    let learner_ep = local
        .client_url("learner")
        .trim_start_matches("http://")
        .to_string();
    // etcd's labels: IDs in hex without leading zeros.
    let to = format!("{{To=\"{learner:x}\"}}");
    let from = format!("{{From=\"{:x}\"}}", leader.member_id);
    let sent = |page: &str, name: &str| sample(page, &format!("{name}{to}")).unwrap_or(0.0);
    let received = |page: &str, name: &str| sample(page, &format!("{name}{from}")).unwrap_or(0.0);
    let (leader_page, learner_page) = wait_for(
        "the snapshot counted sent and received",
        Duration::from_secs(60),
        || {
            let l = metrics(&leader_ep);
            let r = metrics(&learner_ep);
            (sent(&l, "etcd_network_snapshot_send_success") >= 1.0
                && received(&r, "etcd_network_snapshot_receive_success") >= 1.0
                && sample(&r, "etcd_server_snapshot_apply_in_progress_total") == Some(0.0))
            .then_some((l, r))
        },
    );
    let bytes_out = sent(&leader_page, "etcd_network_peer_sent_bytes_total");
    assert!(
        bytes_out >= db,
        "sent {bytes_out} bytes, the store has {db}"
    );
    assert!(
        sent(
            &leader_page,
            "etcd_network_snapshot_send_total_duration_seconds_count"
        ) >= 1.0
    );
    assert_eq!(
        sent(&leader_page, "etcd_network_snapshot_send_inflights_total"),
        0.0
    );
    assert_eq!(
        sample(
            &leader_page,
            &format!(
                "etcd_network_active_peers{{Local=\"{:x}\",Remote=\"{learner:x}\"}}",
                leader.member_id
            )
        ),
        Some(1.0)
    );
    let bytes_in = received(&learner_page, "etcd_network_peer_received_bytes_total");
    assert!(
        bytes_in >= db,
        "received {bytes_in} bytes, the store has {db}"
    );
    assert!(
        received(
            &learner_page,
            "etcd_network_snapshot_receive_total_duration_seconds_count"
        ) >= 1.0
    );
    assert_eq!(
        received(
            &learner_page,
            "etcd_network_snapshot_receive_inflights_total"
        ),
        0.0
    );
    assert_eq!(
        sample(
            &learner_page,
            "etcd_server_snapshot_apply_in_progress_total"
        ),
        Some(0.0)
    );
    assert_eq!(
        sample(&learner_page, "etcd_mvcc_db_total_size_in_use_in_bytes").map(|s| s >= db),
        Some(true),
        "the learner holds the store"
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![snapshot_catch_up_shows_in_the_leader_and_learner_metrics,]
}
