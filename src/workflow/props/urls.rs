//! Rule 1 against the documented peer-URL grammar: generated URLs in the grammar are accepted, each broken rule is named, and near-valid URLs are accepted exactly when in the grammar.

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::prelude::*;
use proptest::test_runner::Config;

use super::config;
use crate::model::{Member, MemberId, PeerUrls};
use crate::workflow::calc::validate::{check_name, check_new_member, check_peer_urls};

/// The test resolver: names under `.example` and `.test` resolve, nothing else.
fn resolves(host: &str, _port: u16) -> bool {
    host.ends_with(".example") || host.ends_with(".test")
}

/// Three members whose peer URLs use `scheme`, on host names no generated URL uses.
fn cluster(scheme: &str) -> Vec<Member> {
    (1..=3)
        .map(|i| Member {
            id: MemberId(i),
            name: format!("m{i}"),
            peer_urls: vec![format!("{scheme}://m{i}.cluster.test:2380")],
            client_urls: vec![format!("{scheme}://m{i}.cluster.test:2379")],
            is_learner: false,
        })
        .collect()
}

/// A host of the grammar: IPv4, bracketed IPv6, or a host name that resolves.
#[derive(Clone, Debug)]
enum Host {
    V4(Ipv4Addr),
    V6(Ipv6Addr),
    Name(String),
}

impl Host {
    fn text(&self) -> String {
        match self {
            Host::V4(a) => a.to_string(),
            Host::V6(a) => format!("[{a}]"),
            Host::Name(n) => n.clone(),
        }
    }
}

/// An ordinary DNS label; not one starting `xn--`, which names an encoded
/// international label and is refused when it does not decode (rule 1's
/// parser is right to: `xn--a` is no name).
fn label() -> impl Strategy<Value = String> {
    "[a-z]([a-z0-9-]{0,10}[a-z0-9])?".prop_filter("not an xn-- label", |l| !l.starts_with("xn--"))
}

fn host() -> impl Strategy<Value = Host> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|o| Host::V4(Ipv4Addr::from(o))),
        any::<u128>().prop_map(|b| Host::V6(Ipv6Addr::from(b))),
        prop::collection::vec(label(), 1..4)
            .prop_map(|l| Host::Name(format!("h{}.example", l.join(".")))),
    ]
}

fn scheme() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("http"), Just("https")]
}

/// One way to break a valid URL, each naming the rule it breaks.
#[derive(Clone, Debug)]
enum Mutation {
    NoPort,
    PortZero,
    PortTooBig(u32),
    LeadingZero,
    OtherScheme(&'static str),
    UpperCaseScheme,
    Path(String),
    Query(String),
    Fragment(String),
    UserInfo(&'static str),
    WhiteSpace(usize, char),
    Ipv6WithoutBrackets(Ipv6Addr),
    IntegerIpv4(u32),
    Unresolved(String),
    LongLabel(usize),
    Twice,
    TwiceOtherCase,
    TakenPeerUrl,
    TakenClientUrl,
    EmptyItem(bool),
    OtherClusterScheme,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::NoPort),
        Just(Mutation::PortZero),
        (65536u32..10_000_000).prop_map(Mutation::PortTooBig),
        Just(Mutation::LeadingZero),
        prop::sample::select(vec!["ftp", "ws", "unix", "unixs", "tcp", "gopher"])
            .prop_map(Mutation::OtherScheme),
        Just(Mutation::UpperCaseScheme),
        "[a-z0-9/]{0,8}".prop_map(Mutation::Path),
        "[a-z0-9=&]{0,8}".prop_map(Mutation::Query),
        "[a-z0-9]{0,8}".prop_map(Mutation::Fragment),
        prop::sample::select(vec!["user@", "user:pw@", "@", ":@"]).prop_map(Mutation::UserInfo),
        (
            any::<usize>(),
            prop::sample::select(vec![' ', '\t', '\n', '\r', '\0', '\u{7f}', '\u{a0}'])
        )
            .prop_map(|(i, c)| Mutation::WhiteSpace(i, c)),
        any::<u128>().prop_map(|b| Mutation::Ipv6WithoutBrackets(Ipv6Addr::from(b))),
        any::<u32>().prop_map(Mutation::IntegerIpv4),
        label().prop_map(Mutation::Unresolved),
        (64usize..300).prop_map(Mutation::LongLabel),
        Just(Mutation::Twice),
        Just(Mutation::TwiceOtherCase),
        Just(Mutation::TakenPeerUrl),
        Just(Mutation::TakenClientUrl),
        any::<bool>().prop_map(Mutation::EmptyItem),
        Just(Mutation::OtherClusterScheme),
    ]
}

