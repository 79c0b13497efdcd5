//! Memory regions and windows (`ibv_reg_mr(3)`, `ibv_rereg_mr(3)`, `ibv_dereg_mr(3)`, `ibv_reg_dmabuf_mr(3)`,
//! `ibv_import_mr(3)`, and the `alloc_mw`/`dealloc_mw` ops behind the inline `ibv_alloc_mw(3)` /
//! `ibv_dealloc_mw(3)`).
//!
//! Applications compiled against `verbs.h` call `ibv_reg_mr` / `ibv_reg_mr_iova` when the access flags are a
//! compile-time constant without optional flags, and `ibv_reg_mr_iova2` otherwise (the header's inline dispatch);
//! all three behave as rdma-core's `ibv_reg_mr_iova2`: optional access flags dropped unless the kernel reported
//! `IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS`, the range marked `MADV_DONTFORK` when fork protection is on
//! (`ibv_fork_init(3)`; not for on-demand MRs), then the provider's registration.
#![allow(unsafe_code)]

use super::fork;
use crate::object::{registry, Kind, Mr};
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_int, c_uint, c_void};

/// rdma-core's `ibv_reg_mr_iova2`.
fn reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, access: c_uint) -> Result<*mut ibv_mr> {
    // SAFETY: entry-point contract.
    let (pd, ctx) = unsafe { super::pd(pd) }?;
    let mut access = access;
    if ctx.core_support() & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS == 0 {
        access &= !IBV_ACCESS_OPTIONAL_RANGE;
    }
    let odp = access & IBV_ACCESS_ON_DEMAND != 0;
    if !odp {
        fork::dontfork_range(addr, length)?;
    }
    // SAFETY: the objects were checked live and of this context.
    let mr = match unsafe { ctx.device.driver.reg_mr(ctx, pd, addr, length, iova, access as c_int) } {
        Ok(mr) => mr,
        Err(e) => {
            if !odp {
                let _ = fork::dofork_range(addr, length);
            }
            return Err(e);
        }
    };
    registry::insert(mr, Kind::Mr);
    Ok(mr)
}

/// `ibv_reg_mr(3)`: registers `length` bytes at `addr` with `access` (`enum ibv_access_flags` bits); the region's
/// I/O virtual address is `addr`. Fills `lkey`, `rkey`, `handle`, `context`, `pd`, `addr`, `length`.
///
/// Returns NULL with `errno` set on failure: `EINVAL` for NULL or a pointer that is not a live PD of this
/// library, or an implicit on-demand MR with an address; `madvise(2)`'s errno when fork protection is on; the
/// kernel's (`EFAULT` for a bad range, `EINVAL` for bad access flags, `ENOMEM`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_mr", || reg_mr(pd, addr, length, addr as u64, access as c_uint)).or_null_errno()
}

/// `ibv_reg_mr_iova(3)`: registers `length` bytes at `addr`, seen by the device at I/O virtual address `iova`.
/// Otherwise as `ibv_reg_mr(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_mr_iova", || reg_mr(pd, addr, length, iova, access as c_uint)).or_null_errno()
}

/// `ibv_reg_mr_iova2`: as `ibv_reg_mr_iova(3)` (what the header's `ibv_reg_mr` / `ibv_reg_mr_iova` inlines call
/// when the access flags are not a compile-time constant or include optional flags).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova2(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_mr_iova2", || reg_mr(pd, addr, length, iova, access)).or_null_errno()
}

/// `ibv_reg_dmabuf_mr(3)`: registers `length` bytes at `offset` of the dma-buf `fd`, seen by the device at
/// `iova`, with `access`. As rdma-core: the device's provider registers it (its `reg_dmabuf_mr` op), then the
/// generic fields are filled: `context`, `pd`, `addr` (= `offset`) and `length`. No fork protection is applied
/// (the memory is not the process's).
///
/// Returns NULL with `errno` set: `EINVAL` for NULL or a pointer that is not a live PD of this library;
/// `EOPNOTSUPP` for a provider without the op (rxe and siw, native or rdma-core's plug-ins, as with rdma-core,
/// whose rxe and siw have none either; the kernel would refuse it on them too); otherwise the provider's errno
/// (a plug-in's op: the kernel's, through `ibv_cmd_reg_dmabuf_mr`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
) -> *mut ibv_mr {
    ffi::boundary("ibv_reg_dmabuf_mr", || -> Result<*mut ibv_mr> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        // SAFETY: the PD was checked live and of this context.
        let mr = unsafe { ctx.device.driver.reg_dmabuf_mr(ctx, pd, offset, length, iova, fd, access) }?;
        // SAFETY: the driver's new MR.
        unsafe {
            (*mr).context = ctx.ibv();
            (*mr).pd = pd;
            (*mr).addr = offset as usize as *mut c_void;
            (*mr).length = length;
        }
        registry::insert(mr, Kind::Mr);
        Ok(mr)
    })
    .or_null_errno()
}

