//! The syntax of one peer URL, as etcd reads it (rule 1's per-URL checks):
//! shared by the client, which refuses before sending, and the engine, which
//! refuses what a client such as etcdctl sends past memberctl.

use std::net::{IpAddr, ToSocketAddrs};

/// Looks a host name up; true when it resolves. Injected so tests need no DNS.
pub type Resolver<'a> = &'a dyn Fn(&str, u16) -> bool;

/// Resolves with the system resolver.
pub fn system_resolver(host: &str, port: u16) -> bool {
    (host, port)
        .to_socket_addrs()
        .map(|mut a| a.next().is_some())
        .unwrap_or(false)
}

/// The parts of a peer URL that identify an endpoint, normalised for comparison.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// The scheme, lower case.
    pub scheme: String,
    /// The host, lower case.
    pub host: String,
    /// The port (or the scheme's default).
    pub port: Option<u16>,
}

impl Endpoint {
    /// Whether the URL `raw` (one already in the cluster, read leniently)
    /// names this endpoint: the one comparison of "already taken" for the
    /// client's rule 1 and the engine's Cluster service.
    pub fn same_as(&self, raw: &str) -> bool {
        endpoint_of(raw).as_ref() == Some(self)
    }
}

/// How a text the user gave is quoted in a message: in full when short, else
/// its start and its length, so that hostile input cannot flood the terminal.
pub fn quoted(text: &str) -> String {
    const FULL: usize = 120;
    const START: usize = 60;
    if text.len() <= FULL {
        return format!("{text:?}");
    }
    let mut end = START;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}… ({} bytes)", &text[..end], text.len())
}

/// Splits `scheme://authority` out of a URL text without judging it; the
/// authority is what comes before the first `/`, `?`, `#` or `\` (which URL
/// parsers read as `/`).
fn split_raw(raw: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = raw.split_once("://")?;
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    Some((scheme, &rest[..end], &rest[end..]))
}

/// The host and port texts of an authority (`user@host:port`, `[v6]:port`),
/// as written; the port is None when there is no `:` after the host.
fn raw_host_port(authority: &str) -> (&str, Option<&str>) {
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if hostport.starts_with('[') {
        return match hostport.split_once(']') {
            Some((inner, after)) => (&hostport[..=inner.len()], after.strip_prefix(':')),
            None => (hostport, None),
        };
    }
    match hostport.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (hostport, None),
    }
}

/// Whether the host as written is the host the URL parser read: parsers
/// silently rewrite some forms (`127.1`, `0x7f.0.0.1`, percent escapes, IDN),
/// which the server may read differently.
fn host_is_canonical(written: &str, parsed: &str) -> bool {
    if let (Some(w), Some(p)) = (
        written.strip_prefix('[').and_then(|w| w.strip_suffix(']')),
        parsed.strip_prefix('[').and_then(|p| p.strip_suffix(']')),
    ) {
        return w.parse::<std::net::Ipv6Addr>().ok() == p.parse::<std::net::Ipv6Addr>().ok();
    }
    written.eq_ignore_ascii_case(parsed)
}

/// The longest host name DNS allows, and the longest label in it.
const MAX_HOST_NAME: usize = 253;
const MAX_LABEL: usize = 63;

/// One peer URL read once: the endpoint it names and what is wrong with
/// its syntax; its host, when a name, is looked up later (by
/// [`Reading::problems`]), against a resolver the caller injects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The endpoint, when the URL is one (perhaps with problems).
    pub endpoint: Option<Endpoint>,
    /// What is wrong with how it is written, in order.
    pub syntax: Vec<String>,
    /// The host name (and port) rule 1 looks up, when the host is a name
    /// written as parsers read it.
    lookup: Option<(String, u16)>,
}

impl Reading {
    /// Every problem of the URL `raw` (the text this is the reading of): its
    /// syntax, then its host name when `resolve` finds no address for it.
    pub fn problems(&self, raw: &str, resolve: Resolver) -> Vec<String> {
        let mut problems = self.syntax.clone();
        if let Some((host, port)) = &self.lookup {
            if !resolve(host, *port) {
                problems.push(format!(
                    "peer URL {}: host {} does not resolve; check the spelling or use an IP \
                     address",
                    quoted(raw),
                    quoted(host)
                ));
            }
        }
        problems
    }
}

/// Reads one URL into an endpoint and says what is wrong with how it is
/// written; the host is not looked up (see [`Reading::problems`]).
pub fn read(raw: &str) -> Reading {
    let (endpoint, syntax, lookup) = read_parts(raw);
    Reading {
        endpoint,
        syntax,
        lookup,
    }
}

