//! `memberctl autopilot --listen-metrics ADDR`: autopilot watched as a
//! daemon is watched. Its Prometheus series (looks and their failures,
//! decisions by kind, actions by kind and result, whether this instance
//! leads, seconds since the last complete look, how long the last action
//! and the last repair took) are recorded from every decision as it is made
//! ([`Metrics::record`]); `/metrics` serves them and `/health` answers 200
//! while looks complete, 503 once none has for three intervals.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use prometheus::{Encoder, Gauge, IntCounter, IntCounterVec, IntGauge, Opts, Registry};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::workflow::autopilot::{Action, Phase, Reported, Why};

/// Autopilot's series and what they are computed from.
pub struct Metrics {
    registry: Registry,
    looks: IntCounter,
    look_failures: IntCounter,
    decisions: IntCounterVec,
    actions: IntCounterVec,
    leading: IntGauge,
    since_look: Gauge,
    last_action: Gauge,
    last_repair: Gauge,
    state: Mutex<State>,
    /// How long without a complete look before `/health` answers 503.
    stale_after: Duration,
}

/// What the series are computed from between decisions.
#[derive(Default)]
struct State {
    last_look: Option<Instant>,
    /// The action decided and not yet done or failed: (when decided, how
    /// long its member had been unreachable then).
    acting: Option<(Instant, Option<Duration>)>,
}

fn opts(name: &str, help: &str) -> Opts {
    Opts::new(name, help).namespace("memberctl_autopilot")
}

impl Metrics {
    /// The series, empty; `interval` is autopilot's `--interval`.
    pub fn new(interval: Duration, command_timeout: Duration) -> Metrics {
        let registry = Registry::new();
        let looks = IntCounter::with_opts(opts(
            "looks_total",
            "Looks at the cluster, complete or not.",
        ))
        .unwrap();
        let look_failures = IntCounter::with_opts(opts(
            "look_failures_total",
            "Looks that could not read the cluster (no_look).",
        ))
        .unwrap();
        let decisions = IntCounterVec::new(
            opts(
                "decisions_total",
                "Decisions made, by action and reason (none for a decision not to act).",
            ),
            &["action", "reason"],
        )
        .unwrap();
        let actions = IntCounterVec::new(
            opts(
                "actions_total",
                "Actions taken by this autopilot, by action and result (done, failed).",
            ),
            &["action", "result"],
        )
        .unwrap();
        let leading = IntGauge::with_opts(opts(
            "leading",
            "1 while this autopilot leads the autopilots of its cluster (it acts), else 0.",
        ))
        .unwrap();
        let since_look = Gauge::with_opts(opts(
            "seconds_since_last_look",
            "Seconds since the last complete look at the cluster (-1 before the first).",
        ))
        .unwrap();
        let last_action = Gauge::with_opts(opts(
            "last_action_seconds",
            "How long the last action took, from its decision to done or failed.",
        ))
        .unwrap();
        let last_repair = Gauge::with_opts(opts(
            "last_repair_seconds",
            "Time to repair of the last action done about a dead voter: from when autopilot first found it unreachable to the action's last step.",
        ))
        .unwrap();
        for c in [
            Box::new(looks.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(look_failures.clone()),
            Box::new(decisions.clone()),
            Box::new(actions.clone()),
            Box::new(leading.clone()),
            Box::new(since_look.clone()),
            Box::new(last_action.clone()),
            Box::new(last_repair.clone()),
        ] {
            registry
                .register(c)
                .expect("each series is registered once");
        }
        since_look.set(-1.0);
        // Every action's series from zero, so that an alert on their
        // increase sees the first one.
        for action in [
            "replace",
            "remove_dead",
            "promote_standby",
            "finish_replace",
            "prune",
            "start_standby",
        ] {
            for result in ["done", "failed"] {
                actions.with_label_values(&[action, result]);
            }
        }
        Metrics {
            registry,
            looks,
            look_failures,
            decisions,
            actions,
            leading,
            since_look,
            last_action,
            last_repair,
            state: Mutex::new(State::default()),
            stale_after: interval * 3 + command_timeout * 2,
        }
    }

    /// Takes one reported decision in (every one, printed or not).
    pub fn record(&self, r: &Reported) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let d = &r.decision;
        let action = d.action.as_str();
        match &r.phase {
            Phase::Done | Phase::Failed(_) => {
                let result = if r.phase == Phase::Done {
                    "done"
                } else {
                    "failed"
                };
                self.actions.with_label_values(&[action, result]).inc();
                if let Some((decided, unreachable)) = state.acting.take() {
                    let took = decided.elapsed();
                    self.last_action.set(took.as_secs_f64());
                    if let (Phase::Done, Some(before)) = (&r.phase, unreachable) {
                        self.last_repair.set((before + took).as_secs_f64());
                    }
                }
                return;
            }
            Phase::Decided | Phase::DryRun | Phase::StandingBy => {}
        }
        self.looks.inc();
        self.decisions
            .with_label_values(&[action, d.why.as_str()])
            .inc();
        match &d.why {
            Why::NoLook(_) => {
                self.look_failures.inc();
                return;
            }
            Why::StandingBy { .. } => self.leading.set(0),
            // Without a quorum the election could not be read: unknown.
            Why::NoQuorum => {}
            _ => self.leading.set(1),
        }
        state.last_look = Some(Instant::now());
        if r.phase == Phase::Decided && d.acts() {
            let unreachable = match (&d.action, &d.why) {
                (Action::Replace { .. } | Action::RemoveDead { .. }, Why::Dead { for_ })
                | (Action::RemoveDead { .. }, Why::RemoveFirst { for_, .. }) => Some(*for_),
                _ => None,
            };
            state.acting = Some((Instant::now(), unreachable));
        }
    }

