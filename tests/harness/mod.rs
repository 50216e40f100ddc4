//! The integration binary's harness: every case is a trial, and a case whose tool this machine lacks is reported as ignored, with the reason and the install command, decided at run time.
//!
//! libtest's `#[test]` cannot decide at run time that a test did not run: a
//! test that returned early for want of etcd read as `ok`. Here each case
//! names what it needs ([`Need`]) where it is listed (`cases!` at the bottom
//! of its file), the harness looks for those tools once before anything
//! runs, and a case that cannot run shows as `ignored` and in the closing
//! line's count. With `MEMBERCTL_REQUIRE_ETCD=1` (as in CI) nothing is
//! ignored for a missing tool: the case runs and fails, naming the tool.
//! Inside a case, `util::require_etcd()` and its siblings panic when the tool
//! is missing, so a case that uses a tool it did not declare fails on a
//! machine without it instead of passing without having run.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Trial};

use crate::util;

mod cpu;

/// A tool a case needs beyond the Rust toolchain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Need {
    /// Debian's etcd 3.4 server (`etcd` in PATH, or `ETCD_BIN`).
    Etcd,
    /// Debian's etcdctl 3.4.
    Etcdctl,
    /// Debian's Prometheus server and promtool.
    Prometheus,
    /// The etcd server of one minor version of the test matrix ("3.4" …
    /// "3.7"); 3.5–3.7 are pinned crates that cargo fetches.
    EtcdServer(&'static str),
    /// A program in PATH (`dpkg-deb`, `man`, `kubectl`, `systemd-analyze`, …),
    /// from the Debian package [`debian_package`] names.
    Command(&'static str),
}

/// The Debian package that installs `command`.
fn debian_package(command: &str) -> &str {
    match command {
        "dpkg" | "dpkg-deb" => "dpkg",
        "man" => "man-db",
        "kubectl" => "kubernetes-client",
        "systemd-analyze" => "systemd",
        "objcopy" => "binutils",
        other => other,
    }
}

impl Need {
    /// Whether this machine has the tool; else why not and how to get it.
    fn look(self) -> Result<(), String> {
        let found = match self {
            Need::Etcd | Need::EtcdServer("3.4") => util::etcd::etcd_binary().is_some(),
            Need::Etcdctl => util::etcd::etcdctl_binary().is_some(),
            Need::Prometheus => {
                util::prometheus_tool("prometheus").is_some()
                    && util::prometheus_tool("promtool").is_some()
            }
            Need::EtcdServer(v) => {
                return util::versions::find(v)
                    .map(drop)
                    .map_err(|why| format!("etcd {v} is not available: {why}"))
            }
            Need::Command(c) => util::in_path(c).is_some(),
        };
        if found {
            return Ok(());
        }
        Err(match self {
            Need::Etcd | Need::EtcdServer(_) => {
                "etcd is not installed: apt-get install etcd-server, or set ETCD_BIN".into()
            }
            Need::Etcdctl => "etcdctl is not installed: apt-get install etcd-client".into(),
            Need::Prometheus => {
                "prometheus and promtool are not installed: apt-get install prometheus".into()
            }
            Need::Command(c) => format!(
                "{c} is not installed: apt-get install {}",
                debian_package(c)
            ),
        })
    }
}

/// One integration test: its name (`cases::FILE::FUNCTION`, as libtest named
/// it), what it needs, and the function.
pub struct Case {
    name: String,
    needs: Vec<Need>,
    run: Box<dyn FnOnce() + Send>,
}

impl Case {
    /// A case of module `module` (as `module_path!()` gives it).
    pub fn new(module: &str, name: &str, needs: Vec<Need>, run: Box<dyn FnOnce() + Send>) -> Self {
        let module = module.strip_prefix("tests::").unwrap_or(module);
        Case {
            name: format!("{module}::{name}"),
            needs,
            run,
        }
    }
}

/// Lists a file's cases: `name` needs nothing, `name: [Etcd, Etcdctl]` needs
/// those tools, `name: each_version [Etcdctl]` is `fn name(version)` run once
/// per etcd version of the matrix (`name::v3_4` … `name::v3_7`), each needing
/// that version's server and the tools listed.
macro_rules! cases {
    ($($name:ident $(: $($each:ident)? [$($need:expr),* $(,)?])?),* $(,)?) => {{
        #[allow(unused_imports)]
        use $crate::harness::Need::*;
        let cases: Vec<Vec<$crate::harness::Case>> = vec![
            $( $crate::harness::cases!(@entry $name, [$($($each)?)?], [$($($need),*)?]) ),*
        ];
        cases.into_iter().flatten().collect::<Vec<_>>()
    }};
    (@entry $name:ident, [], [$($need:expr),*]) => {
        vec![$crate::harness::Case::new(
            module_path!(),
            stringify!($name),
            vec![$($need),*],
            Box::new($name),
        )]
    };
    (@entry $name:ident, [each_version], [$($need:expr),*]) => {
        $crate::util::versions::VERSIONS
            .into_iter()
            .map(|version| {
                $crate::harness::Case::new(
                    module_path!(),
                    &format!("{}::v{}", stringify!($name), version.replace('.', "_")),
                    vec![EtcdServer(version), $($need),*],
                    Box::new(move || $name(version)),
                )
            })
            .collect::<Vec<_>>()
    };
}
pub(crate) use cases;

/// Runs the cases as libtest would, with the ignored ones counted; says on
/// stderr which tools were missing, for how many cases, and how to get them.
pub fn main(mut cases: Vec<Case>) -> ExitCode {
    let mut args = Arguments::from_args();
    let measured = measured();
    // Two cases per core by default (see [`CASES_PER_CORE`]).
    if args.test_threads.is_none() {
        args.test_threads = Some(threads());
    }
    // The slowest start first, so that the run does not end on one long
    // case; heavy and light alternate (see [`order`]).
    let order = order(&measured);
    let heavy: std::collections::HashSet<&str> = measured
        .iter()
        .filter(|m| m.cores >= HEAVY)
        .map(|m| m.name.as_str())
        .collect();
    let gate = Arc::new(Gate::new(
        std::thread::available_parallelism().map_or(1, usize::from),
    ));
    cases.sort_by_key(|c| order.get(c.name.as_str()).copied().unwrap_or(usize::MAX));
    let required = std::env::var("MEMBERCTL_REQUIRE_ETCD").is_ok_and(|v| v == "1");
    let mut looked: HashMap<Need, Result<(), String>> = HashMap::new();
    let mut missing: Vec<(String, usize)> = Vec::new();
    let mut trials = Vec::with_capacity(cases.len());
    let timings: Arc<Mutex<Vec<Timing>>> = Arc::default();
    for case in cases {
        // Only the cases this run selects are looked at: a filtered run
        // fetches no etcd it will not start.
        let selected = !args.is_filtered_out(&Trial::test(case.name.clone(), || Ok(())));
        let lack = if selected && !required {
            case.needs.iter().find_map(|&need| {
                let found = looked.entry(need).or_insert_with(|| need.look());
                found.as_ref().err().cloned()
            })
        } else {
            None
        };
        let run = case.run;
        trials.push(match lack {
            Some(why) => {
                match missing.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, n)) => *n += 1,
                    None => missing.push((why.clone(), 1)),
                }
                // Shown as `ignored, <why>` and counted as ignored.
                Trial::ignorable_test(case.name, move || Ok(Completion::ignored_with(why)))
            }
            None => {
                let (timings, name) = (timings.clone(), case.name.clone());
                let n = trials.len();
                let (gate, is_heavy) = (gate.clone(), heavy.contains(case.name.as_str()));
                Trial::test(case.name, move || {
                    let _slot = is_heavy.then(|| gate.enter());
                    let (start, meter) = (Instant::now(), cpu::Meter::start(n));
                    // The thread leaves its cgroup also when the case panics.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
                    let cpu = meter.and_then(cpu::Meter::finish);
                    timings.lock().unwrap().push(Timing {
                        took: start.elapsed(),
                        cpu,
                        name,
                    });
                    if let Err(panic) = ran {
                        std::panic::resume_unwind(panic);
                    }
                    Ok(())
                })
            }
        });
    }
    let conclusion = libtest_mimic::run(&args, trials);
    cpu::cleanup();
    write_timings(&timings.lock().unwrap());
    for (why, n) in &missing {
        eprintln!("not run here: {n} case(s): {why}");
    }
    if !missing.is_empty() {
        eprintln!(
            "to run every case: apt-get install etcd-server etcd-client prometheus \
             (with MEMBERCTL_REQUIRE_ETCD=1 a missing tool fails its cases, as in CI)"
        );
    }
    conclusion.exit_code()
}

