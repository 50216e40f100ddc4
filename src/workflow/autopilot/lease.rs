//! The election lease of autopilot: kept alive through every wait and action (a renewal that fails on the way is no expiry), and the warning for a `--lease-ttl` too short for the looks.

use std::time::Duration;

use tokio::time::Instant;

use super::Election;
use crate::workflow::{ApiError, ApiErrorKind};

/// Renews `lease` every third of `ttl`; returns once it has expired
/// (`NotFound`) or could not be renewed for a whole `ttl` since the last
/// renewal that was sent and answered (the server counts its time to live
/// from when it got that one, not before it was sent). A renewal that fails
/// on the way (a transport error: an endpoint down or paused) is no
/// expiry: it is tried again at once, through the next endpoint.
pub(super) async fn keep_alive<E: Election>(
    election: &E,
    lease: Option<i64>,
    ttl: Duration,
) -> ApiError {
    let Some(lease) = lease else {
        return std::future::pending().await;
    };
    let mut renewed = Instant::now();
    let mut wait = ttl / 3;
    loop {
        tokio::time::sleep(wait).await;
        let sent = Instant::now();
        match election.lease_keep_alive(lease).await {
            Ok(()) => {
                renewed = sent;
                wait = ttl / 3;
            }
            Err(e) if e.kind == ApiErrorKind::NotFound || renewed.elapsed() >= ttl => {
                return ApiError::new(e.kind, format!("autopilot's election lease was lost: {e}"))
            }
            Err(_) => wait = (ttl / 20).max(Duration::from_millis(50)),
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

    /// An election whose renewals answer from a script (then NotFound), counting them.
    struct Renewals {
        script: RefCell<VecDeque<Result<(), ApiErrorKind>>>,
        calls: RefCell<usize>,
    }

    impl Renewals {
        fn new(script: &[Result<(), ApiErrorKind>]) -> Self {
            Renewals {
                script: RefCell::new(script.iter().cloned().collect()),
                calls: RefCell::new(0),
            }
        }
    }

    impl Election for Renewals {
        async fn lease_grant(&self, _: Duration) -> Result<i64, ApiError> {
            Ok(7)
        }
        async fn lease_keep_alive(&self, _: i64) -> Result<(), ApiError> {
            *self.calls.borrow_mut() += 1;
            let next = self
                .script
                .borrow_mut()
                .pop_front()
                .unwrap_or(Err(ApiErrorKind::NotFound));
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
        let lost = keep_alive(&e, Some(7), TTL).await;
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
        let lost = keep_alive(&e, Some(7), TTL).await;
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
}
