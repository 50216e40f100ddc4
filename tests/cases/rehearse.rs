//! `cluster rehearse`: a replacement rehearsed on the engine and on Debian's etcd 3.4 under the steady writer, report.json's figures checked and report.html looked at in headless Chromium; refusals change nothing; a failing change is reported with its own exit code.

use std::path::Path;

use serde_json::Value;

use crate::util::chromium;
use crate::util::local::Local;
use crate::util::members::ids;
use crate::util::{free_port, memberctl_command, run};

/// The member list of the local cluster, as JSON.
fn list(local: &Local) -> Value {
    local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json()
}

/// `cluster rehearse` on `local` into `report` at 40 puts/s, `after` the
/// change as long as 2 s before it, JSON on stdout, the change `change`
/// (after `--`, from `memberctl member …`); its run.
fn rehearse(local: &Local, report: &Path, after: &str, change: &[&str]) -> crate::util::Run {
    let mut args = vec![
        "cluster",
        "rehearse",
        "--report",
        report.to_str().unwrap(),
        "--writer-rate",
        "40/s",
        "--before",
        "2s",
        "--after",
        after,
        "-w",
        "json",
        "--",
        "memberctl",
        "member",
    ];
    args.extend_from_slice(change);
    local.ctl(&args)
}

/// Rehearses replacing n3 by a new n4 on `local`, into `report`; the rehearsal's stdout document.
fn rehearse_replace(local: &Local, report: &Path) -> Value {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let change = [
        "replace",
        "n3",
        "--name",
        "n4",
        "--peer-urls",
        &peer,
        "--start-local",
        "--timeout",
        "40s",
    ];
    rehearse(local, report, "2s", &change).expect(0).json()
}

/// report.json of `dir`, with the checks every rehearsal of a replacement
/// passes: writes before, during and after; the steps in order; bytes
/// received by the new member; the leader sampled; the change done.
fn check_report(dir: &Path) -> Value {
    let r: Value = serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap())
        .expect("report.json is JSON");
    assert_eq!(r["schema"], 1);
    assert_eq!(r["change"]["ok"], true, "{}", r["change"]);
    assert_eq!(r["change"]["exit_code"], 0);
    assert!(
        r["timeline"]["settled"].as_bool().unwrap(),
        "{}",
        r["timeline"]
    );
    let s = &r["summary"];
    for window in ["before", "during", "after"] {
        assert!(
            s[window]["writes"].as_u64().unwrap() > 0,
            "no writes {window} the change: {s}"
        );
    }
    let writes = r["samples"]["writes"].as_array().unwrap();
    let acked = writes.iter().filter(|w| w["ok"] == true).count();
    assert!(acked * 2 > writes.len(), "most puts failed: {s}");
    // Per second: one row per second of the rehearsal, with percentiles.
    assert!(r["per_second"].as_array().unwrap().len() >= 5);
    let steps: Vec<(&str, &str, f64)> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["step"].as_str().unwrap(),
                s["member"].as_str().unwrap(),
                s["at_s"].as_f64().unwrap(),
            )
        })
        .collect();
    let at = |step: &str, member: &str| {
        steps
            .iter()
            .find(|(s, m, _)| *s == step && *m == member)
            .unwrap_or_else(|| panic!("no {step} of {member} among {steps:?}"))
            .2
    };
    let (add, start, promoted, removed) = (
        at("add", "n4"),
        at("start", "n4"),
        at("promoted", "n4"),
        at("removed", "n3"),
    );
    let t = &r["timeline"];
    let change = t["change_started_s"].as_f64().unwrap();
    assert!(change <= add, "{steps:?} {t}");
    assert!(
        add <= start && start <= promoted && promoted <= removed,
        "{steps:?}"
    );
    // Seen by the sampler every 250 ms: perhaps a tick after the change ended.
    assert!(removed <= t["ended_s"].as_f64().unwrap(), "{steps:?} {t}");
    assert!(
        s["bytes_received"].as_u64().unwrap() > 0,
        "the new member received nothing: {s}"
    );
    assert!(!r["new_member_bytes"].as_array().unwrap().is_empty());
    let c = s["catch_up_seconds"]
        .as_f64()
        .unwrap_or_else(|| panic!("no catch-up time: {s} {steps:?}"));
    assert!(c > 0.0, "{s}");
    assert!(
        r["prediction"]["bytes"].as_u64().is_some(),
        "{}",
        r["prediction"]
    );
    let leaders = r["leaders"].as_array().unwrap();
    assert!(
        leaders
            .iter()
            .any(|p| p["leader"].is_string() && p["term"].as_u64() > Some(0)),
        "no leader sampled"
    );
    r
}

