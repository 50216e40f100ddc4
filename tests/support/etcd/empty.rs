//! Nothing to build: each manifest beside this file only pins one etcd server release (crates.io `etcd-bin-vendored`) for the version-matrix tests.
