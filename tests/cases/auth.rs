//! Authentication: memberctl against etcd with it enabled; etcd's Auth service on the engine (etcdctl compared with etcd 3.4) and memberctl's --user against it.

use super::maintenance::shown;
use crate::util::local::Local;
use crate::util::versions::etcd_server;
use crate::util::{self, free_port, Etcd, Run};

/// memberctl against an etcd with authentication enabled (by etcdctl): the
/// right password works for the learner flow's add and remove; a wrong one is
/// refused with exit 3 and never printed; no password without a terminal is a
/// usage error.
fn authentication_against_etcd(version: &'static str) {
    let bin = etcd_server(version);
    let etcdctl = util::require_etcdctl();
    let etcd = Etcd::start(bin, 3);
    let eps: String = etcd
        .members
        .iter()
        .map(|m| format!("127.0.0.1:{}", m.client_port))
        .collect::<Vec<_>>()
        .join(",");
    for args in [
        vec!["user", "add", "root:s3cret-pw"],
        vec!["role", "add", "root"],
        vec!["user", "grant-role", "root", "root"],
        vec!["auth", "enable"],
    ] {
        util::etcdctl(&etcdctl, &eps, &args).expect(0);
    }
    let before = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
        .expect(0)
        .stdout;

    let r = etcd
        .ctl(&[
            "--user",
            "root:wr0ng-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            "http://127.0.0.1:1",
            "-w",
            "json",
        ])
        .expect(3);
    assert!(
        r.stderr.contains("authentication as \"root\" failed"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("wr0ng-pw") && !r.stdout.contains("wr0ng-pw"),
        "the password was printed"
    );
    let r = etcd.ctl(&["--user", "root", "member", "list"]).expect(2);
    assert!(r.stderr.contains("no password"), "{}", r.stderr);
    assert_eq!(
        before,
        etcd.ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
            .expect(0)
            .stdout
    );

    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = etcd
        .ctl(&[
            "--user",
            "root",
            "--password",
            "s3cret-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    let status = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert!(status["leader"].is_string());
    etcd.ctl(&["--user", "root:s3cret-pw", "member", "remove", &id])
        .expect(0);
}

/// What etcdctl prints for etcd's authentication on `eps` (`one` for the
/// per-endpoint commands): users and roles added, listed and granted,
/// `auth enable`, a valid token, a wrong password, a user without
/// permission on a key, a revoked permission and a revoked role, a changed
/// password, a refused watch, the root rules, `auth disable`; it ends with
/// the cluster as it began.
fn auth_transcript(etcdctl: &std::path::Path, eps: &str, one: &str) -> Vec<String> {
    let as_root = "--user=root:r00t-pw";
    let alice = "--user=alice:a1ice-pw";
    let steps: Vec<Vec<&str>> = vec![
        vec!["user", "add", "root:r00t-pw"],
        vec!["role", "add", "root"],
        vec!["user", "grant-role", "root", "root"],
        vec!["user", "add", "alice:a1ice-pw"],
        vec!["user", "add", "alice:other"],
        vec!["role", "add", "app"],
        vec!["role", "add", "app"],
        vec![
            "role",
            "grant-permission",
            "app",
            "readwrite",
            "--prefix",
            "a/",
        ],
        vec!["role", "grant-permission", "app", "read", "b"],
        vec!["role", "grant-permission", "app", "write", "c", "d"],
        vec!["role", "grant-permission", "nope", "read", "b"],
        vec!["user", "grant-role", "alice", "app"],
        vec!["user", "grant-role", "alice", "nope"],
        vec!["user", "grant-role", "bob", "app"],
        vec!["user", "list"],
        vec!["role", "list"],
        vec!["role", "get", "app"],
        vec!["user", "get", "alice"],
        vec!["user", "get", "bob"],
        vec!["auth", "enable"],
        vec!["auth", "enable"],
        vec!["put", "x", "1"],
        vec![alice, "put", "a/1", "v"],
        vec![alice, "put", "b", "v"],
        vec![alice, "put", "c/1", "v"],
        vec![alice, "get", "c/1"],
        vec![alice, "get", "b"],
        vec![alice, "get", "--prefix", "a/"],
        vec![alice, "get", "--prefix", "a"],
        vec![alice, "txn"],
        vec!["--user=alice:wr0ng", "get", "a/1"],
        vec!["--user=bob:x", "get", "a/1"],
        vec![as_root, "get", "--prefix", "a/"],
        vec![alice, "user", "list"],
        vec![alice, "user", "get", "alice"],
        vec![alice, "role", "get", "app"],
        vec![alice, "role", "get", "root"],
        vec![alice, "member", "remove", "1234"],
        vec![as_root, "user", "delete", "root"],
        vec![as_root, "role", "delete", "root"],
        vec![as_root, "user", "revoke-role", "root", "root"],
        vec![as_root, "role", "revoke-permission", "app", "a/", "a0"],
        vec![as_root, "role", "revoke-permission", "app", "a/", "a0"],
        vec![alice, "get", "a/1"],
        vec![as_root, "user", "revoke-role", "alice", "app"],
        vec![as_root, "user", "revoke-role", "alice", "app"],
        vec![alice, "get", "b"],
        vec![alice, "watch", "b"],
    ];
    let mut out = Vec::new();
    let endpoints = [one.to_string()];
    let mut record = |args: &[&str], r: Run| {
        out.push(format!("$ {}\n{}", args.join(" "), shown(&r, &endpoints)));
    };
    for args in &steps {
        // etcdctl's txn reads its operations from stdin.
        let input: &[u8] = if args.contains(&"txn") {
            b"\nget b\n\n\n"
        } else {
            b""
        };
        record(args, util::etcdctl_in(etcdctl, eps, args, input));
    }
    // Maintenance is for root (refused with the auth store's own error).
    for args in [vec![alice, "defrag"], vec![as_root, "endpoint", "hashkv"]] {
        let r = util::etcdctl(etcdctl, one, &args);
        // The hash itself differs between the two servers.
        let r = Run {
            stdout: r.stdout.split(", ").next().unwrap_or("").to_string(),
            ..r
        };
        record(&args, r);
    }
    let passwd = [as_root, "user", "passwd", "alice", "--interactive=false"];
    record(
        &passwd,
        util::etcdctl_in(etcdctl, eps, &passwd, b"n3w-pw\n"),
    );
    for args in [
        vec![alice, "get", "b"],
        vec!["--user=alice:n3w-pw", "get", "b"],
        vec![as_root, "auth", "disable"],
        vec!["auth", "disable"],
        vec!["get", "a/1"],
        vec!["user", "delete", "alice"],
        vec!["role", "delete", "app"],
        vec!["user", "delete", "root"],
        vec!["role", "delete", "root"],
        vec!["user", "list"],
        vec!["role", "list"],
    ] {
        record(&args, util::etcdctl(etcdctl, eps, &args));
    }
    out
}

/// etcdctl's user, role and auth commands print the same on the engine as
/// on etcd 3.4, with both `http://host:port` and `host:port` endpoints.
fn etcdctl_auth_commands_match_etcd() {
    let (etcd_bin, etcdctl) = (util::require_etcd(), util::require_etcdctl());
    let etcd = Etcd::start(etcd_bin, 1);
    let want = auth_transcript(&etcdctl, &etcd.endpoints(), &etcd.endpoints());
    assert!(want.len() > 60, "{want:?}");
    let local = Local::up(&[]);
    let bare = local.endpoints();
    let http: Vec<String> = bare.iter().map(|e| format!("http://{e}")).collect();
    for eps in [http, bare] {
        let got = auth_transcript(&etcdctl, &eps.join(","), &eps[0]);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                g, w,
                "the engine (left) answers otherwise than etcd (right)"
            );
        }
        assert_eq!(got.len(), want.len());
    }
}

/// memberctl's --user and --password against the engine with authentication
/// on: membership changes need root, as etcd requires (a refused add changes
/// nothing); a wrong password is refused with exit 3.
fn memberctl_authenticates_to_the_engine() {
    let etcdctl = util::require_etcdctl();
    let local = Local::up(&[]);
    let eps = local.endpoints().join(",");
    for args in [
        vec!["user", "add", "root:r00t-pw"],
        vec!["user", "grant-role", "root", "root"],
        vec!["user", "add", "bob:b0b-pw"],
        vec!["auth", "enable"],
    ] {
        util::etcdctl(&etcdctl, &eps, &args).expect(0);
    }
    let ctl = |args: &[&str]| {
        let mut all = vec!["--endpoints", eps.as_str()];
        all.extend_from_slice(args);
        util::memberctl(&all)
    };
    let list = |user: &str| {
        ctl(&["--user", user, "member", "list", "-w", "json"])
            .expect(0)
            .json()["members"]
            .clone()
    };
    let before = list("root:r00t-pw");
    let peer = format!("http://127.0.0.1:{}", free_port());
    let add = ["member", "add", "n9", "--learner", "--peer-urls", &peer];
    let r = ctl(&[&["--user", "bob:b0b-pw"], &add[..]].concat()).expect(3);
    assert!(r.stderr.contains("permission denied"), "{}", r.stderr);
    assert_eq!(
        list("bob:b0b-pw"),
        before,
        "a refused add changed the membership"
    );
    let r = ctl(&[&["--user", "root:wr0ng"], &add[..]].concat()).expect(3);
    assert!(
        r.stderr.contains("authentication as \"root\" failed"),
        "{}",
        r.stderr
    );
    let added = ctl(&[
        &["--user", "root", "--password", "r00t-pw", "-w", "json"],
        &add[..],
    ]
    .concat())
    .expect(0)
    .json();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    ctl(&["--user", "root:r00t-pw", "member", "remove", &id]).expect(0);
    assert_eq!(list("root:r00t-pw"), before);
    // Without a token the engine refuses keys, as etcd does.
    let r = util::etcdctl(&etcdctl, &eps, &["put", "k", "v"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("etcdserver: user name is empty"),
        "{}",
        r.stderr
    );
}

/// etcd 3.5's `hashedPassword` (a bcrypt hash made by the client) is kept as
/// given, as etcd keeps it: the user logs in with the password behind it.
fn a_pre_hashed_password_is_kept_as_etcd_keeps_it() {
    use memberctl::proto::etcdserverpb as epb;
    use memberctl::proto::etcdserverpb::auth_client::AuthClient;
    let local = Local::up(&["--nodes", "1"]);
    let ep = local.endpoints()[0].clone();
    util::local::runtime().block_on(async {
        let mut auth = AuthClient::new(util::local::channel(&ep).await.unwrap());
        auth.user_add(epb::AuthUserAddRequest {
            name: "carol".into(),
            hashed_password: bcrypt::hash("c4rol-pw", 4).unwrap(),
            ..Default::default()
        })
        .await
        .expect("a user with a pre-hashed password is added");
        // Authenticate answers only while authentication is on.
        auth.user_add(epb::AuthUserAddRequest {
            name: "root".into(),
            password: "r00t-pw".into(),
            ..Default::default()
        })
        .await
        .unwrap();
        auth.user_grant_role(epb::AuthUserGrantRoleRequest {
            user: "root".into(),
            role: "root".into(),
        })
        .await
        .unwrap();
        auth.auth_enable(epb::AuthEnableRequest {}).await.unwrap();
        let login = |password: &str| epb::AuthenticateRequest {
            name: "carol".into(),
            password: password.into(),
        };
        let ok = auth.authenticate(login("c4rol-pw")).await;
        assert!(
            ok.as_ref().is_ok_and(|r| !r.get_ref().token.is_empty()),
            "{ok:?}"
        );
        let wrong = auth.authenticate(login("wrong")).await.unwrap_err();
        assert!(
            wrong.message().contains("authentication failed"),
            "{wrong:?}"
        );
    });
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        authentication_against_etcd: each_version [Etcdctl],
        etcdctl_auth_commands_match_etcd: [Etcd, Etcdctl],
        memberctl_authenticates_to_the_engine: [Etcdctl],
        a_pre_hashed_password_is_kept_as_etcd_keeps_it,
    ]
}
