//! The pre-flight checks on the membership and the members' raft state
//! (quorum, alarms, learners, apply lag), and the helpers the checks of the
//! servers' figures (`server`) share with them. Pure:
//! each reads the gathered facts and judges them for the planned change
//! (thresholds in the parent).

use super::{
    Change, Check, CheckName, Facts, Figures, Verdict, APPLY_FAIL, APPLY_WARN, LEARNER_LIMIT,
};
use crate::model::{AlarmKind, Member, MemberId, MemberStatus};
use crate::workflow::calc::health::Health;
use crate::workflow::calc::quorum::{self as rules, has_quorum};

pub(super) fn new_check(name: CheckName, verdict: Verdict, detail: impl Into<String>) -> Check {
    Check {
        name,
        verdict,
        members: Vec::new(),
        detail: detail.into(),
        remedy: String::new(),
        figures: Figures::default(),
        skipped: false,
    }
}

impl Check {
    pub(super) fn members(mut self, members: Vec<String>) -> Self {
        self.members = members;
        self
    }

    pub(super) fn remedy(mut self, remedy: impl Into<String>) -> Self {
        self.remedy = remedy.into();
        self
    }

    pub(super) fn figures(mut self, figures: Figures) -> Self {
        self.figures = figures;
        self
    }
}

/// The label of the member with `id`, or its ID.
pub(super) fn label(health: &Health, id: MemberId) -> String {
    health
        .list
        .get(id)
        .map_or_else(|| id.to_string(), |m| m.label())
}

/// A member as the figures name it: its name, or its hex ID before it has one.
pub(super) fn key(m: &Member) -> String {
    if m.name.is_empty() {
        m.id.to_string()
    } else {
        m.name.clone()
    }
}

/// The members whose status could not be read, as "label (reason)".
pub(super) fn unread(health: &Health) -> Vec<String> {
    health
        .list
        .members
        .iter()
        .zip(&health.statuses)
        .filter_map(|(m, s)| s.as_ref().err().map(|e| format!("{} ({e})", m.label())))
        .collect()
}

/// The statuses that were read, with their members.
pub(super) fn read(health: &Health) -> impl Iterator<Item = (&Member, &MemberStatus)> {
    health
        .list
        .members
        .iter()
        .zip(&health.statuses)
        .filter_map(|(m, s)| s.as_ref().ok().map(|s| (m, s)))
}

pub(super) fn quorum(facts: &Facts, steps: &[Change]) -> Check {
    let mut c = quorum_now(facts);
    // With a voter down the server refuses an add, a learner's too: say so
    // before it is sent.
    if c.verdict == Verdict::Ok {
        if let Some(refused) = super::strict::add_refused(facts, steps) {
            return refused;
        }
    }
    // A removal has its own quorum rule (rule 4), which `--force` passes.
    if Change::only_removals(steps) && c.verdict == Verdict::Fail {
        c.verdict = Verdict::Warn;
        c.remedy = format!("{} (a removal is judged by rule 4)", c.remedy);
    }
    c
}

/// Whether a quorum of voters answers and a leader is reachable.
fn quorum_now(facts: &Facts) -> Check {
    let h = &facts.health;
    let voters = h.list.voters().count();
    let up = h.reachable();
    let answering = h.list.voters().filter(|m| up.contains(&m.id)).count();
    let detail = format!(
        "{answering} of {voters} voters answer; a quorum is {}",
        rules::quorum(voters)
    );
    let mut f = Figures::default();
    f.number("voters", voters as f64);
    f.number("answering_voters", answering as f64);
    f.number("quorum", rules::quorum(voters) as f64);
    f.maybe("raft_term", h.leader_status().map(|s| s.raft_term as f64));
    let c = |v, d: String| new_check(CheckName::Quorum, v, d).figures(f.clone());
    if !has_quorum(voters, answering) {
        let down: Vec<String> = h.unreachable_voters().iter().map(|m| m.label()).collect();
        return c(Verdict::Fail, detail)
            .members(down)
            .remedy("bring the unreachable voters back first; a change needs a quorum to commit");
    }
    match h.leader_status() {
        Some(s) => c(
            Verdict::Ok,
            format!(
                "{detail}; leader {} (term {})",
                label(h, s.member_id),
                s.raft_term
            ),
        ),
        None => c(Verdict::Fail, format!("{detail}; no reachable leader"))
            .remedy("wait for a leader to be elected (`memberctl member status`)"),
    }
}

