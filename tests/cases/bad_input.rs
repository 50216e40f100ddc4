//! The bad-input matrix: malformed and hostile arguments against real etcd and against the memberctl engine; every case checks the exit code, a message naming the problem, and a member list left byte-identical.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::util::local::Local;
use crate::util::{self, free_port, require_etcd, wait_for, Etcd, Run};

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

/// What the cases refer to: the one voter, an unstarted learner, files and free ports.
struct Ctx {
    engine: bool,
    voter: String,
    voter_id: String,
    voter_peer: String,
    voter_client: String,
    learner_id: String,
    learner_peer: String,
    /// `host:port` of the voter's client URL (https is assumed with TLS flags).
    bare_endpoint: String,
    pki: util::tls::Pki,
    other_ca: PathBuf,
    garbage: PathBuf,
}

fn member_list(doc: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(doc).expect("member list JSON");
    v["members"].as_array().expect("members").clone()
}

fn first_url(m: &Value, key: &str) -> String {
    m[key][0].as_str().expect("a URL").to_string()
}

impl Ctx {
    fn new(engine: bool, list: &str, dir: &Path) -> Ctx {
        let members = member_list(list);
        let voter = members
            .iter()
            .find(|m| m["is_learner"] == false)
            .expect("a voter");
        let learner = members
            .iter()
            .find(|m| m["started"] == false)
            .expect("an unstarted learner");
        let voter_client = first_url(voter, "client_urls");
        let pki = util::tls::make(dir, "bad");
        let other_ca = util::tls::make(dir, "other").ca;
        let garbage = dir.join("garbage.pem");
        std::fs::write(&garbage, "this is not PEM\n").unwrap();
        Ctx {
            engine,
            voter: voter["name"].as_str().unwrap().to_string(),
            voter_id: voter["id"].as_str().unwrap().to_string(),
            voter_peer: first_url(voter, "peer_urls"),
            bare_endpoint: voter_client.trim_start_matches("http://").to_string(),
            voter_client,
            learner_id: learner["id"].as_str().unwrap().to_string(),
            learner_peer: first_url(learner, "peer_urls"),
            pki,
            other_ca,
            garbage,
        }
    }

    /// A joint-consensus case: as given on the engine, exit 6 on etcd.
    fn joint(&self, c: Case) -> Case {
        if self.engine || c.clap {
            return c;
        }
        Case {
            code: 6,
            needle: "needs the memberctl engine".into(),
            ..c
        }
    }
}

fn free_url() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// 100 KB of `a`.
fn long() -> String {
    "a".repeat(100 * 1024)
}

