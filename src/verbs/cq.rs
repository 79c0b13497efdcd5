//! Completion queues and completion channels (`ibv_create_cq(3)`, `ibv_create_cq_ex(3)`, `ibv_resize_cq(3)`,
//! `ibv_destroy_cq(3)`, `ibv_get_cq_event(3)`, `ibv_ack_cq_events(3)`, `ibv_create_comp_channel(3)`). Polling and
//! arming go through the context's ops table (`ibv_poll_cq(3)`, `ibv_req_notify_cq(3)` and the `ibv_cq_ex`
//! polling functions are inline).
//!
//! As rdma-core: a CQ counts the completion events `ibv_get_cq_event(3)` returned and the async events
//! `ibv_get_async_event(3)` returned for it as they are acknowledged; `ibv_destroy_cq(3)` waits until those counts
//! reach what the kernel reports having delivered. A completion channel counts the CQs using it.
#![allow(unsafe_code)]

use crate::kernel::{self, Uverbs};
use crate::object::stats::Kind as StatsKind;
use crate::object::{self, registry, CompChannel, Context, Kind, Pending};
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_int, c_uint, c_void};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::ptr::addr_of_mut;

/// `ibv_create_comp_channel(3)`: creates a completion event channel (a file descriptor, `channel->fd`, that CQs
/// created with it report events to; it can be made non-blocking and polled).
///
/// Returns NULL with `errno` set on failure: `EINVAL` for NULL or a NULL context (`EBADF`: closed or unknown); the kernel's (`EMFILE`,
/// ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel {
    ffi::boundary("ibv_create_comp_channel", || -> Result<*mut ibv_comp_channel> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let fd = kernel::comp_channel::create_comp_channel(&Uverbs::new(ctx.fd(), ctx.driver_id))?;
        let mut obj = Pending::<CompChannel>::new();
        let p = obj.as_ptr();
        // SAFETY: filling our zeroed allocation.
        let ch = unsafe {
            (*p).ch.context = ctx.ibv();
            (*p).ch.fd = fd.as_raw_fd();
            (*p).ch.refcnt = 0;
            addr_of_mut!((*p).fd).write(fd);
            obj.finish();
            &raw mut (*p).ch
        };
        registry::insert(ch, Kind::CompChannel);
        Ok(ch)
    })
    .or_null_errno()
}

/// `ibv_destroy_comp_channel(3)`: destroys a completion channel (closing its fd) that no CQ uses any more.
///
/// Returns 0, or an errno value: `EBUSY` while CQs use it, `EINVAL` for NULL or a pointer that is not a live
/// channel of this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int {
    ffi::boundary("ibv_destroy_comp_channel", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (ch, ctx) = unsafe { super::object(channel, Kind::CompChannel) }?;
        let _g = ctx.lock.lock();
        // SAFETY: a live channel; refcnt is guarded by the context lock.
        if unsafe { (*ch).refcnt } != 0 {
            return Err(Errno::EBUSY);
        }
        if !registry::remove(ch, Kind::CompChannel) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: unregistered, no CQ refers to it: close and free.
        unsafe { object::free(ch.cast::<CompChannel>()) };
        Ok(())
    })
    .ret_errno()
}

/// Creates a CQ (rdma-core's `ibv_create_cq` / `__lib_ibv_create_cq_ex` with `verbs_init_cq`).
///
/// # Safety
/// `attr` is a readable `ibv_cq_init_attr_ex`.
unsafe fn create_cq(ctx: &Context, attr: *mut ibv_cq_init_attr_ex, extended: bool) -> Result<*mut ibv_cq_ex> {
    // SAFETY: caller's contract.
    let channel = unsafe { (*attr).channel };
    if !channel.is_null() {
        // SAFETY: entry-point contract.
        let (_, cctx) = unsafe { super::object(channel, Kind::CompChannel) }?;
        super::same_context(ctx, cctx)?;
    }
    // SAFETY: the objects were checked live and of this context, the attribute pointer non-NULL.
    let cqx = unsafe { ctx.device.driver.create_cq(ctx, attr, extended) }?;
    // SAFETY: a live CQ of this context, not yet handed out.
    unsafe { super::stats::object_created(ctx.ibv(), cqx.cast(), StatsKind::Cq, (*cqx).handle, extended) };
    registry::insert(cqx, Kind::Cq);
    Ok(cqx)
}

