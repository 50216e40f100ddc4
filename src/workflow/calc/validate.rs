//! Safety rule 1: checks peer URLs and member names before anything is sent, listing every problem.

use std::collections::HashSet;

use crate::model::{Member, MemberId, PeerUrls};
use crate::rules::peer_url::endpoint_of;
pub use crate::rules::peer_url::{check_url_syntax, quoted, system_resolver, Resolver};

/// Checks the peer URLs of a member to add (or, with `exclude`, of a member to
/// update, whose own current peer URLs are allowed): each as it was read,
/// then against the members. Returns every problem.
pub fn check_peer_urls(
    urls: &PeerUrls,
    members: &[Member],
    exclude: Option<MemberId>,
    resolve: Resolver,
) -> Vec<String> {
    let mut problems = Vec::new();
    if urls.iter().all(|u| u.is_blank()) {
        problems.push("no peer URL given; pass --peer-urls scheme://host:port".to_string());
        return problems;
    }
    if urls.iter().any(|u| u.is_blank()) {
        problems.push(
            "the peer URL list has an empty item (two commas in a row, or a comma at either \
             end); separate the URLs with single commas"
                .to_string(),
        );
    }
    let mut seen = HashSet::new();
    let mut schemes = HashSet::new();
    for url in urls.iter().filter(|u| !u.is_blank()) {
        let shown = quoted(url.as_str());
        problems.extend(url.problems(resolve));
        let Some(endpoint) = url.checked_endpoint() else {
            continue;
        };
        if !seen.insert(endpoint.clone()) {
            problems.push(format!(
                "peer URL {shown} is given twice; list each peer URL once"
            ));
            continue;
        }
        schemes.insert(endpoint.scheme.clone());
        for m in members {
            let own = Some(m.id) == exclude;
            if !own && m.peer_urls.iter().any(|u| endpoint.same_as(u)) {
                problems.push(format!(
                    "peer URL {shown} is already a peer URL of member {}; every member needs its \
                     own host:port",
                    m.label()
                ));
            }
            if m.client_urls.iter().any(|u| endpoint.same_as(u)) {
                problems.push(format!(
                    "peer URL {shown} is already a client URL of member {}; peer and client \
                     traffic need different ports",
                    m.label()
                ));
            }
        }
    }
    let existing: HashSet<String> = members
        .iter()
        .filter(|m| Some(m.id) != exclude)
        .flat_map(|m| m.peer_urls.iter().filter_map(|u| endpoint_of(u)))
        .map(|e| e.scheme)
        .collect();
    if existing.len() == 1 {
        let theirs = existing.iter().next().cloned().unwrap_or_default();
        for scheme in schemes.iter().filter(|s| **s != theirs) {
            problems.push(format!(
                "peer URLs use {scheme} but the cluster's members use {theirs}; a member with a \
                 different scheme cannot talk to its peers, use {theirs}://"
            ));
        }
    }
    problems
}

/// Checks a new member's name: present, usable in ETCD_INITIAL_CLUSTER, not taken.
pub fn check_name(name: &str, members: &[Member]) -> Vec<String> {
    let mut problems = Vec::new();
    if name.trim().is_empty() {
        problems
            .push("the member name is empty; give the name the new member will start with".into());
        return problems;
    }
    if let Some(c) = name
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || *c == '=' || *c == ',')
    {
        problems.push(format!(
            "member name {} contains {c:?}, which breaks ETCD_INITIAL_CLUSTER (name=url,...); \
             use letters, digits, '-', '_' or '.'",
            quoted(name)
        ));
    }
    if let Some(m) = members.iter().find(|m| m.name == name) {
        problems.push(format!(
            "member name {} is already taken by member {}; choose another name",
            quoted(name),
            m.id
        ));
    }
    problems
}

/// Refuses (rule 1) when any problem was found, listing them all; nothing is sent.
pub fn refuse_problems(problems: Vec<String>) -> Result<(), crate::Error> {
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    Err(crate::Error::refused(format!(
        "refused by rule 1 (validate peer URLs): {n} problem{} found, nothing was sent",
        if n == 1 { "" } else { "s" }
    ))
    .with_problems(problems))
}

