//! How a member's server was started: whether `--force-new-cluster` is in
//! effect. Read from its command line on its HTTP face — etcd (3.4–3.7,
//! measured) serves `/debug/vars` on its client URL, where Go's expvar puts
//! the process's arguments as `cmdline`; the engine serves the same — and,
//! for a process on this machine, from /proc: its command line, its
//! environment (`ETCD_FORCE_NEW_CLUSTER`) and the config file it names.
//!
//! etcd's precedence: a config file (`--config-file`, or
//! `ETCD_CONFIG_FILE`) replaces every flag; else a flag on the command line
//! wins over its variable in the environment. `/metrics` shows no flag.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::{BoxFuture, FutureExt, Shared};

use crate::model::{Member, StartFlags};
use crate::workflow::ApiError;

/// The flag, as etcd and `memberctl node run` spell it.
const FLAG: &str = "force-new-cluster";
/// etcd's environment variable for it.
const ENV: &str = "ETCD_FORCE_NEW_CLUSTER";

/// What a command line says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Parsed {
    /// `--force-new-cluster[=BOOL]`, the last one given.
    force: Option<bool>,
    /// `--config-file FILE`.
    config_file: Option<String>,
    /// `memberctl node run`: the engine reads no `ETCD_*` environment (its
    /// `--config-file`, etcd's YAML, it reads as etcd does).
    engine: bool,
}

/// Go's `strconv.ParseBool`, which etcd's flags use.
fn go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// Reads a server's arguments (the program first), as Go's flag package
/// (`-flag` or `--flag`, `=value` or the next argument) and clap read them.
fn parse_args(args: &[String]) -> Parsed {
    let mut p = Parsed {
        engine: args.get(1).is_some_and(|a| a == "node") && args.get(2).is_some_and(|a| a == "run"),
        ..Parsed::default()
    };
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        let Some(flag) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) else {
            continue;
        };
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        match name {
            FLAG => p.force = value.map_or(Some(true), go_bool).or(p.force),
            "config-file" => {
                p.config_file = value.map(str::to_string).or_else(|| rest.next().cloned());
            }
            _ => {}
        }
    }
    p
}

/// `force-new-cluster: VALUE` in etcd's YAML config file, if set (YAML's
/// booleans, as etcd's YAML reader takes them).
fn from_config(text: &str) -> Option<bool> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(FLAG)?.trim_start().strip_prefix(':')?;
        let value = value.split('#').next().unwrap_or("").trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        match value.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "y" => Some(true),
            _ => Some(false),
        }
    })
}

/// A variable of a NUL-separated environment (/proc/PID/environ).
fn env_var(environ: &[u8], name: &str) -> Option<String> {
    environ.split(|b| *b == 0).find_map(|kv| {
        let kv = String::from_utf8_lossy(kv);
        let (k, v) = kv.split_once('=')?;
        (k == name).then(|| v.to_string())
    })
}

/// What /proc shows of the process on this machine that serves `client_url`.
#[derive(Debug, Default)]
struct Local {
    pid: u32,
    args: Option<Vec<String>>,
    /// Its environment, when this user may read it.
    environ: Option<Vec<u8>>,
    cwd: Option<PathBuf>,
}

/// The process on this machine that listens on `client_url`'s address, if
/// the address is one of this machine's and the process table says which it
/// is (`argv`: the command line it published, to look at its processes
/// first).
fn local_process(
    table: &crate::link::Processes,
    client_url: &str,
    argv: Option<&[String]>,
) -> Option<Local> {
    let url = url::Url::parse(client_url).ok()?;
    let port = url.port_or_known_default()?;
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    // An address is this machine's when a socket can be bound to it.
    let pid = (host, port)
        .to_socket_addrs()
        .ok()?
        .find_map(|addr: SocketAddr| {
            std::net::UdpSocket::bind(SocketAddr::new(addr.ip(), 0)).ok()?;
            table.listening_pid(addr, argv)
        })?;
    let dir = PathBuf::from(format!("/proc/{pid}"));
    Some(Local {
        pid,
        args: table.command_line(pid),
        environ: std::fs::read(dir.join("environ")).ok(),
        cwd: std::fs::read_link(dir.join("cwd")).ok(),
    })
}

/// How long a reading (the process table, a server's start flags) answers
/// later questions: those of one command's moment (`member status`'s
/// members, one change's pre-flight checks). A process that asks again
/// later (autopilot, for its next change) reads again: a member may have
/// been restarted since, under another pid and with other flags.
const READING_FRESH: std::time::Duration = std::time::Duration::from_secs(1);

