//! Autopilot's place in the election: its lease, taken again when lost and
//! kept alive through every look, wait and action (a renewal that fails on
//! the way is no expiry; one not answered within the lease's time to live
//! is); whether it leads, and since when; the warning for a `--lease-ttl`
//! too short for the looks.

use std::cell::Cell;
use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::{Election, ELECTION};
use crate::workflow::{ApiError, ApiErrorKind};

/// This autopilot's place in the election: its lease, taken again when lost.
pub(super) struct Candidate<'a, E> {
    pub(super) election: &'a E,
    pub(super) name: &'a str,
    pub(super) ttl: Duration,
    pub(super) lease: Option<i64>,
    /// When the last renewal (or the grant) that was answered was sent: the
    /// server counts the lease's time to live from when it got it, not
    /// before.
    renewed: Cell<Instant>,
    /// Whether the last [`Candidate::lead`] found this autopilot leading.
    leading: bool,
    /// Whether it has led without a break since the [`Candidate::lead`]
    /// before the last: the same lease kept alive, leading both times. A
    /// look taken between the two was taken while it led.
    pub(super) held: bool,
}

impl<'a, E: Election> Candidate<'a, E> {
    /// A candidate without a lease yet.
    pub(super) fn new(election: &'a E, name: &'a str, ttl: Duration) -> Self {
        Candidate {
            election,
            name,
            ttl,
            lease: None,
            renewed: Cell::new(Instant::now()),
            leading: false,
            held: false,
        }
    }

    /// Whether this autopilot leads; else the leader's name. Takes a lease
    /// first when it has none (or lost it).
    pub(super) async fn lead(&mut self) -> Result<Result<(), String>, ApiError> {
        let was = std::mem::take(&mut self.leading);
        self.held = false;
        let sent = Instant::now();
        let (lease, kept) = match self.lease {
            Some(l) => match self.election.lease_keep_alive(l).await {
                Ok(()) => {
                    self.renewed.set(sent);
                    (l, true)
                }
                Err(e) if e.kind == ApiErrorKind::NotFound => (self.grant().await?, false),
                Err(e) => return Err(e),
            },
            None => (self.grant().await?, false),
        };
        let r = lead(self.election, lease, self.name).await?;
        self.leading = r.is_ok();
        self.held = was && kept && self.leading;
        Ok(r)
    }

    async fn grant(&mut self) -> Result<i64, ApiError> {
        self.lease = None;
        let sent = Instant::now();
        let l = self.election.lease_grant(self.ttl).await?;
        self.renewed.set(sent);
        self.lease = Some(l);
        Ok(l)
    }

    /// Runs `work` with the lease kept alive; `Err` once the lease is lost
    /// (`work` is dropped then, wherever it is).
    pub(super) async fn keeping<T>(&self, work: impl Future<Output = T>) -> Result<T, ApiError> {
        tokio::select! {
            r = work => Ok(r),
            e = keep_alive(self.election, self.lease, self.ttl, &self.renewed) => Err(e),
        }
    }

    /// Runs `work` with the lease kept alive while it can be; `work` runs to
    /// its end either way (a look: the next [`Candidate::lead`] finds out
    /// whether the lease lasted).
    pub(super) async fn looking<T>(&self, work: impl Future<Output = T>) -> T {
        tokio::pin!(work);
        match self.keeping(&mut work).await {
            Ok(r) => r,
            Err(_) => work.await,
        }
    }

    /// Sleeps `d` unless `stop` is set first (the lease kept alive
    /// meanwhile); returns whether to stop.
    pub(super) async fn pause(&self, stop: &mut watch::Receiver<bool>, d: Duration) -> bool {
        if *stop.borrow() {
            return true;
        }
        let wait = async {
            tokio::select! {
                _ = tokio::time::sleep(d) => {}
                _ = stop.changed() => {}
            }
        };
        let _ = self.looking(wait).await;
        *stop.borrow()
    }
}

