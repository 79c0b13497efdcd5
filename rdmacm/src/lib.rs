//! `librdmacm.so.1`: the RDMA connection manager of rdma-core (44's calls and 65's `RDMACM_1.4`/`RDMACM_1.5`), in
//! Rust, over the kernel's rdma_ucm ABI.
//!
//! Data flows one way: C call -> [`cm`] (pointer checks, registry look-up, rdma-core's logic) -> [`kernel`]
//! (typed rdma_ucm commands) -> `rdma_common::sys` (the `write(2)`); verbs work goes to libibverbs through `verbs`.
//!
//! * [`cm`]: the `extern "C"` `rdma_*` entry points and the library logic of each family (rdma-core's `cma.c` and
//!   `addrinfo.c`);
//! * [`kernel`]: the rdma_ucm write commands on `/dev/infiniband/rdma_cm`, byte-for-byte tested through a recording
//!   fake fd;
//! * `state`: initialisation, the devices (one verbs context and PD each, shared by the ids on it), and the
//!   registry of the objects handed to C (channels, ids, events, multicast memberships);
//! * `verbs`: the calls into libibverbs: only its exported C functions, plus Rust copies of the `verbs.h` inlines
//!   rdma-core compiles in (`ibv_create_qp_ex`, `ibv_create_srq_ex`, `ibv_open_xrcd`, `___ibv_query_port`);
//! * [`rsocket`]: the `r*` socket calls: stream rsockets over RC QPs and datagram rsockets over UD QPs with
//!   rdma-core's wire protocol, and `repoll_*`, built on the calls above;
//! * `exports`: the generated `.symver` table.
//!
//! Every exported function has exactly the prototype of `rdma_common::abi::rdma_cma` / `::rsocket` (what
//! `include/rdma/*.h` declares): each file ends with `rdma_common::check_signatures!`. Entry points that are not
//! implemented call `unsupported`, which logs once and yields `EOPNOTSUPP`, returned in the function's own C
//! convention (`-1` with `errno` for `int`, NULL with `errno` for pointers). See `docs/cm.md`.
//!
//! Verbs calls go to `libibverbs.so.1` (ours, or rdma-core's: only exported symbols are used) through the
//! declarations in `rdma_common::abi::verbs`, never through Rust paths into the ibverbs crate.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn)]
// Without the `.symver` table (feature `fuzzing`), the compat symbols it alone references look unused.
#![cfg_attr(feature = "fuzzing", allow(dead_code))]
// Entry points: their safety contract is the C one, stated by the man page each cites.
#![allow(clippy::missing_safety_doc)]

pub mod cm;
pub mod compat;
pub mod kernel;
pub mod rsocket;
mod state;
mod verbs;

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

use rdma_common::Errno;

// The `.symver` directives are a `global_asm!`, which the unsafe_code lint counts.
#[cfg(not(any(test, feature = "fuzzing")))]
#[allow(unsafe_code)]
mod exports {
    include!(concat!(env!("OUT_DIR"), "/symver.rs"));
}

/// Logs once that `what` is not implemented and returns `EOPNOTSUPP`, the project's answer for it (no caller
/// at the moment: every librdmacm call is implemented; kept for the next one that is not).
#[cold]
#[allow(dead_code)]
pub(crate) fn unsupported(what: &'static str) -> Errno {
    rdma_common::logging::init("librdmacm");
    rdma_common::logging::unsupported_once(what);
    Errno::EOPNOTSUPP
}