/// `ibv_create_cq(3)`: creates a completion queue of at least `cqe` entries (`cq->cqe` gets the actual size);
/// `cq_context` is returned with its events, which go to `channel` (may be NULL) on completion vector
/// `comp_vector` (below `context->num_comp_vectors`).
///
/// Returns NULL with `errno` set on failure: `EINVAL` for a NULL context (`EBADF`: closed or unknown) or channel (or one of another
/// context), a `cqe` below 1 or above the device's `max_cqe`, a bad `comp_vector` (the kernel's); `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> *mut ibv_cq {
    ffi::boundary("ibv_create_cq", || -> Result<*mut ibv_cq> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        let mut attr = ibv_cq_init_attr_ex {
            cqe: cqe as u32,
            cq_context,
            channel,
            comp_vector: comp_vector as u32,
            wc_flags: 0,
            comp_mask: 0,
            flags: 0,
            parent_domain: std::ptr::null_mut(),
        };
        // SAFETY: a local attribute struct.
        unsafe { create_cq(ctx, &mut attr, false) }.map(|c| c.cast())
    })
    .or_null_errno()
}

/// `verbs_context.create_cq_ex`, what the inline `ibv_create_cq_ex(3)` calls: an extended CQ reporting the
/// `wc_flags` asked for through its `ibv_cq_ex` polling functions.
///
/// Returns NULL with `errno` set: `EOPNOTSUPP` for `wc_flags` outside `IBV_CREATE_CQ_SUP_WC_FLAGS` or that the
/// provider cannot report (rxe: timestamps, CVLAN, flow tag, TM), or unknown `comp_mask` bits; otherwise as
/// `ibv_create_cq(3)`.
pub(crate) unsafe extern "C" fn create_cq_ex_op(
    context: *mut ibv_context,
    cq_attr: *mut ibv_cq_init_attr_ex,
) -> *mut ibv_cq_ex {
    ffi::boundary("ibv_create_cq_ex", || -> Result<*mut ibv_cq_ex> {
        // SAFETY: op contract.
        let ctx = unsafe { super::ctx(context) }?;
        let attr = ffi::nonnull(cq_attr)?.as_ptr();
        // SAFETY: the caller's attribute struct.
        if unsafe { (*attr).wc_flags } & !IBV_CREATE_CQ_SUP_WC_FLAGS != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: as above.
        unsafe { create_cq(ctx, attr, true) }
    })
    .or_null_errno()
}

/// `verbs_context.modify_cq`, what the inline `ibv_modify_cq(3)` calls (CQ moderation). Soft-RoCE has none:
/// `EOPNOTSUPP`, as rdma-core; `EINVAL` for an invalid CQ or NULL `attr`.
pub(crate) unsafe extern "C" fn modify_cq_op(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int {
    super::op_errno("ibv_modify_cq", || {
        // SAFETY: op contract.
        let (cq, ctx) = unsafe { super::cq(cq) }?;
        ffi::nonnull(attr)?;
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.modify_cq(cq, attr) }
    })
}

/// `ibv_resize_cq(3)`: resizes a CQ to at least `cqe` entries; `cq->cqe` gets the new size. Completions not yet
/// polled are kept.
///
/// Returns 0, or an errno value: `EINVAL` for an invalid CQ, or a `cqe` below the number of completions the CQ
/// holds or above the device's limit (the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int {
    ffi::boundary("ibv_resize_cq", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (cq, ctx) = unsafe { super::cq(cq) }?;
        // SAFETY: a live CQ object.

        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.resize_cq(cq, cqe) }
    })
    .ret_errno()
}

