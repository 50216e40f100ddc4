//! `memberctl cluster chaos`: seeded faults injected into the local cluster
//! for a while — members killed (`kill -9`, the leader or a follower),
//! wiped (killed, their data directory deleted), paused (SIGSTOP, then
//! SIGCONT), their links stalled or every link slowed (the link model), the
//! acting autopilot killed and started again — never more voters down or
//! cut off at once than the cluster can lose (⌊(voters − 1) / 2⌋) unless
//! told to break the quorum. Every fault's start and end is one
//! [`ChaosEvent`], handed to the caller as it happens (the printer writes it).

pub mod autopilots;
pub mod budget;
pub mod inject;
pub mod schedule;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use super::report::NodeStatus;
use crate::error::Error;
use crate::link::LinkSpec;
use crate::model::MemberId;
use schedule::{Draw, Schedule};

/// One kind of fault, by the name `--faults` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// `kill -9` of a member that does not lead; restarted from its data.
    Kill,
    /// `kill -9` of the leader; restarted from its data.
    KillLeader,
    /// `kill -9` of a member and its data directory deleted; it comes back
    /// empty once the cluster has removed it, or never.
    Wipe,
    /// SIGSTOP of a member, SIGCONT after: alive but silent.
    Pause,
    /// The links to and from a member deliver nothing for a while.
    Stall,
    /// Every link slower (four times the delay, a quarter of the bandwidth), then restored.
    Slow,
    /// `kill -9` of the acting autopilot, started again after.
    KillAutopilot,
}

impl FaultKind {
    /// Every kind, in `--faults`' order.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Kill,
        FaultKind::KillLeader,
        FaultKind::Wipe,
        FaultKind::Pause,
        FaultKind::Stall,
        FaultKind::Slow,
        FaultKind::KillAutopilot,
    ];

    /// Its name in `--faults` and in the JSON lines.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Kill => "kill",
            FaultKind::KillLeader => "kill-leader",
            FaultKind::Wipe => "wipe",
            FaultKind::Pause => "pause",
            FaultKind::Stall => "stall",
            FaultKind::Slow => "slow",
            FaultKind::KillAutopilot => "kill-autopilot",
        }
    }

    /// The kind called `name`.
    pub fn parse(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether it takes its member down or cuts it off (it counts against
    /// the voters the cluster may lose).
    pub fn takes_member_down(self) -> bool {
        matches!(
            self,
            FaultKind::Kill
                | FaultKind::KillLeader
                | FaultKind::Wipe
                | FaultKind::Pause
                | FaultKind::Stall
        )
    }

    /// Whether it needs the link model (`cluster up --link`).
    pub fn needs_link(self) -> bool {
        matches!(self, FaultKind::Stall | FaultKind::Slow)
    }
}

/// What `cluster chaos` was asked.
#[derive(Clone, Debug)]
pub struct ChaosOptions {
    /// The seed of every draw.
    pub seed: u64,
    /// How long faults are started; the last ones end after it.
    pub duration: Duration,
    /// The kinds drawn from.
    pub faults: Vec<FaultKind>,
    /// The most faults at once.
    pub max_concurrent: usize,
    /// Allow more voters down than the cluster can lose.
    pub break_quorum: bool,
    /// The mean time between two faults' starts.
    pub every: Duration,
    /// The longest a fault lasts (each lasts ½…1 of it).
    pub hold: Duration,
}

/// Where a fault stands in its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChaosPhase {
    /// It was injected.
    Start,
    /// It was undone (or, for a wipe that does not come back, given up).
    End,
    /// It was drawn but not injected (no target, the budget, the limit).
    Skipped,
}

impl ChaosPhase {
    /// "start", "end" or "skipped".
    pub fn as_str(self) -> &'static str {
        match self {
            ChaosPhase::Start => "start",
            ChaosPhase::End => "end",
            ChaosPhase::Skipped => "skipped",
        }
    }
}

/// One fault's start, end, or skip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChaosEvent {
    /// Time since chaos began.
    pub at: Duration,
    /// When, in milliseconds since the Unix epoch (to line it up with other logs).
    pub unix_ms: u64,
    /// The fault's number (its start and end share it); 0 for a skip.
    pub seq: u64,
    /// Its kind.
    pub fault: FaultKind,
    /// Start, end or skipped.
    pub phase: ChaosPhase,
    /// The node it struck (an autopilot's name for kill-autopilot), if any.
    pub member: Option<String>,
    /// That node's member ID, when known.
    pub member_id: Option<MemberId>,
    /// Whether that member was a voter when struck.
    pub voter: Option<bool>,
    /// What was done, in a sentence.
    pub detail: String,
}

