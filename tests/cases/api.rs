//! etcd's KV, Txn, Compact, Watch and Lease on the engine: the same etcdctl
//! 3.4 commands against the engine and a real etcd, outputs compared; lock
//! and elect with two contenders.

use std::time::Duration;

use crate::util::local::Local;
use crate::util::streamed::Streamed;
use crate::util::{self, wait_for, Etcd, Run};

/// What a run shows a user, comparable across clusters: the exit code,
/// stdout (a JSON document without its header, which names the cluster),
/// and stderr without the client's retry logs; lease IDs as `LEASE`.
fn shown(r: &Run, lease: Option<&str>) -> String {
    let stdout = match serde_json::from_str::<serde_json::Value>(&r.stdout) {
        Ok(mut v) => {
            if let Some(o) = v.as_object_mut() {
                o.remove("header");
            }
            v.to_string()
        }
        Err(_) => r.stdout.clone(),
    };
    let stderr: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.starts_with("{\"level\""))
        .collect();
    let text = remaining(&format!("exit {}\n{stdout}\n{}", r.code, stderr.join("\n")));
    match lease {
        Some(id) => text.replace(id, "LEASE"),
        None => text,
    }
}

/// A lease's remaining seconds (`remaining(99s)`), which depend on timing,
/// as `remaining(≥95s)` when they are at least 95 (the script's leases are
/// granted for 100 s a moment before).
fn remaining(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("remaining(") {
        let (head, tail) = rest.split_at(at + "remaining(".len());
        out.push_str(head);
        let digits: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>() {
            Ok(n) if n >= 95 => out.push_str("≥95"),
            _ => out.push_str(&digits),
        }
        rest = &tail[digits.len()..];
    }
    out.push_str(rest);
    out
}

