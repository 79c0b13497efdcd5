//! Device memory shared by another process (`ibv_import_dm(3)`). Allocation (`ibv_alloc_dm(3)`) goes through the
//! context's `verbs_context` ops, not through an exported symbol. Not implemented yet.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult};

/// `ibv_import_dm(3)`: creates a DM object for the device memory `dm_handle` of an imported context.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm {
    let _ = dm_handle;
    ffi::boundary("ibv_import_dm", || -> Result<*mut ibv_dm> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_import_dm"))
    })
    .or_null_errno()
}

/// `ibv_unimport_dm(3)`: frees a DM object from `ibv_import_dm(3)` without freeing the device memory.
///
/// NULL is ignored. Not implemented yet: logs and does nothing (no imported DM can exist).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_dm(dm: *mut ibv_dm) {
    if dm.is_null() {
        return;
    }
    let _ = ffi::boundary("ibv_unimport_dm", || -> Result<()> { Err(unsupported("ibv_unimport_dm")) });
}

crate::check_signatures!(rdma_common::abi::verbs; ibv_import_dm, ibv_unimport_dm);
