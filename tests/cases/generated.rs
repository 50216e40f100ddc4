//! The committed shell completions and man pages match what the current CLI generates.

use crate::util::memberctl;

/// completions/ and man/ are what the current CLI generates. To update them:
/// `MEMBERCTL_BLESS=1 cargo test --test tests generated_files`.
fn generated_files_are_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("MEMBERCTL_BLESS").is_ok_and(|v| v == "1") {
        memberctl::cli::generate::write_all(root).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    memberctl::cli::generate::write_all(tmp.path()).unwrap();
    let mut checked = 0;
    for sub in ["completions", "man"] {
        let mut names: Vec<_> = std::fs::read_dir(tmp.path().join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            let fresh = std::fs::read(tmp.path().join(sub).join(&name)).unwrap();
            let committed = std::fs::read(root.join(sub).join(&name)).unwrap_or_default();
            assert!(
                fresh == committed,
                "{sub}/{} differs from what the CLI generates; run MEMBERCTL_BLESS=1 cargo test --test tests generated_files",
                name.to_string_lossy()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5 + 10, "only {checked} files generated");
    // The table of etcd's flags on the engine.
    let table = root.join("docs/etcd-flags.md");
    if std::env::var("MEMBERCTL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&table, memberctl::cli::etcd_flags::markdown()).unwrap();
    }
    assert!(
        std::fs::read_to_string(&table).unwrap_or_default()
            == memberctl::cli::etcd_flags::markdown(),
        "docs/etcd-flags.md differs from src/cli/etcd_flags.rs; run MEMBERCTL_BLESS=1 cargo test --test tests generated_files"
    );
    // The man page of memberctl documents exit codes and environment variables.
    let man = std::fs::read_to_string(root.join("man/memberctl.1")).unwrap();
    assert!(
        man.contains("Exit codes") && man.contains("MEMBERCTL_ENDPOINTS"),
        "{man}"
    );
    // `memberctl completion SHELL` prints the same script.
    let r = memberctl(&["completion", "bash"]).expect(0);
    assert_eq!(
        r.stdout.as_bytes(),
        std::fs::read(root.join("completions/memberctl.bash")).unwrap()
    );
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![generated_files_are_up_to_date,]
}