/// `ibv_destroy_cq(3)`: destroys a CQ; first waits until every event the kernel delivered for it was
/// acknowledged (`ibv_ack_cq_events(3)`, `ibv_ack_async_event(3)`).
///
/// Returns 0, or an errno value: `EBUSY` while QPs or SRQs use it (the kernel's), `EINVAL` for NULL,
/// `ENOENT` for a pointer that is not a live CQ of this library (what the kernel answers rdma-core).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int {
    ffi::boundary("ibv_destroy_cq", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (cq, ctx) =
            unsafe { super::object_dying(cq, Kind::Cq) }.map_err(|e| super::unknown_handle(cq, e, Errno::ENOENT))?;
        registry::destroy_begun(cq, Kind::Cq, || {
            // SAFETY: checked live and of this context; dying, so only event acknowledgements still reach it.
            unsafe { ctx.device.driver.destroy_cq(ctx, cq) }?;
            super::stats::object_destroyed(cq.cast());
            Ok(())
        })
    })
    .ret_errno()
}

/// `ibv_get_cq_event(3)`: waits for the next completion event of `channel` (or, with its fd non-blocking, takes
/// one if present) and stores the CQ and that CQ's `cq_context` in `*cq` and `*cq_context`. Each event must be
/// acknowledged with `ibv_ack_cq_events(3)`; the CQ must be re-armed with `ibv_req_notify_cq(3)` for the next.
///
/// Returns 0, or -1 with `errno` set: `EAGAIN` (non-blocking, none pending), `EINTR`, `EINVAL` for NULL
/// pointers, `EBADF` for a channel that is not a live one of this library (destroyed or garbage: what `read` on
/// its fd answers rdma-core), `EIO` for a short read.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn ibv_get_cq_event(
    channel: *mut ibv_comp_channel,
    cq: *mut *mut ibv_cq,
    cq_context: *mut *mut c_void,
) -> c_int {
    const NAME: &str = "ibv_get_cq_event";
    // The read blocks outside the boundaries, from this frame holding plain values only: a thread waiting in it
    // may be cancelled (rdma_common::ffi's notes on thread cancellation).
    let fd = ffi::boundary(NAME, || -> Result<RawFd> {
        // SAFETY: entry-point contract.
        let (ch, _) = unsafe { super::object(channel, Kind::CompChannel) }
            .map_err(|e| super::unknown_handle(channel, e, Errno::EBADF))?;
        ffi::nonnull(cq)?;
        ffi::nonnull(cq_context)?;
        // SAFETY: a live channel.
        Ok(unsafe { (*ch).fd })
    });
    let ev = fd.and_then(|fd| {
        // SAFETY: the fd of a live channel (destroying a channel another thread waits on is the caller's error, as
        // in rdma-core).
        kernel::comp_channel::read_comp_event(unsafe { BorrowedFd::borrow_raw(fd) })
    });
    ev.and_then(|ev| {
        ffi::boundary(NAME, || -> Result<c_int> {
            let c = ev.cq_handle as usize as *mut ibv_cq;
            if c.is_null() {
                return Err(Errno::EIO);
            }
            // SAFETY: the kernel echoes the user_handle of a CQ that cannot be destroyed before this event is
            // acknowledged; the out pointers are the caller's, checked above.
            unsafe {
                cq.write(c);
                cq_context.write((*c).cq_context);
                if let Ok(ctx) = Context::from_ibv((*c).context) {
                    ctx.provider.cq_event(c);
                }
                super::stats::comp_event(c);
            }
            Ok(0)
        })
    })
    .or_minus_one_errno()
}

/// `ibv_ack_cq_events(3)`: acknowledges `nevents` events of `cq` returned by `ibv_get_cq_event(3)` (one call for
/// several is cheaper: it takes the CQ's mutex).
///
/// NULL and pointers that are not CQs of this library (live, or being destroyed) are ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_ack_cq_events(cq: *mut ibv_cq, nevents: c_uint) {
    let _ = ffi::boundary("ibv_ack_cq_events", || -> Result<()> {
        // A CQ being destroyed still takes acknowledgements: its destroy waits for them.
        if cq.is_null() || !registry::contains_or_dying(cq, Kind::Cq) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a live CQ; its mutex and cond were initialised at creation.
        unsafe {
            object::ack_events(
                addr_of_mut!((*cq).mutex),
                addr_of_mut!((*cq).cond),
                addr_of_mut!((*cq).comp_events_completed),
                nevents,
            )
        };
        Ok(())
    });
}

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_create_comp_channel, ibv_destroy_comp_channel, ibv_create_cq, ibv_resize_cq, ibv_destroy_cq,
    ibv_get_cq_event, ibv_ack_cq_events,
);
