//! The judges: the workflows' pure calculators, in one wing.
//!
//! The rule of this folder: no `async fn`, no `MembershipApi`, `Ctx` or
//! `Observer`, and nothing of `workflow` outside it — a calculator takes
//! the domain types (`model`), `error` and `rules`, and returns its verdict
//! by value. The steps (the rest of `workflow/`) gather what a calculator
//! needs and call it, never the reverse. `src/arrows.rs` holds the rule.
//!
//! - [`health`]: the members' answers, reachability and the leader;
//! - [`look`]: one look at the members, and the one rule for a dead member;
//! - [`order`]: which comes first in a replacement;
//! - [`quorum`]: quorum arithmetic and the planner of safe steps;
//! - [`configuration`]: the configuration calculator of explicit joint consensus;
//! - [`validate`]: the peer-URL rules before an add or an update;
//! - [`apply_plan`]: `member apply`'s plan from where the cluster is;
//! - [`recovery`]: a lost quorum diagnosed, and `--force-new-cluster` seen;
//! - [`leader`]: whom leadership goes to;
//! - [`joint`]: a joint change's plan steps and rule 7;
//! - [`replacement`]: `member replace`'s steps from where the cluster is;
//! - [`preflight`]: the pre-flight checks' facts, judges and `evaluate`;
//! - [`prune`]: `member prune`'s judge;
//! - [`autopilot`]: autopilot's `decide`;
//! - [`status`]: `member status`'s rows, fault tolerance and a lost quorum;
//! - [`cost`]: what a change cost, from the counters before and after;
//! - [`catching_up`]: a learner's catch-up judged from its samples: state,
//!   phases, rates, the readiness span and the time left.

pub mod apply_plan;
pub mod autopilot;
pub mod catching_up;
pub mod configuration;
pub mod cost;
pub mod health;
pub mod joint;
pub mod leader;
pub mod look;
pub mod order;
pub mod preflight;
pub mod prune;
pub mod quorum;
pub mod recovery;
pub mod replacement;
pub mod status;
pub mod validate;
