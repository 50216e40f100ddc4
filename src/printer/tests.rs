//! Unit tests of the printers: JSON schema keys, etcd-like simple lines, every format for every report.

use super::*;
use crate::model::{MemberId, MemberList};
use crate::workflow::add::{initial_cluster, AddedMember};

fn list() -> MemberList {
    MemberList::new(
        MemberId(0xc1),
        vec![
            Member {
                id: MemberId(0xa),
                name: "m1".into(),
                peer_urls: vec!["http://127.0.0.1:2380".into()],
                client_urls: vec!["http://127.0.0.1:2379".into()],
                is_learner: false,
            },
            Member {
                id: MemberId(0xb),
                name: String::new(),
                peer_urls: vec!["http://127.0.0.1:2480".into()],
                client_urls: vec![],
                is_learner: true,
            },
        ],
    )
}

fn added() -> AddedMember {
    let list = list();
    let member = list.members[1].clone();
    AddedMember {
        initial_cluster: initial_cluster(&list, &member, "m4"),
        initial_cluster_state: "existing".into(),
        name: "m4".into(),
        member,
        list,
        already_added: false,
    }
}

fn render(report: &Report, format: OutputFormat) -> String {
    let mut buf = Vec::new();
    write_report(&mut buf, report, format).unwrap();
    String::from_utf8(buf).unwrap()
}

#[test]
fn member_list_json_has_the_contract_keys() {
    let text = render(&Report::MemberList(list()), OutputFormat::Json);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["cluster_id"], "00000000000000c1");
    let m = &v["members"][1];
    let mut keys: Vec<&str> = m.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "client_urls",
            "id",
            "is_learner",
            "name",
            "peer_urls",
            "started"
        ]
    );
    assert_eq!(m["id"], "000000000000000b");
    assert_eq!(m["started"], false);
    assert_eq!(m["client_urls"], serde_json::json!([]));
}

#[test]
fn add_json_carries_how_to_start() {
    let v: serde_json::Value =
        serde_json::from_str(&render(&Report::Added(added()), OutputFormat::Json)).unwrap();
    assert_eq!(
        v["initial_cluster"],
        "m1=http://127.0.0.1:2380,m4=http://127.0.0.1:2480"
    );
    assert_eq!(v["initial_cluster_state"], "existing");
    assert_eq!(v["member"]["is_learner"], true);
    assert_eq!(v["members"].as_array().unwrap().len(), 2);
}

#[test]
fn simple_add_prints_etcd_start_lines() {
    let text = render(&Report::Added(added()), OutputFormat::Simple);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "Member 000000000000000b added as learner to cluster 00000000000000c1"
    );
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], "ETCD_NAME=\"m4\"");
    assert_eq!(
        lines[3],
        "ETCD_INITIAL_CLUSTER=\"m1=http://127.0.0.1:2380,m4=http://127.0.0.1:2480\""
    );
    assert_eq!(
        lines[4],
        "ETCD_INITIAL_ADVERTISE_PEER_URLS=\"http://127.0.0.1:2480\""
    );
    assert_eq!(lines[5], "ETCD_INITIAL_CLUSTER_STATE=\"existing\"");
}

#[test]
fn simple_list_matches_etcdctl_columns() {
    let text = render(&Report::MemberList(list()), OutputFormat::Simple);
    assert_eq!(
        text,
        "000000000000000a, started, m1, http://127.0.0.1:2380, http://127.0.0.1:2379, false\n\
         000000000000000b, unstarted, , http://127.0.0.1:2480, , true\n"
    );
}

#[test]
fn every_format_prints_every_report() {
    let l = list();
    let reports = vec![
        Report::MemberList(l.clone()),
        Report::Added(added()),
        Report::Removed {
            removed: l.members[1].clone(),
            list: l.clone(),
            moved: None,
        },
        Report::Plan(
            vec![crate::workflow::calc::quorum::Config::of(&l, &Default::default()).step("before")]
                .into(),
        ),
    ];
    for r in &reports {
        for f in [
            OutputFormat::Table,
            OutputFormat::Json,
            OutputFormat::Simple,
        ] {
            assert!(!render(r, f).is_empty(), "{f:?} of {r:?}");
        }
    }
    // A plan whose order was chosen says which and why, in every format.
    let ordered = Report::Plan(crate::workflow::calc::quorum::Plan {
        steps: vec![
            crate::workflow::calc::quorum::Config::of(&l, &Default::default()).step("before"),
        ],
        order: Some(crate::workflow::calc::order::Order {
            first: crate::workflow::calc::order::First::Remove,
            rule: "m3 is dead".into(),
        }),
    });
    let json: serde_json::Value =
        serde_json::from_str(&render(&ordered, OutputFormat::Json)).unwrap();
    assert_eq!(json["order"], "remove_first", "{json}");
    assert_eq!(json["order_rule"], "m3 is dead", "{json}");
    let unordered = render(&reports[3], OutputFormat::Json);
    let unordered: serde_json::Value = serde_json::from_str(&unordered).unwrap();
    assert!(unordered["order"].is_null(), "{unordered}");
    let table = render(&ordered, OutputFormat::Table);
    assert!(table.contains("Order: remove first: m3 is dead"), "{table}");
    let simple = render(&ordered, OutputFormat::Simple);
    assert!(
        simple.contains("order: remove_first: m3 is dead"),
        "{simple}"
    );
    let table = render(&Report::MemberList(l), OutputFormat::Table);
    assert!(table.contains("| ID "), "{table}");
    assert!(table.contains("IS LEARNER"), "{table}");
}

#[test]
fn error_json_shape() {
    let mut buf = Vec::new();
    let unstarted = [crate::error::Unstarted {
        id: "8e9e05c52164694d".into(),
        peer_urls: vec!["http://127.0.0.1:2380".into()],
        is_learner: true,
    }];
    json::error(&mut buf, "refused", "no", &["a".to_string()], &unstarted).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
    assert_eq!(v["error"]["kind"], "refused");
    assert_eq!(v["error"]["problems"][0], "a");
    let m = &v["error"]["unstarted"][0];
    assert_eq!(m["id"], "8e9e05c52164694d");
    assert_eq!(m["peer_urls"][0], "http://127.0.0.1:2380");
    assert_eq!(m["is_learner"], true);
}

#[test]
fn a_decision_line_says_its_phase_once() {
    use crate::workflow::autopilot::{Action, Decision, Phase, Reported, Why};
    let dead = list().members[0].clone();
    let reported = |phase| Reported {
        at: std::time::Duration::from_secs(3),
        autopilot: "ap".into(),
        leader: Some(MemberId(0xa)),
        decision: Decision {
            action: Action::RemoveDead { dead: dead.clone() },
            why: Why::Dead {
                for_: std::time::Duration::from_secs(31),
            },
            about: None,
        },
        phase,
    };
    for format in [OutputFormat::Simple, OutputFormat::Table] {
        let done = render(&Report::Decision(reported(Phase::Done)), format);
        assert!(done.contains(" done "), "{done}");
        assert!(
            !done.contains("done done") && !done.contains("done:"),
            "{done}"
        );
        let failed = render(
            &Report::Decision(reported(Phase::Failed("refused".into()))),
            format,
        );
        assert!(
            !failed.contains("failed failed") && !failed.contains("failed:"),
            "{failed}"
        );
        assert!(failed.contains("refused"), "{failed}");
    }
    // The sentence alone (stderr) names the phase once.
    assert!(reported(Phase::Done).sentence().starts_with("done: "));
}
