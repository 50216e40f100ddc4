//! etcd's KV wire types to the engine's stored commands, and the state
//! machine's results back to etcd's responses.

use crate::proto::etcdserverpb as epb;
use crate::proto::memberctl_store_v1 as spb;
use crate::proto::mvccpb;
use crate::storage::{Change, RangeResult, Record};
use crate::storage::{OpResult, TxnResult};

/// A range request as the state machine reads it.
pub fn range(r: &epb::RangeRequest) -> spb::Range {
    spb::Range {
        key: r.key.clone(),
        range_end: r.range_end.clone(),
        limit: r.limit,
        revision: r.revision,
        sort_order: r.sort_order,
        sort_target: r.sort_target,
        keys_only: r.keys_only,
        count_only: r.count_only,
        min_mod_revision: r.min_mod_revision,
        max_mod_revision: r.max_mod_revision,
        min_create_revision: r.min_create_revision,
        max_create_revision: r.max_create_revision,
    }
}

/// A put as the state machine applies it.
pub fn put(p: epb::PutRequest) -> spb::Put {
    spb::Put {
        key: p.key,
        value: p.value,
        lease: p.lease,
        prev_kv: p.prev_kv,
        ignore_value: p.ignore_value,
        ignore_lease: p.ignore_lease,
    }
}

/// A range deletion as the state machine applies it.
pub fn delete(d: epb::DeleteRangeRequest) -> spb::DeleteRange {
    spb::DeleteRange {
        key: d.key,
        range_end: d.range_end,
        prev_kv: d.prev_kv,
    }
}

fn compare(c: epb::Compare) -> spb::Compare {
    use epb::compare::TargetUnion;
    let (number, value) = match c.target_union {
        Some(TargetUnion::Version(n))
        | Some(TargetUnion::CreateRevision(n))
        | Some(TargetUnion::ModRevision(n))
        | Some(TargetUnion::Lease(n)) => (n, vec![]),
        Some(TargetUnion::Value(v)) => (0, v),
        None => (0, vec![]),
    };
    spb::Compare {
        result: c.result,
        target: c.target,
        key: c.key,
        range_end: c.range_end,
        number,
        value,
    }
}

fn op(o: epb::RequestOp) -> spb::Op {
    use epb::request_op::Request;
    spb::Op {
        op: o.request.map(|r| match r {
            Request::RequestRange(r) => spb::op::Op::Range(range(&r)),
            Request::RequestPut(p) => spb::op::Op::Put(put(p)),
            Request::RequestDeleteRange(d) => spb::op::Op::DeleteRange(delete(d)),
            Request::RequestTxn(t) => spb::op::Op::Txn(txn(t)),
        }),
    }
}

/// A transaction as the state machine applies it.
pub fn txn(t: epb::TxnRequest) -> spb::Txn {
    spb::Txn {
        compare: t.compare.into_iter().map(compare).collect(),
        success: t.success.into_iter().map(op).collect(),
        failure: t.failure.into_iter().map(op).collect(),
    }
}

/// A transaction of one operation.
pub fn single(o: spb::op::Op) -> spb::Txn {
    spb::Txn {
        compare: vec![],
        success: vec![spb::Op { op: Some(o) }],
        failure: vec![],
    }
}

/// A stored record as etcd's key-value.
pub fn kv(r: spb::KvRecord) -> mvccpb::KeyValue {
    mvccpb::KeyValue {
        key: r.key,
        create_revision: r.create_revision,
        mod_revision: r.mod_revision,
        version: r.version,
        value: r.value,
        lease: r.lease,
    }
}

/// A record shared with the state machine as etcd's key-value (its key and
/// value copied, as they must be for the message).
pub fn kv_shared(r: &Record) -> mvccpb::KeyValue {
    mvccpb::KeyValue {
        key: r.key.to_vec(),
        create_revision: r.create_revision,
        mod_revision: r.mod_revision,
        version: r.version,
        value: r.value.to_vec(),
        lease: r.lease,
    }
}

/// An inner response's header: the revision only, as etcd fills it.
fn inner_header(revision: i64) -> Option<epb::ResponseHeader> {
    Some(epb::ResponseHeader {
        revision,
        ..Default::default()
    })
}

/// A range result as etcd's response (the header is the caller's).
pub fn range_response(r: RangeResult, header: Option<epb::ResponseHeader>) -> epb::RangeResponse {
    epb::RangeResponse {
        header,
        kvs: r.kvs.into_iter().map(kv).collect(),
        more: r.more,
        count: r.count,
    }
}

fn response_op(r: OpResult) -> epb::ResponseOp {
    use epb::response_op::Response;
    let response = match r {
        OpResult::Range(r) => {
            let h = inner_header(r.revision);
            Response::ResponseRange(range_response(r, h))
        }
        OpResult::Put { revision, prev } => Response::ResponsePut(epb::PutResponse {
            header: inner_header(revision),
            prev_kv: prev.as_deref().map(kv_shared),
        }),
        OpResult::Delete {
            revision,
            deleted,
            prev,
        } => Response::ResponseDeleteRange(epb::DeleteRangeResponse {
            header: inner_header(revision),
            deleted,
            prev_kvs: prev.iter().map(|p| kv_shared(p)).collect(),
        }),
        OpResult::Txn(t) => {
            let h = inner_header(t.revision);
            Response::ResponseTxn(txn_response(t, h))
        }
    };
    epb::ResponseOp {
        response: Some(response),
    }
}

/// A transaction result as etcd's response (the header is the caller's).
pub fn txn_response(t: TxnResult, header: Option<epb::ResponseHeader>) -> epb::TxnResponse {
    epb::TxnResponse {
        header,
        succeeded: t.succeeded,
        responses: t.responses.into_iter().map(response_op).collect(),
    }
}

/// A change as etcd's watch event; the previous record only when asked for.
pub fn event(c: &Change, prev_kv: bool) -> mvccpb::Event {
    let kind = if c.kv.tombstone {
        mvccpb::event::EventType::Delete
    } else {
        mvccpb::event::EventType::Put
    };
    mvccpb::Event {
        r#type: kind as i32,
        kv: Some(kv_shared(&c.kv)),
        prev_kv: if prev_kv {
            c.prev.as_deref().map(kv_shared)
        } else {
            None
        },
    }
}
