//! What `libibverbs.so.1` and `librdmacm.so.1` share.
//!
//! * [`abi`]: every C-visible type, enum and constant of the installed headers, with their C names. No logic.
//!   cbindgen reads these files to generate `include/` (one file per header).
//! * [`ffi`]: the boundary toolkit: pointer checks, errno conventions, panic containment.
//! * [`log`](mod@crate::logging): `VERBS_LOG_LEVEL` / `VERBS_LOG_FILE` diagnostics through the `log` crate.
//!
//! This crate exports no symbol: the `#[no_mangle]` entry points live in the two library crates, so that linking
//! this rlib into both never duplicates an exported symbol.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

pub mod abi;
pub mod env;
pub mod errno;
pub mod ffi;
pub mod logging;
pub mod registry;
pub mod sys;
pub mod uapi;

pub use errno::Errno;
