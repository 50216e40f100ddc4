//! The etcd servers of the version matrix: Debian's 3.4 from PATH, and 3.5, 3.6, 3.7 pinned in tests/support/etcd/ (crates.io `etcd-bin-vendored`), fetched by cargo on first use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// Every etcd minor version the tests run against.
pub const VERSIONS: [&str; 4] = ["3.4", "3.5", "3.6", "3.7"];

/// One test per etcd version for `fn $name(version: &'static str)`, named
/// `$name::v3_4` … `$name::v3_7`, so that a failure says which server it was.
#[allow(unused_macros)] // the benches include these helpers too
macro_rules! per_etcd_version {
    ($name:ident) => {
        mod $name {
            #[test]
            fn v3_4() {
                super::$name("3.4")
            }
            #[test]
            fn v3_5() {
                super::$name("3.5")
            }
            #[test]
            fn v3_6() {
                super::$name("3.6")
            }
            #[test]
            fn v3_7() {
                super::$name("3.7")
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use per_etcd_version;

static FOUND: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

/// The etcd server binary of minor `version` ("3.4" … "3.7"), or None after
/// saying why the test is skipped; with MEMBERCTL_REQUIRE_ETCD=1 (as in CI) a
/// missing server fails the test instead.
pub fn etcd_server(version: &str, test: &str) -> Option<PathBuf> {
    if version == "3.4" {
        return super::require_etcd(test);
    }
    let mut found = FOUND.lock().unwrap_or_else(|p| p.into_inner());
    let found = found.get_or_insert_with(HashMap::new);
    if let Some(p) = found.get(version) {
        return Some(p.clone());
    }
    match vendored(version) {
        Ok(p) => {
            found.insert(version.to_string(), p.clone());
            Some(p)
        }
        Err(why) => {
            if std::env::var("MEMBERCTL_REQUIRE_ETCD").is_ok_and(|v| v == "1") {
                panic!("{test}: etcd {version} is not available: {why}");
            }
            eprintln!("{test}: skipped: etcd {version} is not available: {why}");
            None
        }
    }
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
