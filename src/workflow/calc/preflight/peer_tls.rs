//! The `peer-tls` check: the members' peer certificates (read from their
//! https peer URLs) and, when the operator gives them, the new member's
//! (`--peer-cert`, `--peer-key`, `--peer-trusted-ca`). Pure: [`judge`] is a
//! calculator over the certificates as read, the peer URLs and the time of
//! the reading; the chain, names and key usage are verified with webpki
//! (`model::cert`).
//!
//! What it judges, and why (etcd#12567, #8206, #15917, etcd-operator#333:
//! each found only after the add, when the members refused the new one):
//! the new certificate names the host of each of the new member's peer URLs;
//! it chains to the CA the members use on their peer ports (the given
//! `--peer-trusted-ca`, or else the issuer of the certificates they present,
//! verified against that CA when they present it too); its extended key
//! usage allows both serverAuth and clientAuth (a member accepts and dials
//! its peers with the same certificate); its key matches; it is valid now.
//! Every member's own certificate fails once expired and warns under
//! [`PEER_CERT_WARN_DAYS`]. Peers on plain http have no certificate: ok.

use super::checks::new_check;
use super::{Check, CheckName, Figures, Verdict};
use crate::model::cert::{format_time, verify_chain, NewPeerTls, PeerCertificate, Usage};
use crate::model::ApiError;
use crate::model::{Member, PeerUrls};

/// Days of validity left under which a peer certificate warns.
pub const PEER_CERT_WARN_DAYS: f64 = 30.0;

const DAY: f64 = 86_400.0;

/// What the operator tells the `peer-tls` check about the new member.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PeerTlsInputs {
    /// The new member's peer URLs (their hosts must be named by its certificate).
    pub peer_urls: PeerUrls,
    /// Its certificate, key and trusted CA as read, when given.
    pub new_member: Option<Box<NewPeerTls>>,
}

/// One member's peer certificate chain as read from its peer URL, or why not.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRead {
    /// The member as figures name it (its name, or its ID).
    pub member: String,
    /// The member as people read it (`name (id)`).
    pub label: String,
    /// The peer URL read.
    pub url: String,
    /// The chain presented, the member's own certificate first.
    pub chain: Result<Vec<PeerCertificate>, ApiError>,
}

/// What the `peer-tls` check judges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PeerTlsFacts {
    /// What the operator told it.
    pub told: PeerTlsInputs,
    /// Whether the members' peers use TLS (a member has an https peer URL).
    pub https: bool,
    /// Each started member's certificate, read at its first https peer URL.
    pub read: Vec<PeerRead>,
    /// When they were read, seconds since the Unix epoch.
    pub now: i64,
}

/// The members whose peer certificate is read, and where: each started
/// member's first https peer URL, as (figure key, label, URL). A member
/// added but not started presents nothing yet.
pub fn to_read(members: &[Member]) -> Vec<(String, String, String)> {
    members
        .iter()
        .filter(|m| m.started())
        .filter_map(|m| {
            let url = m.peer_urls.iter().find(|u| u.starts_with("https://"))?;
            Some((super::checks::key(m), m.label(), url.clone()))
        })
        .collect()
}

/// Whether any member's peers use TLS.
pub fn uses_tls(members: &[Member]) -> bool {
    members
        .iter()
        .flat_map(|m| &m.peer_urls)
        .any(|u| u.starts_with("https://"))
}

/// One thing found.
struct Finding {
    verdict: Verdict,
    member: Option<String>,
    text: String,
    remedy: String,
}

#[derive(Default)]
struct Findings(Vec<Finding>);

impl Findings {
    fn add(
        &mut self,
        verdict: Verdict,
        member: Option<&str>,
        text: String,
        remedy: impl Into<String>,
    ) {
        self.0.push(Finding {
            verdict,
            member: member.map(str::to_string),
            text,
            remedy: remedy.into(),
        });
    }
}

fn days(seconds: i64) -> f64 {
    (seconds as f64 / DAY * 10.0).round() / 10.0
}

