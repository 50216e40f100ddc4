//! `cluster recover`, the first half: a local cluster that lost its quorum
//! brought down to its best survivor. The survivor with the most of the log
//! (highest term, then highest index) is chosen (or `--from NAME`), every
//! node is stopped, the others' data directories are wiped, and the survivor
//! is restarted with `--force-new-cluster`. The command then re-adds the
//! others as learners and promotes them (`member apply`'s workflow), and
//! restarts the survivor without the flag ([`restart_unforced`]).

use std::path::Path;
use std::time::{Duration, Instant};

use super::state::ClusterState;
use super::{absolute, client_of, exe, process, runs};
use crate::error::{Error, ErrorKind};
use crate::model::{MemberStatus, PeerUrls};
use crate::workflow::calc::apply_plan::TargetMember;
use crate::workflow::MembershipApi;

/// How long the forced survivor may take to lead.
const LEAD_WAIT: Duration = Duration::from_secs(30);

/// The survivor, restarted alone, and the membership to rebuild.
#[derive(Clone, Debug)]
pub struct Survivor {
    /// Its name.
    pub name: String,
    /// Its client URL.
    pub client_url: String,
    /// Its raft term and index before the restart.
    pub term: u64,
    /// Its last index (raft index) before the restart.
    pub index: u64,
    /// The index it had applied: writes up to it are kept.
    pub applied: u64,
    /// Every member the cluster had (the survivor first), to add back.
    pub target: Vec<TargetMember>,
}

