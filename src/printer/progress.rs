//! Shows workflow notices and learner catch-up on stderr: a progress bar on a terminal, sparse lines otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::mib;
use crate::workflow::catch_up::CatchUpPhase;
use crate::workflow::{CatchUpSample, CatchUpState, Observer};

/// How often a plain (non-terminal) progress line is repeated while nothing changes.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The observer used by the binary: writes to stderr only.
pub struct StderrObserver {
    terminal: bool,
    /// Each catch-up sample as a JSON line (`-w json`, stderr not a terminal).
    json_lines: bool,
    bar: Mutex<Option<ProgressBar>>,
    last_plain: Mutex<Option<(Instant, CatchUpPhase)>>,
}

impl Default for StderrObserver {
    fn default() -> Self {
        Self::new()
    }
}

impl StderrObserver {
    /// A progress bar when stderr is a terminal, plain lines otherwise.
    pub fn new() -> Self {
        StderrObserver {
            terminal: std::io::stderr().is_terminal(),
            json_lines: false,
            bar: Mutex::new(None),
            last_plain: Mutex::new(None),
        }
    }

    /// For `format`: with JSON output and stderr not a terminal, every
    /// catch-up sample is a JSON line on stderr (`{"catch_up": {…}}`), for
    /// scripts; otherwise as [`StderrObserver::new`].
    pub fn for_format(format: crate::cli::OutputFormat) -> Self {
        let mut o = Self::new();
        o.json_lines = format == crate::cli::OutputFormat::Json && !o.terminal;
        o
    }

    /// A sample as one JSON line.
    fn json_line(s: &CatchUpSample) -> String {
        let doc = serde_json::json!({
            "catch_up": {
                "member": s.member.to_string(),
                "phase": s.phase.as_str(),
                "state": s.state.as_str(),
                "bytes_received": s.bytes_received,
                "bytes_expected": s.bytes_expected,
                "bytes_per_second": s.byte_rate,
                "time_left_seconds": s.time_left.map(|d| d.as_secs_f64()),
                "learner_index": s.learner_index,
                "leader_index": s.leader_index,
                "lag": s.lag,
                "elapsed_seconds": s.elapsed.as_secs_f64(),
                "ready_seconds": s.ready_for.map(|(held, _)| held.as_secs_f64()),
                "stable_for_seconds": s.ready_for.map(|(_, need)| need.as_secs_f64()),
                "held_after_snapshot": s.held_after_snapshot,
            }
        });
        doc.to_string()
    }

    fn describe(s: &CatchUpSample) -> String {
        let mut text = format!("{}: {}", s.label, s.phase.as_str());
        if s.state == CatchUpState::Unreachable {
            text.push_str(" (unreachable from the leader)");
        }
        if s.held_after_snapshot {
            text.push_str(" (its snapshot delivered; it does not answer yet)");
        }
        if let Some((held, need)) = s.ready_for {
            text.push_str(&format!(
                " for {:.1} s of {:.1} s (--stable-for)",
                held.as_secs_f64(),
                need.as_secs_f64()
            ));
        }
        if let Some(b) = s.bytes_received {
            text.push_str(&format!(", {} received", mib(b)));
            if let Some(of) = s
                .bytes_expected
                .filter(|_| s.phase == CatchUpPhase::ReceivingSnapshot)
            {
                text.push_str(&format!(" of {}", mib(of)));
            }
            if let Some(r) = s.byte_rate.filter(|r| *r > 0.0) {
                text.push_str(&format!(" at {}/s", mib(r as u64)));
            }
        }
        if let Some(left) = s.time_left {
            text.push_str(&format!(", {:.0} s left", left.as_secs_f64().ceil()));
        }
        if let (Some(i), Some(l)) = (s.learner_index, s.leader_index) {
            text.push_str(&format!(", index {i}/{l}"));
        }
        if let Some(lag) = s.lag {
            text.push_str(&format!(", lag {lag}"));
        }
        if let Some(rate) = s.rate {
            text.push_str(&format!(", {rate:.0} entries/s"));
        }
        text
    }
}

impl Observer for StderrObserver {
    fn notice(&self, message: &str) {
        let bar = self.bar.lock().unwrap_or_else(|p| p.into_inner());
        match bar.as_ref() {
            Some(b) => b.suspend(|| eprintln!("memberctl: {message}")),
            None => eprintln!("memberctl: {message}"),
        }
    }

    fn catch_up(&self, s: &CatchUpSample) {
        if self.json_lines {
            eprintln!("{}", Self::json_line(s));
            return;
        }
        if self.terminal {
            let mut bar = self.bar.lock().unwrap_or_else(|p| p.into_inner());
            let b = bar.get_or_insert_with(|| {
                let b = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr());
                let style =
                    ProgressStyle::with_template("{spinner} [{elapsed_precise}] [{bar:30}] {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> ");
                b.set_style(style);
                b.enable_steady_tick(Duration::from_millis(200));
                b
            });
            // A snapshot on its way: the bar counts its bytes; else the entries.
            match (s.phase, s.bytes_received, s.bytes_expected) {
                (CatchUpPhase::ReceivingSnapshot, Some(got), Some(of)) => {
                    b.set_length(of.max(1));
                    b.set_position(got.min(of));
                }
                _ => {
                    b.set_length(s.leader_index.unwrap_or(1).max(1));
                    b.set_position(s.learner_index.unwrap_or(0));
                }
            }
            b.set_message(Self::describe(s));
            return;
        }
        let mut last = self.last_plain.lock().unwrap_or_else(|p| p.into_inner());
        let due = match *last {
            None => true,
            Some((t, phase)) => phase != s.phase || t.elapsed() >= PLAIN_EVERY,
        };
        if due {
            eprintln!("memberctl: waiting to promote {}", Self::describe(s));
            *last = Some((Instant::now(), s.phase));
        }
    }

    fn catch_up_done(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|p| p.into_inner()).take() {
            b.finish_and_clear();
        }
    }
}
