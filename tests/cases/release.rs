//! The release artifacts: `scripts/release.sh` packages this build's binary, the .deb installs into a scratch dpkg root and works there, SHA256SUMS checks; the Kubernetes manifests, the Dockerfile and the docs agree.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{self, Run};

/// The source tree.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The version every artifact carries: Cargo.toml's.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `scripts/release.sh ARGS`, run with bash.
fn release(args: &[&str]) -> Run {
    util::run(
        std::process::Command::new("bash")
            .arg(root().join("scripts/release.sh"))
            .args(args),
    )
}

/// Runs `program ARGS`; panics with its output unless it exits 0.
fn ok(program: &str, args: &[&str]) -> Run {
    util::run(std::process::Command::new(program).args(args)).expect(0)
}

/// The files in `dir`, sorted by name.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every file under `dir`, as paths relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// The package made from this build's binary installs with `dpkg -i` into a scratch root
/// (an empty dpkg database); there its binary runs, `man -w` finds its pages, the bash
/// completion loads and completes, the systemd unit verifies; SHA256SUMS checks; a purge
/// leaves nothing behind.
fn the_package_installs_into_a_scratch_root_and_works() {
    let dist = tempfile::tempdir().unwrap();
    let dist = dist.path();
    let r = release(&["--binary", util::bin(), "--out", dist.to_str().unwrap()]);
    assert_eq!(r.code, 0, "release.sh failed\n{}{}", r.stdout, r.stderr);
    let binary = format!("memberctl-{VERSION}-linux-amd64");
    let deb = format!("memberctl_{VERSION}_amd64.deb");
    assert_eq!(
        names_in(dist),
        ["SHA256SUMS".to_string(), binary.clone(), deb.clone()]
    );

    // SHA256SUMS names both artifacts, and each checks.
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    let listed: Vec<&str> = sums
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(listed, [binary.as_str(), deb.as_str()], "{sums}");
    let check = util::run(
        std::process::Command::new("sha256sum")
            .args(["-c", "SHA256SUMS"])
            .current_dir(dist),
    )
    .expect(0);
    assert_eq!(
        check.stdout,
        format!("{binary}: OK\n{deb}: OK\n"),
        "{}",
        check.stderr
    );

    // The control file: Cargo.toml's version, amd64, nothing depended on (a static binary).
    let deb = dist.join(&deb);
    let field = |name: &str| {
        ok("dpkg-deb", &["--field", deb.to_str().unwrap(), name])
            .stdout
            .trim()
            .to_string()
    };
    assert_eq!(field("Package"), "memberctl");
    assert_eq!(field("Version"), VERSION);
    assert_eq!(field("Architecture"), "amd64");
    assert_eq!(field("Depends"), "");
    assert!(field("Maintainer").contains('@'));
    assert!(!field("Description").is_empty());

    // dpkg -i into a scratch root: its database is one empty status file.
    let scratch = tempfile::tempdir().unwrap();
    let at = scratch.path();
    std::fs::create_dir_all(at.join("var/lib/dpkg")).unwrap();
    std::fs::write(at.join("var/lib/dpkg/status"), "").unwrap();
    let dpkg_root = format!("--root={}", at.display());
    // Every file, whatever this machine's dpkg.cfg.d excludes (slim images drop man pages).
    ok(
        "dpkg",
        &[&dpkg_root, "--path-include=/*", "-i", deb.to_str().unwrap()],
    );
    let status = ok("dpkg", &[&dpkg_root, "-s", "memberctl"]).stdout;
    assert!(
        status.contains("Status: install ok installed")
            && status.contains(&format!("Version: {VERSION}")),
        "{status}"
    );

    // The installed binary is the loose one, and runs.
    let installed = at.join("usr/bin/memberctl");
    assert!(std::fs::read(&installed).unwrap() == std::fs::read(dist.join(&binary)).unwrap());
    let version = ok(installed.to_str().unwrap(), &["--version"]).stdout;
    assert_eq!(version.trim(), format!("memberctl {VERSION}"));

    // One gzipped man page per committed page; man finds and renders them.
    let man1 = at.join("usr/share/man/man1");
    for page in names_in(&root().join("man")) {
        assert!(
            man1.join(format!("{page}.gz")).is_file(),
            "{page}.gz missing"
        );
    }
    let found = util::run(
        std::process::Command::new("man")
            .args(["-w", "memberctl-member-add"])
            .env("MANPATH", at.join("usr/share/man")),
    )
    .expect(0);
    assert_eq!(
        Path::new(found.stdout.trim()),
        man1.join("memberctl-member-add.1.gz")
    );
    let page = man1.join("memberctl-member-add.1.gz");
    let shown = ok("man", &["-P", "cat", "-l", page.to_str().unwrap()]).stdout;
    assert!(
        shown.contains("NAME") && shown.contains("memberctl member add"),
        "{shown}"
    );

    // The bash completion loads, registers and completes a subcommand.
    let bash_completion = at.join("usr/share/bash-completion/completions/memberctl");
    let completed = ok(
        "bash",
        &[
            "--norc",
            "--noprofile",
            "-c",
            r#"source "$1" && complete -p memberctl && COMP_WORDS=(memberctl mem) COMP_CWORD=1 \
               COMP_LINE="memberctl mem" COMP_POINT=13 && _memberctl memberctl mem memberctl \
               && printf 'reply %s\n' "${COMPREPLY[@]}""#,
            "bash",
            bash_completion.to_str().unwrap(),
        ],
    )
    .stdout;
    assert!(
        completed.contains("-F _memberctl memberctl") && completed.contains("reply member\n"),
        "{completed}"
    );
    // zsh and fish: the committed scripts, where those shells look.
    for (installed, committed) in [
        ("usr/share/zsh/vendor-completions/_memberctl", "_memberctl"),
        (
            "usr/share/fish/vendor_completions.d/memberctl.fish",
            "memberctl.fish",
        ),
    ] {
        assert!(
            std::fs::read(at.join(installed)).unwrap()
                == std::fs::read(root().join("completions").join(committed)).unwrap(),
            "{installed}"
        );
    }

    // The autopilot's alert rules, as shipped in packaging/, among the examples.
    assert!(
        std::fs::read(at.join("usr/share/doc/memberctl/examples/memberctl-autopilot-rules.yml"))
            .unwrap()
            == std::fs::read(root().join("packaging/prometheus/memberctl-autopilot-rules.yml"))
                .unwrap(),
        "the alert rules in the package"
    );

    // The systemd unit, as shipped in packaging/, verifies in the scratch root (systemd's
    // own targets stubbed: the root has no systemd); its ExecStart is the installed binary.
    let units = at.join("usr/lib/systemd/system");
    let unit = std::fs::read_to_string(units.join("memberctl-autopilot.service")).unwrap();
    assert_eq!(
        unit,
        std::fs::read_to_string(root().join("packaging/memberctl-autopilot.service")).unwrap()
    );
    assert!(at.join("etc/default/memberctl-autopilot").is_file());
    let conffiles = ok("dpkg-deb", &["--info", deb.to_str().unwrap(), "conffiles"]).stdout;
    assert_eq!(conffiles.trim(), "/etc/default/memberctl-autopilot");
    for target in ["sysinit.target", "basic.target"] {
        std::fs::write(units.join(target), "[Unit]\nDescription=stub\n").unwrap();
    }
    let verified = util::run(std::process::Command::new("systemd-analyze").args([
        "verify",
        "--man=no",
        &format!("--root={}", at.display()),
        "memberctl-autopilot.service",
    ]));
    assert!(
        verified.code == 0 && verified.stderr.is_empty(),
        "systemd-analyze verify: exit {}\n{}",
        verified.code,
        verified.stderr
    );
    for target in ["sysinit.target", "basic.target"] {
        std::fs::remove_file(units.join(target)).unwrap();
    }

    // Purged, the package leaves nothing but dpkg's database.
    ok("dpkg", &[&dpkg_root, "--purge", "memberctl"]);
    let left: Vec<PathBuf> = files_under(at)
        .into_iter()
        .filter(|p| !p.starts_with("var/lib/dpkg"))
        .collect();
    assert!(left.is_empty(), "left after the purge: {left:?}");
}

