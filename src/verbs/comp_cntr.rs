//! Completion counters (rdma-core 65, `IBVERBS_1.18`): `_ibv_query_comp_cntr_caps` (behind the inline
//! `ibv_query_comp_cntr_caps`), `ibv_create_comp_cntr`, `ibv_destroy_comp_cntr`, `ibv_set_comp_cntr`,
//! `ibv_set_err_comp_cntr`, `ibv_inc_comp_cntr`, `ibv_inc_err_comp_cntr`, `ibv_read_comp_cntr`,
//! `ibv_read_err_comp_cntr`, `ibv_qp_attach_comp_cntr`. rdma-core 65 has no man page for them; its `verbs.h`
//! comments and `verbs.c` are what they follow: each hands over to the provider, which only EFA implements; rxe and
//! siw answer `EOPNOTSUPP`, as rdma-core's default does.
//!
//! Objects are checked before use (`EINVAL` for NULL or anything that is not a live counter or QP of this library,
//! where rdma-core would read through the pointer); attribute and value pointers go to the provider as given (the
//! default never reads them, so a NULL one gets `EOPNOTSUPP` on rxe as with rdma-core); a value read is written only
//! on success (`EFAULT` for a NULL destination, what the kernel answers rdma-core).
#![allow(unsafe_code)]

use crate::object::{registry, Context, Kind};
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::c_int;

/// `_ibv_query_comp_cntr_caps` (what the inline `ibv_query_comp_cntr_caps` calls with `sizeof(*caps)`, 16 in
/// rdma-core 65): zeroes `caps_size` bytes at `caps`, then asks the provider for the counters' capabilities.
///
/// Returns 0, or a positive errno: `EOPNOTSUPP` without counters (rxe, siw; `caps` is zeroed all the same),
/// `EINVAL` for a NULL context or a NULL `caps` with a size (`EBADF` for a context that is not open), the
/// provider's (rdma-core's command refuses a size below 16 with `EINVAL`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_comp_cntr_caps(
    context: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> c_int {
    ffi::boundary("_ibv_query_comp_cntr_caps", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        if caps_size > 0 {
            let c = ffi::nonnull(caps)?;
            // SAFETY: the caller's struct of `caps_size` bytes.
            unsafe { std::ptr::write_bytes(c.as_ptr().cast::<u8>(), 0, caps_size) };
        }
        // SAFETY: a live context; the caller's buffer.
        unsafe { ctx.provider.query_comp_cntr_caps(ctx.ibv(), caps, caps_size) }
    })
    .ret_errno()
}

/// `ibv_create_comp_cntr`: creates a completion counter on `context` as `cc_attr` describes (`comp_mask`, `type`:
/// `enum ibv_comp_cntr_type`, `flags`).
///
/// Returns the counter, or NULL with `errno` set: `EOPNOTSUPP` without counters (rxe, siw), `EINVAL` for a NULL
/// context (`EBADF`: not open), the provider's or kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_comp_cntr(
    context: *mut ibv_context,
    cc_attr: *mut ibv_comp_cntr_init_attr,
) -> *mut ibv_comp_cntr {
    ffi::boundary("ibv_create_comp_cntr", || -> Result<*mut ibv_comp_cntr> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        // SAFETY: a live context; the caller's attributes.
        let cc = unsafe { ctx.provider.create_comp_cntr(ctx.ibv(), cc_attr) }?;
        registry::insert(cc, Kind::CompCntr);
        Ok(cc)
    })
    .or_null_errno()
}

/// A live counter and its context.
unsafe fn counter<'a>(cc: *mut ibv_comp_cntr) -> Result<(*mut ibv_comp_cntr, &'a Context)> {
    // SAFETY: forwarded.
    unsafe { super::object(cc, Kind::CompCntr) }
}

/// `ibv_destroy_comp_cntr`: destroys a completion counter (detached from its QPs by their destruction).
///
/// Returns 0, or a positive errno: `EINVAL` for anything that is not a live counter, the provider's or kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int {
    ffi::boundary("ibv_destroy_comp_cntr", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (cc, ctx) = unsafe { counter(comp_cntr) }?;
        registry::destroy_with(cc, Kind::CompCntr, || {
            // SAFETY: a live counter of this context.
            unsafe { ctx.provider.destroy_comp_cntr(cc) }
        })
    })
    .ret_errno()
}