/// The summary's figure at `key` (`before.p99_ms`) as the page shows it.
fn shown(summary: &Value, key: &str) -> String {
    let v = key.split('.').fold(summary, |v, k| &v[k]);
    match v {
        Value::Null => "–".into(),
        Value::Number(n) if n.is_u64() => n.to_string(),
        Value::Number(n) => format!("{:.3}", n.as_f64().unwrap()),
        other => panic!("summary.{key} is {other}"),
    }
}

/// The page rendered in Chromium: a screenshot that is not blank, three
/// charts, and every figure of the summary table equal to report.json's.
fn look_at_the_page(dir: &Path, r: &Value) {
    let page = dir.join("report.html");
    let profile = tempfile::tempdir().unwrap();
    let png = dir.join("report.png");
    chromium::screenshot(&page, &png, profile.path());
    let looked = chromium::look(&png);
    assert_eq!(looked.size, (1200, 2400));
    assert!(
        looked.inked > 0.03,
        "the screenshot is nearly blank: {:.3} of its pixels inked",
        looked.inked
    );
    assert!(looked.colours > 20, "{} colours", looked.colours);
    let dom = chromium::dump_dom(&page, profile.path());
    assert_eq!(dom.matches("<svg").count(), 3, "charts in the page");
    assert!(dom.matches("<polyline").count() >= 4, "lines in the charts");
    let mut figures = 0;
    for cell in dom.split("data-key=\"").skip(1) {
        let (key, rest) = cell.split_once('"').unwrap();
        let value = &rest[rest.find('>').unwrap() + 1..rest.find('<').unwrap()];
        let want = shown(&r["summary"], key);
        let value = if key.ends_with(".writes") {
            value.split(' ').next().unwrap()
        } else {
            value
        };
        assert_eq!(
            value, want,
            "summary.{key}: the page shows {value}, report.json {want}"
        );
        figures += 1;
    }
    assert!(figures >= 12, "{figures} figures in the summary table");
    if std::env::var_os("MEMBERCTL_BLESS").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rehearse-report.png");
        std::fs::copy(&png, docs).unwrap();
    }
}

/// A replacement rehearsed on the engine: the report's figures, and the
/// page looked at in Chromium.
fn a_replacement_is_rehearsed_on_the_engine() {
    let local = Local::up(&["--nodes", "3", "--snapshot-count", "100"]);
    let report = local.dir().join("report");
    let out = rehearse_replace(&local, &report);
    assert_eq!(out["change"]["ok"], true, "{out}");
    let r = check_report(&report);
    // The engine sends the new member a snapshot (its log is compacted).
    let steps: Vec<&str> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert!(steps.contains(&"snapshot_received"), "{steps:?}");
    assert_eq!(r["settings"]["server"], "engine");
    // stdout's summary is report.json's.
    assert_eq!(out["summary"], r["summary"]);
    let after = list(&local);
    assert_eq!(ids(&after).len(), 3, "{after}");
    look_at_the_page(&report, &r);
}

/// The same on Debian's etcd 3.4 (`cluster up --etcd`).
fn a_replacement_is_rehearsed_on_etcd_3_4() {
    let etcd = crate::util::etcd::etcd_binary().unwrap();
    let local = Local::up(&["--nodes", "3", "--etcd", etcd.to_str().unwrap()]);
    let report = local.dir().join("report");
    rehearse_replace(&local, &report);
    let r = check_report(&report);
    assert_eq!(r["settings"]["server"], "etcd");
    assert!(r["settings"]["server_version"]
        .as_str()
        .unwrap()
        .starts_with("3.4."));
    assert_eq!(ids(&list(&local)).len(), 3);
}