/// Malformed and hostile peer URLs for `member add` (learner and voter).
fn add_cases(ctx: &Ctx) -> Vec<Case> {
    let add = |url: &str| -> Vec<String> {
        ["member", "add", "x", "--learner", "--peer-urls", url]
            .map(String::from)
            .to_vec()
    };
    let c = |what, url: &str, needle: &str| {
        let args = add(url);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        case(what, &args, 3, needle)
    };
    let p = free_port();
    let u = |rest: &str| format!("http://127.0.0.1:{p}{rest}");
    let learner = &ctx.learner_peer;
    let mut non_utf8 = OsString::from(u(""));
    non_utf8.push(OsStr::from_bytes(b"\xff\xfe"));
    vec![
        c("missing port", "http://127.0.0.1", "has no port"),
        c("port 0", "http://127.0.0.1:0", "has port 0"),
        c("port 65536", "http://127.0.0.1:65536", "from 1 to 65535"),
        c(
            "port with a leading zero",
            "http://127.0.0.1:080",
            "plain number (80)",
        ),
        c(
            "IPv6 without brackets",
            "http://::1:2380",
            "without brackets",
        ),
        c("bracketed IPv6 without port", "http://[::1]", "has no port"),
        case(
            "bracketed IPv6 with port is valid (dry run)",
            &[
                "member",
                "add",
                "v6",
                "--learner",
                "--peer-urls",
                &format!("http://[::1]:{p}"),
                "--dry-run",
            ],
            0,
            "\"plan\"",
        ),
        c(
            "upper-case scheme",
            &u("").replace("http", "HTTP"),
            "in lower case",
        ),
        c("unsupported scheme", "unix://x:1", "scheme \"unix\""),
        c("not a URL", "not-a-url", "is not a URL"),
        c("no ://", &u("").replace("://", ":"), "scheme://host:port"),
        c("path", &u("/x"), "has a path"),
        c("backslash path", &u("\\x"), "has a path"),
        c("query", &u("?a=b"), "has a query"),
        c("fragment", &u("#top"), "has a fragment"),
        c(
            "user info",
            &format!("http://user:pw@127.0.0.1:{p}"),
            "user information",
        ),
        c(
            "space in the host",
            &format!("http://127.0.0 .1:{p}"),
            "white space",
        ),
        c("trailing space", &u(" "), "white space"),
        c(
            "line break inside the port",
            &format!("http://127.0.0.1:2\n{p}"),
            "control character",
        ),
        c(
            "IPv4 shorthand the parser rewrites",
            &format!("http://127.1:{p}"),
            "which URL parsers read as \"127.0.0.1\"",
        ),
        c(
            "empty list item",
            &format!("{},,{}", u(""), free_url()),
            "empty item",
        ),
        c(
            "duplicate in one list",
            &format!("{},{}", u(""), u("")),
            "given twice",
        ),
        c(
            "duplicate differing in host case",
            &format!("http://localhost:{p},http://LOCALHOST:{p}"),
            "given twice",
        ),
        c(
            "100 KB host",
            &format!("http://{}:{p}", long()),
            "at most 253",
        ),
        c("100 KB path", &u(&format!("/{}", long())), "has a path"),
        c(
            "a voter's peer URL",
            &ctx.voter_peer,
            "already a peer URL of member",
        ),
        c(
            "a voter's client URL",
            &ctx.voter_client,
            "already a client URL of member",
        ),
        c(
            "https in an http cluster",
            &u("").replace("http", "https"),
            "members use http",
        ),
        c(
            "unstarted member's URL with a fragment (not an idempotent re-add)",
            &format!("{learner}#f"),
            "has a fragment",
        ),
        c(
            "unstarted member's URL with a tab (not an idempotent re-add)",
            &format!("{learner}\t"),
            "white space",
        ),
        case(
            "unstarted learner's URLs re-added as a voter",
            &["member", "add", "x", "--peer-urls", learner],
            3,
            "already added as a learner",
        ),
        case(
            "voter add with a bad URL",
            &["member", "add", "x", "--peer-urls", "http://127.0.0.1"],
            3,
            "has no port",
        ),
        case(
            "name taken",
            &[
                "member",
                "add",
                &ctx.voter,
                "--learner",
                "--peer-urls",
                &u(""),
            ],
            3,
            "already taken",
        ),
        case(
            "name with =",
            &["member", "add", "a=b", "--learner", "--peer-urls", &u("")],
            3,
            "ETCD_INITIAL_CLUSTER",
        ),
        case(
            "empty name",
            &["member", "add", "", "--learner", "--peer-urls", &u("")],
            3,
            "name is empty",
        ),
        case(
            "too many learners (server-side)",
            &["member", "add", "x", "--learner", "--peer-urls", &u("")],
            3,
            "too many learner members",
        ),
        case_os(
            "non-UTF-8 peer URL",
            [
                os(&["member", "add", "x", "--learner", "--peer-urls"]),
                vec![non_utf8],
            ]
            .concat(),
            2,
            "invalid UTF-8",
        )
        .clap(),
        case_os(
            "non-UTF-8 name",
            vec![
                "member".into(),
                "add".into(),
                OsStr::from_bytes(b"n\xc3\x28").into(),
                "--learner".into(),
                "--peer-urls".into(),
                u("").into(),
            ],
            2,
            "invalid UTF-8",
        )
        .clap(),
        case(
            "missing --peer-urls",
            &["member", "add", "x"],
            2,
            "--peer-urls",
        )
        .clap(),
        case(
            "--learner twice",
            &[
                "member",
                "add",
                "x",
                "--learner",
                "--learner",
                "--peer-urls",
                &u(""),
            ],
            2,
            "cannot be used multiple times",
        )
        .clap(),
    ]
}

