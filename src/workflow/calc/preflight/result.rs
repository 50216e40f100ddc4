//! A pre-flight check's result: its verdict, the figures it read (for
//! scripts) and what to do; its name is one of the list's (`list.rs`).

use std::fmt;

use super::CheckName;

/// A check's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Nothing in the way.
    Ok,
    /// Its source could not be read: never taken as ok.
    Unknown,
    /// The change may go ahead; read the detail.
    Warn,
    /// The change would hurt the cluster: refused.
    Fail,
}

impl Verdict {
    /// The result as printed: `ok`, `unknown`, `warn`, `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Unknown => "unknown",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Which check.
    pub name: CheckName,
    /// Its result.
    pub verdict: Verdict,
    /// The members it concerns (by label), if any.
    pub members: Vec<String>,
    /// What it read: the figures.
    pub detail: String,
    /// What to do (empty when nothing is to be done).
    pub remedy: String,
    /// The numbers it read or computed, for scripts (`detail` says them to people).
    pub figures: Figures,
    /// Passed knowingly with `--skip-check`.
    pub skipped: bool,
}

/// One figure of a check: a number, one number per member (by label), or a
/// word (where a number came from).
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// A number, in the unit its name ends with (`_bytes`, `_seconds`, …).
    Number(f64),
    /// One number per member or pair of members, by label.
    PerMember(Vec<(String, f64)>),
    /// A word or phrase (`bandwidth_source`: `given`, `link`, …).
    Text(String),
    /// One word per member, by label (`version`: "3.5.25").
    PerMemberText(Vec<(String, String)>),
}

/// A check's figures by name, in the order they were added. Names end with
/// their unit (`_bytes`, `_seconds`, `_bytes_per_second`, `_per_second`) or
/// count something (`voters`, `entries`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures(pub Vec<(&'static str, Figure)>);

impl Figures {
    /// Adds a number.
    pub fn number(&mut self, name: &'static str, value: f64) {
        self.0.push((name, Figure::Number(value)));
    }

    /// Adds a number when there is one.
    pub fn maybe(&mut self, name: &'static str, value: Option<f64>) {
        if let Some(v) = value {
            self.number(name, v);
        }
    }

    /// Adds one number for a member (or pair), under `name`.
    pub fn member(&mut self, name: &'static str, member: impl Into<String>, value: f64) {
        let member = member.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, Figure::PerMember(v))) => v.push((member, value)),
            _ => self
                .0
                .push((name, Figure::PerMember(vec![(member, value)]))),
        }
    }

    /// Adds `member`'s word to the per-member figure `name`.
    pub fn member_text(
        &mut self,
        name: &'static str,
        member: impl Into<String>,
        value: impl Into<String>,
    ) {
        let (member, value) = (member.into(), value.into());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, Figure::PerMemberText(v))) => v.push((member, value)),
            _ => self
                .0
                .push((name, Figure::PerMemberText(vec![(member, value)]))),
        }
    }

    /// Adds a word.
    pub fn text(&mut self, name: &'static str, value: impl Into<String>) {
        self.0.push((name, Figure::Text(value.into())));
    }

    /// The number named `name`, if it was added as one.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find_map(|(n, f)| match f {
            Figure::Number(v) if *n == name => Some(*v),
            _ => None,
        })
    }
}