/// Judges the members' and the new member's peer certificates.
pub fn judge(f: &PeerTlsFacts) -> Check {
    let mut figures = Figures::default();
    figures.text("peer_scheme", if f.https { "https" } else { "http" });
    if !f.https {
        let unused = if f.told.new_member.is_some() {
            "; --peer-cert is not used"
        } else {
            ""
        };
        return new_check(
            CheckName::PeerTls,
            Verdict::Ok,
            format!(
                "the peers use plain http (no TLS between members): no peer certificate to \
                 check{unused}"
            ),
        )
        .figures(figures);
    }
    let mut found = Findings::default();
    let mut fine = Vec::new();
    existing(f, &mut found, &mut figures, &mut fine);
    match &f.told.new_member {
        Some(new) => new_member(f, new, &mut found, &mut figures, &mut fine),
        // A new member joins TLS peers, and its files were not given: say
        // so rather than an `ok` that covers only the members.
        None if !f.told.peer_urls.is_empty() => found.add(
            Verdict::Warn,
            None,
            "the new member's peer certificate was not checked".to_string(),
            "pass --peer-cert and --peer-key (and --peer-trusted-ca) with the new member's \
             files to check them before it is added",
        ),
        None => {}
    }
    let verdict = found
        .0
        .iter()
        .map(|x| x.verdict)
        .max()
        .unwrap_or(Verdict::Ok);
    if verdict == Verdict::Ok {
        return new_check(CheckName::PeerTls, Verdict::Ok, fine.join("; ")).figures(figures);
    }
    // Worst first; within a verdict, in the order found.
    found.0.sort_by_key(|x| std::cmp::Reverse(x.verdict));
    let mut members: Vec<String> = Vec::new();
    let mut remedies: Vec<String> = Vec::new();
    for x in &found.0 {
        if let Some(m) = &x.member {
            if !members.contains(m) {
                members.push(m.clone());
            }
        }
        if !x.remedy.is_empty() && !remedies.contains(&x.remedy) {
            remedies.push(x.remedy.clone());
        }
    }
    // A finding of a lesser verdict says which.
    let texts: Vec<String> = found
        .0
        .iter()
        .map(|x| match x.verdict {
            v if v == verdict => x.text.clone(),
            v => format!("({v}) {}", x.text),
        })
        .collect();
    new_check(CheckName::PeerTls, verdict, texts.join("; "))
        .members(members)
        .remedy(remedies.join("; "))
        .figures(figures)
}

/// The members' own certificates: expired, not yet valid, or soon to expire.
fn existing(f: &PeerTlsFacts, found: &mut Findings, figures: &mut Figures, fine: &mut Vec<String>) {
    let mut least: Option<(i64, &str)> = None;
    for r in &f.read {
        let leaf = match &r.chain {
            Err(e) => {
                found.add(
                    Verdict::Unknown,
                    Some(&r.label),
                    format!(
                        "{}'s peer certificate could not be read at {} ({e})",
                        r.label, r.url
                    ),
                    "check that the member runs and that its peer URL is reachable from here",
                );
                continue;
            }
            Ok(chain) => match chain.first() {
                Some(leaf) => leaf,
                None => {
                    found.add(
                        Verdict::Unknown,
                        Some(&r.label),
                        format!("{} presented no certificate at {}", r.label, r.url),
                        "check the member's --peer-cert-file",
                    );
                    continue;
                }
            },
        };
        let left = leaf.not_after - f.now;
        figures.member("days_left", r.member.clone(), days(left));
        if least.is_none_or(|(l, _)| left < l) {
            least = Some((left, &r.label));
        }
        let renew = format!(
            "renew {}'s peer certificate (same CA, same names) and restart it with the new \
             files",
            r.member
        );
        if left <= 0 {
            found.add(
                Verdict::Fail,
                Some(&r.label),
                format!(
                    "{}'s peer certificate ({}) expired on {}: its peers refuse it",
                    r.label,
                    leaf.subject,
                    format_time(leaf.not_after)
                ),
                format!("{renew} before changing the membership"),
            );
        } else if leaf.not_before > f.now {
            found.add(
                Verdict::Fail,
                Some(&r.label),
                format!(
                    "{}'s peer certificate ({}) is not valid before {}: its peers refuse it",
                    r.label,
                    leaf.subject,
                    format_time(leaf.not_before)
                ),
                format!("check the clocks, or {renew}"),
            );
        } else if (left as f64) < PEER_CERT_WARN_DAYS * DAY {
            found.add(
                Verdict::Warn,
                Some(&r.label),
                format!(
                    "{}'s peer certificate ({}) expires in {:.1} days ({}); an expired peer \
                     certificate cuts the member off from its peers",
                    r.label,
                    leaf.subject,
                    days(left),
                    format_time(leaf.not_after)
                ),
                format!("{renew} before it expires"),
            );
        }
    }
    if let Some((left, label)) = least {
        fine.push(format!(
            "the members' peer certificates are valid for {:.1} more days at least ({label})",
            days(left)
        ));
    }
}

