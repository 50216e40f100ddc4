//! Integration tests: the built `memberctl` binary, offline, against real etcd clusters and against the bundled engine on loopback (one binary; the cases live in cases/, the harness that runs them in harness/).

#[macro_use]
mod harness;
mod cases;
mod util;

fn main() -> std::process::ExitCode {
    harness::main(cases::all())
}
