//! A small DER reader for what the `peer-tls` check shows of an X.509
//! certificate and webpki does not expose (and the engine's user named by a
//! client certificate, its subject's common name): its subject and issuer
//! in words,
//! its validity (notBefore, notAfter), its subjectAltName entries, its
//! extended key usage and whether it is a CA. Reads only; judges nothing
//! (the chain, the names and the key usage are verified with webpki, in
//! `cert.rs`). RFC 5280 §4.1; times are UTCTime (years 1950–2049) or
//! GeneralizedTime, both in whole seconds, UTC ("Z"), as DER requires.

use std::net::IpAddr;

/// Why bytes are not a certificate this reader understands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a DER X.509 certificate: {0}")]
pub struct DerError(pub String);

fn bad(what: impl Into<String>) -> DerError {
    DerError(what.into())
}

/// What the reader takes out of a certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// The subject's DER `Name`, as encoded.
    pub subject_der: Vec<u8>,
    /// The issuer's DER `Name`, as encoded.
    pub issuer_der: Vec<u8>,
    /// The subject in words (`CN=…, O=…`).
    pub subject: String,
    /// The subject's common name (the last, as Go's `Subject.CommonName`).
    pub subject_cn: Option<String>,
    /// The issuer in words.
    pub issuer: String,
    /// notBefore, seconds since the Unix epoch.
    pub not_before: i64,
    /// notAfter, seconds since the Unix epoch.
    pub not_after: i64,
    /// subjectAltName dNSName entries.
    pub dns_names: Vec<String>,
    /// subjectAltName iPAddress entries.
    pub ips: Vec<IpAddr>,
    /// The extended key usage's purposes as dotted OIDs; `None` when the
    /// certificate has no such extension (then any use is allowed).
    pub key_purposes: Option<Vec<String>>,
    /// basicConstraints cA.
    pub is_ca: bool,
    /// authorityKeyIdentifier keyIdentifier: which key of its issuer signed it.
    pub authority_key_id: Option<Vec<u8>>,
}

/// serverAuth (1.3.6.1.5.5.7.3.1).
pub const SERVER_AUTH: &str = "1.3.6.1.5.5.7.3.1";
/// clientAuth (1.3.6.1.5.5.7.3.2).
pub const CLIENT_AUTH: &str = "1.3.6.1.5.5.7.3.2";
/// anyExtendedKeyUsage (2.5.29.37.0).
pub const ANY_USAGE: &str = "2.5.29.37.0";

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const OID: u8 = 0x06;
const BOOLEAN: u8 = 0x01;
const OCTET_STRING: u8 = 0x04;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;

/// One DER element after another.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8]) -> Self {
        Reader { rest: data }
    }

    fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// The next element: its tag, its content, and its whole encoding.
    fn next(&mut self) -> Result<(u8, &'a [u8], &'a [u8]), DerError> {
        let data = self.rest;
        let (&tag, after) = data.split_first().ok_or_else(|| bad("data ends early"))?;
        if tag & 0x1f == 0x1f {
            return Err(bad("multi-byte tags are not used in certificates"));
        }
        let (&first, mut after) = after.split_first().ok_or_else(|| bad("no length"))?;
        let len = if first < 0x80 {
            usize::from(first)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || after.len() < n {
                return Err(bad("bad length"));
            }
            let len = after[..n]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            after = &after[n..];
            len
        };
        if after.len() < len {
            return Err(bad("an element is longer than its data"));
        }
        let header = data.len() - after.len();
        self.rest = &after[len..];
        Ok((tag, &after[..len], &data[..header + len]))
    }

    /// The next element, which must have `tag`: its content.
    fn expect(&mut self, tag: u8, what: &str) -> Result<&'a [u8], DerError> {
        let (t, content, _) = self.next()?;
        if t != tag {
            return Err(bad(format!("{what}: tag {t:#04x}, expected {tag:#04x}")));
        }
        Ok(content)
    }
}

