//! etcd's simple tokens: issued through raft so that every member knows
//! them, kept in memory (as etcd keeps them), valid for --auth-token-ttl
//! (five minutes by default) after their last use.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a token stays valid after it was issued or last used, by
/// default (etcd's --auth-token-ttl 300; etcd takes 0 as this too).
pub const TOKEN_TTL: Duration = Duration::from_secs(300);

/// What an applied batch did to the tokens, for every member to follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenEvent {
    /// A token was issued to a user.
    Issued {
        /// The token.
        token: String,
        /// Its user.
        user: String,
    },
    /// A user was deleted or changed password: its tokens end.
    UserChanged(String),
    /// Authentication was turned off, or a snapshot replaced the state: all
    /// tokens end.
    Cleared,
}

/// The tokens this member knows: token → (user, valid until).
#[derive(Debug)]
pub struct Tokens {
    map: Mutex<HashMap<String, (String, Instant)>>,
    ttl: Duration,
}

impl Default for Tokens {
    fn default() -> Self {
        Tokens::new(TOKEN_TTL)
    }
}

impl Tokens {
    /// No tokens yet; each lives `ttl` after its last use (zero: etcd's
    /// default, [`TOKEN_TTL`]).
    pub fn new(ttl: Duration) -> Tokens {
        Tokens {
            map: Mutex::default(),
            ttl: if ttl.is_zero() { TOKEN_TTL } else { ttl },
        }
    }

    /// Follows what an applied batch did.
    pub fn apply(&self, events: Vec<TokenEvent>) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        for e in events {
            match e {
                TokenEvent::Issued { token, user } => {
                    map.retain(|_, (_, until)| *until > now);
                    map.insert(token, (user, now + self.ttl));
                }
                TokenEvent::UserChanged(user) => map.retain(|_, (u, _)| *u != user),
                TokenEvent::Cleared => map.clear(),
            }
        }
    }

    /// The user of `token` when it is known and has not expired; its TTL
    /// starts again (etcd extends a simple token on every use).
    pub fn user(&self, token: &str) -> Option<String> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        match map.get_mut(token) {
            Some((user, until)) if *until > now => {
                *until = now + self.ttl;
                Some(user.clone())
            }
            Some(_) => {
                map.remove(token);
                None
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_issued_ended_per_user_and_cleared() {
        let t = Tokens::default();
        let issued = |token: &str, user: &str| TokenEvent::Issued {
            token: token.into(),
            user: user.into(),
        };
        t.apply(vec![issued("a.1", "alice"), issued("b.2", "bob")]);
        assert_eq!(t.user("a.1").as_deref(), Some("alice"));
        assert_eq!(t.user("nope"), None);
        t.apply(vec![TokenEvent::UserChanged("alice".into())]);
        assert_eq!(t.user("a.1"), None);
        assert_eq!(t.user("b.2").as_deref(), Some("bob"));
        t.apply(vec![TokenEvent::Cleared]);
        assert_eq!(t.user("b.2"), None);
    }

    #[test]
    fn tokens_live_the_configured_ttl_after_their_last_use() {
        assert_eq!(
            Tokens::new(Duration::ZERO).ttl,
            TOKEN_TTL,
            "0: etcd's default"
        );
        let t = Tokens::new(Duration::from_millis(200));
        t.apply(vec![TokenEvent::Issued {
            token: "a.1".into(),
            user: "alice".into(),
        }]);
        assert_eq!(t.user("a.1").as_deref(), Some("alice"));
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(t.user("a.1"), None, "expired after the ttl");
    }
}
