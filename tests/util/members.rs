//! Helpers on memberctl's JSON output shared by the integration tests: IDs, members by name, adding a learner.

use serde_json::Value;

use super::local::Local;
use super::{free_port, Run};

/// The hex IDs of a `member list -w json` document, in its order.
pub fn ids(list: &Value) -> Vec<String> {
    list["members"]
        .as_array()
        .expect("members array")
        .iter()
        .map(|m| m["id"].as_str().expect("id string").to_string())
        .collect()
}

/// The member called `name` in a `member list -w json` document; panics if absent.
pub fn member_named<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["members"]
        .as_array()
        .expect("members array")
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no member {name} in {list}"))
}

/// `member add NAME --learner --peer-urls PEER -w json`.
pub fn add_learner_args<'a>(name: &'a str, peer: &'a str) -> [&'a str; 8] {
    [
        "member",
        "add",
        name,
        "--learner",
        "--peer-urls",
        peer,
        "-w",
        "json",
    ]
}

/// Adds `name` as a learner with `peer` through `ctl` (which must succeed); the JSON answer.
pub fn add_learner_at(ctl: impl Fn(&[&str]) -> Run, name: &str, peer: &str) -> Value {
    ctl(&add_learner_args(name, peer)).expect(0).json()
}

/// Adds `name` as a learner on a free loopback peer port through `ctl`; its hex ID and peer URL.
pub fn add_learner(ctl: impl Fn(&[&str]) -> Run, name: &str) -> (String, String) {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = add_learner_at(ctl, name, &peer);
    (added["member"]["id"].as_str().unwrap().to_string(), peer)
}

/// Adds `name` as a learner on a free loopback peer port of the local cluster
/// and starts it (`cluster start-node`, which waits until it has joined); its
/// hex ID and peer URL.
pub fn add_and_start(local: &Local, name: &str) -> (String, String) {
    let added = add_learner(|a| local.ctl(a), name);
    local.ctl(&["cluster", "start-node", name]).expect(0);
    added
}

/// A JSON array of strings, sorted.
pub fn hex_list(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// The hex ID of the local cluster's member called `name`.
pub fn id_of(local: &Local, name: &str) -> String {
    let list = local
        .ctl(&["member", "list", "-w", "json"])
        .expect(0)
        .json();
    member_named(&list, name)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The first client endpoint of a local cluster.
pub fn first_endpoint(local: &Local) -> String {
    local.endpoints()[0].clone()
}

/// Checks that commands naming `name`, a learner added as `id` with `peer`
/// that has not started, are refused at once (exit 3) and change nothing:
/// `member remove`, `member update` and `member promote --no-wait` list the
/// unstarted members (stderr and JSON `error.unstarted`) and say what to run
/// instead; a waiting `member promote` says what it waits for, then times out
/// (exit 4).
pub fn unstarted_by_name_is_refused(
    ctl: impl Fn(&[&str]) -> Run,
    name: &str,
    id: &str,
    peer: &str,
) {
    let list = || ctl(&["member", "list", "-w", "json"]).expect(0).stdout;
    let before = list();
    let new_peer = format!("http://127.0.0.1:{}", free_port());
    let refusals: [(&[&str], &str); 3] = [
        (
            &["member", "remove", name],
            &format!("`memberctl member remove {id}`"),
        ),
        (
            &["member", "update", name, "--peer-urls", &new_peer],
            &format!("`memberctl member update {id} --peer-urls"),
        ),
        (
            &["member", "promote", name, "--no-wait"],
            &format!("`memberctl member promote {name}` without --no-wait"),
        ),
    ];
    for (args, instead) in refusals {
        let begun = std::time::Instant::now();
        let r = ctl(args).expect(3);
        let took = begun.elapsed();
        // Refused at once, not after promote's 5-minute wait: a bound that
        // only a gross error (waiting for the timeout) crosses, also on a
        // busy machine.
        assert!(
            took < std::time::Duration::from_secs(60),
            "{args:?} took {took:?}"
        );
        let said = format!("\"{name}\" has not started: no started member has that name");
        assert!(r.stderr.contains(&said), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(instead), "{args:?}: {}", r.stderr);
        let line = format!("  - {id} (learner, unstarted), peer URLs {peer}");
        assert!(r.stderr.contains(&line), "{args:?}: {}", r.stderr);
        let mut json_args = args.to_vec();
        json_args.extend(["-w", "json"]);
        let v = ctl(&json_args).expect(3).json();
        assert_eq!(v["error"]["kind"], "refused", "{v}");
        assert_eq!(v["error"]["unstarted"][0]["id"], id, "{v}");
        assert_eq!(v["error"]["unstarted"][0]["peer_urls"][0], peer, "{v}");
        assert_eq!(v["error"]["unstarted"][0]["is_learner"], true, "{v}");
    }
    // Without --no-wait, promote waits for the name, and says so.
    let r = ctl(&["member", "promote", name, "--timeout", "1s"]).expect(4);
    let waiting = format!("for \"{name}\" to start");
    assert!(r.stderr.contains(&waiting), "{}", r.stderr);
    assert!(r.stderr.contains(id), "{}", r.stderr);
    assert_eq!(before, list(), "a refused command changed the membership");
}

/// `member add NAME --learner` on a free peer port, run through `command`
/// with stdout and stderr into one file: the result line comes first, then
/// the `next:` hint. The new member's hex ID and peer URL.
pub fn add_then_hint(
    command: impl FnOnce(&[&str]) -> std::process::Command,
    name: &str,
) -> (String, String) {
    let peer = format!("http://127.0.0.1:{}", free_port());
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("add.out");
    let file = std::fs::File::create(&path).unwrap();
    let status = command(&["member", "add", name, "--learner", "--peer-urls", &peer])
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    let out = std::fs::read_to_string(&path).unwrap();
    assert!(status.success(), "{out}");
    let added = out.find("Member ").expect("the result line");
    let next = out.find("memberctl: next: start member").expect("the hint");
    assert!(added < next, "the hint came before the result:\n{out}");
    let id = out[added..].split(' ').nth(1).unwrap().to_string();
    let result = format!("Member {id} added as learner");
    assert!(out[added..].starts_with(&result), "{out}");
    (id, peer)
}
