//! Table-driven case matrices, run inside the one integration test binary.

mod bad_input;