/// release.sh refuses what it cannot package and says why: an unknown argument and a
/// missing value (usage, exit 2), no such binary, a binary of another version (exit 1).
fn the_release_script_refuses_bad_input() {
    let r = release(&["--bogus"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("unknown argument --bogus") && r.stderr.contains("usage:"),
        "{}",
        r.stderr
    );
    let r = release(&["--out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--out needs a value"), "{}", r.stderr);

    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();
    let r = release(&["--binary", "/nonexistent/memberctl", "--out", out_dir]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("not an executable file"), "{}", r.stderr);
    // A program that is not this version of memberctl, and one that is not a binary at
    // all: refused before anything is written.
    let fake = |name: &str, says: &str| {
        let path = out.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        path
    };
    let old = fake("memberctl-old", "memberctl 0.0.1");
    let r = release(&["--binary", old.to_str().unwrap(), "--out", out_dir]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("memberctl 0.0.1") && r.stderr.contains(VERSION),
        "{}",
        r.stderr
    );
    let script = fake("memberctl-script", &format!("memberctl {VERSION}"));
    let r = release(&["--binary", script.to_str().unwrap(), "--out", out_dir]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("not an ELF executable"), "{}", r.stderr);
    assert_eq!(names_in(out.path()), ["memberctl-old", "memberctl-script"]);
}

/// Every leaf of a JSON document (path, value).
fn leaves(v: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| leaves(x, format!("{path}.{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{path}[{i}]"), out)),
        leaf => out.push((path, leaf.clone())),
    }
}

