//! The node's one logger: every line a node process writes to stderr, its
//! own and raft-rs's, goes through it as `TIME memberctl node NAME: …` (UTC,
//! milliseconds, as etcd's lines carry their time), warnings and errors
//! marked, raft-rs's fields after its message.

use std::fmt::{self, Write as _};
use std::sync::OnceLock;

use slog::{Drain, Level, OwnedKVList, Record, KV};

/// The member's name, once the node knows it.
static NAME: OnceLock<String> = OnceLock::new();

/// The logger, built at its first use.
static LOGGER: OnceLock<slog::Logger> = OnceLock::new();

/// Names the member in every line from now on (once; later calls change nothing).
pub fn name(member: &str) {
    let _ = NAME.set(member.to_string());
}

/// The node's logger: give it to raft-rs, and log with slog's macros
/// (`slog::info!(log::logger(), "…")`). Debug and trace records are dropped.
pub fn logger() -> &'static slog::Logger {
    LOGGER.get_or_init(|| {
        let drain = slog::LevelFilter::new(Stderr, Level::Info).fuse();
        slog::Logger::root(drain, slog::o!())
    })
}

/// Writes each record as one line on stderr.
struct Stderr;

impl Drain for Stderr {
    type Ok = ();
    type Err = slog::Never;

    fn log(&self, record: &Record<'_>, values: &OwnedKVList) -> Result<(), slog::Never> {
        let now = humantime::format_rfc3339_millis(std::time::SystemTime::now());
        let mut line = match NAME.get() {
            Some(name) => format!("{now} memberctl node {name}: "),
            None => format!("{now} memberctl node: "),
        };
        match record.level() {
            Level::Critical | Level::Error => line.push_str("error: "),
            Level::Warning => line.push_str("warning: "),
            _ => {}
        }
        let _ = write!(line, "{}", record.msg());
        let mut fields = Fields(String::new());
        let _ = record.kv().serialize(record, &mut fields);
        let _ = values.serialize(record, &mut fields);
        if !fields.0.is_empty() {
            let _ = write!(line, " ({})", fields.0);
        }
        eprintln!("{line}");
        Ok(())
    }
}

/// A record's fields as `key=value, …`.
struct Fields(String);

impl slog::Serializer for Fields {
    fn emit_arguments(&mut self, key: slog::Key, val: &fmt::Arguments<'_>) -> slog::Result {
        if !self.0.is_empty() {
            self.0.push_str(", ");
        }
        let _ = write!(self.0, "{key}={val}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_listed_after_the_message() {
        let mut f = Fields(String::new());
        let kv = slog::o!("raft_id" => 3, "term" => 7);
        let rs = slog::record_static!(Level::Info, "");
        let args = format_args!("x");
        let record = Record::new(&rs, &args, slog::b!());
        kv.serialize(&record, &mut f).unwrap();
        assert!(f.0.contains("raft_id=3"), "{}", f.0);
        assert!(f.0.contains("term=7"), "{}", f.0);
        assert!(f.0.contains(", "), "{}", f.0);
    }
}
