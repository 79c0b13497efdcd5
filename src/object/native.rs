//! The object level of the native (Rust) providers: [`Native`], their [`Driver`].
//!
//! A native provider implements the fine-grained verbs of [`Provider`] on objects allocated here: each object is
//! our struct (public C struct first, [`super`]) allocated at its final address before the kernel creates it; the
//! provider fills what the kernel returns and hands back its state; this module then fills the generic fields
//! rdma-core's libibverbs fills (`context`, `pd`, `cq_context`, `state`, the event counters and their mutex/cond)
//! and, on destroy, waits until every event the kernel reported was acknowledged before freeing. A native context
//! is assembled here too (uverbs fd, GET_CONTEXT, our `verbs_context` with the provider's data path). A plug-in
//! (`crate::plugin`) is the other [`Driver`]: its objects are allocated by the plug-in, and the same generic fields
//! are filled by the `ibv_cmd_*` it calls ([`init_cq`], [`finish_destroyed_cq`], [`finish_destroyed`] serve both),
//! as in rdma-core.
//!
//! The entry-point layer has checked every object pointer (live, of the context) before calling these, and does
//! the registry bookkeeping around them.
//!
//! # Safety
//! Every function: the pointers are what the entry-point layer passes (live objects of `ctx`, attribute structs
//! readable and writable as their C prototypes imply).
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::driver::Driver;
use super::{
    all_acked, destroy_sync, free, init_sync, stats, wait_events, Ah, Context, Cq, Device, Mr, Mw, Objects, Pd,
    Pending, Qp, Srq,
};
use crate::kernel;
use crate::provider::verbs::*;
use crate::provider::{self, DeviceMatch, Provider};
use parking_lot::Mutex;
use rdma_common::abi::driver::VERBS_QP_EX;
use rdma_common::abi::enums::*;
use rdma_common::errno::Result;
use rdma_common::ffi;
use rdma_common::Errno;
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::os::fd::{AsFd, AsRawFd, IntoRawFd};
use std::ptr::{addr_of, addr_of_mut};

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

