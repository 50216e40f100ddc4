//! etcd's checks of KV requests before they reach raft: keys present, put
//! options consistent, transactions within the operation limit and writing
//! no key twice, writes within the size of a raft entry.

use std::collections::HashSet;

use tonic::Status;

use super::errors;
use crate::proto::etcdserverpb as epb;

/// Most operations in one branch of a transaction (etcd's `--max-txn-ops`
/// by default).
pub const DEFAULT_MAX_TXN_OPS: usize = 128;
/// Largest write request (etcd's `--max-request-bytes` by default, 1.5 MiB).
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 1536 * 1024;

/// A range request.
pub fn range(r: &epb::RangeRequest) -> Result<(), Status> {
    if r.key.is_empty() {
        return Err(errors::empty_key());
    }
    if epb::range_request::SortOrder::try_from(r.sort_order).is_err()
        || epb::range_request::SortTarget::try_from(r.sort_target).is_err()
    {
        return Err(errors::invalid_sort());
    }
    Ok(())
}

/// A put request.
pub fn put(p: &epb::PutRequest) -> Result<(), Status> {
    if p.key.is_empty() {
        return Err(errors::empty_key());
    }
    if p.ignore_value && !p.value.is_empty() {
        return Err(errors::value_provided());
    }
    if p.ignore_lease && p.lease != 0 {
        return Err(errors::lease_provided());
    }
    Ok(())
}

/// A range deletion.
pub fn delete(d: &epb::DeleteRangeRequest) -> Result<(), Status> {
    if d.key.is_empty() {
        return Err(errors::empty_key());
    }
    Ok(())
}

/// A transaction: its operations, at most `max_ops` in a branch, and no key
/// written twice.
pub fn txn(t: &epb::TxnRequest, max_ops: usize) -> Result<(), Status> {
    txn_within(t, max_ops)?;
    intervals(&t.success)?;
    intervals(&t.failure)?;
    Ok(())
}

fn txn_within(t: &epb::TxnRequest, max: usize) -> Result<(), Status> {
    use epb::request_op::Request;
    let ops = t.compare.len().max(t.success.len()).max(t.failure.len());
    if ops > max {
        return Err(errors::too_many_ops());
    }
    if t.compare.iter().any(|c| c.key.is_empty()) {
        return Err(errors::empty_key());
    }
    for op in t.success.iter().chain(&t.failure) {
        match &op.request {
            Some(Request::RequestRange(r)) => range(r)?,
            Some(Request::RequestPut(p)) => put(p)?,
            Some(Request::RequestDeleteRange(d)) => delete(d)?,
            Some(Request::RequestTxn(n)) => txn_within(n, max - ops)?,
            None => return Err(errors::key_not_found()),
        }
    }
    Ok(())
}

/// A deletion's keys: `[key, range_end)`, or the key alone.
struct Deleted(Vec<u8>, Vec<u8>);

impl Deleted {
    fn holds(&self, key: &[u8]) -> bool {
        if self.1.is_empty() {
            self.0 == key
        } else {
            self.0.as_slice() <= key && key < self.1.as_slice()
        }
    }
}

/// etcd's check that a branch puts no key twice and deletes none it puts
/// (nested transactions included; a key put in both branches of one nested
/// transaction is fine). Returns the branch's deletions and puts.
fn intervals(ops: &[epb::RequestOp]) -> Result<(Vec<Deleted>, HashSet<Vec<u8>>), Status> {
    use epb::request_op::Request;
    let mut dels: Vec<Deleted> = ops
        .iter()
        .filter_map(|op| match &op.request {
            Some(Request::RequestDeleteRange(d)) => {
                Some(Deleted(d.key.clone(), d.range_end.clone()))
            }
            _ => None,
        })
        .collect();
    let mut puts: HashSet<Vec<u8>> = HashSet::new();
    for op in ops {
        let Some(Request::RequestTxn(n)) = &op.request else {
            continue;
        };
        let (then_dels, then_puts) = intervals(&n.success)?;
        let (else_dels, else_puts) = intervals(&n.failure)?;
        for k in then_puts.iter().chain(&else_puts) {
            if puts.contains(k) || dels.iter().any(|d| d.holds(k)) {
                return Err(errors::duplicate_key());
            }
        }
        puts.extend(then_puts);
        puts.extend(else_puts);
        dels.extend(then_dels);
        dels.extend(else_dels);
    }
    for op in ops {
        let Some(Request::RequestPut(p)) = &op.request else {
            continue;
        };
        if puts.contains(&p.key) || dels.iter().any(|d| d.holds(&p.key)) {
            return Err(errors::duplicate_key());
        }
        puts.insert(p.key.clone());
    }
    Ok((dels, puts))
}