/// Chooses the survivor, stops every node, wipes the others' data and
/// restarts the survivor with `--force-new-cluster`; refuses (changing
/// nothing) a cluster that has a leader, an unknown or dead `from`, and
/// survivors whose logs disagree when no `from` is given.
pub async fn force_survivor(dir: &Path, from: Option<&str>) -> Result<Survivor, Error> {
    let dir = absolute(dir)?;
    let Some(mut state) = ClusterState::load(&dir)? else {
        return Err(Error::usage(format!(
            "no local cluster in {}; start one with `memberctl cluster up`",
            dir.display()
        )));
    };
    let members: Vec<_> = state.nodes.iter().filter(|n| !n.removed).cloned().collect();
    if let Some(name) = from {
        match members.iter().find(|n| n.name == name) {
            None => {
                return Err(Error::usage(format!(
                    "--from {name}: the local cluster has no node {name} (its nodes: {})",
                    names(&members)
                )))
            }
            Some(n) if !runs(n) => {
                return Err(Error::refused(format!(
                    "--from {name}: node {name} is not running; choose a survivor that runs \
                     (`memberctl cluster status`)"
                )))
            }
            Some(_) => {}
        }
    }
    // What each running node says of itself.
    let mut survivors: Vec<(String, String, MemberStatus)> = Vec::new();
    for n in members.iter().filter(|n| runs(n)) {
        let c = client_of(vec![n.client_url.clone()])?;
        if let Ok(s) = c.status_at(&n.client_url).await {
            survivors.push((n.name.clone(), n.client_url.clone(), s));
        }
    }
    let quorum = members.len() / 2 + 1;
    if survivors.len() >= quorum {
        return Err(Error::refused(format!(
            "{} of the {} members answer ({}): a quorum is {quorum}, so the cluster has not \
             lost its quorum and there is nothing to recover; change members with \
             `memberctl member …`",
            survivors.len(),
            members.len(),
            survivors
                .iter()
                .map(|(n, _, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if survivors.is_empty() {
        return Err(Error::refused(
            "no node of the local cluster runs and answers: nothing to recover from; \
             `memberctl cluster up` starts the stopped nodes"
                .to_string(),
        ));
    }
    let logs: Vec<(String, u64, u64)> = survivors
        .iter()
        .map(|(n, _, s)| (n.clone(), s.raft_term, s.raft_index))
        .collect();
    let pick = choose(&logs, from)?;
    let (name, client_url, status) = survivors[pick].clone();
    // Everything stops; the others' data is wiped (they come back as new members).
    for n in state.nodes.iter_mut() {
        if let Some(pid) = n.pid.take() {
            process::stop(pid, &n.data_dir);
        }
        if n.name != name && !n.removed {
            let _ = std::fs::remove_dir_all(&n.data_dir);
            n.id = None;
        }
    }
    state.save(&dir)?;
    let record = survivor_record(&state, &name)?;
    let pid = process::spawn_with(&exe()?, &record, &state, &["--force-new-cluster"])?;
    if let Some(n) = state.node_mut(&name) {
        n.pid = Some(pid);
    }
    state.save(&dir)?;
    // Ready once it leads its one-member cluster.
    let c = client_of(vec![client_url.clone()])?;
    let deadline = Instant::now() + LEAD_WAIT;
    loop {
        if c.status_at(&client_url)
            .await
            .is_ok_and(|s| s.leader.0 != 0 && s.leader == s.member_id)
        {
            break;
        }
        if !process::is_running(pid, &record.data_dir) || Instant::now() > deadline {
            return Err(Error::new(
                ErrorKind::Internal,
                format!(
                    "{name}, restarted with --force-new-cluster, did not lead within {} s; see {}",
                    LEAD_WAIT.as_secs(),
                    record.log.display()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut target = vec![TargetMember {
        name: name.clone(),
        peer_urls: PeerUrls::read(&[&record.peer_url]),
    }];
    target.extend(
        members
            .iter()
            .filter(|n| n.name != name)
            .map(|n| TargetMember {
                name: n.name.clone(),
                peer_urls: PeerUrls::read(&[&n.peer_url]),
            }),
    );
    Ok(Survivor {
        name,
        client_url,
        term: status.raft_term,
        index: status.raft_index,
        applied: status.raft_applied_index,
        target,
    })
}

/// The last step of a recovery: the survivor, still running with
/// `--force-new-cluster` once the others are back, restarted without it (a
/// restart with the flag would make it the only member again and remove
/// them for good). Waits until it answers and names a leader.
pub async fn restart_unforced(dir: &Path, name: &str) -> Result<(), Error> {
    let dir = absolute(dir)?;
    let Some(mut state) = ClusterState::load(&dir)? else {
        return Err(Error::new(
            ErrorKind::Internal,
            format!("the local cluster in {} went away", dir.display()),
        ));
    };
    let record = survivor_record(&state, name)?;
    if let Some(pid) = record.pid {
        process::stop(pid, &record.data_dir);
    }
    let pid = process::spawn(&exe()?, &record, &state)?;
    if let Some(n) = state.node_mut(name) {
        n.pid = Some(pid);
    }
    state.save(&dir)?;
    let c = client_of(vec![record.client_url.clone()])?;
    let deadline = Instant::now() + LEAD_WAIT;
    loop {
        if c.status_at(&record.client_url)
            .await
            .is_ok_and(|s| s.leader.0 != 0)
        {
            return Ok(());
        }
        if !process::is_running(pid, &record.data_dir) || Instant::now() > deadline {
            return Err(Error::new(
                ErrorKind::Internal,
                format!(
                    "{name}, restarted without --force-new-cluster, did not rejoin within {} s; \
                     see {}",
                    LEAD_WAIT.as_secs(),
                    record.log.display()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Which of the survivors — (name, raft term, raft index) — to recover
/// from: `from`, else the one with the highest term, then index; refused
/// when another has the higher index (neither log holds all of the other's).
fn choose(logs: &[(String, u64, u64)], from: Option<&str>) -> Result<usize, Error> {
    if let Some(name) = from {
        return logs.iter().position(|(n, _, _)| n == name).ok_or_else(|| {
            Error::new(
                ErrorKind::Unavailable,
                format!("--from {name}: node {name} runs but does not answer its status"),
            )
        });
    }
    let best = (0..logs.len())
        .max_by_key(|&i| (logs[i].1, logs[i].2))
        .ok_or_else(|| Error::refused("no survivor answers".to_string()))?;
    let (b, bt, bi) = &logs[best];
    if let Some((other, t, i)) = logs.iter().find(|(_, _, i)| i > bi) {
        return Err(Error::refused(format!(
            "the survivors disagree: {b} has term {bt} and index {bi}, {other} has term {t} \
             and index {i}; neither has all of the other's log, so choose one with \
             `--from NAME` (acknowledged writes that only the other holds will be lost)"
        )));
    }
    Ok(best)
}

/// The survivor's node record, as the state holds it now.
fn survivor_record(state: &ClusterState, name: &str) -> Result<super::state::NodeRecord, Error> {
    state
        .nodes
        .iter()
        .find(|n| n.name == name)
        .cloned()
        .ok_or_else(|| Error::new(ErrorKind::Internal, "the survivor's record went away"))
}

fn names(nodes: &[super::state::NodeRecord]) -> String {
    nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs(l: &[(&str, u64, u64)]) -> Vec<(String, u64, u64)> {
        l.iter().map(|(n, t, i)| (n.to_string(), *t, *i)).collect()
    }

    #[test]
    fn the_survivor_with_the_most_of_the_log_is_chosen() {
        // Highest term, then highest index.
        let same_term = logs(&[("n1", 3, 40), ("n2", 3, 52)]);
        assert_eq!(choose(&same_term, None).unwrap(), 1);
        let newer_term = logs(&[("n1", 4, 52), ("n2", 3, 40)]);
        assert_eq!(choose(&newer_term, None).unwrap(), 0);
        // A higher term with a shorter log: they disagree; --from decides.
        let disagree = logs(&[("n1", 4, 40), ("n2", 3, 52)]);
        let e = choose(&disagree, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
        assert!(
            e.message.contains("disagree") && e.message.contains("--from"),
            "{}",
            e.message
        );
        assert_eq!(choose(&disagree, Some("n2")).unwrap(), 1);
        assert!(choose(&disagree, Some("n9")).is_err());
    }
}
