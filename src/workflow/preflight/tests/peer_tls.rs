//! The `peer-tls` check judged on certificates made here (rcgen): the
//! members' expiry, the new member's names, CA, key usage, key and dates,
//! plain http, and `unknown` where a member's certificate was not read.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};

use super::*;
use crate::model::cert::{NewPeerTls, PeerCertificate};
use crate::model::{PeerUrl, PeerUrls};
use crate::workflow::calc::preflight::peer_tls::judge;
use crate::workflow::ApiErrorKind;

/// 2025-06-15 14:13:20 UTC.
const NOW: i64 = 1_750_000_000;
const DAY: i64 = 86_400;

struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

fn ca(name: &str) -> Ca {
    let key = KeyPair::generate().unwrap();
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    p.distinguished_name = dn;
    Ca {
        cert: p.self_signed(&key).unwrap(),
        key,
    }
}

impl Ca {
    fn pc(&self) -> PeerCertificate {
        PeerCertificate::from_der(self.cert.der()).unwrap()
    }
}

struct Leaf {
    names: Vec<&'static str>,
    usages: Vec<ExtendedKeyUsagePurpose>,
    not_before: i64,
    not_after: i64,
}

fn good() -> Leaf {
    Leaf {
        names: vec!["127.0.0.1", "peer.example"],
        usages: vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ],
        not_before: NOW - DAY,
        not_after: NOW + 365 * DAY,
    }
}

fn issue(l: Leaf, by: &Ca) -> PeerCertificate {
    let key = KeyPair::generate().unwrap();
    let mut p =
        CertificateParams::new(l.names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    p.extended_key_usages = l.usages;
    // The dates `seconds` after the epoch, as rcgen takes them.
    let epoch = rcgen::date_time_ymd(1970, 1, 1);
    p.not_before = epoch + std::time::Duration::from_secs(l.not_before as u64);
    p.not_after = epoch + std::time::Duration::from_secs(l.not_after as u64);
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "peer");
    p.distinguished_name = dn;
    let c = p.signed_by(&key, &by.cert, &by.key).unwrap();
    PeerCertificate::from_der(c.der()).unwrap()
}

/// Three members on https peers, each presenting `chain(i)`.
fn facts_with(chain: impl Fn(u64) -> Vec<PeerCertificate>) -> PeerTlsFacts {
    PeerTlsFacts {
        told: PeerTlsInputs::default(),
        https: true,
        read: (1..=3)
            .map(|i| PeerRead {
                member: format!("m{i}"),
                label: format!("m{i} ({:016x})", i),
                url: format!("https://127.0.0.1:{}", 2380 + i),
                chain: Ok(chain(i)),
            })
            .collect(),
        now: NOW,
    }
}

fn new_member(cert: PeerCertificate, trusted: Option<&Ca>) -> PeerTlsInputs {
    PeerTlsInputs {
        peer_urls: PeerUrls::read(&["https://127.0.0.1:2390"]),
        new_member: Some(Box::new(NewPeerTls {
            cert_file: "new.pem".to_string(),
            chain: vec![cert],
            key_file: "new-key.pem".to_string(),
            key_matches: Ok(()),
            trusted_ca: trusted.map(|c| ("ca.pem".to_string(), vec![c.pc()])),
        })),
    }
}

#[test]
fn plain_http_peers_pass_saying_so() {
    let mut f = PeerTlsFacts::default();
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok);
    assert!(c.detail.contains("plain http"), "{}", c.detail);
    f.told = new_member(issue(good(), &ca("a")), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok);
    assert!(c.detail.contains("--peer-cert is not used"), "{}", c.detail);
    // The check is listed, and ok, for a cluster on http.
    let checks = evaluate(&facts(), &[Change::Add { learner: true }]);
    let c = checks
        .iter()
        .find(|c| c.name == CheckName::PeerTls)
        .unwrap();
    assert_eq!(c.name.as_str(), "peer-tls");
    assert_eq!(c.verdict, Verdict::Ok);
}