/// Whether a transaction only reads (every operation of both branches is a range).
pub fn read_only(t: &epb::TxnRequest) -> bool {
    t.success
        .iter()
        .chain(&t.failure)
        .all(|op| matches!(op.request, Some(epb::request_op::Request::RequestRange(_))))
}

/// Whether a read-only transaction may be served from local state.
pub fn serializable(t: &epb::TxnRequest) -> bool {
    t.success.iter().chain(&t.failure).all(|op| {
        matches!(&op.request, Some(epb::request_op::Request::RequestRange(r)) if r.serializable)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use epb::request_op::Request;

    fn put_op(k: &str) -> epb::RequestOp {
        epb::RequestOp {
            request: Some(Request::RequestPut(epb::PutRequest {
                key: k.into(),
                ..Default::default()
            })),
        }
    }

    fn del_op(k: &str, end: &str) -> epb::RequestOp {
        epb::RequestOp {
            request: Some(Request::RequestDeleteRange(epb::DeleteRangeRequest {
                key: k.into(),
                range_end: end.into(),
                ..Default::default()
            })),
        }
    }

    fn txn_of(success: Vec<epb::RequestOp>, failure: Vec<epb::RequestOp>) -> epb::TxnRequest {
        epb::TxnRequest {
            compare: vec![],
            success,
            failure,
        }
    }

    #[test]
    fn duplicate_keys_as_etcd_finds_them() {
        let dup = |t: epb::TxnRequest| {
            txn(&t, DEFAULT_MAX_TXN_OPS)
                .err()
                .map(|s| s.message().to_string())
        };
        let msg = Some("etcdserver: duplicate key given in txn request".to_string());
        assert_eq!(dup(txn_of(vec![put_op("a"), put_op("a")], vec![])), msg);
        assert_eq!(
            dup(txn_of(vec![put_op("b"), del_op("a", "c")], vec![])),
            msg
        );
        assert_eq!(dup(txn_of(vec![put_op("a"), put_op("b")], vec![])), None);
        // The same key in both branches, and overlapping deletions, are fine.
        assert_eq!(dup(txn_of(vec![put_op("a")], vec![put_op("a")])), None);
        assert_eq!(
            dup(txn_of(vec![del_op("a", "c"), del_op("b", "d")], vec![])),
            None
        );
        let nested = epb::RequestOp {
            request: Some(Request::RequestTxn(txn_of(
                vec![put_op("k")],
                vec![put_op("k")],
            ))),
        };
        assert_eq!(dup(txn_of(vec![nested.clone()], vec![])), None);
        assert_eq!(dup(txn_of(vec![nested, put_op("k")], vec![])), msg);
    }

    #[test]
    fn too_many_operations_and_empty_ones_are_refused() {
        let many: Vec<_> = (0..129).map(|i| put_op(&format!("k{i}"))).collect();
        let e = txn(&txn_of(many, vec![]), DEFAULT_MAX_TXN_OPS).unwrap_err();
        assert_eq!(
            e.message(),
            "etcdserver: too many operations in txn request"
        );
        let e = txn(
            &txn_of(vec![epb::RequestOp { request: None }], vec![]),
            DEFAULT_MAX_TXN_OPS,
        )
        .unwrap_err();
        assert_eq!(e.message(), "etcdserver: key not found");
        assert!(read_only(&txn_of(vec![], vec![])));
        assert!(!read_only(&txn_of(vec![put_op("a")], vec![])));
    }
}