/// This machine's process table, read once and then shared by every
/// member's question of the moment (each one's lookup reads its own
/// candidates' descriptors only). The reading starts on a blocking thread
/// as soon as a member is asked about, while its `/debug/vars` is fetched.
#[derive(Default)]
pub(super) struct ProcessTable(std::sync::Mutex<Option<(std::time::Instant, Reading)>>);

/// The table being read (or read), for every member that waits on it.
pub(super) type Reading = Shared<BoxFuture<'static, Arc<crate::link::Processes>>>;

impl std::fmt::Debug for ProcessTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProcessTable")
    }
}

impl ProcessTable {
    /// The table: its reading starts now unless a question of the last
    /// [`READING_FRESH`] started it.
    pub(super) fn reading(&self) -> Reading {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some((at, reading)) if at.elapsed() <= READING_FRESH => reading.clone(),
            _ => {
                let read = tokio::task::spawn_blocking(crate::link::Processes::read);
                let reading = async move {
                    Arc::new(
                        read.await
                            .unwrap_or_else(|_| crate::link::Processes::empty()),
                    )
                }
                .boxed()
                .shared();
                *slot = Some((std::time::Instant::now(), reading.clone()));
                reading
            }
        }
    }
}

/// A server's start flags being read (or read), for every question about it.
pub(super) type Gathering = Shared<BoxFuture<'static, Arc<Gathered>>>;

/// What is being read, or was, about each client URL's server: a member's
/// question finds the reading a [prefetch](crate::workflow::MembershipApi::prefetch_start_flags)
/// started, and each URL is read once per moment ([`READING_FRESH`]).
#[derive(Default)]
pub(super) struct Readings(
    std::sync::Mutex<std::collections::HashMap<String, (std::time::Instant, Gathering)>>,
);

impl std::fmt::Debug for Readings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Readings")
    }
}

impl Readings {
    /// The reading of `url`: the one started in the last [`READING_FRESH`],
    /// else `start()` spawned now (so that it goes on while the caller does
    /// other work).
    pub(super) fn of(
        &self,
        url: &str,
        start: impl FnOnce() -> BoxFuture<'static, Gathered>,
    ) -> Gathering {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, reading)) = map.get(url) {
            if at.elapsed() <= READING_FRESH {
                return reading.clone();
            }
        }
        let task = tokio::spawn(start());
        let reading = async move {
            Arc::new(
                task.await
                    .unwrap_or_else(|e| Gathered::failed(format!("its reading stopped: {e}"))),
            )
        }
        .boxed()
        .shared();
        map.insert(
            url.to_string(),
            (std::time::Instant::now(), reading.clone()),
        );
        reading
    }
}

/// The `cmdline` of a `/debug/vars` document.
fn debug_vars_args(body: &str) -> Result<Vec<String>, String> {
    let doc: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("/debug/vars is not JSON: {e}"))?;
    doc["cmdline"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .ok_or_else(|| "/debug/vars has no cmdline".to_string())
}

/// Judges what was read: the command line (and where it came from), and
/// the local process when there is one.
fn judge(
    args: &[String],
    args_from: &str,
    local: Option<&Local>,
    read_file: impl Fn(&Path) -> Option<String>,
) -> Result<StartFlags, String> {
    let parsed = parse_args(args);
    let environ = local.and_then(|l| l.environ.as_deref());
    let env_config = environ
        .filter(|_| !parsed.engine)
        .and_then(|e| env_var(e, "ETCD_CONFIG_FILE"))
        .filter(|v| !v.is_empty());
    if let Some(file) = parsed.config_file.clone().or(env_config) {
        let path = match (
            Path::new(&file).is_absolute(),
            local.and_then(|l| l.cwd.as_ref()),
        ) {
            (false, Some(cwd)) => cwd.join(&file),
            _ => PathBuf::from(&file),
        };
        let text = read_file(&path).ok_or_else(|| {
            format!("it reads its flags from the config file {file}, which cannot be read here")
        })?;
        return Ok(StartFlags {
            force_new_cluster: from_config(&text).unwrap_or(false),
            source: format!("its config file {}", path.display()),
            complete: true,
        });
    }
    if let Some(force) = parsed.force {
        return Ok(StartFlags {
            force_new_cluster: force,
            source: format!("its command line ({args_from})"),
            complete: true,
        });
    }
    if parsed.engine {
        return Ok(StartFlags {
            force_new_cluster: false,
            source: format!("its command line ({args_from})"),
            complete: true,
        });
    }
    match (local, environ) {
        (Some(l), Some(e)) => Ok(match env_var(e, ENV) {
            Some(v) => StartFlags {
                force_new_cluster: go_bool(&v).unwrap_or(false),
                source: format!("its environment ({ENV} in /proc/{}/environ)", l.pid),
                complete: true,
            },
            None => StartFlags {
                force_new_cluster: false,
                source: format!(
                    "its command line ({args_from}) and environment (/proc/{}/environ)",
                    l.pid
                ),
                complete: true,
            },
        }),
        _ => Ok(StartFlags {
            force_new_cluster: false,
            source: format!(
                "its command line ({args_from}); its environment cannot be read from here, \
                 so {ENV} there would not be seen"
            ),
            complete: false,
        }),
    }
}

