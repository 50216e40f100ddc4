//! Linearizability checking of histories recorded by sequential clients against an
//! etcd-like key-value store.
//!
//! A history is a list of [`Operation`]s (JSON lines via [`read_jsonl`] / [`to_jsonl`]).
//! [`check`] validates it and checks the global revision invariants, then searches each
//! key for a linearization (keys are independent): a Wing–Gong / Lowe search with
//! memoisation, where operations without an answer are applied lazily, only where an
//! answered operation needs them. Only [`Verdict::Linearizable`] passes; an exhausted
//! [`Budget`] gives [`Verdict::Inconclusive`], which is a failure.

#![warn(missing_docs)]

mod bitset;
mod check;
mod describe;
mod events;
mod invariants;
mod keyed;
mod memo;
mod model;
mod op;
mod pool;
mod search;
mod validate;
mod window;

#[cfg(test)]
mod tests;

pub use check::{check, check_values, Report, Stats, Verdict};
pub use op::{read_jsonl, to_jsonl, Operation, Request, Response};
pub use search::Budget;
