//! Shows workflow notices and learner catch-up on stderr: a progress bar on a terminal, sparse lines otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::workflow::{CatchUpSample, CatchUpState, Observer};

/// How often a plain (non-terminal) progress line is repeated while nothing changes.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The observer used by the binary: writes to stderr only.
pub struct StderrObserver {
    terminal: bool,
    bar: Mutex<Option<ProgressBar>>,
    last_plain: Mutex<Option<(Instant, CatchUpState)>>,
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
            bar: Mutex::new(None),
            last_plain: Mutex::new(None),
        }
    }

    fn describe(s: &CatchUpSample) -> String {
        let mut text = format!("{}: {}", s.label, s.state.as_str());
        if let Some(p) = &s.progress_state {
            text.push_str(&format!(" ({p})"));
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
            b.set_length(s.leader_index.unwrap_or(1).max(1));
            b.set_position(s.learner_index.unwrap_or(0));
            b.set_message(Self::describe(s));
            return;
        }
        let mut last = self.last_plain.lock().unwrap_or_else(|p| p.into_inner());
        let due = match *last {
            None => true,
            Some((t, state)) => state != s.state || t.elapsed() >= PLAIN_EVERY,
        };
        if due {
            eprintln!("memberctl: waiting to promote {}", Self::describe(s));
            *last = Some((Instant::now(), s.state));
        }
    }

    fn catch_up_done(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|p| p.into_inner()).take() {
            b.finish_and_clear();
        }
    }
}
