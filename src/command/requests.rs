//! Each workflow request built from its command-line arguments: what a flag
//! means for a change is decided here once, not inside the dispatch.

use crate::cli::{
    AddArgs, ApplyArgs, CatchUpArgs, CheckArgs, CheckFor, JointEnterArgs, MoveLeaderArgs,
    PeerTlsArgs, PromoteArgs, PruneArgs, RemoveArgs, ReplaceArgs, SkipCheckArgs, UpdateArgs,
};
use crate::client::peer_tls::PeerTlsFiles;
use crate::error::Error;
use crate::model::PeerUrls;
use crate::workflow::add::AddRequest;
use crate::workflow::apply::ApplyRequest;
use crate::workflow::joint::JointRequest;
use crate::workflow::leader::MoveRequest;
use crate::workflow::preflight::{
    Bandwidth, BandwidthSource, CatchUpInputs, CheckOptions, PeerTlsInputs, Planned, Preflight,
};
use crate::workflow::promote::PromoteRequest;
use crate::workflow::prune::PruneRequest;
use crate::workflow::remove::RemoveRequest;
use crate::workflow::replace::ReplaceRequest;
use crate::workflow::update::UpdateRequest;

impl From<&SkipCheckArgs> for Preflight {
    fn from(a: &SkipCheckArgs) -> Self {
        Preflight::Run(CheckOptions {
            skip: a.skip_check.clone(),
            ..CheckOptions::default()
        })
    }
}

impl From<&CatchUpArgs> for CatchUpInputs {
    fn from(a: &CatchUpArgs) -> Self {
        CatchUpInputs {
            bandwidth: a.link_bandwidth.map(|bits| Bandwidth {
                bytes_per_second: bits as f64 / 8.0,
                source: BandwidthSource::Given,
            }),
            snapshot_count: a.snapshot_count,
        }
    }
}

/// The checks of a change that adds a member or waits for one to catch up.
fn adding(skip: &SkipCheckArgs, catch_up: &CatchUpArgs) -> Preflight {
    Preflight::Run(CheckOptions {
        skip: skip.skip_check.clone(),
        catch_up: catch_up.into(),
        ..CheckOptions::default()
    })
}

/// What the peer-tls check is told about a new member with `peer_urls`:
/// its `--peer-cert`/`--peer-key`/`--peer-trusted-ca`, read here once (a
/// file that cannot be read is a usage error naming its flag).
pub(super) fn peer_tls(a: &PeerTlsArgs, peer_urls: &PeerUrls) -> Result<PeerTlsInputs, Error> {
    let new_member = match (&a.peer_cert, &a.peer_key) {
        (Some(cert), Some(key)) => Some(Box::new(
            PeerTlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                trusted_ca: a.peer_trusted_ca.clone(),
            }
            .load()?,
        )),
        (None, None) => None,
        _ => return Err(Error::usage("--peer-cert and --peer-key go together")),
    };
    Ok(PeerTlsInputs {
        peer_urls: peer_urls.clone(),
        new_member,
    })
}

/// The checks of a change that adds the member `peer_urls` name.
fn adding_member(
    skip: &SkipCheckArgs,
    catch_up: &CatchUpArgs,
    tls: &PeerTlsArgs,
    peer_urls: &PeerUrls,
) -> Result<Preflight, Error> {
    Ok(Preflight::Run(CheckOptions {
        skip: skip.skip_check.clone(),
        catch_up: catch_up.into(),
        peer_tls: peer_tls(tls, peer_urls)?,
    }))
}

impl TryFrom<&AddArgs> for AddRequest {
    type Error = Error;

    /// Reads the peer TLS files, when given.
    fn try_from(a: &AddArgs) -> Result<Self, Error> {
        let peer_urls = a.peer_urls.urls();
        Ok(AddRequest {
            name: a.name.clone(),
            preflight: adding_member(&a.checks, &a.catch_up, &a.peer_tls, &peer_urls)?,
            peer_urls,
            learner: a.learner,
            dry_run: a.dry_run,
            window: None,
        })
    }
}

impl From<&PromoteArgs> for PromoteRequest {
    fn from(a: &PromoteArgs) -> Self {
        PromoteRequest {
            target: a.target.member.clone(),
            wait: !a.no_wait,
            timeout: a.wait.timeout,
            poll_interval: a.wait.poll_interval,
            stable_for: a.stable_for,
            preflight: adding(&a.checks, &a.catch_up),
        }
    }
}