/// Rule 1 for a member to add: its name and every peer URL, all problems at once.
pub fn check_new_member(
    name: &str,
    urls: &PeerUrls,
    members: &[Member],
    resolve: Resolver,
) -> Result<(), crate::Error> {
    let mut problems = check_name(name, members);
    problems.extend(check_peer_urls(urls, members, None, resolve));
    refuse_problems(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolves(host: &str, _: u16) -> bool {
        host == "localhost" || host.ends_with(".example")
    }

    fn cluster() -> Vec<Member> {
        (1..=3)
            .map(|i| Member {
                id: MemberId(i),
                name: format!("m{i}"),
                peer_urls: vec![format!("http://127.0.0.1:238{i}")],
                client_urls: vec![format!("http://127.0.0.1:237{i}")],
                is_learner: false,
            })
            .collect()
    }

    fn check(urls: &[&str]) -> Vec<String> {
        check_peer_urls(&PeerUrls::read(urls), &cluster(), None, &resolves)
    }

    fn one_problem(urls: &[&str], needle: &str) {
        let p = check(urls);
        assert_eq!(p.len(), 1, "{urls:?}: {p:?}");
        assert!(p[0].contains(needle), "{urls:?}: {p:?}");
    }

    #[test]
    fn good_urls_pass() {
        assert!(check(&["http://127.0.0.1:2390"]).is_empty());
        assert!(check(&["http://localhost:2390", "http://10.0.0.5:2380"]).is_empty());
        assert!(check(&["http://[::1]:2390"]).is_empty());
        assert!(check(&["http://node4.example:2380"]).is_empty());
    }

    #[test]
    fn each_rule_is_reported() {
        one_problem(&["not-a-url"], "is not a URL");
        one_problem(&["http://"], "has no host");
        one_problem(&["http://:2380"], "has no host");
        one_problem(&["http://127.0.0.1"], "has no port");
        one_problem(&["http://127.0.0.1:"], "has no port");
        one_problem(&["http://127.0.0.1:99999"], "1 to 65535");
        one_problem(&["http://127.0.0.1:0"], "port 0");
        one_problem(&["ftp://127.0.0.1:2390"], "scheme");
        one_problem(&["http://127.0.0.1:2390/x"], "a path");
        one_problem(&["http://127.0.0.1:2390/"], "a path");
        one_problem(&["http://127.0.0.1:2390?a=b"], "a query");
        one_problem(&["http://127.0.0.1:2390#f"], "a fragment");
        one_problem(&["http://u:p@127.0.0.1:2390"], "user information");
        one_problem(
            &["http://127.0.0.1:2381"],
            "already a peer URL of member m1",
        );
        one_problem(
            &["http://127.0.0.1:2372"],
            "already a client URL of member m2",
        );
        one_problem(&["https://127.0.0.1:2390"], "use http");
        one_problem(&["http://nowhere.invalid:2380"], "does not resolve");
        one_problem(
            &["http://127.0.0.1:2390", "http://127.0.0.1:2390"],
            "given twice",
        );
    }

    #[test]
    fn forms_parsers_rewrite_are_refused() {
        one_problem(&["http://127.0.0.1:2390 "], "white space");
        one_problem(&["http://127.0.0.1:23\n90"], "control character");
        one_problem(&["HTTP://127.0.0.1:2390"], "in lower case");
        one_problem(&["http://::1:2390"], "without brackets");
        one_problem(&["http://127.1:2390"], "read as \"127.0.0.1\"");
        one_problem(&["http://2130706433:2390"], "read as \"127.0.0.1\"");
        one_problem(&["http://127.0.0.1:02390"], "plain number");
        one_problem(&["http://127.0.0.1:2390\\x"], "a path");
        one_problem(&["http:127.0.0.1:2390"], "scheme://host:port");
        one_problem(&["http://127.0.0.1:2390", ""], "empty item");
        let long = format!("http://{}.example:2390", "a".repeat(300));
        one_problem(&[&long], "at most 253");
        assert!(check(&["http://[0:0::1]:2390"]).is_empty());
        assert!(check(&["http://LocalHost:2390"]).is_empty());
    }

    #[test]
    fn syntax_alone_needs_no_members_or_dns() {
        assert!(check_url_syntax("http://127.0.0.1:2381").is_empty());
        assert!(check_url_syntax("http://nowhere.invalid:2380").is_empty());
        for bad in [
            "http://127.0.0.1:23\n80",
            "http://127.0.0.1:2380 ",
            "http://127.0.0.1:2380/x",
            "http://127.0.0.1",
            "HTTP://127.0.0.1:2380",
            "unix://x:1",
            "http://u@127.0.0.1:2380",
        ] {
            assert_eq!(check_url_syntax(bad).len(), 1, "{bad:?}");
        }
    }

    #[test]
    fn hostile_input_is_quoted_short() {
        let long = format!("http://127.0.0.1:2390/{}", "x".repeat(100_000));
        let p = check(&[&long]);
        assert_eq!(p.len(), 1, "{}", p[0].len());
        assert!(p[0].len() < 400, "{}", p[0].len());
        assert!(p[0].contains("(100022 bytes)"), "{}", p[0]);
    }

    #[test]
    fn explicit_default_port_counts_as_explicit() {
        assert!(check(&["http://127.0.0.1:80"]).is_empty());
        one_problem(&["http://127.0.0.1"], "has no port");
    }

    #[test]
    fn every_problem_is_listed_at_once() {
        let p = check(&["http://127.0.0.1", "not-a-url", "http://127.0.0.1:2381/p"]);
        assert_eq!(p.len(), 4, "{p:?}");
    }

    #[test]
    fn update_may_keep_its_own_url() {
        let urls = PeerUrls::read(&["http://127.0.0.1:2381"]);
        assert!(check_peer_urls(&urls, &cluster(), Some(MemberId(1)), &resolves).is_empty());
        let p = check_peer_urls(&urls, &cluster(), Some(MemberId(2)), &resolves);
        assert_eq!(p.len(), 1, "{p:?}");
    }

    #[test]
    fn empty_list_is_refused() {
        let p = check_peer_urls(&PeerUrls::default(), &cluster(), None, &resolves);
        assert!(p[0].contains("no peer URL"));
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("m4", &cluster()).is_empty());
        assert!(check_name("", &cluster())[0].contains("empty"));
        assert!(check_name("a=b", &cluster())[0].contains("ETCD_INITIAL_CLUSTER"));
        assert!(check_name("a b", &cluster())[0].contains("ETCD_INITIAL_CLUSTER"));
        assert!(check_name("m2", &cluster())[0].contains("already taken"));
    }
}
