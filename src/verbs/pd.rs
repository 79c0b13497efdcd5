//! Protection domains (`ibv_alloc_pd(3)`, `ibv_dealloc_pd(3)`, `ibv_import_pd(3)`).
#![allow(unsafe_code)]

use crate::object::{registry, Context, Kind};
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::c_int;

/// `ibv_alloc_pd(3)`: allocates a protection domain on `context`.
///
/// Returns NULL with `errno` set on failure: `EINVAL` for NULL or a pointer that is not a live context of this
/// library; the kernel's (`ENOMEM`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    ffi::boundary("ibv_alloc_pd", || -> Result<*mut ibv_pd> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        // SAFETY: a live context.
        let pd = unsafe { ctx.device.driver.alloc_pd(ctx) }?;
        registry::insert(pd, Kind::Pd);
        Ok(pd)
    })
    .or_null_errno()
}

/// `ibv_dealloc_pd(3)`: frees a protection domain no object uses any more.
///
/// Returns 0, or an errno value: `EBUSY` while QPs, MRs, MWs, SRQs or AHs still use it (the kernel's), `EINVAL`
/// for NULL, `ENOENT` for a pointer that is not a live PD of this library (what the kernel answers rdma-core).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    ffi::boundary("ibv_dealloc_pd", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (pd, ctx) =
            unsafe { super::object_dying(pd, Kind::Pd) }.map_err(|e| super::unknown_handle(pd, e, Errno::ENOENT))?;
        registry::destroy_begun(pd, Kind::Pd, || {
            // SAFETY: checked live and of this context.
            unsafe { ctx.device.driver.dealloc_pd(ctx, pd) }
        })
    })
    .ret_errno()
}

/// `ibv_import_pd(3)`: creates a PD object for the protection domain `pd_handle` of an imported context.
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` (no context can be imported here: rxe has no
/// `import_context`, and rdma-core's dummy op answers the same), `EINVAL` for a NULL context (`EBADF`: closed or unknown).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd {
    let _ = pd_handle;
    ffi::boundary("ibv_import_pd", || -> Result<*mut ibv_pd> {
        // SAFETY: entry-point contract.
        unsafe { Context::from_ibv(context) }?;
        Err(Errno::EOPNOTSUPP)
    })
    .or_null_errno()
}

/// `ibv_unimport_pd(3)`: frees a PD object from `ibv_import_pd(3)` without destroying the protection domain.
///
/// No imported PD can exist here: does nothing (rdma-core's dummy op does nothing either).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_pd(pd: *mut ibv_pd) {
    let _ = pd;
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_alloc_pd, ibv_dealloc_pd, ibv_import_pd, ibv_unimport_pd);
