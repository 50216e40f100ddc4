//! The bad-input matrix against the memberctl engine (a one-voter `cluster up`), and URLs sent to it directly, past memberctl's own checks.

use memberctl::proto::etcdserverpb::cluster_client::ClusterClient;
use memberctl::proto::etcdserverpb::MemberAddRequest;

use super::ctx::{first_url, free_url, member_list, Ctx};
use super::{add_learner_named_like_the_voter, case, phase_a, phase_b, short, Server};
use crate::util::local::{channel, runtime, Local};
use crate::util::{self, free_port};

/// etcd's answer to member URLs it cannot use.
const BAD_URLS: &str = "etcdserver: given member URLs are invalid";

/// MemberAdd straight over gRPC, as any client could send it; the error text if refused.
fn grpc_add(endpoint: &str, url: &str) -> Result<(), String> {
    runtime().block_on(async {
        let mut c = ClusterClient::new(channel(endpoint).await?);
        let req = MemberAddRequest {
            peer_ur_ls: vec![url.to_string()],
            is_learner: false,
        };
        c.member_add(req)
            .await
            .map(|_| ())
            .map_err(|s| format!("{:?}: {}", s.code(), s.message()))
    })
}

/// Peer URLs that memberctl's rule 1 refuses before sending, sent to the
/// engine past it: with etcdctl (which checks less: white space, case,
/// rewritten hosts, user info, queries, fragments reach the server) and as a
/// raw gRPC MemberAdd (for what etcdctl refuses itself: control characters,
/// paths, a missing port, IPv6 without brackets). The engine applies rule 1's syntax too and answers
/// with etcd's text; the member list is left byte-identical. Returns how many ran.
fn direct_cases(server: &Server, ctx: &Ctx) -> usize {
    let before = server.list(&[]);
    let p = free_port();
    let u = |rest: &str| format!("http://127.0.0.1:{p}{rest}");
    let mut failures = Vec::new();
    let mut n = 0;
    {
        let etcdctl = util::require_etcdctl();
        let cases = [
            ("trailing space", vec!["member", "add", "x"], u(" ")),
            (
                "upper-case scheme",
                vec!["member", "add", "x"],
                u("").replace("http", "HTTP"),
            ),
            (
                "IPv4 shorthand",
                vec!["member", "add", "x"],
                format!("http://127.1:{p}"),
            ),
            (
                "user info",
                vec!["member", "add", "x"],
                format!("http://user@127.0.0.1:{p}"),
            ),
            ("query", vec!["member", "add", "x"], u("?a=b")),
            ("fragment", vec!["member", "add", "x"], u("#top")),
            (
                "update with a query",
                vec!["member", "update", ctx.voter_id.as_str()],
                u("?a=b"),
            ),
        ];
        for (what, mut args, url) in cases {
            let flag = format!("--peer-urls={url}");
            args.push(&flag);
            let r = util::etcdctl(&etcdctl, &ctx.bare_endpoint, &args);
            if r.code == 0 || !r.stderr.contains(BAD_URLS) {
                failures.push(format!(
                    "etcdctl {what}: exit {}, stderr {}",
                    r.code,
                    short(&r.stderr)
                ));
            }
            n += 1;
        }
    }
    for (what, url) in [
        (
            "line break inside the port",
            format!("http://127.0.0.1:2\n{p}"),
        ),
        ("tab after the port", u("\t")),
        ("path", u("/x")),
        ("backslash path", u("\\x")),
        ("missing port", "http://127.0.0.1".to_string()),
        ("IPv6 without brackets", format!("http://::1:{p}")),
    ] {
        let r = grpc_add(&ctx.voter_client, &url);
        if r.as_ref().err().map(String::as_str) != Some(&format!("InvalidArgument: {BAD_URLS}")) {
            failures.push(format!("gRPC {what}: {r:?}"));
        }
        n += 1;
    }
    let after = server.list(&[]);
    if after != before {
        failures.push(format!(
            "the member list changed:\nbefore {before}\nafter {after}"
        ));
    }
    assert!(
        failures.is_empty(),
        "{} of {n} URLs sent directly were not refused as etcd refuses bad URLs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

/// The engine: the whole matrix on a one-voter `cluster up`, then refusals while joint.
fn bad_input_matrix_on_the_engine() {
    let started = std::time::Instant::now();
    let local = Local::up(&["--nodes", "1"]);
    let server = Server::Engine(&local);
    let tmp = tempfile::tempdir().unwrap();
    let (ctx, mut n) = phase_a(&server, tmp.path());
    n += direct_cases(&server, &ctx);
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

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        bad_input_matrix_on_the_engine: [Etcdctl],
    ]
}
