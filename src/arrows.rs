//! Rules about the source held by tests that read it: the arrows of docs/ARCHITECTURE.md (which top-level modules each part may name, `crate::X`, in code and in doc links), who may write to stdout, and docs/engine.md's table of the engine's threads and tasks.

use std::collections::BTreeMap;
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

/// src/, this crate's source.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `crate::…` path named in the files under src/`part` (test code
/// left out when `skip_tests`), with the file that names it.
fn names_in(part: &str, skip_tests: bool) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for file in files(&src().join(part)) {
        if skip_tests && is_test(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        out.extend(named(&text).into_iter().map(|path| (file.clone(), path)));
    }
    out
}

/// The part of src/ at `part`: every top-level module its files name that is
/// not in `allowed`, as `file: crate::path`.
fn offences(part: &str, allowed: &[&str], skip_tests: bool) -> Vec<String> {
    names_in(part, skip_tests)
        .into_iter()
        .filter(|(_, path)| {
            let top = match path.split("::").next().unwrap_or_default() {
                // lib.rs's re-exports of `error`'s two types.
                "Error" | "ErrorKind" => "error",
                top => top,
            };
            !allowed.contains(&top)
        })
        .map(|(file, path)| format!("{}: crate::{path}", file.display()))
        .collect()
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
    let engine = src().join("engine");
    let found: Vec<String> = names_in("", false)
        .into_iter()
        .filter(|(file, path)| {
            !file.starts_with(&engine)
                && path.starts_with("engine")
                && !path.starts_with("engine::startup")
        })
        .map(|(file, path)| format!("{}: crate::{path}", file.display()))
        .collect();
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
    let src = src();
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

/// What starts a thread or a task.
const SPAWNS: [&str; 5] = [
    "thread::Builder::new()",
    "thread::spawn(",
    "tokio::spawn(",
    "spawn_blocking(",
    "task::spawn(",
];

/// The spawn calls of each file of src/engine outside its test module, by
/// path relative to src/engine.
fn spawn_sites() -> BTreeMap<String, usize> {
    let engine = src().join("engine");
    let mut found = BTreeMap::new();
    for file in files(&engine) {
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let n = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .filter(|l| SPAWNS.iter().any(|s| l.contains(s)))
            .count();
        if n > 0 {
            let rel = file.strip_prefix(&engine).unwrap();
            found.insert(rel.to_string_lossy().into_owned(), n);
        }
    }
    found
}

/// The rows of the table in docs/engine.md's "Threads, tasks and clocks",
/// counted by the file each names in its "started in" column.
fn table_rows(doc: &str) -> BTreeMap<String, usize> {
    let section = doc
        .split("\n## Threads, tasks and clocks\n")
        .nth(1)
        .expect("docs/engine.md has the section")
        .split("\n## ")
        .next()
        .unwrap_or("");
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let Some(started_in) = line.split('|').nth(2) else {
            continue;
        };
        let file = started_in.trim().trim_matches('`');
        if file.ends_with(".rs") {
            *rows.entry(file.to_string()).or_default() += 1;
        }
    }
    rows
}

#[test]
fn every_engine_spawn_site_is_in_the_table() {
    let sites = spawn_sites();
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/engine.md"))
        .expect("docs/engine.md");
    assert!(sites.len() > 10, "the walk found spawn sites: {sites:?}");
    assert_eq!(
        table_rows(&doc),
        sites,
        "docs/engine.md's \"Threads, tasks and clocks\" names each file of src/engine as \
         many times as it starts threads or tasks (left: the table, right: the code)"
    );
}

#[test]
fn a_path_is_read_whole() {
    assert_eq!(
        named("use crate::engine::startup::{a, b}; $crate::x; my_crate::y"),
        ["engine::startup::", "x"]
    );
}