/// The four writes of a counter: which count, set or add.
fn modify(name: &'static str, cc: *mut ibv_comp_cntr, v: u64, err: bool, inc: bool) -> c_int {
    ffi::boundary(name, || -> Result<()> {
        // SAFETY: entry-point contract.
        let (cc, ctx) = unsafe { counter(cc) }?;
        let p = ctx.provider;
        // SAFETY: a live counter of this context.
        unsafe {
            match (err, inc) {
                (false, false) => p.set_comp_cntr(cc, v),
                (true, false) => p.set_err_comp_cntr(cc, v),
                (false, true) => p.inc_comp_cntr(cc, v),
                (true, true) => p.inc_err_comp_cntr(cc, v),
            }
        }
    })
    .ret_errno()
}

/// `ibv_set_comp_cntr`: sets the completion count to `value`. 0, or a positive errno: `EINVAL` for an invalid
/// counter, the provider's or kernel's (`EOPNOTSUPP` on rxe and siw, which have no counters).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    modify("ibv_set_comp_cntr", comp_cntr, value, false, false)
}

/// `ibv_set_err_comp_cntr`: sets the error count to `value`. Errors as `ibv_set_comp_cntr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    modify("ibv_set_err_comp_cntr", comp_cntr, value, true, false)
}

/// `ibv_inc_comp_cntr`: adds `amount` to the completion count. Errors as `ibv_set_comp_cntr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    modify("ibv_inc_comp_cntr", comp_cntr, amount, false, true)
}

/// `ibv_inc_err_comp_cntr`: adds `amount` to the error count. Errors as `ibv_set_comp_cntr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_inc_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    modify("ibv_inc_err_comp_cntr", comp_cntr, amount, true, true)
}

/// The two reads of a counter.
fn read(name: &'static str, cc: *mut ibv_comp_cntr, value: *mut u64, err: bool) -> c_int {
    ffi::boundary(name, || -> Result<()> {
        // SAFETY: entry-point contract.
        let (cc, ctx) = unsafe { counter(cc) }?;
        // SAFETY: a live counter of this context.
        let v = unsafe {
            match err {
                false => ctx.provider.read_comp_cntr(cc),
                true => ctx.provider.read_err_comp_cntr(cc),
            }
        }?;
        let out = ffi::nonnull(value).map_err(|_| Errno::EFAULT)?;
        // SAFETY: the caller's destination.
        unsafe { out.as_ptr().write(v) };
        Ok(())
    })
    .ret_errno()
}

/// `ibv_read_comp_cntr`: writes the completion count to `*value`. 0, or a positive errno: `EINVAL` for an invalid
/// counter, `EFAULT` for a NULL `value`, the provider's or kernel's (`EOPNOTSUPP` on rxe and siw).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int {
    read("ibv_read_comp_cntr", comp_cntr, value, false)
}

/// `ibv_read_err_comp_cntr`: writes the error count to `*value`. Errors as `ibv_read_comp_cntr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int {
    read("ibv_read_err_comp_cntr", comp_cntr, value, true)
}

/// `ibv_qp_attach_comp_cntr`: makes `comp_cntr` count the operations `attr->op_mask` names
/// (`enum ibv_qp_attach_comp_cntr_op` bits) on `qp`.
///
/// Returns 0, or a positive errno: `EINVAL` for an invalid QP, a non-NULL pointer that is not a live counter, or a
/// QP and counter of two contexts; the provider's or kernel's (`EOPNOTSUPP` on rxe and siw, also for a NULL
/// counter or `attr`, as rdma-core 65 there).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_qp_attach_comp_cntr(
    qp: *mut ibv_qp,
    comp_cntr: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> c_int {
    ffi::boundary("ibv_qp_attach_comp_cntr", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        // NULL goes to the provider as rdma-core hands it on (its default answers EOPNOTSUPP without reading it).
        if !comp_cntr.is_null() {
            // SAFETY: as above.
            let (_, cctx) = unsafe { counter(comp_cntr) }?;
            super::same_context(ctx, cctx)?;
        }
        // SAFETY: live objects of this context (or a NULL counter); the caller's attributes.
        unsafe { ctx.provider.qp_attach_comp_cntr(qp, comp_cntr, attr) }
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    _ibv_query_comp_cntr_caps, ibv_create_comp_cntr, ibv_destroy_comp_cntr, ibv_set_comp_cntr,
    ibv_set_err_comp_cntr, ibv_inc_comp_cntr, ibv_inc_err_comp_cntr, ibv_read_comp_cntr, ibv_read_err_comp_cntr,
    ibv_qp_attach_comp_cntr,
);
