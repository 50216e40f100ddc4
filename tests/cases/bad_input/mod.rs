//! The bad-input matrix: malformed and hostile arguments against real etcd and against the memberctl engine; every case checks the exit code, a message naming the problem, and a member list left byte-identical. This file runs the matrix; the cases are in `urls` and `refusals`, their context in `ctx`, the two servers' tests in `engine` and `etcd`.

mod ctx;
mod engine;
mod etcd;
mod refusals;
mod urls;

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::util::local::Local;
use crate::util::{self, free_port, wait_for, Etcd, Run};
use ctx::{free_url, member_list, Ctx};

/// The error kind of the JSON error document for each exit code.
fn kind_of(code: i32) -> &'static str {
    match code {
        1 => "internal",
        2 => "usage",
        3 => "refused",
        4 => "timeout",
        5 => "unavailable",
        6 => "unsupported",
        _ => "none",
    }
}

/// One row of the matrix.
struct Case {
    /// What the row is about, for failure reports.
    what: &'static str,
    args: Vec<OsString>,
    /// The documented exit code.
    code: i32,
    /// Text the message must contain (stdout for a successful dry run).
    needle: String,
    /// A clap error: its JSON document has only clap's kind, so the needle is looked for on stderr.
    clap: bool,
    /// Text that must appear nowhere (a password).
    secret: Option<String>,
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn case(what: &'static str, args: &[&str], code: i32, needle: impl Into<String>) -> Case {
    case_os(what, os(args), code, needle)
}

fn case_os(what: &'static str, args: Vec<OsString>, code: i32, needle: impl Into<String>) -> Case {
    Case {
        what,
        args,
        code,
        needle: needle.into(),
        clap: false,
        secret: None,
    }
}

impl Case {
    fn clap(mut self) -> Self {
        self.clap = true;
        self
    }

    fn secret(mut self, s: &str) -> Self {
        self.secret = Some(s.to_string());
        self
    }
}

/// A text shortened for a failure report.
fn short(s: &str) -> String {
    let mut end = s.len().min(300);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end < s.len() {
        format!("{}… ({} bytes)", &s[..end], s.len())
    } else {
        s.to_string()
    }
}

/// The server a matrix runs against.
enum Server<'a> {
    Engine(&'a Local),
    Etcd(&'a Etcd),
}

impl Server<'_> {
    fn name(&self) -> &'static str {
        match self {
            Server::Engine(_) => "the memberctl engine",
            Server::Etcd(_) => "etcd",
        }
    }

    fn engine(&self) -> bool {
        matches!(self, Server::Engine(_))
    }

