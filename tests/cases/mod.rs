//! The integration tests, by subject, run inside the one integration test binary.

mod auth;
mod bad_input;
mod durability;
mod engine;
mod etcd;
mod faults;
mod generated;
mod joint;
mod leader;
mod offline;
mod partition;
mod replace;
mod stress;
mod tls;
