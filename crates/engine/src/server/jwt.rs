//! etcd's auth tokens (`--auth-token`): simple tokens (issued through raft,
//! see `node::Tokens`) or JWTs, self-contained tokens signed with the
//! private key and checked by any member with the public key alone, read
//! from `jwt,pub-key=FILE,priv-key=FILE,sign-method=METHOD,ttl=DURATION` as
//! etcd 3.4–3.6 read it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ring::signature::{self as sig, KeyPair as _};

/// A JWT's lifetime when `ttl=` is not given (etcd's default: 5m).
pub const DEFAULT_JWT_TTL: Duration = Duration::from_secs(300);

/// The sign methods served, as `sign-method=` names them.
const METHODS: &str =
    "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, HS256, HS384, HS512, EdDSA";

/// Why `--auth-token` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AuthTokenError {
    /// The first word is neither `simple` nor `jwt`.
    #[error("--auth-token {0:?}: unknown token type: give simple or jwt,sign-method=…,priv-key=FILE,pub-key=FILE")]
    UnknownType(String),
    /// `sign-method=` is missing or names no method served.
    #[error("--auth-token: sign-method {0:?} is not served: give one of {METHODS}")]
    Method(String),
    /// An option is not key=value.
    #[error("--auth-token: option {0:?} is not key=value: give options as sign-method=RS256")]
    Option(String),
    /// `ttl=` is not a duration.
    #[error("--auth-token: ttl {0:?} is not a duration: give one as 5m, 30s or 1h")]
    Ttl(String),
    /// Neither key file is given (HMAC needs priv-key, the secret).
    #[error("--auth-token: {0}")]
    MissingKey(&'static str),
    /// A key file cannot be read.
    #[error("--auth-token: cannot read {option} {path}: {source}: give a readable key file")]
    Read {
        /// pub-key or priv-key.
        option: &'static str,
        /// The file.
        path: String,
        /// Why not.
        source: std::io::Error,
    },
    /// A key file holds no key of the method's kind.
    #[error("--auth-token: {option} {path} holds no {kind} key in PEM form ({why}): check the file and sign-method")]
    Key {
        /// pub-key or priv-key.
        option: &'static str,
        /// The file.
        path: String,
        /// RSA, ECDSA P-256, …
        kind: &'static str,
        /// What the parser said.
        why: String,
    },
    /// pub-key is not priv-key's public half.
    #[error("--auth-token: pub-key {0} is not the public key of priv-key {1}: give the pair's two halves")]
    Mismatch(String, String),
}

/// How the engine's auth tokens are made (`--auth-token`).
#[derive(Clone, Debug, Default)]
pub enum AuthToken {
    /// etcd's default: random tokens issued through raft, kept in memory.
    #[default]
    Simple,
    /// Signed JWTs.
    Jwt(std::sync::Arc<Jwt>),
}

/// What a JWT says about its bearer (etcd's claims).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    /// `username`.
    pub user: String,
    /// `revision`: the auth store's revision when it was issued.
    pub revision: u64,
}

/// etcd's claims, in the order etcd writes them.
#[derive(serde::Serialize)]
struct Claims<'a> {
    exp: u64,
    revision: u64,
    username: &'a str,
}

/// The claims read back (etcd requires these two; `exp` is checked by the
/// validation when present).
#[derive(serde::Deserialize)]
struct Bearer {
    username: String,
    revision: u64,
}