/// A fault in progress.
struct Active {
    seq: u64,
    kind: FaultKind,
    member: Option<String>,
    member_id: Option<MemberId>,
    voter: bool,
    ends: Instant,
    comes_back: bool,
    undo: Undo,
}

/// How a fault is undone.
enum Undo {
    Restart,
    Resume(u32),
    Unstall,
    Nothing,
    Link(LinkSpec),
    Autopilot(String, Box<autopilots::Recipe>),
}

/// A member as chaos chooses among them.
struct Node {
    name: String,
    id: Option<MemberId>,
    voter: bool,
    leader: bool,
    running: bool,
}

async fn nodes(dir: &Path) -> Vec<Node> {
    let Ok(c) = super::status(dir).await else {
        return vec![];
    };
    c.nodes
        .into_iter()
        .filter(|n| n.status != NodeStatus::Removed && n.is_learner.is_some())
        .map(|n| Node {
            name: n.name,
            id: n.id,
            voter: n.is_learner == Some(false),
            leader: n.is_leader,
            running: n.running,
        })
        .collect()
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A run of chaos on the cluster in `dir`.
struct Run<'a> {
    dir: PathBuf,
    options: &'a ChaosOptions,
    began: Instant,
    emit: &'a mut dyn FnMut(&ChaosEvent),
    active: Vec<Active>,
    seq: u64,
}

