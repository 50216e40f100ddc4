//! etcd's Maintenance service on the engine, through etcdctl 3.4 with
//! `http://host:port` and `host:port` endpoints, compared with real etcd;
//! HashKV across members; the space quota; the listeners' `:authority`
//! repair under many streams and large headers; snapshot save and restore.

use std::time::Duration;

use serde_json::Value;

use crate::util::faults::{kill9_all, leader_and_others, restart};
use crate::util::local::{runtime, Local};
use crate::util::members::add_and_start;
use crate::util::{self, free_port, wait_for, Etcd, Run};

/// stderr without the client's retry logs, and `endpoints` written as EP.
pub(crate) fn shown(r: &Run, endpoints: &[String]) -> String {
    let mut text = format!("exit {}\n{}", r.code, r.stdout);
    for l in r.stderr.lines().filter(|l| !l.starts_with("{\"level\"")) {
        text.push_str(l);
        text.push('\n');
    }
    for e in endpoints {
        text = text.replace(e.as_str(), "EP");
    }
    text
}

/// `endpoint status -w json`, parsed: (endpoint, status) pairs.
fn statuses(ctl: &std::path::Path, eps: &str) -> Vec<(String, Value)> {
    let r = util::etcdctl(ctl, eps, &["endpoint", "status", "-w", "json"]);
    assert_eq!(r.code, 0, "endpoint status at {eps}: {}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["Endpoint"].as_str().unwrap().to_string(),
                e["Status"].clone(),
            )
        })
        .collect()
}