#[test]
fn the_members_certificates_warn_under_30_days_and_fail_expired() {
    let a = ca("members CA");
    let f = facts_with(|_| vec![issue(good(), &a)]);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(
        c.detail.contains("valid for 365.0 more days"),
        "{}",
        c.detail
    );
    match &c.figures.0[1] {
        ("days_left", Figure::PerMember(v)) => {
            assert_eq!(v.len(), 3);
            assert_eq!(v[0], ("m1".to_string(), 365.0));
        }
        other => panic!("{other:?}"),
    }

    let soon = |i: u64| Leaf {
        not_after: if i == 2 {
            NOW + 10 * DAY
        } else {
            NOW + 365 * DAY
        },
        ..good()
    };
    let f = facts_with(|i| vec![issue(soon(i), &a)]);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Warn);
    assert_eq!(c.members, vec!["m2 (0000000000000002)".to_string()]);
    assert!(c.detail.contains("expires in 10.0 days"), "{}", c.detail);
    assert!(
        c.remedy.contains("renew m2's peer certificate"),
        "{}",
        c.remedy
    );

    let expired = |i: u64| Leaf {
        not_before: NOW - 400 * DAY,
        not_after: if i == 3 { NOW - DAY } else { NOW + 365 * DAY },
        ..good()
    };
    let f = facts_with(|i| vec![issue(expired(i), &a)]);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail
            .contains("m3 (0000000000000003)'s peer certificate (CN=peer) expired on 2025-06-14"),
        "{}",
        c.detail
    );
}

#[test]
fn an_unread_certificate_is_unknown_never_ok() {
    let a = ca("members CA");
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    f.read[1].chain = Err(ApiError::new(
        ApiErrorKind::Unavailable,
        "no TLS handshake within 3s",
    ));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Unknown);
    assert!(
        c.detail
            .contains("could not be read at https://127.0.0.1:2382 (no TLS handshake within 3s)"),
        "{}",
        c.detail
    );
    // Nothing read and no CA given: whether the new one chains is unknown.
    for r in &mut f.read {
        r.chain = Err(ApiError::new(ApiErrorKind::Unavailable, "refused"));
    }
    f.told = new_member(issue(good(), &a), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Unknown);
    assert!(c.remedy.contains("--peer-trusted-ca"), "{}", c.remedy);
}

#[test]
fn a_good_new_certificate_passes_with_or_without_the_ca() {
    let a = ca("members CA");
    // The members present their certificate and the CA.
    let mut f = facts_with(|_| vec![issue(good(), &a), a.pc()]);
    f.told = new_member(issue(good(), &a), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(
        c.detail
            .contains("chains to the CA the members present (CN=members CA)"),
        "{}",
        c.detail
    );
    assert!(
        c.detail.contains("names the host of each peer URL"),
        "{}",
        c.detail
    );
    assert!(
        c.detail.contains("allows serverAuth and clientAuth"),
        "{}",
        c.detail
    );
    assert_eq!(c.figures.get("new_member_days_left"), Some(365.0));
    // Only their own certificate: the issuer is compared.
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    f.told = new_member(issue(good(), &a), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(
        c.detail
            .contains("has the issuer of the members' peer certificates"),
        "{}",
        c.detail
    );
    // --peer-trusted-ca.
    f.told = new_member(issue(good(), &a), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(
        c.detail.contains("chains to --peer-trusted-ca ca.pem"),
        "{}",
        c.detail
    );
    // An IPv6 peer URL, named.
    let v6 = Leaf {
        names: vec!["::1"],
        ..good()
    };
    f.told = new_member(issue(v6, &a), Some(&a));
    f.told.peer_urls = PeerUrls::read(&["https://[::1]:2390"]);
    assert_eq!(judge(&f).verdict, Verdict::Ok);
}

#[test]
fn a_name_that_does_not_cover_the_peer_url_host_fails_naming_it() {
    let a = ca("members CA");
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    let wrong = Leaf {
        names: vec!["10.0.0.9", "other.example"],
        ..good()
    };
    f.told = new_member(issue(wrong, &a), Some(&a));
    let mut urls: Vec<PeerUrl> = f.told.peer_urls.iter().cloned().collect();
    urls.push(PeerUrl::read("https://peer.example:2390"));
    f.told.peer_urls = urls.into();
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail.contains("does not name host 127.0.0.1 of the new member's peer URL https://127.0.0.1:2390 (it names DNS other.example, IP 10.0.0.9)"),
        "{}",
        c.detail
    );
    assert!(
        c.detail.contains("does not name host peer.example"),
        "{}",
        c.detail
    );
    assert!(
        c.remedy.contains("subjectAltName IP:127.0.0.1"),
        "{}",
        c.remedy
    );
    assert!(
        c.remedy.contains("subjectAltName DNS:peer.example"),
        "{}",
        c.remedy
    );
}

#[test]
fn another_ca_fails_naming_the_issuer_expected() {
    let a = ca("members CA");
    let b = ca("other CA");
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    f.told = new_member(issue(good(), &b), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail.contains("is issued by CN=other CA; the members' peer certificates are issued by CN=members CA (m1)"),
        "{}",
        c.detail
    );
    assert!(
        c.remedy.contains("from the members' CA (CN=members CA)"),
        "{}",
        c.remedy
    );
    // Given the CA: the chain is verified.
    f.told = new_member(issue(good(), &b), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail
            .contains("does not chain to --peer-trusted-ca ca.pem (CN=members CA)"),
        "{}",
        c.detail
    );
    // A CA of the same name with another key, presented by the members.
    let impostor = ca("members CA");
    let mut f = facts_with(|_| vec![issue(good(), &a), a.pc()]);
    f.told = new_member(issue(good(), &impostor), None);
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.detail.contains("does not chain to it"), "{}", c.detail);
    // The wrong --peer-trusted-ca for the members' own certificates.
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    f.told = new_member(issue(good(), &b), Some(&b));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.detail.contains("m1 (0000000000000001)'s peer certificate (issued by CN=members CA) does not chain to --peer-trusted-ca"), "{}", c.detail);
}

