//! Retries etcd's "unhealthy cluster" refusal (its strict reconfiguration check) with backoff.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::{ApiError, ApiErrorKind, Observer};

/// The first pause between attempts; it doubles up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(200);
/// The longest pause between attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// Runs `call` until it succeeds, fails with anything but "unhealthy cluster",
/// or `deadline` passes (`bound` names the flag that set it: `--timeout`,
/// `--command-timeout`). etcd answers "unhealthy cluster" for about 5 s after
/// a member connects; the operator is told once on stderr.
pub async fn retry_unhealthy<T, F, Fut>(
    observer: &dyn Observer,
    what: &str,
    (deadline, bound): (Instant, &str),
    mut call: F,
) -> Result<T, ApiError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let mut backoff = FIRST_BACKOFF;
    let mut told = false;
    loop {
        match call().await {
            Err(e) if e.kind == ApiErrorKind::Unhealthy => {
                let now = Instant::now();
                if now + backoff > deadline {
                    return Err(ApiError::new(
                        ApiErrorKind::Unhealthy,
                        format!(
                            "{} (still refused when {bound} ran out; etcd refuses membership \
                             changes until every member has been connected for 5 s: check that \
                             all members are up, or raise {bound})",
                            e.message
                        ),
                    ));
                }
                if !told {
                    observer.notice(&format!(
                        "{what}: the server answered {:?}; etcd refuses membership changes for \
                         about 5 s after a member connects, retrying until {bound}",
                        e.message
                    ));
                    told = true;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            other => return other,
        }
    }
}

/// Sends one membership change. When every voter answered our status check,
/// "unhealthy cluster" is etcd's window after a member connects and is
/// retried until `deadline` (set by the flag `bound` names); when some voter
/// is down, retrying cannot help, so the refusal is explained at once, naming
/// the members that are down.
pub async fn send_change<T, F, Fut>(
    observer: &dyn Observer,
    what: &str,
    unreachable_voters: &[String],
    deadline: (Instant, &str),
    call: F,
) -> Result<T, crate::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    if unreachable_voters.is_empty() {
        return retry_unhealthy(observer, what, deadline, call)
            .await
            .map_err(Into::into);
    }
    let mut call = call;
    match call().await {
        Err(e) if e.kind == ApiErrorKind::Unhealthy => Err(crate::Error::refused(format!(
            "{what} refused by the server ({}): voter {} is unreachable, and etcd accepts this \
             change only while the leader is connected to its voters; start the member again, \
             or remove it first (`memberctl member replace DEAD --name NEW --peer-urls URL` \
             removes a dead voter, then adds, starts and promotes the new member)",
            e.message,
            unreachable_voters.join(", ")
        ))),
        other => other.map_err(Into::into),
    }
}
