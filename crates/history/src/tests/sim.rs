//! Deterministic simulated register histories for the scale tests: sequential clients
//! against a real in-memory store, each operation taking effect at a point inside its
//! interval (failed writes take effect or not), randomness from a small LCG.

use std::collections::HashMap;
use std::time::Instant;

use super::super::*;

use super::Lcg;

/// Shape of a simulated history.
struct Sim {
    ops: usize,
    keys: u64,
    clients: usize,
    failed_per_mille: u64,
    seed: u64,
}

/// An operation waiting for its linearization point.
struct Pending {
    client: u64,
    call: u64,
    lin: u64,
    ret: u64,
    key: String,
    request: Request,
    fails: bool,
    applies: bool,
}

/// The store: key → (value, mod revision), plus the current revision.
#[derive(Default)]
struct Store {
    data: HashMap<String, (String, i64)>,
    revision: i64,
}

impl Store {
    fn execute(&mut self, key: &str, request: &Request) -> Response {
        let current = self.data.get(key).cloned();
        match request {
            Request::Get => Response::Get {
                value: current.as_ref().map(|c| c.0.clone()),
                mod_revision: current.map_or(0, |c| c.1),
                revision: self.revision,
            },
            Request::Put { value } => {
                self.revision += 1;
                self.data
                    .insert(key.to_string(), (value.clone(), self.revision));
                Response::Put {
                    revision: self.revision,
                }
            }
            Request::Delete => {
                let deleted = i64::from(self.data.remove(key).is_some());
                self.revision += deleted;
                Response::Delete {
                    deleted,
                    revision: self.revision,
                }
            }
            Request::Cas { expect, value } => {
                if current.as_ref().map(|c| &c.0) == expect.as_ref() {
                    self.revision += 1;
                    self.data
                        .insert(key.to_string(), (value.clone(), self.revision));
                    Response::Cas {
                        succeeded: true,
                        value: None,
                        mod_revision: 0,
                        revision: self.revision,
                    }
                } else {
                    Response::Cas {
                        succeeded: false,
                        value: current.as_ref().map(|c| c.0.clone()),
                        mod_revision: current.map_or(0, |c| c.1),
                        revision: self.revision,
                    }
                }
            }
        }
    }
}

impl Sim {
    fn next_op(
        &self,
        rng: &mut Lcg,
        store: &Store,
        client: u64,
        call: u64,
        seq: &mut u64,
    ) -> Pending {
        let key = format!("k{}", rng.below(self.keys));
        *seq += 1;
        let value = format!("c{client}-{seq}");
        let request = match rng.below(100) {
            0..=39 => Request::Get,
            40..=69 => Request::Put { value },
            70..=79 => Request::Delete,
            r => {
                let expect = match r % 4 {
                    0 => None,
                    1 => Some("never-written".to_string()),
                    _ => store.data.get(&key).map(|c| c.0.clone()),
                };
                Request::Cas { expect, value }
            }
        };
        let lin = call + 1 + rng.below(50_000);
        let ret = lin + 1 + rng.below(50_000);
        Pending {
            client,
            call,
            lin,
            ret,
            key,
            request,
            fails: rng.below(1000) < self.failed_per_mille,
            applies: rng.below(2) == 0,
        }
    }

    /// Runs the simulation: repeatedly executes the pending operation with the earliest
    /// linearization point, so the store sees operations in linearization order.
    fn run(&self) -> Vec<Operation> {
        let mut rng = Lcg(self.seed);
        let mut store = Store::default();
        let mut seq = 0;
        let mut next_client = self.clients as u64;
        let mut pending: Vec<Pending> = (0..self.clients)
            .map(|c| {
                let call = rng.below(10_000);
                self.next_op(&mut rng, &store, c as u64, call, &mut seq)
            })
            .collect();
        let mut history = Vec::with_capacity(self.ops);
        while history.len() < self.ops {
            let Some(slot) = (0..pending.len()).min_by_key(|&i| (pending[i].lin, i)) else {
                break;
            };
            let p = &pending[slot];
            let (ret, response) = if p.fails {
                if p.applies && p.request != Request::Get {
                    store.execute(&p.key, &p.request);
                }
                let error = "timeout".to_string();
                (None, Response::Failed { error })
            } else {
                (Some(p.ret), store.execute(&p.key, &p.request))
            };
            let mut client = p.client;
            if p.fails {
                client = next_client;
                next_client += 1;
            }
            history.push(Operation {
                client: p.client,
                call: p.call,
                ret,
                key: p.key.clone(),
                request: p.request.clone(),
                response,
            });
            let call = p.ret + rng.below(20_000);
            pending[slot] = self.next_op(&mut rng, &store, client, call, &mut seq);
        }
        history
    }
}

fn timed_check(name: &str, history: &[Operation]) -> Report {
    let start = Instant::now();
    let report = check(history, &Budget::default());
    println!("{name}: {:?}\n{report}", start.elapsed());
    report
}

fn scale(failed_per_mille: u64) -> Vec<Operation> {
    Sim {
        ops: 20_000,
        keys: 8,
        clients: 6,
        failed_per_mille,
        seed: 42 + failed_per_mille,
    }
    .run()
}

#[test]
fn scale_20k_ops_passes() {
    let history = scale(0);
    let report = timed_check("20k ops, 8 keys, 6 clients", &history);
    assert!(report.passed(), "{report}");
    assert_eq!(report.stats.operations, 20_000);
    assert_eq!(report.stats.keys, 8);
}

#[test]
fn scale_20k_ops_with_failed_writes_passes() {
    let history = scale(20);
    let failed = history.iter().filter(|o| !o.answered()).count();
    assert!(failed > 200, "only {failed} failed operations");
    let report = timed_check("20k ops, 2% failed", &history);
    assert!(report.passed(), "{report}");
}

#[test]
fn scale_single_key_contention_passes() {
    let history = Sim {
        ops: 20_000,
        keys: 1,
        clients: 6,
        failed_per_mille: 20,
        seed: 7,
    }
    .run();
    let report = timed_check("20k ops, 1 key, 2% failed", &history);
    assert!(report.passed(), "{report}");
}

/// Makes one late get return a value that was overwritten long before it was called.
#[test]
fn scale_stale_read_is_caught() {
    let mut history = scale(20);
    let Some(g) = (history.len() / 2..history.len()).find(|&i| {
        history[i].answered() && history[i].request == Request::Get && history[i].key == "k3"
    }) else {
        panic!("no get on k3");
    };
    let first_put = history
        .iter()
        .position(|o| o.key == "k3" && o.answered() && matches!(o.request, Request::Put { .. }));
    let Some(p) = first_put else {
        panic!("no put on k3");
    };
    let (Request::Put { value }, Response::Put { revision }) =
        (history[p].request.clone(), history[p].response.clone())
    else {
        panic!("not a put");
    };
    if let Response::Get {
        value: v,
        mod_revision,
        ..
    } = &mut history[g].response
    {
        *v = Some(value);
        *mod_revision = revision;
    }
    let report = timed_check("20k ops with one stale read", &history);
    assert!(
        matches!(report.verdict, Verdict::NotLinearizable { ref key, .. } if key == "k3"),
        "{report}"
    );
}