    /// memberctl aimed at this server (unless the arguments name their own endpoints).
    fn command(&self, args: &[OsString]) -> Command {
        let own = args.iter().any(|a| a == "--endpoints");
        let mut c = util::memberctl_command(&[]);
        match self {
            Server::Engine(local) => {
                c.env("MEMBERCTL_CLUSTER_DIR", local.dir());
            }
            Server::Etcd(etcd) if !own => {
                c.arg("--endpoints").arg(etcd.endpoints());
            }
            Server::Etcd(_) => {}
        }
        c.args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Run {
        util::run(&mut self.command(&os(args)))
    }

    /// `member list -w json` as printed: the snapshot every case must leave unchanged.
    fn list(&self, login: &[&str]) -> String {
        let mut args = login.to_vec();
        args.extend(["member", "list", "-w", "json"]);
        self.run(&args).expect(0).stdout
    }

    /// Runs every case and checks it; returns how many ran. Panics with every failure at once.
    fn matrix(&self, phase: &str, cases: &[Case], login: &[&str]) -> usize {
        let before = self.list(login);
        let mut failures = Vec::new();
        for c in cases {
            let mut args = c.args.clone();
            let json = !args.iter().any(|a| a == "-w");
            if json {
                args.extend(os(&["-w", "json"]));
            }
            let r = util::run(&mut self.command(&args));
            let mut wrong = Vec::new();
            if r.code != c.code {
                wrong.push(format!("exit code {} (wanted {})", r.code, c.code));
            }
            if r.stderr.contains("panicked") {
                wrong.push("it panicked".to_string());
            }
            if r.stderr.len() > 4096 {
                wrong.push(format!("{} bytes on stderr", r.stderr.len()));
            }
            if let Some(secret) = &c.secret {
                if r.stdout.contains(secret) || r.stderr.contains(secret) {
                    wrong.push("the secret was printed".to_string());
                }
            }
            if c.code == 0 {
                if !r.stdout.contains(&c.needle) {
                    wrong.push(format!("stdout does not contain {:?}", c.needle));
                }
            } else {
                if !r.stderr.contains(&c.needle) {
                    wrong.push(format!("stderr does not name the problem ({:?})", c.needle));
                }
                if json {
                    match serde_json::from_str::<Value>(&r.stdout) {
                        Ok(doc) => {
                            let err = &doc["error"];
                            if err["kind"] != kind_of(c.code) {
                                wrong.push(format!("JSON error kind {}", err["kind"]));
                            }
                            let mut text = err["message"].as_str().unwrap_or("").to_string();
                            for p in err["problems"].as_array().into_iter().flatten() {
                                text.push('\n');
                                text.push_str(p.as_str().unwrap_or(""));
                            }
                            if !c.clap && !text.contains(&c.needle) {
                                wrong.push(format!(
                                    "the JSON error does not name the problem ({:?})",
                                    c.needle
                                ));
                            }
                        }
                        Err(e) => wrong.push(format!("stdout is not a JSON document ({e})")),
                    }
                }
            }
            let after = self.list(login);
            if after != before {
                wrong.push(format!(
                    "the member list changed:\nbefore {before}\nafter {after}"
                ));
            }
            if !wrong.is_empty() {
                let shown: Vec<String> =
                    c.args.iter().map(|a| short(&a.to_string_lossy())).collect();
                failures.push(format!(
                    "[{phase}] {}: memberctl {}\n  {}\n  stdout: {}\n  stderr: {}",
                    c.what,
                    shown.join(" "),
                    wrong.join("\n  "),
                    short(&r.stdout),
                    short(&r.stderr)
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} cases failed against {}:\n{}",
            failures.len(),
            cases.len(),
            self.name(),
            failures.join("\n\n")
        );
        cases.len()
    }
}

/// Phase A: one voter and one learner that was added but never started.
fn phase_a(server: &Server, dir: &Path) -> (Ctx, usize) {
    let peer = free_url();
    server
        .run(&[
            "--command-timeout",
            "20s",
            "member",
            "add",
            "unstarted",
            "--learner",
            "--peer-urls",
            &peer,
        ])
        .expect(0);
    let ctx = Ctx::new(server.engine(), &server.list(&[]), dir);
    let mut cases = urls::add_cases(&ctx);
    cases.extend(urls::update_cases(&ctx));
    cases.extend(refusals::joint_cases(&ctx));
    cases.extend(refusals::member_cases(&ctx));
    cases.extend(refusals::flag_cases(&ctx));
    let n = server.matrix("one voter, one unstarted learner", &cases, &[]);
    (ctx, n)
}

/// Between phases A and B: removes the unstarted learner and adds one named
/// like the voter's ID; its `member add -w json` document and peer port.
fn add_learner_named_like_the_voter(server: &Server, ctx: &Ctx) -> (Value, u16) {
    server.run(&["member", "remove", &ctx.learner_id]).expect(0);
    let port = free_port();
    let added = server
        .run(&[
            "--command-timeout",
            "20s",
            "member",
            "add",
            &ctx.voter_id,
            "--learner",
            "--peer-urls",
            &format!("http://127.0.0.1:{port}"),
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    (added, port)
}

/// Phase B, once that learner has been started: the voter's ID is also a name.
fn phase_b(server: &Server, ctx: &Ctx) -> usize {
    wait_for(
        "the learner named like the voter's ID to start",
        Duration::from_secs(30),
        || {
            member_list(&server.list(&[]))
                .iter()
                .any(|m| m["name"] == ctx.voter_id.as_str())
                .then_some(())
        },
    );
    server.matrix(
        "a learner named like the voter's ID",
        &refusals::ambiguous_cases(ctx),
        &[],
    )
}

/// The matrix's cases: on the engine and against etcd.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    [engine::cases(), etcd::cases()]
        .into_iter()
        .flatten()
        .collect()
}
