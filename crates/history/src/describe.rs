//! Human-readable one-line rendering of operations for reports.

use super::op::{Operation, Request, Response};

/// Formats nanoseconds as milliseconds with three decimals, e.g. `12.345 ms`.
pub(crate) fn ms(ns: u64) -> String {
    format!("{}.{:03} ms", ns / 1_000_000, (ns / 1_000) % 1_000)
}

/// Quotes an optional value, rendering `None` as `absent`.
pub(crate) fn quoted(value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{v:?}"),
        None => "absent".to_string(),
    }
}

/// Short reference to an operation, e.g. `put k1 by client 3 at 1.000 ms`.
pub(crate) fn op_ref(op: &Operation) -> String {
    format!(
        "{} {} by client {} at {}",
        op.kind(),
        op.key,
        op.client,
        ms(op.call)
    )
}

/// One line per operation, e.g.
/// `client 7  [12.345 ms → 13.002 ms]  put k2 = "c7-41"  → ok rev 118`.
pub(crate) fn op_line(op: &Operation) -> String {
    let ret = match op.ret {
        Some(r) => ms(r),
        None => "?".to_string(),
    };
    format!(
        "client {}  [{} → {}]  {}  → {}",
        op.client,
        ms(op.call),
        ret,
        request_text(op),
        response_text(op)
    )
}

fn request_text(op: &Operation) -> String {
    match &op.request {
        Request::Put { value } => format!("put {} = {value:?}", op.key),
        Request::Get => format!("get {}", op.key),
        Request::Delete => format!("delete {}", op.key),
        Request::Cas { expect, value } => format!(
            "cas {} if {} then = {value:?}",
            op.key,
            quoted(expect.as_deref())
        ),
    }
}

fn response_text(op: &Operation) -> String {
    if op.ret.is_none() {
        return match &op.response {
            Response::Failed { error } if !error.is_empty() => format!("no answer ({error})"),
            _ => "no answer".to_string(),
        };
    }
    match &op.response {
        Response::Put { revision } => format!("ok rev {revision}"),
        Response::Get {
            value,
            mod_revision,
            revision,
        } => read_text(value.as_deref(), *mod_revision, *revision),
        Response::Delete { deleted, revision } => format!("deleted {deleted} rev {revision}"),
        Response::Cas {
            succeeded: true,
            revision,
            ..
        } => format!("succeeded rev {revision}"),
        Response::Cas {
            succeeded: false,
            value,
            mod_revision,
            revision,
        } => format!(
            "compare failed, read {}",
            read_text(value.as_deref(), *mod_revision, *revision)
        ),
        Response::Failed { error } => format!("no answer ({error})"),
    }
}

fn read_text(value: Option<&str>, mod_revision: i64, revision: i64) -> String {
    match value {
        Some(v) => format!("{v:?} (mod rev {mod_revision}) rev {revision}"),
        None => format!("absent rev {revision}"),
    }
}
