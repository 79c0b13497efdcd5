//! How the objects of a native (Rust) provider are assembled: the object-level [`Provider`] methods' default
//! bodies (`create_*_obj` / `destroy_*_obj`).
//!
//! A native provider implements the fine-grained verbs of [`Provider`] on objects allocated here: each object is
//! our struct (public C struct first, [`super`]) allocated at its final address before the kernel creates it; the
//! provider fills what the kernel returns and hands back its state; this module then fills the generic fields
//! rdma-core's libibverbs fills (`context`, `pd`, `cq_context`, `state`, the event counters and their mutex/cond)
//! and, on destroy, waits until every event the kernel reported was acknowledged before freeing. A plug-in
//! provider (`crate::plugin`) overrides the object-level methods instead: its objects are allocated by
//! the plug-in, and the same generic fields are filled by the `ibv_cmd_*` it calls, as in rdma-core.
//!
//! The entry-point layer has checked every object pointer (live, of the context) before calling these, and does
//! the registry bookkeeping around them.
//!
//! # Safety
//! Every function: the pointers are what the entry-point layer passes (live objects of `ctx`, attribute structs
//! readable and writable as their C prototypes imply).
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::{all_acked, destroy_sync, free, init_sync, wait_events, Ah, Context, Cq, Mr, Mw, Pd, Pending, Qp, Srq};
use crate::provider::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi;
use std::ffi::{c_int, c_void};
use std::ptr::{addr_of, addr_of_mut};

const QP_INIT_ATTR_PD: u32 = ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_PD as u32;
const QPS_RESET: u32 = ibv_qp_state::IBV_QPS_RESET as u32;
/// `VERBS_QP_EX` (driver.h): the QP was created through the extended op and has an `ibv_qp_ex`.
pub const VERBS_QP_EX: u32 = 1 << 1;

/// `ibv_alloc_pd(3)` for a native provider.
pub unsafe fn alloc_pd(ctx: &Context) -> Result<*mut ibv_pd> {
    let mut obj = Pending::<Pd>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; every field is plain data.
    unsafe {
        let pd = &raw mut (*p).pd;
        ctx.provider.alloc_pd(ctx.ibv(), pd)?;
        (*pd).context = ctx.ibv();
        obj.finish();
        Ok(pd)
    }
}

/// `ibv_dealloc_pd(3)` for a native provider: the kernel command, then the memory.
pub unsafe fn dealloc_pd(ctx: &Context, pd: *mut ibv_pd) -> Result<()> {
    // SAFETY: module contract.
    unsafe {
        ctx.provider.dealloc_pd(pd)?;
        free(pd.cast::<Pd>());
    }
    Ok(())
}

