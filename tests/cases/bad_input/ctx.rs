//! What the bad-input cases refer to: the voter, an unstarted learner, TLS files, free ports and long texts.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Case;
use crate::util::{self, free_port};

/// What the cases refer to: the one voter, an unstarted learner, files and free ports.
pub(super) struct Ctx {
    pub(super) engine: bool,
    pub(super) voter: String,
    pub(super) voter_id: String,
    pub(super) voter_peer: String,
    pub(super) voter_client: String,
    pub(super) learner_id: String,
    pub(super) learner_peer: String,
    /// `host:port` of the voter's client URL (https is assumed with TLS flags).
    pub(super) bare_endpoint: String,
    pub(super) pki: util::tls::Pki,
    pub(super) other_ca: PathBuf,
    pub(super) garbage: PathBuf,
}

pub(super) fn member_list(doc: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(doc).expect("member list JSON");
    v["members"].as_array().expect("members").clone()
}

pub(super) fn first_url(m: &Value, key: &str) -> String {
    m[key][0].as_str().expect("a URL").to_string()
}

impl Ctx {
    pub(super) fn new(engine: bool, list: &str, dir: &Path) -> Ctx {
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
    pub(super) fn joint(&self, c: Case) -> Case {
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

pub(super) fn free_url() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

pub(super) fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// 100 KB of `a`.
pub(super) fn long() -> String {
    "a".repeat(100 * 1024)
}
