//! The rules of upgrading etcd by replacing members, as pure functions: the patch release every member must run before the cluster moves to the next minor version, one minor version at a time, and which learners may be promoted.
//!
//! etcd's upgrade documents attach conditions, learned from outages, to the
//! path Kubernetes installers take (add a member on the new version, promote
//! it, remove an old one): before 3.6 every 3.5 member runs 3.5.26 or later
//! (3.5.1–3.5.19 wrote learner promotions only to the v2 store, and a 3.6
//! member refuses such a cluster: etcd#19557; a learner added during the
//! replacement can receive the bad data in a snapshot: etcd#20793); before
//! 3.7 every 3.6 member runs 3.6.11 or later (3.7 drops the v2 store).

use std::fmt;

/// An etcd release: major, minor and patch version ("3.5.25"; a suffix such
/// as "-rc.1" is ignored, a missing patch reads as 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch release.
    pub patch: u64,
}

impl Release {
    /// Reads "3.5.25", "3.6" or "v3.6.0"; `None` for anything else.
    pub fn parse(text: &str) -> Option<Release> {
        let text = text.trim();
        let text = text.strip_prefix('v').unwrap_or(text);
        let text = text.split(['-', '+']).next()?;
        let mut parts = text.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some(p) => p.parse().ok()?,
            None => 0,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Release {
            major,
            minor,
            patch,
        })
    }

    /// The minor version, as (major, minor).
    pub fn minor_version(self) -> (u64, u64) {
        (self.major, self.minor)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// "3.5" for (3, 5).
pub fn minor_text((major, minor): (u64, u64)) -> String {
    format!("{major}.{minor}")
}

/// The patch release every member of minor version `from` must run before
/// the cluster moves to the next minor version, with why.
pub fn minimum_before_leaving(from: (u64, u64)) -> Option<(Release, &'static str)> {
    match from {
        (3, 5) => Some((
            Release {
                major: 3,
                minor: 5,
                patch: 26,
            },
            "3.5.1–3.5.19 wrote learner promotions only to the v2 store, and a 3.6 member \
             refuses such a cluster (\"too many learner member in cluster\", etcd#19557); a \
             learner added while members are replaced can receive the bad data in a snapshot \
             (etcd#20793)",
        )),
        (3, 6) => Some((
            Release {
                major: 3,
                minor: 6,
                patch: 11,
            },
            "3.7 drops the v2 store and the --experimental-* flags; 3.6.11 is the release etcd \
             requires before it",
        )),
        _ => None,
    }
}

/// Why a step of an upgrade cannot be taken now: what is wrong, the members
/// it names and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// What is wrong.
    pub detail: String,
    /// The members that must change first (labels).
    pub members: Vec<String>,
    /// What to do.
    pub remedy: String,
}

/// The members of a minor version that run a release older than the one
/// required before moving on from it.
struct BelowMinimum<'a> {
    /// The release required.
    minimum: Release,
    /// Why it is required.
    why: &'static str,
    /// The members (label, release) below it.
    old: Vec<&'a (String, Release)>,
}

/// The members of minor version `from` below the minimum before leaving it.
fn below_minimum(from: (u64, u64), members: &[(String, Release)]) -> Option<BelowMinimum<'_>> {
    let (minimum, why) = minimum_before_leaving(from)?;
    let old: Vec<&(String, Release)> = members
        .iter()
        .filter(|(_, r)| r.minor_version() == from && *r < minimum)
        .collect();
    (!old.is_empty()).then_some(BelowMinimum { minimum, why, old })
}

