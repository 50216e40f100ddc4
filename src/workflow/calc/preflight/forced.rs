//! The `force-new-cluster` check: whether a member still runs with
//! `--force-new-cluster` after a recovery from a lost quorum. It never
//! refuses (adding the lost members back is the next step of the recovery,
//! taken while the survivor runs with the flag), but warns: started again
//! with the flag, the member makes itself the only member once more and
//! every member added since is removed for good.

use super::checks::{key, new_check};
use super::{Check, CheckName, Facts, Verdict};
use crate::model::{Member, StartFlags};
use crate::workflow::calc::recovery::{forced_fact, FORCED_REMEDY};

/// Judges how the members that answered were started.
pub(super) fn check(facts: &Facts) -> Check {
    let mut forced: Vec<(&Member, &StartFlags)> = Vec::new();
    let mut fine: Vec<(&Member, &StartFlags)> = Vec::new();
    let mut unread = Vec::new();
    let members = facts.health.list.members.iter().zip(&facts.health.statuses);
    for ((m, status), flags) in members.zip(&facts.start_flags) {
        match (status, flags) {
            (Err(_), _) => {}
            (Ok(_), Ok(f)) if f.force_new_cluster => forced.push((m, f)),
            (Ok(_), Ok(f)) => fine.push((m, f)),
            (Ok(_), Err(e)) => unread.push(format!("{} ({e})", m.label())),
        }
    }
    let mut c = if let Some(fact) = forced_fact(&forced) {
        let mut c = new_check(CheckName::ForceNewCluster, Verdict::Warn, fact);
        c.members = forced.iter().map(|(m, _)| m.label()).collect();
        c.remedy(FORCED_REMEDY)
    } else if !unread.is_empty() || fine.is_empty() {
        let why = if unread.is_empty() {
            "no member answered".to_string()
        } else {
            unread.join("; ")
        };
        new_check(
            CheckName::ForceNewCluster,
            Verdict::Unknown,
            format!("how the members were started could not be read: {why}"),
        )
    } else {
        let blind: Vec<String> = fine
            .iter()
            .filter(|(_, f)| !f.complete)
            .map(|(m, _)| m.label())
            .collect();
        let mut detail = format!(
            "no member runs with --force-new-cluster (read from {})",
            sources(&fine)
        );
        if !blind.is_empty() {
            detail.push_str(&format!(
                "; the environment of {} cannot be read from here (not on this machine, or \
                 another user's process): ETCD_FORCE_NEW_CLUSTER there would not be seen",
                blind.join(", ")
            ));
        }
        new_check(CheckName::ForceNewCluster, Verdict::Ok, detail)
    };
    for (m, f) in forced.iter().chain(&fine) {
        c.figures.member(
            "force_new_cluster",
            key(m),
            f64::from(u8::from(f.force_new_cluster)),
        );
    }
    c
}

/// Where the flags were read, each place once: "m1, m2: its command line (/debug/vars)".
fn sources(read: &[(&Member, &StartFlags)]) -> String {
    let mut places: Vec<(&str, Vec<String>)> = Vec::new();
    for (m, f) in read {
        match places.iter_mut().find(|(s, _)| *s == f.source) {
            Some((_, who)) => who.push(key(m)),
            None => places.push((&f.source, vec![key(m)])),
        }
    }
    places
        .iter()
        .map(|(s, who)| format!("{}: {s}", who.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}
