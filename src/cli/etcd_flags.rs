//! etcd's server flags on `memberctl node run`: every flag of etcd 3.4–3.7 is served, taken at the value that means etcd's own behaviour, or refused with the reason and what to use instead — none is "unexpected" (docs/engine.md shows the table).

use std::ffi::OsString;
use std::path::Path;

/// How etcd's flag parser (Go's `flag` package) reads a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// A boolean: `--flag` (true) or `--flag=true|false`; never a separate word.
    Bool,
    /// A value: `--flag value` or `--flag=value`.
    Value,
}

/// What `node run` does with one of etcd's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Treatment {
    /// A flag of `node run` itself, under the same name.
    Served,
    /// Served as `node run`'s flag of this name (etcd renamed it, e.g. its
    /// `experimental-` flags in 3.6).
    Alias(&'static str),
    /// Accepted with any value; it tunes something the engine does not have
    /// (why), and the node says so in its log.
    NoEffect(&'static str),
    /// Accepted at these values — the ones that mean what the engine does
    /// (etcd's default among them) — and refused at any other, with the reason.
    Only(&'static [&'static str], &'static str),
    /// `--config-file`: the file's settings are read in place of etcd's
    /// other flags (what it serves).
    File(&'static str),
}

/// One of etcd's server flags.
#[derive(Clone, Copy, Debug)]
pub struct EtcdFlag {
    /// Its name, without the dashes.
    pub name: &'static str,
    /// How it takes its value.
    pub takes: Takes,
    /// What `node run` does with it.
    pub treatment: Treatment,
}

const fn served(name: &'static str, takes: Takes) -> EtcdFlag {
    EtcdFlag {
        name,
        takes,
        treatment: Treatment::Served,
    }
}

const fn alias(name: &'static str, takes: Takes, to: &'static str) -> EtcdFlag {
    EtcdFlag {
        name,
        takes,
        treatment: Treatment::Alias(to),
    }
}

const fn no_effect(name: &'static str, takes: Takes, why: &'static str) -> EtcdFlag {
    EtcdFlag {
        name,
        takes,
        treatment: Treatment::NoEffect(why),
    }
}

const fn only(
    name: &'static str,
    takes: Takes,
    values: &'static [&'static str],
    why: &'static str,
) -> EtcdFlag {
    EtcdFlag {
        name,
        takes,
        treatment: Treatment::Only(values, why),
    }
}

use Takes::{Bool, Value};

const OFF: &[&str] = &["false"];
const ON: &[&str] = &["true"];
const EMPTY: &[&str] = &[""];

const DISCOVERY: &str = "discovery is not served: list every member in --initial-cluster";
const NO_V2: &str = "the engine serves etcd's v3 API only (etcd 3.6 removed v2)";
const TRACING: &str =
    "OpenTelemetry tracing is not served: the engine's own log and /metrics are what it reports";
const PROXY: &str =
    "etcd's v2 proxy mode is not served: point clients at the members (or at `etcd grpc-proxy`)";
const BBOLT: &str = "the engine keeps no bbolt file: its state machine and log are its own";
const LOGGING: &str = "the engine writes its own log lines to stderr (journald or the container runtime collects them)";

/// Every server flag of etcd 3.4, 3.5, 3.6 and 3.7 (their `--help`s), sorted
/// by name, and what `node run` does with it.
pub const FLAGS: &[EtcdFlag] = &[
    served("advertise-client-urls", Value),
    served("auth-token", Value),
    served("auth-token-ttl", Value),
    served("auto-compaction-mode", Value),
    served("auto-compaction-retention", Value),
    served("auto-tls", Bool),
    no_effect("backend-batch-interval", Value, BBOLT),
    no_effect("backend-batch-limit", Value, BBOLT),
    no_effect("backend-bbolt-freelist-type", Value, BBOLT),
    served("bcrypt-cost", Value),
    no_effect("bootstrap-defrag-threshold-megabytes", Value, BBOLT),
    served("cert-file", Value),
    served("cipher-suites", Value),
    served("client-cert-allowed-hostname", Value),
    served("client-cert-auth", Bool),
    only("client-cert-file", Value, EMPTY, "the engine dials no client URL with a certificate of its own"),
    served("client-crl-file", Value),
    only("client-key-file", Value, EMPTY, "the engine dials no client URL with a certificate of its own"),
    no_effect("compact-hash-check-time", Value, "the periodic compact-hash check is not served (see experimental-compact-hash-check-enabled)"),
    no_effect("compaction-batch-limit", Value, "the engine compacts in one step"),
    no_effect("compaction-sleep-interval", Value, "the engine compacts in one step"),
    EtcdFlag {
        name: "config-file",
        takes: Value,
        treatment: Treatment::File("etcd's YAML (each key a flag's name, durations in nanoseconds, TLS under client-/peer-transport-security) read as these flags; etcd's other flags on the command line are ignored, as etcd ignores them, and noted in the log"),
    },
    served("corrupt-check-time", Value),
    no_effect("cors", Value, "the engine's JSON gateway sets no CORS headers"),
    served("data-dir", Value),
    no_effect("debug", Bool, LOGGING),
    only("discovery", Value, EMPTY, DISCOVERY),
    no_effect("discovery-cacert", Value, DISCOVERY),
    no_effect("discovery-cert", Value, DISCOVERY),
    no_effect("discovery-dial-timeout", Value, DISCOVERY),
    only("discovery-endpoints", Value, EMPTY, DISCOVERY),
    no_effect("discovery-fallback", Value, DISCOVERY),
    no_effect("discovery-insecure-skip-tls-verify", Bool, DISCOVERY),
    no_effect("discovery-insecure-transport", Bool, DISCOVERY),
    no_effect("discovery-keepalive-time", Value, DISCOVERY),
    no_effect("discovery-keepalive-timeout", Value, DISCOVERY),
    no_effect("discovery-key", Value, DISCOVERY),
    no_effect("discovery-password", Value, DISCOVERY),
    no_effect("discovery-proxy", Value, DISCOVERY),
    no_effect("discovery-request-timeout", Value, DISCOVERY),
    only("discovery-srv", Value, EMPTY, DISCOVERY),
    no_effect("discovery-srv-name", Value, DISCOVERY),
    only("discovery-token", Value, EMPTY, DISCOVERY),
    no_effect("discovery-user", Value, DISCOVERY),
    no_effect("distributed-tracing-address", Value, TRACING),
    no_effect("distributed-tracing-instance-id", Value, TRACING),
    no_effect("distributed-tracing-sampling-rate", Value, TRACING),
    no_effect("distributed-tracing-service-name", Value, TRACING),
    no_effect("downgrade-check-time", Value, "the engine takes no part in etcd's downgrade protocol"),
    served("election-timeout", Value),
    only("enable-distributed-tracing", Bool, OFF, TRACING),
    only("enable-grpc-gateway", Bool, ON, "the engine always serves the JSON gateway on its client URLs"),
    only("enable-log-rotation", Bool, OFF, "the engine logs to stderr; rotate with journald or logrotate's copytruncate"),
    only("enable-pprof", Bool, OFF, "Go's profiler does not exist in the engine (Rust): profile it with perf"),
    only("enable-v2", Bool, OFF, NO_V2),
    no_effect("experimental-backend-bbolt-freelist-type", Value, BBOLT),
    no_effect("experimental-bootstrap-defrag-threshold-megabytes", Value, BBOLT),
    only("experimental-compact-hash-check-enabled", Bool, OFF, "the periodic compact-hash check is not served: run `etcdctl endpoint hashkv --cluster` after compactions and compare"),
    no_effect("experimental-compact-hash-check-time", Value, "the periodic compact-hash check is not served"),
    no_effect("experimental-compaction-batch-limit", Value, "the engine compacts in one step"),
    no_effect("experimental-compaction-sleep-interval", Value, "the engine compacts in one step"),
    alias("experimental-corrupt-check-time", Value, "corrupt-check-time"),
    no_effect("experimental-distributed-tracing-address", Value, TRACING),
    no_effect("experimental-distributed-tracing-instance-id", Value, TRACING),
    no_effect("experimental-distributed-tracing-sampling-rate", Value, TRACING),
    no_effect("experimental-distributed-tracing-service-name", Value, TRACING),
    no_effect("experimental-downgrade-check-time", Value, "the engine takes no part in etcd's downgrade protocol"),
    only("experimental-enable-distributed-tracing", Bool, OFF, TRACING),
    only("experimental-enable-lease-checkpoint", Bool, OFF, "lease checkpoints are not served: a lease's time to live starts again when the leader changes, as etcd's without them"),
    only("experimental-enable-lease-checkpoint-persist", Bool, OFF, "lease checkpoints are not served"),
    only("experimental-enable-v2v3", Value, EMPTY, NO_V2),
    alias("experimental-initial-corrupt-check", Bool, "initial-corrupt-check"),
    only("experimental-memory-mlock", Bool, OFF, "the engine does not lock its memory"),
    no_effect("experimental-peer-skip-client-san-verification", Bool, "the engine does not check a peer's client-certificate SANs against its address (as etcd with this flag)"),
    no_effect("experimental-snapshot-catchup-entries", Value, "the engine keeps the log entries its followers need: it holds log compaction while a snapshot is sent"),
    only("experimental-stop-grpc-service-on-defrag", Bool, OFF, "the engine has no defragmentation that stops serving"),
    no_effect("experimental-txn-mode-write-with-shared-buffer", Bool, BBOLT),
    no_effect("experimental-warning-apply-duration", Value, LOGGING),
    no_effect("experimental-warning-unary-request-duration", Value, LOGGING),
    alias("experimental-watch-progress-notify-interval", Value, "watch-progress-notify-interval"),
    only("feature-gates", Value, EMPTY, "etcd 3.6's feature gates are not read: use the experimental flag of the same feature (e.g. --experimental-initial-corrupt-check)"),
    served("force-new-cluster", Bool),
    served("grpc-keepalive-interval", Value),
    no_effect("grpc-keepalive-min-time", Value, "the engine does not police clients' keepalive pings"),
    served("grpc-keepalive-timeout", Value),
    served("heartbeat-interval", Value),
    only("host-whitelist", Value, &["*", ""], "the engine does not check the Host header of HTTP requests"),
    served("initial-advertise-peer-urls", Value),
    served("initial-cluster", Value),
    served("initial-cluster-state", Value),
    served("initial-cluster-token", Value),
    no_effect("initial-election-tick-advance", Bool, "the engine brings a new cluster's first election forward itself; a restarted member waits one election timeout"),
    served("key-file", Value),
    only("listen-client-http-urls", Value, EMPTY, "the engine serves HTTP and gRPC on the same client URLs (--listen-client-urls)"),
    served("listen-client-urls", Value),
    served("listen-metrics-urls", Value),
    served("listen-peer-urls", Value),
    no_effect("log-format", Value, LOGGING),
    no_effect("log-level", Value, LOGGING),
    only("log-outputs", Value, &["default", "stderr"], "the engine logs to stderr: redirect it, or let journald or the container runtime collect it"),
    no_effect("log-package-levels", Value, LOGGING),
    no_effect("log-rotation-config-json", Value, LOGGING),
    no_effect("logger", Value, LOGGING),
    served("max-concurrent-streams", Value),
    served("max-learners", Value),
    served("max-request-bytes", Value),
    no_effect("max-snapshots", Value, "the engine keeps one snapshot of its own and purges older ones itself"),
    served("max-txn-ops", Value),
    no_effect("max-wals", Value, "the engine purges its log segments itself, once compacted"),
    only("memory-mlock", Bool, OFF, "the engine does not lock its memory"),
    no_effect("metrics", Value, "the engine serves one set of metrics, whichever is asked"),
    served("name", Value),
    served("peer-auto-tls", Bool),
    served("peer-cert-allowed-cn", Value),
    served("peer-cert-allowed-hostname", Value),
    served("peer-cert-file", Value),
    served("peer-client-cert-auth", Bool),
    only("peer-client-cert-file", Value, EMPTY, "the engine presents --peer-cert-file to its peers as its client certificate too"),
    only("peer-client-key-file", Value, EMPTY, "the engine presents --peer-cert-file to its peers as its client certificate too"),
    served("peer-crl-file", Value),
    served("peer-key-file", Value),
    no_effect("peer-skip-client-san-verification", Bool, "the engine does not check a peer's client-certificate SANs against its address (as etcd with this flag)"),
    served("peer-trusted-ca-file", Value),
    only("pre-vote", Bool, ON, "the engine always campaigns with a pre-vote (etcd's default since 3.5)"),
    only("proxy", Value, &["off"], PROXY),
    no_effect("proxy-dial-timeout", Value, PROXY),
    no_effect("proxy-failure-wait", Value, PROXY),
    no_effect("proxy-read-timeout", Value, PROXY),
    no_effect("proxy-refresh-interval", Value, PROXY),
    no_effect("proxy-write-timeout", Value, PROXY),
    served("quota-backend-bytes", Value),
    no_effect("raft-read-timeout", Value, "the engine's peer connections keep their own timeouts"),
    no_effect("raft-write-timeout", Value, "the engine's peer connections keep their own timeouts"),
    served("self-signed-cert-validity", Value),
    no_effect("snapshot-catchup-entries", Value, "the engine keeps the log entries its followers need: it holds log compaction while a snapshot is sent"),
    served("snapshot-count", Value),
    only("socket-reuse-address", Bool, OFF, "the engine binds its sockets as etcd does by default"),
    only("socket-reuse-port", Bool, OFF, "the engine binds its sockets as etcd does by default"),
    served("strict-reconfig-check", Bool),
    served("tls-max-version", Value),
    served("tls-min-version", Value),
    served("trusted-ca-file", Value),
    only("unsafe-no-fsync", Bool, OFF, "the engine always fsyncs what it acknowledges"),
    no_effect("v2-deprecation", Value, "the engine has no v2 store at all (as `gone`)"),
    only("wal-dir", Value, EMPTY, "the engine keeps its log inside --data-dir: a WAL directory of its own is not served"),
    no_effect("warning-apply-duration", Value, LOGGING),
    no_effect("warning-unary-request-duration", Value, LOGGING),
    served("watch-progress-notify-interval", Value),
];

/// An etcd flag `node run` refuses at the value given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{flag}={value}: {why}")]
pub struct Refused {
    /// The flag.
    pub flag: String,
    /// The value given.
    pub value: String,
    /// Why, and what to use instead.
    pub why: String,
}

/// `node run`'s arguments with etcd's flags put in its terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Translated {
    /// The arguments for `node run`'s own parser.
    pub args: Vec<OsString>,
    /// One line per flag accepted that changes nothing here, for the log.
    pub notes: Vec<String>,
}