/// The keys and method of `--auth-token jwt,...`.
pub struct Jwt {
    alg: Algorithm,
    /// None: only pub-key was given, tokens are checked but not issued
    /// (etcd's verify-only mode).
    encoding: Option<EncodingKey>,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for Jwt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jwt")
            .field("alg", &self.alg)
            .field("verify_only", &self.encoding.is_none())
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl AuthToken {
    /// Reads `--auth-token` and its key files: `simple`, or `jwt,` then
    /// key=value options (pub-key, priv-key, sign-method, ttl). Options
    /// etcd does not know are returned as notes for the log (etcd warns of
    /// them and goes on).
    pub fn parse(value: &str) -> Result<(AuthToken, Vec<String>), AuthTokenError> {
        let mut words = value.split(',');
        match words.next().unwrap_or_default() {
            "simple" => return Ok((AuthToken::Simple, Vec::new())),
            "jwt" => {}
            other => return Err(AuthTokenError::UnknownType(other.to_string())),
        }
        let (mut public, mut private, mut method, mut ttl) = (None, None, None, None);
        let mut notes = Vec::new();
        for w in words {
            let Some((k, v)) = w.split_once('=') else {
                return Err(AuthTokenError::Option(w.to_string()));
            };
            match k {
                "pub-key" => public = Some(v),
                "priv-key" => private = Some(v),
                "sign-method" => method = Some(v),
                "ttl" => ttl = Some(v),
                _ => notes.push(format!(
                    "--auth-token: option {k:?} is unknown and left aside, as etcd leaves it"
                )),
            }
        }
        let method = method.unwrap_or_default();
        let alg = algorithm(method)?;
        let ttl = match ttl.filter(|t| !t.is_empty()) {
            None => DEFAULT_JWT_TTL,
            Some(t) => go_duration(t).ok_or_else(|| AuthTokenError::Ttl(t.to_string()))?,
        };
        let read = |option: &'static str, path: Option<&str>| {
            path.filter(|p| !p.is_empty())
                .map(|p| {
                    std::fs::read(p).map_err(|source| AuthTokenError::Read {
                        option,
                        path: p.to_string(),
                        source,
                    })
                })
                .transpose()
        };
        let (public_pem, private_pem) = (read("pub-key", public)?, read("priv-key", private)?);
        let jwt = Jwt::new(
            alg,
            (public.unwrap_or_default(), public_pem.as_deref()),
            (private.unwrap_or_default(), private_pem.as_deref()),
            ttl,
        )?;
        Ok((AuthToken::Jwt(std::sync::Arc::new(jwt)), notes))
    }
}

/// The method `sign-method=` names.
fn algorithm(method: &str) -> Result<Algorithm, AuthTokenError> {
    Ok(match method {
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "HS256" => Algorithm::HS256,
        "HS384" => Algorithm::HS384,
        "HS512" => Algorithm::HS512,
        "EdDSA" => Algorithm::EdDSA,
        other => return Err(AuthTokenError::Method(other.to_string())),
    })
}

/// A Go duration (`time.ParseDuration`): numbers with units h, m, s, ms,
/// us/µs, ns, concatenated (`1m30s`); None for anything else or below zero.
pub fn go_duration(s: &str) -> Option<Duration> {
    if s == "0" {
        return Some(Duration::ZERO);
    }
    if s.is_empty() {
        return None;
    }
    let mut rest = s;
    let mut total = 0f64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|n| *n > 0)?;
        let n: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += n * scale;
        rest = &rest[unit_len..];
    }
    Duration::try_from_secs_f64(total).ok()
}

/// The kind of key `alg` signs with, for messages.
fn kind(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::ES256 => "ECDSA P-256",
        Algorithm::ES384 => "ECDSA P-384",
        Algorithm::EdDSA => "Ed25519",
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => "HMAC",
        _ => "RSA",
    }
}

