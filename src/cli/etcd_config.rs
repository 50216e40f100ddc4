//! etcd's YAML configuration file (`--config-file`) read into etcd's own flags for `node run`, as etcd 3.4–3.7 read it.
//!
//! etcd reads the file with Go's JSON rules over YAML: each top-level key is
//! a flag's name and takes the flag's value (a duration as an integer of
//! nanoseconds, a list as a YAML sequence); the TLS settings sit under
//! `client-transport-security` and `peer-transport-security`; keys etcd does
//! not know are ignored. What the file sets is returned as etcd flags, for
//! [`super::etcd_flags`] to serve or refuse as it would the command line.

use serde_yaml_ng::Value;

use super::etcd_flags::{lookup, Takes};

/// What the file says, in etcd's flags.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileFlags {
    /// `(flag, value)`, in the file's order.
    pub flags: Vec<(String, String)>,
    /// One line per key read and left alone (etcd ignores it too), for the log.
    pub notes: Vec<String>,
}

/// The flags whose value etcd reads as a Go `time.Duration`: in the file, an
/// integer of nanoseconds.
const DURATIONS: &[&str] = &[
    "backend-batch-interval",
    "compact-hash-check-time",
    "compaction-sleep-interval",
    "corrupt-check-time",
    "downgrade-check-time",
    "experimental-compact-hash-check-time",
    "experimental-compaction-sleep-interval",
    "experimental-corrupt-check-time",
    "experimental-downgrade-check-time",
    "experimental-warning-apply-duration",
    "experimental-warning-unary-request-duration",
    "experimental-watch-progress-notify-interval",
    "grpc-keepalive-interval",
    "grpc-keepalive-min-time",
    "grpc-keepalive-timeout",
    "warning-apply-duration",
    "warning-unary-request-duration",
    "watch-progress-notify-interval",
];

/// The keys of `client-transport-security` / `peer-transport-security` and
/// the flags they stand for (client side, peer side; `None`: no such flag).
const SECURITY: &[(&str, Option<&str>, Option<&str>)] = &[
    ("cert-file", Some("cert-file"), Some("peer-cert-file")),
    ("key-file", Some("key-file"), Some("peer-key-file")),
    (
        "client-cert-file",
        Some("client-cert-file"),
        Some("peer-client-cert-file"),
    ),
    (
        "client-key-file",
        Some("client-key-file"),
        Some("peer-client-key-file"),
    ),
    (
        "client-cert-auth",
        Some("client-cert-auth"),
        Some("peer-client-cert-auth"),
    ),
    (
        "trusted-ca-file",
        Some("trusted-ca-file"),
        Some("peer-trusted-ca-file"),
    ),
    ("auto-tls", Some("auto-tls"), Some("peer-auto-tls")),
    ("allowed-cn", None, Some("peer-cert-allowed-cn")),
    (
        "allowed-hostname",
        Some("client-cert-allowed-hostname"),
        Some("peer-cert-allowed-hostname"),
    ),
    (
        "skip-client-san-verification",
        None,
        Some("experimental-peer-skip-client-san-verification"),
    ),
];

/// `ns` nanoseconds as Go writes a duration a flag reads back: whole
/// seconds as `Ns`, else `Nns`.
fn go_duration(ns: u64) -> String {
    if ns % 1_000_000_000 == 0 {
        format!("{}s", ns / 1_000_000_000)
    } else {
        format!("{ns}ns")
    }
}

/// A scalar as the flag's text, or why etcd would not read it.
fn scalar(key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::String(s) => Ok(s.clone()),
        Value::Sequence(items) => items
            .iter()
            .map(|i| scalar(key, i))
            .collect::<Result<Vec<_>, _>>()
            .map(|parts| parts.join(",")),
        _ => Err(format!("{key}: etcd reads a single value or a list here")),
    }
}

/// One setting: `key` (an etcd flag's name) at `v`, checked as etcd's
/// reader checks its type.
fn setting(key: &str, v: &Value) -> Result<String, String> {
    let flag = lookup(key).ok_or_else(|| format!("{key}: not one of etcd's flags"))?;
    if DURATIONS.contains(&key) {
        return match v.as_u64() {
            Some(ns) => Ok(go_duration(ns)),
            None => Err(format!(
                "{key}: etcd reads a duration here as an integer of nanoseconds \
                 (e.g. 5000000000 for 5s), not {}",
                scalar(key, v).unwrap_or_else(|_| "a map".into())
            )),
        };
    }
    match (flag.takes, v) {
        (Takes::Bool, Value::Bool(b)) => Ok(b.to_string()),
        (Takes::Bool, _) => Err(format!("{key}: etcd reads true or false here")),
        (Takes::Value, _) => scalar(key, v),
    }
}