/// The table's entry for `name`.
pub fn lookup(name: &str) -> Option<&'static EtcdFlag> {
    FLAGS.iter().find(|f| f.name == name)
}

/// One flag (with its value) or one other word of a command line, as
/// etcd's parser reads it.
enum Word {
    /// One of etcd's flags and its value.
    Flag(&'static EtcdFlag, String),
    /// A word that is no etcd flag, for `node run`'s own parser.
    Other(OsString),
}

/// Reads `args` as etcd's parser does: Go's single dash, `--flag=value`,
/// `--flag value`, and a boolean flag's value only after `=`.
fn etcd_words(args: &[OsString]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut rest = args.iter();
    while let Some(word) = rest.next() {
        let Some(body) = word.to_str().and_then(|text| {
            text.strip_prefix("--")
                .or_else(|| text.strip_prefix('-').filter(|b| b.len() > 1))
        }) else {
            out.push(Word::Other(word.clone()));
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = lookup(name) else {
            out.push(Word::Other(word.clone()));
            continue;
        };
        let value = match (flag.takes, inline) {
            (_, Some(v)) => v,
            (Takes::Bool, None) => "true".to_string(),
            (Takes::Value, None) => match rest.next() {
                Some(v) => v.to_string_lossy().into_owned(),
                // Missing: node run's parser says so.
                None => {
                    out.push(Word::Other(format!("--{name}").into()));
                    continue;
                }
            },
        };
        out.push(Word::Flag(flag, value));
    }
    out
}

/// With `--config-file FILE` among `words`, the file's settings in their
/// place, as etcd reads them: etcd's other flags on the command line are
/// ignored (noted), words of `node run`'s own are kept.
fn with_config_file(
    words: Vec<Word>,
    read_file: impl Fn(&Path) -> std::io::Result<String>,
    notes: &mut Vec<String>,
) -> Result<Vec<Word>, Refused> {
    let file = words.iter().rev().find_map(|w| match w {
        Word::Flag(f, v) if matches!(f.treatment, Treatment::File(_)) => Some(v.clone()),
        _ => None,
    });
    let Some(path) = file else {
        return Ok(words);
    };
    let refuse = |why: String| Refused {
        flag: "config-file".to_string(),
        value: path.clone(),
        why,
    };
    let text = read_file(Path::new(&path)).map_err(|e| {
        refuse(format!(
            "cannot read it ({e}): check the path and its permissions"
        ))
    })?;
    let read = super::etcd_config::read(&text).map_err(|e| {
        refuse(format!(
            "{e}: mend the file (etcd would not start on it either)"
        ))
    })?;
    notes.push(format!(
        "--config-file={path}: loaded; etcd's other flags on the command line are ignored, as etcd ignores them"
    ));
    let mut out: Vec<Word> = read
        .flags
        .into_iter()
        .filter_map(|(name, value)| lookup(&name).map(|f| Word::Flag(f, value)))
        .collect();
    for w in words {
        match w {
            Word::Flag(f, _) if matches!(f.treatment, Treatment::File(_)) => {}
            Word::Flag(f, value) => notes.push(format!(
                "--{}={value}: ignored: --config-file is read instead, as etcd does",
                f.name
            )),
            other => out.push(other),
        }
    }
    notes.extend(read.notes);
    Ok(out)
}

/// Puts etcd's flags among `args` (the words after `node run`) in `node
/// run`'s terms: Go's single dash and `--bool=true|false` read as etcd reads
/// them, `--config-file`'s settings read in place of etcd's other flags,
/// renamed flags renamed, flags of no effect dropped with a note, and values
/// the engine does not serve refused. Words that are no etcd flag pass
/// through for `node run`'s own parser to judge.
pub fn translate(args: &[OsString]) -> Result<Translated, Refused> {
    translate_with(args, |p| std::fs::read_to_string(p))
}

/// [`translate`], reading a config file with `read_file`.
pub fn translate_with(
    args: &[OsString],
    read_file: impl Fn(&Path) -> std::io::Result<String>,
) -> Result<Translated, Refused> {
    let mut out = Translated::default();
    let words = with_config_file(etcd_words(args), read_file, &mut out.notes)?;
    for word in words {
        let (flag, value) = match word {
            Word::Other(w) => {
                out.args.push(w);
                continue;
            }
            Word::Flag(flag, value) => (flag, value),
        };
        let name = flag.name;
        let refuse = |why: &str| Refused {
            flag: name.to_string(),
            value: value.clone(),
            why: why.to_string(),
        };
        let own = match flag.treatment {
            Treatment::Served => name,
            Treatment::Alias(to) => to,
            Treatment::File(_) => continue,
            Treatment::NoEffect(why) => {
                out.notes
                    .push(format!("--{name}={value}: accepted, no effect: {why}"));
                continue;
            }
            Treatment::Only(values, why) => {
                if !values.iter().any(|v| v.eq_ignore_ascii_case(&value)) {
                    return Err(refuse(why));
                }
                continue;
            }
        };
        match flag.takes {
            Takes::Bool => match value.to_ascii_lowercase().as_str() {
                "true" | "1" | "t" => out.args.push(format!("--{own}=true").into()),
                "false" | "0" | "f" => out.args.push(format!("--{own}=false").into()),
                _ => return Err(refuse("a boolean flag takes true or false")),
            },
            Takes::Value => {
                out.args.push(format!("--{own}").into());
                out.args.push(value.into());
            }
        }
    }
    Ok(out)
}

/// docs/etcd-flags.md: the table of every etcd flag and what `node run`
/// does with it (generated; `generated_files` checks the committed one).
pub fn markdown() -> String {
    let mut out = String::from(
        "# etcd's server flags on the engine\n\n\
         <!-- generated from src/cli/etcd_flags.rs: MEMBERCTL_BLESS=1 cargo test --test tests generated_files -->\n\n\
         `memberctl node run` takes every server flag of etcd 3.4, 3.5, 3.6 and 3.7 (the flags \
         their `--help` lists; the tests check each version's list against this table), spelt as \
         etcd's parser takes them: `--flag value`, `--flag=value`, a single dash, and \
         `--bool-flag=true|false`. Each is **served**, **accepted with no effect** (it tunes \
         something the engine does not have; the node says so in its log at start), or \
         **accepted at the values listed** — the ones that mean what the engine does, etcd's \
         default among them — and refused at any other value with the reason, before anything \
         starts (exit code 2). A flag given as an `ETCD_*` environment variable is not read.\n\n\
         | flag | takes | on the engine |\n|---|---|---|\n",
    );
    for f in FLAGS {
        let takes = match f.takes {
            Takes::Bool => "true/false",
            Takes::Value => "value",
        };
        let what = match f.treatment {
            Treatment::Served => "served".to_string(),
            Treatment::Alias(to) => format!("served, as `--{to}`"),
            Treatment::NoEffect(why) => format!("accepted, no effect: {why}"),
            Treatment::File(what) => format!("served: {what}"),
            Treatment::Only(values, why) => {
                let values: Vec<String> = values
                    .iter()
                    .map(|v| {
                        if v.is_empty() {
                            "unset (empty)".to_string()
                        } else {
                            format!("`{v}`")
                        }
                    })
                    .collect();
                format!("accepted at {}; else refused: {why}", values.join(", "))
            }
        };
        out.push_str(&format!(
            "| `--{}` | {takes} | {} |\n",
            f.name,
            what.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn args(t: &Translated) -> Vec<String> {
        t.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_table_is_sorted_and_has_each_flag_once() {
        for pair in FLAGS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn go_spellings_are_read_as_etcd_reads_them() {
        let t = translate(&words(
            "-name m1 --client-cert-auth=true --peer-client-cert-auth --force-new-cluster=false \
             --snapshot-count=10000 --fault-injection",
        ))
        .unwrap();
        assert_eq!(
            args(&t),
            [
                "--name",
                "m1",
                "--client-cert-auth=true",
                "--peer-client-cert-auth=true",
                "--force-new-cluster=false",
                "--snapshot-count",
                "10000",
                "--fault-injection"
            ]
        );
        assert!(t.notes.is_empty());
    }

    #[test]
    fn renamed_flags_are_renamed_and_flags_of_no_effect_noted() {
        let t = translate(&words(
            "--experimental-initial-corrupt-check=true --logger zap --log-outputs=stderr \
             --enable-v2=false --experimental-watch-progress-notify-interval 5s",
        ))
        .unwrap();
        assert_eq!(
            args(&t),
            [
                "--initial-corrupt-check=true",
                "--watch-progress-notify-interval",
                "5s"
            ]
        );
        assert_eq!(t.notes.len(), 1, "{:?}", t.notes);
        assert!(t.notes[0].starts_with("--logger=zap: accepted, no effect"));
    }

    #[test]
    fn a_value_the_engine_does_not_serve_is_refused_with_the_reason() {
        let e = translate(&words("--name m1 --enable-v2")).unwrap_err();
        assert_eq!(e.flag, "enable-v2");
        assert!(e.to_string().contains("v3 API only"), "{e}");
        let e = translate(&words("--experimental-enable-lease-checkpoint")).unwrap_err();
        assert!(e.to_string().contains("lease checkpoints"), "{e}");
        let e = translate(&words("--client-cert-auth=maybe")).unwrap_err();
        assert!(e.to_string().contains("true or false"), "{e}");
    }

    #[test]
    fn a_config_file_stands_for_etcds_other_flags() {
        let yaml =
            "name: m1\nexperimental-initial-corrupt-check: true\nenable-v2: false\nlogger: zap\n";
        let t = translate_with(
            &words("--name ignored --config-file=/e.yml --fault-injection --snapshot-count 5"),
            |p| {
                assert_eq!(p, Path::new("/e.yml"));
                Ok(yaml.to_string())
            },
        )
        .unwrap();
        assert_eq!(
            args(&t),
            [
                "--name",
                "m1",
                "--initial-corrupt-check=true",
                "--fault-injection"
            ]
        );
        assert!(
            t.notes[0].starts_with("--config-file=/e.yml: loaded"),
            "{:?}",
            t.notes
        );
        assert!(
            t.notes
                .iter()
                .any(|n| n.starts_with("--name=ignored: ignored")),
            "{:?}",
            t.notes
        );
        assert!(
            t.notes
                .iter()
                .any(|n| n.starts_with("--snapshot-count=5: ignored")),
            "{:?}",
            t.notes
        );
        assert!(
            t.notes
                .iter()
                .any(|n| n.starts_with("--logger=zap: accepted, no effect")),
            "{:?}",
            t.notes
        );
        // A value the engine does not serve, in the file: refused as on the
        // command line.
        let e = translate_with(&words("--config-file e.yml"), |_| {
            Ok("enable-v2: true\n".into())
        })
        .unwrap_err();
        assert_eq!(e.flag, "enable-v2");
        let e = translate_with(&words("--config-file e.yml"), |_| {
            Err(std::io::ErrorKind::NotFound.into())
        })
        .unwrap_err();
        assert_eq!(e.flag, "config-file");
        assert!(e.to_string().contains("cannot read it"), "{e}");
        let e = translate_with(&words("--config-file e.yml"), |_| {
            Ok("snapshot-count: [\n".into())
        })
        .unwrap_err();
        assert!(e.to_string().contains("mend the file"), "{e}");
    }
}