/// `member update` with bad URLs and unknown members.
fn update_cases(ctx: &Ctx) -> Vec<Case> {
    let v = ctx.voter.as_str();
    let p = free_port();
    let c = |what, target: &str, urls: &str, code, needle: &str| {
        case(
            what,
            &["member", "update", target, "--peer-urls", urls],
            code,
            needle,
        )
    };
    vec![
        c("missing port", v, "http://127.0.0.1", 3, "has no port"),
        c(
            "another member's peer URL",
            v,
            &ctx.learner_peer,
            3,
            "already a peer URL of member",
        ),
        c(
            "unknown member",
            "ghost",
            &free_url(),
            3,
            "no member has the name or ID",
        ),
        c(
            "empty list item",
            v,
            &format!("http://127.0.0.1:{p},"),
            3,
            "empty item",
        ),
        c(
            "upper-case scheme",
            v,
            &format!("HTTPS://127.0.0.1:{p}"),
            3,
            "in lower case",
        ),
        c(
            "IPv6 without brackets",
            v,
            &format!("http://fd00::4:{p}"),
            3,
            "without brackets",
        ),
        c(
            "user info",
            v,
            &format!("http://root@127.0.0.1:{p}"),
            3,
            "user information",
        ),
        c(
            "100 KB query",
            v,
            &format!("http://127.0.0.1:{p}?{}", long()),
            3,
            "has a query",
        ),
    ]
}

/// `member joint enter --add-learner` with bad URLs, and joint refusals (rules 5-7, conflicting flags).
fn joint_cases(ctx: &Ctx) -> Vec<Case> {
    let p = free_port();
    let learner = |spec: &str, code, needle: &str| {
        ctx.joint(case(
            "--add-learner",
            &["member", "joint", "enter", "--add-learner", spec],
            code,
            needle,
        ))
    };
    let mut non_utf8 = OsString::from("x=");
    non_utf8.push(OsStr::from_bytes(b"http://\x80:1"));
    let enter = |what, flags: &[&str], code, needle: &str| {
        let mut args = vec!["member", "joint", "enter"];
        args.extend_from_slice(flags);
        ctx.joint(case(what, &args, code, needle))
    };
    let (v, l) = (ctx.voter.as_str(), ctx.learner_id.as_str());
    vec![
        learner("x=http://127.0.0.1", 3, "has no port"),
        learner("x=http://::1:2380", 3, "without brackets"),
        learner("x=http://[::1]", 3, "has no port"),
        learner(&format!("x=HTTP://127.0.0.1:{p}"), 3, "in lower case"),
        learner(&format!("x=http://127.0.0.1:{p}/raft"), 3, "has a path"),
        learner(
            &format!("x=http://127.0.0.1:{p},,{}", free_url()),
            3,
            "empty item",
        ),
        learner(
            &format!("x=http://127.0.0.1:{p},http://127.0.0.1:{p}"),
            3,
            "given twice",
        ),
        learner(
            &format!("x=http://127.0.0.1:{p}, {}", free_url()),
            3,
            "white space",
        ),
        learner(&format!("x={}", ctx.voter_peer), 3, "already a peer URL"),
        learner(&format!("x=http://{}:{p}", long()), 3, "at most 253"),
        learner("no-equals-sign", 2, "is not NAME=URL"),
        learner(&format!("=http://127.0.0.1:{p}"), 3, "name is empty"),
        enter(
            "two new learners with one URL",
            &[
                "--add-learner",
                &format!("a=http://127.0.0.1:{p}"),
                "--add-learner",
                &format!("b=http://127.0.0.1:{p}"),
            ],
            3,
            "already a peer URL",
        ),
        ctx.joint(
            case_os(
                "non-UTF-8 --add-learner",
                [
                    os(&["member", "joint", "enter", "--add-learner"]),
                    vec![non_utf8],
                ]
                .concat(),
                2,
                "invalid UTF-8",
            )
            .clap(),
        ),
        ctx.joint(case(
            "leave while not joint",
            &["member", "joint", "leave"],
            3,
            "not joint",
        )),
        enter("no change", &[], 2, "give at least one of"),
        enter("promote a voter", &["--promote", v], 3, "already a voter"),
        enter("demote a learner", &["--demote", l], 3, "already a learner"),
        enter(
            "conflicting flags: demote and remove one member",
            &["--demote", v, "--remove", v],
            2,
            "to both --demote and --remove",
        ),
        enter(
            "the same member twice",
            &["--promote", l, "--promote", l],
            2,
            "twice to --promote",
        ),
        enter("remove the only voter", &["--remove", v], 3, "no voter"),
        enter(
            "promote a learner that has not caught up",
            &["--promote", l],
            3,
            "rule 6",
        ),
        enter(
            "unknown member",
            &["--remove", "ghost"],
            3,
            "no member has the name or ID",
        ),
    ]
}

