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