/// The URL list a mutation makes of `scheme://host:port`, and the text the
/// problem that names the broken rule contains.
fn mutate(scheme: &str, host: &Host, port: u16, m: &Mutation) -> (Vec<String>, &'static str) {
    let h = host.text();
    let valid = format!("{scheme}://{h}:{port}");
    let one = |u: String, needle| (vec![u], needle);
    match m {
        Mutation::NoPort => one(format!("{scheme}://{h}"), "has no port"),
        Mutation::PortZero => one(format!("{scheme}://{h}:0"), "has port 0"),
        Mutation::PortTooBig(p) => one(format!("{scheme}://{h}:{p}"), "from 1 to 65535"),
        Mutation::LeadingZero => one(format!("{scheme}://{h}:0{port}"), "plain number"),
        Mutation::OtherScheme(s) => one(format!("{s}://{h}:{port}"), "has scheme"),
        Mutation::UpperCaseScheme => one(
            format!("{}://{h}:{port}", scheme.to_ascii_uppercase()),
            "in lower case",
        ),
        Mutation::Path(p) => one(format!("{valid}/{p}"), "has a path"),
        Mutation::Query(q) => one(format!("{valid}?{q}"), "has a query"),
        Mutation::Fragment(f) => one(format!("{valid}#{f}"), "has a fragment"),
        Mutation::UserInfo(u) => one(format!("{scheme}://{u}{h}:{port}"), "user information"),
        Mutation::WhiteSpace(i, c) => {
            let mut u = valid.clone();
            u.insert(i % (valid.len() + 1), *c);
            one(u, "white space or a control character")
        }
        Mutation::Ipv6WithoutBrackets(a) => {
            one(format!("{scheme}://{a}:{port}"), "without brackets")
        }
        Mutation::IntegerIpv4(n) => one(
            format!("{scheme}://{n}:{port}"),
            "which URL parsers read as",
        ),
        Mutation::Unresolved(l) => one(
            format!("{scheme}://h{l}.invalid:{port}"),
            "does not resolve",
        ),
        Mutation::LongLabel(n) => one(
            format!("{scheme}://h{}.example:{port}", "a".repeat(*n)),
            "at most 253",
        ),
        Mutation::Twice => (vec![valid.clone(), valid], "given twice"),
        Mutation::TwiceOtherCase => (
            vec![
                valid.clone(),
                valid
                    .to_ascii_uppercase()
                    .replacen(&scheme.to_ascii_uppercase(), scheme, 1),
            ],
            "given twice",
        ),
        Mutation::TakenPeerUrl => one(
            format!("{scheme}://m2.cluster.test:2380"),
            "already a peer URL",
        ),
        Mutation::TakenClientUrl => one(
            format!("{scheme}://m3.cluster.test:2379"),
            "already a client URL",
        ),
        Mutation::EmptyItem(first) => {
            let list = if *first {
                vec![String::new(), valid]
            } else {
                vec![valid, " ".to_string()]
            };
            (list, "empty item")
        }
        Mutation::OtherClusterScheme => {
            let other = if scheme == "http" { "https" } else { "http" };
            one(format!("{other}://{h}:{port}"), "members use")
        }
    }
}

/// Near-valid URLs: each piece (scheme, separator, user info, host, port,
/// tail) is usually valid and sometimes one of the ways it goes wrong, so most
/// URLs break zero, one or two rules; whether the result is in the grammar is
/// easy to say independently.
fn near_url() -> impl Strategy<Value = String> {
    fn piece(good: Vec<&'static str>, bad: Vec<&'static str>) -> impl Strategy<Value = String> {
        prop_oneof![
            2 => prop::sample::select(good).prop_map(String::from),
            1 => prop::sample::select(bad).prop_map(String::from),
        ]
    }
    let scheme = piece(
        vec!["http", "https"],
        vec!["HTTP", "Https", "ftp", "", "unix"],
    );
    let sep = piece(vec!["://"], vec![":/", ":", "", ":///"]);
    let user = piece(vec![""], vec!["u@", "u:p@", "@"]);
    let host = prop_oneof![
        2 => host().prop_map(|h| h.text()),
        1 => prop_oneof![
            prop::sample::select(vec![
                "127.1",
                "::1",
                "[::1",
                "",
                "a b.example",
                "h.invalid",
                "010.0.0.1",
                "2130706433",
                "H.Example",
                "h_1.example",
                "1.2.3",
                "[fe80::1%25eth0]",
                "h%2e.example",
            ])
            .prop_map(String::from),
            (64usize..80).prop_map(|n| format!("{}.example", "x".repeat(n))),
        ],
    ];
    let port = piece(
        vec![":2380", ":1", ":65535", ":80"],
        vec!["", ":", ":0", ":080", ":65536", ":-1", ":+1", ":1a"],
    );
    let tail = piece(vec![""], vec!["/", "/x", "?q", "#f", "\\x", " ", "\n"]);
    (scheme, sep, user, host, port, tail)
        .prop_map(|(s, sep, u, h, p, t)| format!("{s}{sep}{u}{h}{p}{t}"))
}