/// Unknown and unsuitable members for promote and remove.
fn member_cases(ctx: &Ctx) -> Vec<Case> {
    let (v, l) = (ctx.voter.as_str(), ctx.learner_id.as_str());
    let unknown = "no member has the name or ID";
    vec![
        case(
            "unknown hex ID",
            &["member", "promote", "0000000000000001", "--no-wait"],
            3,
            unknown,
        ),
        case("unknown name", &["member", "remove", "ghost"], 3, unknown),
        case(
            "17 hex digits",
            &["member", "remove", "00000000000000001"],
            3,
            unknown,
        ),
        case("empty target", &["member", "remove", ""], 3, unknown),
        case("100 KB target", &["member", "remove", &long()], 3, unknown),
        case(
            "promote a voter",
            &["member", "promote", v, "--no-wait"],
            3,
            "already a voter",
        ),
        case(
            "remove the last voter",
            &["member", "remove", v],
            3,
            "rule 4",
        ),
        case(
            "remove the last voter with --force (server-side)",
            &["member", "remove", v, "--force"],
            3,
            "not enough started members",
        ),
        case(
            "promote a learner that never started (server-side)",
            &["member", "promote", l, "--no-wait"],
            3,
            "in sync with leader",
        ),
        case(
            "remove dry run changes nothing",
            &["member", "remove", l, "--dry-run"],
            0,
            "\"plan\"",
        ),
        case(
            "bad --timeout",
            &["member", "promote", l, "--timeout", "soon"],
            2,
            "duration",
        )
        .clap(),
        case(
            "two targets",
            &["member", "remove", v, l],
            2,
            "unexpected argument",
        )
        .clap(),
        case(
            "unknown subcommand",
            &["member", "frobnicate"],
            2,
            "unrecognized subcommand",
        )
        .clap(),
    ]
}

