//! Shell completions and man pages generated from the clap definitions (committed in completions/ and man/).

use std::io;
use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;

/// The shells completions are generated for.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

/// The completion script for `shell`.
pub fn completion(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "memberctl", &mut out);
    out
}

/// Writes every completion script into `dir/completions` and one man page per
/// (sub)command into `dir/man`.
pub fn write_all(dir: &Path) -> io::Result<()> {
    let completions = dir.join("completions");
    std::fs::create_dir_all(&completions)?;
    for shell in SHELLS {
        clap_complete::generate_to(shell, &mut Cli::command(), "memberctl", &completions)?;
    }
    let man = dir.join("man");
    std::fs::create_dir_all(&man)?;
    clap_mangen::generate_to(Cli::command(), &man)
}
