//! RDMA devices as the connection manager sees them: `rdma_get_devices`, `rdma_free_devices`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::verbs::ibv_context;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult};
use std::ffi::c_int;

/// `rdma_get_devices(3)`: a NULL-terminated array of the RDMA devices, opened by librdmacm and kept open while it
/// is loaded (the contexts its ids use); `*num_devices` (when not NULL) gets their number. Free the array with
/// `rdma_free_devices`. Returns the array, or NULL with `errno` (`ENODEV` without devices, `ENOMEM`).
///
/// Not implemented yet: NULL with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_devices(num_devices: *mut c_int) -> *mut *mut ibv_context {
    ffi::boundary("rdma_get_devices", || -> Result<*mut *mut ibv_context> {
        Err(unsupported("rdma_get_devices"))
    })
    .or_null_errno()
}

/// `rdma_free_devices(3)`: frees an array returned by `rdma_get_devices` (the devices stay open). No return value.
///
/// Not implemented yet: only logs (nothing it could release can exist yet).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_free_devices(list: *mut *mut ibv_context) {
    unsupported("rdma_free_devices");
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_get_devices, rdma_free_devices);