/// The documented grammar, checked independently of the validator:
/// `http|https://HOST:PORT`, HOST an IPv4 address in dotted decimal, an IPv6
/// address in brackets, or a host name (letters, digits, '-', '_', labels of at most
/// 63, at most 253 in all) that resolves; PORT 1-65535 written plainly.
fn in_grammar(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    if scheme != "http" && scheme != "https" {
        return false;
    }
    let (host, port) = if let Some(r) = rest.strip_prefix('[') {
        match r.split_once("]:") {
            Some((h, p)) if h.parse::<Ipv6Addr>().is_ok() => (None, p),
            _ => return false,
        }
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (Some(h), p),
            None => return false,
        }
    };
    let port_ok = !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
        && !port.starts_with('0')
        && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p));
    let host_ok = match host {
        None => true,
        Some(h) if h.parse::<Ipv4Addr>().is_ok() => true,
        Some(h) => {
            let h = h.to_ascii_lowercase();
            h.len() <= 253
                && h.split('.').all(|l| {
                    !l.is_empty()
                        && l.len() <= 63
                        && l.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                })
                && resolves(&h, 0)
        }
    };
    port_ok && host_ok
}

proptest! {
    #![proptest_config(config())]

    /// Rule 1 never panics, whatever the strings and lists, and its messages
    /// stay lower-case and short even for hostile input.
    #[test]
    fn validation_never_panics(
        urls in prop::collection::vec(
            prop_oneof![
                any::<String>(),
                "[a-zA-Z0-9:/\\[\\]@?#%._ \t-]{0,40}",
                near_url(),
                (near_url(), 0usize..5000).prop_map(|(u, n)| format!("{u}{}", "a".repeat(n))),
            ],
            0..5,
        ),
        name in any::<String>(),
        exclude in any::<bool>(),
        scheme in scheme(),
    ) {
        let members = cluster(scheme);
        let problems = check_peer_urls(&PeerUrls::read(&urls), &members, None, &resolves);
        let name_problems = check_name(&name, &members);
        let refused = check_new_member(&name, &PeerUrls::read(&urls), &members, &resolves).is_err();
        prop_assert_eq!(refused, !(problems.is_empty() && name_problems.is_empty()));
        let own = check_peer_urls(&PeerUrls::read(&urls), &members, exclude.then_some(MemberId(1)), &resolves);
        for p in problems.iter().chain(&name_problems).chain(&own) {
            prop_assert!(!p.starts_with(|c: char| c.is_uppercase()), "{}", p);
            prop_assert!(p.len() <= 2048, "{} bytes: {}", p.len(), p);
        }
        if urls.iter().all(|u| u.trim().is_empty()) {
            prop_assert!(problems[0].contains("no peer URL"), "{:?}", problems);
        }
    }

    /// Every URL built from the grammar is accepted, alone and in lists.
    #[test]
    fn grammar_urls_are_accepted(
        scheme in scheme(),
        hosts in prop::collection::vec((host(), 1u16..), 1..4),
    ) {
        let mut urls: Vec<String> = Vec::new();
        for (h, port) in &hosts {
            let u = format!("{scheme}://{}:{port}", h.text());
            if !urls.contains(&u) {
                urls.push(u);
            }
        }
        let problems = check_peer_urls(&PeerUrls::read(&urls), &cluster(scheme), None, &resolves);
        prop_assert!(problems.is_empty(), "{:?}: {:?}", urls, problems);
        prop_assert!(check_new_member("new-1", &PeerUrls::read(&urls), &cluster(scheme), &resolves).is_ok());
    }

    /// Breaking any one rule of a valid URL is refused with a problem naming that rule.
    #[test]
    fn each_broken_rule_is_named(
        scheme in scheme(),
        host in host(),
        port in 1u16..,
        m in mutation(),
    ) {
        let (urls, needle) = mutate(scheme, &host, port, &m);
        let problems = check_peer_urls(&PeerUrls::read(&urls), &cluster(scheme), None, &resolves);
        prop_assert!(
            problems.iter().any(|p| p.contains(needle)),
            "{:?} ({:?}): wanted a problem with {:?}, got {:?}", urls, m, needle, problems
        );
    }
}

proptest! {
    // Each near-valid URL breaks few rules, so more cases reach each way of breaking one.
    #![proptest_config(Config { cases: 2048, ..config() })]

    /// On near-valid URLs, rule 1 accepts exactly what the grammar describes.
    #[test]
    fn accepted_exactly_when_in_the_grammar(url in near_url()) {
        let problems = check_peer_urls(&PeerUrls::read(std::slice::from_ref(&url)), &[], None, &resolves);
        prop_assert_eq!(
            problems.is_empty(),
            in_grammar(&url),
            "{:?}: {:?}", url, problems
        );
    }
}
