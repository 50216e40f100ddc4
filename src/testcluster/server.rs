//! Which server the local cluster's members run: memberctl's engine (`node run`) or the operator's own etcd binary (`cluster up --etcd PATH`), and the command line each is started with.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::state::{ClusterState, NodeRecord};
use super::UpOptions;
use crate::error::{Error, ErrorKind};

/// An etcd server binary the local cluster's members run, as `--version` named it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct EtcdBinary {
    /// The binary, as an absolute path.
    pub path: PathBuf,
    /// Its version (`etcd Version: …` of `--version`), e.g. `3.4.23`.
    pub version: String,
    /// Flags of the operator's own given to every member (`--etcd-flag`),
    /// after memberctl's.
    #[serde(default)]
    pub flags: Vec<String>,
}

/// The flags memberctl gives every member itself: an `--etcd-flag` naming
/// one is refused (the cluster's layout depends on them).
const OWN_FLAGS: [&str; 12] = [
    "--name",
    "--data-dir",
    "--listen-client-urls",
    "--advertise-client-urls",
    "--listen-peer-urls",
    "--initial-advertise-peer-urls",
    "--initial-cluster",
    "--initial-cluster-state",
    "--snapshot-count",
    "--heartbeat-interval",
    "--election-timeout",
    "--quota-backend-bytes",
];

