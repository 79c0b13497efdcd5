//! fork() support (`ibv_fork_init(3)`, `ibv_is_fork_initialized(3)`, and the `ibv_dontfork_range` /
//! `ibv_dofork_range` helpers rdma-core exports for providers). Not implemented yet.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_void};

/// `ibv_fork_init(3)`: makes memory registered afterwards safe across `fork()` (by marking it `MADV_DONTFORK`);
/// must be called before any registration.
///
/// Returns 0, or an errno value (`EINVAL` when called too late). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_fork_init() -> c_int {
    ffi::boundary("ibv_fork_init", || -> Result<()> { Err(unsupported("ibv_fork_init")) }).ret_errno()
}

/// `ibv_is_fork_initialized(3)`: whether `ibv_fork_init(3)` enabled fork support, or fork support is not needed
/// because the kernel copies DMA-pinned pages on fork.
///
/// Not implemented yet: `IBV_FORK_DISABLED` (nothing was enabled).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_is_fork_initialized() -> ibv_fork_status {
    let _ = unsupported("ibv_is_fork_initialized");
    ibv_fork_status::IBV_FORK_DISABLED
}

/// `ibv_dontfork_range`: marks the pages of `[base, base + size)` `MADV_DONTFORK` when fork support is enabled
/// (a provider helper; not declared in `verbs.h`).
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dontfork_range(base: *mut c_void, size: usize) -> c_int {
    let _ = (base, size);
    ffi::boundary("ibv_dontfork_range", || -> Result<()> { Err(unsupported("ibv_dontfork_range")) }).ret_errno()
}

/// `ibv_dofork_range`: undoes `ibv_dontfork_range` for `[base, base + size)` (a provider helper; not declared in
/// `verbs.h`).
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dofork_range(base: *mut c_void, size: usize) -> c_int {
    let _ = (base, size);
    ffi::boundary("ibv_dofork_range", || -> Result<()> { Err(unsupported("ibv_dofork_range")) }).ret_errno()
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_fork_init, ibv_is_fork_initialized, ibv_dontfork_range, ibv_dofork_range,
);
