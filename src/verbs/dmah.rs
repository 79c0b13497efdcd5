//! DMA handles (rdma-core 65, `IBVERBS_1.15`): `ibv_alloc_dmah`, `ibv_dealloc_dmah`. A handle carries TPH
//! steering hints (CPU, processing hint, memory type) that `ibv_reg_mr_ex` attaches to a memory region
//! (`IBV_REG_MR_MASK_DMAH`). rdma-core 65 has no man page for them; its `verbs.h` and `verbs.c` are what they follow.
//! Only mlx5 implements them; rxe and siw answer `EOPNOTSUPP`, as rdma-core's default does.
#![allow(unsafe_code)]

use crate::object::{registry, Context, Kind};
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::c_int;

/// `ibv_alloc_dmah` (rdma-core 65): allocates a DMA handle on `context` with the hints of `attr`
/// (`comp_mask`: `enum ibv_dmah_init_attr_mask` bits naming `cpu_id`, `ph`, `tph_mem_type`).
///
/// Returns the handle, or NULL with `errno` set: `EOPNOTSUPP` where the provider has none (rxe, siw: rdma-core 65's
/// default), `EINVAL` for NULL (`EBADF` for a context that is not open), the provider's or kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_dmah(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah {
    ffi::boundary("ibv_alloc_dmah", || -> Result<*mut ibv_dmah> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        // SAFETY: a live context; `attr` is the caller's, handed on as rdma-core does.
        let d = unsafe { ctx.provider.alloc_dmah(ctx.ibv(), attr) }?;
        registry::insert(d, Kind::Dmah);
        Ok(d)
    })
    .or_null_errno()
}

/// `ibv_dealloc_dmah` (rdma-core 65): frees a DMA handle (no memory region may still use it).
///
/// Returns 0, or a positive errno: `EINVAL` for anything that is not a live handle of this library, the provider's
/// or kernel's (`EBUSY` while a memory region uses it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_dmah(dmah: *mut ibv_dmah) -> c_int {
    ffi::boundary("ibv_dealloc_dmah", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (dmah, ctx) = unsafe { super::object(dmah, Kind::Dmah) }?;
        registry::destroy_with(dmah, Kind::Dmah, || {
            // SAFETY: a live handle of this context.
            unsafe { ctx.provider.dealloc_dmah(dmah) }
        })
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_alloc_dmah, ibv_dealloc_dmah);
