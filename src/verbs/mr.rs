//! Memory regions (`ibv_reg_mr(3)`, `ibv_rereg_mr(3)`, `ibv_import_mr(3)`). Not implemented yet: each answers
//! `EOPNOTSUPP` in its C convention.
//!
//! Applications compiled against `verbs.h` call `ibv_reg_mr` / `ibv_reg_mr_iova` when the access flags are a
//! compile-time constant without optional flags, and `ibv_reg_mr_iova2` otherwise (the header's inline dispatch);
//! all three must behave the same apart from the address they register at.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_int, c_uint, c_void};

/// `ibv_reg_mr(3)`: registers `length` bytes at `addr` with `access` (`enum ibv_access_flags`); the region's I/O
/// virtual address is `addr`.
///
/// Returns NULL with `errno` set on failure (`EINVAL` for a NULL PD). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr {
    let _ = (addr, length, access);
    ffi::boundary("ibv_reg_mr", || -> Result<*mut ibv_mr> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_reg_mr"))
    })
    .or_null_errno()
}

/// `ibv_reg_mr_iova(3)`: registers `length` bytes at `addr`, seen by the device at I/O virtual address `iova`.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> *mut ibv_mr {
    let _ = (addr, length, iova, access);
    ffi::boundary("ibv_reg_mr_iova", || -> Result<*mut ibv_mr> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_reg_mr_iova"))
    })
    .or_null_errno()
}

/// `ibv_reg_mr_iova2`: as `ibv_reg_mr_iova(3)`, with the optional access flags (`IBV_ACCESS_OPTIONAL_RANGE`)
/// dropped when the kernel does not support them.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova2(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> *mut ibv_mr {
    let _ = (addr, length, iova, access);
    ffi::boundary("ibv_reg_mr_iova2", || -> Result<*mut ibv_mr> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_reg_mr_iova2"))
    })
    .or_null_errno()
}

/// `ibv_reg_dmabuf_mr(3)`: registers `length` bytes at `offset` of the dma-buf `fd`, seen at `iova`.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
) -> *mut ibv_mr {
    let _ = (offset, length, iova, fd, access);
    ffi::boundary("ibv_reg_dmabuf_mr", || -> Result<*mut ibv_mr> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_reg_dmabuf_mr"))
    })
    .or_null_errno()
}

/// `ibv_rereg_mr(3)`: changes the translation (`addr`, `length`), PD and/or access of a memory region, as `flags`
/// (`enum ibv_rereg_mr_flags`) selects.
///
/// Returns 0, or a negative `enum ibv_rereg_mr_err_code` with `errno` set. Not implemented yet:
/// `IBV_REREG_MR_ERR_INPUT` (the region is unchanged and still valid) with `errno = EOPNOTSUPP`; the same with
/// `EINVAL` for a NULL region or unknown flags.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_rereg_mr(
    mr: *mut ibv_mr,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> c_int {
    let _ = (pd, addr, length, access);
    let r = ffi::boundary("ibv_rereg_mr", || -> Result<()> {
        ffi::nonnull(mr)?;
        if flags & !(ibv_rereg_mr_flags::IBV_REREG_MR_FLAGS_SUPPORTED as c_int) != 0 {
            return Err(Errno::EINVAL);
        }
        Err(unsupported("ibv_rereg_mr"))
    });
    match r {
        Ok(()) => 0,
        Err(e) => {
            e.set();
            ibv_rereg_mr_err_code::IBV_REREG_MR_ERR_INPUT as c_int
        }
    }
}

/// `ibv_dereg_mr(3)`: deregisters a memory region.
///
/// Returns 0, or an errno value (`EINVAL` for NULL). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    ffi::boundary("ibv_dereg_mr", || -> Result<()> {
        ffi::nonnull(mr)?;
        Err(unsupported("ibv_dereg_mr"))
    })
    .ret_errno()
}

/// `ibv_import_mr(3)`: creates an MR object for the memory region `mr_handle` of an imported context.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr {
    let _ = mr_handle;
    ffi::boundary("ibv_import_mr", || -> Result<*mut ibv_mr> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_import_mr"))
    })
    .or_null_errno()
}

/// `ibv_unimport_mr(3)`: frees an MR object from `ibv_import_mr(3)` without deregistering the region.
///
/// NULL is ignored. Not implemented yet: logs and does nothing (no imported MR can exist).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_mr(mr: *mut ibv_mr) {
    if mr.is_null() {
        return;
    }
    let _ = ffi::boundary("ibv_unimport_mr", || -> Result<()> { Err(unsupported("ibv_unimport_mr")) });
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr, ibv_rereg_mr, ibv_dereg_mr, ibv_import_mr,
    ibv_unimport_mr,
);