/// The commands compared, with their standard input.
fn script() -> Vec<(Vec<&'static str>, Vec<u8>)> {
    let txn = b"value(\"a\") = \"2\"\n\nput a 3\nget a\n\nput a x\n\n".to_vec();
    let txn_fail = b"mod(\"a\") > \"100\"\nversion(\"zz\") = \"0\"\n\nput ok yes\n\ndel b --prev-kv\nget a c\n\n".to_vec();
    let dup = b"\nput d 1\nput d 2\n\n\n".to_vec();
    let big = vec![b'v'; 1600 * 1024];
    let none = Vec::new;
    let c = |a: &[&'static str]| a.to_vec();
    vec![
        (c(&["put", "a", "1"]), none()),
        (c(&["put", "a", "2"]), none()),
        (c(&["put", "b", "1"]), none()),
        (c(&["put", "c", "3", "--prev-kv"]), none()),
        (c(&["put", "c", "4", "--prev-kv"]), none()),
        (c(&["get", "a", "--rev=2"]), none()),
        (c(&["get", "a", "--rev=99"]), none()),
        (c(&["get", "a", "c"]), none()),
        (
            c(&[
                "get",
                "a",
                "--from-key",
                "--sort-by=VALUE",
                "--order=DESCEND",
            ]),
            none(),
        ),
        (
            c(&["get", "a", "--from-key", "--limit=2", "-w", "json"]),
            none(),
        ),
        (
            c(&[
                "get",
                "a",
                "--from-key",
                "--sort-by=CREATE",
                "--order=DESCEND",
                "--keys-only",
            ]),
            none(),
        ),
        (
            c(&[
                "get",
                "a",
                "--from-key",
                "--sort-by=MODIFY",
                "--limit=1",
                "-w",
                "json",
            ]),
            none(),
        ),
        (
            c(&[
                "get",
                "a",
                "--from-key",
                "--sort-by=VERSION",
                "--order=ASCEND",
            ]),
            none(),
        ),
        (c(&["get", "a", "--prefix", "--print-value-only"]), none()),
        (c(&["txn"]), txn.clone()),
        (c(&["txn", "-w", "json"]), txn_fail),
        (c(&["txn", "-i"]), txn),
        (c(&["txn"]), dup),
        (c(&["del", "b", "--prev-kv"]), none()),
        (c(&["compaction", "3"]), none()),
        (c(&["get", "a", "--rev=2"]), none()),
        (c(&["get", "a", "--rev=3", "-w", "json"]), none()),
        (c(&["compaction", "3"]), none()),
        (c(&["compaction", "--physical", "5"]), none()),
        (c(&["compaction", "99"]), none()),
        (c(&["put", "x", "y", "--lease=1234"]), none()),
        (c(&["lease", "revoke", "1234"]), none()),
        (c(&["lease", "timetolive", "1234"]), none()),
        (c(&["lease", "keep-alive", "--once", "1234"]), none()),
        (c(&["put", "big"]), big),
        (
            c(&["del", "a", "--from-key", "--prev-kv", "-w", "json"]),
            none(),
        ),
        (c(&["get", "a", "--from-key", "-w", "json"]), none()),
    ]
}

/// Runs the script, then a lease's life, against one cluster.
fn transcript(etcdctl: &std::path::Path, eps: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (args, input) in script() {
        let r = util::etcdctl_in(etcdctl, eps, &args, &input);
        out.push(format!("$ etcdctl {}\n{}", args.join(" "), shown(&r, None)));
    }
    let grant = util::etcdctl(etcdctl, eps, &["lease", "grant", "100"]).expect(0);
    let id = grant
        .stdout
        .split_whitespace()
        .nth(1)
        .expect("lease id")
        .to_string();
    let lease_flag = format!("--lease={id}");
    let life: Vec<Vec<&str>> = vec![
        vec!["put", "held", "v", &lease_flag],
        vec!["lease", "timetolive", "--keys", &id],
        vec!["put", "held2", "v", &lease_flag],
        vec!["get", "held", "-w", "json"],
        vec!["lease", "keep-alive", "--once", &id],
        vec!["lease", "list"],
        vec!["lease", "timetolive", &id],
        vec!["lease", "revoke", &id],
        vec!["get", "held", "--prefix", "-w", "json"],
        vec!["lease", "timetolive", &id],
    ];
    out.push(shown(&grant, Some(&id)));
    for args in life {
        let r = util::etcdctl(etcdctl, eps, &args);
        let id_dec = i64::from_str_radix(&id, 16).unwrap().to_string();
        let text = shown(&r, Some(&id)).replace(&id_dec, "LEASE");
        out.push(format!(
            "$ etcdctl {}\n{text}",
            args.join(" ").replace(&id, "LEASE")
        ));
    }
    out
}

/// The same etcdctl commands — put, get at a revision, sorted, limited and
/// key-only reads, txn (both input modes, failure branch, duplicate keys),
/// del --prev-kv, compaction (also physical, repeated, future), unknown
/// leases, an oversized put, a lease's grant/attach/keep-alive/list/
/// time-to-live/revoke — answer the same on the engine as on etcd 3.4.
fn etcdctl_kv_txn_compaction_and_lease_match_etcd() {
    let (etcd_bin, etcdctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start(etcd_bin, 1);
    let local = Local::up(&[]);
    let want = transcript(&etcdctl, &etcd.endpoints());
    let got = transcript(&etcdctl, &local.endpoints().join(","));
    for (w, g) in want.iter().zip(&got) {
        assert_eq!(
            g, w,
            "the engine (left) answers otherwise than etcd (right)"
        );
    }
    assert_eq!(want.len(), got.len());
}

/// What `etcdctl watch` prints for history and for live writes, with
/// --prefix, --rev, --prev-kv and a compacted start.
fn watch_transcript(etcdctl: &std::path::Path, eps: &str) -> Vec<String> {
    let ctl = |args: &[&str]| util::etcdctl(etcdctl, eps, args).expect(0);
    for (k, v) in [("w1", "a"), ("w2", "b"), ("w1", "c"), ("x", "d")] {
        ctl(&["put", k, v]);
    }
    ctl(&["del", "w2"]);
    let limit = Duration::from_secs(10);
    let mut out = Vec::new();
    // History: every change to w* from revision 2 (4 events, 3 lines each
    // with --prev-kv for those that had one: PUT/key/value [+prev key/value]).
    let history = Streamed::start(
        etcdctl,
        eps,
        &["watch", "--prefix", "w", "--rev=2", "--prev-kv"],
    );
    out.extend(history.take(13, limit));
    // Live: a watch of one key sees the next write to it only.
    let live = Streamed::start(etcdctl, eps, &["watch", "w1"]);
    wait_for("the live watch to be created", limit, || {
        // etcdctl prints nothing on creation: write until an event shows.
        ctl(&["put", "w1", "live"]);
        let got = live.take(3, Duration::from_millis(500));
        (!got.is_empty()).then_some(got)
    })
    .into_iter()
    .take(3)
    .for_each(|l| out.push(l));
    // One member for both: a watch on another member may start before that
    // member has applied the compaction (on etcd as on the engine).
    let one = eps.split(',').next().unwrap_or(eps);
    util::etcdctl(etcdctl, one, &["compaction", "4"]).expect(0);
    let compacted = util::etcdctl(etcdctl, one, &["watch", "w1", "--rev=2"]);
    let stderr: Vec<&str> = compacted
        .stderr
        .lines()
        .filter(|l| !l.starts_with("{\"level\""))
        .collect();
    out.push(format!("exit {} {}", compacted.code, stderr.join(" ")));
    out
}

/// `etcdctl watch` prints the same on the engine as on etcd: history from a
/// revision with previous values, a live event, a compacted start revision.
fn etcdctl_watch_matches_etcd() {
    let (etcd_bin, etcdctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start(etcd_bin, 1);
    let local = Local::up(&[]);
    let want = watch_transcript(&etcdctl, &etcd.endpoints());
    let got = watch_transcript(&etcdctl, &local.endpoints().join(","));
    assert_eq!(
        got, want,
        "the engine (left) answers otherwise than etcd (right)"
    );
    assert!(want.len() >= 17, "{want:?}");
}

/// `etcdctl lock` and `etcdctl elect` with two contenders on the engine: the
/// second gets the lock once the first is killed (-9: its session lease
/// expires) and becomes leader once the first resigns (SIGTERM).
fn lock_and_elect_pass_to_the_second_contender() {
    let etcdctl = util::require_etcdctl();
    let local = Local::up(&[]);
    let eps = local.endpoints();
    let limit = Duration::from_secs(20);
    let first = Streamed::start(&etcdctl, &eps[0], &["lock", "--ttl=2", "L"]);
    let held = first.take(1, limit);
    assert!(
        held.first().is_some_and(|l| l.starts_with("L/")),
        "{held:?}"
    );
    let second = Streamed::start(&etcdctl, &eps[1], &["lock", "--ttl=2", "L"]);
    assert!(
        second.take(1, Duration::from_secs(1)).is_empty(),
        "both hold the lock"
    );
    local.kill9(first.pid());
    let got = second.take(1, limit);
    assert!(got.first().is_some_and(|l| l.starts_with("L/")), "{got:?}");

    let one = Streamed::start(&etcdctl, &eps[1], &["elect", "E", "one"]);
    assert_eq!(one.take(2, limit).get(1).map(String::as_str), Some("one"));
    let two = Streamed::start(&etcdctl, &eps[2], &["elect", "E", "two"]);
    assert!(
        two.take(1, Duration::from_secs(1)).is_empty(),
        "two leaders"
    );
    let observer = Streamed::start(&etcdctl, &eps[0], &["elect", "-l", "E"]);
    assert_eq!(
        observer.take(2, limit).get(1).map(String::as_str),
        Some("one")
    );
    // SIGTERM: etcdctl resigns and closes its session.
    unsafe { libc::kill(one.pid() as i32, libc::SIGTERM) };
    assert_eq!(two.take(2, limit).get(1).map(String::as_str), Some("two"));
    assert_eq!(
        observer.take(2, limit).get(1).map(String::as_str),
        Some("two")
    );
}

/// Through a follower, every answer names the follower and its term in its
/// header, also when the leader did the work (etcd's members each answer
/// for themselves): a put, a linearizable get and a member list, by etcdctl
/// on etcd 3.4 and on the engine (which passes these on to its leader);
/// and what was written through it, its own serializable read shows at once.
fn a_follower_answers_in_its_own_name() {
    let (etcd_bin, etcdctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start(etcd_bin, 3);
    let local = Local::up(&[]);
    let etcd_eps: Vec<String> = etcd.endpoints().split(',').map(String::from).collect();
    for (cluster, eps) in [("etcd", etcd_eps), ("the engine", local.endpoints())] {
        let (follower, me) = wait_for("a follower", Duration::from_secs(10), || {
            eps.iter().find_map(|e| {
                let s = util::faults::node_status(e).ok()?;
                (s.leader != 0 && s.leader != s.member_id).then(|| (e.clone(), s))
            })
        });
        for args in [
            &["put", "answered", "here"][..],
            &["get", "answered"],
            &["member", "list"],
        ] {
            let r = util::etcdctl(&etcdctl, &follower, &[args, &["-w", "json"]].concat());
            assert_eq!(r.code, 0, "{cluster}: etcdctl {args:?}: {}", r.stderr);
            let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
            assert_eq!(
                v["header"]["member_id"].as_u64(),
                Some(me.member_id),
                "{cluster}: etcdctl {args:?} through follower {follower}: {}",
                r.stdout
            );
            assert_eq!(
                v["header"]["raft_term"].as_u64(),
                Some(me.raft_term),
                "{cluster}: etcdctl {args:?}: {}",
                r.stdout
            );
        }
        // What a client wrote through the follower, the follower's own
        // (serializable) read shows at once: it answered once it applied
        // the write, for a put, a delete and a txn alike.
        for i in 0..10 {
            let value = format!("v{i}");
            let writes: [&[&str]; 3] = [&["put", "mine", &value], &["del", "mine"], &["txn"]];
            for write in writes {
                let r = if write == ["txn"] {
                    util::etcdctl_in(
                        &etcdctl,
                        &follower,
                        &["txn"],
                        format!("\nput mine {value}\n\n\n").as_bytes(),
                    )
                } else {
                    util::etcdctl(&etcdctl, &follower, write)
                };
                assert_eq!(r.code, 0, "{cluster}: etcdctl {write:?}: {}", r.stderr);
                let seen = util::etcdctl(
                    &etcdctl,
                    &follower,
                    &["get", "mine", "--consistency=s", "--print-value-only"],
                );
                let expect = if write == ["del", "mine"] {
                    ""
                } else {
                    value.as_str()
                };
                assert_eq!(
                    seen.stdout.trim(),
                    expect,
                    "{cluster}: the follower's own read after etcdctl {write:?}"
                );
            }
        }
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        etcdctl_kv_txn_compaction_and_lease_match_etcd: [Etcd, Etcdctl],
        etcdctl_watch_matches_etcd: [Etcd, Etcdctl],
        lock_and_elect_pass_to_the_second_contender: [Etcdctl],
        a_follower_answers_in_its_own_name: [Etcd, Etcdctl],
    ]
}
