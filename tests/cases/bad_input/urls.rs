//! Bad-input cases for peer URLs: `member add` (learner and voter) and `member update`.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use super::ctx::{free_url, long, Ctx};
use super::{case, case_os, os, Case};
use crate::util::free_port;

/// Malformed and hostile peer URLs for `member add` (learner and voter).
pub(super) fn add_cases(ctx: &Ctx) -> Vec<Case> {
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
        // The fixture already has a learner: the learners check is passed
        // knowingly, so that the URL alone decides.
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
                "--skip-check",
                "learners",
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
            "a second learner (pre-flight learners check)",
            &["member", "add", "x", "--learner", "--peer-urls", &u("")],
            3,
            "check learners failed",
        ),
        case(
            "a second learner, check skipped (server-side limit)",
            &[
                "member",
                "add",
                "x",
                "--learner",
                "--peer-urls",
                &u(""),
                "--skip-check",
                "learners",
            ],
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
pub(super) fn update_cases(ctx: &Ctx) -> Vec<Case> {
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
            "\"ghost\" has not started: no started member has that name",
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
