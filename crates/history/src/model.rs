//! Single-key register model: interned key states and what each operation does to them.
//! Answered operations are deterministic; the nondeterminism of operations with unknown
//! outcome (took effect or not) is resolved by the search.

use std::collections::HashMap;

use super::describe::quoted;

/// Encoded key state: 0 means absent, `id + 1` means the interned value `id`.
pub(crate) type KeyState = u32;

/// The encoded state of an absent key.
pub(crate) const ABSENT: KeyState = 0;

/// Interns the values seen on one key into small integers.
#[derive(Debug, Default)]
pub(crate) struct Values {
    names: Vec<String>,
    ids: HashMap<String, KeyState>,
    anon: Option<KeyState>,
}

impl Values {
    /// Encoded state for a present value, interning it on first sight.
    pub(crate) fn id(&mut self, value: &str) -> KeyState {
        if let Some(&id) = self.ids.get(value) {
            return id;
        }
        self.names.push(value.to_string());
        let id = KeyState::try_from(self.names.len()).unwrap_or(KeyState::MAX);
        self.ids.insert(value.to_string(), id);
        id
    }

    /// Encoded state standing for any value written by a failed write and never read or
    /// compared against (all such values behave alike).
    pub(crate) fn anon(&mut self) -> KeyState {
        if let Some(id) = self.anon {
            return id;
        }
        self.names.push(String::new());
        let id = KeyState::try_from(self.names.len()).unwrap_or(KeyState::MAX);
        self.anon = Some(id);
        id
    }

    /// Encoded state for an optional value (`None`: absent).
    pub(crate) fn state(&mut self, value: Option<&str>) -> KeyState {
        value.map_or(ABSENT, |v| self.id(v))
    }

    /// Renders a state, e.g. `"v2"` or `absent`.
    pub(crate) fn describe(&self, state: KeyState) -> String {
        if Some(state) == self.anon {
            return "a value of a failed write that nobody read".to_string();
        }
        let name = state
            .checked_sub(1)
            .and_then(|i| self.names.get(i as usize))
            .map(String::as_str);
        quoted(name)
    }
}

/// What one operation does to the set of possible states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// Answered put: the key now holds the value.
    Put(KeyState),
    /// Unanswered put: applied or not.
    MaybePut(KeyState),
    /// Answered read (get, or the else-branch of a cas that read `read` and expected
    /// `expect`): allowed only from `read`, which must differ from `expect` if given.
    Read {
        /// The value read.
        read: KeyState,
        /// For a failed compare: the value the comparison expected.
        not: Option<KeyState>,
    },
    /// Answered delete; `existed` is whether it deleted one key.
    Delete {
        /// Whether the key existed.
        existed: bool,
    },
    /// Unanswered delete: applied or not.
    MaybeDelete,
    /// Answered successful cas: allowed only from `expect`.
    Cas {
        /// Required current state.
        expect: KeyState,
        /// New state.
        value: KeyState,
    },
    /// Unanswered cas: from `expect` it may or may not apply; elsewhere it changes nothing.
    MaybeCas {
        /// State that lets the put run.
        expect: KeyState,
        /// New state if it ran.
        value: KeyState,
    },
}

impl Step {
    /// Whether this is the step of an operation whose outcome is unknown.
    pub(crate) fn is_maybe(self) -> bool {
        matches!(
            self,
            Step::MaybePut(_) | Step::MaybeDelete | Step::MaybeCas { .. }
        )
    }
}

/// The state after running `step` from `state`, or `None` when the step cannot run there.
/// An answered operation's response fixes the state after it, whatever it was before.
/// For an operation of unknown outcome this is the outcome if it took effect (not taking
/// effect is the search's other choice).
pub(crate) fn transition(step: Step, state: KeyState) -> Option<KeyState> {
    match step {
        Step::Put(v) | Step::MaybePut(v) => Some(v),
        Step::Read { read, not } => (state == read && not != Some(read)).then_some(read),
        Step::Delete { existed } => ((state != ABSENT) == existed).then_some(ABSENT),
        Step::MaybeDelete => Some(ABSENT),
        Step::Cas { expect, value } | Step::MaybeCas { expect, value } => {
            (state == expect).then_some(value)
        }
    }
}