/// Reads etcd's YAML configuration `text` into etcd's flags, or says what
/// in it etcd would not read.
pub fn read(text: &str) -> Result<FileFlags, String> {
    let doc: Value =
        serde_yaml_ng::from_str(text).map_err(|e| format!("not YAML etcd reads: {e}"))?;
    let mut out = FileFlags::default();
    let map = match doc {
        Value::Mapping(m) => m,
        Value::Null => return Ok(out),
        _ => return Err("etcd reads a map of settings (key: value), one per line".into()),
    };
    for (k, v) in &map {
        let Some(key) = k.as_str() else {
            return Err(format!("{k:?}: a setting's name is text"));
        };
        if v.is_null() {
            continue;
        }
        let side = match key {
            "client-transport-security" => Some(0),
            "peer-transport-security" => Some(1),
            _ => None,
        };
        if let Some(side) = side {
            let Value::Mapping(sec) = v else {
                return Err(format!("{key}: etcd reads a map of TLS settings here"));
            };
            for (sk, sv) in sec {
                let Some(sk) = sk.as_str() else {
                    return Err(format!("{key}: a setting's name is text"));
                };
                if sv.is_null() {
                    continue;
                }
                let entry = SECURITY.iter().find(|(name, ..)| *name == sk);
                match entry.and_then(|e| if side == 0 { e.1 } else { e.2 }) {
                    Some(flag) => {
                        let value = setting(flag, sv).map_err(|e| format!("{key}.{e}"))?;
                        out.flags.push((flag.to_string(), value));
                    }
                    None => out.notes.push(format!(
                        "config file: {key}.{sk}: left alone: etcd reads no such setting here"
                    )),
                }
            }
            continue;
        }
        if lookup(key).is_none() || key == "config-file" {
            out.notes.push(format!(
                "config file: {key}: left alone: not one of etcd's settings (etcd ignores it too)"
            ));
            continue;
        }
        out.flags.push((key.to_string(), setting(key, v)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(f: &FileFlags) -> Vec<(&str, &str)> {
        f.flags
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    #[test]
    fn settings_are_etcds_flags_and_tls_maps_their_prefixed_flags() {
        let f = read(
            "name: m1\n\
             snapshot-count: 10000\n\
             experimental-initial-corrupt-check: true\n\
             experimental-watch-progress-notify-interval: 5000000000\n\
             log-outputs: [stderr]\n\
             cipher-suites:\n  - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n  - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\n\
             initial-cluster-token:\n\
             client-transport-security:\n  cert-file: /c.pem\n  client-cert-auth: true\n\
             peer-transport-security:\n  trusted-ca-file: /ca.pem\n  allowed-cn: etcd\n",
        )
        .unwrap();
        assert_eq!(
            pairs(&f),
            [
                ("name", "m1"),
                ("snapshot-count", "10000"),
                ("experimental-initial-corrupt-check", "true"),
                ("experimental-watch-progress-notify-interval", "5s"),
                ("log-outputs", "stderr"),
                (
                    "cipher-suites",
                    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
                ),
                ("cert-file", "/c.pem"),
                ("client-cert-auth", "true"),
                ("peer-trusted-ca-file", "/ca.pem"),
                ("peer-cert-allowed-cn", "etcd"),
            ]
        );
        assert!(f.notes.is_empty(), "{:?}", f.notes);
    }

    #[test]
    fn what_etcd_ignores_is_noted_and_what_it_refuses_is_refused() {
        let f =
            read("name: m1\nnot-a-flag: 3\nclient-transport-security:\n  allowed-cn: x\n").unwrap();
        assert_eq!(pairs(&f), [("name", "m1")]);
        assert_eq!(f.notes.len(), 2, "{:?}", f.notes);
        assert!(f.notes[0].contains("not-a-flag"), "{:?}", f.notes);
        let e = read("grpc-keepalive-interval: 2h\n").unwrap_err();
        assert!(e.contains("nanoseconds"), "{e}");
        let e = read("strict-reconfig-check: maybe\n").unwrap_err();
        assert!(e.contains("true or false"), "{e}");
        assert!(read("- a\n- b\n").is_err());
        assert!(read("name: [unclosed\n").unwrap_err().contains("YAML"));
        assert_eq!(read("").unwrap(), FileFlags::default());
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(1_500_000_000), "1500000000ns");
    }
}
