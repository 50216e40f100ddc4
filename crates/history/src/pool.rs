//! Operations of unknown outcome, applied lazily: only right before an answered operation
//! that cannot run without them.
//!
//! Why this is complete: an answered operation fixes the key state after it whatever the
//! state before, so in any linearization an unknown-outcome operation that took effect
//! either enables the next answered operation (possibly through a chain of such
//! operations) or is overwritten and may as well not have taken effect. Such operations
//! never return, so moving one later never breaks real-time order.
//!
//! Identical unknown-outcome operations form a class whose members are interchangeable;
//! they are used in call order, so the used members of a class are always a prefix.

use std::collections::HashMap;

use super::bitset::Bits;
use super::keyed::KeyOp;
use super::model::{transition, KeyState, Step};

/// One class of identical unknown-outcome operations.
#[derive(Debug)]
struct Class {
    step: Step,
    /// Positions of the members in the searched slice, in call order.
    members: Vec<usize>,
    /// Slot of the first member in the `extra` bitset (members follow in order).
    offset: usize,
}

/// A way to make an answered operation runnable: unknown-outcome operations to apply
/// first (by class, in order), and the state they lead to.
#[derive(Debug, Clone)]
pub(crate) struct Alternative {
    /// Classes whose next member is applied, in order.
    pub path: Vec<usize>,
    /// The state after applying them.
    pub state: KeyState,
}

/// The unknown-outcome operations of one search and how many of each class are used.
#[derive(Debug)]
pub(crate) struct Pool {
    classes: Vec<Class>,
    used: Vec<usize>,
    /// Classes of conditional operations by the state they require.
    by_expect: HashMap<KeyState, Vec<usize>>,
    /// Total members, the size of the `extra` bitset.
    pub size: usize,
}

impl Pool {
    /// Collects the operations at `positions` (all of unknown outcome, in call order).
    pub(crate) fn new(ops: &[KeyOp], positions: &[usize]) -> Self {
        let mut ids: HashMap<Step, usize> = HashMap::new();
        let mut classes: Vec<Class> = Vec::new();
        for &p in positions {
            let step = ops[p].step;
            let c = *ids.entry(step).or_insert_with(|| {
                classes.push(Class {
                    step,
                    members: Vec::new(),
                    offset: 0,
                });
                classes.len() - 1
            });
            classes[c].members.push(p);
        }
        let mut size = 0;
        let mut by_expect: HashMap<KeyState, Vec<usize>> = HashMap::new();
        for (c, class) in classes.iter_mut().enumerate() {
            class.offset = size;
            size += class.members.len();
            if let Step::MaybeCas { expect, .. } = class.step {
                by_expect.entry(expect).or_default().push(c);
            }
        }
        Pool {
            used: vec![0; classes.len()],
            classes,
            by_expect,
            size,
        }
    }

    /// Whether there is no unknown-outcome operation at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The next member of class `c` after `extra` more uses, if it was called by `until`.
    fn next_member(&self, ops: &[KeyOp], c: usize, extra: usize, until: u64) -> Option<usize> {
        let m = *self.classes[c].members.get(self.used[c] + extra)?;
        (ops[m].call <= until).then_some(m)
    }

    /// All minimal ways to reach, from `state`, a state where `step` can run, using
    /// members called by `until`. A way starts with any operation and continues only
    /// with conditional ones (anything else would overwrite what came before), and never
    /// revisits a state (the loop could be cut out).
    pub(crate) fn alternatives(
        &self,
        ops: &[KeyOp],
        state: KeyState,
        step: Step,
        until: u64,
    ) -> Vec<Alternative> {
        let mut walk = Walk {
            pool: self,
            ops,
            step,
            until,
            path: Vec::new(),
            seen: vec![state],
            out: Vec::new(),
        };
        walk.extend(state);
        let out = walk.out;
        // Drop ways that use a superset of another way's operations.
        let counts = |p: &[usize], c: usize| p.iter().filter(|&&x| x == c).count();
        let covers = |a: &Alternative, b: &Alternative| {
            a.path.len() < b.path.len()
                && a.path
                    .iter()
                    .all(|&c| counts(&a.path, c) <= counts(&b.path, c))
        };
        let keep: Vec<bool> = out
            .iter()
            .map(|b| !out.iter().any(|a| covers(a, b)))
            .collect();
        out.into_iter()
            .zip(keep)
            .filter_map(|(a, k)| k.then_some(a))
            .collect()
    }

    /// Uses the next member of each class on `path`; returns the members' positions.
    pub(crate) fn take(&mut self, path: &[usize], extra: &mut Bits) -> Vec<(usize, usize)> {
        path.iter()
            .filter_map(|&c| {
                let class = self.classes.get(c)?;
                let k = self.used[c];
                let m = *class.members.get(k)?;
                extra.insert(class.offset + k);
                self.used[c] += 1;
                Some((c, m))
            })
            .collect()
    }

    /// Undoes [`Pool::take`].
    pub(crate) fn give_back(&mut self, taken: &[(usize, usize)], extra: &mut Bits) {
        for &(c, _) in taken.iter().rev() {
            if let Some(u) = self.used.get_mut(c) {
                *u -= 1;
                extra.remove(self.classes[c].offset + *u);
            }
        }
    }
}

/// Depth-first enumeration of the ways to make one answered operation runnable.
struct Walk<'a> {
    pool: &'a Pool,
    ops: &'a [KeyOp],
    step: Step,
    until: u64,
    path: Vec<usize>,
    seen: Vec<KeyState>,
    out: Vec<Alternative>,
}

impl Walk<'_> {
    fn extend(&mut self, state: KeyState) {
        let pool = self.pool;
        let all: Vec<usize>;
        let candidates: &[usize] = if self.path.is_empty() {
            all = (0..pool.classes.len()).collect();
            &all
        } else {
            pool.by_expect.get(&state).map_or(&[], Vec::as_slice)
        };
        for &c in candidates {
            let uses = self.path.iter().filter(|&&x| x == c).count();
            if pool.next_member(self.ops, c, uses, self.until).is_none() {
                continue;
            }
            let Some(next) = transition(pool.classes[c].step, state) else {
                continue;
            };
            if self.seen.contains(&next) {
                continue;
            }
            self.path.push(c);
            if transition(self.step, next).is_some() {
                self.out.push(Alternative {
                    path: self.path.clone(),
                    state: next,
                });
            } else {
                self.seen.push(next);
                self.extend(next);
                self.seen.pop();
            }
            self.path.pop();
        }
    }
}