/// rdma-core's `set_qp` for the `ibv_qp` of a new QP (native or plug-in): the user context, `pd`, the CQs and
/// SRQ, the type, the RESET state, the event counter and the mutex/cond. `context` and the `verbs_qp` fields
/// (`comp_mask`, `xrcd`) are each caller's.
pub unsafe fn init_qp(qp: *mut ibv_qp, a: &ibv_qp_init_attr_ex, pd: *mut ibv_pd) {
    // SAFETY: a QP under construction, not yet visible to any other thread.
    unsafe {
        (*qp).qp_context = a.qp_context;
        (*qp).pd = pd;
        (*qp).send_cq = a.send_cq;
        (*qp).recv_cq = a.recv_cq;
        (*qp).srq = a.srq;
        ffi::enum_store(addr_of_mut!((*qp).qp_type), ffi::enum_raw(addr_of!(a.qp_type)));
        ffi::enum_store(addr_of_mut!((*qp).state), IBV_QPS_RESET);
        (*qp).events_completed = 0;
        init_sync(addr_of_mut!((*qp).mutex), addr_of_mut!((*qp).cond));
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

/// A native context as allocated: our `verbs_context` (rdma-core 65's layout, `context` last, which C gets) and our
/// state, in one allocation (a plug-in context has its own `verbs_context` and allocates only the [`Context`]).
#[repr(C)]
pub struct NativeContext {
    pub vctx: verbs_context,
    pub ctx: Context,
}

const _: () = assert!(std::mem::offset_of!(NativeContext, vctx) == 0);

/// The object level of every native (Rust) provider: our objects, assembled here around the fine-grained verbs of
/// the device's provider (`Device.provider`, `Context.provider`). One for all of them: it keeps no state.
pub struct Native;

static NATIVE: Native = Native;

/// The native provider that drives `dev`, if any ([`provider::select_native`] for the object layer), as the pair
/// the device keeps: its object level and its fine-grained verbs.
pub fn select(dev: &DeviceMatch<'_>) -> Option<(&'static dyn Driver, &'static dyn Provider)> {
    provider::select_native::<Objects>(dev).map(|p| (&NATIVE as &'static dyn Driver, p))
}

impl Driver for Native {
    fn public_device(&self) -> Option<*mut ibv_device> {
        None
    }

    fn counts_doorbells(&self) -> bool {
        true
    }

    unsafe fn open_context(&self, dev: &'static Device, private_data: *mut c_void) -> Result<*mut ibv_context> {
        if !private_data.is_null() {
            return Err(Errno::EOPNOTSUPP);
        }
        let cmd_fd = kernel::open_uverbs(&dev.info.uverbs_dev_path)?;
        // RDMAV_STATS=1: the provider instantiated for the counting host (its doorbells counted).
        let provider = match stats::wanted() {
            true => provider::by_driver_name::<stats::StatsObjects>(dev.provider.name()).unwrap_or(dev.provider),
            false => dev.provider,
        };
        let kc = provider.get_context(cmd_fd.as_fd())?;
        let mut p = Pending::<NativeContext>::new();
        let n = p.as_ptr();
        // SAFETY: filling our own zeroed allocation; every field gets a valid value before `finish`.
        let ctx = unsafe {
            let c = addr_of_mut!((*n).ctx);
            let vctx = addr_of_mut!((*n).vctx);
            provider.data_path().install(&mut (*vctx).context.ops);
            let ic = addr_of_mut!((*vctx).context);
            (*ic).device = dev.public;
            (*ic).cmd_fd = cmd_fd.into_raw_fd();
            (*ic).async_fd = kc.async_fd.into_raw_fd();
            (*ic).num_comp_vectors = kc.num_comp_vectors as c_int;
            libc::pthread_mutex_init(addr_of_mut!((*ic).mutex), std::ptr::null());
            (*ic).abi_compat = __VERBS_ABI_IS_EXTENDED;
            (*vctx).sz = size_of::<verbs_context>();
            (*vctx).r#priv = c.cast();
            addr_of_mut!((*c).ibv).write(ic);
            addr_of_mut!((*c).device).write(dev);
            addr_of_mut!((*c).provider).write(provider);
            addr_of_mut!((*c).driver_id).write(provider.driver_id());
            addr_of_mut!((*c).core_support).write(kc.core_support.into());
            addr_of_mut!((*c).lock).write(Mutex::new(()));
            addr_of_mut!((*c).driver_data).write(None);
            &(*p.finish()).ctx
        };
        log::debug!(
            "ibv_open_device({}): cmd_fd {}, async_fd {}, {} completion vector(s), core_support {:#x}",
            dev.info.name,
            ctx.fd().as_raw_fd(),
            ctx.async_fd().map_or(-1, |f| f.as_raw_fd()),
            kc.num_comp_vectors,
            ctx.core_support()
        );
        Ok(ctx.ibv())
    }

    unsafe fn close_context(&self, ctx: &Context) -> Result<()> {
        // SAFETY: a native context's `Context` is the `ctx` of a `NativeContext`; no longer registered.
        unsafe {
            let context = ctx.ibv();
            libc::pthread_mutex_destroy(addr_of_mut!((*context).mutex));
            libc::close((*context).cmd_fd);
            if (*context).async_fd >= 0 {
                libc::close((*context).async_fd);
            }
            let n = std::ptr::from_ref(ctx).byte_sub(std::mem::offset_of!(NativeContext, ctx));
            free(n.cast::<NativeContext>().cast_mut());
        }
        Ok(())
    }

    /// `ibv_alloc_pd(3)`.
    unsafe fn alloc_pd(&self, ctx: &Context) -> Result<*mut ibv_pd> {
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

    /// `ibv_dealloc_pd(3)`: the kernel command, then the memory.
    unsafe fn dealloc_pd(&self, ctx: &Context, pd: *mut ibv_pd) -> Result<()> {
        // SAFETY: module contract.
        unsafe {
            ctx.provider.dealloc_pd(pd)?;
            free(pd.cast::<Pd>());
        }
        Ok(())
    }

    /// `ibv_reg_mr_iova2` (`access` already adjusted by the entry-point layer).
    unsafe fn reg_mr(
        &self,
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

    /// `ibv_reg_mr_ex` (rdma-core 65): our `Mr`, registered by the provider's `reg_mr_ex` (by default its
    /// `reg_mr`, as rdma-core 65's dummy translates).
    unsafe fn reg_mr_ex(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_mr_init_attr) -> Result<*mut ibv_mr> {
        let mut obj = Pending::<Mr>::new();
        let p = obj.as_ptr();
        // SAFETY: our zeroed allocation; every field is plain data; `attr` readable (module contract).
        unsafe {
            let mr = &raw mut (*p).mr;
            ctx.provider.reg_mr_ex(pd, mr, attr)?;
            (*mr).context = ctx.ibv();
            (*mr).pd = pd;
            (*p).access = (*attr).access;
            obj.finish();
            Ok(mr)
        }
    }

    /// `ibv_dereg_mr(3)` (the entry-point layer re-enables fork inheritance afterwards).
    unsafe fn dereg_mr(&self, ctx: &Context, mr: *mut ibv_mr) -> Result<()> {
        // SAFETY: module contract; native MRs are `Mr`s.
        unsafe {
            ctx.provider.dereg_mr(mr)?;
            free(mr.cast::<Mr>());
        }
        Ok(())
    }

    /// `ibv_alloc_mw(3)`.
    unsafe fn alloc_mw(&self, ctx: &Context, pd: *mut ibv_pd, type_: u32) -> Result<*mut ibv_mw> {
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

    /// `ibv_dealloc_mw(3)`.
    unsafe fn dealloc_mw(&self, ctx: &Context, mw: *mut ibv_mw) -> Result<()> {
        // SAFETY: module contract.
        unsafe {
            ctx.provider.dealloc_mw(mw)?;
            free(mw.cast::<Mw>());
        }
        Ok(())
    }

    /// `ibv_create_cq(3)` / `ibv_create_cq_ex(3)`, with rdma-core's `verbs_init_cq`.
    unsafe fn create_cq(
        &self,
        ctx: &Context,
        attr: *mut ibv_cq_init_attr_ex,
        extended: bool,
    ) -> Result<*mut ibv_cq_ex> {
        let mut obj = Pending::<Cq>::new();
        let p = obj.as_ptr();
        // SAFETY: our zeroed allocation; the provider filled handle and cqe (and the polling functions).
        unsafe {
            let cqx = &raw mut (*p).cq_ex;
            let st = ctx.provider.create_cq(ctx.ibv(), cqx, attr, extended)?;
            init_cq(ctx, cqx.cast(), (*attr).channel, (*attr).cq_context);
            addr_of_mut!((*p).prov).write(st);
            obj.finish();
            Ok(cqx)
        }
    }

    /// `ibv_destroy_cq(3)`.
    unsafe fn destroy_cq(&self, ctx: &Context, cq: *mut ibv_cq) -> Result<()> {
        // SAFETY: module contract; native CQs are `Cq`s.
        unsafe {
            let ev = ctx.provider.destroy_cq(cq)?;
            finish_destroyed_cq(ctx, cq, ev.comp_events_reported, ev.async_events_reported);
            super::tombstone::bury_cq(cq.cast::<Cq>());
        }
        Ok(())
    }

    /// `ibv_create_qp(3)` / the extended op, with rdma-core's generic QP fields.
    unsafe fn create_qp(&self, ctx: &Context, attr: *mut ibv_qp_init_attr_ex, extended: bool) -> Result<*mut ibv_qp> {
        let mut obj = Pending::<Qp>::new();
        let p = obj.as_ptr();
        // SAFETY: our zeroed allocation; the caller's attributes (checked by the entry-point layer).
        unsafe {
            let qpx = &raw mut (*p).qp_ex;
            let st = ctx.provider.create_qp(ctx.ibv(), qpx, attr, extended)?;
            let q = &raw mut (*qpx).qp_base;
            let a = &*attr;
            let pd = if a.comp_mask & IBV_QP_INIT_ATTR_PD != 0 { a.pd } else { std::ptr::null_mut() };
            (*q).context = ctx.ibv();
            init_qp(q, a, pd);
            addr_of_mut!((*p).comp_mask).write(if extended { VERBS_QP_EX } else { 0 });
            addr_of_mut!((*p).prov).write(st);
            obj.finish();
            Ok(q)
        }
    }

    /// `ibv_destroy_qp(3)`.
    unsafe fn destroy_qp(&self, ctx: &Context, qp: *mut ibv_qp) -> Result<()> {
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

    /// `ibv_create_srq(3)` / `ibv_create_srq_ex(3)`, with the generic SRQ fields.
    unsafe fn create_srq(
        &self,
        ctx: &Context,
        attr: *mut ibv_srq_init_attr_ex,
        extended: bool,
    ) -> Result<*mut ibv_srq> {
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

    /// `ibv_destroy_srq(3)`.
    unsafe fn destroy_srq(&self, ctx: &Context, srq: *mut ibv_srq) -> Result<()> {
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

    /// `ibv_create_ah(3)`.
    unsafe fn create_ah(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Result<*mut ibv_ah> {
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

    /// `ibv_destroy_ah(3)`.
    unsafe fn destroy_ah(&self, ctx: &Context, ah: *mut ibv_ah) -> Result<()> {
        // SAFETY: module contract; native AHs are `Ah`s.
        unsafe {
            ctx.provider.destroy_ah(ah)?;
            free(ah.cast::<Ah>());
        }
        Ok(())
    }

    unsafe fn qp_is_extended(&self, qp: *mut ibv_qp) -> bool {
        // SAFETY: native QPs are `Qp`s, whose comp_mask follows the ibv_qp_ex (rdma-core's verbs_qp).
        unsafe { (*qp.cast::<Qp>()).comp_mask & VERBS_QP_EX != 0 }
    }
}
