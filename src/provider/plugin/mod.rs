//! rdma-core's provider plug-ins (`lib<name>-rdmav34.so`, `libmlx5.so.1`, ...) as providers of this libibverbs:
//! loading and registration, device matching, and the [`Provider`](super::Provider) that dispatches to a plug-in's
//! `verbs_context_ops`. `cmd` is the `ibv_cmd_*` half of the `IBVERBS_PRIVATE_34` interface they import.
#![allow(unsafe_code)]

pub mod cmd;

use rdma_common::abi::verbs::ibv_context;
use rdma_common::errno::Result;

/// The kernel driver id (`RDMA_DRIVER_*`) the ioctls of context `ctx` carry: what its provider (native, or a
/// plug-in through `_verbs_init_and_alloc_context`) declared. `EINVAL` if `ctx` is not a live context of ours.
///
/// # Safety
/// `ctx` is NULL or a pointer the caller got from C.
pub unsafe fn context_driver_id(ctx: *mut ibv_context) -> Result<u32> {
    // SAFETY: checked against the registry first.
    let c = unsafe { crate::object::Context::from_ibv(ctx) }?;
    Ok(c.driver_id)
}
