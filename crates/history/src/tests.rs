//! Unit tests of the checker: register semantics, unknown outcomes, budget, windows, JSON lines.

mod brute;
mod rules;
mod sim;

/// Linear congruential generator (Knuth's MMIX constants): reproducible histories.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

use super::*;

const MS: u64 = 1_000_000;

fn op(client: u64, call: u64, ret: Option<u64>, request: Request, response: Response) -> Operation {
    Operation {
        client,
        call: call * MS,
        ret: ret.map(|r| r * MS),
        key: "k".to_string(),
        request,
        response,
    }
}

fn on(key: &str, mut o: Operation) -> Operation {
    o.key = key.to_string();
    o
}

fn put(c: u64, call: u64, ret: u64, value: &str, revision: i64) -> Operation {
    let req = Request::Put {
        value: value.to_string(),
    };
    op(c, call, Some(ret), req, Response::Put { revision })
}

fn failed(c: u64, call: u64, request: Request) -> Operation {
    let error = "timeout".to_string();
    op(c, call, None, request, Response::Failed { error })
}

fn put_failed(c: u64, call: u64, value: &str) -> Operation {
    let value = value.to_string();
    failed(c, call, Request::Put { value })
}

fn get(
    c: u64,
    call: u64,
    ret: u64,
    value: Option<&str>,
    mod_revision: i64,
    revision: i64,
) -> Operation {
    let resp = Response::Get {
        value: value.map(str::to_string),
        mod_revision,
        revision,
    };
    op(c, call, Some(ret), Request::Get, resp)
}

fn del(c: u64, call: u64, ret: u64, deleted: i64, revision: i64) -> Operation {
    op(
        c,
        call,
        Some(ret),
        Request::Delete,
        Response::Delete { deleted, revision },
    )
}

fn cas_req(expect: Option<&str>, value: &str) -> Request {
    Request::Cas {
        expect: expect.map(str::to_string),
        value: value.to_string(),
    }
}

fn cas_ok(
    c: u64,
    call: u64,
    ret: u64,
    expect: Option<&str>,
    value: &str,
    revision: i64,
) -> Operation {
    let resp = Response::Cas {
        succeeded: true,
        value: None,
        mod_revision: 0,
        revision,
    };
    op(c, call, Some(ret), cas_req(expect, value), resp)
}

/// A cas whose compare failed; `read` is (value, mod revision, revision).
fn cas_no(
    c: u64,
    call: u64,
    ret: u64,
    expect: Option<&str>,
    value: &str,
    (read, mod_revision, revision): (Option<&str>, i64, i64),
) -> Operation {
    let resp = Response::Cas {
        succeeded: false,
        value: read.map(str::to_string),
        mod_revision,
        revision,
    };
    op(c, call, Some(ret), cas_req(expect, value), resp)
}

fn assert_pass(history: &[Operation]) {
    let report = check(history, &Budget::default());
    assert!(report.passed(), "expected a pass, got: {report}");
}

/// Asserts the history is not linearizable and returns the window text.
fn assert_not_linearizable(history: &[Operation]) -> String {
    let report = check(history, &Budget::default());
    assert!(!report.passed());
    match report.verdict {
        Verdict::NotLinearizable { window, .. } => window,
        _ => panic!("expected not linearizable, got: {report}"),
    }
}

/// Asserts the history breaks `rule` and returns the window text.
fn assert_rule(history: &[Operation], rule: &str) -> String {
    let report = check(history, &Budget::default());
    assert!(!report.passed());
    match &report.verdict {
        Verdict::InvariantBroken { rule: r, window } if r == rule => window.clone(),
        _ => panic!("expected {rule:?}, got: {report}"),
    }
}

#[test]
fn sequential_history_passes() {
    assert_pass(&[
        put(1, 0, 1, "v1", 2),
        get(1, 2, 3, Some("v1"), 2, 2),
        put(1, 4, 5, "v2", 3),
        get(2, 6, 7, Some("v2"), 3, 3),
        del(1, 8, 9, 1, 4),
        get(2, 10, 11, None, 0, 4),
        del(1, 12, 13, 0, 4),
    ]);
    assert_pass(&[]);
}

