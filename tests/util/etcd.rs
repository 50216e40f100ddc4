//! Real etcd for the interop tests: the installed binaries (or `ETCD_BIN`),
//! a cluster of etcd processes on loopback ports, and etcdctl runs.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::{free_port, memberctl, run, run_with_input, wait_for_every, Run};

/// The etcd binary, if installed (`ETCD_BIN` overrides the lookup in PATH).
pub fn etcd_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ETCD_BIN") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("etcd"))
        .find(|p| p.is_file())
}

/// The etcd binary; a case that calls this declares `Need::Etcd`, so the
/// harness has ignored it where etcd is missing: a panic here means the case
/// did not declare what it uses.
pub fn require_etcd() -> PathBuf {
    etcd_binary().unwrap_or_else(|| {
        panic!("etcd is not installed: apt-get install etcd-server, or set ETCD_BIN; a case that starts etcd lists Etcd among its needs")
    })
}

/// One etcd member process of a test cluster.
pub struct EtcdMember {
    pub name: String,
    pub client_port: u16,
    pub peer_port: u16,
    /// Where it really listens for peers when a link fronts `peer_port`.
    pub listen_peer_port: Option<u16>,
    child: Option<Child>,
}

impl EtcdMember {
    pub fn client_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    pub fn peer_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.peer_port)
    }
}

/// A real etcd cluster on loopback ports in a temporary directory; killed on drop.
pub struct Etcd {
    binary: PathBuf,
    /// Arguments before etcd's flags: `node run` when the binary is memberctl
    /// (the engine takes etcd's flags), else none.
    prefix: Vec<&'static str>,
    dir: tempfile::TempDir,
    pub members: Vec<EtcdMember>,
    /// etcd's timing flags (the tests use faster ones than etcd's defaults).
    timing: Vec<&'static str>,
    /// Environment variables for the next start only (`restart_with_env`).
    env: Vec<(&'static str, &'static str)>,
    /// The link model between the members, when they run behind one.
    links: Option<std::sync::Arc<memberctl::link::Links>>,
}

impl Etcd {
    /// Starts `n` members and waits until every one answers and a leader is elected.
    pub fn start(binary: PathBuf, n: usize) -> Etcd {
        Self::start_timed(
            binary,
            n,
            vec!["--heartbeat-interval", "50", "--election-timeout", "500"],
        )
    }

    /// Like [`Etcd::start`] with etcd's own default timing (100 ms / 1000 ms).
    pub fn start_default_timing(binary: PathBuf, n: usize) -> Etcd {
        Self::start_timed(binary, n, vec![])
    }

    /// Like [`Etcd::start`] with etcd's default timing and these extra flags
    /// (also given to members started later).
    pub fn start_with_flags(binary: PathBuf, n: usize, flags: Vec<&'static str>) -> Etcd {
        Self::start_timed(binary, n, flags)
    }

    fn start_timed(binary: PathBuf, n: usize, timing: Vec<&'static str>) -> Etcd {
        Self::start_full(binary, vec![], n, timing, None, &[])
    }

    /// One member of `binary`, a cluster of its own with etcd's default
    /// timing, serving clients on `client_port` (another cluster's server on
    /// an address a test chose).
    pub fn start_one_at(binary: PathBuf, client_port: u16) -> Etcd {
        Self::start_full(binary, vec![], 1, vec![], None, &[client_port])
    }

    /// `n` members of `binary` (etcd, or memberctl with `prefix` `node run`:
    /// the engine through the same steps) with `flags`, each behind `links`:
    /// every member pair's traffic crosses the link model.
    pub fn start_linked(
        binary: PathBuf,
        prefix: Vec<&'static str>,
        n: usize,
        flags: Vec<&'static str>,
        links: std::sync::Arc<memberctl::link::Links>,
    ) -> Etcd {
        Self::start_full(binary, prefix, n, flags, Some(links), &[])
    }

    /// Like [`Etcd::start_linked`] with no link in between: the members
    /// talk to each other directly (a shaped loopback's own link).
    pub fn start_direct(
        binary: PathBuf,
        prefix: Vec<&'static str>,
        n: usize,
        flags: Vec<&'static str>,
    ) -> Etcd {
        Self::start_full(binary, prefix, n, flags, None, &[])
    }

