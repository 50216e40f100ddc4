//! Code generated from `proto/`: etcd's wire API, memberctl.v1 (the
//! extension, the raft transport, fault injection) and memberctl.store.v1 (the
//! engine's stored formats), and etcdbackend (the records of etcd's backend
//! files, which end in `etcd_db`). Protobuf types end in `client::convert` on the client side and in
//! `engine::server` on the engine side, except the stored formats, which
//! `engine::node` and `engine::storage` persist.

/// The descriptors of every compiled protobuf file (the JSON gateway reads
/// and writes etcd's messages through them).
pub const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/descriptors.bin"));

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

/// etcd's Lock service (`v3lockpb` package).
#[allow(missing_docs, clippy::all)]
pub mod v3lockpb {
    tonic::include_proto!("v3lockpb");
}

/// etcd's Election service (`v3electionpb` package).
#[allow(missing_docs, clippy::all)]
pub mod v3electionpb {
    tonic::include_proto!("v3electionpb");
}

/// The records of etcd's backend buckets (leases, users, roles), as read
/// from etcd's snapshot files by `etcd_db` and written into the engine's.
#[allow(missing_docs, clippy::all)]
pub mod etcdbackend {
    tonic::include_proto!("etcdbackend");
}

/// memberctl's own packages, nested as their names so that generated code
/// finds the other package.
#[allow(missing_docs, clippy::all)]
pub mod memberctl {
    /// `memberctl.v1`: the Membership extension, the raft transport between
    /// members, and fault injection.
    pub mod v1 {
        tonic::include_proto!("memberctl.v1");
    }
    /// `memberctl.store.v1`: the engine's stored formats (replicated
    /// commands, configuration-change context, key-value records, member
    /// metadata, snapshot contents); only `engine::node` and
    /// `engine::storage` read and write them, and the services hand them over.
    pub mod store {
        /// Version 1 of the stored formats.
        pub mod v1 {
            tonic::include_proto!("memberctl.store.v1");
        }
    }
}

pub use memberctl::store::v1 as memberctl_store_v1;
pub use memberctl::v1 as memberctl_v1;