impl From<&RemoveArgs> for RemoveRequest {
    fn from(a: &RemoveArgs) -> Self {
        RemoveRequest {
            target: a.target.member.clone(),
            dry_run: a.dry_run,
            force: a.force,
            timeout: a.wait.timeout,
            preflight: (&a.checks).into(),
        }
    }
}

impl From<&PruneArgs> for PruneRequest {
    fn from(a: &PruneArgs) -> Self {
        PruneRequest {
            stalled_for: a.stalled_for,
            poll_interval: a.poll_interval,
            dead_voters: a.dead_voters,
            min_voters: a.min_voters,
            dry_run: a.dry_run,
            timeout: a.wait.timeout,
            preflight: (&a.checks).into(),
        }
    }
}

impl From<&MoveLeaderArgs> for MoveRequest {
    fn from(a: &MoveLeaderArgs) -> Self {
        MoveRequest {
            target: a.target.clone(),
            timeout: a.wait.timeout,
        }
    }
}

impl From<&UpdateArgs> for UpdateRequest {
    fn from(a: &UpdateArgs) -> Self {
        UpdateRequest {
            target: a.target.member.clone(),
            peer_urls: a.peer_urls.urls(),
            preflight: (&a.checks).into(),
        }
    }
}

impl TryFrom<&ReplaceArgs> for ReplaceRequest {
    type Error = Error;

    /// Reads the peer TLS files, when given.
    fn try_from(a: &ReplaceArgs) -> Result<Self, Error> {
        let peer_urls = a.peer_urls.urls();
        Ok(ReplaceRequest {
            old: a.old.clone(),
            name: a.name.clone(),
            preflight: adding_member(&a.checks, &a.catch_up, &a.peer_tls, &peer_urls)?,
            peer_urls,
            dry_run: a.dry_run,
            timeout: a.wait.timeout,
            poll_interval: a.wait.poll_interval,
            only_dead: false,
        })
    }
}

impl TryFrom<&ApplyArgs> for ApplyRequest {
    type Error = Error;

    /// Reads the target from `--target-file` or the `--target` items.
    fn try_from(a: &ApplyArgs) -> Result<Self, Error> {
        let target = match &a.target_file {
            Some(path) => super::target::from_file(path)?,
            None => super::target::from_args(&a.target)?,
        };
        Ok(ApplyRequest {
            target,
            dry_run: a.dry_run,
            force: a.force,
            timeout: a.wait.timeout,
            poll_interval: a.wait.poll_interval,
            preflight: adding(&a.checks, &a.catch_up),
        })
    }
}

impl From<&JointEnterArgs> for JointRequest {
    fn from(a: &JointEnterArgs) -> Self {
        JointRequest {
            add_learners: a.add_learner.clone(),
            promote: a.promote.clone(),
            demote: a.demote.clone(),
            remove: a.remove.clone(),
            dry_run: a.dry_run,
            force: a.force,
            wait: !a.no_wait,
            timeout: a.wait.timeout,
            poll_interval: a.wait.poll_interval,
            preflight: adding(&a.checks, &a.catch_up),
        }
    }
}

impl TryFrom<&CheckArgs> for Planned {
    type Error = Error;

    /// `--for CHANGE [MEMBER]`; the changes to a member need the member.
    fn try_from(c: &CheckArgs) -> Result<Self, Error> {
        Ok(match (c.change, c.member.clone()) {
            (None, _) => Planned::Inspect,
            (Some(CheckFor::Add), _) => Planned::Add { learner: true },
            (Some(CheckFor::AddVoter), _) => Planned::Add { learner: false },
            (Some(CheckFor::Promote), Some(m)) => Planned::Promote(m),
            (Some(CheckFor::Remove), Some(m)) => Planned::Remove(m),
            (Some(CheckFor::Update), Some(m)) => Planned::Update(m),
            (Some(CheckFor::Replace), Some(m)) => Planned::Replace(m),
            (Some(CheckFor::Upgrade), Some(v)) => Planned::Upgrade(v),
            (Some(CheckFor::Upgrade), None) => {
                return Err(Error::usage(
                    "--for upgrade needs the version to move to: \
                     `memberctl member check --for upgrade 3.6`",
                ))
            }
            (Some(_), None) => {
                return Err(Error::usage(
                    "--for promote, remove, update and replace need the member: \
                     `memberctl member check --for remove NAME`",
                ))
            }
        })
    }
}
