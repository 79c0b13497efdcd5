//! Every C-visible type, enum and constant of the headers we install, one module per header, with the C names.
//!
//! These files are the source cbindgen reads (`cbindgen/<header>.toml`): keep each item's shape exactly that of
//! rdma-core 44's header. Structs that C declares with anonymous unions cannot be written by cbindgen; their Rust
//! definitions here name the union members, and the C text comes from `cbindgen/*.h` fragments instead. The
//! layout test (`tests/layout`) checks all of it against the system's headers.
//!
//! Rule for C enums: fields that applications write are typed with the Rust enum (so the header says
//! `enum ibv_x`), but the library reads them only through [`crate::ffi::enum_raw`] and validates the number. Code
//! that compares or masks such numbers takes the enumerators as integers from [`enums`] (generated:
//! `use rdma_common::abi::enums::*;`), not from local copies.

pub mod driver;
pub mod enums;
pub mod ib;
pub mod ib_user_ioctl_verbs;
pub mod marshall;
pub mod opcode;
pub mod rdma_cma;
pub mod rsocket;
pub mod sa;
pub mod tm_types;
pub mod verbs;
pub mod verbs_api;