#[test]
fn concurrent_puts_pass_in_either_order() {
    assert_pass(&[
        put(1, 0, 10, "a", 3),
        put(2, 1, 9, "b", 2),
        get(3, 11, 12, Some("a"), 3, 3),
    ]);
    assert_pass(&[
        put(1, 0, 10, "a", 2),
        put(2, 1, 9, "b", 3),
        get(3, 11, 12, Some("b"), 3, 3),
    ]);
}

#[test]
fn concurrent_get_may_see_old_or_new_value() {
    let base = [put(1, 0, 1, "v1", 2), put(1, 2, 10, "v2", 3)];
    let mut old = base.to_vec();
    old.push(get(2, 3, 4, Some("v1"), 2, 2));
    assert_pass(&old);
    let mut new = base.to_vec();
    new.push(get(2, 3, 4, Some("v2"), 3, 3));
    assert_pass(&new);
}

#[test]
fn stale_read_is_not_linearizable() {
    let window = assert_not_linearizable(&[
        put(1, 0, 1, "v1", 2),
        put(1, 2, 3, "v2", 3),
        get(2, 4, 5, Some("v1"), 2, 3),
    ]);
    assert!(window.contains("put k = \"v2\""), "{window}");
    assert!(window.contains("get k  → \"v1\""), "{window}");
    assert!(window.contains("leaves the key at \"v2\""), "{window}");
}

#[test]
fn failed_put_observed_later_passes() {
    assert_pass(&[
        put(1, 0, 1, "v1", 2),
        put_failed(2, 2, "v2"),
        get(3, 5, 6, Some("v2"), 3, 3),
        get(3, 7, 8, Some("v2"), 3, 3),
    ]);
}

#[test]
fn failed_put_never_observed_passes() {
    assert_pass(&[
        put(1, 0, 1, "v1", 2),
        put_failed(2, 2, "v2"),
        get(3, 5, 6, Some("v1"), 2, 2),
    ]);
}

#[test]
fn failed_put_observed_then_unobserved_fails() {
    let window = assert_not_linearizable(&[
        put(1, 0, 1, "v1", 2),
        put_failed(2, 2, "v2"),
        get(3, 5, 6, Some("v2"), 3, 3),
        get(3, 7, 8, Some("v1"), 2, 3),
    ]);
    assert!(window.contains("no answer (timeout)"), "{window}");
}

#[test]
fn failed_put_cannot_be_seen_before_its_call() {
    assert_not_linearizable(&[get(3, 0, 1, Some("v"), 2, 2), put_failed(2, 2, "v")]);
}

#[test]
fn failed_get_is_ignored() {
    assert_pass(&[put(1, 0, 1, "v1", 2), failed(2, 2, Request::Get)]);
}

#[test]
fn delete_counts() {
    assert_pass(&[
        put(1, 0, 1, "v1", 2),
        del(1, 2, 3, 1, 3),
        get(1, 4, 5, None, 0, 3),
    ]);
    assert_not_linearizable(&[del(1, 0, 1, 1, 2)]);
    assert_not_linearizable(&[put(1, 0, 1, "v1", 2), del(2, 2, 3, 0, 2)]);
}

#[test]
fn failed_delete() {
    let base = [put(1, 0, 1, "v1", 2), failed(2, 2, Request::Delete)];
    let mut gone = base.to_vec();
    gone.push(get(3, 4, 5, None, 0, 3));
    assert_pass(&gone);
    let mut kept = base.to_vec();
    kept.push(get(3, 4, 5, Some("v1"), 2, 2));
    assert_pass(&kept);
    gone.push(get(3, 6, 7, Some("v1"), 2, 3));
    assert_not_linearizable(&gone);
}

#[test]
fn cas_semantics() {
    assert_pass(&[
        cas_ok(1, 0, 1, None, "a", 2),
        cas_ok(1, 2, 3, Some("a"), "b", 3),
        cas_no(2, 4, 5, Some("a"), "c", (Some("b"), 3, 3)),
        get(2, 6, 7, Some("b"), 3, 3),
    ]);
    // succeeded although the key held another value
    assert_not_linearizable(&[put(1, 0, 1, "v1", 2), cas_ok(1, 2, 3, Some("zz"), "c", 3)]);
    // succeeded although the key was absent
    assert_not_linearizable(&[cas_ok(1, 0, 1, Some("zz"), "c", 2)]);
    // compare failed although the key held the expected value
    assert_not_linearizable(&[
        put(1, 0, 1, "v1", 2),
        cas_no(1, 2, 3, Some("v1"), "c", (Some("v1"), 2, 2)),
    ]);
    // compare failed but read a stale value
    assert_not_linearizable(&[
        put(1, 0, 1, "v1", 2),
        put(1, 2, 3, "v2", 3),
        cas_no(1, 4, 5, Some("x"), "c", (Some("v1"), 2, 3)),
    ]);
}

