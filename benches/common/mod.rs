//! Helpers shared by the benchmarks: run the built binary, connect a KV client.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

use memberctl::proto::etcdserverpb::kv_client::KvClient;
use serde_json::Value;

/// Runs the built memberctl with the local cluster in `dir`; its JSON output.
pub fn memberctl(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_memberctl"))
        .args(args)
        .args(["-w", "json"])
        .env("MEMBERCTL_CLUSTER_DIR", dir)
        .env_remove("MEMBERCTL_ENDPOINTS")
        .env_remove("ETCDCTL_ENDPOINTS")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run memberctl");
    assert!(
        out.status.success(),
        "memberctl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// A KV client connected to `url`.
pub async fn client(url: &str) -> KvClient<tonic::transport::Channel> {
    let ch = tonic::transport::Endpoint::from_shared(url.to_string())
        .unwrap()
        .connect()
        .await
        .expect("connect");
    KvClient::new(ch)
}
