//! Rules about the source held by tests that read it: the arrows of docs/ARCHITECTURE.md the compiler does not hold (which crates of the workspace each may depend on, which top-level modules each part of the root crate may name, `crate::X`, in code and in doc links), who may write to stdout, and docs/engine.md's table of the engine's threads and tasks.

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

/// The workspace's root (this crate's own folder).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// src/, this crate's source.
fn src() -> PathBuf {
    root().join("src")
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

/// The workspace's crates under crates/ and the ones each may depend on
/// (docs/ARCHITECTURE.md): the engine on what lies below both halves, never
/// on the root crate (the client half); the parts below on nothing of
/// memberctl's but the generated code.
const CRATES: [(&str, &[&str]); 6] = [
    ("base", &[]),
    (
        "engine",
        &["memberctl-base", "memberctl-etcd-db", "memberctl-proto"],
    ),
    ("etcd-db", &["memberctl-proto"]),
    ("history", &[]),
    ("link", &[]),
    ("proto", &[]),
];

/// The `memberctl-*` crates a manifest's `[dependencies]` name.
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let deps = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    let mut names: Vec<String> = deps
        .lines()
        .filter_map(|l| l.split(['=', '.', ' ']).next())
        .filter(|n| n.starts_with("memberctl-"))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    let found: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut listed: Vec<&str> = CRATES.iter().map(|(c, _)| *c).collect();
    let mut found_sorted = found.clone();
    found_sorted.sort();
    listed.sort();
    assert_eq!(
        found_sorted, listed,
        "every crate under crates/ is in CRATES"
    );
    for (name, allowed) in CRATES {
        let manifest =
            std::fs::read_to_string(root().join("crates").join(name).join("Cargo.toml")).unwrap();
        assert_eq!(
            workspace_dependencies(&manifest),
            allowed,
            "crates/{name}/Cargo.toml"
        );
    }
}

#[test]
fn the_client_half_uses_of_the_engine_only_startup() {
    let found: Vec<String> = names_in("", false)
        .into_iter()
        .filter(|(_, path)| path.starts_with("engine") && !path.starts_with("engine::startup"))
        .map(|(file, path)| format!("{}: crate::{path}", file.display()))
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_domain_types_name_only_what_lies_below() {
    for part in ["model", "model.rs"] {
        let found = offences(part, &["model", "der", "rules", "error"], false);
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn workflows_name_domain_types_and_their_trait_only() {
    let found = offences("workflow", &["workflow", "model", "error", "rules"], true);
    assert!(found.is_empty(), "{found:#?}");
}

/// What a calculator may not name (outside comments): the steps' trait,
/// context and observer, or an `async fn`.
const NOT_IN_CALC: [&str; 4] = ["async fn", "MembershipApi", "Ctx", "Observer"];

#[test]
fn the_calculators_are_pure_and_name_no_step() {
    let calc = src().join("workflow/calc");
    let mut found = Vec::new();
    for file in files(&calc) {
        let text = std::fs::read_to_string(&file).unwrap();
        // How many `super::` lead from this file's module to calc itself.
        let rel = file.strip_prefix(&calc).unwrap();
        let dirs = rel.components().count() - 1;
        let up = dirs + usize::from(!rel.ends_with("mod.rs"));
        let escape = "super::".repeat(up + 1);
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let words: Vec<&str> = code
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .collect();
            let banned = NOT_IN_CALC.iter().any(|b| match b.split_once(' ') {
                Some(_) => code.contains(b),
                None => words.contains(b),
            });
            if banned || code.contains(&escape) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    for (file, path) in names_in("workflow/calc", false) {
        let top = path.split("::").next().unwrap_or_default();
        // lib.rs re-exports `error`'s two types.
        let allowed = ["model", "error", "rules", "Error", "ErrorKind"].contains(&top)
            || path.starts_with("workflow::calc::");
        if !allowed {
            found.push(format!("{}: crate::{path}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "workflow/calc is pure and names nothing of the steps: {found:#?}"
    );
}

#[test]
fn only_the_printer_writes_to_stdout() {
    let src = src();
    let mut found = Vec::new();
    let everywhere = files(&src).into_iter().chain(files(&root().join("crates")));
    for file in everywhere {
        // A build script talks to cargo on stdout.
        if file.starts_with(src.join("printer")) || is_test(&file) || file.ends_with("build.rs") {
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

/// The spawn calls of each file of the engine (crates/engine/src) outside
/// its test module, by path relative to crates/engine/src.
fn spawn_sites() -> BTreeMap<String, usize> {
    let engine = root().join("crates/engine/src");
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
    let doc = std::fs::read_to_string(root().join("docs/engine.md")).expect("docs/engine.md");
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