/// What was read about the server at one client URL: the command line its
/// `/debug/vars` gives, and its process on this machine where that command
/// line leaves the answer open.
#[derive(Debug)]
pub(super) struct Gathered {
    /// The command line from `/debug/vars`: Err(outer) when the page could
    /// not be read, Err(inner) when it names none.
    from_vars: Result<Result<Vec<String>, String>, String>,
    /// The local process serving the URL, when /proc was needed and says.
    local: Option<Local>,
}

impl Gathered {
    /// Nothing could be read: `why`.
    pub(super) fn failed(why: String) -> Gathered {
        Gathered {
            from_vars: Err(why),
            local: None,
        }
    }
}

/// Reads what tells how the server at client URL `url` was started: its
/// `/debug/vars` (`vars`, being fetched), and /proc when the process is on
/// this machine (`table`: the machine's process table, read at most once
/// per command whatever the number of members asked about).
pub(super) async fn gather(
    url: String,
    vars: impl std::future::Future<Output = Result<String, String>>,
    table: Reading,
) -> Gathered {
    let from_vars = vars.await.map(|body| debug_vars_args(&body));
    // /proc is looked at only when the command line leaves it open: not
    // read, or etcd's without the flag or with a config file (its
    // environment or the file decide).
    let settled = matches!(&from_vars, Ok(Ok(args)) if {
        let p = parse_args(args);
        p.config_file.is_none() && (p.engine || p.force.is_some())
    });
    let local = if settled {
        None
    } else {
        let argv = match &from_vars {
            Ok(Ok(args)) => Some(args.clone()),
            _ => None,
        };
        let table = table.await;
        tokio::task::spawn_blocking(move || local_process(&table, &url, argv.as_deref()))
            .await
            .ok()
            .flatten()
    };
    Gathered { from_vars, local }
}

