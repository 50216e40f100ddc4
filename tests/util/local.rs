//! A local test cluster of memberctl's own engine for the integration tests, and a small KV client.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use memberctl::proto::etcdserverpb::kv_client::KvClient;
use memberctl::proto::etcdserverpb::{PutRequest, RangeRequest};
use serde_json::Value;

use super::Run;

/// A `memberctl cluster up` cluster in a temporary directory; `cluster down` on drop.
pub struct Local {
    dir: tempfile::TempDir,
    pub up: Value,
    /// Environment given to every memberctl run (and so to the nodes it starts).
    env: Vec<(String, String)>,
}

fn command_in(dir: &Path, env: &[(String, String)], args: &[&str]) -> std::process::Command {
    let mut cmd = super::memberctl_command(args);
    cmd.env("MEMBERCTL_CLUSTER_DIR", dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn run_in(dir: &Path, env: &[(String, String)], args: &[&str]) -> Run {
    super::run(&mut command_in(dir, env, args))
}

impl Local {
    /// `cluster up` with extra flags; panics (with the logs) when it fails.
    pub fn up(extra: &[&str]) -> Local {
        Local::up_with_env(extra, &[])
    }

    /// `cluster up` with extra flags, every memberctl run (and node) with `env`.
    pub fn up_with_env(extra: &[&str], env: &[(&str, &str)]) -> Local {
        let dir = tempfile::tempdir().expect("temp dir");
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut args = vec!["cluster", "up", "-w", "json"];
        args.extend_from_slice(extra);
        let r = run_in(dir.path(), &env, &args);
        let mut local = Local {
            dir,
            up: Value::Null,
            env,
        };
        if r.code != 0 {
            panic!(
                "cluster up failed: {}\n{}\nlogs:\n{}",
                r.stderr,
                r.stdout,
                local.logs()
            );
        }
        local.up = r.json();
        local
    }

    /// Node `name`'s record in the cluster's state file, and the whole state.
    pub fn record(&self, name: &str) -> (Value, Value) {
        let state: Value =
            serde_json::from_slice(&std::fs::read(self.dir().join("cluster.json")).unwrap())
                .unwrap();
        let node = state["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name} recorded"))
            .clone();
        (node, state)
    }

    /// `memberctl node run` of node `name` as the cluster recorded it (data
    /// directory, URLs, timing), with `extra` flags: for starting a node by
    /// hand, as an operator would (a removed node, `--force-new-cluster`).
    pub fn node_run(&self, name: &str, extra: &[&str]) -> std::process::Command {
        let (node, _) = self.record(name);
        let url = node["client_url"].as_str().unwrap().to_string();
        self.node_run_advertising(name, &url, extra)
    }

    /// [`Local::node_run`], the node advertising `client_url` to the cluster
    /// instead of the URL it listens on (a proxy in front of it).
    pub fn node_run_advertising(
        &self,
        name: &str,
        client_url: &str,
        extra: &[&str],
    ) -> std::process::Command {
        let (node, state) = self.record(name);
        let s = |v: &Value| v.as_str().unwrap().to_string();
        let num = |v: &Value| v.as_u64().unwrap().to_string();
        let mut cmd = std::process::Command::new(super::bin());
        cmd.args([
            "node",
            "run",
            "--name",
            name,
            "--data-dir",
            &s(&node["data_dir"]),
        ])
        .args(["--listen-client-urls", &s(&node["client_url"])])
        .args(["--advertise-client-urls", client_url])
        .args(["--listen-peer-urls", &s(&node["peer_url"])])
        .args(["--initial-advertise-peer-urls", &s(&node["peer_url"])])
        .args(["--initial-cluster", &s(&node["initial_cluster"])])
        .args(["--heartbeat-interval", &num(&state["heartbeat_ms"])])
        .args(["--election-timeout", &num(&state["election_timeout_ms"])])
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
        cmd
    }

    /// The cluster directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// memberctl with this cluster as the default, for the caller to run
    /// (and perhaps kill) itself.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        command_in(self.dir.path(), &self.env, args)
    }

    /// Runs memberctl with this cluster as the default (no --endpoints).
    pub fn ctl(&self, args: &[&str]) -> Run {
        run_in(self.dir.path(), &self.env, args)
    }

    /// `cluster status -w json`.
    pub fn status(&self) -> Value {
        self.ctl(&["cluster", "status", "-w", "json"])
            .expect(0)
            .json()
    }

    /// The node called `name` in `cluster status -w json`.
    pub fn node(&self, name: &str) -> Value {
        let status = self.status();
        let node = status["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == name)
            .cloned();
        node.unwrap_or_else(|| panic!("no node {name} in {status}"))
    }

    /// The client URL of the node called `name`.
    pub fn client_url(&self, name: &str) -> String {
        self.node(name)["client_url"].as_str().unwrap().to_string()
    }

    /// Client URLs of the running nodes, without the scheme (as etcdctl takes them).
    pub fn endpoints(&self) -> Vec<String> {
        self.status()["endpoints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                e.as_str()
                    .unwrap()
                    .trim_start_matches("http://")
                    .to_string()
            })
            .collect()
    }

    /// Kills running node `name` with SIGKILL and waits until it is gone.
    pub fn kill_node(&self, name: &str) {
        let pid = self
            .pids()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
            .unwrap_or_else(|| panic!("{name} is not running"));
        self.kill9(pid);
    }

    /// The recorded pid of each running node, by name.
    pub fn pids(&self) -> Vec<(String, u32)> {
        self.status()["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["running"] == true)
            .map(|n| {
                (
                    n["name"].as_str().unwrap().to_string(),
                    n["pid"].as_u64().unwrap() as u32,
                )
            })
            .collect()
    }

    /// Kills a node with SIGKILL.
    pub fn kill9(&self, pid: u32) {
        // SAFETY: sending a signal to a node process this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        super::wait_for("the killed node to exit", Duration::from_secs(10), || {
            super::faults::exited(pid).then_some(())
        });
    }

    /// `member joint status -w json`, which must succeed.
    pub fn joint_status(&self) -> Value {
        let r = self.ctl(&["member", "joint", "status", "-w", "json"]);
        assert_eq!(r.code, 0, "joint status: {}\n{}", r.stderr, self.logs());
        r.json()
    }

    /// `member joint enter ARGS -w json`, which must succeed: it waits for
    /// the learners to promote to catch up. The configuration it reports is
    /// returned without the pre-flight checks, the cost and the catch-up the
    /// report carries (asserted here: one per check, one catch-up per
    /// `--promote`, each with a prediction and ending ready), so that it
    /// compares with `joint status`.
    pub fn joint_enter(&self, args: &[&str]) -> Value {
        let mut all = vec!["member", "joint", "enter"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-w", "json"]);
        let r = self.ctl(&all);
        assert_eq!(r.code, 0, "joint enter: {}\n{}", r.stderr, self.logs());
        let mut doc = r.json();
        let fields = doc.as_object_mut().expect("a JSON object");
        let checks = fields.remove("checks");
        let n = checks.as_ref().and_then(Value::as_array).map(Vec::len);
        assert_eq!(
            n,
            Some(super::CHANGE_CHECKS),
            "joint enter reports its checks: {checks:?}"
        );
        let cost = fields.remove("cost");
        let counted = cost.as_ref().and_then(|c| c["members_read"].as_u64());
        assert!(counted > Some(0), "joint enter reports its cost: {cost:?}");
        let catch_up = fields
            .remove("catch_up")
            .expect("joint enter reports the catch-up");
        let promoted = args.iter().filter(|a| **a == "--promote").count();
        let seen = catch_up.as_array().expect("a catch-up array");
        assert_eq!(seen.len(), promoted, "one catch-up per learner: {catch_up}");
        for c in seen {
            assert!(
                c["predicted_seconds"].as_f64().is_some(),
                "a prediction: {c}"
            );
            let last = c["phases"].as_array().and_then(|p| p.last()).cloned();
            assert_eq!(
                last.map(|p| p["phase"].clone()),
                Some("ready".into()),
                "{c}"
            );
        }
        doc
    }

    /// The last lines of every node's log.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        if let Ok(entries) = std::fs::read_dir(self.dir.path().join(".")) {
            let mut paths: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for p in paths
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "log"))
            {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                out.push_str(&format!(
                    "== {}\n{}\n",
                    p.display(),
                    lines[lines.len().saturating_sub(15)..].join("\n")
                ));
            }
        }
        out
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        let _ = run_in(self.dir.path(), &self.env, &["cluster", "down"]);
    }
}

