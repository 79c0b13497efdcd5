//! `libibverbs.so.1`: the verbs API of rdma-core 44, in Rust, straight over the kernel's uverbs ABI.
//!
//! Layout (see docs/architecture.md):
//! * [`verbs`]: the `extern "C"` `ibv_*` entry points, one file per object family;
//! * [`compat`]: the `@IBVERBS_1.0` compat symbols;
//! * [`private`]: the `IBVERBS_PRIVATE_34` symbols that providers (Debian's `libmlx5.so.1`, ...) import;
//! * `exports`: the generated `.symver` table that puts every symbol in its version node.
//!
//! Types, the FFI toolkit and logging come from `rdma-core-common` (`rdma_common`).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn)]
// Without the `.symver` table (feature `fuzzing`), the compat symbols it alone references look unused.
#![cfg_attr(feature = "fuzzing", allow(dead_code))]

pub mod compat;
pub mod kernel;
pub mod object;
pub mod plugin;
pub mod private;
pub mod provider;
pub mod verbs;

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

// The `.symver` directives are a `global_asm!`, which the unsafe_code lint counts.
#[cfg(not(any(test, feature = "fuzzing")))]
#[allow(unsafe_code)]
mod exports {
    include!(concat!(env!("OUT_DIR"), "/symver.rs"));
}