/// The etcdctl commands that take endpoints one by one, against the engine
/// and a real etcd, with both endpoint forms: the same outputs where they do
/// not depend on the cluster, every field of Status filled.
fn etcdctl_maintenance_commands_with_both_endpoint_forms() {
    let ctl = util::require_etcdctl();
    let bin = util::require_etcd();
    let local = Local::up(&[]);
    let etcd = Etcd::start(bin, 1);
    let dir = tempfile::tempdir().unwrap();
    // `Local::endpoints` gives them bare; the URL form is the one etcdctl 3.4
    // sends as the :authority.
    let engine_eps: Vec<String> = local
        .endpoints()
        .iter()
        .map(|e| format!("http://{e}"))
        .collect();
    let etcd_eps: Vec<String> = etcd.endpoints().split(',').map(String::from).collect();
    for (who, eps) in [("engine", &engine_eps), ("etcd", &etcd_eps)] {
        let bare: Vec<String> = eps
            .iter()
            .map(|e| e.trim_start_matches("http://").to_string())
            .collect();
        util::etcdctl(&ctl, &eps.join(","), &["put", "k", "v"]).expect(0);
        for form in [eps, &bare] {
            let all = form.join(",");
            let st = statuses(&ctl, &all);
            assert_eq!(st.len(), eps.len(), "{who}");
            let leaders: Vec<u64> = st
                .iter()
                .map(|(_, s)| s["leader"].as_u64().unwrap())
                .collect();
            for (ep, s) in &st {
                assert!(
                    !s["version"].as_str().unwrap().is_empty(),
                    "{who} {ep}: {s}"
                );
                assert!(s["dbSize"].as_i64().unwrap() > 0, "{who} {ep}: {s}");
                assert!(s["dbSizeInUse"].as_i64().unwrap() > 0, "{who} {ep}: {s}");
                assert!(s["raftIndex"].as_u64().unwrap() > 0, "{who} {ep}: {s}");
                assert!(s["raftTerm"].as_u64().unwrap() > 0, "{who} {ep}: {s}");
                assert!(
                    s["raftAppliedIndex"].as_u64().unwrap() > 0,
                    "{who} {ep}: {s}"
                );
                assert!(
                    s["header"]["member_id"].as_u64().unwrap() > 0,
                    "{who} {ep}: {s}"
                );
            }
            assert!(
                leaders.iter().all(|l| *l == leaders[0] && *l != 0),
                "{who}: {leaders:?}"
            );
            let health = util::etcdctl(&ctl, &all, &["endpoint", "health"]);
            assert_eq!(health.code, 0, "{who}: {}", health.stderr);
            assert_eq!(
                health.stderr.matches("is healthy").count(),
                eps.len(),
                "{who}"
            );
            // HashKV: every member answers, and all answer alike.
            let hk = wait_for(
                "every member to hash alike",
                Duration::from_secs(10),
                || {
                    let r = util::etcdctl(&ctl, &all, &["endpoint", "hashkv", "-w", "json"]);
                    assert_eq!(r.code, 0, "{who} hashkv: {}", r.stderr);
                    let v: Value = serde_json::from_str(&r.stdout).unwrap();
                    let hashes: Vec<u64> = v
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| e["HashKV"]["hash"].as_u64().unwrap())
                        .collect();
                    hashes.iter().all(|h| *h == hashes[0]).then_some(hashes)
                },
            );
            assert_eq!(hk.len(), eps.len(), "{who}");
        }
    }
    // Commands whose output does not depend on the cluster: the same text.
    let file = |who: &str, form: &str| dir.path().join(format!("{who}-{form}.snap"));
    for (form, strip) in [("url", false), ("bare", true)] {
        let pick = |eps: &[String]| -> Vec<String> {
            eps.iter()
                .map(|e| {
                    if strip {
                        e.trim_start_matches("http://").to_string()
                    } else {
                        e.clone()
                    }
                })
                .collect()
        };
        let (engine, etcd_form) = (pick(&engine_eps), pick(&etcd_eps));
        for args in [
            vec!["alarm", "list"],
            vec!["alarm", "disarm"],
            vec!["defrag"],
            vec!["endpoint", "hashkv", "--rev=999999"],
        ] {
            let a = util::etcdctl(&ctl, &engine.join(","), &args);
            let b = util::etcdctl(&ctl, &etcd_form.join(","), &args);
            // Per endpoint lines: the engine has three, etcd one.
            let one = |r: &Run, eps: &[String]| {
                let text = shown(r, eps);
                let mut lines: Vec<&str> = text.lines().collect();
                lines.dedup();
                lines.join("\n")
            };
            assert_eq!(
                one(&a, &engine),
                one(&b, &etcd_form),
                "{form}: etcdctl {args:?}"
            );
        }
        let save = |eps: &[String], who: &str| {
            let f = file(who, form);
            let r = util::etcdctl(&ctl, &eps[0], &["snapshot", "save", f.to_str().unwrap()]);
            shown(&r, eps).replace(f.to_str().unwrap(), "FILE")
        };
        let (a, b) = (save(&engine, "engine"), save(&etcd_form, "etcd"));
        assert_eq!(a.lines().next(), b.lines().next(), "{form}: snapshot save");
        assert!(a.contains("Snapshot saved at FILE"), "{a}");
        // The engine's file is an etcd snapshot, whole.
        let r = local.ctl(&[
            "snapshot",
            "status",
            file("engine", form).to_str().unwrap(),
            "-w",
            "json",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.json()["format"], "etcd", "{}", r.stdout);
        assert!(r.json()["total_key"].as_u64().unwrap() >= 1);
    }
    // move-leader: refused by a follower (etcdctl needs the leader's
    // endpoint), done by the leader, with both forms.
    for strip in [false, true] {
        let (leader, others) = leader_and_others(&local);
        let form = |u: &str| {
            if strip {
                u.trim_start_matches("http://").to_string()
            } else {
                u.to_string()
            }
        };
        let target = &others[0];
        let r = util::etcdctl(
            &ctl,
            &form(&others[1].client_url),
            &["move-leader", &format!("{:x}", target.id)],
        );
        assert_ne!(r.code, 0);
        assert!(
            r.stderr.contains("no leader endpoint given"),
            "{}",
            r.stderr
        );
        let r = util::etcdctl(
            &ctl,
            &form(&leader.client_url),
            &["move-leader", &format!("{:x}", target.id)],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("Leadership transferred"), "{}", r.stdout);
        wait_for(
            "the new leader to be named",
            Duration::from_secs(10),
            || {
                let (l, _) = leader_and_others(&local);
                (l.id == target.id).then_some(())
            },
        );
    }
}