pub(super) fn alarms(facts: &Facts, steps: &[Change]) -> Check {
    let h = &facts.health;
    let list = match &facts.alarms {
        Ok(list) => list,
        Err(e) => {
            return new_check(
                CheckName::Alarms,
                Verdict::Unknown,
                format!("cannot list alarms: {e}"),
            )
        }
    };
    let mut f = Figures::default();
    f.number("alarms", list.len() as f64);
    if list.is_empty() {
        return new_check(CheckName::Alarms, Verdict::Ok, "no alarm raised").figures(f);
    }
    let members: Vec<String> = list.iter().map(|a| label(h, a.member_id)).collect();
    let raised: Vec<String> = list
        .iter()
        .map(|a| format!("{} on {}", a.kind, label(h, a.member_id)))
        .collect();
    let mut verdict = Verdict::Warn;
    let mut remedies = Vec::new();
    if list.iter().any(|a| a.kind == AlarmKind::NoSpace) {
        if Change::grows(steps) {
            verdict = Verdict::Fail;
        }
        let revision = read(h).map(|(_, s)| s.revision).max().unwrap_or(0);
        let urls: Vec<String> = h
            .list
            .members
            .iter()
            .filter_map(|m| m.client_urls.first().cloned())
            .collect();
        remedies.push(format!(
            "free space, then clear the alarm: `etcdctl compaction {revision}`, \
             `etcdctl defrag --endpoints={}`, `etcdctl alarm disarm` (or raise \
             --quota-backend-bytes); a new member would receive a database at its quota",
            urls.join(",")
        ));
    }
    let corrupt: Vec<MemberId> = list
        .iter()
        .filter(|a| a.kind == AlarmKind::Corrupt)
        .map(|a| a.member_id)
        .collect();
    if !corrupt.is_empty() {
        let removed = |id: &MemberId| steps.contains(&Change::Remove(*id));
        // A member added while the corrupt member leads copies its data.
        let leader = h.leader().filter(|id| corrupt.contains(id));
        let feeds_new = leader.is_some() && Change::grows(steps);
        if !corrupt.iter().all(removed) || feeds_new {
            verdict = Verdict::Fail;
        }
        let names: Vec<String> = corrupt.iter().map(|&id| label(h, id)).collect();
        remedies.push(format!(
            "{} holds data that differs from the others': remove it (`memberctl member remove \
             {}`) and add a fresh member, then `etcdctl alarm disarm`",
            names.join(", "),
            corrupt[0]
        ));
        if let Some(id) = leader {
            remedies.push(format!(
                "{} leads: move leadership to another voter first (`memberctl member \
                 move-leader`), or a new member would receive its data",
                label(h, id)
            ));
        }
    }
    if list.iter().any(|a| matches!(a.kind, AlarmKind::Other(_))) {
        verdict = Verdict::Fail;
        remedies.push("an alarm this memberctl does not know: see `etcdctl alarm list`".into());
    }
    new_check(
        CheckName::Alarms,
        verdict,
        format!("raised: {}", raised.join(", ")),
    )
    .figures(f)
    .members(members)
    .remedy(remedies.join("; "))
}