/// How `member` was started, judged from what was read at its first
/// client URL ([`gather`]).
pub(super) fn judge_member(member: &Member, read: &Gathered) -> Result<StartFlags, ApiError> {
    let (args, from) = match &read.from_vars {
        Ok(Ok(args)) => (args.clone(), "/debug/vars".to_string()),
        Ok(Err(why)) | Err(why) => match read
            .local
            .as_ref()
            .and_then(|l| l.args.clone().map(|a| (a, l.pid)))
        {
            Some((args, pid)) => (args, format!("/proc/{pid}/cmdline")),
            None => {
                return Err(super::unavailable(format!(
                    "{}: its command line cannot be read: {why}",
                    member.label()
                )))
            }
        },
    };
    let read_file = |p: &Path| std::fs::read_to_string(p).ok();
    judge(&args, &from, read.local.as_ref(), read_file)
        .map_err(|e| super::unavailable(format!("{}: {e}", member.label())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server's start flags are read once for the questions of a moment
    /// (a prefetch and the member's question), and again once that moment
    /// is past (autopilot's next change: the member may have restarted).
    #[tokio::test]
    async fn a_reading_answers_the_questions_of_a_moment_only() {
        let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let readings = Readings::default();
        let start = || {
            let started = started.clone();
            move || {
                started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async { Gathered::failed("not read".into()) }.boxed()
            }
        };
        let first = readings.of("http://a:2379", start()).await;
        let again = readings.of("http://a:2379", start()).await;
        assert!(Arc::ptr_eq(&first, &again));
        readings.of("http://b:2379", start()).await;
        assert_eq!(started.load(std::sync::atomic::Ordering::SeqCst), 2);
        // The first reading, aged past the moment: read again.
        let past = std::time::Instant::now() - READING_FRESH - std::time::Duration::from_millis(1);
        readings
            .0
            .lock()
            .unwrap()
            .get_mut("http://a:2379")
            .unwrap()
            .0 = past;
        let later = readings.of("http://a:2379", start()).await;
        assert!(!Arc::ptr_eq(&first, &later));
        assert_eq!(started.load(std::sync::atomic::Ordering::SeqCst), 3);
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn no_file(_: &Path) -> Option<String> {
        None
    }

    #[test]
    fn the_flag_is_read_as_go_and_clap_read_it() {
        let f = |l: &str| parse_args(&args(l)).force;
        assert_eq!(f("etcd --name a --force-new-cluster"), Some(true));
        assert_eq!(f("etcd -force-new-cluster"), Some(true));
        assert_eq!(f("etcd --force-new-cluster=false"), Some(false));
        assert_eq!(
            f("etcd --force-new-cluster=T --force-new-cluster=0"),
            Some(false)
        );
        assert_eq!(f("etcd --force-new-cluster=1"), Some(true));
        assert_eq!(f("etcd --name force-new-cluster"), None);
        assert_eq!(f("etcd --force-new-cluster-bump 1"), None);
        let e = parse_args(&args("memberctl node run --name n1 --force-new-cluster"));
        assert!(e.engine);
        assert_eq!(e.force, Some(true));
        let c = parse_args(&args("etcd --config-file /etc/etcd.yml"));
        assert_eq!(c.config_file.as_deref(), Some("/etc/etcd.yml"));
        let c = parse_args(&args("etcd --config-file=e.yml"));
        assert_eq!(c.config_file.as_deref(), Some("e.yml"));
    }

    #[test]
    fn a_remote_command_line_without_the_flag_says_the_environment_was_not_seen() {
        let s = judge(&args("etcd --name a"), "/debug/vars", None, no_file).unwrap();
        assert!(!s.force_new_cluster);
        assert!(!s.complete);
        assert!(s.source.contains(ENV), "{}", s.source);
        let s = judge(
            &args("etcd --force-new-cluster"),
            "/debug/vars",
            None,
            no_file,
        )
        .unwrap();
        assert!(s.force_new_cluster && s.complete);
        assert_eq!(s.source, "its command line (/debug/vars)");
    }

    #[test]
    fn the_environment_counts_only_where_the_command_line_is_silent() {
        let local = |environ: &[u8]| Local {
            pid: 42,
            environ: Some(environ.to_vec()),
            ..Local::default()
        };
        let env = b"PATH=/bin\0ETCD_FORCE_NEW_CLUSTER=true\0";
        let s = judge(
            &args("etcd --name a"),
            "/debug/vars",
            Some(&local(env)),
            no_file,
        )
        .unwrap();
        assert!(s.force_new_cluster && s.complete);
        assert!(s.source.contains("/proc/42/environ"), "{}", s.source);
        // The command line wins over the environment, as in etcd.
        let l = local(env);
        let s = judge(
            &args("etcd --force-new-cluster=false"),
            "x",
            Some(&l),
            no_file,
        )
        .unwrap();
        assert!(!s.force_new_cluster);
        // The engine reads no environment.
        let s = judge(
            &args("memberctl node run --name n1"),
            "x",
            Some(&l),
            no_file,
        )
        .unwrap();
        assert!(!s.force_new_cluster && s.complete);
        let s = judge(&args("etcd"), "x", Some(&local(b"PATH=/bin\0")), no_file).unwrap();
        assert!(!s.force_new_cluster && s.complete);
    }

    #[test]
    fn a_config_file_replaces_the_flags_and_is_read_when_it_can_be() {
        let file = |p: &Path| {
            (p == Path::new("/srv/etcd/etcd.yml"))
                .then(|| "name: a\nforce-new-cluster: true # for now\n".to_string())
        };
        let l = Local {
            pid: 7,
            cwd: Some(PathBuf::from("/srv/etcd")),
            ..Local::default()
        };
        let line = args("etcd --config-file etcd.yml");
        let s = judge(&line, "/debug/vars", Some(&l), file).unwrap();
        assert!(s.force_new_cluster);
        assert_eq!(s.source, "its config file /srv/etcd/etcd.yml");
        let e = judge(&line, "/debug/vars", None, file).unwrap_err();
        assert!(e.contains("config file etcd.yml"), "{e}");
        assert_eq!(from_config("force-new-cluster: false\n"), Some(false));
        assert_eq!(from_config("name: a\n"), None);
    }

    #[test]
    fn debug_vars_give_the_command_line() {
        let body = r#"{"cmdline": ["etcd","--name","a"], "memstats": {}}"#;
        assert_eq!(debug_vars_args(body).unwrap(), args("etcd --name a"));
        assert!(debug_vars_args("{}").is_err());
        assert!(debug_vars_args("404 page not found").is_err());
    }
}
