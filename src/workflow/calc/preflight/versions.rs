//! The checks on the members' server versions: `versions` (one minor version, or an upgrade by replacement within its rules; a learner promoted only by them) and `upgrade` (`member check --for upgrade`). Pure: the rules are `upgrade.rs`'s.

use super::checks::{key, new_check, read, unread};
use super::upgrade::{self, Blocked, Release};
use super::{Change, Check, CheckName, Facts, Figures, Verdict};

/// The major and minor version of a version string ("3.5.17" → (3, 5)).
fn minor(version: &str) -> Option<(u64, u64)> {
    Release::parse(version).map(Release::minor_version)
}

/// The members whose version was read, as (label, release).
fn releases(facts: &Facts, learners: bool) -> Vec<(String, Release)> {
    let mut all: Vec<(String, Release)> = read(&facts.health)
        .filter(|(m, _)| learners || !m.is_learner)
        .filter_map(|(m, s)| Some((m.label(), Release::parse(&s.version)?)))
        .collect();
    all.sort();
    all
}

/// The cluster version as (major, minor), or why it is not known.
fn cluster_version(facts: &Facts) -> Result<(u64, u64), String> {
    match &facts.version {
        Some(Ok(v)) => minor(&v.cluster).ok_or_else(|| format!("cluster version {}", v.cluster)),
        Some(Err(e)) => Err(format!("cluster version not read: {e}")),
        None => Err("cluster version not read: no leader to ask".into()),
    }
}

/// A check refused by an upgrade rule.
fn blocked(name: CheckName, b: Blocked) -> Check {
    new_check(name, Verdict::Fail, b.detail)
        .members(b.members)
        .remedy(b.remedy)
}

/// One minor version among the members (Status), and the cluster version
/// (the leader's `/version`) at that minor version; or an upgrade by
/// replacement under way within its rules (a warning). A learner the change
/// promotes must run a version the upgrade rules allow.
pub(super) fn versions(facts: &Facts, steps: &[Change]) -> Check {
    let h = &facts.health;
    let each: Vec<String> = read(h)
        .map(|(m, s)| format!("{} {}", m.label(), s.version))
        .collect();
    let mut minors: Vec<(u64, u64)> = read(h).filter_map(|(_, s)| minor(&s.version)).collect();
    minors.sort_unstable();
    minors.dedup();
    let cluster: Result<&str, String> = match &facts.version {
        Some(Ok(v)) => Ok(&v.cluster),
        Some(Err(e)) => Err(format!("cluster version not read: {e}")),
        None => Err("cluster version not read: no leader to ask".into()),
    };
    let cluster_text = match &cluster {
        Ok(v) => format!("cluster version {v}"),
        Err(e) => e.clone(),
    };
    let at = cluster_version(facts).ok();
    if let Some(at) = at {
        for step in steps {
            let Change::Promote(id) = step else { continue };
            let learner = read(h).find(|(m, _)| m.id == *id);
            let Some((m, release)) =
                learner.and_then(|(m, s)| Some((m, Release::parse(&s.version)?)))
            else {
                continue;
            };
            if let Err(b) = upgrade::promotable(&m.label(), release, at, &releases(facts, false)) {
                return blocked(CheckName::Versions, b);
            }
        }
    }
    let mut under_way = None;
    if minors.len() > 1 {
        match at.and_then(|at| upgrade::under_way(at, &releases(facts, true)).map(|r| (at, r))) {
            Some((_, Err(b))) => return blocked(CheckName::Versions, b),
            Some((at, Ok(to))) => under_way = Some((at, to)),
            None => {
                let members: Vec<String> = read(h).map(|(m, _)| m.label()).collect();
                return new_check(
                    CheckName::Versions,
                    Verdict::Fail,
                    format!(
                        "{} minor versions among the members: {}; {cluster_text}",
                        minors.len(),
                        each.join(", ")
                    ),
                )
                .members(members)
                .remedy(
                    "an upgrade or downgrade is under way: finish it (every member on one minor \
                     version) before changing the membership",
                );
            }
        }
    }
    if let Some((at, to)) = under_way {
        return new_check(
            CheckName::Versions,
            Verdict::Warn,
            format!(
                "an upgrade from {} to {} is under way: {}; {cluster_text}",
                upgrade::minor_text(at),
                upgrade::minor_text(to),
                each.join(", ")
            ),
        )
        .remedy(format!(
            "a change that continues it (a {} member added, promoted, an old one removed) may go \
             ahead; finish it before anything else",
            upgrade::minor_text(to)
        ));
    }
    if let (Ok(v), [only]) = (&cluster, minors.as_slice()) {
        if let Some(c) = minor(v).filter(|c| c != only) {
            return new_check(
                CheckName::Versions,
                Verdict::Fail,
                format!(
                    "every member runs {}.{} ({}) but the cluster version is {v}",
                    only.0,
                    only.1,
                    each.join(", ")
                ),
            )
            .remedy(format!(
                "{}: wait until the cluster version is {}.{} (etcd raises it a few seconds \
                 after the last member runs the new version; `curl URL/version`), then change \
                 the membership",
                if c < *only {
                    "an upgrade is finishing"
                } else {
                    "a downgrade is under way"
                },
                only.0,
                only.1
            ));
        }
    }
    let missing = unread(h);
    if !missing.is_empty() || each.is_empty() || cluster.is_err() {
        let mut detail = if each.is_empty() {
            "no version read".to_string()
        } else {
            each.join(", ")
        };
        detail.push_str(&format!("; {cluster_text}"));
        if !missing.is_empty() {
            detail.push_str(&format!("; not read: {}", missing.join(", ")));
        }
        return new_check(CheckName::Versions, Verdict::Unknown, detail);
    }
    new_check(
        CheckName::Versions,
        Verdict::Ok,
        format!("{}; {cluster_text}", each.join(", ")),
    )
}