/// `ibv_reg_mr_iova2` for a native provider (`access` already adjusted by the entry-point layer).
pub unsafe fn reg_mr(
    ctx: &Context,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> Result<*mut ibv_mr> {
    let mut obj = Pending::<Mr>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; every field is plain data.
    unsafe {
        let mr = &raw mut (*p).mr;
        ctx.provider.reg_mr(pd, mr, addr, length, iova, access)?;
        (*mr).context = ctx.ibv();
        (*mr).pd = pd;
        (*mr).addr = addr;
        (*mr).length = length;
        (*p).access = access;
        obj.finish();
        Ok(mr)
    }
}

/// `ibv_dereg_mr(3)` for a native provider (the entry-point layer re-enables fork inheritance afterwards).
pub unsafe fn dereg_mr(ctx: &Context, mr: *mut ibv_mr) -> Result<()> {
    // SAFETY: module contract; native MRs are `Mr`s.
    unsafe {
        ctx.provider.dereg_mr(mr)?;
        free(mr.cast::<Mr>());
    }
    Ok(())
}

/// `ibv_alloc_mw(3)` for a native provider.
pub unsafe fn alloc_mw(ctx: &Context, pd: *mut ibv_pd, type_: u32) -> Result<*mut ibv_mw> {
    let mut obj = Pending::<Mw>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; the provider stored a type the kernel accepted.
    unsafe {
        let mw = &raw mut (*p).mw;
        ctx.provider.alloc_mw(pd, mw, type_)?;
        (*mw).context = ctx.ibv();
        (*mw).pd = pd;
        obj.finish();
        Ok(mw)
    }
}

/// `ibv_dealloc_mw(3)` for a native provider.
pub unsafe fn dealloc_mw(ctx: &Context, mw: *mut ibv_mw) -> Result<()> {
    // SAFETY: module contract.
    unsafe {
        ctx.provider.dealloc_mw(mw)?;
        free(mw.cast::<Mw>());
    }
    Ok(())
}

/// `ibv_create_cq(3)` / `ibv_create_cq_ex(3)` for a native provider, with rdma-core's `verbs_init_cq`.
pub unsafe fn create_cq(ctx: &Context, attr: *mut ibv_cq_init_attr_ex, extended: bool) -> Result<*mut ibv_cq_ex> {
    let mut obj = Pending::<Cq>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; the provider filled handle and cqe (and the polling functions).
    unsafe {
        let cqx = &raw mut (*p).cq_ex;
        let st = ctx.provider.create_cq(ctx.ibv(), cqx, attr, extended)?;
        init_cq(ctx, cqx.cast(), (*attr).channel, (*attr).cq_context);
        addr_of_mut!((*p).prov).write(st);
        addr_of_mut!((*p).extended).write(extended);
        obj.finish();
        Ok(cqx)
    }
}

/// rdma-core's `verbs_init_cq`: the generic fields of a new CQ (context, channel reference, user context, event
/// counters, mutex and condition variable).
pub unsafe fn init_cq(ctx: &Context, cq: *mut ibv_cq, channel: *mut ibv_comp_channel, cq_context: *mut c_void) {
    // SAFETY: a CQ under construction; a live channel of `ctx` (its refcnt is guarded by the context's lock).
    unsafe {
        (*cq).context = ctx.ibv();
        (*cq).channel = channel;
        if !channel.is_null() {
            let _g = ctx.lock.lock();
            (*channel).refcnt += 1;
        }
        (*cq).cq_context = cq_context;
        (*cq).comp_events_completed = 0;
        (*cq).async_events_completed = 0;
        init_sync(addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond));
    }
}

/// The end of a CQ's life (native or plug-in, rdma-core's `ibv_cmd_destroy_cq` tail): waits until the events the
/// kernel reported were acknowledged, then drops the channel reference and the mutex/cond.
pub unsafe fn finish_destroyed_cq(ctx: &Context, cq: *mut ibv_cq, comp_reported: u32, async_reported: u32) {
    // SAFETY: the kernel destroyed it; acknowledgements reach it only under its mutex until the counts match.
    unsafe {
        let (m, c) = (addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond));
        wait_events(m, c, || {
            all_acked("ibv_destroy_cq (completion events)", (*cq).comp_events_completed, comp_reported)
                && all_acked("ibv_destroy_cq (async events)", (*cq).async_events_completed, async_reported)
        });
        let channel = (*cq).channel;
        if !channel.is_null() {
            let _g = ctx.lock.lock();
            (*channel).refcnt -= 1;
        }
        destroy_sync(m, c);
    }
}

/// `ibv_destroy_cq(3)` for a native provider.
pub unsafe fn destroy_cq(ctx: &Context, cq: *mut ibv_cq) -> Result<()> {
    // SAFETY: module contract; native CQs are `Cq`s.
    unsafe {
        let ev = ctx.provider.destroy_cq(cq)?;
        finish_destroyed_cq(ctx, cq, ev.comp_events_reported, ev.async_events_reported);
        super::tombstone::bury_cq(cq.cast::<Cq>());
    }
    Ok(())
}

/// `ibv_create_qp(3)` / the extended op for a native provider, with rdma-core's generic QP fields.
pub unsafe fn create_qp(ctx: &Context, attr: *mut ibv_qp_init_attr_ex, extended: bool) -> Result<*mut ibv_qp> {
    let mut obj = Pending::<Qp>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; the caller's attributes (checked by the entry-point layer).
    unsafe {
        let qpx = &raw mut (*p).qp_ex;
        let st = ctx.provider.create_qp(ctx.ibv(), qpx, attr, extended)?;
        let q = &raw mut (*qpx).qp_base;
        let a = &*attr;
        let pd = if a.comp_mask & QP_INIT_ATTR_PD != 0 { a.pd } else { std::ptr::null_mut() };
        (*q).context = ctx.ibv();
        (*q).qp_context = a.qp_context;
        (*q).pd = pd;
        (*q).send_cq = a.send_cq;
        (*q).recv_cq = a.recv_cq;
        (*q).srq = a.srq;
        ffi::enum_store(addr_of_mut!((*q).qp_type), ffi::enum_raw(addr_of!(a.qp_type)));
        ffi::enum_store(addr_of_mut!((*q).state), QPS_RESET);
        (*q).events_completed = 0;
        init_sync(addr_of_mut!((*q).mutex), addr_of_mut!((*q).cond));
        addr_of_mut!((*p).comp_mask).write(if extended { VERBS_QP_EX } else { 0 });
        addr_of_mut!((*p).prov).write(st);
        obj.finish();
        Ok(q)
    }
}