/// HashKV at one revision is the same on every member after writes, a
/// membership change (a member that joined by snapshot) and a kill -9 and
/// restart; a member whose keyspace differs would differ.
fn hashkv_is_equal_across_members_after_writes_a_change_and_a_restart() {
    let ctl = util::require_etcdctl();
    let local = Local::up(&["--snapshot-count", "20"]);
    let eps = local.endpoints().join(",");
    for i in 0..60 {
        util::etcdctl(
            &ctl,
            &eps,
            &["put", &format!("k{}", i % 7), &format!("v{i}")],
        )
        .expect(0);
    }
    util::etcdctl(&ctl, &eps, &["compaction", "20"]).expect(0);
    add_and_start(&local, "n4");
    local.ctl(&["member", "promote", "n4"]).expect(0);
    let pids: Vec<u32> = local
        .pids()
        .into_iter()
        .filter(|(n, _)| n == "n2")
        .map(|(_, p)| p)
        .collect();
    kill9_all(&pids);
    let n2 = local.client_url("n2");
    let alive: Vec<String> = local
        .endpoints()
        .into_iter()
        .filter(|e| n2.trim_start_matches("http://") != e)
        .collect();
    assert_eq!(alive.len(), 3);
    for i in 0..20 {
        util::etcdctl(&ctl, &alive.join(","), &["put", &format!("after{i}"), "x"]).expect(0);
    }
    restart(&local);
    let all = local.endpoints();
    assert_eq!(all.len(), 4);
    let st = statuses(&ctl, &all[0]);
    let rev = st[0].1["header"]["revision"].as_i64().unwrap();
    let hashes = wait_for(
        "every member to have applied the revision",
        Duration::from_secs(20),
        || {
            let r = util::etcdctl(
                &ctl,
                &all.join(","),
                &["endpoint", "hashkv", &format!("--rev={rev}"), "-w", "json"],
            );
            if r.code != 0 {
                return None;
            }
            let v: Value = serde_json::from_str(&r.stdout).ok()?;
            let hs: Vec<(u64, i64)> = v
                .as_array()?
                .iter()
                .map(|e| {
                    (
                        e["HashKV"]["hash"].as_u64().unwrap(),
                        e["HashKV"]["compact_revision"].as_i64().unwrap(),
                    )
                })
                .collect();
            (hs.len() == 4).then_some(hs)
        },
    );
    assert!(hashes.iter().all(|h| *h == hashes[0]), "{hashes:?}");
    assert_eq!(hashes[0].1, 20);
    // An earlier revision hashes differently (the check can fail).
    let r = util::etcdctl(
        &ctl,
        &all[0],
        &[
            "endpoint",
            "hashkv",
            &format!("--rev={}", rev - 1),
            "-w",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_ne!(v[0]["HashKV"]["hash"].as_u64().unwrap(), hashes[0].0);
}

/// Puts large values until the quota is passed, on the engine and on etcd:
/// the same error, a NOSPACE alarm, writes refused but deletes served; after
/// compaction, defragmentation and disarm, writes are accepted again.
fn quota_nospace_alarm_refuses_writes_until_compacted_defragmented_and_disarmed() {
    let ctl = util::require_etcdctl();
    let bin = util::require_etcd();
    let local = Local::up(&["--quota-backend-bytes", "12000000"]);
    let etcd = Etcd::start_with_flags(bin, 1, vec!["--quota-backend-bytes", "3000000"]);
    let value: Vec<u8> = (0..600_000u32)
        .map(|i| b'a' + (i.wrapping_mul(2_654_435_761) >> 27) as u8 % 26)
        .collect();
    let mut outcomes = Vec::new();
    for (who, eps) in [
        ("engine", local.endpoints().join(",")),
        ("etcd", etcd.endpoints()),
    ] {
        let put_big =
            |i: usize| util::etcdctl_in(&ctl, &eps, &["put", &format!("big{}", i % 4)], &value);
        let refused = (0..60)
            .map(put_big)
            .find(|r| r.code != 0)
            .unwrap_or_else(|| panic!("{who}: the quota was never passed"));
        let err = shown(&refused, &[]);
        let list = util::etcdctl(&ctl, &eps, &["alarm", "list"]).expect(0);
        assert!(
            list.stdout.contains("alarm:NOSPACE"),
            "{who}: {}",
            list.stdout
        );
        let st = statuses(&ctl, &eps);
        assert!(
            st[0].1["errors"].to_string().contains("alarm:NOSPACE"),
            "{who}: {:?}",
            st[0].1
        );
        let small = util::etcdctl(&ctl, &eps, &["put", "small", "x"]);
        let del = util::etcdctl(&ctl, &eps, &["del", "big1"]);
        let rev = statuses(&ctl, &eps)[0].1["header"]["revision"]
            .as_i64()
            .unwrap();
        util::etcdctl(&ctl, &eps, &["compaction", "--physical", &rev.to_string()]).expect(0);
        util::etcdctl(&ctl, &eps, &["defrag"]).expect(0);
        let still = util::etcdctl(&ctl, &eps, &["put", "small", "x"]);
        util::etcdctl(&ctl, &eps, &["alarm", "disarm"]).expect(0);
        let list_after = util::etcdctl(&ctl, &eps, &["alarm", "list"]).expect(0);
        let after = util::etcdctl(&ctl, &eps, &["put", "small", "x"]);
        outcomes.push((
            who,
            vec![
                err,
                shown(&small, &[]),
                shown(&del, &[]),
                shown(&still, &[]),
                list_after.stdout,
                shown(&after, &[]),
            ],
        ));
    }
    assert_eq!(outcomes[0].1, outcomes[1].1, "engine vs etcd");
    assert!(
        outcomes[0].1[0].contains("etcdserver: mvcc: database space exceeded"),
        "{:?}",
        outcomes[0]
    );
    assert!(outcomes[0].1[5].starts_with("exit 0"), "{:?}", outcomes[0]);
}

/// Many concurrent requests on one connection, each with a header block
/// larger than a frame (CONTINUATION frames, Huffman-coded and indexed by
/// h2's client): the listener's header repair keeps every one intact.
fn many_streams_with_large_huffman_coded_headers_pass_the_listener() {
    use memberctl::proto::etcdserverpb as epb;
    use memberctl::proto::etcdserverpb::kv_client::KvClient;
    let local = Local::up(&["--nodes", "1"]);
    let ep = local.endpoints()[0].clone();
    runtime().block_on(async move {
        let ch = crate::util::local::channel(&ep).await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..64u32 {
            let ch = ch.clone();
            tasks.push(tokio::spawn(async move {
                let mut req = tonic::Request::new(epb::PutRequest {
                    key: format!("h{i}").into_bytes(),
                    value: vec![b'v'; 100],
                    ..Default::default()
                });
                // 30 KiB of metadata: more than one 16 KiB frame once Huffman-coded.
                let big = "abcdefghij".repeat(3072) + &i.to_string();
                req.metadata_mut().insert("x-large", big.parse().unwrap());
                req.metadata_mut()
                    .insert("x-same", "indexed-by-the-client".parse().unwrap());
                KvClient::new(ch).put(req).await.map(|_| ())
            }));
        }
        for t in tasks {
            t.await.unwrap().expect("a put with large headers");
        }
        let r = KvClient::new(ch)
            .range(epb::RangeRequest {
                key: b"h".to_vec(),
                range_end: b"i".to_vec(),
                count_only: true,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.count, 64);
    });
}

/// `memberctl snapshot save` from the engine (an etcd snapshot), `snapshot
/// restore` into a new one-member cluster: the keys, their history and the
/// revision are there;
/// the cluster and member IDs are new; a damaged file is refused.
fn snapshot_save_and_restore_into_a_new_cluster() {
    let local = Local::up(&["--nodes", "1"]);
    let ep = local.endpoints()[0].clone();
    for i in 0..30 {
        crate::util::local::put(&ep, &format!("key{}", i % 10), &format!("value{i}")).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.snap");
    let f = file.to_str().unwrap();
    let saved = local
        .ctl(&["--endpoints", &ep, "snapshot", "save", f, "-w", "json"])
        .expect(0)
        .json();
    assert_eq!(saved["format"], "etcd", "{saved}");
    assert_eq!(saved["revision"], 31);
    // 30 revisions of `key`, `consistent_index` of `meta`, the member, the
    // cluster version and the auth revision.
    assert_eq!(saved["total_key"], 34, "{saved}");
    // A damaged copy is refused, and nothing is created.
    let damaged = util::damaged_copy(&file, dir.path(), "damaged.snap");
    let (peer, client) = (free_port(), free_port());
    let peer_url = format!("http://127.0.0.1:{peer}");
    let data = dir.path().join("r1");
    let r = util::restore_r1(&damaged, &data, &peer_url, &[]).expect(2);
    assert!(
        r.stderr.contains("SHA-256 trailer") && r.stderr.contains("is not the hash"),
        "{}",
        r.stderr
    );
    assert!(!data.exists());
    let r = util::restore_r1(&file, &data, &peer_url, &[]).expect(0);
    assert!(r.stdout.contains("restored"), "{}", r.stdout);
    let client_url = format!("http://127.0.0.1:{client}");
    let mut node = util::run_r1(&data, &peer_url, &client_url);
    let kvs = wait_for(
        "the restored member to serve",
        Duration::from_secs(20),
        || crate::util::local::get_prefix_linearizable(&client_url, "key").ok(),
    );
    let new_list = util::memberctl(&["--endpoints", &client_url, "member", "list", "-w", "json"]);
    let _ = node.kill();
    let _ = node.wait();
    assert_eq!(kvs.len(), 10);
    assert!(
        kvs.contains(&("key9".to_string(), "value29".to_string())),
        "{kvs:?}"
    );
    let old_list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    let new_list = new_list.expect(0).json();
    assert_eq!(new_list["members"].as_array().unwrap().len(), 1);
    assert_eq!(new_list["members"][0]["name"], "r1");
    assert_ne!(new_list["cluster_id"], old_list["cluster_id"]);
    assert_ne!(new_list["members"][0]["id"], old_list["members"][0]["id"]);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        etcdctl_maintenance_commands_with_both_endpoint_forms: [Etcd, Etcdctl],
        hashkv_is_equal_across_members_after_writes_a_change_and_a_restart: [Etcdctl],
        quota_nospace_alarm_refuses_writes_until_compacted_defragmented_and_disarmed: [Etcd, Etcdctl],
        many_streams_with_large_huffman_coded_headers_pass_the_listener,
        snapshot_save_and_restore_into_a_new_cluster,
    ]
}
