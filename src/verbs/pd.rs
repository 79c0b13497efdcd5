//! Protection domains (`ibv_alloc_pd(3)`, `ibv_import_pd(3)`). Not implemented yet: each answers `EOPNOTSUPP` in
//! its C convention.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::c_int;

/// `ibv_alloc_pd(3)`: allocates a protection domain on `context`.
///
/// Returns NULL with `errno` set on failure (`EINVAL` for NULL). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    ffi::boundary("ibv_alloc_pd", || -> Result<*mut ibv_pd> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_alloc_pd"))
    })
    .or_null_errno()
}

/// `ibv_dealloc_pd(3)`: frees a protection domain no object uses any more.
///
/// Returns 0, or an errno value (`EBUSY` while in use, `EINVAL` for NULL). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    ffi::boundary("ibv_dealloc_pd", || -> Result<()> {
        ffi::nonnull(pd)?;
        Err(unsupported("ibv_dealloc_pd"))
    })
    .ret_errno()
}

/// `ibv_import_pd(3)`: creates a PD object for the protection domain `pd_handle` of an imported context.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd {
    let _ = pd_handle;
    ffi::boundary("ibv_import_pd", || -> Result<*mut ibv_pd> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_import_pd"))
    })
    .or_null_errno()
}

/// `ibv_unimport_pd(3)`: frees a PD object from `ibv_import_pd(3)` without destroying the protection domain.
///
/// NULL is ignored. Not implemented yet: logs and does nothing (no imported PD can exist).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_pd(pd: *mut ibv_pd) {
    if pd.is_null() {
        return;
    }
    let _ = ffi::boundary("ibv_unimport_pd", || -> Result<()> { Err(unsupported("ibv_unimport_pd")) });
}

crate::check_signatures!(rdma_common::abi::verbs; ibv_alloc_pd, ibv_dealloc_pd, ibv_import_pd, ibv_unimport_pd);