/// Reads `der` (one certificate).
pub fn read(der: &[u8]) -> Result<Fields, DerError> {
    let mut outer = Reader::new(der);
    let cert = outer.expect(SEQUENCE, "certificate")?;
    let tbs = Reader::new(cert).expect(SEQUENCE, "tbsCertificate")?;
    let mut r = Reader::new(tbs);
    if r.peek() == Some(0xa0) {
        r.next()?; // version
    }
    r.expect(0x02, "serialNumber")?;
    r.expect(SEQUENCE, "signature")?;
    let (tag, issuer, issuer_der) = r.next()?;
    if tag != SEQUENCE {
        return Err(bad("issuer"));
    }
    let validity = r.expect(SEQUENCE, "validity")?;
    let (tag, subject, subject_der) = r.next()?;
    if tag != SEQUENCE {
        return Err(bad("subject"));
    }
    r.expect(SEQUENCE, "subjectPublicKeyInfo")?;
    let mut fields = Fields {
        subject_der: subject_der.to_vec(),
        issuer_der: issuer_der.to_vec(),
        subject: words(&name(subject)?),
        subject_cn: name(subject)?
            .into_iter()
            .rev()
            .find(|(k, _)| k == "CN")
            .map(|(_, v)| v),
        issuer: words(&name(issuer)?),
        ..Fields::default()
    };
    let mut v = Reader::new(validity);
    fields.not_before = time(&mut v)?;
    fields.not_after = time(&mut v)?;
    while !r.is_empty() {
        let (tag, content, _) = r.next()?;
        if tag == 0xa3 {
            extensions(
                Reader::new(content).expect(SEQUENCE, "extensions")?,
                &mut fields,
            )?;
        }
    }
    Ok(fields)
}

