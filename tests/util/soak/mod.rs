//! The autopilot soak (issue #54): a local engine cluster of 5 voters and 2
//! standby learners behind the link model, two autopilots, a paced writer
//! and the history recorder, and `memberctl cluster chaos` injecting seeded
//! faults; the invariants judged throughout (each window's history checked
//! linearizable and its acknowledged writes read back as it closes; the
//! membership sampled every half second), the figures written to
//! `target/tmp/soak/`.
//!
//! Profiles: the short one for CI (about 2½ minutes, light: one fault at a
//! time, writers paced); `MEMBERCTL_SOAK=1h` (any duration) a long one (up
//! to two faults at once; `MEMBERCTL_SOAK_AT_ONCE=1` one at a time);
//! `MEMBERCTL_SOAK_SEED=N` replays a seed. A failure prints the seed and the
//! command that replays it, and ends with the run's story ([`story`]).

pub mod invariants;
pub mod story;
pub mod watcher;

use std::path::PathBuf;
use std::time::Duration;

/// How long and how hard the soak runs.
#[derive(Clone, Debug)]
pub struct Profile {
    /// How long chaos injects faults.
    pub chaos: Duration,
    /// The mean time between two faults (`cluster chaos --every`).
    pub every: Duration,
    /// The longest a fault lasts (`--hold`).
    pub hold: Duration,
    /// Faults at once (`--max-concurrent`).
    pub max_concurrent: usize,
    /// How long one history window lasts.
    pub window: Duration,
    /// Recorder clients and the pause between two of a client's operations.
    pub clients: usize,
    pub pace: Duration,
    /// The steady writer's pause between two puts.
    pub writer_pace: Duration,
    /// Whether it is a long run.
    pub long: bool,
}

/// `--dead-after` of the autopilots.
pub const DEAD_AFTER: Duration = Duration::from_secs(5);
/// `--min-voters` of the autopilots.
pub const MIN_VOTERS: usize = 3;
/// The voters the cluster keeps.
pub const VOTERS: usize = 5;

impl Profile {
    /// `MEMBERCTL_SOAK` unset: the CI profile; else its duration (`1h`, `20m`).
    pub fn from_env() -> Profile {
        let long = std::env::var("MEMBERCTL_SOAK")
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| {
                humantime::parse_duration(&v)
                    .unwrap_or_else(|e| panic!("MEMBERCTL_SOAK={v}: not a duration ({e})"))
            });
        match long {
            None => Profile {
                chaos: Duration::from_secs(100),
                every: Duration::from_secs(14),
                hold: Duration::from_secs(10),
                max_concurrent: 1,
                window: Duration::from_secs(25),
                clients: 3,
                pace: Duration::from_millis(40),
                writer_pace: Duration::from_millis(100),
                long: false,
            },
            Some(d) => Profile {
                chaos: d,
                every: Duration::from_secs(15),
                hold: Duration::from_secs(12),
                max_concurrent: at_once().unwrap_or(2),
                window: Duration::from_secs(60),
                clients: 4,
                pace: Duration::from_millis(20),
                writer_pace: Duration::from_millis(50),
                long: true,
            },
        }
    }
}

/// `MEMBERCTL_SOAK_AT_ONCE=N`: at most N faults at once in a long run (one
/// fault at a time measures each repair on its own).
fn at_once() -> Option<usize> {
    let v = std::env::var("MEMBERCTL_SOAK_AT_ONCE").ok()?;
    match v.parse() {
        Ok(n) if n >= 1 => Some(n),
        _ => panic!("MEMBERCTL_SOAK_AT_ONCE={v}: not a number of faults (1 or more)"),
    }
}

/// The seed: `MEMBERCTL_SOAK_SEED`, else drawn; printed with the command
/// that replays it.
pub fn seed(case: &str) -> u64 {
    let seed = std::env::var("MEMBERCTL_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!("soak: seed {seed}; replay: {}", replay(seed, case));
    seed
}

/// The command that replays `seed` with this profile, in `case`.
pub fn replay(seed: u64, case: &str) -> String {
    let soak = std::env::var("MEMBERCTL_SOAK")
        .map(|v| format!("MEMBERCTL_SOAK={v} "))
        .unwrap_or_default();
    let at_once = std::env::var("MEMBERCTL_SOAK_AT_ONCE")
        .map(|v| format!("MEMBERCTL_SOAK_AT_ONCE={v} "))
        .unwrap_or_default();
    format!(
        "{soak}{at_once}MEMBERCTL_SOAK_SEED={seed} cargo test --test tests -- cases::soak::{case}"
    )
}

/// Where the soak's files go: `target/tmp/soak/`.
pub fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("soak");
    std::fs::create_dir_all(&d).expect("soak dir");
    d
}
