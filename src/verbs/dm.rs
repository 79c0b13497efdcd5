//! Device memory shared by another process (`ibv_import_dm(3)`). Allocation (`ibv_alloc_dm(3)`) goes through the
//! context's `verbs_context` ops, not through an exported symbol (Soft-RoCE has none: `EOPNOTSUPP`).
#![allow(unsafe_code)]

use crate::object::Context;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult};
use rdma_common::Errno;

/// `ibv_import_dm(3)`: creates a DM object for the device memory `dm_handle` of an imported context.
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` (no provider here has device memory or imports contexts; rdma-core's
/// dummy op answers the same), `EINVAL` for a NULL context (`EBADF`: closed or unknown).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm {
    let _ = dm_handle;
    ffi::boundary("ibv_import_dm", || -> Result<*mut ibv_dm> {
        // SAFETY: entry-point contract.
        unsafe { Context::from_ibv(context) }?;
        Err(Errno::EOPNOTSUPP)
    })
    .or_null_errno()
}

/// `ibv_unimport_dm(3)`: frees a DM object from `ibv_import_dm(3)` without freeing the device memory.
///
/// No imported DM can exist here: does nothing (as rdma-core's dummy op).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_dm(dm: *mut ibv_dm) {
    let _ = dm;
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_import_dm, ibv_unimport_dm);