/// "m1 3.5.25, m2 3.5.25".
fn listed(members: &[&(String, Release)]) -> String {
    members
        .iter()
        .map(|(l, r)| format!("{l} {r}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the cluster at `cluster` (its cluster version) whose members run
/// `members` may move to minor version `target`: one minor version at a
/// time, every member first on the minimum patch release. `Ok` carries the
/// order to go in.
pub fn upgrade_to(
    target: (u64, u64),
    cluster: (u64, u64),
    members: &[(String, Release)],
    leader: Option<&str>,
) -> Result<String, Blocked> {
    let labels = |ms: &[&(String, Release)]| ms.iter().map(|(l, _)| l.clone()).collect();
    if target < cluster {
        return Err(Blocked {
            detail: format!(
                "{} is older than the cluster version {}: that is a downgrade",
                minor_text(target),
                minor_text(cluster)
            ),
            members: Vec::new(),
            remedy: "a downgrade is not done by replacing members: use `etcdctl downgrade` \
                     (etcd 3.6 and later), one minor version at a time"
                .into(),
        });
    }
    if target.0 != cluster.0 || target.1 > cluster.1 + 1 {
        return Err(Blocked {
            detail: format!(
                "{} is more than one minor version above the cluster version {}",
                minor_text(target),
                minor_text(cluster)
            ),
            members: Vec::new(),
            remedy: format!(
                "upgrade one minor version at a time: first to {}.{}, then check again",
                cluster.0,
                cluster.1 + 1
            ),
        });
    }
    let order = order(members, leader);
    if target == cluster {
        return Ok(format!(
            "a patch upgrade within {}: one member at a time, {order}",
            minor_text(cluster)
        ));
    }
    if let Some(BelowMinimum { minimum, why, old }) = below_minimum(cluster, members) {
        return Err(Blocked {
            detail: format!(
                "before {} every {} member must run {minimum} or later: {} {} older",
                minor_text(target),
                minor_text(cluster),
                listed(&old),
                if old.len() == 1 { "is" } else { "are" }
            ),
            members: labels(&old),
            remedy: format!(
                "first move {} to {minimum} or later (the latest {} patch release), one \
                 member at a time, {}; then check again and move to {} ({why})",
                if old.len() == 1 { "it" } else { "them" },
                minor_text(cluster),
                order_of(&old, leader),
                minor_text(target)
            ),
        });
    }
    Ok(match minimum_before_leaving(cluster) {
        Some((m, _)) => format!(
            "every {} member runs {m} or later; one member at a time to {}, {order}",
            minor_text(cluster),
            minor_text(target)
        ),
        None => format!(
            "no patch release of {} is required first; one member at a time to {}, {order}",
            minor_text(cluster),
            minor_text(target)
        ),
    })
}

/// "followers first (m2, m3), the leader (m1) last".
fn order(members: &[(String, Release)], leader: Option<&str>) -> String {
    let all: Vec<&(String, Release)> = members.iter().collect();
    order_of(&all, leader)
}

fn order_of(members: &[&(String, Release)], leader: Option<&str>) -> String {
    let followers: Vec<&str> = members
        .iter()
        .map(|(l, _)| l.as_str())
        .filter(|l| Some(*l) != leader)
        .collect();
    let has_leader = members.iter().any(|(l, _)| Some(l.as_str()) == leader);
    match (followers.is_empty(), has_leader, leader) {
        (false, true, Some(l)) => format!(
            "followers first ({}), the leader ({l}) last",
            followers.join(", ")
        ),
        (true, true, Some(l)) => format!("the leader ({l})"),
        _ => format!("in this order: {}", followers.join(", ")),
    }
}

/// Whether a learner running `learner` may become a voter of the cluster at
/// `cluster` whose voters run `voters`: not older than the cluster version,
/// at most one minor version newer, and when newer (an upgrade by
/// replacement) only once every voter of the cluster's minor version runs
/// the minimum patch release.
pub fn promotable(
    label: &str,
    learner: Release,
    cluster: (u64, u64),
    voters: &[(String, Release)],
) -> Result<(), Blocked> {
    let at = learner.minor_version();
    if at < cluster {
        return Err(Blocked {
            detail: format!(
                "learner {label} runs {learner}, older than the cluster version {}",
                minor_text(cluster)
            ),
            members: vec![label.to_string()],
            remedy: format!(
                "start {label} with etcd {} or later (a member older than the cluster version \
                 cannot join), then promote it",
                minor_text(cluster)
            ),
        });
    }
    if at.0 != cluster.0 || at.1 > cluster.1 + 1 {
        return Err(Blocked {
            detail: format!(
                "learner {label} runs {learner}, more than one minor version above the cluster \
                 version {}",
                minor_text(cluster)
            ),
            members: vec![label.to_string()],
            remedy: format!(
                "upgrade one minor version at a time: start {label} with etcd {}.{}",
                cluster.0,
                cluster.1 + 1
            ),
        });
    }
    if at == cluster {
        return Ok(());
    }
    match below_minimum(cluster, voters) {
        None => Ok(()),
        Some(BelowMinimum { minimum, why, old }) => Err(Blocked {
            detail: format!(
                "learner {label} runs {learner} (an upgrade to {}), but {} {} older than \
                 {minimum}",
                minor_text(at),
                listed(&old),
                if old.len() == 1 { "is" } else { "are" }
            ),
            members: old.iter().map(|(l, _)| l.clone()).collect(),
            remedy: format!(
                "move every {} member to {minimum} or later first ({why}); remove the learner \
                 or keep it as a learner until then",
                minor_text(cluster)
            ),
        }),
    }
}

/// An upgrade under way: the members run two adjacent minor versions, the
/// older one the cluster version. `Ok` when every member of the older one
/// runs the minimum patch release (a replacement may continue it), else why
/// not.
pub fn under_way(
    cluster: (u64, u64),
    members: &[(String, Release)],
) -> Option<Result<(u64, u64), Blocked>> {
    let newer = members
        .iter()
        .map(|(_, r)| r.minor_version())
        .find(|m| *m != cluster)?;
    let adjacent = newer.0 == cluster.0 && newer.1 == cluster.1 + 1;
    let only_two = members
        .iter()
        .all(|(_, r)| r.minor_version() == cluster || r.minor_version() == newer);
    if !adjacent || !only_two {
        return None;
    }
    Some(match below_minimum(cluster, members) {
        None => Ok(newer),
        Some(BelowMinimum { minimum, why, old }) => Err(Blocked {
            detail: format!(
                "an upgrade to {} is under way, but {} {} older than {minimum}",
                minor_text(newer),
                listed(&old),
                if old.len() == 1 { "is" } else { "are" }
            ),
            members: old.iter().map(|(l, _)| l.clone()).collect(),
            remedy: format!("move them to {minimum} or later before anything else ({why})"),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Release {
        Release::parse(s).unwrap()
    }

    fn members(list: &[(&str, &str)]) -> Vec<(String, Release)> {
        list.iter().map(|(l, v)| (l.to_string(), r(v))).collect()
    }

    #[test]
    fn releases_parse_and_order() {
        assert_eq!(
            r("3.5.25"),
            Release {
                major: 3,
                minor: 5,
                patch: 25
            }
        );
        assert_eq!(
            r("v3.6"),
            Release {
                major: 3,
                minor: 6,
                patch: 0
            }
        );
        assert_eq!(r("3.6.0-rc.1").patch, 0);
        assert!(Release::parse("3").is_none());
        assert!(Release::parse("3.x.1").is_none());
        assert!(Release::parse("3.5.1.2").is_none());
        assert!(r("3.5.9") < r("3.5.25"));
        assert_eq!(r("3.5.25").to_string(), "3.5.25");
    }

    #[test]
    fn to_the_next_minor_needs_the_minimum_patch() {
        let old = members(&[("m1", "3.5.25"), ("m2", "3.5.25"), ("m3", "3.5.34")]);
        let e = upgrade_to((3, 6), (3, 5), &old, Some("m1")).unwrap_err();
        assert!(e.detail.contains("3.5.26"), "{}", e.detail);
        assert!(e.detail.contains("m1 3.5.25, m2 3.5.25"), "{}", e.detail);
        assert_eq!(e.members, vec!["m1", "m2"]);
        assert!(
            e.remedy
                .contains("followers first (m2), the leader (m1) last"),
            "{}",
            e.remedy
        );
        let new = members(&[("m1", "3.5.34"), ("m2", "3.5.26"), ("m3", "3.5.34")]);
        let ok = upgrade_to((3, 6), (3, 5), &new, Some("m2")).unwrap();
        assert!(
            ok.contains("followers first (m1, m3), the leader (m2) last"),
            "{ok}"
        );
        let six = members(&[("a", "3.6.10"), ("b", "3.6.15")]);
        let e = upgrade_to((3, 7), (3, 6), &six, None).unwrap_err();
        assert!(
            e.detail.contains("3.6.11") && e.members == vec!["a"],
            "{e:?}"
        );
    }

    #[test]
    fn one_minor_at_a_time_and_no_downgrade() {
        let m = members(&[("m1", "3.4.23")]);
        let e = upgrade_to((3, 6), (3, 4), &m, None).unwrap_err();
        assert!(e.remedy.contains("first to 3.5"), "{}", e.remedy);
        assert!(upgrade_to((3, 5), (3, 4), &m, None).is_ok());
        assert!(upgrade_to((3, 3), (3, 4), &m, None)
            .unwrap_err()
            .detail
            .contains("downgrade"));
        assert!(upgrade_to((3, 4), (3, 4), &m, None)
            .unwrap()
            .contains("patch upgrade"));
    }

    #[test]
    fn learners_promoted_only_within_the_rules() {
        let old = members(&[("m1", "3.5.25"), ("m2", "3.5.25")]);
        let e = promotable("n4", r("3.6.15"), (3, 5), &old).unwrap_err();
        assert!(
            e.detail.contains("3.5.26") && e.members == vec!["m1", "m2"],
            "{e:?}"
        );
        assert!(promotable("n4", r("3.5.1"), (3, 5), &old).is_ok());
        let e = promotable("n4", r("3.4.23"), (3, 5), &old).unwrap_err();
        assert!(
            e.detail.contains("older than the cluster version 3.5"),
            "{}",
            e.detail
        );
        let e = promotable("n4", r("3.7.2"), (3, 5), &old).unwrap_err();
        assert!(e.detail.contains("more than one minor"), "{}", e.detail);
        let new = members(&[("m1", "3.5.34"), ("m2", "3.5.26")]);
        assert!(promotable("n4", r("3.6.15"), (3, 5), &new).is_ok());
    }

    #[test]
    fn an_upgrade_under_way_is_recognised() {
        let mid = members(&[("m1", "3.5.34"), ("n4", "3.6.15")]);
        assert_eq!(under_way((3, 5), &mid), Some(Ok((3, 6))));
        let bad = members(&[("m1", "3.5.25"), ("n4", "3.6.15")]);
        assert!(under_way((3, 5), &bad).unwrap().is_err());
        let far = members(&[("m1", "3.5.34"), ("n4", "3.7.2")]);
        assert_eq!(under_way((3, 5), &far), None);
        let same = members(&[("m1", "3.5.34")]);
        assert_eq!(under_way((3, 5), &same), None);
    }
}