/// `member check --for upgrade VERSION`: each member's version, and whether
/// the cluster may move to `to` by the upgrade rules (which members must
/// first move to the minimum patch release, and the order to go in).
/// The upgrade check, when the change is a move to another minor version
/// (`member check --for upgrade`).
pub(super) fn upgrade(facts: &Facts, steps: &[Change]) -> Option<Check> {
    steps.iter().find_map(|s| match s {
        Change::Upgrade { to } => Some(upgrade_check(facts, *to)),
        _ => None,
    })
}

fn upgrade_check(facts: &Facts, to: (u64, u64)) -> Check {
    let h = &facts.health;
    let members = releases(facts, true);
    let mut f = Figures::default();
    for (m, s) in read(h) {
        f.member_text("version", key(m), s.version.clone());
    }
    f.text("target", upgrade::minor_text(to));
    let each: Vec<String> = members.iter().map(|(l, r)| format!("{l} {r}")).collect();
    let missing = unread(h);
    let cluster = match cluster_version(facts) {
        Ok(c) => c,
        Err(e) => {
            return new_check(
                CheckName::Upgrade,
                Verdict::Unknown,
                format!("{}; {e}", each.join(", ")),
            )
            .figures(f)
        }
    };
    f.text("cluster_version", upgrade::minor_text(cluster));
    let leader = h.leader().and_then(|id| h.list.get(id)).map(|m| m.label());
    match upgrade::upgrade_to(to, cluster, &members, leader.as_deref()) {
        Err(b) => blocked(CheckName::Upgrade, b).figures(f),
        Ok(_) if !missing.is_empty() => new_check(
            CheckName::Upgrade,
            Verdict::Unknown,
            format!("{}; not read: {}", each.join(", "), missing.join(", ")),
        )
        .figures(f),
        Ok(order) => new_check(
            CheckName::Upgrade,
            Verdict::Ok,
            format!(
                "{}; cluster version {}; to {}: {order}",
                each.join(", "),
                upgrade::minor_text(cluster),
                upgrade::minor_text(to)
            ),
        )
        .figures(f),
    }
}