/// The parts of a [`Reading`].
fn read_parts(raw: &str) -> (Option<Endpoint>, Vec<String>, Option<(String, u16)>) {
    let mut problems = Vec::new();
    let example = "e.g. http://10.0.0.4:2380";
    let shown = quoted(raw);
    if let Some(c) = raw.chars().find(|c| c.is_whitespace() || c.is_control()) {
        problems.push(format!(
            "peer URL {shown} contains white space or a control character ({c:?}); a URL has \
             none, remove it"
        ));
        return (None, problems, None);
    }
    let Some((raw_scheme, authority, tail)) = split_raw(raw) else {
        problems.push(format!(
            "peer URL {shown} is not a URL of the form scheme://host:port, {example}"
        ));
        return (None, problems, None);
    };
    let (raw_host, raw_port) = raw_host_port(authority);
    let v6 = |s: &str| s.parse::<std::net::Ipv6Addr>().is_ok();
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if !raw_host.starts_with('[') && (v6(hostport) || v6(raw_host)) {
        problems.push(format!(
            "peer URL {shown} has an IPv6 address without brackets; write it in brackets, \
             e.g. http://[fd00::4]:2380"
        ));
        return (None, problems, None);
    }
    let url = match url::Url::parse(raw) {
        Ok(u) => u,
        Err(url::ParseError::EmptyHost) => {
            problems.push(format!(
                "peer URL {shown} has no host; give host and port, {example}"
            ));
            return (None, problems, None);
        }
        Err(url::ParseError::InvalidPort) => {
            problems.push(format!(
                "peer URL {shown} has an invalid port; the port must be a number from 1 to 65535"
            ));
            return (None, problems, None);
        }
        Err(e) => {
            problems.push(format!(
                "peer URL {shown} is not a URL ({e}); write it as scheme://host:port, {example}"
            ));
            return (None, problems, None);
        }
    };
    let scheme = url.scheme().to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        problems.push(format!(
            "peer URL {shown} has scheme {}; peer URLs use http or https, {example}",
            quoted(raw_scheme)
        ));
        return (None, problems, None);
    }
    if raw_scheme != scheme {
        problems.push(format!(
            "peer URL {shown} writes its scheme as {raw_scheme:?}; write it in lower case \
             ({scheme}://), as etcd stores it"
        ));
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        problems.push(format!(
            "peer URL {shown} has no host; give host and port, {example}"
        ));
        return (None, problems, None);
    };
    let host = host.to_ascii_lowercase();
    let canonical = host_is_canonical(raw_host, &host);
    if !canonical {
        let read = quoted(&host);
        problems.push(format!(
            "peer URL {shown} writes its host as {}, which URL parsers read as {read}; write \
             {read} instead",
            quoted(raw_host),
        ));
    }
    let port = match raw_port {
        None | Some("") => {
            problems.push(format!(
                "peer URL {shown} has no port; give it explicitly (etcd's peer port is usually \
                 2380), e.g. {scheme}://{}:2380",
                if canonical && host.len() <= MAX_HOST_NAME {
                    host.as_str()
                } else {
                    "10.0.0.4"
                }
            ));
            None
        }
        Some(written) => {
            let p = url.port_or_known_default();
            if p == Some(0) {
                problems.push(format!(
                    "peer URL {shown} has port 0; the port must be a number from 1 to 65535"
                ));
            } else if let Some(n) = p.filter(|n| n.to_string() != written) {
                problems.push(format!(
                    "peer URL {shown} writes its port as {}; write it as a plain number ({n})",
                    quoted(written)
                ));
            }
            p
        }
    };
    if !url.username().is_empty() || url.password().is_some() || authority.contains('@') {
        problems.push(format!(
            "peer URL {shown} contains user information; peer URLs carry no credentials, \
             remove the part before '@'"
        ));
    }
    if !tail.is_empty() {
        let what = if url.fragment().is_some() {
            "a fragment"
        } else if url.query().is_some() {
            "a query"
        } else {
            "a path"
        };
        problems.push(format!(
            "peer URL {shown} has {what} ({}); etcd accepts only scheme://host:port, remove \
             everything after the port",
            quoted(tail)
        ));
    }
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    let mut lookup = None;
    if literal.parse::<IpAddr>().is_err() && canonical {
        if host.len() > MAX_HOST_NAME || host.split('.').any(|l| l.len() > MAX_LABEL) {
            problems.push(format!(
                "peer URL {shown} has a host name of {} characters; a host name has at most \
                 {MAX_HOST_NAME}, and at most {MAX_LABEL} between dots",
                host.len()
            ));
        } else {
            lookup = Some((host.clone(), port.unwrap_or(2380)));
        }
    }
    let endpoint = Endpoint { scheme, host, port };
    (Some(endpoint), problems, lookup)
}

/// Rule 1's syntax checks of one peer URL on its own: no member list, no DNS
/// look-up (a host name is only checked for length). The problems found, none
/// when the URL is written as `scheme://host:port` the way servers read it.
/// The engine's server-side check and the client's rule 1 both use it.
pub fn check_url_syntax(raw: &str) -> Vec<String> {
    read(raw).syntax
}

/// Endpoint of a URL already in the cluster (lenient: ignores what does not parse).
pub fn endpoint_of(raw: &str) -> Option<Endpoint> {
    let url = url::Url::parse(raw).ok()?;
    Some(Endpoint {
        scheme: url.scheme().to_ascii_lowercase(),
        host: url.host_str()?.to_ascii_lowercase(),
        port: url.port_or_known_default(),
    })
}
