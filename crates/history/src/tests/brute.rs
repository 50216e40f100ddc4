//! Cross-check of the search against a brute-force enumeration of all orders on small
//! random single-key histories (including operations of unknown outcome).

use std::collections::HashSet;

use super::super::keyed::split_by_key;
use super::super::search::{search, Limits, Outcome};
use super::super::*;

use super::Lcg;

/// Runs `op` on a concrete state; `None` when it cannot run there. Unknown-outcome
/// operations are run as "took effect".
fn run(op: &Operation, state: &Option<String>) -> Option<Option<String>> {
    let known = op.answered();
    match (&op.request, &op.response) {
        (Request::Put { value }, _) => Some(Some(value.clone())),
        (Request::Get, Response::Get { value, .. }) => (state == value).then(|| state.clone()),
        (Request::Delete, Response::Delete { deleted, .. }) if known => {
            ((*deleted == 1) == state.is_some()).then_some(None)
        }
        (Request::Delete, _) => Some(None),
        (
            Request::Cas { expect, value },
            Response::Cas {
                succeeded,
                value: read,
                ..
            },
        ) if known => {
            if *succeeded {
                (state == expect).then(|| Some(value.clone()))
            } else {
                (state != expect && state == read).then(|| state.clone())
            }
        }
        (Request::Cas { expect, value }, _) => (state == expect).then(|| Some(value.clone())),
        _ => None,
    }
}

/// Whether some order of all answered operations and any subset of the others fits.
fn brute(ops: &[Operation]) -> bool {
    let ops: Vec<&Operation> = ops
        .iter()
        .filter(|o| o.answered() || o.request != Request::Get)
        .collect();
    let need: u32 = (0..ops.len())
        .filter(|&i| ops[i].answered())
        .map(|i| 1 << i)
        .sum();
    let mut seen = HashSet::new();
    dfs(&ops, need, 0, None, &mut seen)
}

fn dfs(
    ops: &[&Operation],
    need: u32,
    done: u32,
    state: Option<String>,
    seen: &mut HashSet<(u32, Option<String>)>,
) -> bool {
    if done & need == need {
        return true;
    }
    if !seen.insert((done, state.clone())) {
        return false;
    }
    for (i, op) in ops.iter().enumerate() {
        if done & (1 << i) != 0 {
            continue;
        }
        // Every answered operation that returned before this call must come first.
        let blocked = ops.iter().enumerate().any(|(j, b)| {
            done & (1 << j) == 0 && b.answered() && b.ret.is_some_and(|r| r < op.call)
        });
        if blocked {
            continue;
        }
        if let Some(next) = run(op, &state) {
            if dfs(ops, need, done | (1 << i), next, seen) {
                return true;
            }
        }
    }
    false
}

fn pick<'a>(rng: &mut Lcg, written: &'a [String]) -> Option<&'a String> {
    let i = rng.below(written.len() as u64 + 1) as usize;
    written.get(i)
}

/// A small history: a real register run at random points, then some responses replaced
/// by random ones so that many histories are not linearizable.
fn random_history(rng: &mut Lcg, n: usize) -> Vec<Operation> {
    let mut ops: Vec<(u64, u64, u64, Request)> = Vec::new();
    let mut written: Vec<String> = Vec::new();
    for i in 0..n {
        let call = rng.below(20);
        let lin = call + rng.below(6);
        let ret = lin + rng.below(6);
        let value = format!("w{i}");
        let request = match rng.below(4) {
            0 => Request::Get,
            1 => Request::Delete,
            2 => Request::Cas {
                expect: pick(rng, &written).cloned(),
                value: value.clone(),
            },
            _ => Request::Put {
                value: value.clone(),
            },
        };
        if request != Request::Get && request != Request::Delete {
            written.push(value);
        }
        ops.push((call, lin, ret, request));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| ops[i].1);
    let mut state: Option<String> = None;
    let mut out: Vec<Option<Operation>> = vec![None; n];
    for i in order {
        let (call, _, ret, request) = ops[i].clone();
        let fails = rng.below(4) == 0;
        let applies = !fails || rng.below(2) == 0;
        let mut response = match &request {
            Request::Get => Response::Get {
                value: state.clone(),
                mod_revision: 0,
                revision: 0,
            },
            Request::Put { .. } => Response::Put { revision: 0 },
            Request::Delete => Response::Delete {
                deleted: i64::from(state.is_some()),
                revision: 0,
            },
            Request::Cas { expect, .. } => Response::Cas {
                succeeded: &state == expect,
                value: if &state == expect {
                    None
                } else {
                    state.clone()
                },
                mod_revision: 0,
                revision: 0,
            },
        };
        if applies {
            let probe = Operation {
                client: 0,
                call,
                ret: Some(ret),
                key: "k".into(),
                request: request.clone(),
                response: response.clone(),
            };
            if let Some(next) = run(&probe, &state) {
                state = next;
            }
        }
        if rng.below(3) == 0 {
            response = match &request {
                Request::Get => Response::Get {
                    value: pick(rng, &written).cloned(),
                    mod_revision: 0,
                    revision: 0,
                },
                Request::Put { .. } => response,
                Request::Delete => Response::Delete {
                    deleted: rng.below(2) as i64,
                    revision: 0,
                },
                Request::Cas { .. } => {
                    let succeeded = rng.below(2) == 0;
                    let value = if succeeded {
                        None
                    } else {
                        pick(rng, &written).cloned()
                    };
                    Response::Cas {
                        succeeded,
                        value,
                        mod_revision: 0,
                        revision: 0,
                    }
                }
            };
        }
        let (ret, response) = if fails {
            (
                None,
                Response::Failed {
                    error: "timeout".into(),
                },
            )
        } else {
            (Some(ret), response)
        };
        out[i] = Some(Operation {
            client: i as u64,
            call,
            ret,
            key: "k".into(),
            request,
            response,
        });
    }
    out.into_iter().flatten().collect()
}

#[test]
fn search_agrees_with_brute_force() {
    let mut rng = Lcg(2024);
    let limits = Limits {
        max_steps: u64::MAX,
        deadline: None,
    };
    let (mut yes, mut no) = (0, 0);
    for round in 0..8000 {
        let n = 1 + (round % 7);
        let history = random_history(&mut rng, n);
        let expected = brute(&history);
        let keyed = split_by_key(&history);
        let got = keyed
            .iter()
            .all(|kh| search(&kh.ops, &limits, false).outcome == Outcome::Linearizable);
        assert_eq!(
            got,
            expected,
            "round {round}: disagreement on\n{}",
            to_jsonl(&history)
        );
        if expected {
            yes += 1;
        } else {
            no += 1;
        }
    }
    println!("brute-force agreement: {yes} linearizable, {no} not");
    assert!(yes > 1000 && no > 1000, "{yes} linearizable, {no} not");
}
