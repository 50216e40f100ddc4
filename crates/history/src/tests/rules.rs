//! Tests of the global revision invariants and well-formedness rules.

use super::super::invariants::{
    RULE_CLIENT, RULE_MOD_REV, RULE_NOBODY, RULE_READ_REV, RULE_REAL_TIME, RULE_UNIQUE,
};
use super::*;

#[test]
fn duplicate_write_revisions() {
    let w = assert_rule(
        &[
            on("k1", put(1, 0, 1, "a", 2)),
            on("k2", put(2, 2, 3, "b", 2)),
        ],
        RULE_UNIQUE,
    );
    assert!(w.contains("revision 2"), "{w}");
}

#[test]
fn client_revisions_going_backwards() {
    assert_rule(
        &[
            on("k1", get(1, 0, 1, None, 0, 5)),
            on("k2", get(1, 2, 3, None, 0, 4)),
        ],
        RULE_CLIENT,
    );
}

#[test]
fn read_revision_below_completed_write() {
    assert_rule(
        &[
            on("k1", put(1, 0, 1, "a", 5)),
            on("k2", get(2, 2, 3, None, 0, 4)),
        ],
        RULE_READ_REV,
    );
}

#[test]
fn real_time_write_order() {
    let w = assert_rule(
        &[
            on("k1", put(1, 0, 1, "a", 5)),
            on("k3", put(2, 2, 3, "b", 4)),
        ],
        RULE_REAL_TIME,
    );
    assert!(
        w.contains("put k1 returned before put k3 was called, yet has the higher revision"),
        "{w}"
    );
    assert!(
        w.contains("client 2  [2.000 ms → 3.000 ms]  put k3 = \"b\"  → ok rev 4"),
        "{w}"
    );
}

#[test]
fn read_value_nobody_wrote() {
    assert_rule(&[get(1, 0, 1, Some("ghost"), 2, 2)], RULE_NOBODY);
    // a value written to another key does not count
    assert_rule(
        &[
            on("a", put(1, 0, 1, "v", 2)),
            on("b", get(1, 2, 3, Some("v"), 2, 2)),
        ],
        RULE_NOBODY,
    );
}

#[test]
fn mod_revision_must_match_writer() {
    assert_rule(
        &[put(1, 0, 1, "v", 2), get(1, 2, 3, Some("v"), 7, 2)],
        RULE_MOD_REV,
    );
}

#[test]
fn malformed_histories_are_rejected() {
    let mut mismatched = get(1, 0, 1, None, 0, 1);
    mismatched.response = Response::Put { revision: 1 };
    let report = check(&[mismatched], &Budget::default());
    assert!(
        matches!(report.verdict, Verdict::InvariantBroken { .. }),
        "{report}"
    );
    let dup = [put(1, 0, 1, "v", 2), put(1, 2, 3, "v", 3)];
    assert_rule(&dup, "written values must be unique");
}
