//! Command-line definitions of `memberctl node run` (etcd's flag names).

use std::path::PathBuf;

use clap::{ArgAction, Args, Subcommand, ValueEnum};

/// `memberctl node …` subcommands.
#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Run one member of an embedded-engine cluster (flags as etcd's).
    Run(Box<RunArgs>),
}

/// `--initial-cluster-state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClusterState {
    /// Bootstrap a new cluster with the members of --initial-cluster.
    New,
    /// Join a cluster this member was added to (`member add`).
    Existing,
}

/// `--initial-cluster` (of `node run` and `snapshot restore`), declared once;
/// read into the engine's `InitialCluster` by the command.
#[derive(Debug, Clone, Args)]
pub struct InitialClusterArg {
    /// The initial members, as name=peer-url pairs
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        value_name = "NAME=URL,..."
    )]
    pub initial_cluster: Vec<String>,
}

/// Arguments of `node run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// This member's name
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Directory for the member's data (etcd's default: NAME.etcd)
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// URL to listen on for clients
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "http://localhost:2379",
        value_name = "URL"
    )]
    pub listen_client_urls: Vec<String>,
    /// Client URLs to advertise to the cluster
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "http://localhost:2379",
        value_name = "URL"
    )]
    pub advertise_client_urls: Vec<String>,
    /// Extra plain-HTTP URLs that serve /metrics and the health checks only
    /// (the client URL serves them too)
    #[arg(long, value_delimiter = ',', value_name = "URL")]
    pub listen_metrics_urls: Vec<String>,
    /// URL to listen on for peers
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "http://localhost:2380",
        value_name = "URL"
    )]
    pub listen_peer_urls: Vec<String>,
    /// Peer URLs to advertise to the cluster
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "http://localhost:2380",
        value_name = "URL"
    )]
    pub initial_advertise_peer_urls: Vec<String>,
    /// The initial members, as name=peer-url pairs (etcd's default: this
    /// member alone, NAME=each --initial-advertise-peer-urls)
    #[arg(long, value_delimiter = ',', value_name = "NAME=URL,...")]
    pub initial_cluster: Vec<String>,
    /// new to bootstrap a cluster, existing to join one
    #[arg(long, value_enum, default_value = "new")]
    pub initial_cluster_state: ClusterState,
    /// Token that keeps IDs of different clusters apart
    #[arg(long, default_value = "etcd-cluster")]
    pub initial_cluster_token: String,
    /// Time between heartbeats, in milliseconds
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub heartbeat_interval: u64,
    /// Election timeout, in milliseconds
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub election_timeout: u64,
    /// Compact the raft log every this many applied entries
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub snapshot_count: u64,
    /// Most learners the cluster may have at once
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub max_learners: usize,
    /// Refuse writes that add data (etcd's NOSPACE alarm) once the state-machine file would pass this many bytes; 0: etcd's default, 2 GiB
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub quota_backend_bytes: u64,
    /// How often the leader compares its key-value hash with each peer's, raising the CORRUPT alarm for a member whose hash differs (0: never, etcd's default)
    #[arg(long, default_value = "0s", value_parser = parse_duration_or_zero, value_name = "DURATION")]
    pub corrupt_check_time: std::time::Duration,
    /// How long a client connection may be idle before the server pings it (etcd's default: 2h)
    #[arg(long, default_value = "2h", value_parser = crate::cli::parse_duration, value_name = "DURATION")]
    pub grpc_keepalive_interval: std::time::Duration,
    /// How long the server waits for a ping's answer before it closes the connection (etcd's default: 20s)
    #[arg(long, default_value = "20s", value_parser = crate::cli::parse_duration, value_name = "DURATION")]
    pub grpc_keepalive_timeout: std::time::Duration,
    /// Largest write request the server takes, in bytes (etcd's default: 1.5 MiB)
    #[arg(long, default_value_t = 1_572_864, value_name = "BYTES")]
    pub max_request_bytes: usize,
    /// Most operations in one branch of a transaction
    #[arg(long, default_value_t = 128, value_name = "N")]
    pub max_txn_ops: usize,
    /// How --auto-compaction-retention counts: periodic (time) or revision
    #[arg(long, default_value = "periodic", value_name = "MODE")]
    pub auto_compaction_mode: String,
    /// History the leader keeps when it compacts by itself: hours or a duration (periodic), revisions (revision); 0: no automatic compaction
    #[arg(long, default_value = "0", value_name = "RETENTION")]
    pub auto_compaction_retention: String,
    /// Certificate for client connections (TLS on the client URLs)
    #[arg(long, value_name = "FILE")]
    pub cert_file: Option<PathBuf>,
    /// Key of --cert-file
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// CA that signs client certificates
    #[arg(long, value_name = "FILE")]
    pub trusted_ca_file: Option<PathBuf>,
    /// Require client certificates signed by --trusted-ca-file
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub client_cert_auth: bool,
    /// Refuse client certificates this revocation list revokes (PEM or DER; needs --trusted-ca-file)
    #[arg(long, value_name = "FILE")]
    pub client_crl_file: Option<PathBuf>,
    /// Accept only client certificates whose subjectAltNames name this host (needs --trusted-ca-file)
    #[arg(long, value_name = "HOST")]
    pub client_cert_allowed_hostname: Option<String>,
    /// TLS 1.2 cipher suites the client and peer listeners offer, by Go's names, comma-separated (default: all the engine has; TLS 1.3's are always offered, as Go's)
    #[arg(long, value_delimiter = ',', value_name = "SUITES")]
    pub cipher_suites: Vec<String>,
    /// Lowest TLS version the listeners accept: TLS1.2 (default) or TLS1.3
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        value_name = "VERSION"
    )]
    pub tls_min_version: String,
    /// Highest TLS version the listeners accept: TLS1.2 or TLS1.3 (default)
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        value_name = "VERSION"
    )]
    pub tls_max_version: String,
    /// Without --cert-file/--key-file, serve the client URLs with a self-signed certificate made at start (kept in DATA-DIR/fixtures/client)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub auto_tls: bool,
    /// Without --peer-cert-file/--peer-key-file, serve and dial peers with a self-signed certificate made at start (DATA-DIR/fixtures/peer); peers' certificates are then taken unverified, as etcd takes them
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub peer_auto_tls: bool,
    /// Years the certificates --auto-tls and --peer-auto-tls make last
    #[arg(long, default_value_t = 1, value_name = "YEARS")]
    pub self_signed_cert_validity: u32,
    /// Certificate for peer connections (served, and presented to peers)
    #[arg(long, value_name = "FILE")]
    pub peer_cert_file: Option<PathBuf>,
    /// Key of --peer-cert-file
    #[arg(long, value_name = "FILE")]
    pub peer_key_file: Option<PathBuf>,
    /// CA that signs the peers' certificates
    #[arg(long, value_name = "FILE")]
    pub peer_trusted_ca_file: Option<PathBuf>,
    /// Require peer certificates signed by --peer-trusted-ca-file
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub peer_client_cert_auth: bool,
    /// Refuse peer certificates this revocation list revokes (PEM or DER; needs --peer-trusted-ca-file)
    #[arg(long, value_name = "FILE")]
    pub peer_crl_file: Option<PathBuf>,
    /// Accept only peer certificates with this common name (needs --peer-trusted-ca-file)
    #[arg(long, value_name = "CN")]
    pub peer_cert_allowed_cn: Option<String>,
    /// Accept only peer certificates whose subjectAltNames name this host (needs --peer-trusted-ca-file)
    #[arg(long, value_name = "HOST")]
    pub peer_cert_allowed_hostname: Option<String>,
    /// How Authenticate's tokens are made: simple (etcd's default: random
    /// tokens every member learns through raft) or
    /// jwt,priv-key=FILE,pub-key=FILE,sign-method=METHOD[,ttl=DURATION]
    /// (signed tokens any member checks with the public key; METHOD one of
    /// RS256/384/512, PS256/384/512, ES256/384, HS256/384/512 with priv-key
    /// the secret, EdDSA; pub-key alone checks tokens without issuing any;
    /// ttl 5m by default)
    #[arg(long, default_value = "simple", value_name = "simple|jwt,OPTIONS")]
    pub auth_token: String,
    /// Seconds a simple token lives after its last use (0: etcd's default, 300)
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub auth_token_ttl: u64,
    /// bcrypt's cost for the passwords of users added or changed here (4 to
    /// 31; any other is taken as 10 with a warning, as etcd takes it)
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub bcrypt_cost: u32,
    /// Before serving, compare this member's key-value hash with its peers' at its revision; exit on a mismatch (etcd's --experimental-initial-corrupt-check)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub initial_corrupt_check: bool,
    /// Refuse a membership change that would leave too few started voters or that the leader cannot reach every voter for (false: accept it, as etcd with --strict-reconfig-check=false)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = true)]
    pub strict_reconfig_check: bool,
    /// Most concurrent gRPC streams per client connection (etcd's default, math.MaxUint32: no limit)
    #[arg(long, default_value = "math.MaxUint32", value_parser = parse_streams, value_name = "N")]
    pub max_concurrent_streams: u32,
    /// How often an idle watch that asked for progress notifications gets one (etcd's default: 10m)
    #[arg(long, value_parser = crate::cli::parse_duration, value_name = "DURATION")]
    pub watch_progress_notify_interval: Option<std::time::Duration>,
    /// Test clusters only: serve the fault-injection service (memberctl.v1.Fault) on the client and peer URLs, with which any client can make this node drop the raft traffic to and from chosen peers, as a network partition would, and heal it
    #[arg(long)]
    pub fault_injection: bool,
    /// Test clusters only, a deliberate bug: serve linearizable reads from this node's state without asking the leader (ReadIndex), so they may be stale; for showing that the linearizability checker catches it
    #[arg(long, requires = "fault_injection")]
    pub fault_stale_reads: bool,
    /// Test clusters only, a deliberate bug: acknowledge raft log writes before they are written and fsync'd (they are held in memory, as a disk's volatile cache would hold them), so a kill loses acknowledged writes; for showing that the linearizability checker catches it
    #[arg(long, requires = "fault_injection")]
    pub fault_ack_before_fsync: bool,
    /// etcd's way back from a lost quorum: keep this member's data and make
    /// it the cluster's only member (then add the others back as new members)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = ArgAction::Set, default_value_t = false)]
    pub force_new_cluster: bool,
    /// etcd flags accepted that change nothing on the engine, one line each
    /// for the log (filled by the parser from [`super::etcd_flags`]).
    #[arg(skip)]
    pub etcd_notes: Vec<String>,
}

impl RunArgs {
    /// `--data-dir`, or etcd's default: `NAME.etcd`.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{}.etcd", self.name)))
    }

    /// `--initial-cluster`, or etcd's default: this member alone, at each of
    /// its advertised peer URLs.
    pub fn initial_cluster(&self) -> InitialClusterArg {
        let initial_cluster = if self.initial_cluster.is_empty() {
            self.initial_advertise_peer_urls
                .iter()
                .map(|u| format!("{}={u}", self.name))
                .collect()
        } else {
            self.initial_cluster.clone()
        };
        InitialClusterArg { initial_cluster }
    }
}

/// A duration (`5m`, `1h30m`), or 0 for none.
fn parse_duration_or_zero(s: &str) -> Result<std::time::Duration, String> {
    if s.trim() == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e}; use a duration such as 30s, 5m or 1h, or 0 for none"))
}

/// `--max-concurrent-streams`: a number, or etcd's default spelled as Go's
/// `math.MaxUint32`.
fn parse_streams(s: &str) -> Result<u32, String> {
    if s == "math.MaxUint32" {
        return Ok(u32::MAX);
    }
    s.parse::<u32>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s}: give a number of streams above 0"))
}
