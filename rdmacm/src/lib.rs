//! `librdmacm.so.1`: the RDMA connection manager of rdma-core 44, in Rust, over the kernel's rdma_ucm ABI.
//!
//! * [`cm`]: the `extern "C"` `rdma_*` entry points, one file per family;
//! * [`rsocket`]: the `r*` socket calls (`rpoll` and `rselect` work on ordinary descriptors; the rest answer
//!   `EOPNOTSUPP`);
//! * `exports`: the generated `.symver` table.
//!
//! Every exported function has exactly the prototype of `rdma_common::abi::rdma_cma` / `::rsocket` (what
//! `include/rdma/*.h` declares): each file ends with `rdma_common::check_signatures!`. Entry points that are not
//! implemented yet call [`unsupported`], which logs once and yields `EOPNOTSUPP`, returned in the function's own C
//! convention (`-1` with `errno` for `int`, NULL with `errno` for pointers).
//!
//! Verbs calls go to our `libibverbs.so.1` through its exported symbols (declared in `rdma_common::abi::verbs`).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn)]
// Entry points: their safety contract is the C one, stated by the man page each cites.
#![allow(clippy::missing_safety_doc)]

pub mod cm;
pub mod compat;
pub mod rsocket;

use rdma_common::Errno;

#[cfg(not(test))]
mod exports {
    include!(concat!(env!("OUT_DIR"), "/symver.rs"));
}

/// Logs once that `what` is not implemented and returns `EOPNOTSUPP`, the project's answer for it.
#[cold]
pub(crate) fn unsupported(what: &'static str) -> Errno {
    rdma_common::logging::init("librdmacm");
    rdma_common::logging::unsupported_once(what);
    Errno::EOPNOTSUPP
}
