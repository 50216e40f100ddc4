//! etcd's JWT auth tokens, `--auth-token-ttl` and `--bcrypt-cost` on the
//! engine as on etcd 3.4 (issue #57): one etcd 3.4 member and one engine
//! member with the same `--auth-token jwt,...` keys (RSA made by `openssl
//! genrsa`, ECDSA P-256 by `openssl ecparam -genkey`) answer the same
//! etcdctl and JSON-gateway transcript; a token either signs is taken by the
//! other (the tokens are self-contained), a token older than the auth store
//! is refused for key requests, an expired or tampered one is refused with
//! etcd's error, and bad options stop both before they serve.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::util::{self, free_port, http, versions, wait_for, wait_for_every};

/// A server process, killed on drop.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The key pairs, made by openssl as etcd's documentation makes them.
struct Keys {
    rsa: (PathBuf, PathBuf),
    ec: (PathBuf, PathBuf),
}

impl Keys {
    fn new(dir: &Path) -> Keys {
        let openssl = |args: &[&str]| {
            let r = util::run(Command::new("openssl").args(args).current_dir(dir));
            assert_eq!(r.code, 0, "openssl {args:?}: {}", r.stderr);
        };
        openssl(&["genrsa", "-out", "rsa.key", "2048"]);
        openssl(&["rsa", "-in", "rsa.key", "-pubout", "-out", "rsa.pub"]);
        openssl(&[
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            "ec.key",
        ]);
        openssl(&["ec", "-in", "ec.key", "-pubout", "-out", "ec.pub"]);
        let pair = |name: &str| {
            (
                dir.join(format!("{name}.key")),
                dir.join(format!("{name}.pub")),
            )
        };
        Keys {
            rsa: pair("rsa"),
            ec: pair("ec"),
        }
    }

    /// `--auth-token` for `method` with these keys (`private`: with
    /// priv-key, else pub-key alone) and `ttl`.
    fn option(&self, method: &str, private: bool, ttl: &str) -> String {
        let (key, public) = if method.starts_with("ES") {
            &self.ec
        } else {
            &self.rsa
        };
        let mut o = format!("jwt,pub-key={},sign-method={method}", public.display());
        if private {
            o.push_str(&format!(",priv-key={}", key.display()));
        }
        if !ttl.is_empty() {
            o.push_str(&format!(",ttl={ttl}"));
        }
        o
    }
}

/// etcd 3.4 (`etcd`) or the engine (`engine`).
fn program(which: &str) -> (PathBuf, Vec<&'static str>) {
    match which {
        "etcd" => (versions::etcd_server("3.4"), vec![]),
        _ => (PathBuf::from(util::bin()), vec!["node", "run"]),
    }
}

/// Starts a single member of `which` with `flags`, healthy: the server and
/// its client URL.
fn start(which: &str, dir: &Path, tag: &str, flags: &[String]) -> (Server, String) {
    let (bin, prefix) = program(which);
    let client = format!("http://127.0.0.1:{}", free_port());
    let peer = format!("http://127.0.0.1:{}", free_port());
    let log = std::fs::File::create(dir.join(format!("{tag}.log"))).unwrap();
    let server = Server(
        Command::new(bin)
            .args(prefix)
            .args(["--name", "m1", "--data-dir"])
            .arg(dir.join(format!("{tag}-data")))
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &format!("m1={peer}")])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_for(&format!("{tag} healthy"), Duration::from_secs(30), || {
        let r = etcdctl(&client, &["endpoint", "health"]);
        (r.code == 0).then_some(())
    });
    (server, client)
}

fn etcdctl(client: &str, args: &[&str]) -> util::Run {
    util::etcdctl(&util::require_etcdctl(), client, args)
}

/// What etcdctl printed: its output, or its `Error:` line.
fn answer(r: &util::Run) -> String {
    if r.code == 0 {
        return r.stdout.trim().to_string();
    }
    let error = r.stderr.lines().find(|l| l.starts_with("Error:"));
    format!("exit {}: {}", r.code, error.unwrap_or(r.stderr.trim()))
}