    fn start_full(
        binary: PathBuf,
        prefix: Vec<&'static str>,
        n: usize,
        timing: Vec<&'static str>,
        links: Option<std::sync::Arc<memberctl::link::Links>>,
        client_ports: &[u16],
    ) -> Etcd {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut members: Vec<EtcdMember> = (1..=n)
            .map(|i| EtcdMember {
                name: format!("m{i}"),
                client_port: client_ports.get(i - 1).copied().unwrap_or_else(free_port),
                peer_port: free_port(),
                listen_peer_port: None,
                child: None,
            })
            .collect();
        let initial: Vec<String> = members
            .iter()
            .map(|m| format!("{}={}", m.name, m.peer_url()))
            .collect();
        let initial = initial.join(",");
        let mut etcd = Etcd {
            binary,
            prefix,
            dir,
            members: Vec::new(),
            timing,
            env: Vec::new(),
            links,
        };
        for m in &mut members {
            m.listen_peer_port = etcd.front(&m.name, m.peer_port);
            m.child = Some(etcd.spawn(m, &initial, "new"));
        }
        etcd.members = members;
        etcd.wait_healthy();
        etcd
    }

    /// With a link: puts member `name`, advertised at `peer_port`, behind
    /// it; returns the port it really listens on.
    fn front(&self, name: &str, peer_port: u16) -> Option<u16> {
        let links = self.links.as_ref()?;
        let real = free_port();
        links
            .add(memberctl::link::Route {
                member: name.to_string(),
                listen: format!("127.0.0.1:{peer_port}").parse().unwrap(),
                target: format!("127.0.0.1:{real}").parse().unwrap(),
            })
            .expect("the link listens on the member's advertised peer port");
        Some(real)
    }

    fn spawn(&self, m: &EtcdMember, initial: &str, state: &str) -> Child {
        let name = &m.name;
        let client = m.client_url();
        let peer = m.peer_url();
        let listen_peer = format!(
            "http://127.0.0.1:{}",
            m.listen_peer_port.unwrap_or(m.peer_port)
        );
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(format!("{name}.log")))
            .expect("log file");
        Command::new(&self.binary)
            .args(&self.prefix)
            .args(["--name", name])
            .arg("--data-dir")
            .arg(self.dir.path().join(name))
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &listen_peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args([
                "--initial-cluster",
                initial,
                "--initial-cluster-state",
                state,
            ])
            .args(["--initial-cluster-token", "memberctl-test"])
            .args(&self.timing)
            .env("ETCD_UNSUPPORTED_ARCH", std::env::consts::ARCH)
            .envs(self.env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start etcd")
    }