/// The runtime the blocking gRPC helpers run on.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// A channel to `endpoint` (`host:port` or a URL).
pub async fn channel(endpoint: &str) -> Result<tonic::transport::Channel, String> {
    let url = if endpoint.contains("://") {
        endpoint.to_string()
    } else {
        format!("http://{endpoint}")
    };
    let ep = tonic::transport::Endpoint::from_shared(url)
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_secs(1));
    tokio::time::timeout(Duration::from_secs(2), ep.connect())
        .await
        .map_err(|_| "connect timed out".to_string())?
        .map_err(|e| e.to_string())
}

async fn kv(endpoint: &str) -> Result<KvClient<tonic::transport::Channel>, String> {
    Ok(KvClient::new(channel(endpoint).await?).max_decoding_message_size(64 << 20))
}

/// The requests sent on `rx`, as a client stream's requests.
pub fn requests<T: Send + 'static>(
    rx: tokio::sync::mpsc::UnboundedReceiver<T>,
) -> impl futures_util::Stream<Item = T> + Send {
    futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|r| (r, rx)) })
}

/// A request to watch `[key, range_end)` from now on.
pub fn watch_create(key: &[u8], range_end: &[u8]) -> memberctl::proto::etcdserverpb::WatchRequest {
    use memberctl::proto::etcdserverpb as epb;
    epb::WatchRequest {
        request_union: Some(epb::watch_request::RequestUnion::CreateRequest(
            epb::WatchCreateRequest {
                key: key.to_vec(),
                range_end: range_end.to_vec(),
                ..Default::default()
            },
        )),
    }
}