    /// Whether a look completed within the last three intervals.
    fn healthy(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state
            .last_look
            .is_some_and(|l| l.elapsed() <= self.stale_after)
    }

    /// The page of `/metrics` (Prometheus' text format).
    pub fn page(&self) -> String {
        {
            let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            self.since_look
                .set(state.last_look.map_or(-1.0, |l| l.elapsed().as_secs_f64()));
        }
        let mut out = Vec::new();
        let _ = prometheus::TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The answer to one request's first line: status, content type, body.
    fn answer(&self, request_line: &str) -> (u16, &'static str, String) {
        let mut words = request_line.split_whitespace();
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let path = path.split('?').next().unwrap_or("");
        match (method, path) {
            ("GET" | "HEAD", "/metrics") => (200, "text/plain; version=0.0.4", self.page()),
            ("GET" | "HEAD", "/health") if self.healthy() => {
                (200, "application/json", "{\"health\":\"true\"}\n".into())
            }
            ("GET" | "HEAD", "/health") => (
                503,
                "application/json",
                "{\"health\":\"false\",\"reason\":\"no complete look at the cluster lately\"}\n"
                    .into(),
            ),
            ("GET" | "HEAD", _) => (404, "text/plain", "not found\n".into()),
            _ => (405, "text/plain", "method not allowed\n".into()),
        }
    }

    /// Serves `/metrics` and `/health` on `listener` until dropped (HTTP/1.1,
    /// one request per connection).
    pub async fn serve(self: std::sync::Arc<Self>, listener: tokio::net::TcpListener) {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                continue;
            };
            let me = self.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let mut got = 0;
                // The request's head, within a second.
                let read = tokio::time::timeout(Duration::from_secs(1), async {
                    while got < buf.len() {
                        let n = conn.read(&mut buf[got..]).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        got += n;
                        if buf[..got].windows(4).any(|w| w == b"\r\n\r\n") {
                            break;
                        }
                    }
                })
                .await;
                if read.is_err() {
                    return;
                }
                let head = String::from_utf8_lossy(&buf[..got]);
                let first = head.lines().next().unwrap_or("");
                let (status, kind, body) = me.answer(first);
                let reason = match status {
                    200 => "OK",
                    404 => "Not Found",
                    405 => "Method Not Allowed",
                    _ => "Service Unavailable",
                };
                let body = if first.starts_with("HEAD") {
                    String::new()
                } else {
                    body
                };
                let reply = format!(
                    "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(reply.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Member;
    use crate::workflow::autopilot::Decision;

    fn reported(decision: Decision, phase: Phase) -> Reported {
        Reported {
            at: Duration::ZERO,
            autopilot: "a1".into(),
            leader: None,
            decision,
            phase,
        }
    }

    #[test]
    fn decisions_actions_and_repairs_are_counted() {
        let m = Metrics::new(Duration::from_millis(500), Duration::from_secs(2));
        assert!(!m.healthy());
        m.record(&reported(Decision::none(Why::Healthy), Phase::Decided));
        let dead = Member::default();
        let remove = Decision {
            action: Action::RemoveDead { dead },
            why: Why::Dead {
                for_: Duration::from_secs(10),
            },
            about: None,
        };
        m.record(&reported(remove.clone(), Phase::Decided));
        m.record(&reported(remove, Phase::Done));
        m.record(&reported(
            Decision::none(Why::NoLook("down".into())),
            Phase::Decided,
        ));
        let page = m.page();
        for line in [
            "memberctl_autopilot_looks_total 3",
            "memberctl_autopilot_look_failures_total 1",
            "memberctl_autopilot_decisions_total{action=\"none\",reason=\"healthy\"} 1",
            "memberctl_autopilot_actions_total{action=\"remove_dead\",result=\"done\"} 1",
            "memberctl_autopilot_leading 1",
        ] {
            assert!(page.contains(line), "{line} in\n{page}");
        }
        assert!(m.last_repair.get() >= 10.0);
        assert!(m.healthy());
        assert_eq!(m.answer("GET /health HTTP/1.1").0, 200);
        assert_eq!(m.answer("GET /nope HTTP/1.1").0, 404);
    }
}
