//! A member's peer URLs as the operator gave them (`--peer-urls`, a target,
//! `--add-learner`), each read once where it enters and carried so down to
//! the client: the text for the wire, the reading for rule 1 and comparisons.

use crate::rules::peer_url::{self, Endpoint, Reading, Resolver};

/// One peer URL as given, read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerUrl {
    /// The text, exactly as given (what the server is sent).
    text: String,
    /// Rule 1's reading of it: endpoint and syntax problems.
    reading: Reading,
    /// The endpoint as URLs already in the cluster are read (leniently):
    /// what "the same URL" compares.
    endpoint: Option<Endpoint>,
}

impl PeerUrl {
    /// Reads `text` (never fails: what is wrong is kept for rule 1, which
    /// lists every problem at once).
    pub fn read(text: &str) -> Self {
        PeerUrl {
            text: text.to_string(),
            reading: peer_url::read(text),
            endpoint: peer_url::endpoint_of(text),
        }
    }

    /// The text, as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the text is empty or white space only (an empty list item).
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// The endpoint rule 1 read (None when the text is no URL).
    pub fn checked_endpoint(&self) -> Option<&Endpoint> {
        self.reading.endpoint.as_ref()
    }

    /// Rule 1's problems with this URL on its own, its host looked up with
    /// `resolve` when it is a name.
    pub fn problems(&self, resolve: Resolver) -> Vec<String> {
        self.reading.problems(&self.text, resolve)
    }

    /// The endpoint as read leniently, as the cluster's own URLs are (None
    /// when it does not parse): the identity [`PeerUrls::same_as`] compares.
    pub fn endpoint(&self) -> Option<&Endpoint> {
        self.endpoint.as_ref()
    }
}

/// `clap`'s parser of one `--peer-urls` item: reads it, never refuses.
impl std::str::FromStr for PeerUrl {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(PeerUrl::read(s))
    }
}

/// A member's peer URLs, in the order given, each read once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerUrls(Vec<PeerUrl>);

impl PeerUrls {
    /// Reads each of `texts`.
    pub fn read<S: AsRef<str>>(texts: &[S]) -> Self {
        texts.iter().map(|t| PeerUrl::read(t.as_ref())).collect()
    }

    /// The texts, as given: what the server is sent.
    pub fn texts(&self) -> Vec<String> {
        self.0.iter().map(|u| u.text.clone()).collect()
    }

    /// Each URL read.
    pub fn iter(&self) -> std::slice::Iter<'_, PeerUrl> {
        self.0.iter()
    }

    /// How many were given.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `urls` (a member's, as the cluster lists them) name the same
    /// endpoints as these, in any order: a member added before with these.
    pub fn same_as(&self, urls: &[String]) -> bool {
        use std::collections::HashSet;
        let ours: Option<HashSet<Endpoint>> = self.0.iter().map(|u| u.endpoint.clone()).collect();
        let theirs: Option<HashSet<Endpoint>> =
            urls.iter().map(|u| peer_url::endpoint_of(u)).collect();
        match (ours, theirs) {
            (Some(x), Some(y)) => !x.is_empty() && x == y,
            _ => false,
        }
    }
}

impl FromIterator<PeerUrl> for PeerUrls {
    fn from_iter<I: IntoIterator<Item = PeerUrl>>(iter: I) -> Self {
        PeerUrls(iter.into_iter().collect())
    }
}

impl From<Vec<PeerUrl>> for PeerUrls {
    fn from(urls: Vec<PeerUrl>) -> Self {
        PeerUrls(urls)
    }
}

impl std::fmt::Display for PeerUrls {
    /// The URLs as given, comma-separated (as `--peer-urls` takes them).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.texts().join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_urls_ignores_order_and_case() {
        let a = PeerUrls::read(&["http://A:1", "http://b:2"]);
        let b = vec!["http://b:2".to_string(), "http://a:1".to_string()];
        assert!(a.same_as(&b));
        assert!(!a.same_as(&b[..1]));
        assert!(!PeerUrls::default().same_as(&[]));
        assert_eq!(a.to_string(), "http://A:1,http://b:2");
    }
}
