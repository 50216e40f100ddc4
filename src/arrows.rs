//! The arrows of docs/ARCHITECTURE.md held by a test: which top-level modules each part may name (`crate::X`, in code and in doc links), and who may write to stdout.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `path` (or `path` itself when it is a file).
fn files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// Whether `file` is test code (a `tests` folder, `tests.rs`, the fake, or
/// this file).
fn is_test(file: &Path) -> bool {
    let s = file.to_string_lossy();
    s.contains("/tests/")
        || s.ends_with("tests.rs")
        || s.ends_with("/fake.rs")
        || s.ends_with("/arrows.rs")
}

/// Each `crate::NAME` (and what follows it, up to the next non-path
/// character) named in `text`.
fn named(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .filter(|(i, _)| {
            // `$crate::` in a macro is the crate too; `foo_crate::` is not.
            let before = text[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(i, _)| {
            text[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect()
        })
        .collect()
}

/// The part of src/ at `part`: every top-level module its files name that is
/// not in `allowed`, as `file: crate::path`.
fn offences(part: &str, allowed: &[&str], skip_tests: bool) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    for file in files(&src.join(part)) {
        if skip_tests && is_test(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for path in named(&text) {
            let top = match path.split("::").next().unwrap_or_default() {
                // lib.rs's re-exports of `error`'s two types.
                "Error" | "ErrorKind" => "error",
                top => top,
            };
            if !allowed.contains(&top) {
                out.push(format!("{}: crate::{path}", file.display()));
            }
        }
    }
    out
}

/// What lies below both halves.
const BELOW: [&str; 6] = ["rules", "etcd_db", "proto", "error", "der", "trust"];

#[test]
fn the_engine_names_nothing_of_the_client_half() {
    let allowed: Vec<&str> = ["engine"].iter().chain(BELOW.iter()).copied().collect();
    let found = offences("engine", &allowed, false);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_client_half_uses_of_the_engine_only_startup() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in files(&src) {
        if file.starts_with(src.join("engine")) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for path in named(&text) {
            if path.starts_with("engine") && !path.starts_with("engine::startup") {
                found.push(format!("{}: crate::{path}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn what_lies_below_names_neither_half() {
    for part in [
        "rules", "etcd_db", "der.rs", "trust.rs", "error.rs", "proto.rs",
    ] {
        let found = offences(part, &BELOW, false);
        assert!(found.is_empty(), "{found:#?}");
    }
    for (part, allowed) in [
        ("link", &["link"][..]),
        ("history", &["history"]),
        ("model", &["model", "der", "rules"]),
        ("model.rs", &["model", "der", "rules"]),
    ] {
        let found = offences(part, allowed, false);
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn workflows_name_domain_types_and_their_trait_only() {
    let found = offences("workflow", &["workflow", "model", "error", "rules"], true);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn only_the_printer_writes_to_stdout() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in files(&src) {
        if file.starts_with(src.join("printer")) || is_test(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let writes = ["println!", "print!(", "stdout()"].iter().any(|w| {
                line.match_indices(w)
                    .any(|(i, _)| !line[..i].ends_with('e') && !line.trim_start().starts_with("//"))
            });
            if writes {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_path_is_read_whole() {
    assert_eq!(
        named("use crate::engine::startup::{a, b}; $crate::x; my_crate::y"),
        ["engine::startup::", "x"]
    );
}
