//! The change a rehearsal runs: the command after `--`, judged (it must be
//! `memberctl member …`), then run as a child process of this same
//! executable, its JSON output and catch-up progress lines read as they come.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};

use super::model::{ChangeResult, ProgressLine};
use crate::error::Error;

/// Checks the command after `--`: present, `memberctl` first (a path whose
/// file is named `memberctl` too), then `member` and a subcommand.
pub fn judge(command: &[String]) -> Result<(), Error> {
    let example = "e.g. `memberctl cluster rehearse -- memberctl member replace n3 --name n4 \
                   --peer-urls http://127.0.0.1:23804 --start-local`";
    let Some(first) = command.first() else {
        return Err(Error::usage(format!(
            "cluster rehearse: no change to rehearse; give it after `--`, {example}"
        )));
    };
    let named = Path::new(first)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("");
    if named != "memberctl" {
        return Err(Error::usage(format!(
            "cluster rehearse: the change must be a memberctl command, not {first:?}: \
             rehearse runs this memberctl's own `member …` commands; {example}"
        )));
    }
    match command.get(1).map(String::as_str) {
        Some("member") if command.len() > 2 => Ok(()),
        other => Err(Error::usage(format!(
            "cluster rehearse: the change must be `memberctl member …` (a membership change), \
             not `memberctl {}`; {example}",
            other.unwrap_or("")
        ))),
    }
}

/// The last error a `-w json` error document on stderr or stdout carried.
fn error_message(doc: &serde_json::Value) -> Option<String> {
    doc.get("error")
        .and_then(|e| e.get("message").or(Some(e)))
        .and_then(|m| m.as_str().map(str::to_string))
}

/// Runs `command` (its first word replaced by this executable) against the
/// cluster in `dir`, with JSON output unless it asks otherwise; each
/// catch-up progress line is pushed on `progress` as it comes, every other
/// stderr line handed to `notice`. Killed after `timeout`.
pub async fn run(
    command: &[String],
    dir: &Path,
    began: Instant,
    timeout: Duration,
    progress: Arc<Mutex<Vec<ProgressLine>>>,
    notice: &(dyn Fn(&str) + Sync),
) -> Result<ChangeResult, Error> {
    let exe = std::env::current_exe().map_err(|e| {
        Error::new(
            crate::error::ErrorKind::Internal,
            format!("cannot find the memberctl executable: {e}"),
        )
    })?;
    let mut cmd = tokio::process::Command::new(exe);
    cmd.args(&command[1..])
        .env("MEMBERCTL_CLUSTER_DIR", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if std::env::var_os("MEMBERCTL_WRITE_OUT").is_none() {
        cmd.env("MEMBERCTL_WRITE_OUT", "json");
    }
    let mut child = cmd.spawn().map_err(|e| {
        Error::new(
            crate::error::ErrorKind::Internal,
            format!("cannot start the change `{}`: {e}", command.join(" ")),
        )
    })?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read_out = async {
        let mut text = String::new();
        if let Some(out) = stdout {
            let mut lines = BufReader::new(out).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                text.push_str(&l);
                text.push('\n');
            }
        }
        text
    };
    let read_err = async {
        let mut last: Option<String> = None;
        if let Some(err) = stderr {
            let mut lines = BufReader::new(err).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                let doc: Option<serde_json::Value> = l
                    .trim_start()
                    .starts_with('{')
                    .then(|| serde_json::from_str(&l).ok())
                    .flatten();
                match doc {
                    Some(d) if d.get("catch_up").is_some() => {
                        progress
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(ProgressLine {
                                at_s: began.elapsed().as_secs_f64(),
                                catch_up: d["catch_up"].clone(),
                            });
                    }
                    Some(d) => {
                        if let Some(m) = error_message(&d) {
                            last = Some(m);
                        }
                    }
                    None => {
                        notice(&format!("change: {}", l.trim_start_matches("memberctl: ")));
                        if !l.trim().is_empty() {
                            last = Some(l.trim_start_matches("memberctl: ").to_string());
                        }
                    }
                }
            }
        }
        last
    };
    let wait = async {
        match tokio::time::timeout(timeout, child.wait()).await {
            Ok(Ok(status)) => Ok(status.code()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => {
                let _ = child.kill().await;
                Err(format!(
                    "the change did not end within {}: stopped",
                    humantime::format_duration(timeout)
                ))
            }
        }
    };
    let (text, last, status) = tokio::join!(read_out, read_err, wait);
    let output: Option<serde_json::Value> = serde_json::from_str(text.trim()).ok();
    let (exit_code, waited) = match status {
        Ok(code) => (code, None),
        Err(why) => (None, Some(why)),
    };
    let ok = exit_code == Some(0);
    let error = if ok {
        None
    } else {
        waited
            .or_else(|| output.as_ref().and_then(error_message))
            .or(last)
            .or_else(|| Some("the change was killed by a signal".into()))
    };
    Ok(ChangeResult {
        command: command.to_vec(),
        exit_code,
        ok,
        error,
        output,
    })
}
