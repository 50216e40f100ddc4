//! An etcdctl process (`watch`, `lock`, `elect`) whose output lines are read as they come.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// An etcdctl process whose output lines are read as they come.
pub struct Streamed {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Streamed {
    /// The process's ID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts etcdctl against `eps` with `args`.
    pub fn start(etcdctl: &std::path::Path, eps: &str, args: &[&str]) -> Streamed {
        let mut child = Command::new(etcdctl)
            .env("ETCDCTL_API", "3")
            .arg(format!("--endpoints={eps}"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start etcdctl");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Streamed { child, lines }
    }

    /// The next `n` lines, waiting at most `limit` in all.
    pub fn take(&self, n: usize, limit: Duration) -> Vec<String> {
        let deadline = std::time::Instant::now() + limit;
        let mut got = Vec::new();
        while got.len() < n {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => got.push(l),
                Err(_) => break,
            }
        }
        got
    }
}

impl Drop for Streamed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
