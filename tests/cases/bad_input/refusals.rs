//! Bad-input cases that are refused for what they ask: joint changes, unsuitable members, global flags, ambiguous names.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use super::ctx::{free_url, long, path, Ctx};
use super::{case, case_os, os, Case};
use crate::util::free_port;

/// `member joint enter --add-learner` with bad URLs, and joint refusals (rules 5-7, conflicting flags).
pub(super) fn joint_cases(ctx: &Ctx) -> Vec<Case> {
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
            &["--promote", l, "--no-wait"],
            3,
            "rule 6",
        ),
        // A name no started member has, while a member has not started: the
        // name may be that member's, so it is refused at once, never guessed.
        enter(
            "unknown member",
            &["--remove", "ghost", "--timeout", "1s"],
            3,
            "\"ghost\" has not started: no started member has that name",
        ),
    ]
}

/// Unknown and unsuitable members for promote and remove.
pub(super) fn member_cases(ctx: &Ctx) -> Vec<Case> {
    let (v, l) = (ctx.voter.as_str(), ctx.learner_id.as_str());
    let unknown = "no member has the name or ID";
    let not_started = "has not started: no started member has that name";
    vec![
        case(
            "unknown hex ID",
            &["member", "promote", "0000000000000001", "--no-wait"],
            3,
            unknown,
        ),
        // Names no started member has while a member has not started: refused
        // at once (exit 3), the unstarted member listed; an empty target is no
        // name at all.
        case(
            "unknown name",
            &["member", "remove", "ghost", "--timeout", "1s"],
            3,
            not_started,
        ),
        case(
            "17 hex digits",
            &["member", "remove", "00000000000000001", "--timeout", "1s"],
            3,
            not_started,
        ),
        case("empty target", &["member", "remove", ""], 3, unknown),
        case(
            "100 KB target",
            &["member", "remove", &long(), "--timeout", "1s"],
            3,
            not_started,
        ),
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
pub(super) fn flag_cases(ctx: &Ctx) -> Vec<Case> {
    let port = free_port().to_string();
    let dead = format!("127.0.0.1:{port}");
    let ep = ctx.bare_endpoint.as_str();
    let (ca, cert, key) = (
        path(&ctx.pki.ca),
        path(&ctx.pki.client_cert),
        path(&ctx.pki.client_key),
    );
    let (other, garbage) = (path(&ctx.other_ca), path(&ctx.garbage));
    // The engine serves etcd's authentication too: the same refusal as etcd's.
    let wrong_user = case(
        "credentials for a cluster without authentication",
        &["--user", "root:not-the-pw", "member", "list"],
        3,
        "authentication is not enabled",
    );
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
pub(super) fn ambiguous_cases(ctx: &Ctx) -> Vec<Case> {
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
            "check learners failed",
        ),
    ]
}