/// The new member's certificate, key and chain.
fn new_member(
    f: &PeerTlsFacts,
    new: &NewPeerTls,
    found: &mut Findings,
    figures: &mut Figures,
    fine: &mut Vec<String>,
) {
    let Some(leaf) = new.chain.first() else {
        found.add(
            Verdict::Fail,
            None,
            format!("--peer-cert {} holds no certificate", new.cert_file),
            "give the new member's peer certificate in PEM",
        );
        return;
    };
    let cert = format!("--peer-cert {} ({})", new.cert_file, leaf.subject);
    let mut good = Vec::new();

    if let Err(why) = &new.key_matches {
        found.add(
            Verdict::Fail,
            None,
            format!(
                "--peer-key {} is not the key of {cert}: {why}",
                new.key_file
            ),
            "give as --peer-key the private key the certificate was issued for (the new \
             member's --peer-key-file)",
        );
    } else {
        good.push("matches --peer-key".to_string());
    }

    let mut named = 0;
    for url in f.told.peer_urls.iter() {
        let Some(endpoint) = url.endpoint().filter(|e| e.scheme == "https") else {
            continue;
        };
        let host = endpoint.host.trim_start_matches('[').trim_end_matches(']');
        let url = url.as_str();
        if leaf.names_host(host) {
            named += 1;
            continue;
        }
        let kind = if host.parse::<std::net::IpAddr>().is_ok() {
            "IP"
        } else {
            "DNS"
        };
        found.add(
            Verdict::Fail,
            None,
            format!(
                "{cert} does not name host {host} of the new member's peer URL {url} (it names \
                 {})",
                leaf.names()
            ),
            format!(
                "issue the certificate with subjectAltName {kind}:{host} (the members check the \
                 peer URL's host against it; the common name does not count), or use a peer \
                 URL whose host it names"
            ),
        );
    }
    if named > 0 {
        good.push(format!(
            "names the host of each peer URL ({})",
            leaf.names()
        ));
    } else if f.told.peer_urls.is_empty() {
        good.push("(its names were not checked: no peer URL given)".to_string());
    }

    let missing: Vec<&str> = [
        (leaf.server_auth, "serverAuth"),
        (leaf.client_auth, "clientAuth"),
    ]
    .iter()
    .filter(|(ok, _)| !ok)
    .map(|(_, w)| *w)
    .collect();
    if missing.is_empty() {
        good.push("allows serverAuth and clientAuth".to_string());
    } else {
        found.add(
            Verdict::Fail,
            None,
            format!(
                "the extended key usage of {cert} is {} without {}: a member uses its peer \
                 certificate both to accept its peers (serverAuth) and to dial them (clientAuth)",
                leaf.key_usage.as_deref().unwrap_or("unrestricted"),
                missing.join(" and ")
            ),
            "issue the certificate with extendedKeyUsage serverAuth, clientAuth",
        );
    }

    let left = leaf.not_after - f.now;
    figures.number("new_member_days_left", days(left));
    let reissue = "issue the new member a certificate valid now, from the same CA";
    if left <= 0 {
        found.add(
            Verdict::Fail,
            None,
            format!("{cert} expired on {}", format_time(leaf.not_after)),
            reissue,
        );
    } else if leaf.not_before > f.now {
        found.add(
            Verdict::Fail,
            None,
            format!(
                "{cert} is not valid before {}",
                format_time(leaf.not_before)
            ),
            format!("{reissue} (or check this machine's clock)"),
        );
    } else if (left as f64) < PEER_CERT_WARN_DAYS * DAY {
        found.add(
            Verdict::Warn,
            None,
            format!(
                "{cert} expires in {:.1} days ({})",
                days(left),
                format_time(leaf.not_after)
            ),
            "renew it soon after the member joins, or issue a longer one now",
        );
    } else {
        good.push(format!("is valid until {}", format_time(leaf.not_after)));
    }

    // The chain is judged at a time the certificate itself is valid: its
    // dates are judged above, on their own.
    let at = f.now.clamp(leaf.not_before, leaf.not_after);
    let intermediates = &new.chain[1..];
    let verified = |anchors: &[PeerCertificate], found: &mut Findings| {
        // webpki's own judgement of the key usage, once the chain holds
        // (the reading above names what is missing).
        if !missing.is_empty() {
            return;
        }
        for (usage, word) in [(Usage::Server, "serverAuth"), (Usage::Client, "clientAuth")] {
            if let Err(why) = verify_chain(leaf, intermediates, anchors, at, usage) {
                found.add(
                    Verdict::Fail,
                    None,
                    format!("{cert} is refused for {word}: {why}"),
                    "issue the certificate (and its intermediates) with extendedKeyUsage \
                     serverAuth, clientAuth",
                );
            }
        }
    };
    match &new.trusted_ca {
        Some((file, cas)) => {
            let ca_names: Vec<&str> = cas.iter().map(|c| c.subject.as_str()).collect();
            match verify_chain(leaf, intermediates, cas, at, Usage::Any) {
                Ok(()) => {
                    verified(cas, found);
                    good.push(format!("chains to --peer-trusted-ca {file}"));
                }
                Err(why) => found.add(
                    Verdict::Fail,
                    None,
                    format!(
                        "{cert}, issued by {}, does not chain to --peer-trusted-ca {file} ({}): \
                         {why}",
                        leaf.issuer,
                        ca_names.join("; ")
                    ),
                    "issue it from the CA the members trust on their peer ports, or give that \
                     CA's file as --peer-trusted-ca",
                ),
            }
            // The new member will verify the members with this CA.
            for r in &f.read {
                let Ok(chain) = &r.chain else { continue };
                let Some(theirs) = chain.first() else {
                    continue;
                };
                let at = f.now.clamp(theirs.not_before, theirs.not_after);
                if let Err(why) = verify_chain(theirs, &chain[1..], cas, at, Usage::Any) {
                    found.add(
                        Verdict::Fail,
                        Some(&r.label),
                        format!(
                            "{}'s peer certificate (issued by {}) does not chain to \
                             --peer-trusted-ca {file}: {why}; the new member would refuse it",
                            r.label, theirs.issuer
                        ),
                        format!(
                            "give as --peer-trusted-ca the CA the members' peer certificates \
                             are issued by ({})",
                            theirs.issuer
                        ),
                    );
                }
            }
        }
        None => {
            let readable: Vec<(&PeerRead, &Vec<PeerCertificate>)> = f
                .read
                .iter()
                .filter_map(|r| r.chain.as_ref().ok().map(|c| (r, c)))
                .filter(|(_, c)| !c.is_empty())
                .collect();
            if readable.is_empty() {
                found.add(
                    Verdict::Unknown,
                    None,
                    format!(
                        "whether {cert} chains to the members' CA: no member's peer certificate \
                         could be read"
                    ),
                    "give --peer-trusted-ca FILE (the members' --peer-trusted-ca-file)",
                );
            } else if !readable.iter().any(|(_, c)| c[0].same_issuer(leaf)) {
                let mut theirs: Vec<String> = Vec::new();
                for (r, c) in &readable {
                    let s = format!("{} ({})", c[0].issuer, r.member);
                    if !theirs.contains(&s) {
                        theirs.push(s);
                    }
                }
                let same_name = readable
                    .iter()
                    .any(|(_, c)| c[0].issuer_der == leaf.issuer_der);
                let key = if same_name {
                    " (a CA of the same name, but another key)"
                } else {
                    ""
                };
                found.add(
                    Verdict::Fail,
                    None,
                    format!(
                        "{cert} is issued by {}{key}; the members' peer certificates are issued \
                         by {}: the members would refuse it",
                        leaf.issuer,
                        theirs.join(", ")
                    ),
                    format!(
                        "issue the new member's certificate from the members' CA ({})",
                        readable[0].1[0].issuer
                    ),
                );
            } else {
                // The CA itself, when a member presents it with its certificate.
                let anchors: Vec<PeerCertificate> = readable
                    .iter()
                    .flat_map(|(_, c)| c[1..].iter())
                    .filter(|c| c.subject_der == leaf.issuer_der)
                    .cloned()
                    .collect();
                if anchors.is_empty() {
                    good.push(format!(
                        "has the issuer of the members' peer certificates ({}; give \
                         --peer-trusted-ca to verify its signature too)",
                        leaf.issuer
                    ));
                } else {
                    match verify_chain(leaf, intermediates, &anchors, at, Usage::Any) {
                        Ok(()) => {
                            verified(&anchors, found);
                            good.push(format!(
                                "chains to the CA the members present ({})",
                                leaf.issuer
                            ));
                        }
                        Err(why) => found.add(
                            Verdict::Fail,
                            None,
                            format!(
                                "{cert} names the members' CA ({}) as its issuer but does not \
                                 chain to it: {why}",
                                leaf.issuer
                            ),
                            "issue the new member's certificate from the members' CA",
                        ),
                    }
                }
            }
        }
    }
    figures.text("new_member_issuer", leaf.issuer.clone());
    fine.push(format!(
        "the new member's certificate {cert} {}",
        good.join(", ")
    ));
}