impl Jwt {
    /// The keys for `alg`, from the PEM contents of pub-key and priv-key
    /// (each with its path, for messages).
    fn new(
        alg: Algorithm,
        public: (&str, Option<&[u8]>),
        private: (&str, Option<&[u8]>),
        ttl: Duration,
    ) -> Result<Jwt, AuthTokenError> {
        let bad = |option: &'static str, path: &str, why: String| AuthTokenError::Key {
            option,
            path: path.to_string(),
            kind: kind(alg),
            why,
        };
        let mut validation = Validation::new(alg);
        // etcd (jwt-go) refuses a token from the second its `exp` has
        // passed, requires no claim but its own, and knows no audience.
        validation.leeway = 0;
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        if matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512) {
            // etcd's HMAC secret is priv-key's contents.
            let Some(secret) = private.1.filter(|s| !s.is_empty()) else {
                return Err(AuthTokenError::MissingKey(
                    "sign-method HS256/HS384/HS512 needs priv-key=FILE, the shared secret",
                ));
            };
            return Ok(Jwt {
                alg,
                encoding: Some(EncodingKey::from_secret(secret)),
                decoding: DecodingKey::from_secret(secret),
                validation,
                ttl,
            });
        }
        let from_public = match public.1 {
            None => None,
            Some(pem) => Some(
                match alg {
                    Algorithm::ES256 | Algorithm::ES384 => DecodingKey::from_ec_pem(pem),
                    Algorithm::EdDSA => DecodingKey::from_ed_pem(pem),
                    _ => DecodingKey::from_rsa_pem(pem),
                }
                .map_err(|e| bad("pub-key", public.0, e.to_string()))?,
            ),
        };
        let signing = match private.1 {
            None => None,
            Some(pem) => {
                Some(signing_keys(alg, pem).map_err(|why| bad("priv-key", private.0, why))?)
            }
        };
        let jwt = |encoding, decoding| Jwt {
            alg,
            encoding,
            decoding,
            validation: validation.clone(),
            ttl,
        };
        match (signing, from_public) {
            (None, None) => Err(AuthTokenError::MissingKey(
                "give priv-key=FILE (and pub-key=FILE), or pub-key=FILE alone to check tokens only",
            )),
            (None, Some(decoding)) => Ok(jwt(None, decoding)),
            (Some((encoding, derived)), None) => Ok(jwt(Some(encoding), derived)),
            (Some((encoding, _)), Some(decoding)) => {
                let probe = b"memberctl";
                let pair = jsonwebtoken::crypto::sign(probe, &encoding, alg)
                    .and_then(|s| jsonwebtoken::crypto::verify(&s, probe, &decoding, alg));
                if !matches!(pair, Ok(true)) {
                    return Err(AuthTokenError::Mismatch(
                        public.0.to_string(),
                        private.0.to_string(),
                    ));
                }
                Ok(jwt(Some(encoding), decoding))
            }
        }
    }

    /// Whether tokens are only checked here (pub-key alone).
    pub fn verify_only(&self) -> bool {
        self.encoding.is_none()
    }

    /// A token for `user` at auth revision `revision`, valid for the TTL;
    /// Err: etcd's message when it cannot sign (verify-only).
    pub fn issue(&self, user: &str, revision: u64) -> Result<String, String> {
        let Some(key) = &self.encoding else {
            return Err("auth: token signing attempted with verify-only key".to_string());
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let claims = Claims {
            exp: (now + self.ttl).as_secs(),
            revision,
            username: user,
        };
        jsonwebtoken::encode(&Header::new(self.alg), &claims, key).map_err(|e| e.to_string())
    }

    /// Who `token` was issued to, when it is signed with this key and
    /// method, has not expired and carries etcd's claims.
    pub fn check(&self, token: &str) -> Option<TokenInfo> {
        let data = jsonwebtoken::decode::<Bearer>(token, &self.decoding, &self.validation).ok()?;
        Some(TokenInfo {
            user: data.claims.username,
            revision: data.claims.revision,
        })
    }
}

/// The signing key of `alg` from priv-key's PEM, and its public half for
/// checking tokens.
fn signing_keys(alg: Algorithm, pem: &[u8]) -> Result<(EncodingKey, DecodingKey), String> {
    let block = pem::parse(pem).map_err(|e| e.to_string())?;
    let der = block.contents();
    let rng = ring::rand::SystemRandom::new();
    match alg {
        Algorithm::ES256 | Algorithm::ES384 => {
            let (ring_alg, curve) = if alg == Algorithm::ES256 {
                (&sig::ECDSA_P256_SHA256_FIXED_SIGNING, P256)
            } else {
                (&sig::ECDSA_P384_SHA384_FIXED_SIGNING, P384)
            };
            let pkcs8 = match block.tag() {
                "PRIVATE KEY" => der.to_vec(),
                "EC PRIVATE KEY" => sec1_to_pkcs8(der, curve),
                tag => return Err(format!("a {tag} block")),
            };
            let pair =
                sig::EcdsaKeyPair::from_pkcs8(ring_alg, &pkcs8, &rng).map_err(|e| e.to_string())?;
            Ok((
                EncodingKey::from_ec_der(&pkcs8),
                DecodingKey::from_ec_der(pair.public_key().as_ref()),
            ))
        }
        Algorithm::EdDSA => {
            let pair =
                sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der).map_err(|e| e.to_string())?;
            Ok((
                EncodingKey::from_ed_der(der),
                DecodingKey::from_ed_der(pair.public_key().as_ref()),
            ))
        }
        _ => {
            let pair = match block.tag() {
                "PRIVATE KEY" => sig::RsaKeyPair::from_pkcs8(der),
                "RSA PRIVATE KEY" => sig::RsaKeyPair::from_der(der),
                tag => return Err(format!("a {tag} block")),
            }
            .map_err(|e| e.to_string())?;
            let encoding = EncodingKey::from_rsa_pem(pem).map_err(|e| e.to_string())?;
            Ok((
                encoding,
                DecodingKey::from_rsa_der(pair.public_key().as_ref()),
            ))
        }
    }
}

