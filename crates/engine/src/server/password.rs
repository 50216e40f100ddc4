//! Password hashes for etcd's users (bcrypt at --bcrypt-cost, 10 by default, as etcd hashes them,
//! so that users go both ways in snapshot files; PBKDF2 hashes from older
//! memberctl data directories still verify) and etcd's simple tokens.

use std::num::NonZeroU32;

use rand::Rng as _;
use ring::pbkdf2;
use ring::rand::{SecureRandom as _, SystemRandom};

/// bcrypt's cost as etcd uses it by default (Go's `bcrypt.DefaultCost`).
pub const BCRYPT_COST_DEFAULT: u32 = 10;
/// The costs bcrypt takes (Go's `bcrypt.MinCost..=MaxCost`); etcd warns of
/// any other `--bcrypt-cost` and hashes at the default.
pub const BCRYPT_COSTS: std::ops::RangeInclusive<u32> = 4..=31;
/// PBKDF2 rounds of the hashes older memberctl versions wrote.
const ITERATIONS: u32 = 100_000;
/// The scheme's name at the start of an older memberctl's hash.
const SCHEME: &str = "pbkdf2-sha256";

/// Hashes `password` as etcd does: bcrypt at `cost` (etcd's --bcrypt-cost),
/// a new random salt, in the `$2a$` form Go's bcrypt writes (etcd checks it
/// after a restore).
pub fn hash(password: &str, cost: u32) -> String {
    match bcrypt::hash_with_result(password, cost) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        // Only a cost outside 4..=31 fails; kept safe all the same.
        Err(_) => pbkdf2_hash(password),
    }
}

/// `pbkdf2-sha256$ITERATIONS$SALT$HASH` (salt and hash in hex), as older
/// memberctl versions hashed passwords.
fn pbkdf2_hash(password: &str) -> String {
    let mut salt = [0u8; 16];
    // The system's random source does not fail on Linux; a zero salt would
    // still give a valid (if weaker) hash.
    let _ = SystemRandom::new().fill(&mut salt);
    let mut out = [0u8; 32];
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA256,
        NonZeroU32::new(ITERATIONS).unwrap_or(NonZeroU32::MIN),
        &salt,
        password.as_bytes(),
        &mut out,
    );
    format!("{SCHEME}${ITERATIONS}${}${}", hex(&salt), hex(&out))
}

/// Whether `password` matches `stored` (a bcrypt hash, from [`hash`] or from
/// an etcd snapshot, or an older memberctl's PBKDF2 hash).
pub fn verify(stored: &str, password: &str) -> bool {
    if stored.starts_with("$2") {
        return bcrypt::verify(password, stored).unwrap_or(false);
    }
    let mut parts = stored.split('$');
    let (Some(SCHEME), Some(rounds), Some(salt), Some(want), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return false;
    };
    let (Some(rounds), Some(salt), Some(want)) = (
        rounds.parse().ok().and_then(NonZeroU32::new),
        unhex(salt),
        unhex(want),
    ) else {
        return false;
    };
    pbkdf2::verify(
        pbkdf2::PBKDF2_HMAC_SHA256,
        rounds,
        &salt,
        password.as_bytes(),
        &want,
    )
    .is_ok()
}

/// A new simple token as etcd makes them: 16 random letters, a dot and a
/// number.
pub fn new_token() -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut rng = rand::thread_rng();
    let letters: String = (0..16)
        .map(|_| LETTERS[rng.gen_range(0..LETTERS.len())] as char)
        .collect();
    format!("{letters}.{}", rng.gen::<u32>())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_their_password_only() {
        let h = hash("s3cret", BCRYPT_COST_DEFAULT);
        assert!(h.starts_with("$2a$10$"), "etcd's form: {h}");
        assert!(verify(&h, "s3cret"));
        assert!(!verify(&h, "s3cret "));
        assert_ne!(h, hash("s3cret", 10), "a new salt each time");
        // --bcrypt-cost: the cost is in the hash, and it still verifies.
        let cheap = hash("s3cret", 4);
        assert!(cheap.starts_with("$2a$04$"), "{cheap}");
        assert!(verify(&cheap, "s3cret"));
        // An older memberctl's hashes still verify.
        let old = pbkdf2_hash("s3cret");
        assert!(old.starts_with("pbkdf2-sha256$100000$"), "{old}");
        assert!(verify(&old, "s3cret"));
        assert!(!verify(&old, "s3cret "));
        assert!(!verify("", ""));
        assert!(!verify("pbkdf2-sha256$0$00$00", ""));
        // etcd's bcrypt hashes (users restored from an etcd snapshot).
        let etcd = bcrypt::hash("s3cret", 4).unwrap();
        assert!(verify(&etcd, "s3cret"));
        assert!(!verify(&etcd, "wrong"));
        assert!(!verify("$2a$10$broken", "s3cret"));
        assert!(!verify("pbkdf2-sha256$1$zz$00", ""));
        let t = new_token();
        let (letters, n) = t.split_once('.').unwrap();
        assert_eq!(letters.len(), 16);
        assert!(n.parse::<u32>().is_ok());
    }
}
