//! Links the binary at a fixed address where that makes it start faster (the protobuf code is built by `crates/proto`).

fn main() {
    if fixed_address_executable() {
        println!("cargo:rustc-link-arg-bin=memberctl=-no-pie");
    }
}

/// Whether the binary is linked as a fixed-address (not position-independent)
/// executable: on Linux with glibc, natively. Every command then starts
/// without the loader applying ~25 000 relocations and copying ~350 KB of
/// relocated tables per start (≈ 0.6 ms of a 3 ms `member list`), as etcd's
/// and etcdctl's own Go binaries start. Shared libraries, heap and stacks
/// are still placed at random addresses. Not with `+crt-static`: rustc then
/// links a static PIE, which `-no-pie` would turn into a fixed-address
/// executable that still asks for the dynamic loader and crashes at start;
/// a static build chooses `-C relocation-model=static` instead
/// (scripts/release.sh).
fn fixed_address_executable() -> bool {
    let var = |name: &str| std::env::var(name).ok();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .is_some_and(|features| features.split(',').any(|f| f == "crt-static"));
    var("CARGO_CFG_TARGET_OS").as_deref() == Some("linux")
        && var("CARGO_CFG_TARGET_ENV").as_deref() == Some("gnu")
        && var("TARGET") == var("HOST")
        && !crt_static
}