/// How many cases run at once: `MEMBERCTL_TEST_THREADS`, else
/// [`CASES_PER_CORE`] per core (`--test-threads N` wins over both).
fn threads() -> usize {
    std::env::var("MEMBERCTL_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            cores * CASES_PER_CORE
        })
}

/// Cases run at once per core by default. The suite mostly waits (measured
/// with two at once: 0.37 cores per case), so two per core keep the machine
/// busy; what overloaded it at two per core before (two cases failed: their
/// learners could not catch up in time) was the heavy cases, started first,
/// running all together: now heavy and light alternate ([`order`]) and at
/// most one heavy case per core runs ([`Gate`]).
const CASES_PER_CORE: usize = 2;

/// At most one heavy case per core at once: a heavy case waits here for a
/// place (the light ones never do).
struct Gate {
    free: Mutex<usize>,
    freed: std::sync::Condvar,
}

/// A heavy case's place, given back when it is dropped (also on a panic).
struct Slot<'a>(&'a Gate);

impl Gate {
    /// A gate with `places` places.
    fn new(places: usize) -> Gate {
        Gate {
            free: Mutex::new(places.max(1)),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Waits for a place and takes it.
    fn enter(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap();
        while *free == 0 {
            free = self.freed.wait(free).unwrap();
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap() += 1;
        self.0.freed.notify_one();
    }
}

/// The cases of a measured run (`measured.txt` beside this file: a copy of
/// that run's target/tmp/case-times.txt; refresh it when the suite changes),
/// slowest first: the harness starts the slowest first, in this order, so
/// that the run does not end on one long case; the rest keep theirs.
const MEASURED: &str = include_str!("measured.txt");

/// A case of the measured run: its name and the cores it kept busy.
struct Measured {
    name: String,
    cores: f64,
}

/// The cases in [`MEASURED`], slowest first; lines that name no case (the
/// header, comments) are skipped, and a line without a CPU figure counts as
/// heavy.
fn measured() -> Vec<Measured> {
    MEASURED
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let name = words.last().filter(|n| n.starts_with("cases::"))?;
            let cores = words
                .iter()
                .position(|w| *w == "cores")
                .and_then(|i| words.get(i - 1)?.parse().ok())
                .unwrap_or(1.0);
            Some(Measured {
                name: name.to_string(),
                cores,
            })
        })
        .collect()
}

/// A case measured to keep at least this many cores busy is heavy.
const HEAVY: f64 = 0.45;

/// Each measured case's place in the run: the slowest first, heavy and light
/// cases alternating, so that the cases running at once are not all heavy
/// (several snapshot catch-ups at once overload two cores) while the light
/// ones, which mostly wait for timers, fill the other places.
fn order(measured: &[Measured]) -> HashMap<&str, usize> {
    let (heavy, light): (Vec<&Measured>, Vec<&Measured>) =
        measured.iter().partition(|m| m.cores >= HEAVY);
    let (mut heavy, mut light) = (heavy.into_iter(), light.into_iter());
    let mut order = HashMap::new();
    loop {
        let (h, l) = (heavy.next(), light.next());
        if h.is_none() && l.is_none() {
            return order;
        }
        for m in [h, l].into_iter().flatten() {
            let n = order.len();
            order.insert(m.name.as_str(), n);
        }
    }
}

/// One case's run: its wall time, the CPU time it and every process it
/// started used (when it could be measured), and its name.
struct Timing {
    took: Duration,
    cpu: Option<f64>,
    name: String,
}

/// Writes target/tmp/case-times.txt: every case's wall time, slowest first,
/// its CPU time and the cores it kept busy on average (CPU ÷ wall; a case
/// that waits for the CPU takes longer and seems lighter, so a run made one
/// case at a time measures how heavy each is).
fn write_timings(timings: &[Timing]) {
    let mut sorted: Vec<&Timing> = timings.iter().collect();
    sorted.sort_by_key(|t| std::cmp::Reverse(t.took));
    let total: Duration = sorted.iter().map(|t| t.took).sum();
    let cpu: f64 = sorted.iter().filter_map(|t| t.cpu).sum();
    let mut text = format!(
        "{} cases, {:.1} s in all, {cpu:.1} s of CPU\n",
        sorted.len(),
        total.as_secs_f64(),
    );
    for t in &sorted {
        let took = t.took.as_secs_f64();
        match t.cpu {
            Some(cpu) => text.push_str(&format!(
                "{took:8.1} s  {cpu:7.1} s CPU  {:4.2} cores  {}\n",
                cpu / took.max(0.001),
                t.name
            )),
            None => text.push_str(&format!("{took:8.1} s  {}\n", t.name)),
        }
    }
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("case-times.txt"),
        text,
    );
}
