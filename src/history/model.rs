//! Nondeterministic single-key register model as a powerset: a state is a sorted set of
//! possible key values, and each operation maps it to the outcomes its response allows.

use std::collections::{BTreeMap, HashMap};

use super::describe::quoted;
use super::op::{Operation, Request, Response};

/// Encoded key state: 0 means absent, `id + 1` means the interned value `id`.
pub(crate) type KeyState = u32;

/// The encoded state of an absent key.
pub(crate) const ABSENT: KeyState = 0;

/// Interns the values seen on one key into small integers.
#[derive(Debug, Default)]
pub(crate) struct Values {
    names: Vec<String>,
    ids: HashMap<String, KeyState>,
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

    /// Encoded state for an optional value (`None`: absent).
    pub(crate) fn state(&mut self, value: Option<&str>) -> KeyState {
        value.map_or(ABSENT, |v| self.id(v))
    }

    /// Renders a set of states, e.g. `"v2"` or `{absent, "v1"}`.
    pub(crate) fn describe(&self, states: &[KeyState]) -> String {
        let names: Vec<String> = states
            .iter()
            .map(|&s| {
                let name = s
                    .checked_sub(1)
                    .and_then(|i| self.names.get(i as usize))
                    .map(String::as_str);
                quoted(name)
            })
            .collect();
        match names.len() {
            1 => names.join(""),
            _ => format!("{{{}}}", names.join(", ")),
        }
    }
}

/// What one operation does to the set of possible states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One operation of a key history, compiled for the search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyOp {
    /// Index into the full history.
    pub idx: usize,
    /// Call time.
    pub call: u64,
    /// Return time; `u64::MAX` when the outcome is unknown.
    pub ret: u64,
    /// Effect on the state set.
    pub step: Step,
}

/// The operations of one key, ordered by call time.
#[derive(Debug)]
pub(crate) struct KeyHistory {
    /// The key.
    pub key: String,
    /// Operations ordered by (call time, history index); failed gets are dropped.
    pub ops: Vec<KeyOp>,
    /// Interned values of this key.
    pub values: Values,
}

/// Compiles an operation; `None` when it says nothing (a failed get) or, defensively, when
/// its response does not match its request (validation rejects those beforehand).
fn compile(op: &Operation, values: &mut Values) -> Option<Step> {
    let answered = op.answered();
    let step = match (&op.request, &op.response) {
        (Request::Get, Response::Get { value, .. }) if answered => Step::Read {
            read: values.state(value.as_deref()),
            not: None,
        },
        (Request::Get, _) => return None,
        (Request::Put { value }, Response::Put { .. }) if answered => Step::Put(values.id(value)),
        (Request::Put { value }, _) => Step::MaybePut(values.id(value)),
        (Request::Delete, Response::Delete { deleted, .. }) if answered => Step::Delete {
            existed: *deleted >= 1,
        },
        (Request::Delete, _) => Step::MaybeDelete,
        (
            Request::Cas { expect, value },
            Response::Cas {
                succeeded,
                value: read,
                ..
            },
        ) if answered => {
            let expect = values.state(expect.as_deref());
            if *succeeded {
                Step::Cas {
                    expect,
                    value: values.id(value),
                }
            } else {
                Step::Read {
                    read: values.state(read.as_deref()),
                    not: Some(expect),
                }
            }
        }
        (Request::Cas { expect, value }, _) => Step::MaybeCas {
            expect: values.state(expect.as_deref()),
            value: values.id(value),
        },
    };
    op.response_matches().then_some(step)
}

/// Splits a history into per-key histories, keys in sorted order.
pub(crate) fn split_by_key(history: &[Operation]) -> Vec<KeyHistory> {
    let mut by_key: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.iter().enumerate() {
        by_key.entry(op.key.as_str()).or_default().push(i);
    }
    by_key
        .into_iter()
        .map(|(key, idxs)| {
            let mut values = Values::default();
            let mut ops: Vec<KeyOp> = idxs
                .into_iter()
                .filter_map(|idx| {
                    let op = &history[idx];
                    let step = compile(op, &mut values)?;
                    let ret = if op.answered() {
                        op.ret.unwrap_or(u64::MAX)
                    } else {
                        u64::MAX
                    };
                    Some(KeyOp {
                        idx,
                        call: op.call,
                        ret,
                        step,
                    })
                })
                .collect();
            ops.sort_by_key(|o| (o.call, o.idx));
            KeyHistory {
                key: key.to_string(),
                ops,
                values,
            }
        })
        .collect()
}

fn with(states: &[KeyState], extra: KeyState) -> Vec<KeyState> {
    let mut out = states.to_vec();
    if let Err(pos) = out.binary_search(&extra) {
        out.insert(pos, extra);
    }
    out
}

/// Applies one operation to a sorted, deduplicated state set; `None` when no state allows
/// the operation's response.
pub(crate) fn apply(step: Step, states: &[KeyState]) -> Option<Vec<KeyState>> {
    let has = |s: KeyState| states.binary_search(&s).is_ok();
    match step {
        Step::Put(v) => Some(vec![v]),
        Step::MaybePut(v) => Some(with(states, v)),
        Step::Read { read, not } => (has(read) && not != Some(read)).then(|| vec![read]),
        Step::Delete { existed: true } => states.iter().any(|&s| s != ABSENT).then(|| vec![ABSENT]),
        Step::Delete { existed: false } => has(ABSENT).then(|| vec![ABSENT]),
        Step::MaybeDelete => Some(with(states, ABSENT)),
        Step::Cas { expect, value } => has(expect).then(|| vec![value]),
        Step::MaybeCas { expect, value } => Some(if has(expect) {
            with(states, value)
        } else {
            states.to_vec()
        }),
    }
}
