//! Code generated from `proto/`: etcd's wire API and memberctl.v1 (the
//! extension, the raft transport, fault injection and the engine's stored
//! formats). Protobuf types end in `client::convert` on the client side and in
//! `engine::server` on the engine side, except the stored formats, which
//! `engine::node` and `engine::storage` persist.

/// etcd's key-value record (`mvccpb` package).
#[allow(missing_docs, clippy::all)]
pub mod mvccpb {
    tonic::include_proto!("mvccpb");
}

/// etcd's v3 gRPC API subset (`etcdserverpb` package): Cluster, Maintenance, KV.
#[allow(missing_docs, clippy::all)]
pub mod etcdserverpb {
    tonic::include_proto!("etcdserverpb");
}

/// memberctl's own protocol: node-to-node transport and the engine's stored formats.
#[allow(missing_docs, clippy::all)]
pub mod memberctl_v1 {
    tonic::include_proto!("memberctl.v1");
}