/// Global flags: endpoints, TLS material, credentials, output format, timeouts.
fn flag_cases(ctx: &Ctx) -> Vec<Case> {
    let port = free_port().to_string();
    let dead = format!("127.0.0.1:{port}");
    let ep = ctx.bare_endpoint.as_str();
    let (ca, cert, key) = (
        path(&ctx.pki.ca),
        path(&ctx.pki.client_cert),
        path(&ctx.pki.client_key),
    );
    let (other, garbage) = (path(&ctx.other_ca), path(&ctx.garbage));
    let wrong_user = if ctx.engine {
        case(
            "credentials for a server without authentication",
            &["--user", "root:not-the-pw", "member", "list"],
            6,
            "does not support authentication",
        )
    } else {
        case(
            "credentials for a cluster without authentication",
            &["--user", "root:not-the-pw", "member", "list"],
            3,
            "authentication is not enabled",
        )
    };
    vec![
        case(
            "unreachable endpoint",
            &["--endpoints", &dead, "member", "list"],
            5,
            port.as_str(),
        ),
        case(
            "unreachable endpoint for a change",
            &[
                "--endpoints",
                &dead,
                "member",
                "add",
                "x",
                "--learner",
                "--peer-urls",
                &free_url(),
            ],
            5,
            port.as_str(),
        ),
        case(
            "endpoint with another scheme",
            &["--endpoints", "ftp://127.0.0.1:1", "member", "list"],
            2,
            "scheme \"ftp\"",
        ),
        case(
            "unreadable --cacert",
            &["--cacert", "/nonexistent/ca.pem", "member", "list"],
            2,
            "cannot read --cacert",
        ),
        case(
            "--cert without --key",
            &["--endpoints", ep, "--cert", cert, "member", "list"],
            2,
            "--cert and --key go together",
        ),
        case(
            "--cacert that is not PEM",
            &["--endpoints", ep, "--cacert", garbage, "member", "list"],
            2,
            "--cacert",
        ),
        case(
            "--cert that is not PEM",
            &[
                "--endpoints",
                ep,
                "--cert",
                garbage,
                "--key",
                key,
                "member",
                "list",
            ],
            2,
            "--cert",
        ),
        case(
            "--key that is not a key",
            &[
                "--endpoints",
                ep,
                "--cert",
                cert,
                "--key",
                ca,
                "member",
                "list",
            ],
            2,
            "no PEM private key",
        ),
        case(
            "TLS to a plain-text server",
            &[
                "--endpoints",
                ep,
                "--cacert",
                other,
                "--cert",
                cert,
                "--key",
                key,
                "member",
                "list",
            ],
            5,
            "check --cacert",
        ),
        case(
            "unverified TLS to a plain-text server",
            &[
                "--endpoints",
                ep,
                "--insecure-skip-tls-verify",
                "member",
                "remove",
                &ctx.voter,
            ],
            5,
            "check --cacert",
        ),
        case(
            "--password without --user",
            &["--password", "x", "member", "list"],
            2,
            "--password needs --user",
        ),
        case(
            "--user without a name",
            &["--user", ":pw", "member", "list"],
            2,
            "--user needs a user name",
        ),
        case(
            "--user without a password and no terminal",
            &["--user", "root", "member", "list"],
            2,
            "no password",
        ),
        wrong_user.secret("not-the-pw"),
        case(
            "unknown output format",
            &["member", "list", "-w", "xml"],
            2,
            "invalid value",
        )
        .clap(),
        case(
            "zero command timeout",
            &["--command-timeout", "0s", "member", "list"],
            2,
            "greater than zero",
        )
        .clap(),
    ]
}

/// Cases that need the voter's ID to be also the name of another member.
fn ambiguous_cases(ctx: &Ctx) -> Vec<Case> {
    let id = ctx.voter_id.as_str();
    let needle = "is both the name of member";
    vec![
        case("ambiguous remove", &["member", "remove", id], 2, needle),
        case(
            "ambiguous promote",
            &["member", "promote", id, "--no-wait"],
            2,
            needle,
        ),
        case(
            "ambiguous update",
            &["member", "update", id, "--peer-urls", &free_url()],
            2,
            needle,
        ),
        ctx.joint(case(
            "ambiguous joint remove",
            &["member", "joint", "enter", "--remove", id],
            2,
            needle,
        )),
        case(
            "too many learners (a started one)",
            &[
                "member",
                "add",
                "x",
                "--learner",
                "--peer-urls",
                &free_url(),
            ],
            3,
            "too many learner members",
        ),
    ]
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
    let mut cases = add_cases(&ctx);
    cases.extend(update_cases(&ctx));
    cases.extend(joint_cases(&ctx));
    cases.extend(member_cases(&ctx));
    cases.extend(flag_cases(&ctx));
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
        &ambiguous_cases(ctx),
        &[],
    )
}