impl EtcdBinary {
    /// Reads the version of the etcd binary at `path` (`PATH --version`);
    /// refuses a path that is not an etcd of 3.4 or later.
    pub fn probe(path: &Path) -> Result<EtcdBinary, Error> {
        let path = std::path::absolute(path)
            .map_err(|e| Error::usage(format!("--etcd {}: {e}", path.display())))?;
        if !path.is_file() {
            return Err(Error::usage(format!(
                "--etcd {}: no such file; give the path of an etcd server binary (e.g. --etcd \"$(command -v etcd)\")",
                path.display()
            )));
        }
        let out = Command::new(&path)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                Error::usage(format!(
                    "--etcd {}: cannot run it: {e}; give the path of an etcd server binary",
                    path.display()
                ))
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix("etcd Version: "))
            .map(|v| v.trim().to_string());
        let Some(version) = version.filter(|_| out.status.success()) else {
            return Err(Error::usage(format!(
                "--etcd {}: `--version` did not name an etcd version (said {:?}); give the path of an etcd server binary",
                path.display(),
                text.trim()
            )));
        };
        let bin = EtcdBinary {
            path,
            version,
            flags: Vec::new(),
        };
        match bin.minor() {
            Some((3, m)) if m >= 4 => Ok(bin),
            _ => Err(Error::usage(format!(
                "--etcd {}: etcd {} is not supported; memberctl's local cluster runs etcd 3.4 to 3.7",
                bin.path.display(),
                bin.version
            ))),
        }
    }

    /// Major and minor version.
    pub fn minor(&self) -> Option<(u64, u64)> {
        let mut parts = self.version.split('.').map(|p| p.parse::<u64>().ok());
        Some((parts.next()??, parts.next()??))
    }

    /// Whether this etcd takes `--max-learners` (3.6 and later; before, one
    /// learner at most, fixed).
    fn has_max_learners(&self) -> bool {
        self.minor().is_some_and(|v| v >= (3, 6))
    }

    /// The restore tool for this etcd among those `present` says are next
    /// to it: `etcdutl snapshot restore` (3.5 and later), else `etcdctl
    /// snapshot restore` — but only before 3.6: etcdctl 3.4 restores the
    /// membership into the v2 store alone, and etcd 3.6, which reads it from
    /// its database, panics on such a directory ("failed to update; member
    /// unknown", measured on 3.6.15), while 3.6's own etcdctl has no restore.
    pub fn restore_tool(&self, present: impl Fn(&str) -> bool) -> Result<&'static str, String> {
        if present("etcdutl") {
            return Ok("etcdutl");
        }
        let before_3_6 = self.minor().is_some_and(|v| v < (3, 6));
        if before_3_6 && present("etcdctl") {
            return Ok("etcdctl");
        }
        Err(if before_3_6 {
            format!(
                "etcd {} opens only a data directory its own tools restore, and neither etcdutl nor etcdctl is next to it",
                self.version
            )
        } else {
            format!(
                "etcd {} opens only a data directory etcdutl restores (an older etcdctl's restore makes it panic), and no etcdutl is next to it",
                self.version
            )
        })
    }

    /// Refuses, before anything is made, what `cluster up` was asked that
    /// this etcd cannot do.
    pub fn check(&self, options: &UpOptions) -> Result<(), Error> {
        let refuse = |what: &str| {
            Err(Error::usage(format!(
                "{what} with --etcd {} (etcd {}): {}",
                self.path.display(),
                self.version,
                "drop the flag, or run the cluster on memberctl's engine (without --etcd)"
            )))
        };
        if options.fault_injection || options.fault_stale_reads || options.fault_ack_before_fsync {
            return refuse(
                "--fault-injection and its deliberate bugs are the engine's; etcd has none",
            );
        }
        if options.max_learners != 1 && !self.has_max_learners() {
            return refuse("--max-learners: etcd before 3.6 allows one learner, fixed");
        }
        for flag in &self.flags {
            let name = flag.split('=').next().unwrap_or_default();
            if !name.starts_with("--") {
                return Err(Error::usage(format!(
                    "--etcd-flag {flag:?}: give one etcd flag, with its value after '=' (e.g. --etcd-flag=--auto-compaction-retention=1)"
                )));
            }
            let own = name.replace('_', "-");
            if OWN_FLAGS.contains(&own.as_str()) || own == "--max-learners" {
                return Err(Error::usage(format!(
                    "--etcd-flag {flag}: memberctl sets {own} on every member itself; use cluster up's own flag of that name where it has one"
                )));
            }
        }
        Ok(())
    }

    /// The command line that starts `node` as an etcd member, with `cluster`'s settings.
    pub fn command(&self, node: &NodeRecord, cluster: &ClusterState) -> Command {
        let mut cmd = Command::new(&self.path);
        cmd.args(["--name", &node.name])
            .arg("--data-dir")
            .arg(&node.data_dir)
            .args(["--listen-client-urls", &node.client_url])
            .args(["--advertise-client-urls", &node.client_url])
            .args([
                "--listen-peer-urls",
                ClusterState::listen_peer_url(node),
                "--initial-advertise-peer-urls",
                &node.peer_url,
            ])
            .args(["--initial-cluster", &node.initial_cluster])
            .args(["--initial-cluster-state", &node.initial_cluster_state])
            .args(["--snapshot-count", &cluster.snapshot_count.to_string()])
            .args(["--heartbeat-interval", &cluster.heartbeat_ms.to_string()])
            .args([
                "--election-timeout",
                &cluster.election_timeout_ms.to_string(),
            ]);
        if cluster.quota_backend_bytes > 0 {
            cmd.args([
                "--quota-backend-bytes",
                &cluster.quota_backend_bytes.to_string(),
            ]);
        }
        if self.has_max_learners() {
            cmd.args(["--max-learners", &cluster.max_learners.to_string()]);
        }
        cmd.args(&self.flags);
        cmd
    }

    /// Fills `node`'s data directory from a snapshot file with the restore
    /// tool next to the binary (see [`EtcdBinary::restore_tool`]); refuses
    /// when there is none whose work this etcd opens. memberctl's own
    /// restore writes the engine's data directory, which etcd does not open.
    pub fn restore(
        &self,
        file: &Path,
        skip_hash_check: bool,
        node: &NodeRecord,
    ) -> Result<(), Error> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let tool = self
            .restore_tool(|t| dir.join(t).is_file())
            .map(|t| dir.join(t))
            .map_err(|why| {
                Error::usage(format!(
                    "--from-snapshot with --etcd {}: {why} in {}; put etcd's release (etcd, etcdutl, etcdctl) in one folder",
                    self.path.display(),
                    dir.display(),
                ))
            })?;
        let mut cmd = Command::new(&tool);
        cmd.args(["snapshot", "restore"])
            .arg(file)
            .args(["--name", &node.name])
            .arg("--data-dir")
            .arg(&node.data_dir)
            .args(["--initial-cluster", &node.initial_cluster])
            .args(["--initial-advertise-peer-urls", &node.peer_url]);
        if skip_hash_check {
            cmd.arg("--skip-hash-check");
        }
        // etcdctl 3.4 restores only under its v3 API (the default from 3.4 on).
        cmd.env("ETCDCTL_API", "3");
        let out = cmd.stdin(Stdio::null()).output().map_err(|e| {
            Error::new(
                ErrorKind::Internal,
                format!("cannot start {}: {e}", tool.display()),
            )
        })?;
        if out.status.success() {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::Internal,
            format!(
                "cannot restore node {} from {} with {}: {}",
                node.name,
                file.display(),
                tool.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn etcd(version: &str) -> EtcdBinary {
        EtcdBinary {
            path: PathBuf::from("/opt/etcd/etcd"),
            version: version.into(),
            flags: Vec::new(),
        }
    }

    #[test]
    fn etcdutl_restores_when_it_is_there() {
        for v in ["3.4.23", "3.5.25", "3.6.15", "3.7.2"] {
            assert_eq!(etcd(v).restore_tool(|_| true), Ok("etcdutl"), "{v}");
        }
    }

    #[test]
    fn etcdctl_restores_only_before_3_6() {
        let only_etcdctl = |t: &str| t == "etcdctl";
        assert_eq!(etcd("3.4.23").restore_tool(only_etcdctl), Ok("etcdctl"));
        assert_eq!(etcd("3.5.25").restore_tool(only_etcdctl), Ok("etcdctl"));
        for v in ["3.6.15", "3.7.2"] {
            let why = etcd(v).restore_tool(only_etcdctl).unwrap_err();
            assert!(why.contains("no etcdutl"), "{v}: {why}");
        }
        let why = etcd("3.4.23").restore_tool(|_| false).unwrap_err();
        assert!(why.contains("neither etcdutl nor etcdctl"), "{why}");
    }
}
