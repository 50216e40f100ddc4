//! Compiles the protobuf definitions in the workspace's `proto/` with a vendored protoc (a fresh machine has none).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=../../proto");
    let descriptors = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("descriptors.bin");
    tonic_prost_build::configure()
        .file_descriptor_set_path(descriptors)
        .build_server(true)
        .build_client(true)
        // A snapshot's pieces are sliced out of the stream's buffers and
        // into the receiver's, not copied (a third of a catch-up's copying).
        .bytes(".memberctl.v1.SnapshotPart.chunk")
        .compile_protos(
            &[
                "../../proto/etcdserverpb/rpc.proto",
                "../../proto/memberctl/v1/raft.proto",
                "../../proto/memberctl/v1/membership.proto",
                "../../proto/memberctl/store/v1/store.proto",
                "../../proto/memberctl/v1/fault.proto",
                "../../proto/etcdbackend/backend.proto",
                "../../proto/v3lockpb/v3lock.proto",
                "../../proto/v3electionpb/v3election.proto",
            ],
            &["../../proto"],
        )?;
    Ok(())
}