/// The end of a QP's or SRQ's life (rdma-core's `ibv_cmd_destroy_qp`/`_srq` tail): waits until the async events
/// the kernel reported were acknowledged, then drops the mutex/cond.
pub unsafe fn finish_destroyed(
    mutex: *mut libc::pthread_mutex_t,
    cond: *mut libc::pthread_cond_t,
    completed: *const u32,
    reported: u32,
) {
    // SAFETY: the kernel destroyed the object; acknowledgements touch it only under its mutex.
    unsafe {
        wait_events(mutex, cond, || all_acked("ibv_destroy_qp/srq (async events)", *completed, reported));
        destroy_sync(mutex, cond);
    }
}

/// `ibv_destroy_qp(3)` for a native provider.
pub unsafe fn destroy_qp(ctx: &Context, qp: *mut ibv_qp) -> Result<()> {
    // SAFETY: module contract; native QPs are `Qp`s.
    unsafe {
        let reported = ctx.provider.destroy_qp(qp)?;
        finish_destroyed(
            addr_of_mut!((*qp).mutex),
            addr_of_mut!((*qp).cond),
            addr_of!((*qp).events_completed),
            reported,
        );
        super::tombstone::bury_qp(qp.cast::<Qp>());
    }
    Ok(())
}

/// `ibv_create_srq(3)` / `ibv_create_srq_ex(3)` for a native provider, with the generic SRQ fields.
pub unsafe fn create_srq(ctx: &Context, attr: *mut ibv_srq_init_attr_ex, extended: bool) -> Result<*mut ibv_srq> {
    let mut obj = Pending::<Srq>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation; the caller's attributes.
    unsafe {
        let srq = &raw mut (*p).srq;
        let st = ctx.provider.create_srq(ctx.ibv(), srq, attr, extended)?;
        (*srq).context = ctx.ibv();
        (*srq).srq_context = (*attr).srq_context;
        (*srq).pd = (*attr).pd;
        (*srq).events_completed = 0;
        init_sync(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond));
        addr_of_mut!((*p).prov).write(st);
        obj.finish();
        Ok(srq)
    }
}

/// `ibv_destroy_srq(3)` for a native provider.
pub unsafe fn destroy_srq(ctx: &Context, srq: *mut ibv_srq) -> Result<()> {
    // SAFETY: module contract; native SRQs are `Srq`s.
    unsafe {
        let reported = ctx.provider.destroy_srq(srq)?;
        finish_destroyed(
            addr_of_mut!((*srq).mutex),
            addr_of_mut!((*srq).cond),
            addr_of!((*srq).events_completed),
            reported,
        );
        super::tombstone::bury_srq(srq.cast::<Srq>());
    }
    Ok(())
}

/// `ibv_create_ah(3)` for a native provider.
pub unsafe fn create_ah(ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Result<*mut ibv_ah> {
    let mut obj = Pending::<Ah>::new();
    let p = obj.as_ptr();
    // SAFETY: our zeroed allocation.
    unsafe {
        let ah = &raw mut (*p).ah;
        let st = ctx.provider.create_ah(pd, ah, attr)?;
        (*ah).context = ctx.ibv();
        (*ah).pd = pd;
        addr_of_mut!((*p).prov).write(st);
        obj.finish();
        Ok(ah)
    }
}

/// `ibv_destroy_ah(3)` for a native provider.
pub unsafe fn destroy_ah(ctx: &Context, ah: *mut ibv_ah) -> Result<()> {
    // SAFETY: module contract; native AHs are `Ah`s.
    unsafe {
        ctx.provider.destroy_ah(ah)?;
        free(ah.cast::<Ah>());
    }
    Ok(())
}
