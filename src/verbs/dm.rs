//! Device memory shared by another process (`ibv_import_dm(3)`). Allocation (`ibv_alloc_dm(3)`) goes through the
//! context's `verbs_context` ops, not through an exported symbol (Soft-RoCE has none: `EOPNOTSUPP`).
#![allow(unsafe_code)]

use crate::object::Context;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::c_int;
use std::os::fd::IntoRawFd;

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

/// `ibv_dm_export_dmabuf_fd` (rdma-core 65, `IBVERBS_1.16`): a new dma-buf file descriptor for the device memory
/// `dm` (the caller closes it).
///
/// Returns the descriptor, or -1 with `errno` set: `EOPNOTSUPP` where the provider cannot (every provider but mlx5:
/// rdma-core 65's default; no provider here has device memory), `EINVAL` for NULL, `EBADF` for a DM whose context
/// is not open; the provider's or kernel's. Device memory is allocated through the context's ops, not registered
/// here: `dm` is read as rdma-core reads it (its `context`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dm_export_dmabuf_fd(dm: *mut ibv_dm) -> c_int {
    ffi::boundary("ibv_dm_export_dmabuf_fd", || -> Result<c_int> {
        let d = ffi::nonnull(dm)?;
        // SAFETY: the caller's DM (entry-point contract); its first field is the context.
        let ctx = unsafe { Context::from_ibv((*d.as_ptr()).context) }?;
        // SAFETY: a DM of this live context.
        Ok(unsafe { ctx.provider.dm_export_dmabuf_fd(dm) }?.into_raw_fd())
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_import_dm, ibv_unimport_dm, ibv_dm_export_dmabuf_fd);
