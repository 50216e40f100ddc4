//! Table-driven case matrices and fault, durability and stress tests, run inside the one integration test binary.

mod bad_input;
mod durability;
mod faults;
mod partition;
mod stress;
