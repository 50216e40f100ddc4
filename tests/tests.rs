//! Integration tests: the built `memberctl` binary, offline, against real etcd clusters and against the bundled engine on loopback (one binary; the tests live in cases/).

mod cases;
mod util;
