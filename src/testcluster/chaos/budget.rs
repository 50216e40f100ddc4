//! How many voters may be down or cut off at once: ⌊(voters − 1) / 2⌋, the
//! most a cluster loses and keeps its quorum.

/// The most voters of `voters` that may be down or cut off at once and
/// leave a quorum: ⌊(voters − 1) / 2⌋ (0 for one or two voters).
pub fn tolerated(voters: usize) -> usize {
    voters.saturating_sub(1) / 2
}

/// Whether one more voter may be taken down when `down` of `voters` are
/// down or cut off already; `break_quorum` allows it anyway.
pub fn may_take_one_more(voters: usize, down: usize, break_quorum: bool) -> bool {
    break_quorum || down < tolerated(voters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerated_is_the_fault_tolerance() {
        assert_eq!([1, 2, 3, 4, 5, 6, 7].map(tolerated), [0, 0, 1, 1, 2, 2, 3]);
    }

    #[test]
    fn one_more_only_within_the_tolerance() {
        assert!(may_take_one_more(5, 1, false));
        assert!(!may_take_one_more(5, 2, false));
        assert!(!may_take_one_more(3, 1, false));
        assert!(may_take_one_more(3, 1, true));
    }
}