/// Puts `key` through `endpoint`; Ok once acknowledged.
pub fn put(endpoint: &str, key: &str, value: &str) -> Result<(), String> {
    runtime().block_on(async {
        let mut c = kv(endpoint).await?;
        let req = PutRequest {
            key: key.into(),
            value: value.into(),
            ..Default::default()
        };
        tokio::time::timeout(Duration::from_secs(10), c.put(req))
            .await
            .map_err(|_| "put timed out".to_string())?
            .map(|_| ())
            .map_err(|s| s.message().to_string())
    })
}

/// All keys with `prefix` at `endpoint` (serializable: the member's own copy).
pub fn get_prefix(endpoint: &str, prefix: &str) -> Result<Vec<(String, String)>, String> {
    range(endpoint, prefix, true)
}

/// All keys with `prefix` through `endpoint`, read linearizably (confirmed by
/// the leader: every acknowledged write is in it).
pub fn get_prefix_linearizable(
    endpoint: &str,
    prefix: &str,
) -> Result<Vec<(String, String)>, String> {
    range(endpoint, prefix, false)
}

fn range(
    endpoint: &str,
    prefix: &str,
    serializable: bool,
) -> Result<Vec<(String, String)>, String> {
    runtime().block_on(async {
        let mut c = kv(endpoint).await?;
        let mut end = prefix.as_bytes().to_vec();
        if let Some(last) = end.last_mut() {
            *last += 1;
        }
        let req = RangeRequest {
            key: prefix.into(),
            range_end: end,
            serializable,
            ..Default::default()
        };
        let r = tokio::time::timeout(Duration::from_secs(10), c.range(req))
            .await
            .map_err(|_| "range timed out".to_string())?
            .map_err(|s| s.message().to_string())?
            .into_inner();
        Ok(r.kvs
            .into_iter()
            .map(|kv| {
                (
                    String::from_utf8_lossy(&kv.key).into_owned(),
                    String::from_utf8_lossy(&kv.value).into_owned(),
                )
            })
            .collect())
    })
}
