//! etcdctl's environment variables (`ETCDCTL_CACERT`, `ETCDCTL_DIAL_TIMEOUT`, …) read as etcdctl reads them: each stands for the global flag of the same name, below the flag itself and below memberctl's own `MEMBERCTL_*` variable.
//!
//! An operator's shell set up for etcdctl (`ETCDCTL_ENDPOINTS=https://…`,
//! `ETCDCTL_CACERT`, `ETCDCTL_CERT`, `ETCDCTL_KEY`) must work unchanged.
//! clap reads one variable per flag (`MEMBERCTL_*`); before it parses,
//! [`adopt`] copies each etcdctl variable that is set into the memberctl
//! variable of the same flag when that one is not set, so the order is:
//! the flag, then `MEMBERCTL_*`, then `ETCDCTL_*`, then the default, and a
//! bad value is reported by clap under the flag's name like any other.
//! `ETCDCTL_ENDPOINTS` is read where the endpoints are chosen
//! (`command::endpoints`), which also looks for a local test cluster.

/// The pairs (memberctl's variable, etcdctl's variable) for one global flag
/// each, as etcdctl 3.4–3.7 name them. `ETCDCTL_WRITE_OUT` is left out on
/// purpose: etcdctl's formats (`fields`, `protobuf`) are not memberctl's,
/// and a shell set for etcdctl must not make every memberctl command a
/// usage error.
pub const PAIRS: &[(&str, &str)] = &[
    ("MEMBERCTL_CACERT", "ETCDCTL_CACERT"),
    ("MEMBERCTL_CERT", "ETCDCTL_CERT"),
    ("MEMBERCTL_KEY", "ETCDCTL_KEY"),
    (
        "MEMBERCTL_INSECURE_SKIP_TLS_VERIFY",
        "ETCDCTL_INSECURE_SKIP_TLS_VERIFY",
    ),
    ("MEMBERCTL_USER", "ETCDCTL_USER"),
    ("MEMBERCTL_PASSWORD", "ETCDCTL_PASSWORD"),
    ("MEMBERCTL_DIAL_TIMEOUT", "ETCDCTL_DIAL_TIMEOUT"),
    ("MEMBERCTL_COMMAND_TIMEOUT", "ETCDCTL_COMMAND_TIMEOUT"),
];

/// The assignments [`adopt`] makes, given a lookup of the environment: for
/// each pair whose etcdctl variable is set (and not empty) and whose
/// memberctl variable is not, (memberctl's name, etcdctl's value).
pub fn adoptions(get: impl Fn(&str) -> Option<String>) -> Vec<(&'static str, String)> {
    PAIRS
        .iter()
        .filter(|(ours, _)| get(ours).is_none())
        .filter_map(|&(ours, theirs)| {
            get(theirs)
                .filter(|v| !v.is_empty())
                .map(|value| (ours, value))
        })
        .collect()
}

/// Copies etcdctl's variables into memberctl's where memberctl's are unset
/// (see the module's header). Called once, before the arguments are parsed
/// and before any thread starts, as the process's environment may only be
/// changed then.
pub fn adopt() {
    let get = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    for (name, value) in adoptions(get) {
        std::env::set_var(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn etcdctl_variables_fill_in_below_memberctl_ones() {
        let got = adoptions(env(&[
            ("ETCDCTL_CACERT", "/etc/etcd/ca.pem"),
            ("ETCDCTL_CERT", "/etc/etcd/client.pem"),
            ("MEMBERCTL_CERT", "/mine.pem"),
            ("ETCDCTL_DIAL_TIMEOUT", "3s"),
            ("ETCDCTL_KEY", ""),
        ]));
        assert_eq!(
            got,
            vec![
                ("MEMBERCTL_CACERT", "/etc/etcd/ca.pem".to_string()),
                ("MEMBERCTL_DIAL_TIMEOUT", "3s".to_string()),
            ]
        );
    }

    #[test]
    fn nothing_set_adopts_nothing() {
        assert!(adoptions(env(&[])).is_empty());
        assert!(adoptions(env(&[("ETCDCTL_WRITE_OUT", "fields")])).is_empty());
    }
}
