//! Shared receive queues (`ibv_create_srq(3)`, `ibv_create_srq_ex(3)`, `ibv_modify_srq(3)`, `ibv_query_srq(3)`,
//! `ibv_destroy_srq(3)`, `ibv_get_srq_num(3)`). Posting goes through the context's ops table
//! (`ibv_post_srq_recv(3)` is inline).
#![allow(unsafe_code)]

use crate::object::stats::Kind as StatsKind;
use crate::object::{registry, Context, Kind};
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::c_int;
use std::mem::MaybeUninit;

/// Creates an SRQ: checks the objects the attributes name, lets the provider create it, fills the generic
/// fields (`context`, `srq_context`, `pd`, the event counter).
///
/// # Safety
/// `attr` is a readable and writable `ibv_srq_init_attr_ex`.
unsafe fn create_srq(ctx: &Context, attr: *mut ibv_srq_init_attr_ex, extended: bool) -> Result<*mut ibv_srq> {
    // SAFETY (whole function): caller's contract; object pointers checked before the provider reads them.
    unsafe {
        let a = &*attr;
        if (!extended || a.comp_mask & IBV_SRQ_INIT_ATTR_PD != 0) && !a.pd.is_null() {
            super::same_context(ctx, super::pd(a.pd)?.1)?;
        }
        if extended && a.comp_mask & IBV_SRQ_INIT_ATTR_CQ != 0 && !a.cq.is_null() {
            super::same_context(ctx, super::cq(a.cq)?.1)?;
        }
        let srq = ctx.device.driver.create_srq(ctx, attr, extended)?;
        super::stats::object_created(ctx.ibv(), srq.cast(), StatsKind::Srq, (*srq).handle, false);
        registry::insert(srq, Kind::Srq);
        Ok(srq)
    }
}

/// `ibv_create_srq(3)`: creates a shared receive queue on `pd` sized by `srq_init_attr->attr` (`max_wr`,
/// `max_sge`, `srq_limit`); `max_wr` and `max_sge` get the sizes actually granted.
///
/// Returns NULL with `errno` set on failure: `EINVAL` for an invalid PD or NULL `srq_init_attr`, sizes beyond the
/// device's limits (the kernel's); `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_srq(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq {
    ffi::boundary("ibv_create_srq", || -> Result<*mut ibv_srq> {
        // SAFETY: entry-point contract.
        let (pd, ctx) = unsafe { super::pd(pd) }?;
        let ia = ffi::nonnull(srq_init_attr)?.as_ptr();
        // A zeroed ibv_srq_init_attr_ex is valid (srq_type 0 is IBV_SRQT_BASIC).
        let mut ax = MaybeUninit::<ibv_srq_init_attr_ex>::zeroed();
        let x = ax.as_mut_ptr();
        // SAFETY: the caller's attributes and our local.
        unsafe {
            (*x).srq_context = (*ia).srq_context;
            (*x).attr = (*ia).attr;
            (*x).pd = pd;
            let srq = create_srq(ctx, x, false)?;
            (*ia).attr.max_wr = (*x).attr.max_wr;
            (*ia).attr.max_sge = (*x).attr.max_sge;
            Ok(srq)
        }
    })
    .or_null_errno()
}

/// `verbs_context.create_srq_ex`, what the inline `ibv_create_srq_ex(3)` calls for anything beyond a basic SRQ on
/// a PD.
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` for unknown `comp_mask` bits or SRQ types Soft-RoCE has not (XRC,
/// tag matching: the kernel's); `EINVAL` without a PD, for an XRC SRQ without XRC domain and CQ, a TM SRQ
/// without CQ or tags; otherwise as `ibv_create_srq(3)`.
pub(crate) unsafe extern "C" fn create_srq_ex_op(
    context: *mut ibv_context,
    srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
) -> *mut ibv_srq {
    ffi::boundary("ibv_create_srq_ex", || -> Result<*mut ibv_srq> {
        // SAFETY: op contract.
        let ctx = unsafe { super::ctx(context) }?;
        let attr = ffi::nonnull(srq_init_attr_ex)?.as_ptr();
        // SAFETY: the caller's attributes.
        unsafe { create_srq(ctx, attr, true) }
    })
    .or_null_errno()
}

/// `verbs_context.get_srq_num`, what the inline `ibv_get_srq_num(3)` calls: the SRQ number of an XRC SRQ.
/// Soft-RoCE has no XRC SRQs: `EOPNOTSUPP` (as rdma-core); `EINVAL` for an invalid SRQ or NULL `srq_num`.
pub(crate) unsafe extern "C" fn get_srq_num_op(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int {
    super::op_errno("ibv_get_srq_num", || {
        // SAFETY: op contract.
        let (srq, ctx) = unsafe { super::srq(srq) }?;
        let out = ffi::nonnull(srq_num)?;
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        let n = unsafe { ctx.provider.get_srq_num(srq) }?;
        // SAFETY: the caller's u32.
        unsafe { out.as_ptr().write(n) };
        Ok(())
    })
}

/// `ibv_modify_srq(3)`: resizes an SRQ (`IBV_SRQ_MAX_WR`, if the device supports `IBV_DEVICE_SRQ_RESIZE`) and/or
/// arms its limit event (`IBV_SRQ_LIMIT`), as `srq_attr_mask` selects.
///
/// Returns 0, or an errno value: `EINVAL` for an invalid SRQ, NULL `srq_attr`, a size below the posted receives or
/// beyond the device's limit, a limit above `max_wr` (the kernel's); the `mmap(2)` errno when the resized ring
/// cannot be mapped (the SRQ then refuses receives, as rdma-core's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int) -> c_int {
    ffi::boundary("ibv_modify_srq", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (srq, ctx) = unsafe { super::srq(srq) }?;
        let attr = ffi::nonnull(srq_attr)?.as_ptr();
        // SAFETY: a live SRQ object.

        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.modify_srq(srq, attr, srq_attr_mask) }
    })
    .ret_errno()
}

/// `ibv_query_srq(3)`: reads the attributes of an SRQ (`max_wr`, `max_sge`, `srq_limit`) into `*srq_attr`.
///
/// Returns 0, or an errno value (`EINVAL` for an invalid SRQ or NULL `srq_attr`; the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int {
    ffi::boundary("ibv_query_srq", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (srq, ctx) = unsafe { super::srq(srq) }?;
        let attr = ffi::nonnull(srq_attr)?.as_ptr();
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.query_srq(srq, attr) }
    })
    .ret_errno()
}

/// `ibv_destroy_srq(3)`: destroys an SRQ; first waits until every async event the kernel delivered for it was
/// acknowledged.
///
/// Returns 0, or an errno value: `EBUSY` while QPs use it (the kernel's), `EINVAL` for NULL, `ENOENT` for a pointer
/// that is not a live SRQ of this library (what the kernel answers rdma-core).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int {
    ffi::boundary("ibv_destroy_srq", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (srq, ctx) =
            unsafe { super::object_dying(srq, Kind::Srq) }.map_err(|e| super::unknown_handle(srq, e, Errno::ENOENT))?;
        registry::destroy_begun(srq, Kind::Srq, || {
            // SAFETY: checked live and of this context; dying, so only event acknowledgements still reach it.
            unsafe { ctx.device.driver.destroy_srq(ctx, srq) }?;
            super::stats::object_destroyed(srq.cast());
            Ok(())
        })
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_create_srq, ibv_modify_srq, ibv_query_srq, ibv_destroy_srq);
