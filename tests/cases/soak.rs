//! The autopilot soak on the engine (issue #54; the frame in
//! `util::soak`): 5 voters and 2 standby learners behind the link model,
//! two autopilots (`--dead-after 5s --start-standby --cleanup-dead --voters 5`), a
//! paced writer and the history recorder, and `memberctl cluster chaos`
//! striking at random from the seed. Judged throughout: each history window
//! linearizable and its acknowledged writes read back as it closes; from
//! the membership sampled every half second, no voter removed that the
//! leader heard, never below `--min-voters`, no quorum lost by a removal,
//! no removed member back, no stuck learner, the cluster whole again after
//! each fault (time to repair recorded); from the autopilots' decisions,
//! never two actions overlapping. The figures go to
//! `target/tmp/soak/soak-SEED.json` (and docs/soak.md).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::autopilot::{read_lines, Autopilot};
use crate::util::free_port;
use crate::util::local::{get_prefix_linearizable, Local};
use crate::util::members::{add_and_start, add_learner};
use crate::util::recorder::Recorder;
use crate::util::robustness::check;
use crate::util::soak::invariants::{self as inv, Verdict};
use crate::util::soak::watcher::{self, Watcher};
use crate::util::soak::{self, Profile, DEAD_AFTER, MIN_VOTERS, VOTERS};
use crate::util::versions;
use crate::util::wait_for;
use crate::util::writer::SteadyWriter;

/// Kills, on drop, the autopilots the cluster directory's pid files name
/// (chaos restarts them outside the test's children).
struct AutopilotsDown(std::path::PathBuf);

impl AutopilotsDown {
    fn signal(&self, sig: i32) {
        let Ok(d) = std::fs::read_dir(self.0.join("autopilots")) else {
            return;
        };
        for e in d.filter_map(Result::ok) {
            if !e.file_name().to_string_lossy().ends_with(".pid") {
                continue;
            }
            if let Some(pid) = std::fs::read_to_string(e.path())
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok())
            {
                let is_autopilot = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"autopilot"));
                if is_autopilot {
                    // SAFETY: a signal to an autopilot this test (or its chaos) started.
                    unsafe { libc::kill(pid, sig) };
                }
            }
        }
    }
}

impl Drop for AutopilotsDown {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
    }
}

/// `cluster chaos` as a child: on drop (a failure half-way) told to stop
/// (SIGTERM: it ends the faults in progress) and waited for, boundedly.
struct Chaos(std::process::Child);