/// `ibv_rereg_mr(3)`: changes the translation (`addr`, `length`), PD and/or access of a memory region, as `flags`
/// (`enum ibv_rereg_mr_flags`) selects.
///
/// Returns 0, or a negative `enum ibv_rereg_mr_err_code` with `errno` set, as rdma-core:
/// `IBV_REREG_MR_ERR_INPUT` (`EINVAL`: invalid MR or PD, unknown flags, a new translation without address or
/// length, access flags without `IBV_REREG_MR_CHANGE_ACCESS`; the region is unchanged),
/// `IBV_REREG_MR_ERR_DONT_FORK_NEW`, `IBV_REREG_MR_ERR_CMD` (the provider or kernel refused: Soft-RoCE has no
/// re-registration, `EOPNOTSUPP`, as with rdma-core), `IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW`,
/// `IBV_REREG_MR_ERR_DO_FORK_OLD`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_rereg_mr(
    mr: *mut ibv_mr,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> c_int {
    let r = ffi::boundary("ibv_rereg_mr", || -> Result<std::result::Result<(), (c_int, Errno)>> {
        let input = |e| Ok(Err((IBV_REREG_MR_ERR_INPUT, e)));
        // SAFETY: entry-point contract.
        let Ok((mr, ctx)) = (unsafe { super::object(mr, Kind::Mr) }) else { return input(Errno::EINVAL) };
        if flags & !IBV_REREG_MR_FLAGS_SUPPORTED != 0 {
            return input(Errno::EINVAL);
        }
        if flags & IBV_REREG_MR_CHANGE_TRANSLATION != 0 && (length == 0 || addr.is_null()) {
            return input(Errno::EINVAL);
        }
        if access != 0 && flags & IBV_REREG_MR_CHANGE_ACCESS == 0 {
            return input(Errno::EINVAL);
        }
        if flags & IBV_REREG_MR_CHANGE_PD != 0 {
            // SAFETY: entry-point contract.
            match unsafe { super::pd(pd) } {
                Ok((_, pctx)) if std::ptr::eq(pctx, ctx) => {}
                _ => return input(Errno::EINVAL),
            }
        }
        let dofork_onfail = flags & IBV_REREG_MR_CHANGE_TRANSLATION != 0;
        if dofork_onfail && fork::dontfork_range(addr, length).is_err() {
            return Ok(Err((IBV_REREG_MR_ERR_DONT_FORK_NEW, Errno::last())));
        }
        // SAFETY: a live MR.
        let (old_addr, old_len) = unsafe { ((*mr).addr, (*mr).length) };
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        if let Err(e) = unsafe { ctx.provider.rereg_mr(mr, flags, pd, addr, length, access) } {
            let mut code = IBV_REREG_MR_ERR_CMD;
            if dofork_onfail && fork::dofork_range(addr, length).is_err() {
                code = IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
            }
            return Ok(Err((code, e)));
        }
        // SAFETY: a live MR; plain fields.
        unsafe {
            if flags & IBV_REREG_MR_CHANGE_PD != 0 {
                (*mr).pd = pd;
            }
            if flags & IBV_REREG_MR_CHANGE_ACCESS != 0 {
                (*mr.cast::<Mr>()).access = access;
            }
            if flags & IBV_REREG_MR_CHANGE_TRANSLATION != 0 {
                (*mr).addr = addr;
                (*mr).length = length;
                if let Err(e) = fork::dofork_range(old_addr, old_len) {
                    return Ok(Err((IBV_REREG_MR_ERR_DO_FORK_OLD, e)));
                }
            }
        }
        Ok(Ok(()))
    });
    match r {
        Ok(Ok(())) => 0,
        Ok(Err((code, e))) => {
            e.set();
            code
        }
        Err(e) => {
            e.set();
            IBV_REREG_MR_ERR_INPUT
        }
    }
}