#[test]
fn a_server_only_usage_a_wrong_key_and_bad_dates_fail() {
    let a = ca("members CA");
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    let server_only = Leaf {
        usages: vec![ExtendedKeyUsagePurpose::ServerAuth],
        ..good()
    };
    f.told = new_member(issue(server_only, &a), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail.contains("is serverAuth without clientAuth"),
        "{}",
        c.detail
    );
    assert!(
        c.remedy.contains("extendedKeyUsage serverAuth, clientAuth"),
        "{}",
        c.remedy
    );

    f.told = new_member(issue(good(), &a), Some(&a));
    if let Some(n) = &mut f.told.new_member {
        n.key_matches = Err("the key's public key is not the certificate's".to_string());
    }
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail
            .contains("--peer-key new-key.pem is not the key of --peer-cert new.pem (CN=peer)"),
        "{}",
        c.detail
    );

    let expired = Leaf {
        not_before: NOW - 100 * DAY,
        not_after: NOW - 2 * DAY,
        ..good()
    };
    f.told = new_member(issue(expired, &a), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(c.detail.contains("expired on 2025-06-13"), "{}", c.detail);
    // Its chain is judged apart from its dates: nothing else is wrong.
    assert!(!c.detail.contains("chain"), "{}", c.detail);

    let early = Leaf {
        not_before: NOW + DAY,
        ..good()
    };
    f.told = new_member(issue(early, &a), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Fail);
    assert!(
        c.detail.contains("is not valid before 2025-06-16"),
        "{}",
        c.detail
    );

    let soon = Leaf {
        not_after: NOW + 20 * DAY,
        ..good()
    };
    f.told = new_member(issue(soon, &a), Some(&a));
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Warn);
    assert!(c.detail.contains("expires in 20.0 days"), "{}", c.detail);
    assert_eq!(c.figures.get("new_member_days_left"), Some(20.0));
}

#[test]
fn a_new_member_on_tls_peers_without_its_files_warns_not_checked() {
    let a = ca("members CA");
    let mut f = facts_with(|_| vec![issue(good(), &a)]);
    // No new member (a removal, a promotion): the members alone, ok.
    assert_eq!(judge(&f).verdict, Verdict::Ok);
    // A new member's peer URL without --peer-cert/--peer-key: warned.
    f.told = PeerTlsInputs {
        peer_urls: PeerUrls::read(&["https://127.0.0.1:2390"]),
        new_member: None,
    };
    let c = judge(&f);
    assert_eq!(c.verdict, Verdict::Warn);
    assert!(c.detail.contains("not checked"), "{}", c.detail);
    assert!(c.remedy.contains("--peer-cert"), "{}", c.remedy);
}
