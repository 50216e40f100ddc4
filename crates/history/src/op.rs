//! Recorded operations (request, response, timing) and their JSON-lines encoding.

use serde::{Deserialize, Serialize};

/// One operation issued by a sequential client against a single key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    /// Client id; a client whose request failed continues under a new id.
    pub client: u64,
    /// Nanoseconds since the recording began (monotonic clock) when the request was sent.
    pub call: u64,
    /// Nanoseconds when the answer arrived; `None` when no answer came (timeout or error).
    pub ret: Option<u64>,
    /// The key the operation touched.
    pub key: String,
    /// What was asked.
    pub request: Request,
    /// What was answered.
    pub response: Response,
}

/// A request against one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Store `value`; values are unique over the whole history.
    Put {
        /// The value written.
        value: String,
    },
    /// Linearizable read of the key.
    Get,
    /// Remove the key.
    Delete,
    /// Transaction: if the key holds `expect` (`None`: key absent) put `value`, else read the key.
    Cas {
        /// Expected current value; `None` means the key must be absent.
        #[serde(default)]
        expect: Option<String>,
        /// Value written when the comparison holds.
        value: String,
    },
}

/// The answer to a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Response {
    /// The put succeeded.
    Put {
        /// Header revision of the put (the revision it created).
        revision: i64,
    },
    /// The read succeeded.
    Get {
        /// Value read; `None` when the key is absent.
        #[serde(default)]
        value: Option<String>,
        /// Revision that last modified the key; 0 when absent.
        mod_revision: i64,
        /// Header revision.
        revision: i64,
    },
    /// The delete succeeded.
    Delete {
        /// Number of keys deleted (0 or 1).
        deleted: i64,
        /// Header revision.
        revision: i64,
    },
    /// The transaction succeeded (whichever branch ran).
    Cas {
        /// Whether the comparison held and the put ran.
        succeeded: bool,
        /// Value read by the else-branch; `None` when succeeded or absent.
        #[serde(default)]
        value: Option<String>,
        /// Mod revision read by the else-branch; 0 when succeeded or absent.
        mod_revision: i64,
        /// Header revision.
        revision: i64,
    },
    /// No answer or an error: the outcome is unknown.
    Failed {
        /// What went wrong.
        error: String,
    },
}

impl Operation {
    /// Whether the operation got a definite answer (a return time and a non-failed response).
    pub fn answered(&self) -> bool {
        self.ret.is_some() && !matches!(self.response, Response::Failed { .. })
    }

    /// Whether the response kind fits the request kind (a failed response fits any).
    pub fn response_matches(&self) -> bool {
        matches!(
            (&self.request, &self.response),
            (_, Response::Failed { .. })
                | (Request::Put { .. }, Response::Put { .. })
                | (Request::Get, Response::Get { .. })
                | (Request::Delete, Response::Delete { .. })
                | (Request::Cas { .. }, Response::Cas { .. })
        )
    }

    /// Header revision of an answered operation.
    pub fn header_revision(&self) -> Option<i64> {
        if !self.answered() {
            return None;
        }
        match &self.response {
            Response::Put { revision }
            | Response::Get { revision, .. }
            | Response::Delete { revision, .. }
            | Response::Cas { revision, .. } => Some(*revision),
            Response::Failed { .. } => None,
        }
    }

    /// Revision created by an answered write that changed the store.
    pub fn write_revision(&self) -> Option<i64> {
        if !self.answered() {
            return None;
        }
        match &self.response {
            Response::Put { revision } => Some(*revision),
            Response::Delete { deleted, revision } if *deleted >= 1 => Some(*revision),
            Response::Cas {
                succeeded: true,
                revision,
                ..
            } => Some(*revision),
            _ => None,
        }
    }

    /// The value and mod revision an answered read observed, if it observed a value.
    pub fn read_value(&self) -> Option<(&str, i64)> {
        if !self.answered() {
            return None;
        }
        match &self.response {
            Response::Get {
                value: Some(v),
                mod_revision,
                ..
            }
            | Response::Cas {
                succeeded: false,
                value: Some(v),
                mod_revision,
                ..
            } => Some((v.as_str(), *mod_revision)),
            _ => None,
        }
    }

    /// The value this operation may have written (whether or not it is known to have).
    pub fn written_value(&self) -> Option<&str> {
        match (&self.request, &self.response) {
            (
                Request::Cas { .. },
                Response::Cas {
                    succeeded: false, ..
                },
            ) => None,
            (Request::Put { value }, _) | (Request::Cas { value, .. }, _) => Some(value.as_str()),
            _ => None,
        }
    }

    /// Short name of the request kind (`put`, `get`, `delete`, `cas`).
    pub fn kind(&self) -> &'static str {
        match self.request {
            Request::Put { .. } => "put",
            Request::Get => "get",
            Request::Delete => "delete",
            Request::Cas { .. } => "cas",
        }
    }
}

/// Parses a JSON-lines history; blank lines are skipped, errors name the line number.
pub fn read_jsonl(text: &str) -> Result<Vec<Operation>, String> {
    let mut ops = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let op: Operation =
            serde_json::from_str(line).map_err(|e| format!("line {}: {}", n + 1, e))?;
        ops.push(op);
    }
    Ok(ops)
}

/// Encodes a history as JSON lines, one operation per line.
pub fn to_jsonl(ops: &[Operation]) -> String {
    let mut out = String::new();
    for op in ops {
        // Plain structs with string keys: serialization cannot fail.
        let line = serde_json::to_string(op).expect("operations always serialize");
        out.push_str(&line);
        out.push('\n');
    }
    out
}
