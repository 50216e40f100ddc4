//! The etcd servers of the version matrix: Debian's 3.4 from PATH, and 3.5, 3.6, 3.7 pinned in tests/support/etcd/ (crates.io `etcd-bin-vendored`), fetched by cargo on first use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// Every etcd minor version the tests run against.
pub const VERSIONS: [&str; 4] = ["3.4", "3.5", "3.6", "3.7"];

static FOUND: Mutex<Option<HashMap<String, Result<PathBuf, String>>>> = Mutex::new(None);

/// The etcd server binary of minor `version` ("3.4" … "3.7"), or why it is
/// not available (looked up once per version).
pub fn find(version: &str) -> Result<PathBuf, String> {
    if version == "3.4" {
        return super::etcd::etcd_binary().ok_or_else(|| {
            "etcd is not installed: apt-get install etcd-server, or set ETCD_BIN".into()
        });
    }
    let mut found = FOUND.lock().unwrap_or_else(|p| p.into_inner());
    found
        .get_or_insert_with(HashMap::new)
        .entry(version.to_string())
        .or_insert_with(|| vendored(version))
        .clone()
}

/// The etcd server binary of minor `version`, for a case that declares
/// `Need::EtcdServer(version)` (or runs once per version): the harness has
/// ignored the case where the server is missing, so a panic here means the
/// case did not declare it.
pub fn etcd_server(version: &str) -> PathBuf {
    find(version).unwrap_or_else(|why| panic!("etcd {version} is not available: {why}"))
}

/// Finds (downloading on first use) the server binary that the manifest in
/// tests/support/etcd/v3_N pins, through `cargo metadata`.
fn vendored(version: &str) -> Result<PathBuf, String> {
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err("the pinned etcd servers are linux-x86_64 binaries".into());
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support/etcd")
        .join(format!("v{}", version.replace('.', "_")))
        .join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", "x86_64-unknown-linux-gnu"])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata --manifest-path {} failed: {}",
            manifest.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let package = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "etcd-bin-vendored-linux-amd64")
        .ok_or("cargo metadata lists no etcd-bin-vendored-linux-amd64")?;
    let dir = Path::new(package["manifest_path"].as_str().unwrap_or_default())
        .parent()
        .ok_or("no package directory")?
        .to_path_buf();
    let binary = dir.join("bin/etcd");
    if !binary.is_file() {
        return Err(format!("{} is missing", binary.display()));
    }
    Ok(binary)
}

/// The version the server binary reports (`etcd --version`), e.g. "3.6.15".
pub fn reported_version(binary: &Path) -> String {
    let out = Command::new(binary)
        .arg("--version")
        .env("ETCD_UNSUPPORTED_ARCH", std::env::consts::ARCH)
        .output()
        .expect("run etcd --version");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("etcd Version: "))
        .unwrap_or_default()
        .trim()
        .to_string()
}
