//! Upgrades by replacing members: `member check --for upgrade` and the promotion rules on real etcd, older patch releases (3.5.25, 3.6.10) beside the current ones.

use crate::util::members::add_learner_at;
use crate::util::{self, check_named as check, free_port, Etcd};

/// `member check --for upgrade VERSION` as JSON: the exit code and the
/// `upgrade` check.
fn upgrade_check(etcd: &Etcd, version: &str) -> (i32, serde_json::Value) {
    let r = etcd.ctl(&["member", "check", "--for", "upgrade", version, "-w", "json"]);
    let doc = r.json();
    (r.code, check(&doc, "upgrade").clone())
}

/// Three 3.5.25 members: an upgrade to 3.6 fails naming 3.5.26 and each
/// member; a 3.6 learner added is not promoted (and stays a learner); once
/// the members are rolled to 3.5.34 the check passes, and the same learner is
/// promoted: the upgrade by replacement goes on, `versions` warns that it is
/// under way.
fn an_upgrade_to_3_6_waits_for_3_5_26() {
    let (old, patched, next) = (
        util::versions::etcd_server("3.5.25"),
        util::versions::etcd_server("3.5"),
        util::versions::etcd_server("3.6"),
    );
    let mut etcd = Etcd::start(old, 3);
    etcd.wait_healthy();

    let (code, up) = upgrade_check(&etcd, "3.6");
    assert_eq!(code, 3, "{up}");
    assert_eq!(up["result"], "fail", "{up}");
    let detail = up["detail"].as_str().unwrap();
    assert!(detail.contains("3.5.26"), "{up}");
    for m in ["m1", "m2", "m3"] {
        assert!(detail.contains(&format!("{m} (")), "{m}: {up}");
        assert_eq!(up["figures"]["version"][m], "3.5.25", "{up}");
    }
    assert!(
        up["remedy"].as_str().unwrap().contains("the leader ("),
        "{up}"
    );
    let (_, far) = upgrade_check(&etcd, "3.7");
    assert!(
        far["remedy"].as_str().unwrap().contains("first to 3.6"),
        "{far}"
    );

    // A 3.6 learner joins the 3.5.25 cluster; promoting it is refused.
    let peer_port = free_port();
    let peer = format!("http://127.0.0.1:{peer_port}");
    let added = add_learner_at(|a| etcd.ctl(a), "m4", &peer);
    let initial = added["initial_cluster"].as_str().unwrap().to_string();
    etcd.start_added_on("m4", peer_port, &initial, next);
    let promote = ["member", "promote", "m4", "--timeout", "180s", "-w", "json"];
    let r = etcd.ctl(&promote);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("3.5.26") && r.stderr.contains("m4"),
        "{}",
        r.stderr
    );
    let m4 = |list: &serde_json::Value| {
        list["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "m4")
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        m4(&etcd.list())["is_learner"],
        true,
        "refused, yet promoted"
    );

    // Rolled to 3.5.34, one member at a time: the upgrade may go on.
    for i in 0..3 {
        etcd.restart_on(i, patched.clone());
        etcd.wait_healthy();
    }
    let (_, up) = upgrade_check(&etcd, "3.6");
    assert_eq!(up["result"], "ok", "{up}");
    let r = etcd.ctl(&promote).expect(0);
    assert_eq!(m4(&etcd.list())["is_learner"], false, "{}", r.stdout);
    let doc = etcd.ctl(&["member", "check", "-w", "json"]).json();
    let versions = check(&doc, "versions");
    assert_eq!(versions["result"], "warn", "{versions}");
    assert!(
        versions["detail"]
            .as_str()
            .unwrap()
            .contains("an upgrade from 3.5 to 3.6 is under way"),
        "{versions}"
    );
}

/// Three 3.6.10 members: an upgrade to 3.7 fails naming 3.6.11.
fn an_upgrade_to_3_7_waits_for_3_6_11() {
    let etcd = Etcd::start(util::versions::etcd_server("3.6.10"), 3);
    etcd.wait_healthy();
    let (code, up) = upgrade_check(&etcd, "3.7");
    assert_eq!(code, 3, "{up}");
    assert_eq!(up["result"], "fail", "{up}");
    let detail = up["detail"].as_str().unwrap();
    assert!(detail.contains("3.6.11"), "{up}");
    for m in ["m1", "m2", "m3"] {
        assert!(detail.contains(&format!("{m} (")), "{m}: {up}");
        assert_eq!(up["figures"]["version"][m], "3.6.10", "{up}");
    }
    let (code, patch) = upgrade_check(&etcd, "3.6.15");
    assert_eq!((code, &patch["result"]), (0, &"ok".into()), "{patch}");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        an_upgrade_to_3_6_waits_for_3_5_26: [EtcdServer("3.5.25"), EtcdServer("3.5"), EtcdServer("3.6")],
        an_upgrade_to_3_7_waits_for_3_6_11: [EtcdServer("3.6.10")],
    ]
}
