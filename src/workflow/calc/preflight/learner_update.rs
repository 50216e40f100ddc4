//! A learner's peer-URL update on the etcd releases that forget it is a
//! learner (part of the `learners` check), judged before the update is sent.
//! Pure.
//!
//! Measured (one voter, an unstarted learner, `member update` of the learner,
//! then `member list`): etcd 3.4.23–3.4.43, 3.5.29–3.5.30 and 3.6.10–3.6.11
//! list the learner as a voter afterwards (etcd#21694) while raft keeps it a
//! learner: it can no longer be promoted, and a second learner add is
//! refused as `unhealthy cluster` (the phantom voter counts as down);
//! 3.5.31–3.5.34, 3.6.12–3.6.15 and 3.7.0–3.7.2 keep the flag, as does the
//! memberctl engine.

use super::checks::{new_check, read};
use super::upgrade::Release;
use super::{Change, Check, CheckName, Facts, Figures, Verdict};
use crate::model::Member;

/// The first release of each minor version that keeps a learner's flag on
/// update; `None` for a minor version where every release forgets it.
fn fixed_in(minor: (u64, u64)) -> Option<Release> {
    let patch = |minor, patch| {
        Some(Release {
            major: 3,
            minor,
            patch,
        })
    };
    match minor {
        (3, m) if m <= 4 => None,
        (3, 5) => patch(5, 31),
        (3, 6) => patch(6, 12),
        _ => patch(minor.1, 0),
    }
}

/// Whether etcd `release` lists a learner as a voter after its peer URLs are
/// updated (etcd#21694).
fn forgets_learner(release: Release) -> bool {
    match fixed_in(release.minor_version()) {
        None => true,
        Some(fixed) => release < fixed,
    }
}

/// The refusal of a learner's update among `steps` when a member that
/// answered runs a release that forgets the learner flag; `None` when no
/// step updates a learner, on the engine, or when every member read keeps it
/// (an unread member's release is not judged: `member update` checks the
/// flag afterwards).
pub(super) fn refused(facts: &Facts, steps: &[Change]) -> Option<Check> {
    let h = &facts.health;
    let learner: &Member = steps.iter().find_map(|s| match s {
        Change::Update(id) => h.list.get(*id).filter(|m| m.is_learner),
        _ => None,
    })?;
    if facts.progress.is_some() {
        return None;
    }
    let affected: Vec<(String, Release)> = read(h)
        .filter_map(|(m, s)| Some((m.label(), Release::parse(&s.version)?)))
        .filter(|(_, r)| forgets_learner(*r))
        .collect();
    let (_, release) = affected.first()?;
    let mut f = Figures::default();
    f.text("release", release.to_string());
    let on: Vec<String> = affected.iter().map(|(m, r)| format!("{m} ({r})")).collect();
    let fix = match fixed_in(release.minor_version()) {
        Some(fixed) => format!("etcd {fixed} or later"),
        None => "etcd 3.5.31, 3.6.12 or later (every 3.4 release has it)".into(),
    };
    let detail = format!(
        "{} is a learner, and etcd {release} on {} forgets that a learner is a learner when \
         its peer URLs are updated (etcd#21694): member list would show it as a voter while \
         raft keeps it a learner, so it could never be promoted and the next learner add \
         would be refused",
        learner.label(),
        on.join(", ")
    );
    Some(
        new_check(CheckName::Learners, Verdict::Fail, detail)
            .members(vec![learner.label()])
            .figures(f)
            .remedy(format!(
                "remove the learner and add it again with the new peer URLs (`memberctl member \
                 remove {id}`, then `memberctl member add NAME --learner --peer-urls URL`: it \
                 catches up again from the leader), or upgrade the members to {fix} first",
                id = learner.id
            )),
    )
}

#[cfg(test)]
mod tests {
    use super::{forgets_learner, Release};

    fn r(text: &str) -> Release {
        Release::parse(text).unwrap()
    }

    #[test]
    fn the_releases_as_measured() {
        for v in [
            "3.4.23", "3.4.43", "3.5.0", "3.5.29", "3.5.30", "3.6.0", "3.6.11",
        ] {
            assert!(forgets_learner(r(v)), "{v}");
        }
        for v in [
            "3.5.31", "3.5.34", "3.6.12", "3.6.15", "3.7.0", "3.7.2", "3.8.0",
        ] {
            assert!(!forgets_learner(r(v)), "{v}");
        }
    }
}