    /// The data directory of member `i`.
    pub fn data_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join(&self.members[i].name)
    }

    /// Starts a member that `member add` has added, with the settings it printed.
    pub fn start_added(&mut self, name: &str, peer_port: u16, initial_cluster: &str) -> usize {
        self.start_added_at(name, peer_port, free_port(), initial_cluster)
    }

    /// [`Etcd::start_added`] serving clients on `client_port`.
    pub fn start_added_at(
        &mut self,
        name: &str,
        peer_port: u16,
        client_port: u16,
        initial_cluster: &str,
    ) -> usize {
        let mut m = EtcdMember {
            name: name.to_string(),
            client_port,
            peer_port,
            listen_peer_port: self.front(name, peer_port),
            child: None,
        };
        m.child = Some(self.spawn(&m, initial_cluster, "existing"));
        self.members.push(m);
        self.members.len() - 1
    }

    /// Starts an added member (as [`Etcd::start_added`]) on another server
    /// binary: a new member of an upgrade by replacement.
    pub fn start_added_on(
        &mut self,
        name: &str,
        peer_port: u16,
        initial_cluster: &str,
        binary: PathBuf,
    ) -> usize {
        let own = std::mem::replace(&mut self.binary, binary);
        let i = self.start_added(name, peer_port, initial_cluster);
        self.binary = own;
        i
    }

    /// The server binary the members run.
    pub fn binary(&self) -> &std::path::Path {
        &self.binary
    }

    /// The client URLs of the running members, comma-separated.
    pub fn endpoints(&self) -> String {
        let urls: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.child.is_some())
            .map(|m| m.client_url())
            .collect();
        urls.join(",")
    }

    /// Runs memberctl against this cluster (a generous command timeout covers
    /// etcd's 5 s "unhealthy cluster" window after start).
    pub fn ctl(&self, args: &[&str]) -> Run {
        let endpoints = self.endpoints();
        let mut all = vec!["--endpoints", &endpoints, "--command-timeout", "20s"];
        all.extend_from_slice(args);
        memberctl(&all)
    }

    /// `member list -w json`, parsed.
    pub fn list(&self) -> Value {
        self.ctl(&["member", "list", "-w", "json"]).expect(0).json()
    }

    /// The process ID of member `i`, while it runs.
    pub fn pid(&self, i: usize) -> Option<u32> {
        self.members[i].child.as_ref().map(|c| c.id())
    }

    /// Stops member `i` cleanly (SIGTERM) and waits until it has exited.
    pub fn stop(&mut self, i: usize) {
        if let Some(mut c) = self.members[i].child.take() {
            // SAFETY: signalling a member process this cluster started.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let _ = c.wait();
        }
    }

    /// Starts stopped member `i` again on its data directory.
    pub fn restart(&mut self, i: usize) {
        let m = &self.members[i];
        let initial = format!("{}={}", m.name, m.peer_url());
        let child = self.spawn(m, &initial, "existing");
        self.members[i].child = Some(child);
    }

    /// Starts stopped member `i` again on its data directory with `extra`
    /// flags for this start only (`--force-new-cluster`).
    pub fn restart_with(&mut self, i: usize, extra: &[&'static str]) {
        let own = self.timing.clone();
        self.timing.extend_from_slice(extra);
        self.restart(i);
        self.timing = own;
    }

    /// Starts stopped member `i` again on its data directory with these
    /// environment variables for this start only (`ETCD_FORCE_NEW_CLUSTER`).
    pub fn restart_with_env(&mut self, i: usize, env: &[(&'static str, &'static str)]) {
        self.env = env.to_vec();
        self.restart(i);
        self.env.clear();
    }

    /// Stops member `i` and starts it again on its data directory with
    /// another server binary (a rolling upgrade's step); the others keep theirs.
    pub fn restart_on(&mut self, i: usize, binary: PathBuf) {
        self.stop(i);
        let own = std::mem::replace(&mut self.binary, binary);
        self.restart(i);
        self.binary = own;
    }

    /// Kills member `i` with SIGKILL.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.members[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Waits until every running member answers status and one is the leader
    /// (polled every 20 ms, as `cluster up` polls, so start-up times compare).
    pub fn wait_healthy(&self) {
        let running = self.members.iter().filter(|m| m.child.is_some()).count();
        wait_for_every(
            "the etcd cluster to elect a leader",
            Duration::from_secs(30),
            Duration::from_millis(20),
            || {
                let r = self.ctl(&["member", "status", "-w", "json", "--dial-timeout", "500ms"]);
                if r.code != 0 {
                    return None;
                }
                let v = r.json();
                let reachable = v["members"]
                    .as_array()?
                    .iter()
                    .filter(|m| m["reachable"] == true)
                    .count();
                (v["leader"].is_string() && reachable >= running).then_some(())
            },
        );
    }

    /// The tail of a member's log, for failure messages.
    pub fn log(&self, name: &str) -> String {
        let text = std::fs::read_to_string(self.dir.path().join(format!("{name}.log")))
            .unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}

/// etcdctl, if installed.
pub fn etcdctl_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("etcdctl"))
        .find(|p| p.is_file())
}

/// etcdctl; like [`require_etcd`], for a case that declares `Need::Etcdctl`.
pub fn require_etcdctl() -> PathBuf {
    etcdctl_binary().unwrap_or_else(|| {
        panic!("etcdctl is not installed: apt-get install etcd-client; a case that runs etcdctl lists Etcdctl among its needs")
    })
}

/// etcdctl's timeouts in the tests: its 2 s dial (which includes
/// authenticating) turns an answer that a busy machine slows down into
/// "context deadline exceeded", so the tests give it longer (a flag on the
/// command line still wins).
const PATIENT: [(&str, &str); 2] = [
    ("ETCDCTL_DIAL_TIMEOUT", "10s"),
    ("ETCDCTL_COMMAND_TIMEOUT", "30s"),
];

/// Runs etcdctl (API v3) with `args`.
pub fn etcdctl(bin: &std::path::Path, endpoints: &str, args: &[&str]) -> Run {
    run(Command::new(bin)
        .env("ETCDCTL_API", "3")
        .envs(PATIENT)
        .arg(format!("--endpoints={endpoints}"))
        .args(args))
}

/// etcdctl with `input` on its standard input.
pub fn etcdctl_in(bin: &std::path::Path, eps: &str, args: &[&str], input: &[u8]) -> Run {
    run_with_input(
        Command::new(bin)
            .env("ETCDCTL_API", "3")
            .envs(PATIENT)
            .arg(format!("--endpoints={eps}"))
            .args(args),
        Some(input),
    )
}
