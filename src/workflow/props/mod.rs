//! Property tests (proptest) of two invariants, one suite each: rule 1 accepts exactly the documented peer-URL grammar (`urls`), and the quorum planner never allows a step the reachable members could not decide in (`quorum`).

use proptest::test_runner::Config;

mod quorum;
mod urls;

/// 256 cases each; failures are reported (shrunk), not written to regression files.
fn config() -> Config {
    Config {
        failure_persistence: None,
        ..Config::default()
    }
}
