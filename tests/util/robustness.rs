//! The robustness runs' frame: the profile (bounded for CI, long behind
//! `MEMBERCTL_ROBUSTNESS=long`), the seed (printed; `MEMBERCTL_ROBUSTNESS_SEED`
//! replays one), a recorder running while a fault is injected, and the
//! check of the history, kept under `target/tmp/robustness/`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use memberctl::history::{self, Budget, Operation, Report};

use super::recorder::Recorder;

/// How much load and how long each scenario runs.
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    /// Sequential clients.
    pub clients: usize,
    /// Keys they share.
    pub keys: usize,
    /// Operations recorded before the fault and again after recovery.
    pub ops_around: usize,
    /// How often the fault is repeated.
    pub rounds: usize,
    /// Whether this is the long profile.
    pub long: bool,
}

/// The profile of this run: `MEMBERCTL_ROBUSTNESS=long` for the long one.
pub fn profile() -> Profile {
    if std::env::var("MEMBERCTL_ROBUSTNESS").is_ok_and(|v| v == "long") {
        Profile {
            clients: 8,
            keys: 4,
            ops_around: 3000,
            rounds: 5,
            long: true,
        }
    } else {
        Profile {
            clients: 6,
            keys: 3,
            ops_around: 300,
            rounds: 1,
            long: false,
        }
    }
}

/// The seed of scenario `name`: `MEMBERCTL_ROBUSTNESS_SEED` when set, else
/// drawn; printed either way, so a failure can be replayed.
pub fn seed(name: &str) -> u64 {
    let seed = std::env::var("MEMBERCTL_ROBUSTNESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!("robustness {name}: seed {seed} (replay with MEMBERCTL_ROBUSTNESS_SEED={seed})");
    seed
}

/// A scenario under way: the recorder, the profile and the seed.
pub struct Run {
    pub name: String,
    pub profile: Profile,
    pub recorder: Recorder,
}

impl Run {
    /// Starts recording on `endpoints`, and waits for the first operations.
    pub fn start(name: &str, endpoints: Vec<String>) -> Run {
        let profile = profile();
        let seed = seed(name);
        let recorder = Recorder::start(endpoints, profile.clients, profile.keys, seed);
        let run = Run {
            name: name.to_string(),
            profile,
            recorder,
        };
        run.settle();
        run
    }

    /// Waits until the profile's operations around a fault have been
    /// recorded; panics when the clients fall below 20 answers a second (at
    /// least 60 s).
    pub fn settle(&self) {
        if let Err(e) = self.try_settle() {
            panic!("{e}");
        }
    }

    /// [`Run::settle`], saying so instead of panicking when the clients do
    /// not get the operations answered in time (a cluster a deliberate bug
    /// broke).
    pub fn try_settle(&self) -> Result<(), String> {
        let before = self.recorder.answered();
        let limit = (Duration::from_millis(50) * self.profile.ops_around as u32)
            .max(Duration::from_secs(60));
        let deadline = Instant::now() + limit;
        while self.recorder.answered() < before + self.profile.ops_around {
            if Instant::now() >= deadline {
                return Err(format!(
                    "robustness {}: the clients answered {} operations in {} s (wanted {})",
                    self.name,
                    self.recorder.answered() - before,
                    limit.as_secs(),
                    self.profile.ops_around
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    /// Stops the clients and checks the history.
    pub fn finish(self) -> Checked {
        let ops = self.recorder.stop();
        check(&self.name, ops)
    }
}

/// A history and the checker's verdict on it.
pub struct Checked {
    pub ops: Vec<Operation>,
    pub report: Report,
    pub file: PathBuf,
}

impl Checked {
    /// Panics, with the report, unless the history is linearizable.
    pub fn assert_linearizable(&self, logs: impl FnOnce() -> String) {
        assert!(
            self.report.passed(),
            "the history in {} is not linearizable:\n{}\nlogs:\n{}",
            self.file.display(),
            self.report,
            logs()
        );
    }

    /// Answered operations of each kind: (answered, unanswered).
    pub fn counts(&self) -> (usize, usize) {
        let answered = self.ops.iter().filter(|o| o.ret.is_some()).count();
        (answered, self.ops.len() - answered)
    }
}

/// Checks `ops`, writes them (JSON lines) and the report to
/// `target/tmp/robustness/NAME.{jsonl,txt}`, and prints the figures.
pub fn check(name: &str, ops: Vec<Operation>) -> Checked {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robustness");
    std::fs::create_dir_all(&dir).expect("robustness dir");
    let file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&file, history::to_jsonl(&ops)).expect("write the history");
    let report = history::check(&ops, &Budget::default());
    let answered = ops.iter().filter(|o| o.ret.is_some()).count();
    let summary = format!(
        "robustness {name}: {} operations ({answered} answered, {} without an answer), {} keys; \
         checked in {:.1} ms, {} search steps, {} states memoised (~{} KiB); {}\n",
        ops.len(),
        ops.len() - answered,
        report.stats.keys,
        report.stats.elapsed.as_secs_f64() * 1e3,
        report.stats.steps,
        report.stats.cache_entries,
        report.stats.peak_cache_bytes / 1024,
        if report.passed() {
            "linearizable"
        } else {
            "NOT LINEARIZABLE"
        }
    );
    eprint!("{summary}");
    std::fs::write(
        dir.join(format!("{name}.txt")),
        format!("{summary}{report}\n"),
    )
    .expect("write the report");
    // One line per scenario for the CI log.
    let mut all = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("summary.txt"))
        .expect("summary file");
    use std::io::Write as _;
    let _ = all.write_all(summary.as_bytes());
    Checked { ops, report, file }
}
