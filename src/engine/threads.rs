//! The engine's threads and tasks are listed in docs/engine.md ("Threads, tasks and clocks"), one row per place that starts one; this module's test keeps that table true.

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    /// What starts a thread or a task.
    const SPAWNS: [&str; 5] = [
        "thread::Builder::new()",
        "thread::spawn(",
        "tokio::spawn(",
        "spawn_blocking(",
        "task::spawn(",
    ];

    /// The spawn calls of each file under `dir`, outside its test module,
    /// by path relative to `root`.
    fn spawn_sites(root: &Path, dir: &Path, found: &mut BTreeMap<String, usize>) {
        for entry in std::fs::read_dir(dir).expect("read src/engine") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                spawn_sites(root, &path, found);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            let n = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .filter(|l| SPAWNS.iter().any(|s| l.contains(s)))
                .count();
            if n > 0 {
                let rel = path.strip_prefix(root).expect("under src/engine");
                found.insert(rel.to_string_lossy().into_owned(), n);
            }
        }
    }

    /// The rows of the table in docs/engine.md, counted by the file each
    /// names in its "started in" column.
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
    fn every_spawn_site_is_in_the_table() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let engine = root.join("src/engine");
        let mut sites = BTreeMap::new();
        spawn_sites(&engine, &engine, &mut sites);
        let doc = std::fs::read_to_string(root.join("docs/engine.md")).expect("docs/engine.md");
        let rows = table_rows(&doc);
        assert!(sites.len() > 10, "the walk found spawn sites: {sites:?}");
        assert_eq!(
            rows, sites,
            "docs/engine.md's \"Threads, tasks and clocks\" names each file of src/engine as \
             many times as it starts threads or tasks (left: the table, right: the code)"
        );
    }
}
