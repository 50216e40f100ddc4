//! The way back from a lost quorum: the diagnosis `member status` makes
//! ([`QuorumLoss`]: which voters answer, the survivor with the most of the
//! log, the steps with the exact commands), and the warning that follows
//! it while a member still runs with `--force-new-cluster`, which would undo
//! the recovery at its next restart ([`forced_warning`]).

use crate::model::{Member, StartFlags};

/// A lost quorum, as `member status` diagnoses it: which voters answer,
/// which survivor has the most of the log, and how to recover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuorumLoss {
    /// Voters in the configuration.
    pub voters: usize,
    /// Voters needed to elect a leader.
    pub quorum: usize,
    /// The voters that answer.
    pub answering: Vec<Member>,
    /// The voters that do not.
    pub lost: Vec<Member>,
    /// The answering voter with the most of the log (highest term, then
    /// index), with its term and index.
    pub survivor: Option<(Member, u64, u64)>,
}

/// Members by label, or "none".
fn names(ms: &[Member]) -> String {
    if ms.is_empty() {
        "none".to_string()
    } else {
        ms.iter().map(Member::label).collect::<Vec<_>>().join(", ")
    }
}

impl QuorumLoss {
    /// The one-line diagnosis: who answers, the quorum, who does not.
    pub fn summary(&self) -> String {
        format!(
            "quorum lost: {} of {} voters answer ({}), a quorum is {}: no leader can be \
             elected, so nothing can be written or changed; not answering: {}",
            self.answering.len(),
            self.voters,
            names(&self.answering),
            self.quorum,
            names(&self.lost)
        )
    }

    /// The diagnosis and the recovery steps, with the exact commands.
    pub fn advice(&self) -> Vec<String> {
        let mut out = vec![self.summary()];
        let Some((s, term, index)) = &self.survivor else {
            out.push(
                "no voter answers: start any that can start; if a majority is gone for good, \
                 recover from the one with the most of the log (see `member status` once it runs)"
                    .to_string(),
            );
            return out;
        };
        let survivor = s.label();
        out.push(format!(
            "if the others are gone for good, recover from {survivor} (term {term}, index \
             {index}, the most of the log among those that answer); writes acknowledged past \
             what it holds are lost:"
        ));
        out.push(format!(
            "  1. stop every member, then restart {survivor} on its data directory with its usual \
             flags and --force-new-cluster (etcd and memberctl node run alike): it becomes the \
             only member"
        ));
        out.push(format!(
            "  2. once it serves, remove --force-new-cluster from the command line, unit file or \
             environment (ETCD_FORCE_NEW_CLUSTER) of {survivor} before it restarts again; the \
             running process needs no restart: the flag rewrites the membership at every start, so a \
             restart with it would remove every member added since, for good (etcd: \"the member \
             has been permanently removed from the cluster\"); memberctl warns while it still \
             runs with the flag"
        ));
        for (i, m) in self
            .lost
            .iter()
            .chain(self.answering.iter().filter(|a| a.id != s.id))
            .enumerate()
        {
            let name = if m.name.is_empty() { "NAME" } else { &m.name };
            out.push(format!(
                "  {}. memberctl member add {name} --learner --peer-urls {}  (start it on an \
                 empty data directory as printed, then: memberctl member promote {name})",
                i + 3,
                m.peer_urls.join(","),
            ));
        }
        out
    }
}

/// What to do while a member runs with `--force-new-cluster`.
pub const FORCED_REMEDY: &str = "remove --force-new-cluster from its command line, unit file or \
     environment (ETCD_FORCE_NEW_CLUSTER) before its next restart; the running process needs \
     no restart";

/// That members run with `--force-new-cluster` (each with how that was
/// read), and what a restart with the flag would do.
pub fn forced_fact(forced: &[(&Member, &StartFlags)]) -> Option<String> {
    if forced.is_empty() {
        return None;
    }
    let who: Vec<String> = forced
        .iter()
        .map(|(m, f)| format!("{} (read from {})", m.label(), f.source))
        .collect();
    Some(format!(
        "{} {} with --force-new-cluster: started with it again, a member makes itself the only \
         member once more and every member added since is removed for good",
        who.join(", "),
        if forced.len() == 1 { "runs" } else { "run" },
    ))
}

/// The warning while members run with `--force-new-cluster`: the fact and
/// what to do.
pub fn forced_warning(forced: &[(&Member, &StartFlags)]) -> Option<String> {
    forced_fact(forced).map(|fact| format!("{fact}; {FORCED_REMEDY}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemberId;

    fn member(id: u64, name: &str) -> Member {
        Member {
            id: MemberId(id),
            name: name.into(),
            peer_urls: vec![format!("http://{name}:2380")],
            ..Default::default()
        }
    }

    #[test]
    fn dropping_the_flag_is_a_step_of_its_own_before_the_members_come_back() {
        let q = QuorumLoss {
            voters: 3,
            quorum: 2,
            answering: vec![member(1, "m1")],
            lost: vec![member(2, "m2"), member(3, "m3")],
            survivor: Some((member(1, "m1"), 4, 20)),
        };
        let steps = q.advice();
        let drop = steps
            .iter()
            .position(|s| s.starts_with("  2. ") && s.contains("remove --force-new-cluster"))
            .expect("a step that drops the flag");
        assert!(
            steps[drop].contains("permanently removed"),
            "{}",
            steps[drop]
        );
        let add = steps
            .iter()
            .position(|s| s.contains("member add m2"))
            .unwrap();
        assert!(drop < add, "{steps:?}");
        assert!(steps
            .iter()
            .any(|s| s.starts_with("  4. ") && s.contains("member add m3")));
    }

    #[test]
    fn the_warning_names_each_forced_member_and_where_it_was_read() {
        assert_eq!(forced_warning(&[]), None);
        let m = member(1, "m1");
        let f = StartFlags {
            force_new_cluster: true,
            source: "its command line (/debug/vars)".into(),
            complete: true,
        };
        let w = forced_warning(&[(&m, &f)]).unwrap();
        assert!(w.starts_with("m1 (0000000000000001) (read from its command line (/debug/vars)) runs with --force-new-cluster"), "{w}");
        assert!(w.contains("before its next restart"), "{w}");
    }
}
