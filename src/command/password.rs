//! Credentials from the flags: `--user NAME[:PASSWORD]`, `--password`, or a prompt without echo on a terminal.

use std::io::{BufRead, IsTerminal, Write};

use crate::cli::GlobalArgs;
use crate::client::Credentials;
use crate::error::Error;

/// The credentials the flags give, asking for the password when none was given
/// and stdin is a terminal. The password is never echoed or printed.
pub fn credentials(global: &GlobalArgs) -> Result<Option<Credentials>, Error> {
    let Some(user) = &global.user else {
        if global.password.is_some() {
            return Err(Error::usage("--password needs --user NAME"));
        }
        return Ok(None);
    };
    let (name, inline) = match user.split_once(':') {
        Some((n, p)) => (n.to_string(), Some(p.to_string())),
        None => (user.clone(), None),
    };
    if name.is_empty() {
        return Err(Error::usage(
            "--user needs a user name: --user NAME[:PASSWORD]",
        ));
    }
    let password = match inline.or_else(|| global.password.clone()) {
        Some(p) => p,
        None => prompt(&name)?,
    };
    Ok(Some(Credentials {
        user: name,
        password,
    }))
}

/// Reads a password from the terminal with echo off.
fn prompt(user: &str) -> Result<String, Error> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(Error::usage(format!(
            "no password for user {user:?}: give --user {user}:PASSWORD, --password or MEMBERCTL_PASSWORD \
             (there is no terminal to ask on)"
        )));
    }
    eprint!("Password for {user}: ");
    let _ = std::io::stderr().flush();
    let fd = libc::STDIN_FILENO;
    // SAFETY: termios calls on stdin, a terminal; the saved settings are restored below.
    let saved = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(fd, &mut t) != 0 {
            return Err(Error::usage(
                "cannot read the terminal's settings to ask for the password",
            ));
        }
        let mut quiet = t;
        quiet.c_lflag &= !libc::ECHO;
        libc::tcsetattr(fd, libc::TCSANOW, &quiet);
        t
    };
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    // SAFETY: restores the settings saved above.
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &saved) };
    eprintln!();
    read.map_err(|e| Error::usage(format!("cannot read the password: {e}")))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}
