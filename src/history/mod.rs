//! Linearizability checking of histories recorded by sequential clients against an
//! etcd-like key-value store.
//!
//! A history is a list of [`Operation`]s (JSON lines via [`read_jsonl`] / [`to_jsonl`]).
//! [`check`] first validates it and checks global revision invariants, then searches each
//! key for a linearization (keys are independent) with a powerset register model, and
//! returns a [`Report`]. Only [`Verdict::Linearizable`] passes; an exhausted [`Budget`]
//! gives [`Verdict::Inconclusive`], which is a failure.

mod bitset;
mod check;
mod describe;
mod invariants;
mod model;
mod op;
mod search;
mod validate;
mod window;

#[cfg(test)]
mod tests;

pub use check::{check, Budget, Report, Stats, Verdict};
pub use op::{read_jsonl, to_jsonl, Operation, Request, Response};
