//! `memberctl node run`: turns the flags into node options and runs the node.

use std::time::Duration;

use crate::cli::{ClusterState, InitialClusterArg, RunArgs};
use crate::engine::startup::{
    self, Allowed, AuthToken, AutoCompaction, AutoTls, InitialCluster, Keepalive, ListenerTls,
    NodeOptions, TlsPolicy, TlsVersion,
};
use crate::error::Error;

/// Reads `--initial-cluster` (name=url,…), once: a usage error when an item is not name=url.
pub fn initial_cluster(arg: &InitialClusterArg) -> Result<InitialCluster, Error> {
    InitialCluster::parse(&arg.initial_cluster).map_err(|e| Error::usage(e.to_string()))
}

/// One listener's TLS files from etcd-style flags (`prefix` is "" or "peer-").
fn tls(
    (cert, key): (&Option<std::path::PathBuf>, &Option<std::path::PathBuf>),
    ca: &Option<std::path::PathBuf>,
    client_cert_auth: bool,
    (crl, allowed): (&Option<std::path::PathBuf>, Allowed),
    (prefix, policy): (&str, &TlsPolicy),
) -> Result<Option<ListenerTls>, Error> {
    let crl_flag = if prefix.is_empty() { "client-" } else { prefix };
    if crl.is_some() && ca.is_none() {
        return Err(Error::usage(format!(
            "--{crl_flag}crl-file needs --{prefix}trusted-ca-file: a client certificate is \
             checked against the list once it is verified against the CA"
        )));
    }
    if allowed != Allowed::Any && ca.is_none() {
        let flags = if prefix.is_empty() {
            "--client-cert-allowed-hostname needs"
        } else {
            "--peer-cert-allowed-cn and --peer-cert-allowed-hostname need"
        };
        return Err(Error::usage(format!(
            "{flags} --{prefix}trusted-ca-file: a certificate's name counts once it is \
             verified against the CA"
        )));
    }
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(Some(ListenerTls {
            cert: cert.clone(),
            key: key.clone(),
            ca: ca.clone(),
            client_cert_auth,
            crl: crl.clone(),
            allowed,
            policy: policy.clone(),
            self_signed: false,
        })),
        (None, None) if ca.is_none() && !client_cert_auth && crl.is_none() => Ok(None),
        _ => Err(Error::usage(format!(
            "--{prefix}cert-file and --{prefix}key-file go together, and --{prefix}trusted-ca-file / \
             --{prefix}client-cert-auth / --{crl_flag}crl-file need them"
        ))),
    }
}

/// What a peer's certificate must name: etcd's --peer-cert-allowed-cn or
/// --peer-cert-allowed-hostname (one of the two, as etcd takes them).
fn peer_allowed(a: &RunArgs) -> Result<Allowed, Error> {
    match (&a.peer_cert_allowed_cn, &a.peer_cert_allowed_hostname) {
        (Some(cn), Some(host)) if !cn.is_empty() && !host.is_empty() => Err(Error::usage(format!(
            "--peer-cert-allowed-cn ({cn}) and --peer-cert-allowed-hostname ({host}) exclude \
             each other, as in etcd: give one"
        ))),
        (Some(cn), _) if !cn.is_empty() => Ok(Allowed::CommonName(cn.clone())),
        (_, Some(host)) if !host.is_empty() => Ok(Allowed::Hostname(host.clone())),
        _ => Ok(Allowed::Any),
    }
}

/// What a client certificate must name: etcd's --client-cert-allowed-hostname.
fn client_allowed(a: &RunArgs) -> Allowed {
    match &a.client_cert_allowed_hostname {
        Some(host) if !host.is_empty() => Allowed::Hostname(host.clone()),
        _ => Allowed::Any,
    }
}

/// etcd's --cipher-suites, --tls-min-version and --tls-max-version, checked
/// as etcd checks them, and one line per suite named that is not offered.
fn tls_policy(a: &RunArgs) -> Result<(TlsPolicy, Vec<String>), Error> {
    let usage = |e: startup::TlsError| Error::usage(e.to_string());
    let mut policy = TlsPolicy {
        cipher_suites: a
            .cipher_suites
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        ..TlsPolicy::default()
    };
    if let Some(min) = TlsVersion::parse(&a.tls_min_version).map_err(usage)? {
        policy.min = min;
    }
    if let Some(max) = TlsVersion::parse(&a.tls_max_version).map_err(usage)? {
        policy.max = max;
    }
    let (_, notes) = policy.check().map_err(usage)?;
    Ok((policy, notes))
}