/// No change after `--`, a change that is not memberctl's or not a member
/// command, no local cluster: refused at once (exit 2), no report, nothing
/// changed. A change that fails is rehearsed, reported, and its exit code is
/// rehearse's.
fn refusals_change_nothing_and_a_failed_change_is_reported() {
    let empty = tempfile::tempdir().unwrap();
    let nowhere = empty.path().join("none");
    let report = empty.path().join("report");
    let r = run(&mut memberctl_command(&[
        "cluster",
        "rehearse",
        "--dir",
        nowhere.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--",
        "memberctl",
        "member",
        "list",
    ]))
    .expect(2);
    assert!(r.stderr.contains("no local cluster in"), "{}", r.stderr);
    assert!(!nowhere.exists() && !report.exists());

    let local = Local::up(&["--nodes", "1"]);
    let before = list(&local);
    let report = local.dir().join("report");
    let report_arg = report.to_str().unwrap();
    for (args, said) in [
        (vec![], "no change to rehearse; give it after `--`"),
        (
            vec!["memberctl", "member", "list"],
            "unexpected argument 'memberctl'",
        ),
        (
            vec!["--", "etcdctl", "member", "add", "x"],
            "the change must be a memberctl command, not \"etcdctl\"",
        ),
        (
            vec!["--", "memberctl", "cluster", "down"],
            "the change must be `memberctl member …`",
        ),
    ] {
        let mut a = vec!["cluster", "rehearse", "--report", report_arg];
        a.extend(args);
        let r = local.ctl(&a).expect(2);
        assert!(r.stderr.contains(said), "{a:?}: {}", r.stderr);
        assert!(!report.exists(), "{a:?} made the report directory");
    }
    assert_eq!(list(&local)["members"], before["members"]);

    // A change that fails: reported, the report written, its exit code.
    let r = local.ctl(&[
        "cluster",
        "rehearse",
        "--report",
        report_arg,
        "--before",
        "1s",
        "--after",
        "1s",
        "-w",
        "json",
        "--",
        "memberctl",
        "member",
        "remove",
        "nosuch",
    ]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("the rehearsed change `memberctl member remove nosuch` failed (exit code 3)"),
        "{}",
        r.stderr
    );
    let doc: Value =
        serde_json::from_slice(&std::fs::read(report.join("report.json")).unwrap()).unwrap();
    assert_eq!(doc["change"]["ok"], false);
    assert_eq!(doc["change"]["exit_code"], 3);
    assert!(
        doc["change"]["error"].as_str().unwrap().contains("nosuch"),
        "{}",
        doc["change"]
    );
    assert!(report.join("report.html").is_file());
    assert!(doc["summary"]["before"]["writes"].as_u64().unwrap() > 0);
    assert_eq!(list(&local)["members"], before["members"]);
}

/// Puts slower than the writer's period (every put crosses a 200 ms round
/// trip; the writer puts every 25 ms) do not slow the writer: it keeps its
/// rate, and each put is timed from when it was due.
fn the_writer_keeps_its_rate_over_a_slow_link() {
    let local = Local::up(&[
        "--nodes",
        "3",
        "--link",
        "rtt=200ms,bandwidth=1gbit,queue=4mb",
    ]);
    let report = local.dir().join("report");
    rehearse(&local, &report, "1s", &["list"]).expect(0);
    let r: Value =
        serde_json::from_slice(&std::fs::read(report.join("report.json")).unwrap()).unwrap();
    let writes = r["samples"]["writes"].as_array().unwrap();
    let ended = r["timeline"]["ended_s"].as_f64().unwrap();
    // One put every 25 ms for the whole run: at least 3 s × 40/s = 120 puts
    // (a writer that waited for each answer would make about 15; the margin
    // is for the writer's own start on a busy machine).
    assert!(ended >= 3.0, "{}", r["timeline"]);
    assert!(
        writes.len() as f64 >= 40.0 * ended * 0.75,
        "{} puts in {ended:.1} s",
        writes.len()
    );
    let at: Vec<f64> = writes.iter().map(|w| w["at_s"].as_f64().unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] <= w[1]), "not in order: {at:?}");
    let acked: Vec<f64> = writes
        .iter()
        .filter(|w| w["ok"] == true)
        .map(|w| w["ms"].as_f64().unwrap())
        .collect();
    assert!(acked.len() * 10 >= writes.len() * 9, "{}", r["summary"]);
    assert!(
        acked.iter().all(|ms| *ms >= 200.0),
        "a put answered faster than the link's round trip: {acked:?}"
    );
}

pub fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        a_replacement_is_rehearsed_on_the_engine: [Command("chromium")],
        a_replacement_is_rehearsed_on_etcd_3_4: [Etcd],
        refusals_change_nothing_and_a_failed_change_is_reported,
        the_writer_keeps_its_rate_over_a_slow_link,
    ]
}