/// The manifests decode into kubectl's own types, no field lost or misread: kubectl reads
/// them as plain documents (`label --local`) and as Deployments (`set image --local`, which
/// drops an unknown field and refuses a wrong type), and every value of the first is in the
/// second. (`kubectl apply --dry-run=client` and `create --dry-run=client` ask a server for
/// its resource types even so: without a cluster they cannot run.)
fn the_kubernetes_manifests_decode_into_kubectls_types() {
    let manifest = root().join("packaging/k8s/autopilot.yaml");
    let home = tempfile::tempdir().unwrap();
    let kubectl = |args: &[&str]| {
        util::run(
            std::process::Command::new("kubectl")
                .args(args)
                .args(["-f", manifest.to_str().unwrap(), "-o", "json"])
                .env("HOME", home.path())
                .env("KUBECONFIG", home.path().join("no-config")),
        )
        .expect(0)
        .json()
    };
    let plain = kubectl(&["label", "--local", "probe-"]);
    let typed = kubectl(&["set", "image", "--local", "autopilot=probe"]);
    assert_eq!(plain["kind"], "Deployment", "{plain}");
    let (mut given, mut read) = (Vec::new(), Vec::new());
    leaves(&plain, String::new(), &mut given);
    leaves(&typed, String::new(), &mut read);
    let image = ".spec.template.spec.containers[0].image";
    let mut lost = Vec::new();
    for (path, value) in &given {
        let wanted = if path == image {
            "probe".into()
        } else {
            value.clone()
        };
        if !read.iter().any(|(p, v)| p == path && *v == wanted) {
            lost.push(format!("{path} = {value}"));
        }
    }
    assert!(
        lost.is_empty(),
        "kubectl's Deployment lost or changed: {lost:?}"
    );
    assert!(given.len() > 30, "only {} values read", given.len());
}

/// The fenced blocks of `lang` in a Markdown file.
fn fenced(markdown: &str, lang: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match current.as_mut() {
            None if line == format!("```{lang}") => current = Some(String::new()),
            Some(_) if line == "```" => blocks.push(current.take().unwrap()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// docs/autopilot.md shows the unit and the manifests that are shipped; the Dockerfile
/// builds from an empty base with release.sh's binary, as the numeric non-root user the
/// manifests run as, under the image name the README builds and the manifests run.
fn the_docs_dockerfile_and_manifests_agree() {
    let read = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    let doc = read("docs/autopilot.md");
    assert_eq!(
        fenced(&doc, "ini"),
        [read("packaging/memberctl-autopilot.service")]
    );
    let manifest = read("packaging/k8s/autopilot.yaml");
    // The alert rules first, then the Kubernetes manifest.
    assert_eq!(
        fenced(&doc, "yaml"),
        [
            read("packaging/prometheus/memberctl-autopilot-rules.yml"),
            manifest.clone()
        ]
    );

    let dockerfile = read("Dockerfile");
    let instructions: Vec<(&str, &str)> = dockerfile
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once(' ').unwrap())
        .collect();
    let all = |word: &str| -> Vec<&str> {
        instructions
            .iter()
            .filter(|(w, _)| *w == word)
            .map(|(_, rest)| *rest)
            .collect()
    };
    // No base image to pull.
    assert_eq!(all("FROM"), ["scratch"]);
    let copies = all("COPY");
    let binary_copy = copies
        .iter()
        .find(|c| c.starts_with("dist/"))
        .expect("the Dockerfile copies the binary from dist/");
    let (source, dest) = binary_copy.split_once(' ').unwrap();
    assert_eq!(source, "dist/memberctl-*-linux-amd64", "release.sh's name");
    assert_eq!(all("ENTRYPOINT"), [format!("[\"{dest}\"]").as_str()]);
    let user = all("USER");
    let uid = user[0].split(':').next().unwrap();
    assert!(
        user.len() == 1 && uid.parse::<u32>().is_ok_and(|u| u != 0),
        "USER {user:?}: numeric, not root"
    );
    // The build context admits exactly what is copied.
    let ignore = read(".dockerignore");
    for copy in &copies {
        let source = copy.split_once(' ').unwrap().0;
        assert!(
            ignore.contains(&format!("!{source}")),
            "{source} not in .dockerignore"
        );
    }
    assert!(
        manifest.contains(&format!("runAsUser: {uid}\n")),
        "{manifest}"
    );
    assert!(manifest.contains("runAsNonRoot: true"), "{manifest}");

    // The README builds the image under the name the manifests run.
    let readme = read("README.md");
    let tag = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix("docker build -t "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("README.md has a `docker build -t NAME .` line");
    assert!(manifest.contains(&format!("image: {tag}\n")), "{manifest}");
    for command in [
        "cargo install --path .",
        "scripts/release.sh",
        "sha256sum -c SHA256SUMS",
        "dpkg -i dist/memberctl_",
    ] {
        assert!(readme.contains(command), "README.md lacks `{command}`");
    }
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        the_package_installs_into_a_scratch_root_and_works: [
            Command("dpkg-deb"),
            Command("dpkg"),
            Command("objcopy"),
            Command("man"),
            Command("systemd-analyze"),
        ],
        the_release_script_refuses_bad_input: [Command("dpkg-deb"), Command("objcopy")],
        the_kubernetes_manifests_decode_into_kubectls_types: [Command("kubectl")],
        the_docs_dockerfile_and_manifests_agree,
    ]
}
