//! Address and route resolution: `rdma_getaddrinfo`, `rdma_freeaddrinfo`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::rdma_addrinfo;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_char, c_int};

/// `rdma_getaddrinfo(3)`: resolves `node` (host name or address) and `service` (port) under `hints` (`ai_flags`
/// `RAI_*`, family, QP type, port space; optional) into a list of `rdma_addrinfo` with source and destination
/// addresses and, unless `RAI_NOROUTE`, routing data; stores its head in `*res`. Returns 0, or -1 with `errno`
/// (rdma-core's convention; not `getaddrinfo`'s `EAI_*` codes).
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_getaddrinfo(
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
    res: *mut *mut rdma_addrinfo,
) -> c_int {
    ffi::boundary("rdma_getaddrinfo", || -> Result<c_int> {
        Err(unsupported("rdma_getaddrinfo"))
    })
    .or_minus_one_errno()
}

/// `rdma_freeaddrinfo(3)`: frees a list returned by `rdma_getaddrinfo`. No return value.
///
/// Not implemented yet: only logs (nothing it could release can exist yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_freeaddrinfo(res: *mut rdma_addrinfo) {
    unsupported("rdma_freeaddrinfo");
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_getaddrinfo, rdma_freeaddrinfo);