fn extensions(data: &[u8], fields: &mut Fields) -> Result<(), DerError> {
    let mut r = Reader::new(data);
    while !r.is_empty() {
        let mut e = Reader::new(r.expect(SEQUENCE, "extension")?);
        let id = oid(e.expect(OID, "extnID")?);
        if e.peek() == Some(BOOLEAN) {
            e.next()?; // critical
        }
        let value = e.expect(OCTET_STRING, "extnValue")?;
        match id.as_str() {
            "2.5.29.17" => alt_names(value, fields)?,
            "2.5.29.37" => {
                let mut p = Reader::new(Reader::new(value).expect(SEQUENCE, "extKeyUsage")?);
                let mut purposes = Vec::new();
                while !p.is_empty() {
                    purposes.push(oid(p.expect(OID, "keyPurposeId")?));
                }
                fields.key_purposes = Some(purposes);
            }
            "2.5.29.35" => {
                let mut a =
                    Reader::new(Reader::new(value).expect(SEQUENCE, "authorityKeyIdentifier")?);
                if a.peek() == Some(0x80) {
                    fields.authority_key_id = Some(a.expect(0x80, "keyIdentifier")?.to_vec());
                }
            }
            "2.5.29.19" => {
                let mut b = Reader::new(Reader::new(value).expect(SEQUENCE, "basicConstraints")?);
                if b.peek() == Some(BOOLEAN) {
                    fields.is_ca = b.expect(BOOLEAN, "cA")? != [0];
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn alt_names(value: &[u8], fields: &mut Fields) -> Result<(), DerError> {
    let mut r = Reader::new(Reader::new(value).expect(SEQUENCE, "subjectAltName")?);
    while !r.is_empty() {
        let (tag, content, _) = r.next()?;
        match tag {
            0x82 => fields
                .dns_names
                .push(String::from_utf8_lossy(content).into_owned()),
            0x87 => match content.len() {
                4 => fields
                    .ips
                    .push(IpAddr::from(<[u8; 4]>::try_from(content).expect("4 bytes"))),
                16 => fields.ips.push(IpAddr::from(
                    <[u8; 16]>::try_from(content).expect("16 bytes"),
                )),
                _ => return Err(bad("an iPAddress of neither 4 nor 16 bytes")),
            },
            _ => {}
        }
    }
    Ok(())
}

/// An OBJECT IDENTIFIER's content as dotted decimal.
fn oid(content: &[u8]) -> String {
    let mut arcs: Vec<u64> = Vec::new();
    let mut n: u64 = 0;
    for b in content {
        n = (n << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (n / 40).min(2);
                arcs.push(first);
                arcs.push(n - first * 40);
            } else {
                arcs.push(n);
            }
            n = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// A `Name` in words: each attribute as `KEY=value`, in encoded order.
fn words(attributes: &[(String, String)]) -> String {
    if attributes.is_empty() {
        return "(empty name)".to_string();
    }
    let parts: Vec<String> = attributes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(", ")
}

/// A `Name`'s attributes (`CN`, `O`, … or the type's OID; the value), in
/// encoded order.
fn name(content: &[u8]) -> Result<Vec<(String, String)>, DerError> {
    let mut parts = Vec::new();
    let mut rdns = Reader::new(content);
    while !rdns.is_empty() {
        let mut set = Reader::new(rdns.expect(SET, "relative distinguished name")?);
        while !set.is_empty() {
            let mut atv = Reader::new(set.expect(SEQUENCE, "attribute")?);
            let id = oid(atv.expect(OID, "attribute type")?);
            let (tag, value, _) = atv.next()?;
            let key = match id.as_str() {
                "2.5.4.3" => "CN",
                "2.5.4.6" => "C",
                "2.5.4.7" => "L",
                "2.5.4.8" => "ST",
                "2.5.4.10" => "O",
                "2.5.4.11" => "OU",
                other => other,
            };
            let text = if tag == 0x1e {
                // BMPString: UTF-16BE.
                let units: Vec<u16> = value
                    .chunks(2)
                    .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                    .collect();
                String::from_utf16_lossy(&units)
            } else {
                String::from_utf8_lossy(value).into_owned()
            };
            parts.push((key.to_string(), text));
        }
    }
    Ok(parts)
}

/// The next UTCTime or GeneralizedTime, as seconds since the Unix epoch.
fn time(r: &mut Reader<'_>) -> Result<i64, DerError> {
    let (tag, content, _) = r.next()?;
    let text = std::str::from_utf8(content).map_err(|_| bad("a time is not ASCII"))?;
    let digits = text
        .strip_suffix('Z')
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| bad(format!("time {text:?} is not in whole seconds UTC")))?;
    let num = |s: &str| s.parse::<i64>().expect("digits");
    let (year, rest) = match (tag, digits.len()) {
        (UTC_TIME, 12) => {
            let yy = num(&digits[..2]);
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &digits[2..])
        }
        (GENERALIZED_TIME, 14) => (num(&digits[..4]), &digits[4..]),
        _ => return Err(bad(format!("time {text:?} (tag {tag:#04x})"))),
    };
    let (month, day) = (num(&rest[..2]), num(&rest[2..4]));
    let (hour, minute, second) = (num(&rest[4..6]), num(&rest[6..8]), num(&rest[8..10]));
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad(format!("time {text:?} is out of range")));
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d`.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// `seconds` since the epoch as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn format_time(seconds: i64) -> String {
    let (y, m, d) = civil_from_days(seconds.div_euclid(86_400));
    let s = seconds.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_both_ways() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        for days in [-800_000, -1, 0, 59, 60, 11_016, 19_723, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(format_time(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_time(-1), "1969-12-31 23:59:59 UTC");
    }

    fn time_of(tag: u8, text: &str) -> Result<i64, DerError> {
        let mut der = vec![tag, text.len() as u8];
        der.extend_from_slice(text.as_bytes());
        time(&mut Reader::new(&der))
    }

    #[test]
    fn utc_and_generalized_times() {
        assert_eq!(time_of(UTC_TIME, "700101000000Z"), Ok(0));
        // UTCTime years 50–99 are 19xx, 00–49 are 20xx.
        assert_eq!(time_of(UTC_TIME, "491231235959Z"), Ok(2_524_607_999));
        assert_eq!(time_of(UTC_TIME, "500101000000Z"), Ok(-631_152_000));
        assert_eq!(
            time_of(GENERALIZED_TIME, "20500101000000Z"),
            Ok(2_524_608_000)
        );
        assert_eq!(
            time_of(GENERALIZED_TIME, "99991231235959Z"),
            Ok(253_402_300_799)
        );
        for wrong in [
            "700101000000",
            "7001010000Z",
            "701301000000Z",
            "70010100000aZ",
        ] {
            assert!(time_of(UTC_TIME, wrong).is_err(), "{wrong}");
        }
        assert!(time_of(GENERALIZED_TIME, "20500101000000.5Z").is_err());
        assert!(time_of(OCTET_STRING, "700101000000Z").is_err());
    }

    #[test]
    fn oids_in_dotted_decimal() {
        assert_eq!(oid(&[0x2b, 6, 1, 5, 5, 7, 3, 1]), SERVER_AUTH);
        assert_eq!(oid(&[0x55, 0x1d, 0x25, 0]), ANY_USAGE);
        assert_eq!(oid(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d]), "1.2.840.113549");
    }

    #[test]
    fn a_generated_certificate_is_read_whole() {
        use rcgen::{
            CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, KeyPair, SanType,
        };
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(vec!["peer.example".to_string()]).unwrap();
        p.subject_alt_names
            .push(SanType::IpAddress("10.0.0.7".parse().unwrap()));
        p.subject_alt_names
            .push(SanType::IpAddress("::1".parse().unwrap()));
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, "peer one");
        dn.push(DnType::OrganizationName, "ops");
        p.distinguished_name = dn;
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        p.not_before = rcgen::date_time_ymd(2024, 2, 29);
        p.not_after = rcgen::date_time_ymd(2051, 1, 1);
        let cert = p.self_signed(&key).unwrap();
        let f = read(cert.der()).unwrap();
        assert_eq!(f.subject, "CN=peer one, O=ops");
        assert_eq!(f.subject_cn.as_deref(), Some("peer one"));
        assert_eq!(f.issuer, f.subject);
        assert_eq!(f.subject_der, f.issuer_der);
        assert_eq!(f.dns_names, vec!["peer.example".to_string()]);
        assert_eq!(
            f.ips,
            vec![
                "10.0.0.7".parse::<IpAddr>().unwrap(),
                "::1".parse::<IpAddr>().unwrap()
            ]
        );
        assert_eq!(f.not_before, days_from_civil(2024, 2, 29) * 86_400);
        // After 2049, GeneralizedTime.
        assert_eq!(f.not_after, days_from_civil(2051, 1, 1) * 86_400);
        assert_eq!(f.key_purposes, Some(vec![SERVER_AUTH.to_string()]));
        assert!(!f.is_ca);
        assert_eq!(f.authority_key_id, None);

        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = p.self_signed(&key).unwrap();
        let f = read(ca.der()).unwrap();
        assert!(f.is_ca);
        assert_eq!(f.key_purposes, None);
        assert!(f.dns_names.is_empty() && f.ips.is_empty());

        let mut p = CertificateParams::new(vec!["b".to_string()]).unwrap();
        p.use_authority_key_identifier_extension = true;
        let issued = p
            .signed_by(&KeyPair::generate().unwrap(), &ca, &key)
            .unwrap();
        let f = read(issued.der()).unwrap();
        assert_eq!(f.authority_key_id.map(|k| k.len()), Some(20));
    }

    #[test]
    fn truncated_or_foreign_data_is_an_error() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["a".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let der = cert.der().to_vec();
        for cut in [0, 1, 2, 10, der.len() / 2, der.len() - 1] {
            assert!(read(&der[..cut]).is_err(), "cut at {cut}");
        }
        assert!(read(b"-----BEGIN CERTIFICATE-----").is_err());
    }
}