pub(super) fn learners(facts: &Facts, steps: &[Change]) -> Check {
    if let Some(refused) = super::learner_update::refused(facts, steps) {
        return refused;
    }
    let h = &facts.health;
    let learners: Vec<&Member> = h.list.members.iter().filter(|m| m.is_learner).collect();
    let mut f = Figures::default();
    f.number("learners", learners.len() as f64);
    for m in &learners {
        if let Some(Ok(s)) = h.status_of(m.id) {
            f.member("applied_index", key(m), s.raft_applied_index as f64);
        }
    }
    if learners.is_empty() {
        return new_check(CheckName::Learners, Verdict::Ok, "no learner").figures(f);
    }
    let leader_index = h.leader_status().map(|s| s.raft_index);
    let described: Vec<String> = learners
        .iter()
        .map(|m| {
            let state = if !m.started() {
                "not started".to_string()
            } else {
                match (h.status_of(m.id), leader_index) {
                    (Some(Ok(s)), Some(l)) => {
                        format!(
                            "started, applied {} of the leader's {l}",
                            s.raft_applied_index
                        )
                    }
                    (Some(Err(e)), _) => format!("started, not answering ({e})"),
                    _ => "started".to_string(),
                }
            };
            format!("{} ({state})", m.label())
        })
        .collect();
    let members: Vec<String> = learners.iter().map(|m| m.label()).collect();
    let detail = format!(
        "{} learner{}: {}",
        learners.len(),
        if learners.len() == 1 { "" } else { "s" },
        described.join(", ")
    );
    // The learners the change leaves as they are: it neither promotes nor
    // removes them. Its own it orders or paces itself (`apply` promotes them
    // before it adds; on the engine it learns the server's limit).
    let kept: Vec<&Member> = learners
        .iter()
        .copied()
        .filter(|m| {
            !steps.contains(&Change::Promote(m.id)) && !steps.contains(&Change::Remove(m.id))
        })
        .collect();
    let adds = steps.contains(&Change::Add { learner: true });
    let blocked = (adds && kept.len() >= LEARNER_LIMIT).then(|| kept[0]);
    if let Some(first) = blocked {
        return new_check(CheckName::Learners, Verdict::Fail, detail)
            .figures(f)
            .members(members)
            .remedy(format!(
                "etcd allows {LEARNER_LIMIT} learner by default: promote {} once it has caught \
                 up (`memberctl member promote {}`) or remove it (`memberctl member remove {}`) \
                 first; on a server started with a higher --max-learners, pass --skip-check \
                 learners",
                first.label(),
                first.id,
                first.id
            ));
    }
    new_check(CheckName::Learners, Verdict::Ok, detail)
        .figures(f)
        .members(members)
}

pub(super) fn apply_lag(facts: &Facts) -> Check {
    let h = &facts.health;
    let mut verdict = Verdict::Ok;
    let mut behind = Vec::new();
    let mut figures = Vec::new();
    let mut f = Figures::default();
    for (m, s) in read(h) {
        let gap = s.raft_index.saturating_sub(s.raft_applied_index);
        figures.push(format!("{} {gap}", m.label()));
        f.member("apply_lag_entries", key(m), gap as f64);
        // A learner catching up applies in bursts; it proposes nothing.
        if m.is_learner {
            continue;
        }
        let v = if gap > APPLY_FAIL {
            Verdict::Fail
        } else if gap > APPLY_WARN {
            Verdict::Warn
        } else {
            continue;
        };
        verdict = verdict.max(v);
        behind.push(m.label());
    }
    let missing = unread(h);
    let mut detail = format!("entries committed but not applied: {}", figures.join(", "));
    if !missing.is_empty() {
        detail.push_str(&format!("; not read: {}", missing.join(", ")));
        if verdict == Verdict::Ok {
            verdict = Verdict::Unknown;
        }
    }
    let c = new_check(CheckName::Apply, verdict, detail)
        .figures(f)
        .members(behind.clone());
    if matches!(verdict, Verdict::Warn | Verdict::Fail) {
        c.remedy(format!(
            "wait until {} has applied what it committed (etcd refuses proposals beyond a gap \
             of {APPLY_FAIL})",
            behind.join(", ")
        ))
    } else {
        c
    }
}
