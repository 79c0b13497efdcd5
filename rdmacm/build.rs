//! librdmacm build script: ELF symbol versions, linker arguments, and the link to our own libibverbs.
//!
//! librdmacm calls libibverbs through its exported (versioned) symbols, as rdma-core's does, so it links against
//! the libibverbs.so.1 built first (Makefile order; `RDMA_CORE_RS_LIBDIR` overrides `<root>/build/lib`).
fn main() {
    let crate_dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = crate_dir.parent().unwrap().to_path_buf();
    exports_gen::generate(&root, "librdmacm", "librdmacm.so.1");
    println!("cargo:rerun-if-env-changed=RDMA_CORE_RS_LIBDIR");
    let libdir =
        std::env::var("RDMA_CORE_RS_LIBDIR").map(std::path::PathBuf::from).unwrap_or_else(|_| root.join("build/lib"));
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib=ibverbs");
    // Keep DT_NEEDED libibverbs.so.1 even while no verbs call is linked in, as rdma-core's librdmacm has it
    // (rustc links with --as-needed; the `-as-needed` link modifier is not stable).
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-cdylib-link-arg=-L{}", libdir.display());
    println!("cargo:rustc-cdylib-link-arg=-libverbs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--as-needed");
}