impl Run<'_> {
    fn event(&mut self, a: &Active, phase: ChaosPhase, detail: String) {
        let e = ChaosEvent {
            at: self.began.elapsed(),
            unix_ms: unix_ms(),
            seq: a.seq,
            fault: a.kind,
            phase,
            member: a.member.clone(),
            member_id: a.member_id,
            voter: a.member.as_ref().map(|_| a.voter),
            detail,
        };
        (self.emit)(&e);
    }

    fn skip(&mut self, kind: FaultKind, why: String) {
        let e = ChaosEvent {
            at: self.began.elapsed(),
            unix_ms: unix_ms(),
            seq: 0,
            fault: kind,
            phase: ChaosPhase::Skipped,
            member: None,
            member_id: None,
            voter: None,
            detail: why,
        };
        (self.emit)(&e);
    }

    /// Voters down or cut off now: not running, or struck by a fault in progress.
    fn down(&self, nodes: &[Node]) -> usize {
        nodes
            .iter()
            .filter(|n| n.voter)
            .filter(|n| {
                !n.running
                    || self
                        .active
                        .iter()
                        .any(|a| a.kind.takes_member_down() && a.member.as_deref() == Some(&n.name))
            })
            .count()
    }

    /// Injects `draw`, or says why not.
    async fn start(&mut self, draw: Draw) {
        let kind = draw.kind;
        if self.active.len() >= self.options.max_concurrent {
            let why = format!(
                "faults in progress: {} (--max-concurrent {})",
                self.active.len(),
                self.options.max_concurrent
            );
            return self.skip(kind, why);
        }
        let mut active = Active {
            seq: self.seq + 1,
            kind,
            member: None,
            member_id: None,
            voter: false,
            ends: Instant::now(),
            comes_back: draw.comes_back,
            undo: Undo::Nothing,
        };
        let hold = humantime::format_duration(Duration::from_millis(draw.hold.as_millis() as u64));
        let detail = match kind {
            FaultKind::Slow => {
                if self.active.iter().any(|a| a.kind == FaultKind::Slow) {
                    return self.skip(kind, "the links are slowed already".into());
                }
                let spec = match inject::link(&self.dir) {
                    Ok(Some(spec)) => spec,
                    _ => return self.skip(kind, "the cluster has no link".into()),
                };
                let slow = inject::slower(spec);
                if let Err(e) = inject::set_link(&self.dir, slow) {
                    return self.skip(kind, e.message);
                }
                active.undo = Undo::Link(spec);
                format!("every link slowed to {slow} for {hold} (was {spec})")
            }
            FaultKind::KillAutopilot => {
                let running = autopilots::running(&self.dir);
                let acting = acting(&self.dir).await;
                let target = running
                    .iter()
                    .find(|r| Some(&r.name) == acting.as_ref())
                    .or_else(|| running.get((draw.pick % running.len().max(1) as u64) as usize));
                let Some(target) = target.cloned() else {
                    return self.skip(kind, "no autopilot of this cluster runs".into());
                };
                let recipe = match autopilots::recipe(target.pid) {
                    Ok(r) => r,
                    Err(e) => return self.skip(kind, e.message),
                };
                autopilots::kill9(target.pid);
                active.member = Some(target.name.clone());
                active.undo = Undo::Autopilot(target.name.clone(), Box::new(recipe));
                format!(
                    "kill -9 of autopilot {} (pid {}{}), started again in {hold}",
                    target.name,
                    target.pid,
                    if acting.as_ref() == Some(&target.name) {
                        ", the acting one"
                    } else {
                        ""
                    }
                )
            }
            _ => {
                let nodes = nodes(&self.dir).await;
                let struck = |n: &Node| {
                    self.active
                        .iter()
                        .any(|a| a.member.as_deref() == Some(&n.name))
                };
                let candidates: Vec<&Node> = nodes
                    .iter()
                    .filter(|n| n.running && !struck(n))
                    .filter(|n| match kind {
                        FaultKind::KillLeader => n.leader,
                        FaultKind::Kill => !n.leader,
                        _ => true,
                    })
                    .filter(|n| {
                        !n.voter
                            || budget::may_take_one_more(
                                nodes.iter().filter(|n| n.voter).count(),
                                self.down(&nodes),
                                self.options.break_quorum,
                            )
                    })
                    .collect();
                if candidates.is_empty() {
                    let voters = nodes.iter().filter(|n| n.voter).count();
                    let why = format!(
                        "no member to strike: {} of {voters} voters down or cut off already (at most {} at once{})",
                        self.down(&nodes),
                        budget::tolerated(voters),
                        if self.options.break_quorum { ", --break-quorum" } else { "" }
                    );
                    return self.skip(kind, why);
                }
                let n = candidates[(draw.pick % candidates.len() as u64) as usize];
                let name = n.name.clone();
                active.member = Some(name.clone());
                active.member_id = n.id;
                active.voter = n.voter;
                let role = match (n.leader, n.voter) {
                    (true, _) => "the leader",
                    (false, true) => "a voter",
                    (false, false) => "a learner",
                };
                let dir = self.dir.clone();
                let done = match kind {
                    FaultKind::Kill | FaultKind::KillLeader => {
                        inject::kill(&dir, &name).map(|pid| {
                            active.undo = Undo::Restart;
                            format!("kill -9 of {name} ({role}, pid {pid}), restarted from its data in {hold}")
                        })
                    }
                    FaultKind::Wipe => inject::wipe(&dir, &name).map(|pid| {
                        active.undo = Undo::Restart;
                        if draw.comes_back {
                            format!("kill -9 of {name} ({role}, pid {pid}) and its data directory deleted; it comes back empty after {hold} once the cluster has removed it")
                        } else {
                            format!("kill -9 of {name} ({role}, pid {pid}) and its data directory deleted; it never comes back")
                        }
                    }),
                    FaultKind::Pause => inject::pause(&dir, &name).map(|pid| {
                        active.undo = Undo::Resume(pid);
                        format!("SIGSTOP to {name} ({role}, pid {pid}), SIGCONT in {hold}")
                    }),
                    FaultKind::Stall => {
                        if !matches!(inject::link(&dir), Ok(Some(_))) {
                            return self.skip(kind, "the cluster has no link".into());
                        }
                        inject::stall(&dir, &name, draw.hold).map(|()| {
                            active.undo = Undo::Unstall;
                            format!("the links of {name} ({role}) stalled for {hold}")
                        })
                    }
                    FaultKind::Slow | FaultKind::KillAutopilot => unreachable!("handled above"),
                };
                match done {
                    Ok(d) => d,
                    Err(e) => return self.skip(kind, format!("{name}: {}", e.message)),
                }
            }
        };
        self.seq += 1;
        // Its time counts from now, once injected (looking took a while).
        active.ends = Instant::now() + draw.hold;
        self.event(&active, ChaosPhase::Start, detail);
        self.active.push(active);
    }

    /// Ends fault `i` when its time has come (`now`), or at the end of the
    /// run (`last`): a wipe comes back only once its member was removed.
    async fn end(&mut self, i: usize, last: bool) -> bool {
        let a = &self.active[i];
        if a.kind == FaultKind::Wipe {
            if !a.comes_back || last {
                let a = self.active.remove(i);
                let why = if a.comes_back {
                    "not back: the cluster had not removed it when chaos ended"
                } else {
                    "never comes back"
                };
                let detail = format!("{} wiped: {why}", a.member.clone().unwrap_or_default());
                self.event(&a, ChaosPhase::End, detail);
                return true;
            }
            // Back empty with its old identity only once it is no member:
            // an empty voter would forget its votes.
            let still = match a.member_id {
                Some(id) => member_listed(&self.dir, id).await,
                None => false,
            };
            if still {
                self.active[i].ends = Instant::now() + Duration::from_secs(1);
                return false;
            }
        }
        let a = self.active.remove(i);
        let name = a.member.clone().unwrap_or_default();
        let detail = match &a.undo {
            Undo::Restart => match inject::restart(&self.dir, &name) {
                Ok(pid) if a.kind == FaultKind::Wipe => {
                    format!("{name} started again empty (pid {pid}) after the cluster removed it")
                }
                Ok(pid) => format!("{name} started again (pid {pid})"),
                Err(e) => format!("{name} could not be started again: {}", e.message),
            },
            Undo::Resume(pid) => {
                inject::resume(*pid);
                format!("SIGCONT to {name} (pid {pid})")
            }
            Undo::Unstall => {
                // Ended early (chaos stops): the stall is cut short.
                let _ = inject::stall(&self.dir, &name, Duration::ZERO);
                format!("the links of {name} deliver again")
            }
            Undo::Nothing => String::new(),
            Undo::Link(spec) => match inject::set_link(&self.dir, *spec) {
                Ok(()) => format!("every link restored to {spec}"),
                Err(e) => format!("the links could not be restored: {}", e.message),
            },
            Undo::Autopilot(name, recipe) => match autopilots::restart(&self.dir, name, recipe) {
                Ok(pid) => format!("autopilot {name} started again (pid {pid})"),
                Err(e) => e.message,
            },
        };
        self.event(&a, ChaosPhase::End, detail);
        true
    }
}

