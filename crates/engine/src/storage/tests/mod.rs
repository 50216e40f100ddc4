//! The store's unit tests, two suites: the store itself (`store`: the log, checkpoints, snapshots, restart, formats) and what maintenance reads and writes (`maintenance`: hashes, alarms, defragmentation, snapshot files).

use super::*;

mod maintenance;
mod store;