/// The engine: the whole matrix on a one-voter `cluster up`, then refusals while joint.
#[test]
fn bad_input_matrix_on_the_engine() {
    let started = std::time::Instant::now();
    let local = Local::up(&["--nodes", "1"]);
    let server = Server::Engine(&local);
    let tmp = tempfile::tempdir().unwrap();
    let (ctx, mut n) = phase_a(&server, tmp.path());
    add_learner_named_like_the_voter(&server, &ctx);
    let r = local.ctl(&["cluster", "start-node", &ctx.voter_id]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    n += phase_b(&server, &ctx);

    // Phase C: a joint configuration is open (the started learner promoted into it).
    let list = server.list(&[]);
    let learner = member_list(&list)
        .into_iter()
        .find(|m| m["name"] == ctx.voter_id.as_str())
        .expect("the started learner");
    let learner_id = learner["id"].as_str().unwrap().to_string();
    let learner_peer = first_url(&learner, "peer_urls");
    let r = server.run(&[
        "member",
        "joint",
        "enter",
        "--promote",
        &learner_id,
        "--force",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, local.logs());
    let v = ctx.voter.as_str();
    let open = "joint configuration is open";
    let joint = vec![
        case(
            "joint enter while joint",
            &["member", "joint", "enter", "--demote", v],
            3,
            "rule 5",
        ),
        case(
            "joint enter with a bad URL while joint",
            &[
                "member",
                "joint",
                "enter",
                "--add-learner",
                "x=http://127.0.0.1",
            ],
            3,
            "rule 5",
        ),
        case(
            "add while joint (server-side)",
            &[
                "member",
                "add",
                "x",
                "--learner",
                "--peer-urls",
                &free_url(),
            ],
            3,
            open,
        ),
        case(
            "remove while joint (server-side)",
            &["member", "remove", &learner_id],
            3,
            open,
        ),
        case(
            "update to a member's URL while joint",
            &["member", "update", v, "--peer-urls", &learner_peer],
            3,
            "already a peer URL of member",
        ),
    ];
    n += server.matrix("joint", &joint, &[]);
    eprintln!(
        "bad input matrix: {n} cases against the memberctl engine in {:.1?}",
        started.elapsed()
    );
    assert!(n >= 40, "only {n} cases");
}

/// etcd 3.4: the same matrix on a one-member cluster, then a wrong password with authentication on.
#[test]
fn bad_input_matrix_against_etcd() {
    let Some(bin) = require_etcd("bad_input_matrix_against_etcd") else {
        return;
    };
    let started = std::time::Instant::now();
    let mut etcd = Etcd::start(bin, 1);
    let tmp = tempfile::tempdir().unwrap();
    let (ctx, n_a, added, port) = {
        let server = Server::Etcd(&etcd);
        let (ctx, n) = phase_a(&server, tmp.path());
        let (added, port) = add_learner_named_like_the_voter(&server, &ctx);
        (ctx, n, added, port)
    };
    etcd.start_added(
        &ctx.voter_id,
        port,
        added["initial_cluster"].as_str().unwrap(),
    );
    let server = Server::Etcd(&etcd);
    let mut n = n_a + phase_b(&server, &ctx);

    // Phase C: authentication enabled (by etcdctl), wrong credentials.
    if let Some(etcdctl) = util::require_etcdctl("bad_input_matrix_against_etcd") {
        // The voter only: etcdctl does not skip a learner, which refuses these calls.
        let eps = format!("127.0.0.1:{}", etcd.members[0].client_port);
        for args in [
            vec!["user", "add", "root:right-pw"],
            vec!["role", "add", "root"],
            vec!["user", "grant-role", "root", "root"],
            vec!["auth", "enable"],
        ] {
            util::etcdctl(&etcdctl, &eps, &args).expect(0);
        }
        let failed = "authentication as \"root\" failed";
        let auth = vec![
            case(
                "wrong password",
                &["--user", "root:wrong-pw", "member", "list"],
                3,
                failed,
            )
            .secret("wrong-pw"),
            case(
                "wrong password for a change",
                &[
                    "--user",
                    "root",
                    "--password",
                    "wrong-pw",
                    "member",
                    "add",
                    "x",
                    "--learner",
                    "--peer-urls",
                    &free_url(),
                ],
                3,
                failed,
            )
            .secret("wrong-pw"),
            case(
                "unknown user",
                &["--user", "nobody:right-pw", "member", "list"],
                3,
                "authentication as \"nobody\" failed",
            )
            .secret("right-pw"),
        ];
        n += server.matrix("authentication on", &auth, &["--user", "root:right-pw"]);
    }
    eprintln!(
        "bad input matrix: {n} cases against etcd in {:.1?}",
        started.elapsed()
    );
    assert!(n >= 40, "only {n} cases");
}