impl Drop for Chaos {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            // SAFETY: a signal to the chaos process this test started.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The running members' client URLs (the state file's running nodes).
fn endpoints(local: &Local) -> Vec<String> {
    local.endpoints()
}

/// One history window: its figures.
struct Window {
    ops: usize,
    answered: usize,
    linearizable: bool,
    acked: Vec<(String, String)>,
    lost: usize,
    report: String,
}

/// Reads `prefix` linearizably through the running members (bounded) and
/// counts the acknowledged writes missing or changed.
fn lost(local: &Local, prefix: &str, acked: &[(String, String)]) -> usize {
    let stored = wait_for(
        "a linearizable read of the acknowledged writes",
        Duration::from_secs(30),
        || {
            endpoints(local)
                .iter()
                .find_map(|ep| get_prefix_linearizable(ep, prefix).ok())
        },
    );
    let stored: std::collections::HashMap<String, String> = stored.into_iter().collect();
    acked
        .iter()
        .filter(|(k, v)| stored.get(k) != Some(v))
        .count()
}

/// Records one window of `length` (cut short when `done` says chaos ended).
fn window(
    local: &Local,
    profile: &Profile,
    tag: &str,
    seed: u64,
    w: usize,
    length: Duration,
    done: &mut dyn FnMut() -> bool,
) -> Window {
    let eps = endpoints(local);
    let rec = Recorder::start_paced(
        eps.clone(),
        profile.clients,
        2,
        seed ^ (w as u64).wrapping_mul(0x9e37_79b9),
        &format!("soak/w{w}/"),
        profile.pace,
    );
    let prefix = format!("soak/acked/w{w}/");
    let writer = SteadyWriter::start(eps, &prefix, profile.writer_pace);
    let began = Instant::now();
    while began.elapsed() < length && !done() {
        std::thread::sleep(Duration::from_millis(200));
    }
    let ops = rec.stop();
    let written = writer.finish();
    let checked = check(&format!("soak-{tag}-w{w}"), ops);
    let (answered, _) = checked.counts();
    let lost = lost(local, &prefix, &written.acked);
    Window {
        ops: checked.ops.len(),
        answered,
        linearizable: checked.report.passed(),
        acked: written.acked,
        lost,
        report: checked.report.to_string(),
    }
}

fn soak_on_the_engine_under_chaos() {
    soak_under_chaos(None);
}

fn soak_on_etcd_3_6_under_chaos() {
    soak_under_chaos(Some("3.6"));
}

fn soak_on_etcd_3_4_under_chaos() {
    soak_under_chaos(Some("3.4"));
}

/// The soak on the engine (`None`) or on etcd's own binary of minor
/// `version` (`cluster up --etcd`). etcd before 3.6 allows one learner,
/// fixed: there the cluster keeps one standby, not two.
fn soak_under_chaos(etcd: Option<&str>) {
    let profile = Profile::from_env();
    let case = match etcd {
        None => "soak_on_the_engine_under_chaos".to_string(),
        Some(v) => format!("soak_on_etcd_{}_under_chaos", v.replace('.', "_")),
    };
    let seed = soak::seed(&case);
    let out = soak::out_dir();
    let label = etcd.map_or("engine".to_string(), |v| format!("etcd-{v}"));
    let tag = format!("{label}-{seed}");
    let started = Instant::now();
    let standbys = if etcd == Some("3.4") { 1 } else { 2 };
    let bin = etcd.map(versions::etcd_server);
    let max_learners = standbys.to_string();
    let mut up = vec![
        "--nodes",
        "5",
        "--link",
        "rtt=2ms,bandwidth=1gbit,queue=4mb",
    ];
    if standbys > 1 {
        up.extend(["--max-learners", &max_learners]);
    }
    if let Some(bin) = &bin {
        up.extend(["--etcd", bin.to_str().expect("a UTF-8 path")]);
    }
    let local = Local::up(&up);
    let _down = AutopilotsDown(local.dir().to_path_buf());
    // On a busy machine etcd's members may still be finding each other when
    // `cluster up` returns; the first add's quorum check would then count
    // them as down (etcd 3.4 refuses any add while a voter is): wait until
    // every member answers.
    crate::util::wait_for(
        "every member to answer before the first add",
        Duration::from_secs(60),
        || {
            let s = local.ctl(&["member", "status", "-w", "json"]).json();
            let members = s["members"].as_array()?;
            (members.len() == 5 && members.iter().all(|m| m["reachable"] == true)).then_some(())
        },
    );
    add_and_start(&local, "s1");
    if standbys > 1 {
        // The second learner knowingly (the cluster allows two).
        let with_skip = |a: &[&str]| {
            let mut all = a.to_vec();
            all.extend(["--skip-check", "learners"]);
            local.ctl(&all)
        };
        add_learner(with_skip, "s2");
        local.ctl(&["cluster", "start-node", "s2"]).expect(0);
    }
    let ports = [free_port(), free_port()];
    let autopilots: Vec<Autopilot> = ["a1", "a2"]
        .iter()
        .zip(ports)
        .map(|(name, port)| {
            let addr = format!("127.0.0.1:{port}");
            let args = [
                "--dead-after",
                "5s",
                "--start-standby",
                "--cleanup-dead",
                "--min-voters",
                "3",
                "--voters",
                "5",
                "--interval",
                "1s",
                "--stalled-for",
                "20s",
                "--stable-for",
                "1s",
                "--lease-ttl",
                "5s",
                "--command-timeout",
                "2s",
                "--timeout",
                "30s",
                "--listen-metrics",
                &addr,
            ];
            let mut args = args.to_vec();
            if standbys > 1 {
                // The cluster allows two learners: a standby may be
                // started beside a dead one (the server keeps its limit).
                args.extend(["--skip-check", "learners"]);
            }
            Autopilot::start(&local, name, &args)
        })
        .collect();
    let dir = local.dir().to_path_buf();
    let watch = Watcher::start(dir.clone(), Duration::from_millis(500));
    wait_for(
        "the cluster whole before chaos",
        Duration::from_secs(60),
        || watch.last().filter(|s| s.whole(VOTERS, 2)).map(|_| ()),
    );
    let faults = "kill,kill-leader,wipe,pause,stall,slow,kill-autopilot";
    let chaos_out = out.join(format!("soak-{tag}-chaos.jsonl"));
    let chaos_args = [
        "cluster".to_string(),
        "chaos".into(),
        "--seed".into(),
        seed.to_string(),
        "--duration".into(),
        humantime::format_duration(profile.chaos).to_string(),
        "--every".into(),
        humantime::format_duration(profile.every).to_string(),
        "--hold".into(),
        humantime::format_duration(profile.hold).to_string(),
        "--max-concurrent".into(),
        profile.max_concurrent.to_string(),
        "--faults".into(),
        faults.into(),
        "-w".into(),
        "json".into(),
    ];
    let args: Vec<&str> = chaos_args.iter().map(String::as_str).collect();
    let mut chaos = Chaos(
        local
            .command(&args)
            .stdout(std::fs::File::create(&chaos_out).unwrap())
            .stderr(std::fs::File::create(out.join(format!("soak-{tag}-chaos.stderr"))).unwrap())
            .spawn()
            .expect("cluster chaos starts"),
    );
    let chaos_began = watcher::unix_ms();
    let mut windows = vec![];
    let mut chaos_code = None;
    let mut done = || {
        if chaos_code.is_none() {
            chaos_code = chaos.0.try_wait().unwrap().map(|s| s.code());
        }
        chaos_code.is_some()
    };
    let mut w = 0;
    while !done() {
        windows.push(window(
            &local,
            &profile,
            &tag,
            seed,
            w,
            profile.window,
            &mut done,
        ));
        w += 1;
        // Bounded: chaos ends at its --duration (plus the faults' ends).
        assert!(
            Instant::now() < started + profile.chaos * 2 + Duration::from_secs(120),
            "chaos did not end; seed {seed}; replay: {}",
            soak::replay(seed, &case)
        );
    }
    let chaos_ended = watcher::unix_ms();
    // The last fault repaired: whole again within --dead-after + 30 s +
    // the catch-up (a few seconds here).
    let repair_limit = DEAD_AFTER + Duration::from_secs(45);
    let whole_again = wait_until_whole(&watch, repair_limit);
    // A last window on the whole cluster, then every acknowledged write of every window.
    windows.push(window(
        &local,
        &profile,
        &tag,
        seed,
        w,
        Duration::from_secs(5),
        &mut || false,
    ));
    let all_acked: Vec<(String, String)> = windows.iter().flat_map(|w| w.acked.clone()).collect();
    let lost_at_end = lost(&local, "soak/acked/", &all_acked);
    let metrics: Vec<String> = ports
        .iter()
        .filter_map(|p| {
            crate::util::http::try_get(&format!("http://127.0.0.1:{p}"), "/metrics").ok()
        })
        .map(|a| a.body)
        .collect();
    let samples = watch.stop();
    let names = ["a1", "a2"];
    let files: Vec<std::path::PathBuf> = names
        .iter()
        .map(|n| dir.join(format!("{n}.jsonl")))
        .collect();
    drop(autopilots);
    for (name, file) in names.iter().zip(&files) {
        let _ = std::fs::copy(file, out.join(format!("soak-{tag}-{name}.jsonl")));
    }
    let failures: Vec<String> = files
        .iter()
        .flat_map(|f| read_lines(f))
        .filter(|l| l["phase"] == "failed")
        .map(|l| format!("{}: {}", l["action"], l["error"]))
        .collect();
    let chaos_lines = read_lines(&chaos_out);
    let faults_seen = inv::faults(&chaos_lines);
    let end_ms = watcher::unix_ms();
    let mut spans = vec![];
    for (name, file) in names.iter().zip(&files) {
        let kills: Vec<u64> = faults_seen
            .iter()
            .filter(|f| f.kind == "kill-autopilot" && f.member.as_deref() == Some(name))
            .map(|f| f.start_ms)
            .collect();
        spans.extend(inv::actions(name, &read_lines(file), &kills, end_ms));
    }

    // The invariants.
    let removals = inv::removals(&samples);
    let mut verdicts: Vec<Verdict> = vec![];
    let lin = Verdict {
        name: "every history window linearizable",
        checked: windows.len(),
        violations: windows
            .iter()
            .enumerate()
            .filter(|(_, w)| !w.linearizable)
            .map(|(i, w)| format!("window {i}: {}", w.report))
            .collect(),
    };
    let acked = Verdict {
        name: "every acknowledged write kept",
        checked: all_acked.len(),
        violations: windows
            .iter()
            .enumerate()
            .filter(|(_, w)| w.lost > 0)
            .map(|(i, w)| format!("window {i}: {} of {} lost", w.lost, w.acked.len()))
            .chain((lost_at_end > 0).then(|| format!("at the end: {lost_at_end} lost")))
            .collect(),
    };
    verdicts.push(acked);
    verdicts.push(lin);
    let (heard, raced) = inv::no_heard_voter_removed(&samples, &removals, &spans, 1500);
    verdicts.push(heard);
    verdicts.push(inv::no_overlap(&spans));
    let (minimum, quorum) = inv::minimum_and_quorum_kept(&removals, MIN_VOTERS);
    verdicts.push(minimum);
    verdicts.push(quorum);
    let repairs = inv::repairs(&faults_seen, &samples, VOTERS, 2);
    let mut repaired = inv::repaired_in_time(&repairs, repair_limit.as_millis() as u64);
    if whole_again.is_none() {
        repaired
            .violations
            .push("not whole again after chaos ended".to_string());
    }
    verdicts.push(repaired);
    verdicts.push(inv::no_stuck_learner(&samples, 60_000));
    verdicts.push(inv::removed_stay_gone(&samples, &removals, 15_000));

    // The figures.
    let mut faults_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut repair_by_kind: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut alone_by_kind: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let alone = inv::alone(&repairs);
    for ((f, took), alone) in repairs.iter().zip(&alone) {
        *faults_by_kind.entry(f.kind.clone()).or_default() += 1;
        if let Some(t) = took {
            repair_by_kind.entry(f.kind.clone()).or_default().push(*t);
            if *alone {
                alone_by_kind.entry(f.kind.clone()).or_default().push(*t);
            }
        }
    }
    let skipped = chaos_lines
        .iter()
        .filter(|l| l["phase"] == "skipped")
        .count();
    let mut actions_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for s in &spans {
        *actions_by_kind
            .entry(format!("{} {}", s.action, s.result))
            .or_default() += 1;
    }
    let figures = |by_kind: &mut BTreeMap<String, Vec<u64>>| -> BTreeMap<String, Value> {
        let mut all: Vec<u64> = by_kind.values().flatten().copied().collect();
        by_kind.insert("all".to_string(), std::mem::take(&mut all));
        by_kind
            .iter_mut()
            .map(|(k, v)| {
                let n = v.len();
                let (p50, p99, max) = inv::spread(v);
                (
                    k.clone(),
                    json!({"repaired": n, "p50_s": p50 as f64 / 1e3, "p99_s": p99 as f64 / 1e3, "max_s": max as f64 / 1e3}),
                )
            })
            .collect()
    };
    let repair_figures = figures(&mut repair_by_kind);
    let alone_figures = figures(&mut alone_by_kind);
    let ops: usize = windows.iter().map(|w| w.ops).sum();
    let answered: usize = windows.iter().map(|w| w.answered).sum();
    let report = json!({
        "server": label,
        "seed": seed,
        "replay": soak::replay(seed, &case),
        "chaos_seconds": (chaos_ended - chaos_began) / 1000,
        "wall_seconds": started.elapsed().as_secs(),
        "profile": format!("{profile:?}"),
        "faults": faults_by_kind,
        "faults_skipped": skipped,
        "actions": actions_by_kind,
        "removals": removals.len(),
        "action_failures": failures,
        "removals_raced_by_a_return": raced,
        "operations": ops,
        "operations_answered": answered,
        "windows": windows.len(),
        "acknowledged_writes": all_acked.len(),
        "samples": samples.len(),
        "time_to_repair": repair_figures,
        "time_to_repair_alone": alone_figures,
        "repairs_ms": repairs.iter().zip(&alone).map(|((f, took), alone)| json!({"fault": f.kind, "member": f.member, "ms": took, "alone": alone})).collect::<Vec<_>>(),
        "chaos_exit": chaos_code.flatten(),
        "autopilot_metrics": metrics.iter().map(|m| m.lines().filter(|l| l.starts_with("memberctl_autopilot_actions_total") || l.starts_with("memberctl_autopilot_looks_total") || l.starts_with("memberctl_autopilot_last_repair")).collect::<Vec<_>>().join("\n")).collect::<Vec<_>>(),
        "invariants": verdicts.iter().map(|v| json!({"invariant": v.name, "checked": v.checked, "violations": v.violations.len(), "first": v.violations.iter().take(3).collect::<Vec<_>>()})).collect::<Vec<_>>(),
    });
    let file = out.join(format!("soak-{tag}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    eprintln!("soak: {}", serde_json::to_string_pretty(&report).unwrap());
    let broken: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.violations.is_empty())
        .map(|v| {
            format!(
                "{}: {} violations, e.g. {:?}",
                v.name,
                v.violations.len(),
                &v.violations[..v.violations.len().min(3)]
            )
        })
        .collect();
    assert!(
        broken.is_empty(),
        "the soak broke invariants (seed {seed}; replay: {}; figures in {}):\n{}\nlogs:\n{}\n\
         what happened, from the start of chaos (its end is printed last: a CI log keeps \
         the tail):\n{}\n{}",
        soak::replay(seed, &case),
        file.display(),
        broken.join("\n"),
        local.logs(),
        soak::story::story(chaos_began, &chaos_lines, &names, &files, &samples),
        broken.join("\n"),
    );
    assert_eq!(
        chaos_code,
        Some(Some(0)),
        "cluster chaos failed; seed {seed}"
    );
}

/// Waits (at most `limit`) until the watcher's newest sample is whole;
/// when it became so.
fn wait_until_whole(watch: &Watcher, limit: Duration) -> Option<u64> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = watch.last().filter(|s| s.whole(VOTERS, 2)) {
            return Some(s.unix_ms);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        soak_on_the_engine_under_chaos,
        soak_on_etcd_3_6_under_chaos: [EtcdServer("3.6")],
        soak_on_etcd_3_4_under_chaos: [Etcd],
    ]
}