/// Whether this autopilot leads the election; else the leader's name.
async fn lead<E: Election>(
    election: &E,
    lease: i64,
    name: &str,
) -> Result<Result<(), String>, ApiError> {
    match election.election_leader(ELECTION).await? {
        Some(l) if l.lease == lease => Ok(Ok(())),
        Some(l) => Ok(Err(l.value)),
        None => match election.campaign(ELECTION, lease, name).await {
            Ok(_) => Ok(Ok(())),
            Err(e) if e.kind == ApiErrorKind::DeadlineExceeded => {
                Ok(Err("another autopilot".to_string()))
            }
            Err(e) => Err(e),
        },
    }
}

/// Renews `lease` a third of `ttl` after the last renewal that was answered
/// (`renewed`: when it was sent; updated here); returns once the lease has
/// expired (`NotFound`) or was not renewed within a whole `ttl` of that
/// send (a renewal still unanswered then counts as failed). A renewal that
/// fails on the way (a transport error: an endpoint down or paused) is no
/// expiry: it is tried again at once, through the next endpoint.
pub(super) async fn keep_alive<E: Election>(
    election: &E,
    lease: Option<i64>,
    ttl: Duration,
    renewed: &Cell<Instant>,
) -> ApiError {
    let Some(lease) = lease else {
        return std::future::pending().await;
    };
    let lost = |e: &dyn std::fmt::Display, kind| {
        ApiError::new(kind, format!("autopilot's election lease was lost: {e}"))
    };
    let mut next = renewed.get() + ttl / 3;
    loop {
        tokio::time::sleep_until(next).await;
        let sent = Instant::now();
        let expires = renewed.get() + ttl;
        match tokio::time::timeout_at(expires, election.lease_keep_alive(lease)).await {
            Ok(Ok(())) => {
                renewed.set(sent);
                next = sent + ttl / 3;
            }
            Ok(Err(e)) if e.kind == ApiErrorKind::NotFound || Instant::now() >= expires => {
                return lost(&e, e.kind)
            }
            Ok(Err(_)) => next = Instant::now() + (ttl / 20).max(Duration::from_millis(50)),
            Err(_) => {
                let why = format!(
                    "not renewed within its time to live ({})",
                    humantime::format_duration(ttl)
                );
                return lost(&why, ApiErrorKind::DeadlineExceeded);
            }
        }
    }
}

