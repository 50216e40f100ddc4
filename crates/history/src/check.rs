//! The overall check: budget, verdict and report types, invariants first, then each key.

use std::fmt;
use std::time::{Duration, Instant};

use super::describe::op_line;
use super::invariants::{check_invariants, Violation};
use super::keyed::split_by_key;
use super::op::Operation;
use super::search::{search, Budget, Outcome};
use super::validate::validate;
use super::window::explain;

/// What the check cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Operations in the history.
    pub operations: usize,
    /// Distinct keys in the history.
    pub keys: usize,
    /// Model steps over all key searches (the failing-window search excluded).
    pub steps: u64,
    /// Memo cache entries over all key searches.
    pub cache_entries: usize,
    /// Estimated peak memory of one key's memo cache, in bytes.
    pub peak_cache_bytes: usize,
    /// Wall-clock time of the whole check.
    pub elapsed: Duration,
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every key has a linearization and every invariant holds.
    Linearizable,
    /// The operations on `key` have no linearization; `window` shows a minimal failing part.
    NotLinearizable {
        /// The failing key.
        key: String,
        /// Readable failing window.
        window: String,
    },
    /// A global revision invariant (or well-formedness rule) is broken.
    InvariantBroken {
        /// The rule in words.
        rule: String,
        /// The operations involved, readable.
        window: String,
    },
    /// The search on `key` ran out of budget; callers must treat this as a failure.
    Inconclusive {
        /// The key whose search ran out.
        key: String,
        /// Steps taken on that key.
        steps: u64,
    },
}

/// A verdict with its cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The outcome.
    pub verdict: Verdict,
    /// What it cost.
    pub stats: Stats,
}

impl Report {
    /// Whether the history passed; only [`Verdict::Linearizable`] passes.
    pub fn passed(&self) -> bool {
        matches!(self.verdict, Verdict::Linearizable)
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} operations on {} key{}, {} search steps, {} cache entries, peak cache about {} KiB, {:.3} s",
            self.operations,
            self.keys,
            if self.keys == 1 { "" } else { "s" },
            self.steps,
            self.cache_entries,
            self.peak_cache_bytes.div_ceil(1024),
            self.elapsed.as_secs_f64()
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = &self.stats;
        match &self.verdict {
            Verdict::Linearizable => write!(f, "linearizable: every key has a linearization and every revision invariant holds ({stats})."),
            Verdict::NotLinearizable { key, window } => write!(
                f,
                "not linearizable: the operations on key {key:?} admit no linearization ({stats}).\n{window}"
            ),
            Verdict::InvariantBroken { rule, window } => {
                write!(f, "invariant broken: {rule} ({stats}).\n{window}")
            }
            Verdict::Inconclusive { key, steps } => write!(
                f,
                "inconclusive, counted as a failure: the search on key {key:?} ran out of budget after {steps} steps ({stats})."
            ),
        }
    }
}

fn invariant_window(history: &[Operation], v: &Violation) -> String {
    let mut out = v.detail.clone();
    for &i in &v.ops {
        if let Some(op) = history.get(i) {
            out.push_str("\n    ");
            out.push_str(&op_line(op));
        }
    }
    out
}

/// Checks a history: well-formedness and global revision invariants first, then the
/// linearizability of each key (in sorted key order) within `budget` per key.
pub fn check(history: &[Operation], budget: &Budget) -> Report {
    check_with(history, budget, true)
}

/// [`check`] without the revision invariants: only what the per-key search over
/// values finds (well-formedness is still checked). It shows what the search
/// catches on its own, where a history's revisions cannot be trusted or are absent.
pub fn check_values(history: &[Operation], budget: &Budget) -> Report {
    check_with(history, budget, false)
}

fn check_with(history: &[Operation], budget: &Budget, invariants: bool) -> Report {
    let start = Instant::now();
    let keyed = split_by_key(history);
    let mut stats = Stats {
        operations: history.len(),
        keys: keyed.len(),
        ..Stats::default()
    };
    let mut verdict = Verdict::Linearizable;
    let broken = validate(history).or_else(|| {
        if invariants {
            check_invariants(history)
        } else {
            None
        }
    });
    if let Some(v) = broken {
        verdict = Verdict::InvariantBroken {
            window: invariant_window(history, &v),
            rule: v.rule,
        };
    } else {
        for kh in &keyed {
            let result = search(&kh.ops, &budget.limits(), false);
            stats.steps += result.steps;
            stats.cache_entries += result.cache_entries;
            stats.peak_cache_bytes = stats.peak_cache_bytes.max(result.cache_bytes);
            match result.outcome {
                Outcome::Linearizable => {}
                Outcome::NotLinearizable => {
                    verdict = Verdict::NotLinearizable {
                        key: kh.key.clone(),
                        window: explain(history, kh, budget),
                    };
                    break;
                }
                Outcome::OutOfBudget => {
                    if verdict == Verdict::Linearizable {
                        verdict = Verdict::Inconclusive {
                            key: kh.key.clone(),
                            steps: result.steps,
                        };
                    }
                }
            }
        }
    }
    stats.elapsed = start.elapsed();
    Report { verdict, stats }
}