/// `ibv_dereg_mr(3)`: deregisters a memory region (and, with fork protection on, lets its pages be inherited
/// again).
///
/// Returns 0, or an errno value: `EINVAL` for NULL, `ENOENT` for a pointer that is not a live MR of this
/// library (what the kernel answers rdma-core); `EBUSY`
/// while memory windows are bound to it (the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    ffi::boundary("ibv_dereg_mr", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (mr, ctx) =
            unsafe { super::object_dying(mr, Kind::Mr) }.map_err(|e| super::unknown_handle(mr, e, Errno::ENOENT))?;
        // Read before the MR is gone: every MR, native or plug-in, begins with rdma-core's `verbs_mr`.
        // SAFETY: a live MR (marked dying by us: no other destroy can free it meanwhile).
        let (vmr, addr, length) = unsafe { (mr.cast::<Mr>(), (*mr).addr, (*mr).length) };
        // SAFETY: as above.
        let (mr_type, access) = unsafe { ((*vmr).mr_type, (*vmr).access) };
        registry::destroy_begun(mr, Kind::Mr, || {
            // SAFETY: checked live and of this context.
            unsafe { ctx.device.driver.dereg_mr(ctx, mr) }
        })?;
        if mr_type == 0 && access as c_uint & IBV_ACCESS_ON_DEMAND == 0 {
            let _ = fork::dofork_range(addr, length);
        }
        Ok(())
    })
    .ret_errno()
}

/// `ibv_import_mr(3)`: creates an MR object for the memory region `mr_handle` of an imported context.
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` (no imported context can exist here, as with rdma-core on
/// Soft-RoCE), `EINVAL` for an invalid PD.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr {
    let _ = mr_handle;
    ffi::boundary("ibv_import_mr", || -> Result<*mut ibv_mr> {
        // SAFETY: entry-point contract.
        unsafe { super::pd(pd) }?;
        Err(Errno::EOPNOTSUPP)
    })
    .or_null_errno()
}

/// `ibv_unimport_mr(3)`: frees an MR object from `ibv_import_mr(3)` without deregistering the region.
///
/// No imported MR can exist here: does nothing (as rdma-core's dummy op).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_mr(mr: *mut ibv_mr) {
    let _ = mr;
}

/// `ibv_context.ops.alloc_mw`, what the inline `ibv_alloc_mw(3)` calls: allocates a memory window of `type_`
/// (`IBV_MW_TYPE_1` or `IBV_MW_TYPE_2`, taken as a number) on `pd`.
///
/// Returns NULL with `errno` set: `EINVAL` for an invalid PD or type (the kernel's for the latter), the
/// kernel's otherwise.
pub(crate) unsafe extern "C" fn alloc_mw_op(pd: *mut ibv_pd, type_: c_uint) -> *mut ibv_mw {
    ffi::boundary("ibv_alloc_mw", || -> Result<*mut ibv_mw> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        // SAFETY: the objects were checked live and of this context.
        let mw = unsafe { ctx.device.driver.alloc_mw(ctx, pd, type_) }?;
        registry::insert(mw, Kind::Mw);
        Ok(mw)
    })
    .or_null_errno()
}

/// `ibv_context.ops.dealloc_mw`, what the inline `ibv_dealloc_mw(3)` calls. Returns 0 or a positive errno
/// (`EINVAL` for an invalid MW, the kernel's).
pub(crate) unsafe extern "C" fn dealloc_mw_op(mw: *mut ibv_mw) -> c_int {
    ffi::boundary("ibv_dealloc_mw", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (mw, ctx) = unsafe { super::object(mw, Kind::Mw) }?;
        registry::destroy_with(mw, Kind::Mw, || {
            // SAFETY: checked live and of this context.
            unsafe { ctx.device.driver.dealloc_mw(ctx, mw) }
        })
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr, ibv_rereg_mr, ibv_dereg_mr, ibv_import_mr,
    ibv_unimport_mr,
);
