//! Reading the command line fast: arguments that name one known command
//! (`member list`) are parsed against a tree of only that command's path;
//! anything else (help, version, errors, the other commands) against the
//! whole tree, which gives them their full text.
//!
//! Why: clap builds every command's arguments, copies the global flags into
//! every subcommand of each level it passes and frees it all again. For the
//! whole tree that was most of a `member list` run's own work and half of
//! its fresh heap pages (docs/performance.md).

use std::ffi::OsString;

use clap::{Args, FromArgMatches, Parser};

use super::autopilot::AutopilotArgs;
use super::cluster::{DirArg, RecoverArgs, StartNodeArgs, UpArgs};
use super::member::{
    AddArgs, ApplyArgs, CheckArgs, JointEnterArgs, MoveLeaderArgs, PromoteArgs, PruneArgs,
    RemoveArgs, ReplaceArgs, UpdateArgs,
};
use super::node::RunArgs;
use super::snapshot::RestoreArgs;
use super::{Cli, GlobalArgs};

/// Adds a leaf command's arguments to it (the derive's own function).
type Augment = fn(clap::Command) -> clap::Command;

/// A leaf command without arguments of its own.
fn no_args(cmd: clap::Command) -> clap::Command {
    cmd
}

/// The commands parsed against their own path, and their arguments. A
/// command missing here is parsed against the whole tree (only slower);
/// `cli::parse::tests` checks that each leaf here has exactly the whole
/// tree's arguments.
const PATHS: &[(&[&str], Augment)] = &[
    (&["member", "list"], no_args),
    (&["member", "status"], no_args),
    (&["member", "add"], AddArgs::augment_args),
    (&["member", "promote"], PromoteArgs::augment_args),
    (&["member", "remove"], RemoveArgs::augment_args),
    (&["member", "prune"], PruneArgs::augment_args),
    (&["member", "update"], UpdateArgs::augment_args),
    (&["member", "replace"], ReplaceArgs::augment_args),
    (&["member", "apply"], ApplyArgs::augment_args),
    (&["member", "check"], CheckArgs::augment_args),
    (&["member", "move-leader"], MoveLeaderArgs::augment_args),
    (&["member", "joint", "enter"], JointEnterArgs::augment_args),
    (&["member", "joint", "leave"], no_args),
    (&["member", "joint", "status"], no_args),
    (&["autopilot"], AutopilotArgs::augment_args),
    (&["cluster", "up"], UpArgs::augment_args),
    (&["cluster", "start-node"], StartNodeArgs::augment_args),
    (&["cluster", "status"], DirArg::augment_args),
    (&["cluster", "down"], DirArg::augment_args),
    (&["cluster", "recover"], RecoverArgs::augment_args),
    (&["node", "run"], <Box<RunArgs>>::augment_args),
    (&["snapshot", "restore"], <Box<RestoreArgs>>::augment_args),
];

/// Parses the process's arguments (see the module's header), with etcdctl's
/// environment variables standing in for unset `MEMBERCTL_*` ones
/// ([`super::etcdctl_env`]).
pub fn parse() -> Result<Cli, clap::Error> {
    super::etcdctl_env::adopt();
    let args: Vec<OsString> = std::env::args_os().collect();
    let (args, notes) = etcd_flags(args)?;
    let mut cli = match parse_path(&args) {
        Some(cli) => cli,
        None => Cli::try_parse_from(args)?,
    };
    if let super::Command::Node(super::NodeCommand::Run(run)) = &mut cli.command {
        run.etcd_notes = notes;
    }
    Ok(cli)
}

/// `node run`'s words with etcd's server flags put in its terms
/// ([`super::etcd_flags`]), and the notes for the flags of no effect; other
/// commands' words as they are.
fn etcd_flags(args: Vec<OsString>) -> Result<(Vec<OsString>, Vec<String>), clap::Error> {
    let at = args
        .windows(2)
        .position(|w| w[0] == "node" && w[1] == "run")
        .filter(|i| *i >= 1);
    let Some(at) = at else {
        return Ok((args, vec![]));
    };
    let translated = super::etcd_flags::translate(&args[at + 2..])
        .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n")))?;
    let mut out = args[..at + 2].to_vec();
    out.extend(translated.args);
    Ok((out, translated.notes))
}

/// `args` parsed against the tree of the one command they name, if they
/// name one of [`PATHS`] and parse there. A parse that succeeds there
/// means the same as in the whole tree: the cut tree has the same flags on
/// every level and only lacks other subcommands, and a word that would
/// have chosen another subcommand fails the cut parse instead.
fn parse_path(args: &[OsString]) -> Option<Cli> {
    let (path, augment) = named_path(args)?;
    let mut tree = path_tree(path, augment);
    let matches = tree.try_get_matches_from_mut(args).ok()?;
    let cli = Cli::from_arg_matches(&matches).ok();
    // Freeing the tree would cost more than building it took; a command
    // ends soon, and a node keeps the few kilobytes.
    std::mem::forget((tree, matches));
    cli
}