/// A warning when `--lease-ttl` is too short for the looks: a renewal may
/// wait a whole `--command-timeout` on an endpoint that does not answer,
/// and the lease must outlast a few of those; another autopilot must not
/// take over while this one is inside one look.
pub fn lease_ttl_warning(
    lease_ttl: Duration,
    interval: Duration,
    command_timeout: Duration,
) -> Option<String> {
    let floor = (interval * 2).max(command_timeout * 2);
    (lease_ttl < floor).then(|| {
        format!(
            "--lease-ttl {} is short: below twice --interval ({}) or twice --command-timeout ({}), \
             a renewal that waits on an endpoint that does not answer can let the lease expire \
             and leadership move between autopilots during a look; give it at least {}",
            humantime::format_duration(lease_ttl),
            humantime::format_duration(interval),
            humantime::format_duration(command_timeout),
            humantime::format_duration(floor)
        )
    })
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use super::*;
    use crate::workflow::autopilot::{ElectionLeader, Leadership};

    /// An election whose renewals answer from a script (then NotFound, or
    /// never when `hang`), counting them.
    struct Renewals {
        script: RefCell<VecDeque<Result<(), ApiErrorKind>>>,
        calls: RefCell<usize>,
        hang: bool,
    }

    impl Renewals {
        fn new(script: &[Result<(), ApiErrorKind>]) -> Self {
            Renewals {
                script: RefCell::new(script.iter().cloned().collect()),
                calls: RefCell::new(0),
                hang: false,
            }
        }
    }

    impl Election for Renewals {
        async fn lease_grant(&self, _: Duration) -> Result<i64, ApiError> {
            Ok(7)
        }
        async fn lease_keep_alive(&self, _: i64) -> Result<(), ApiError> {
            *self.calls.borrow_mut() += 1;
            let next = self.script.borrow_mut().pop_front();
            if next.is_none() && self.hang {
                return std::future::pending().await;
            }
            let next = next.unwrap_or(Err(ApiErrorKind::NotFound));
            next.map_err(|kind| ApiError::new(kind, "scripted"))
        }
        async fn lease_revoke(&self, _: i64) -> Result<(), ApiError> {
            Ok(())
        }
        async fn campaign(&self, _: &str, _: i64, _: &str) -> Result<Leadership, ApiError> {
            unreachable!("keep_alive campaigns in no election")
        }
        async fn election_leader(&self, _: &str) -> Result<Option<ElectionLeader>, ApiError> {
            Ok(None)
        }
        async fn resign(&self, _: &Leadership) -> Result<(), ApiError> {
            Ok(())
        }
        async fn kv_get(&self, _: &str) -> Result<Option<String>, ApiError> {
            Ok(None)
        }
        async fn kv_put(&self, _: &str, _: Option<&str>) -> Result<(), ApiError> {
            Ok(())
        }
    }

    const TTL: Duration = Duration::from_millis(1500);

    #[tokio::test]
    async fn a_renewal_that_fails_on_the_way_is_no_expiry() {
        // Renewed, three transport errors (tried again at once, well within
        // the TTL), renewed again, then the lease is gone.
        let e = Renewals::new(&[
            Ok(()),
            Err(ApiErrorKind::Unavailable),
            Err(ApiErrorKind::Unavailable),
            Err(ApiErrorKind::DeadlineExceeded),
            Ok(()),
        ]);
        let lost = keep_alive(&e, Some(7), TTL, &Cell::new(Instant::now())).await;
        assert_eq!(lost.kind, ApiErrorKind::NotFound, "{lost}");
        assert_eq!(*e.calls.borrow(), 6, "every scripted renewal was made");
        assert!(lost.message.contains("lease was lost"), "{lost}");
    }

    #[tokio::test]
    async fn renewals_failing_for_a_whole_ttl_lose_the_lease() {
        let mut script = vec![Ok(())];
        script.extend(std::iter::repeat_n(Err(ApiErrorKind::Unavailable), 1000));
        let e = Renewals::new(&script);
        let began = Instant::now();
        let lost = keep_alive(&e, Some(7), TTL, &Cell::new(Instant::now())).await;
        // Not NotFound: the renewals kept failing on the way for a TTL
        // since the last one answered (sent a third of the TTL in).
        assert_eq!(lost.kind, ApiErrorKind::Unavailable, "{lost}");
        assert!(began.elapsed() >= TTL + TTL / 3, "{:?}", began.elapsed());
        let calls = *e.calls.borrow();
        assert!(
            calls > 3,
            "failed renewals were tried again at once: {calls}"
        );
    }

    #[tokio::test]
    async fn a_renewal_left_unanswered_loses_the_lease_a_ttl_after_the_last_answered_one() {
        // Renewed once, then a renewal that an endpoint takes and never
        // answers: the lease counts as lost once a TTL has passed since the
        // answered one was sent, not after the unanswered call gives up.
        let e = Renewals {
            hang: true,
            ..Renewals::new(&[Ok(())])
        };
        let began = Instant::now();
        let renewed = Cell::new(began);
        let lost = tokio::time::timeout(
            Duration::from_secs(30),
            keep_alive(&e, Some(7), TTL, &renewed),
        )
        .await
        .expect("the lease was given up while the renewal hung");
        assert_eq!(lost.kind, ApiErrorKind::DeadlineExceeded, "{lost}");
        assert!(lost.message.contains("not renewed within"), "{lost}");
        assert_eq!(*e.calls.borrow(), 2);
        let answered = renewed.get();
        assert!(
            answered >= began + TTL / 3,
            "the first renewal was answered"
        );
        assert!(Instant::now() >= answered + TTL);
    }
}