/// Adds root and turns authentication on.
fn enable_auth(client: &str) {
    for args in [&["user", "add", "root:pw"][..], &["auth", "enable"]] {
        let r = etcdctl(client, args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
}

/// Authenticate through the JSON gateway: the token, or the error's JSON.
fn authenticate(client: &str, password: &str) -> Result<String, Value> {
    let body = json!({"name": "root", "password": password}).to_string();
    let a = http::post(client, "/v3/auth/authenticate", &[], &body).json();
    match a["token"].as_str() {
        Some(t) => Ok(t.to_string()),
        None => Err(gist(&a)),
    }
}

/// An error answer's message and code; for a served one, "ok".
fn gist(a: &Value) -> Value {
    if a.get("error").is_some() || a.get("code").is_some() {
        json!({"error": a["error"], "code": a["code"]})
    } else {
        json!("ok")
    }
}

/// A gateway request with `token`: "ok" or the error's message and code.
fn with_token(client: &str, path: &str, token: &str, body: &Value) -> Value {
    let a = http::post(client, path, &[("Authorization", token)], &body.to_string());
    gist(&a.json())
}

/// A range of `a` with `token`.
fn read(client: &str, token: &str) -> Value {
    with_token(client, "/v3/kv/range", token, &json!({"key": "YQ=="}))
}

/// A JWT's header and claims.
fn parts(token: &str) -> (Value, Value) {
    let part = |i: usize| {
        let b = token.split('.').nth(i).unwrap_or_default();
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(b)
            .unwrap_or_else(|e| panic!("not a JWT ({e}): {token}"));
        serde_json::from_slice::<Value>(&raw).unwrap()
    };
    (part(0), part(1))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// What one member says with a JWT `method` and a 3 s token ttl (plus
/// `--auth-token-ttl` and `--bcrypt-cost`, which both must take), and the
/// token it issued after `auth enable` (for the other to check).
fn transcript(which: &str, dir: &Path, keys: &Keys, method: &str) -> (Vec<String>, String) {
    let tag = format!("{which}-{method}");
    let flags = [
        "--auth-token".to_string(),
        keys.option(method, true, "3s"),
        "--auth-token-ttl=60".to_string(),
        "--bcrypt-cost=6".to_string(),
    ];
    let (_server, client) = start(which, dir, &tag, &flags);
    let mut said = Vec::new();
    let mut say = |what: &str, v: String| said.push(format!("{what}: {v}"));
    enable_auth(&client);
    for args in [
        &["--user", "root:pw", "put", "a", "1"][..],
        &["--user", "root:pw", "get", "a", "--print-value-only"],
        &["--user", "root:bad", "get", "a"],
    ] {
        say(&args.join(" "), answer(&etcdctl(&client, args)));
    }
    say(
        "authenticate with a wrong password",
        authenticate(&client, "bad").unwrap_err().to_string(),
    );
    let token = authenticate(&client, "pw").unwrap();
    let (header, claims) = parts(&token);
    say("header alg", header["alg"].to_string());
    say("header typ", header["typ"].to_string());
    let mut names: Vec<&String> = claims.as_object().unwrap().keys().collect();
    names.sort();
    say("claim names", format!("{names:?}"));
    say("claim username", claims["username"].to_string());
    say("claim revision", claims["revision"].to_string());
    let left = claims["exp"].as_u64().unwrap() as i64 - now() as i64;
    say(
        "exp - now within 1 s of ttl 3s",
        (2..=4).contains(&left).to_string(),
    );
    say("read with the token", read(&client, &token).to_string());
    let mut tampered = token.clone();
    tampered.insert(tampered.len() - 4, 'A');
    tampered.truncate(tampered.len() - 1);
    say(
        "read with a tampered token",
        read(&client, &tampered).to_string(),
    );
    say(
        "read with a simple token",
        read(&client, "abcdefghijklmnop.12").to_string(),
    );
    // Expired: refused once its exp has passed (it is not extended by use).
    let fresh = authenticate(&client, "pw").unwrap();
    say("read with a fresh token", read(&client, &fresh).to_string());
    let started = Instant::now();
    let refused = wait_for(
        &format!("{tag}: the token expired"),
        Duration::from_secs(15),
        || {
            let r = read(&client, &fresh);
            (r != json!("ok")).then_some(r)
        },
    );
    say("read with the expired token", refused.to_string());
    say(
        "expired after 2 s at least",
        (started.elapsed() >= Duration::from_secs(2)).to_string(),
    );
    // Older than the auth store: refused for key requests, not for admin ones.
    let old = authenticate(&client, "pw").unwrap();
    let lease = http::post(
        &client,
        "/v3/lease/grant",
        &[("Authorization", &old)],
        r#"{"TTL":"100"}"#,
    )
    .json()["ID"]
        .as_str()
        .unwrap()
        .to_string();
    let on_lease = json!({"key": "Yg==", "value": "MQ==", "lease": lease});
    say(
        "put on a lease",
        with_token(&client, "/v3/kv/put", &old, &on_lease).to_string(),
    );
    say(
        "user add bob",
        answer(&etcdctl(
            &client,
            &["--user", "root:pw", "user", "add", "bob:b"],
        )),
    );
    say(
        "read with a token older than the auth store",
        read(&client, &old).to_string(),
    );
    say(
        "put with a token older than the auth store",
        with_token(
            &client,
            "/v3/kv/put",
            &old,
            &json!({"key": "YQ==", "value": "Mg=="}),
        )
        .to_string(),
    );
    say(
        "user list with a token older than the auth store",
        with_token(&client, "/v3/auth/user/list", &old, &json!({})).to_string(),
    );
    say(
        "lease time-to-live with a token older than the auth store",
        with_token(
            &client,
            "/v3/kv/lease/timetolive",
            &old,
            &json!({"ID": lease, "keys": true}),
        )
        .to_string(),
    );
    say(
        "lease revoke with a token older than the auth store",
        with_token(&client, "/v3/lease/revoke", &old, &json!({"ID": lease})).to_string(),
    );
    let renewed = authenticate(&client, "pw").unwrap();
    say(
        "renewed token's revision",
        parts(&renewed).1["revision"].to_string(),
    );
    say(
        "read with the renewed token",
        read(&client, &renewed).to_string(),
    );
    (said, token)
}

/// The transcript on etcd 3.4, then on the engine: the same lines; etcd's
/// as measured.
fn same_as_etcd(method: &str) {
    let dir = tempfile::tempdir().unwrap();
    let keys = Keys::new(dir.path());
    let (etcd, _) = transcript("etcd", dir.path(), &keys, method);
    let invalid = r#"{"code":16,"error":"etcdserver: invalid auth token"}"#;
    let old = r#"{"code":3,"error":"etcdserver: revision of auth store is old"}"#;
    let want = [
        "--user root:pw put a 1: OK".to_string(),
        "--user root:pw get a --print-value-only: 1".to_string(),
        "--user root:bad get a: exit 2: Error: etcdserver: authentication failed, invalid user ID or password".to_string(),
        r#"authenticate with a wrong password: {"code":3,"error":"etcdserver: authentication failed, invalid user ID or password"}"#.to_string(),
        format!("header alg: \"{method}\""),
        "header typ: \"JWT\"".to_string(),
        r#"claim names: ["exp", "revision", "username"]"#.to_string(),
        "claim username: \"root\"".to_string(),
        "claim revision: 4".to_string(),
        "exp - now within 1 s of ttl 3s: true".to_string(),
        "read with the token: \"ok\"".to_string(),
        format!("read with a tampered token: {invalid}"),
        format!("read with a simple token: {invalid}"),
        "read with a fresh token: \"ok\"".to_string(),
        format!("read with the expired token: {invalid}"),
        "expired after 2 s at least: true".to_string(),
        "put on a lease: \"ok\"".to_string(),
        "user add bob: User bob created".to_string(),
        format!("read with a token older than the auth store: {old}"),
        format!("put with a token older than the auth store: {old}"),
        "user list with a token older than the auth store: \"ok\"".to_string(),
        "lease time-to-live with a token older than the auth store: \"ok\"".to_string(),
        format!("lease revoke with a token older than the auth store: {old}"),
        "renewed token's revision: 5".to_string(),
        "read with the renewed token: \"ok\"".to_string(),
    ];
    assert_eq!(etcd, want, "etcd 3.4 as measured");
    let (engine, _) = transcript("engine", dir.path(), &keys, method);
    assert_eq!(engine, etcd, "the engine as etcd 3.4");
}

fn jwt_rs256_tokens_on_the_engine_as_on_etcd_3_4() {
    same_as_etcd("RS256");
}

fn jwt_es256_tokens_on_the_engine_as_on_etcd_3_4() {
    same_as_etcd("ES256");
}

/// With the same keys, etcd 3.4 and the engine take each other's tokens
/// (both at auth revision 4 after `user add root` and `auth enable`); a
/// member with pub-key alone checks them and issues none, with etcd's error.
fn jwt_tokens_of_etcd_3_4_are_taken_by_the_engine_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Keys::new(dir.path());
    let signing = ["--auth-token".to_string(), keys.option("RS256", true, "")];
    let checking = ["--auth-token".to_string(), keys.option("RS256", false, "")];
    let (_etcd, etcd) = start("etcd", dir.path(), "etcd", &signing);
    let (_engine, engine) = start("engine", dir.path(), "engine", &signing);
    let (_etcd_v, etcd_v) = start("etcd", dir.path(), "etcd-verify", &checking);
    let (_engine_v, engine_v) = start("engine", dir.path(), "engine-verify", &checking);
    for c in [&etcd, &engine, &etcd_v, &engine_v] {
        enable_auth(c);
    }
    let from_etcd = authenticate(&etcd, "pw").unwrap();
    let from_engine = authenticate(&engine, "pw").unwrap();
    assert_eq!(
        parts(&from_etcd).1["revision"],
        parts(&from_engine).1["revision"]
    );
    for (token, by) in [(&from_etcd, "etcd"), (&from_engine, "engine")] {
        for (at, client) in [
            ("etcd", &etcd),
            ("engine", &engine),
            ("etcd pub-key only", &etcd_v),
            ("engine pub-key only", &engine_v),
        ] {
            assert_eq!(read(client, token), json!("ok"), "{by}'s token at {at}");
        }
    }
    // Verify-only members issue no token: etcd's error (code 2, Unknown).
    let want = json!({"code": 2, "error": "auth: token signing attempted with verify-only key"});
    assert_eq!(authenticate(&etcd_v, "pw").unwrap_err(), want, "etcd 3.4");
    assert_eq!(
        authenticate(&engine_v, "pw").unwrap_err(),
        want,
        "the engine"
    );
    let r = etcdctl(&engine_v, &["--user", "root:pw", "get", "a"]);
    assert_eq!(
        answer(&r),
        answer(&etcdctl(&etcd_v, &["--user", "root:pw", "get", "a"])),
        "etcdctl --user on a verify-only member"
    );
}

/// With `--auth-token-ttl 2`, a simple token unused for longer is refused
/// with etcd's error on both; used within it, it lives on. `--bcrypt-cost
/// 3` (below bcrypt's 4) starts both, each warning that it hashes at 10.
fn simple_tokens_live_auth_token_ttl_on_the_engine_as_on_etcd_3_4() {
    let dir = tempfile::tempdir().unwrap();
    let mut said = Vec::new();
    for which in ["etcd", "engine"] {
        let flags = [
            "--auth-token-ttl=2".to_string(),
            "--bcrypt-cost=3".to_string(),
        ];
        let (_server, client) = start(which, dir.path(), which, &flags);
        enable_auth(&client);
        let log = std::fs::read_to_string(dir.path().join(format!("{which}.log"))).unwrap();
        let warning = match which {
            "etcd" => "Use default bcrypt-cost 10 instead of the invalid value 3",
            _ => "--bcrypt-cost 3 is outside bcrypt's 4..=31: passwords are hashed at cost 10",
        };
        assert!(log.contains(warning), "{which}: {warning}\n{log}");
        let token = authenticate(&client, "pw").unwrap();
        let simple = token
            .split_once('.')
            .is_some_and(|(letters, n)| letters.len() == 16 && n.parse::<u64>().is_ok());
        assert!(simple, "{which}: a simple token, {token}");
        // Used every 0.5 s for 3 s (past the ttl): it lives on.
        let used = Instant::now();
        while used.elapsed() < Duration::from_secs(3) {
            assert_eq!(read(&client, &token), json!("ok"), "{which}: in use");
            std::thread::sleep(Duration::from_millis(500));
        }
        // Then left alone 4 s between looks: refused at the first look
        // after it was idle longer than its ttl.
        let idle = Instant::now();
        let refused = wait_for_every(
            &format!("{which}: the idle token expired"),
            Duration::from_secs(30),
            Duration::from_secs(4),
            || {
                let r = read(&client, &token);
                (r != json!("ok")).then_some(r)
            },
        );
        said.push(format!(
            "{refused} after {}s idle",
            idle.elapsed().as_secs().min(4)
        ));
    }
    let want = r#"{"code":16,"error":"etcdserver: invalid auth token"} after 4s idle"#;
    assert_eq!(said, [want, want], "etcd 3.4, then the engine");
}

/// Options that cannot be used stop etcd 3.4 and the engine before they
/// serve; the engine names `--auth-token`, exits 2 and makes no data
/// directory. An unknown option is only warned of by both.
fn jwt_options_that_cannot_be_used_stop_both_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Keys::new(dir.path());
    let key = keys.rsa.0.display().to_string();
    for (option, says) in [
        ("jwt".to_string(), "sign-method \"\" is not served"),
        (
            format!("jwt,sign-method=XX256,priv-key={key}"),
            "sign-method \"XX256\"",
        ),
        ("jwt,sign-method=RS256".to_string(), "give priv-key=FILE"),
        (
            "jwt,sign-method=RS256,priv-key=/nonexistent.key".to_string(),
            "cannot read priv-key /nonexistent.key",
        ),
        (
            format!("jwt,sign-method=RS256,priv-key={key},ttl=bogus"),
            "ttl \"bogus\"",
        ),
        (
            format!("jwt,sign-method=ES256,priv-key={key}"),
            "holds no ECDSA P-256 key",
        ),
        ("bogus".to_string(), "unknown token type"),
    ] {
        for which in ["etcd", "engine"] {
            let (bin, prefix) = program(which);
            let data = dir.path().join(format!("{which}-refused"));
            let peer = format!("http://127.0.0.1:{}", free_port());
            let client = format!("http://127.0.0.1:{}", free_port());
            let r = util::run_within(
                Command::new(bin)
                    .args(prefix)
                    .arg("--data-dir")
                    .arg(&data)
                    .args([
                        "--listen-client-urls",
                        &client,
                        "--advertise-client-urls",
                        &client,
                    ])
                    .args([
                        "--listen-peer-urls",
                        &peer,
                        "--initial-advertise-peer-urls",
                        &peer,
                    ])
                    .args(["--initial-cluster", &format!("default={peer}")])
                    .args(["--auth-token", &option]),
                None,
                Duration::from_secs(20),
            );
            if which == "etcd" {
                assert_eq!(r.code, 1, "etcd 3.4 with {option}: {}", r.stderr);
            } else {
                assert_eq!(r.code, 2, "engine with {option}: {}", r.stderr);
                assert!(
                    r.stderr.contains("--auth-token") && r.stderr.contains(says),
                    "engine with {option}: {}",
                    r.stderr
                );
                assert!(!data.exists(), "nothing made for {option}");
            }
            let _ = std::fs::remove_dir_all(&data);
        }
    }
}

/// Three engine members with the same keys: a token one issued is checked
/// at every member with the public key, and a token older than the auth
/// store is refused at every member (a follower passes the token's
/// revision on with the request it forwards to the leader).
fn jwt_tokens_are_checked_at_every_member_of_an_engine_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Keys::new(dir.path());
    let peers: Vec<String> = (0..3)
        .map(|_| format!("http://127.0.0.1:{}", free_port()))
        .collect();
    let cluster: Vec<String> = peers
        .iter()
        .enumerate()
        .map(|(i, p)| format!("m{i}={p}"))
        .collect();
    let mut servers = Vec::new();
    let mut clients = Vec::new();
    for (i, peer) in peers.iter().enumerate() {
        let client = format!("http://127.0.0.1:{}", free_port());
        let log = std::fs::File::create(dir.path().join(format!("m{i}.log"))).unwrap();
        servers.push(Server(
            Command::new(util::bin())
                .args(["node", "run", "--name", &format!("m{i}"), "--data-dir"])
                .arg(dir.path().join(format!("m{i}-data")))
                .args(["--listen-client-urls", &client])
                .args(["--advertise-client-urls", &client])
                .args(["--listen-peer-urls", peer])
                .args(["--initial-advertise-peer-urls", peer])
                .args(["--initial-cluster", &cluster.join(",")])
                .args(["--auth-token", &keys.option("RS256", true, "")])
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap(),
        ));
        clients.push(client);
    }
    for c in &clients {
        wait_for(&format!("{c} healthy"), Duration::from_secs(30), || {
            (etcdctl(c, &["endpoint", "health"]).code == 0).then_some(())
        });
    }
    enable_auth(&clients[0]);
    let token = authenticate(&clients[1], "pw").unwrap();
    let put = json!({"key": "YQ==", "value": "MQ=="});
    for c in &clients {
        assert_eq!(
            with_token(c, "/v3/kv/put", &token, &put),
            json!("ok"),
            "put at {c}"
        );
        assert_eq!(read(c, &token), json!("ok"), "read at {c}");
    }
    let r = etcdctl(&clients[2], &["--user", "root:pw", "user", "add", "bob:b"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let old = json!({"code": 3, "error": "etcdserver: revision of auth store is old"});
    for c in &clients {
        // Every member has applied the change before it is asked.
        wait_for(
            &format!("{c} applied user add"),
            Duration::from_secs(10),
            || (read(c, &token) == old).then_some(()),
        );
        assert_eq!(with_token(c, "/v3/kv/put", &token, &put), old, "put at {c}");
    }
    let renewed = authenticate(&clients[0], "pw").unwrap();
    for c in &clients {
        assert_eq!(
            with_token(c, "/v3/kv/put", &renewed, &put),
            json!("ok"),
            "put at {c}"
        );
    }
    drop(servers);
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        jwt_rs256_tokens_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl, Command("openssl")],
        jwt_es256_tokens_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl, Command("openssl")],
        jwt_tokens_of_etcd_3_4_are_taken_by_the_engine_and_back: [Etcd, Etcdctl, Command("openssl")],
        simple_tokens_live_auth_token_ttl_on_the_engine_as_on_etcd_3_4: [Etcd, Etcdctl],
        jwt_options_that_cannot_be_used_stop_both_at_start: [Etcd, Command("openssl")],
        jwt_tokens_are_checked_at_every_member_of_an_engine_cluster: [Etcdctl, Command("openssl")],
    ]
}