/// DER of the OID 1.2.840.10045.3.1.7 (P-256).
const P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// DER of the OID 1.3.132.0.34 (P-384).
const P384: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
/// DER of the OID 1.2.840.10045.2.1 (id-ecPublicKey).
const EC_PUBLIC_KEY: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

/// An EC key in SEC1 form (`EC PRIVATE KEY`, as `openssl ecparam -genkey`
/// writes it and etcd reads it) wrapped as PKCS#8, the form ring reads.
fn sec1_to_pkcs8(sec1: &[u8], curve: &[u8]) -> Vec<u8> {
    let algorithm = tlv(0x30, &[EC_PUBLIC_KEY, curve].concat());
    let body = [&[0x02, 0x01, 0x00][..], &algorithm, &tlv(0x04, sec1)].concat();
    tlv(0x30, &body)
}

/// A DER tag-length-value.
fn tlv(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = value.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(value);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pem(tag: &str, der: &[u8]) -> Vec<u8> {
        pem::encode(&pem::Pem::new(tag, der.to_vec())).into_bytes()
    }

    fn temp(name: &str, content: &[u8]) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        (dir, path.display().to_string())
    }

    #[test]
    fn jwt_go_durations_read_as_go_reads_them() {
        assert_eq!(go_duration("5m"), Some(Duration::from_secs(300)));
        assert_eq!(go_duration("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(go_duration("1.5h"), Some(Duration::from_secs(5400)));
        assert_eq!(go_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(go_duration("0"), Some(Duration::ZERO));
        for bad in ["", "5", "bogus", "5x", "-1s", "m"] {
            assert_eq!(go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn jwt_options_are_read_as_etcd_reads_them() {
        assert!(matches!(
            AuthToken::parse("simple"),
            Ok((AuthToken::Simple, _))
        ));
        let err = |v: &str| AuthToken::parse(v).unwrap_err().to_string();
        assert!(
            err("bogus").contains("unknown token type"),
            "{}",
            err("bogus")
        );
        assert!(
            err("jwt").contains("sign-method \"\" is not served"),
            "{}",
            err("jwt")
        );
        assert!(err("jwt,sign-method=ES512,priv-key=x").contains("ES512"));
        assert!(err("jwt,sign-method=RS256").contains("give priv-key=FILE"));
        assert!(err("jwt,sign-method=HS256,pub-key=x").contains("cannot read pub-key x"));
        assert!(err("jwt,sign-method=RS256,priv-key=/nonexistent")
            .contains("cannot read priv-key /nonexistent"));
        assert!(err("jwt,sign-method=RS256,ttl=bogus,priv-key=x").contains("ttl \"bogus\""));
        assert!(err("jwt,sign-method").contains("not key=value"));
        let (_d, secret) = temp("secret", b"not a key");
        let e = err(&format!("jwt,sign-method=RS256,priv-key={secret}"));
        assert!(e.contains("holds no RSA key in PEM form"), "{e}");
        // HMAC: the file's contents are the secret; an unknown option is a note.
        let (token, notes) = AuthToken::parse(&format!(
            "jwt,sign-method=HS256,priv-key={secret},ttl=1m,foo=bar"
        ))
        .unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        let AuthToken::Jwt(jwt) = token else {
            panic!("a JWT")
        };
        assert_eq!(jwt.ttl, Duration::from_secs(60));
        let t = jwt.issue("root", 4).unwrap();
        assert_eq!(
            jwt.check(&t),
            Some(TokenInfo {
                user: "root".into(),
                revision: 4
            })
        );
    }

    #[test]
    fn jwt_tokens_carry_etcds_claims_and_check_with_the_public_key_alone() {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 =
            sig::EcdsaKeyPair::generate_pkcs8(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = sig::EcdsaKeyPair::from_pkcs8(
            &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
            pkcs8.as_ref(),
            &rng,
        )
        .unwrap();
        // The public key as SubjectPublicKeyInfo.
        let point = pair.public_key().as_ref();
        let mut bits = vec![0u8];
        bits.extend_from_slice(point);
        let spki = tlv(
            0x30,
            &[tlv(0x30, &[EC_PUBLIC_KEY, P256].concat()), tlv(0x03, &bits)].concat(),
        );
        let (_a, private) = temp("ec.key", &pem("PRIVATE KEY", pkcs8.as_ref()));
        let (_b, public) = temp("ec.pub", &pem("PUBLIC KEY", &spki));
        let jwt = |opts: &str| match AuthToken::parse(&format!("jwt,sign-method=ES256,{opts}")) {
            Ok((AuthToken::Jwt(j), _)) => j,
            other => panic!("{opts}: {other:?}"),
        };
        let signer = jwt(&format!("priv-key={private},pub-key={public},ttl=10s"));
        let alone = jwt(&format!("priv-key={private}"));
        let checker = jwt(&format!("pub-key={public}"));
        assert!(checker.verify_only() && !signer.verify_only());
        let token = signer.issue("alice", 7).unwrap();
        let want = Some(TokenInfo {
            user: "alice".into(),
            revision: 7,
        });
        assert_eq!(checker.check(&token), want);
        assert_eq!(alone.check(&token), want);
        assert_eq!(
            checker.issue("alice", 7).unwrap_err(),
            "auth: token signing attempted with verify-only key"
        );
        // etcd's header and claims.
        let part = |i: usize| {
            use base64::Engine as _;
            let b = token.split('.').nth(i).unwrap();
            let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(b)
                .unwrap();
            serde_json::from_slice::<serde_json::Value>(&raw).unwrap()
        };
        assert_eq!(part(0)["alg"], "ES256");
        let claims = part(1);
        let mut names: Vec<_> = claims.as_object().unwrap().keys().cloned().collect();
        names.sort();
        assert_eq!(names, ["exp", "revision", "username"]);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let exp = claims["exp"].as_u64().unwrap();
        assert!((now + 9..=now + 11).contains(&exp), "{exp} vs {now}");
        // Tampered, another method's or expired: refused.
        let mut bad = token.clone();
        bad.push('x');
        assert_eq!(checker.check(&bad), None);
        assert_eq!(checker.check("abcdefghijklmnop.12"), None);
        let expired = Jwt {
            ttl: Duration::ZERO,
            ..Jwt::new(
                Algorithm::ES256,
                ("", None),
                (&private, Some(&std::fs::read(&private).unwrap())),
                Duration::ZERO,
            )
            .unwrap()
        };
        let old = Claims {
            exp: now - 1,
            revision: 1,
            username: "alice",
        };
        let stale = jsonwebtoken::encode(
            &Header::new(Algorithm::ES256),
            &old,
            expired.encoding.as_ref().unwrap(),
        )
        .unwrap();
        assert_eq!(checker.check(&stale), None, "expired a second ago");
        // A pub-key that is not priv-key's half is refused at start.
        let other =
            sig::EcdsaKeyPair::generate_pkcs8(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let (_c, other) = temp("other.key", &pem("PRIVATE KEY", other.as_ref()));
        let e = AuthToken::parse(&format!(
            "jwt,sign-method=ES256,priv-key={other},pub-key={public}"
        ))
        .unwrap_err();
        assert!(matches!(e, AuthTokenError::Mismatch(..)), "{e}");
    }

    #[test]
    fn jwt_sec1_ec_keys_are_wrapped_as_pkcs8() {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 =
            sig::EcdsaKeyPair::generate_pkcs8(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let der = pkcs8.as_ref();
        // ring's PKCS#8 holds the SEC1 key as its last value: unwrapped and
        // wrapped again, it is the same document.
        let at = (0..der.len() - 2)
            .find(|&i| {
                der[i] == 0x04 && der[i + 1] as usize == der.len() - i - 2 && der[i + 2] == 0x30
            })
            .unwrap();
        let sec1 = &der[at + 2..];
        assert_eq!(sec1_to_pkcs8(sec1, P256), der);
        let (_a, private) = temp("ec.key", &pem("EC PRIVATE KEY", sec1));
        let Ok((AuthToken::Jwt(jwt), _)) =
            AuthToken::parse(&format!("jwt,sign-method=ES256,priv-key={private}"))
        else {
            panic!("a SEC1 key")
        };
        let t = jwt.issue("bob", 2).unwrap();
        assert_eq!(jwt.check(&t).map(|i| i.revision), Some(2));
        // A long value's length in long form.
        assert_eq!(&tlv(0x04, &[0; 200])[..3], &[0x04, 0x81, 200]);
    }

    #[test]
    fn jwt_ed25519_keys_sign_and_check() {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = sig::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let (_a, private) = temp("ed.key", &pem("PRIVATE KEY", pkcs8.as_ref()));
        let Ok((AuthToken::Jwt(jwt), _)) =
            AuthToken::parse(&format!("jwt,sign-method=EdDSA,priv-key={private}"))
        else {
            panic!("an Ed25519 key")
        };
        let t = jwt.issue("bob", 2).unwrap();
        assert_eq!(jwt.check(&t).map(|i| i.user), Some("bob".to_string()));
    }
}