#[test]
fn failed_cas() {
    let ok = [
        put(1, 0, 1, "v1", 2),
        failed(2, 2, cas_req(Some("v1"), "c")),
        get(3, 4, 5, Some("c"), 3, 3),
    ];
    assert_pass(&ok);
    let bad = [
        put(1, 0, 1, "v1", 2),
        failed(2, 2, cas_req(Some("zz"), "c")),
        get(3, 4, 5, Some("c"), 3, 3),
    ];
    assert_not_linearizable(&bad);
}

#[test]
fn unanswered_writes_chain() {
    // a failed put of "v" enables a failed cas v → w, which a get observes
    let ok = [
        put_failed(1, 0, "v"),
        failed(2, 1, cas_req(Some("v"), "w")),
        get(3, 5, 6, Some("w"), 3, 3),
    ];
    assert_pass(&ok);
    // the put of "v" was called only after "w" was seen
    let late = [
        failed(2, 1, cas_req(Some("v"), "w")),
        get(3, 5, 6, Some("w"), 3, 3),
        put_failed(1, 7, "v"),
    ];
    assert_not_linearizable(&late);
}

#[test]
fn unread_failed_put_can_explain_a_delete() {
    let one = [put_failed(1, 0, "x"), del(2, 1, 2, 1, 2)];
    assert_pass(&one);
    let two = [
        put_failed(1, 0, "x"),
        del(2, 1, 2, 1, 2),
        del(2, 3, 4, 1, 3),
    ];
    assert_not_linearizable(&two);
    let mut again = two.to_vec();
    again.push(put_failed(3, 2, "y"));
    assert_pass(&again);
}

#[test]
fn keys_are_independent() {
    assert_pass(&[
        on("a", put(1, 0, 10, "a1", 2)),
        on("b", put(2, 1, 2, "b1", 3)),
        on("b", get(2, 3, 4, Some("b1"), 3, 3)),
        on("a", get(2, 5, 6, None, 0, 3)),
    ]);
}

/// `n` concurrent failed puts and `n` concurrent gets each seeing one of them, then two
/// sequential gets that would need the first value written twice: refuting it means
/// trying the orders of the concurrent operations.
fn pathological(n: u64) -> Vec<Operation> {
    let mut h = Vec::new();
    for i in 0..n {
        let value = format!("f{i}");
        h.push(put_failed(i, i, &value));
        h.push(get(100 + i, i, 1000, Some(&value), 1, 100));
    }
    h.push(get(300, 1001, 1002, Some("f1"), 1, 100));
    h.push(get(300, 1003, 1004, Some("f0"), 1, 100));
    h
}

#[test]
fn budget_exhaustion_is_inconclusive() {
    let budget = Budget {
        max_steps: 1000,
        ..Budget::default()
    };
    let report = check(&pathological(8), &budget);
    assert!(
        matches!(report.verdict, Verdict::Inconclusive { .. }),
        "{report}"
    );
    assert!(!report.passed());
    assert!(report.to_string().contains("counted as a failure"));
    // with the default budget the same history is refuted
    assert_not_linearizable(&pathological(6));
}

#[test]
fn jsonl_round_trip() {
    let history = vec![
        put(1, 0, 1, "v1", 2),
        put_failed(2, 2, "v2"),
        get(3, 5, 6, Some("v2"), 3, 3),
        del(3, 7, 8, 1, 4),
        cas_no(1, 9, 10, None, "c", (None, 0, 4)),
        failed(4, 11, cas_req(None, "d")),
    ];
    let text = to_jsonl(&history);
    assert_eq!(text.lines().count(), history.len());
    assert_eq!(read_jsonl(&text), Ok(history));
    let err = read_jsonl("\n{\"client\":1}\n").err().unwrap_or_default();
    assert!(err.starts_with("line 2:"), "{err}");
}
