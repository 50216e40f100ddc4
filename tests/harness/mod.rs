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
    // One case per core by default; more is a choice (see [`CASES_PER_CORE`]).
    if args.test_threads.is_none() {
        args.test_threads = Some(threads());
    }
    // The slowest start first, so that the run does not end on one long case.
    slowest_first(&mut cases);
    let required = std::env::var("MEMBERCTL_REQUIRE_ETCD").is_ok_and(|v| v == "1");
    let mut looked: HashMap<Need, Result<(), String>> = HashMap::new();
    let mut missing: Vec<(String, usize)> = Vec::new();
    let mut trials = Vec::with_capacity(cases.len());
    let timings: Arc<Mutex<Vec<(Duration, String)>>> = Arc::default();
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
                Trial::test(case.name, move || {
                    let start = Instant::now();
                    run();
                    timings.lock().unwrap().push((start.elapsed(), name));
                    Ok(())
                })
            }
        });
    }
    let conclusion = libtest_mimic::run(&args, trials);
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

/// Cases run at once per core by default. Two per core (four on this
/// 2-core machine) overloaded it: a clean-clone CI run failed two cases
/// whose learners could not catch up in time (docs/testing.md).
const CASES_PER_CORE: usize = 1;

/// The slowest cases of a measured run, slowest first (`slowest.txt` beside
/// this file: one case name per line, from the head of
/// `target/tmp/case-times.txt`; refresh it when the suite changes).
const SLOWEST: &str = include_str!("slowest.txt");

/// Puts the cases [`SLOWEST`] names first, in its order; the rest keep
/// theirs. A name no case has any more is ignored.
fn slowest_first(cases: &mut [Case]) {
    let rank = |name: &str| {
        SLOWEST
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .position(|l| l == name)
            .unwrap_or(usize::MAX)
    };
    // A stable sort: unranked cases keep their order.
    cases.sort_by_key(|c| rank(&c.name));
}

/// Writes how long each passed case took, slowest first, to
/// `target/tmp/case-times.txt` (CI prints the head: where the suite's time goes).
fn write_timings(timings: &[(Duration, String)]) {
    let mut sorted = timings.to_vec();
    sorted.sort_by_key(|t| std::cmp::Reverse(t.0));
    let total: Duration = sorted.iter().map(|(d, _)| *d).sum();
    let mut text = format!(
        "{} cases, {:.1} s in all\n",
        sorted.len(),
        total.as_secs_f64()
    );
    for (took, name) in &sorted {
        text.push_str(&format!("{:8.1} s  {name}\n", took.as_secs_f64()));
    }
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("case-times.txt"),
        text,
    );
}
