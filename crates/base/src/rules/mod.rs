//! Rules both halves apply, defined once: the client's workflows check them
//! before sending, the engine when it decides. Quorum arithmetic, etcd's
//! promote readiness rule, and the syntax of a peer URL ([`peer_url`]).

pub mod peer_url;

/// The share of the leader's log a learner must have to be promoted (etcd's
/// `readyPercent`, not configurable).
pub const READY_RATIO: f64 = 0.9;

/// etcd's readiness rule: the learner's index is at least 90 % of the
/// leader's (and it has some of the log at all).
pub fn learner_ready(learner_index: u64, leader_index: u64) -> bool {
    learner_index > 0 && (learner_index as f64) >= (leader_index as f64) * READY_RATIO
}

/// The number of votes a configuration of `voters` voters needs to decide.
pub fn quorum(voters: usize) -> usize {
    voters / 2 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quorum_and_readiness() {
        assert_eq!((quorum(1), quorum(2), quorum(3), quorum(4)), (1, 2, 2, 3));
        assert!(learner_ready(90, 100));
        assert!(!learner_ready(89, 100));
        assert!(!learner_ready(0, 0));
    }

    #[test]
    fn one_endpoint_comparison_for_already_taken() {
        let e = peer_url::endpoint_of("http://10.0.0.1:2380").unwrap();
        for same in ["HTTP://10.0.0.1:2380", "http://10.0.0.1:2380/"] {
            assert!(e.same_as(same), "{same}");
        }
        for other in [
            "https://10.0.0.1:2380",
            "http://10.0.0.1:2381",
            "http://10.0.0.2:2380",
            "not a url",
        ] {
            assert!(!e.same_as(other), "{other}");
        }
        let default = peer_url::endpoint_of("http://h").unwrap();
        assert!(default.same_as("http://H:80"));
    }
}
