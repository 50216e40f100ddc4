//! A short stress run on the embedded engine: add learner → start-node →
//! promote → remove, over and over, under a steady writer; no write may fail.

use crate::util::members::add_learner_at;
use std::time::{Duration, Instant};

use crate::util::faults::members;
use crate::util::free_port;
use crate::util::local::Local;
use crate::util::writer::{check_acked, SteadyWriter};

/// The run stops after this many cycles or this long, whichever comes first,
/// but never before [`MIN_CYCLES`] (a busy machine makes the run longer, not
/// smaller).
const CYCLES: usize = 10;
const BUDGET: Duration = Duration::from_secs(20);
/// The cycles run however long they take.
const MIN_CYCLES: usize = 3;

/// Membership cycles under a writer putting every 10 ms: every put is
/// acknowledged, every acknowledged put is kept, and the cluster ends as it began.
fn membership_cycles_under_a_steady_writer() {
    let local = Local::up(&[]);
    let voters: Vec<String> = local
        .endpoints()
        .into_iter()
        .map(|e| format!("http://{e}"))
        .collect();
    let before = members(&local);
    let writer = SteadyWriter::start(voters.clone(), "stress/", Duration::from_millis(10));
    let started = Instant::now();
    let mut cycles = 0;
    while cycles < CYCLES && (cycles < MIN_CYCLES || started.elapsed() < BUDGET) {
        let name = format!("s{cycles}");
        let peer = format!("http://127.0.0.1:{}", free_port());
        let added = add_learner_at(|a| local.ctl(a), &name, &peer);
        let id = added["member"]["id"].as_str().unwrap().to_string();
        let r = local.ctl(&["cluster", "start-node", &name]);
        assert_eq!(
            r.code,
            0,
            "start-node {name}: {}\n{}",
            r.stderr,
            local.logs()
        );
        let r = local.ctl(&["member", "promote", &name, "--timeout", "30s"]);
        assert_eq!(r.code, 0, "promote {name}: {}\n{}", r.stderr, local.logs());
        let r = local.ctl(&["member", "remove", &id]);
        assert_eq!(r.code, 0, "remove {name}: {}\n{}", r.stderr, local.logs());
        cycles += 1;
    }
    let elapsed = started.elapsed();
    let written = writer.finish();
    let summary = format!(
        "stress: {cycles} add/start/promote/remove cycles in {elapsed:.1?}; {} writes \
         acknowledged, {} failed",
        written.acked.len(),
        written.failed
    );
    eprintln!("{summary}");
    // For CI's log (.ci/run prints it; cargo test hides a passing test's output).
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("stress-report.txt"),
        format!("{summary}\n"),
    );
    assert_eq!(written.failed, 0, "writes failed during membership changes");
    check_acked(&voters, "stress/", &written.acked);
    assert_eq!(members(&local), before);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![membership_cycles_under_a_steady_writer,]
}
