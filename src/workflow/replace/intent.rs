//! The record `member replace` keeps in the cluster's keyspace while it
//! replaces a dead member remove-first ([`INTENT`]): written before the
//! removal, deleted once done, read by a rerun that finds the old member gone
//! and the new one not yet added.

use serde::{Deserialize, Serialize};

use super::ReplaceRequest;
use crate::model::{Member, MemberId};
use crate::workflow::MembershipApi;

/// The key where `member replace` records, before it removes a dead member,
/// the replacement it is doing (JSON: the old member's ID and name, the new
/// member's name and peer URLs); deleted once the replacement is done.
pub const INTENT: &str = "memberctl/replace/intent";

/// The replacement [`INTENT`] records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intent {
    /// The old member's ID (hex).
    pub old_id: String,
    /// The old member's name.
    pub old_name: String,
    /// The new member's name.
    pub name: String,
    /// The new member's peer URLs.
    pub peer_urls: Vec<String>,
}

impl Intent {
    /// The intent of replacing `old` as `req` asks.
    pub fn of(old: &Member, req: &ReplaceRequest) -> Intent {
        Intent {
            old_id: old.id.to_string(),
            old_name: old.name.clone(),
            name: req.name.clone(),
            peer_urls: req.peer_urls.texts(),
        }
    }

    /// Whether it records the replacement `req` asks for: OLD by its ID or
    /// its name, NEW by its name and peer URLs.
    pub fn names(&self, req: &ReplaceRequest) -> bool {
        let id: Option<MemberId> = self.old_id.parse().ok();
        let old = (id.is_some() && req.old.parse::<MemberId>().ok() == id)
            || (!self.old_name.is_empty() && self.old_name == req.old);
        old && self.name == req.name && req.peer_urls.same_as(&self.peer_urls)
    }

    /// The old member as the intent names it.
    pub(super) fn member(&self) -> Member {
        Member {
            id: self.old_id.parse().unwrap_or_default(),
            name: self.old_name.clone(),
            ..Default::default()
        }
    }
}

/// The recorded intent, when it names `req`'s replacement.
pub(super) async fn recorded<A: MembershipApi>(api: &A, req: &ReplaceRequest) -> Option<Intent> {
    let value = api.key_get(INTENT).await.ok()??;
    serde_json::from_str::<Intent>(&value)
        .ok()
        .filter(|i| i.names(req))
}
