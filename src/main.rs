//! The `memberctl` binary: parse arguments, run the command, print, and map errors to exit codes.

use std::process::ExitCode;

use memberctl::cli::OutputFormat;
use memberctl::error::{self, ErrorKind, SUCCESS};
use memberctl::{command, printer};

fn main() -> ExitCode {
    ExitCode::from(run() as u8)
}

/// Whether the raw arguments (or environment) ask for JSON, for errors met before parsing finished.
/// Arguments are read as raw OS strings: this runs after a parse error, which
/// may be an argument that is not UTF-8.
fn json_requested() -> bool {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let flag = args
        .windows(2)
        .any(|w| (w[0] == "-w" || w[0] == "--write-out") && w[1] == "json")
        || args
            .iter()
            .any(|a| a == "-wjson" || a == "--write-out=json" || a == "-w=json");
    flag || std::env::var("MEMBERCTL_WRITE_OUT").is_ok_and(|v| v == "json")
}

fn run() -> i32 {
    let cli = match memberctl::cli::parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind as K;
            if matches!(
                e.kind(),
                K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
                    ErrorKind::Usage.exit_code()
                } else {
                    SUCCESS
                };
            }
            let err = anyhow::Error::new(memberctl::Error::usage(e.kind().to_string()));
            if json_requested() {
                printer::print_error(&err, OutputFormat::Json);
            }
            let _ = e.print();
            return error::exit_code(&err);
        }
    };
    let format = cli.global.write_out.unwrap_or_else(printer::default_format);
    let observer = printer::StderrObserver::for_format(format);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            printer::print_error(
                &anyhow::Error::new(e).context("cannot start the async runtime"),
                format,
            );
            return ErrorKind::Internal.exit_code();
        }
    };
    match runtime.block_on(command::run(&cli, &observer)) {
        Ok(None) => SUCCESS,
        Ok(Some(report)) => {
            // A client command is done once its report is out: the process
            // ends, and the kernel closes its connections and frees its memory
            // faster than dropping the runtime's tasks, the arguments and the
            // report one by one would.
            let code = match printer::print(&report, format) {
                // `member check` with a failed check: printed, and refused.
                Ok(()) if report.refuses() => ErrorKind::Refused.exit_code(),
                // `member status` of a cluster that lost its quorum: printed, and said.
                // `cluster rehearse` of a change that failed: reported, and its failure's code.
                Ok(()) if report.change_failed().is_some() => report
                    .change_failed()
                    .map_or(ErrorKind::Internal.exit_code(), |k| k.exit_code()),
                Ok(()) if report.quorum_lost() => ErrorKind::QuorumLost.exit_code(),
                Ok(()) => SUCCESS,
                Err(e) => {
                    eprintln!("memberctl: cannot write the output: {e}");
                    ErrorKind::Internal.exit_code()
                }
            };
            std::mem::forget((runtime, cli, report));
            code
        }
        Err(err) => {
            printer::print_error(&err, format);
            error::exit_code(&err)
        }
    }
}
