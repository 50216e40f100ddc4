//! The autopilots that watch a local cluster, known by their pid files
//! (`<cluster dir>/autopilots/NAME.pid`): `memberctl autopilot` writes its
//! own while it watches the local cluster and removes it when it stops;
//! `cluster chaos` reads them to kill the acting autopilot (`kill -9`) and
//! to start it again exactly as it was started (its command line,
//! environment, working directory, and its output appended to the same files).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, ErrorKind};

/// The folder of the pid files in a cluster directory.
pub const FOLDER: &str = "autopilots";

/// This autopilot's pid file while it runs; removed when dropped.
pub struct Registration {
    path: PathBuf,
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Only our own: a restarted namesake may have written its pid since.
        let ours = std::fs::read_to_string(&self.path)
            .is_ok_and(|s| s.trim() == std::process::id().to_string());
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Writes `<dir>/autopilots/NAME.pid` with this process's pid.
pub fn register(dir: &Path, name: &str) -> Result<Registration, Error> {
    let folder = dir.join(FOLDER);
    let path = folder.join(format!("{}.pid", file_name(name)));
    std::fs::create_dir_all(&folder)
        .and_then(|_| std::fs::write(&path, format!("{}\n", std::process::id())))
        .map_err(|e| {
            Error::new(
                ErrorKind::Internal,
                format!("cannot write the pid file {}: {e}", path.display()),
            )
        })?;
    Ok(Registration { path })
}

/// A name as a file name (no slashes).
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect()
}

/// An autopilot that runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Running {
    /// Its name (`--name`), from its pid file's name.
    pub name: String,
    /// Its process.
    pub pid: u32,
}

/// The autopilots of `dir` whose pid file names a running `memberctl autopilot`.
pub fn running(dir: &Path) -> Vec<Running> {
    let Ok(entries) = std::fs::read_dir(dir.join(FOLDER)) else {
        return vec![];
    };
    let mut out: Vec<Running> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let file = e.file_name().into_string().ok()?;
            let name = file.strip_suffix(".pid")?.to_string();
            let pid = std::fs::read_to_string(e.path())
                .ok()?
                .trim()
                .parse()
                .ok()?;
            is_autopilot(pid).then_some(Running { name, pid })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Whether `pid` is a live `memberctl … autopilot …`.
fn is_autopilot(pid: u32) -> bool {
    super::super::process::alive(pid)
        && std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"autopilot"))
}

/// How a process was started, read from /proc before it is killed.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// The executable.
    pub exe: PathBuf,
    /// Its arguments (without argv\[0\]).
    pub args: Vec<OsString>,
    /// Its environment.
    pub env: Vec<(OsString, OsString)>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// The regular files its stdout and stderr wrote to, if they were files.
    pub out: Option<PathBuf>,
    /// See `out`.
    pub err: Option<PathBuf>,
}

/// Reads how `pid` was started.
pub fn recipe(pid: u32) -> Result<Recipe, Error> {
    let read = |what: &str| {
        std::fs::read(format!("/proc/{pid}/{what}")).map_err(|e| {
            Error::new(
                ErrorKind::Internal,
                format!("cannot read /proc/{pid}/{what}: {e}"),
            )
        })
    };
    let words = |b: Vec<u8>| -> Vec<OsString> {
        b.split(|c| *c == 0)
            .filter(|w| !w.is_empty())
            .map(|w| OsString::from_vec(w.to_vec()))
            .collect()
    };
    let args = words(read("cmdline")?);
    let env = words(read("environ")?)
        .into_iter()
        .filter_map(|kv| {
            let kv = kv.into_vec();
            let eq = kv.iter().position(|c| *c == b'=')?;
            Some((
                OsString::from_vec(kv[..eq].to_vec()),
                OsString::from_vec(kv[eq + 1..].to_vec()),
            ))
        })
        .collect();
    let link = |what: &str| std::fs::read_link(format!("/proc/{pid}/{what}"));
    let exe = link("exe")
        .ok()
        .filter(|p| p.exists())
        .or_else(|| std::env::current_exe().ok())
        .ok_or_else(|| Error::new(ErrorKind::Internal, "cannot find memberctl's executable"))?;
    let file = |fd: &str| link(fd).ok().filter(|p| p.is_file());
    Ok(Recipe {
        exe,
        args: args.into_iter().skip(1).collect(),
        env,
        cwd: link("cwd").unwrap_or_else(|_| PathBuf::from("/")),
        out: file("fd/1"),
        err: file("fd/2"),
    })
}

/// Sends SIGKILL to `pid` (a process found by [`running`]).
pub fn kill9(pid: u32) {
    // SAFETY: kill(2) on a pid whose command line names autopilot.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
}

/// Starts `recipe` again, detached (its own process group), its output
/// appended to the files it wrote to (else `<dir>/autopilots/NAME.out`,
/// `.err`); returns its pid.
pub fn restart(dir: &Path, name: &str, recipe: &Recipe) -> Result<u32, Error> {
    let io = |e: std::io::Error| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot start autopilot {name} again: {e}"),
        )
    };
    let open = |p: Option<&PathBuf>, ext: &str| -> Result<std::fs::File, Error> {
        let fallback = dir.join(FOLDER).join(format!("{}.{ext}", file_name(name)));
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p.unwrap_or(&fallback))
            .map_err(io)
    };
    let child = Command::new(&recipe.exe)
        .args(&recipe.args)
        .env_clear()
        .envs(recipe.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&recipe.cwd)
        .stdin(Stdio::null())
        .stdout(open(recipe.out.as_ref(), "out")?)
        .stderr(open(recipe.err.as_ref(), "err")?)
        .process_group(0)
        .spawn()
        .map_err(io)?;
    Ok(child.id())
}
