//! `librdmacm.so.1`: the RDMA connection manager of rdma-core 44, in Rust, over the kernel's rdma_ucm ABI.
//!
//! * [`cm`]: the `extern "C"` `rdma_*` entry points;
//! * [`rsocket`]: the `r*` socket calls (`rpoll` works like `poll` on plain fds; the rest answer `EOPNOTSUPP`);
//! * `exports`: the generated `.symver` table.
//!
//! Verbs calls go to our `libibverbs.so.1` through its exported symbols (declared in `rdma_common::abi::verbs`).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cm;
pub mod compat;
pub mod rsocket;

#[cfg(not(test))]
mod exports {
    include!(concat!(env!("OUT_DIR"), "/symver.rs"));
}