/// Whether member `id` is still listed by the cluster in `dir` (when the
/// list cannot be read: yes).
async fn member_listed(dir: &Path, id: MemberId) -> bool {
    use crate::workflow::MembershipApi;
    let Ok(Some(state)) = super::state::ClusterState::load(dir) else {
        return true;
    };
    let Ok(c) = super::client(&state) else {
        return true;
    };
    match c.member_list().await {
        Ok(l) if !l.unconfirmed => l.get(id).is_some(),
        _ => true,
    }
}

/// The name of the autopilot that leads the local cluster's autopilots, if known.
async fn acting(dir: &Path) -> Option<String> {
    use crate::workflow::autopilot::{Election, ELECTION};
    let state = super::state::ClusterState::load(dir).ok()??;
    let c = super::client(&state).ok()?;
    c.election_leader(ELECTION).await.ok()?.map(|l| l.value)
}

/// Runs chaos on the local cluster in `dir` as `options` say, handing each
/// event to `emit` as it happens, until `options.duration` has passed or
/// `stop` is set; then undoes every fault still in progress.
pub async fn run(
    dir: &Path,
    options: &ChaosOptions,
    emit: &mut dyn FnMut(&ChaosEvent),
    mut stop: watch::Receiver<bool>,
) -> Result<(), Error> {
    let dir = super::absolute(dir)?;
    let Some(state) = super::state::ClusterState::load(&dir)? else {
        return Err(Error::usage(format!(
            "no local cluster in {}; start one with `memberctl cluster up`",
            dir.display()
        )));
    };
    if options.faults.is_empty() {
        return Err(Error::usage("--faults names no fault"));
    }
    if options.max_concurrent == 0 {
        return Err(Error::usage("--max-concurrent must be at least 1"));
    }
    if state.link.is_none() {
        if let Some(k) = options.faults.iter().find(|k| k.needs_link()) {
            return Err(Error::refused(format!(
                "fault {} needs the link model: make the cluster with `cluster up --link rtt=2ms,bandwidth=1gbit,queue=4mb`, or leave {} out of --faults",
                k.as_str(),
                k.as_str()
            )));
        }
    }
    let mut schedule = Schedule::new(
        options.seed,
        options.faults.clone(),
        options.every,
        options.hold,
    );
    let began = Instant::now();
    let deadline = began + options.duration;
    let mut run = Run {
        dir,
        options,
        began,
        emit,
        active: vec![],
        seq: 0,
    };
    let mut next = began + schedule.gap();
    loop {
        let now = Instant::now();
        if now >= deadline || *stop.borrow() {
            break;
        }
        let mut i = 0;
        while i < run.active.len() {
            if run.active[i].ends <= now {
                if !run.end(i, false).await {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        if now >= next {
            let draw = schedule.draw();
            run.start(draw).await;
            next = Instant::now() + schedule.gap();
        }
        let wake = run
            .active
            .iter()
            .map(|a| a.ends)
            .chain([next, deadline])
            .min()
            .unwrap_or(deadline);
        tokio::select! {
            _ = tokio::time::sleep_until(wake.into()) => {}
            _ = stop.changed() => {}
        }
    }
    // The faults still in progress end now (a wipe that has not come back does not).
    while !run.active.is_empty() {
        run.end(0, true).await;
    }
    Ok(())
}
