//! libibverbs build script: ELF symbol versions and linker arguments (see tools/exports-gen).
fn main() {
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    exports_gen::generate(&root, "libibverbs", "libibverbs.so.1");
}
