//! The `ibv_*` entry points of `infiniband/verbs.h`, one file per object family.
//!
//! Every entry point follows the house shape (see `rdma_common::ffi`): check pointers first, run the body inside
//! `ffi::boundary`, and state the C return convention with one adapter. Entry points that are not implemented yet
//! call [`unsupported`], which logs once and yields `EOPNOTSUPP`.
//!
//! [`rdma_common::check_signatures!`] proves at compile time that each definition has exactly the prototype declared in
//! `rdma_common::abi::verbs` (which is what cbindgen writes into `include/infiniband/verbs.h`).
//!
//! # Safety
//! Every `unsafe extern "C"` function here is a C entry point: the caller passes what the prototype in
//! `verbs.h` (and its man page) promises, i.e. valid objects from this library and buffers of the stated sizes.
//! NULL object pointers are checked and answered with `EINVAL` (or ignored by the `void` functions).
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

pub mod ah;
pub mod async_event;
pub mod buf;
pub mod comp_cntr;
pub mod context;
pub mod cq;
pub mod device;
pub mod dm;
pub mod dmah;
pub mod explain;
pub mod fork;
pub mod marshall;
pub mod mcast;
pub mod misc;
pub mod mr;
pub mod ops;
pub mod pd;
pub mod port_speed;
pub mod qp;
pub mod srq;
pub mod stats;
pub mod sysfs;

use rdma_common::Errno;

/// Logs once that `what` is not implemented and returns `EOPNOTSUPP`, the project's answer for it.
#[cold]
pub(crate) fn unsupported(what: &'static str) -> Errno {
    rdma_common::logging::init("libibverbs");
    rdma_common::logging::unsupported_once(what);
    Errno::EOPNOTSUPP
}

// ---------------------------------------------------------------------------------------------------------------
// Resolving the objects C passes back: each is checked against the registry (live, right type) before it is
// dereferenced, then its context (live too). `EINVAL` otherwise.
// ---------------------------------------------------------------------------------------------------------------

use crate::object::{registry, Context, Kind};
use rdma_common::abi::verbs::{ibv_context, ibv_cq, ibv_pd, ibv_qp, ibv_srq};
use rdma_common::errno::Result;

/// An object of type `kind` whose public struct starts with `context: *mut ibv_context` (every verbs object does),
/// and its context.
///
/// # Safety
/// The returned reference must not outlive the context.
pub(crate) unsafe fn object<'a, T>(p: *mut T, kind: Kind) -> Result<(*mut T, &'a Context)> {
    let epoch = registry::context_epoch();
    // SAFETY: every public verbs struct begins with its context pointer.
    let (p, c) = unsafe { registry::check_with_context::<T, ibv_context>(p, kind) }?;
    // SAFETY: the registry lists `c` as a live context, found so after reading `epoch`.
    let ctx = unsafe { Context::registered(c, epoch) }?;
    Ok((p.as_ptr(), ctx))
}

/// As [`object`], for a destroy entry point: the object is also marked dying under the same registry lock
/// (`registry::check_with_context_begin_destroy`); finish with `registry::destroy_begun`.
///
/// # Safety
/// As for [`object`].
pub(crate) unsafe fn object_dying<'a, T>(p: *mut T, kind: Kind) -> Result<(*mut T, &'a Context)> {
    let epoch = registry::context_epoch();
    // SAFETY: every public verbs struct begins with its context pointer.
    let (p, c) = unsafe { registry::check_with_context_begin_destroy::<T, ibv_context>(p, kind) }?;
    // SAFETY: the registry lists `c` as a live context, found so after reading `epoch`.
    match unsafe { Context::registered(c, epoch) } {
        Ok(ctx) => Ok((p.as_ptr(), ctx)),
        Err(e) => {
            registry::abort_begun(p.as_ptr(), kind);
            Err(e)
        }
    }
}

/// A PD and its context.
pub(crate) unsafe fn pd<'a>(p: *mut ibv_pd) -> Result<(*mut ibv_pd, &'a Context)> {
    // SAFETY: forwarded.
    unsafe { object(p, Kind::Pd) }
}

/// A CQ and its context.
pub(crate) unsafe fn cq<'a>(p: *mut ibv_cq) -> Result<(*mut ibv_cq, &'a Context)> {
    // SAFETY: forwarded.
    unsafe { object(p, Kind::Cq) }
}

/// A QP and its context.
pub(crate) unsafe fn qp<'a>(p: *mut ibv_qp) -> Result<(*mut ibv_qp, &'a Context)> {
    // SAFETY: forwarded.
    unsafe { object(p, Kind::Qp) }
}

/// An SRQ and its context.
pub(crate) unsafe fn srq<'a>(p: *mut ibv_srq) -> Result<(*mut ibv_srq, &'a Context)> {
    // SAFETY: forwarded.
    unsafe { object(p, Kind::Srq) }
}

/// rdma-core's errno for a non-NULL handle our registry refused (`e`, `EINVAL`: destroyed, garbage, of another
/// type, or on a closed context): rdma-core does not check it but reads an fd or an object handle out of it and lets
/// the kernel answer, `kernel` (`EBADF` for an fd, `ENOENT` for an object handle; measured by guest case
/// 55-reliability, `tests/c/rel_errno.c`). We keep the check (no read through a dead pointer) and return that
/// errno; NULL stays `EINVAL` (rdma-core crashes on it).
pub(crate) fn unknown_handle<T>(p: *const T, e: Errno, kernel: Errno) -> Errno {
    if !p.is_null() && e == Errno::EINVAL {
        kernel
    } else {
        e
    }
}

/// `EINVAL` unless `other` (an object's context) is `ctx`: objects of two contexts cannot be combined.
pub(crate) fn same_context(ctx: &Context, other: &Context) -> Result<()> {
    if std::ptr::eq(ctx, other) {
        Ok(())
    } else {
        Err(rdma_common::Errno::EINVAL)
    }
}

/// The live context `c` of this library, for the ops' bodies (`Context::from_ibv`).
///
/// # Safety
/// As `Context::from_ibv`; the reference is used within the call.
pub(crate) unsafe fn ctx<'a>(c: *mut ibv_context) -> Result<&'a Context> {
    // SAFETY: forwarded.
    unsafe { Context::from_ibv(c) }
}

/// Runs an op body (a function of the context's ops table) inside the boundary and returns its positive errno, the
/// ops' convention. Here rather than in `ops.rs`, which installs the ops and so names their files.
pub(crate) fn op_errno(name: &'static str, body: impl FnOnce() -> Result<()>) -> std::ffi::c_int {
    use rdma_common::ffi::CResult;
    rdma_common::ffi::boundary(name, body).ret_errno()
}