/// The entry of [`PATHS`] the words of `args` name: each level's name is
/// the first later word that names a subcommand of the level before.
fn named_path(args: &[OsString]) -> Option<(&'static [&'static str], Augment)> {
    let mut depth = 0;
    let mut candidates: Vec<&(&[&str], Augment)> = PATHS.iter().collect();
    for word in args.iter().skip(1).filter_map(|a| a.to_str()) {
        let next: Vec<_> = candidates
            .iter()
            .copied()
            .filter(|(path, _)| path.get(depth) == Some(&word))
            .collect();
        if next.is_empty() {
            continue;
        }
        depth += 1;
        if let Some(done) = next.iter().find(|(path, _)| path.len() == depth) {
            return Some(**done);
        }
        candidates = next;
    }
    None
}

/// The root (its global flags, as in [`Cli`]) with one subcommand per level down to the leaf.
fn path_tree(path: &[&'static str], augment: Augment) -> clap::Command {
    let (leaf, parents) = path.split_last().expect("a path names a command");
    let mut cmd = augment(clap::Command::new(*leaf));
    for name in parents.iter().rev() {
        cmd = clap::Command::new(*name).subcommand(cmd);
    }
    GlobalArgs::augment_args(clap::Command::new(NAME)).subcommand(cmd)
}

/// The program's name, as the whole tree has it.
const NAME: &str = "memberctl";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    /// The whole tree's command at `path`.
    fn whole_leaf(whole: &clap::Command, path: &[&str]) -> clap::Command {
        let mut cmd = whole;
        for name in path {
            cmd = cmd
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("{path:?}: no subcommand {name} in the whole tree"));
        }
        cmd.clone()
    }

    #[test]
    fn every_path_has_the_whole_trees_arguments() {
        let whole = Cli::command();
        assert_eq!(whole.get_name(), NAME);
        for (path, augment) in PATHS {
            let mut want = whole_leaf(&whole, path);
            assert!(
                !want.has_subcommands(),
                "{path:?} is not a leaf of the whole tree"
            );
            let mut got = path_tree(path, *augment);
            for name in path.iter() {
                got = got.find_subcommand(name).unwrap().clone();
            }
            let args = |c: &mut clap::Command| {
                c.build();
                c.get_arguments()
                    .filter(|a| !a.is_global_set())
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
            };
            assert_eq!(args(&mut got), args(&mut want), "{path:?}");
            let groups =
                |c: &clap::Command| c.get_groups().map(|g| format!("{g:?}")).collect::<Vec<_>>();
            assert_eq!(groups(&got), groups(&want), "{path:?}");
        }
    }

    #[test]
    fn a_named_command_parses_as_in_the_whole_tree() {
        let cases: &[&[&str]] = &[
            &["memberctl", "member", "list"],
            &[
                "memberctl",
                "--endpoints",
                "a:1,b:2",
                "member",
                "list",
                "-w",
                "json",
            ],
            &["memberctl", "member", "status", "--command-timeout", "3s"],
            // A member named as a command: the first word of each level counts.
            &["memberctl", "member", "remove", "status"],
            &["memberctl", "--user", "member", "member", "list"],
            &[
                "memberctl",
                "member",
                "add",
                "n4",
                "--learner",
                "--peer-urls",
                "http://127.0.0.1:2380",
                "--dry-run",
            ],
            &[
                "memberctl",
                "member",
                "joint",
                "enter",
                "--remove",
                "n2",
                "--dry-run",
            ],
            &["memberctl", "cluster", "status", "--dir", "/tmp/x"],
            &[
                "memberctl",
                "node",
                "run",
                "--name",
                "n1",
                "--data-dir",
                "/tmp/n1",
                "--listen-client-urls",
                "http://127.0.0.1:2379",
                "--advertise-client-urls",
                "http://127.0.0.1:2379",
                "--listen-peer-urls",
                "http://127.0.0.1:2380",
                "--initial-advertise-peer-urls",
                "http://127.0.0.1:2380",
                "--initial-cluster",
                "n1=http://127.0.0.1:2380",
            ],
        ];
        for args in cases {
            let fast =
                parse_path(&os(args)).unwrap_or_else(|| panic!("{args:?}: not parsed on its path"));
            let whole = Cli::try_parse_from(os(args)).unwrap();
            assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{args:?}");
        }
    }

    #[test]
    fn help_version_errors_and_other_commands_go_to_the_whole_tree() {
        let cases: &[&[&str]] = &[
            &["memberctl", "member", "list", "--help"],
            &["memberctl", "member", "list", "-V"],
            &["memberctl", "help", "member", "list"],
            &["memberctl", "member", "help", "list"],
            &["memberctl", "member", "list", "--no-such-flag"],
            &["memberctl", "member", "remove"],
            // "cluster" chooses another command first: not a flag's value.
            &["memberctl", "cluster", "member", "list"],
            &["memberctl", "member", "lst"],
            &["memberctl", "completion", "bash"],
            &["memberctl", "snapshot", "save", "f.db"],
        ];
        for args in cases {
            assert!(parse_path(&os(args)).is_none(), "{args:?}");
        }
    }
}