/// `--auth-token` read with its key files (a usage error naming the option
/// when one cannot be used), and `--bcrypt-cost` (etcd's default 10 in
/// place of a cost bcrypt does not take, as etcd does); notes for the log.
fn auth(a: &RunArgs) -> Result<(AuthToken, u32, Vec<String>), Error> {
    let (token, mut notes) =
        AuthToken::parse(&a.auth_token).map_err(|e| Error::usage(e.to_string()))?;
    let cost = if startup::BCRYPT_COSTS.contains(&a.bcrypt_cost) {
        a.bcrypt_cost
    } else {
        notes.push(format!(
            "--bcrypt-cost {} is outside bcrypt's 4..=31: passwords are hashed at cost {}, \
             as etcd hashes them",
            a.bcrypt_cost,
            startup::BCRYPT_COST_DEFAULT
        ));
        startup::BCRYPT_COST_DEFAULT
    };
    Ok((token, cost, notes))
}

/// Runs the node in the foreground until it is stopped.
pub async fn run(a: &RunArgs) -> anyhow::Result<()> {
    let (policy, tls_notes) = tls_policy(a)?;
    if a.cert_file.is_some() || a.auto_tls {
        policy
            .check_http2()
            .map_err(|e| Error::usage(e.to_string()))?;
    }
    let (auth_token, bcrypt_cost, auth_notes) = auth(a)?;
    let opts = NodeOptions {
        name: a.name.clone(),
        data_dir: a.data_dir(),
        listen_client_urls: a.listen_client_urls.clone(),
        listen_metrics_urls: a.listen_metrics_urls.clone(),
        advertise_client_urls: a.advertise_client_urls.clone(),
        listen_peer_urls: a.listen_peer_urls.clone(),
        initial_advertise_peer_urls: a.initial_advertise_peer_urls.clone(),
        initial_cluster: initial_cluster(&a.initial_cluster())?,
        join_existing: a.initial_cluster_state == ClusterState::Existing,
        token: a.initial_cluster_token.clone(),
        heartbeat: Duration::from_millis(a.heartbeat_interval.max(1)),
        election_timeout: Duration::from_millis(a.election_timeout),
        snapshot_count: a.snapshot_count,
        quota_backend_bytes: if a.quota_backend_bytes == 0 {
            startup::DEFAULT_QUOTA_BYTES
        } else {
            a.quota_backend_bytes
        },
        max_learners: a.max_learners,
        max_request_bytes: a.max_request_bytes,
        corrupt_check_time: a.corrupt_check_time,
        keepalive: Keepalive {
            interval: a.grpc_keepalive_interval,
            timeout: a.grpc_keepalive_timeout,
        },
        max_txn_ops: a.max_txn_ops,
        auto_compaction: AutoCompaction::parse(
            &a.auto_compaction_mode,
            &a.auto_compaction_retention,
        )
        .map_err(Error::usage)?,
        client_tls: tls(
            (&a.cert_file, &a.key_file),
            &a.trusted_ca_file,
            a.client_cert_auth,
            (&a.client_crl_file, client_allowed(a)),
            ("", &policy),
        )?,
        peer_tls: tls(
            (&a.peer_cert_file, &a.peer_key_file),
            &a.peer_trusted_ca_file,
            a.peer_client_cert_auth,
            (&a.peer_crl_file, peer_allowed(a)?),
            ("peer-", &policy),
        )?,
        auto_tls: AutoTls {
            client: a.auto_tls,
            peer: a.peer_auto_tls,
            validity_years: a.self_signed_cert_validity,
            policy: policy.clone(),
        },
        fault_injection: a.fault_injection,
        fault_stale_reads: a.fault_stale_reads,
        fault_ack_before_fsync: a.fault_ack_before_fsync,
        force_new_cluster: a.force_new_cluster,
        initial_corrupt_check: a.initial_corrupt_check,
        strict_reconfig_check: a.strict_reconfig_check,
        max_concurrent_streams: a.max_concurrent_streams,
        watch_progress_notify: a
            .watch_progress_notify_interval
            .unwrap_or_else(startup::watch_progress_default),
        auth_token,
        auth_token_ttl: Duration::from_secs(a.auth_token_ttl),
        bcrypt_cost,
    };
    for note in a.etcd_notes.iter().chain(&tls_notes).chain(&auth_notes) {
        eprintln!("memberctl node: {note}");
    }
    // A removed member keeps its kind (exit code 0, as etcd's: for good); the rest are the node's own failures.
    startup::run(opts).await.map_err(|e| match e {
        startup::StartupError::Removed(e) => anyhow::Error::new(e),
        other => anyhow::Error::new(other),
    })
}
