//! The objects handed to C: the public C struct first (offset 0, asserted), then our state.
//!
//! Every object is allocated once, at its final address, before the kernel creates it (the kernel echoes that
//! address back as `user_handle` in events), and freed only after the kernel destroyed it. [`Pending`] is the
//! object under construction: zeroed memory at its final address whose provider state is written last, so a
//! failed creation frees it without running any destructor. Live objects are listed in the [`registry`].
//!
//! | C type handed out | ours |
//! |---|---|
//! | `struct ibv_device *` | [`Device`] (never freed) |
//! | `struct ibv_context *` | `&NativeContext.vctx.context` ([`native::NativeContext`]: `verbs_context`, which has `context` last, then our [`Context`]); a plug-in's own `verbs_context` |
//! | `struct ibv_pd *`, `ibv_mr *`, `ibv_mw *`, `ibv_comp_channel *` | [`Pd`], [`Mr`], [`Mw`], [`CompChannel`] |
//! | `struct ibv_cq *` = `ibv_cq_ex *` | [`Cq`] |
//! | `struct ibv_qp *` = `ibv_qp_ex *` | [`Qp`] |
//! | `struct ibv_srq *`, `ibv_ah *` | [`Srq`], [`Ah`] |
//!
//! [`Objects`] is the object layer as the providers' data path sees it (their host trait).
//!
//! Locking: the registry has its own lock; a context's `lock` guards its completion channels' `refcnt` (rdma-core
//! uses `context->mutex`); the event counters of CQs, QPs and SRQs are guarded by the objects' own public
//! `mutex`/`cond` (pthread), exactly as rdma-core does, so `ibv_destroy_*` can wait for acknowledgements. The data
//! path takes only the provider's queue locks.
#![allow(unsafe_code)]

pub mod driver;
pub mod native;
pub mod registry;
pub mod stats;
pub mod tombstone;

use crate::kernel::discover::DeviceInfo;
use crate::provider::rxe::{self, RxeAh, RxeCq, RxeQp, RxeSrq};
use crate::provider::siw::{self, SiwCq, SiwQp, SiwSrq};
use crate::provider::verbs::*;
use crate::provider::{Provider, ProviderAh, ProviderCq, ProviderHost, ProviderQp, ProviderSrq};
use parking_lot::Mutex;
use rdma_common::abi::driver::{verbs_context_34, view_34, CONTEXT_OFFSET_34};
use rdma_common::errno::Result;
use rdma_common::Errno;
use std::cell::Cell;
use std::ffi::c_int;
use std::mem::{offset_of, MaybeUninit};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

pub use driver::Driver;
pub use registry::Kind;

/// An RDMA device: `struct ibv_device` and what discovery found. Never freed (rdma-core refcounts devices; a
/// device that disappears here just leaves the list), so a `struct ibv_device *` stays valid for the process.
#[repr(C)]
pub struct Device {
    pub ibv: ibv_device,
    /// The `struct ibv_device *` handed to C: `&ibv` for a native provider, the plug-in's `verbs_device.device`
    /// for a plug-in (whose `ibv_device` fields are filled like ours).
    pub public: *mut ibv_device,
    pub info: DeviceInfo,
    /// Its driver's object level (a native provider's [`native::Native`], or a plug-in).
    pub driver: &'static dyn Driver,
    /// Its driver's fine-grained verbs.
    pub provider: &'static dyn Provider,
    /// The node GUID in host order, once known (netlink reports it; sysfs discovery reads it lazily).
    pub node_guid: Mutex<Option<u64>>,
}

// SAFETY: `public` points at process-lifetime device memory that is only read after set-up.
unsafe impl Send for Device {}
// SAFETY: as above.
unsafe impl Sync for Device {}

impl Device {
    /// The device behind a `struct ibv_device *` from C, if it is one of this library's (`EINVAL` otherwise).
    pub fn from_ibv(p: *mut ibv_device) -> Result<&'static Device> {
        let d = registry::side(p, Kind::Device)?;
        // SAFETY: a registered device's side address is its `Device`, never freed.
        Ok(unsafe { &*(d as *const Device) })
    }
}

/// An open device: our state, reached from the `struct ibv_context *` C holds through `verbs_context.priv`.
///
/// For a native provider the `verbs_context` is ours (rdma-core 65's layout) and allocated together with this
/// state ([`native::NativeContext`]: `vctx` first, `context` last in it, handed out as `&vctx.context`). For a
/// plug-in it is the plug-in's own allocation (made by `_verbs_init_and_alloc_context` inside the plug-in's wrapper
/// struct), and this state is allocated alone (72 bytes: a plug-in context carries no second `verbs_context`).
/// Either way `ibv` is the context C sees, its `verbs_context.priv` points back here, and the public
/// `cmd_fd`/`async_fd` fields hold the fds.
#[repr(C)]
pub struct Context {
    /// The `struct ibv_context *` handed to C.
    pub ibv: *mut ibv_context,
    pub device: &'static Device,
    /// The fine-grained verbs on this context's objects (for a native provider with `RDMAV_STATS` set, the
    /// provider instantiated for the counting host).
    pub provider: &'static dyn Provider,
    /// The kernel driver id (`RDMA_DRIVER_*`) ioctls on this context carry.
    pub driver_id: u32,
    /// GET_CONTEXT's `core_support` (`IB_UVERBS_CORE_SUPPORT_*`).
    pub core_support: std::sync::atomic::AtomicU64,
    /// Guards the `refcnt` of this context's completion channels (rdma-core's `context->mutex`).
    pub lock: Mutex<()>,
    /// The driver's own per-context state, if it keeps any (a plug-in: its ops table, rdma-core's
    /// `verbs_ex_private.ops`); `None` for a native provider.
    pub driver_data: Option<Box<dyn std::any::Any + Send + Sync>>,
}

// SAFETY: `ibv` points at a context that lives as long as this struct; it is only read.
unsafe impl Send for Context {}
// SAFETY: as above; the mutable state is atomic or behind `lock`.
unsafe impl Sync for Context {}

/// A protection domain.
#[repr(C)]
pub struct Pd {
    pub pd: ibv_pd,
}

/// A memory region, laid out as rdma-core's `struct verbs_mr` (what the entry-point layer reads of any MR,
/// native or plug-in; only ordinary MRs, `mr_type` 0, exist natively).
#[repr(C)]
pub struct Mr {
    pub mr: ibv_mr,
    /// `enum ibv_mr_type` (`IBV_MR_TYPE_MR` = 0).
    pub mr_type: u32,
    /// The access flags it was registered with (`ibv_dereg_mr` skips `ibv_dofork_range` for on-demand MRs).
    pub access: c_int,
}

/// A memory window.
#[repr(C)]
pub struct Mw {
    pub mw: ibv_mw,
}

/// A completion channel; `ch.fd` is `fd`, owned.
#[repr(C)]
pub struct CompChannel {
    pub ch: ibv_comp_channel,
    pub fd: OwnedFd,
}

/// A completion queue (`ibv_cq_ex` begins with the `ibv_cq` fields, so one address serves both).
#[repr(C)]
pub struct Cq {
    pub cq_ex: ibv_cq_ex,
    pub prov: ProviderCq,
    /// rxe's `ibv_cq_ex` polling cursor, beside the provider state so that every CQ has one (zeroed at creation,
    /// and so 0 for good in every CQ that is not in an rxe polling batch): see [`rxe::RxeHost::cq_cursor`].
    pub cursor: rxe::PollCursor,
}

// Heap per CQ is a `make bench` row held to rdma-core's (352-byte malloc chunk: 344 bytes of object at most). The
// unit tests' build holds test-only queue backings, so the bound is the library's.
#[cfg(not(test))]
const _: () = assert!(std::mem::size_of::<Cq>() <= 344, "a CQ no longer fits rdma-core's malloc chunk");

/// A queue pair, beginning as rdma-core 56's and 65's `struct verbs_qp` (`ibv_qp_ex` of 360 bytes, beginning with
/// `qp_base: ibv_qp`; then `comp_mask` and `xrcd`). A plug-in's QP is laid out as the rdma-core that built it says
/// (44's `ibv_qp_ex` is 352 bytes), so only native QPs are read through this struct.
#[repr(C)]
pub struct Qp {
    pub qp_ex: ibv_qp_ex,
    /// `VERBS_QP_EX` when created through the extended op: `ibv_qp_to_qp_ex(3)` answers the `ibv_qp_ex`.
    pub comp_mask: u32,
    /// rxe's `ibv_qp_ex` room counter, in the padding before `xrcd` so that every QP has one (zeroed at
    /// creation, and so 0 for good in every QP that is not in an rxe batch): see [`rxe::RxeHost::qp_wr_room`].
    pub wr_room: u32,
    /// `struct verbs_xrcd *` (never set natively).
    pub xrcd: *mut std::ffi::c_void,
    pub prov: ProviderQp,
}

// Heap per QP is a `make bench` row held to rdma-core's (480-byte malloc chunk: 472 bytes of object at most):
// `verbs_qp`'s 376 and the provider enum's 96, whose tag lives in the niche of rxe's one-byte QP type (siw's state,
// 88 bytes, lies clear of it). The unit tests' build holds test-only queue backings, so the bound is the library's.
#[cfg(not(test))]
const _: () = assert!(std::mem::size_of::<Qp>() <= 472, "a QP no longer fits rdma-core's malloc chunk");

/// A shared receive queue.
#[repr(C)]
pub struct Srq {
    pub srq: ibv_srq,
    pub prov: ProviderSrq,
}

/// An address handle.
#[repr(C)]
pub struct Ah {
    pub ah: ibv_ah,
    pub prov: ProviderAh,
}

const _: () = {
    assert!(offset_of!(Device, ibv) == 0);
    assert!(offset_of!(Pd, pd) == 0);
    assert!(offset_of!(Mr, mr) == 0);
    assert!(offset_of!(Mw, mw) == 0);
    assert!(offset_of!(CompChannel, ch) == 0);
    assert!(offset_of!(Cq, cq_ex) == 0);
    assert!(offset_of!(Qp, qp_ex) == 0);
    assert!(offset_of!(Qp, qp_ex.qp_base) == 0);
    // rdma-core 56's verbs_qp: comp_mask after the 360-byte ibv_qp_ex (with wr_flush), then xrcd.
    assert!(offset_of!(Qp, comp_mask) == 360 && offset_of!(Qp, xrcd) == 368);
    assert!(offset_of!(Srq, srq) == 0);
    assert!(offset_of!(Ah, ah) == 0);
};

/// Offset of `context` inside the PABI-34 view of a `struct verbs_context` (the one every context has, whatever
/// the generation: rdma-core 65 put its six new slots in front, where only PABI-65 contexts have them).
pub const VCTX_CONTEXT_OFFSET: usize = CONTEXT_OFFSET_34;

/// The PABI-34 view of the `struct verbs_context` a `struct ibv_context *` is the last member of: the library
/// reaches `priv` and the slots it fills through it, for contexts of every generation (`abi::driver`).
pub fn vctx_of(p: *mut ibv_context) -> *mut verbs_context_34 {
    view_34(p)
}

thread_local! {
    /// The plug-in context this thread last found live: its public address, its `Context`, and
    /// `registry::context_epoch()` when it was found (see [`Context::from_ibv_memo`]).
    static VERIFIED: Cell<(usize, *const Context, u64)> = const { Cell::new((0, std::ptr::null(), 0)) };
}

impl Context {
    /// The `struct ibv_context *` handed to C.
    pub fn ibv(&self) -> *mut ibv_context {
        self.ibv
    }

    /// The context behind a `struct ibv_context *` from C, if it is a live context of this library: `EINVAL` for
    /// NULL, `EBADF` for anything else (a closed context, garbage): rdma-core does not check the pointer and issues
    /// its command on the `cmd_fd` it reads there, which the kernel answers with `EBADF` (measured by guest case
    /// 55-reliability for `ibv_query_device`, `ibv_alloc_pd`, `ibv_create_cq`, `ibv_create_comp_channel`,
    /// `ibv_get_async_event`).
    ///
    /// # Safety
    /// The returned reference must not outlive the context (a later `ibv_close_device`).
    pub unsafe fn from_ibv<'a>(p: *mut ibv_context) -> Result<&'a Context> {
        let epoch = registry::context_epoch();
        let p = registry::check(p, Kind::Context).map_err(|e| if p.is_null() { e } else { Errno::EBADF })?;
        // SAFETY: a live context, found so after reading `epoch`, as `registered`'s contract asks.
        unsafe { Self::registered(p.as_ptr(), epoch) }
    }

    /// As [`Context::from_ibv`], for the calls a C plug-in makes back into us with its context (its `ibv_cmd_*`)
    /// and for our plug-in glue: a plug-in context this thread found live (in [`Context::registered`]) is known
    /// live, without a registry lookup, until any context leaves the registry (`registry::context_epoch`). So an
    /// entry point checks its context once, and the plug-in's callbacks reuse that check. Anything else (another
    /// context, NULL, a closed context, garbage) goes through [`Context::from_ibv`] and gets its errno.
    ///
    /// # Safety
    /// As for [`Context::from_ibv`].
    pub unsafe fn from_ibv_memo<'a>(p: *mut ibv_context) -> Result<&'a Context> {
        let (key, ctx, epoch) = VERIFIED.with(Cell::get);
        if key == p as usize && !p.is_null() && epoch == registry::context_epoch() {
            // SAFETY: found live by this thread, and no context has left the registry since.
            return Ok(unsafe { &*ctx });
        }
        // SAFETY: forwarded.
        unsafe { Self::from_ibv(p) }
    }

    /// The `Context` of `p`, which the registry has just listed as a live context (a plug-in's is remembered for
    /// [`Context::from_ibv_memo`]).
    ///
    /// # Safety
    /// `p` is a live context of this library, found so by a registry check made after reading `epoch`
    /// (`registry::context_epoch`); the returned reference must not outlive it.
    pub(crate) unsafe fn registered<'a>(p: *mut ibv_context, epoch: u64) -> Result<&'a Context> {
        // SAFETY: registered contexts are the last member of a verbs_context whose `priv` is their `Context`.
        let c = unsafe { (*vctx_of(p)).r#priv.cast::<Context>() };
        // SAFETY: as above; set before the context was registered, cleared only after it was unregistered.
        let c = unsafe { c.as_ref() }.ok_or(Errno::EINVAL)?;
        // Only a plug-in calls back into us with the context: a native provider's does not pay for the memo.
        if c.driver_data.is_some() {
            VERIFIED.with(|v| v.set((p as usize, c as *const Context, epoch)));
        }
        Ok(c)
    }

    /// The command fd (the public `cmd_fd`).
    pub fn fd(&self) -> BorrowedFd<'_> {
        // SAFETY: a live context's cmd_fd stays open until it is closed.
        unsafe { BorrowedFd::borrow_raw((*self.ibv).cmd_fd) }
    }

    /// The async event fd (the public `async_fd`; `EBADF` while there is none).
    pub fn async_fd(&self) -> Result<BorrowedFd<'_>> {
        // SAFETY: as for `fd`.
        let fd = unsafe { (*self.ibv).async_fd };
        if fd < 0 {
            return Err(Errno::EBADF);
        }
        // SAFETY: a live context's async_fd stays open until it is closed.
        Ok(unsafe { BorrowedFd::borrow_raw(fd) })
    }

    /// GET_CONTEXT's `core_support`.
    pub fn core_support(&self) -> u64 {
        self.core_support.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// An object under construction: zeroed memory at its final address. Fill it through [`Pending::as_ptr`] (the
/// provider state last, with `ptr::write`), then [`Pending::finish`]; dropping it instead frees the memory
/// without running any destructor.
pub struct Pending<T>(Box<MaybeUninit<T>>);

impl<T> Pending<T> {
    /// Zeroed memory for a `T`.
    pub fn new() -> Pending<T> {
        let mut b = Box::<T>::new_uninit();
        // SAFETY: writing zero bytes into our own uninitialised allocation.
        unsafe { std::ptr::write_bytes(b.as_mut_ptr(), 0, 1) };
        Pending(b)
    }

    /// The object's final address.
    pub fn as_ptr(&mut self) -> *mut T {
        self.0.as_mut_ptr()
    }

    /// The finished object, leaked to C (free it with [`free`]).
    ///
    /// # Safety
    /// Every field holds a valid value.
    pub unsafe fn finish(self) -> *mut T {
        // SAFETY: caller's contract.
        Box::into_raw(unsafe { self.0.assume_init() })
    }
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Frees an object made by [`Pending::finish`], running its destructor (which unmaps rings, closes fds).
///
/// # Safety
/// `p` came from `Pending::<T>::finish` and is not used afterwards.
pub unsafe fn free<T>(p: *mut T) {
    // SAFETY: caller's contract.
    drop(unsafe { Box::from_raw(p) });
}

// ---------------------------------------------------------------------------------------------------------------
// Event counters: the public `mutex`/`cond`/counter triples of CQs, QPs and SRQs (pthread, as rdma-core).
// ---------------------------------------------------------------------------------------------------------------

/// Initialises a public `pthread_mutex_t`/`pthread_cond_t` pair (rdma-core's `pthread_mutex_init` +
/// `pthread_cond_init` with default attributes).
///
/// # Safety
/// Both point to writable, unused objects.
pub unsafe fn init_sync(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t) {
    // SAFETY: caller's contract.
    unsafe {
        libc::pthread_mutex_init(mutex, std::ptr::null());
        libc::pthread_cond_init(cond, std::ptr::null());
    }
}

/// Adds `n` to an event counter under its mutex and wakes a waiting destroy (rdma-core's `ibv_ack_*`).
///
/// # Safety
/// The three point into one live object whose mutex and cond were initialised.
pub unsafe fn ack_events(
    mutex: *mut libc::pthread_mutex_t,
    cond: *mut libc::pthread_cond_t,
    counter: *mut u32,
    n: u32,
) {
    // SAFETY: caller's contract; the counter is only touched under the mutex.
    unsafe {
        libc::pthread_mutex_lock(mutex);
        counter.write(counter.read().wrapping_add(n));
        libc::pthread_cond_signal(cond);
        libc::pthread_mutex_unlock(mutex);
    }
}

/// Whether the acknowledgements `completed` have caught up with the events the kernel `reported` for an object
/// being destroyed: the wait condition of every `ibv_destroy_*` (rdma-core waits for equality). Counting with
/// wrap-around, a count ahead of the kernel's also ends the wait, with a warning: the application acknowledged
/// more events than it was given (`ibv_ack_cq_events` with too large a count, an async event acknowledged twice),
/// and rdma-core would wait forever.
pub fn all_acked(what: &str, completed: u32, reported: u32) -> bool {
    let ahead = completed.wrapping_sub(reported) as i32;
    if ahead > 0 {
        log::warn!(
            "{what}: {ahead} more events acknowledged than were delivered ({completed} acknowledged, {reported} \
             reported by the kernel); not waiting"
        );
    }
    ahead >= 0
}

/// Waits until `done()` (evaluated under `mutex`) holds (the end of rdma-core's `ibv_cmd_destroy_*`).
///
/// # Safety
/// `mutex` and `cond` belong to one live object and were initialised; `done` reads only what the mutex guards.
pub unsafe fn wait_events(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t, done: impl Fn() -> bool) {
    // SAFETY: caller's contract.
    unsafe {
        libc::pthread_mutex_lock(mutex);
        while !done() {
            libc::pthread_cond_wait(cond, mutex);
        }
        libc::pthread_mutex_unlock(mutex);
    }
}

/// Destroys the public `mutex`/`cond` pair of an object about to be freed.
///
/// # Safety
/// Nobody uses them any more.
pub unsafe fn destroy_sync(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t) {
    // SAFETY: caller's contract.
    unsafe {
        libc::pthread_cond_destroy(cond);
        libc::pthread_mutex_destroy(mutex);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The providers' host traits.
// ---------------------------------------------------------------------------------------------------------------

/// The object layer as the providers' data path sees it.
pub struct Objects;

impl ProviderHost for Objects {}

/// The command fd of the context an object belongs to (`EBADF` for -1, which `BorrowedFd` cannot hold: checked
/// here so that the data path has no panicking assertion in it).
///
/// # Safety
/// `ctx` is a live context.
#[inline(always)]
unsafe fn cmd_fd<'a>(ctx: *const ibv_context) -> Result<BorrowedFd<'a>> {
    // SAFETY: a live context.
    let fd = unsafe { (*ctx).cmd_fd };
    if fd == -1 {
        return Err(Errno::EBADF);
    }
    // SAFETY: a live context owns its open cmd_fd (not -1: checked).
    Ok(unsafe { BorrowedFd::borrow_raw(fd) })
}

// SAFETY: every QP/CQ/SRQ/AH of an rxe context is one of our objects (allocated by the entry-point layer with the
// provider state written before the pointer reached C), and none moves.
unsafe impl rxe::RxeHost for Objects {
    #[inline(always)]
    unsafe fn qp<'a>(qp: *mut ibv_qp) -> Option<&'a RxeQp> {
        // SAFETY: host contract.
        match unsafe { &(*qp.cast::<Qp>()).prov } {
            ProviderQp::Rxe(r) => Some(r),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn cq<'a>(cq: *mut ibv_cq) -> Option<&'a RxeCq> {
        // SAFETY: host contract.
        match unsafe { &(*cq.cast::<Cq>()).prov } {
            ProviderCq::Rxe(r) => Some(r),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn qp_wr_room(qp: *mut ibv_qp) -> *mut u32 {
        // SAFETY: host contract: every QP of a native context is our `Qp`.
        unsafe { std::ptr::addr_of_mut!((*qp.cast::<Qp>()).wr_room) }
    }

    #[inline(always)]
    unsafe fn cq_cursor(cq: *mut ibv_cq) -> *mut rxe::PollCursor {
        // SAFETY: host contract: every CQ of a native context is our `Cq`.
        unsafe { std::ptr::addr_of_mut!((*cq.cast::<Cq>()).cursor) }
    }

    #[inline(always)]
    unsafe fn srq<'a>(srq: *mut ibv_srq) -> Option<&'a RxeSrq> {
        // SAFETY: host contract.
        match unsafe { &(*srq.cast::<Srq>()).prov } {
            ProviderSrq::Rxe(r) => Some(r),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn ah<'a>(ah: *mut ibv_ah) -> Option<&'a RxeAh> {
        // SAFETY: host contract.
        match unsafe { &(*ah.cast::<Ah>()).prov } {
            ProviderAh::Rxe(r) => Some(r),
        }
    }

    #[inline(always)]
    unsafe fn post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        // SAFETY: host contract: a live QP of a live context.
        unsafe {
            let u = crate::kernel::Uverbs::new(cmd_fd((*qp).context)?, rxe::RDMA_DRIVER_RXE);
            crate::kernel::qp::post_send_doorbell(&u, (*qp).handle)
        }
    }

    #[inline(always)]
    unsafe fn req_notify_cq(cq: *mut ibv_cq, solicited_only: bool) -> Result<()> {
        // SAFETY: host contract: a live CQ of a live context.
        unsafe {
            let u = crate::kernel::Uverbs::new(cmd_fd((*cq).context)?, rxe::RDMA_DRIVER_RXE);
            crate::kernel::cq::req_notify_cq(&u, (*cq).handle, solicited_only)
        }
    }
}

// SAFETY: every QP/CQ/SRQ of a siw context is one of our objects (allocated by the entry-point layer with the
// provider state written before the pointer reached C), and none moves.
unsafe impl siw::SiwHost for Objects {
    #[inline(always)]
    unsafe fn siw_qp<'a>(qp: *mut ibv_qp) -> Option<&'a SiwQp> {
        // SAFETY: host contract.
        match unsafe { &(*qp.cast::<Qp>()).prov } {
            ProviderQp::Siw(s) => Some(s),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn siw_cq<'a>(cq: *mut ibv_cq) -> Option<&'a SiwCq> {
        // SAFETY: host contract.
        match unsafe { &(*cq.cast::<Cq>()).prov } {
            ProviderCq::Siw(s) => Some(s),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn siw_srq<'a>(srq: *mut ibv_srq) -> Option<&'a SiwSrq> {
        // SAFETY: host contract.
        match unsafe { &(*srq.cast::<Srq>()).prov } {
            ProviderSrq::Siw(s) => Some(s),
            _ => None,
        }
    }

    #[inline(always)]
    unsafe fn siw_post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        // SAFETY: host contract: a live QP of a live context.
        unsafe {
            let u = crate::kernel::Uverbs::new(cmd_fd((*qp).context)?, siw::RDMA_DRIVER_SIW);
            crate::kernel::qp::post_send_doorbell(&u, (*qp).handle)
        }
    }
}

/// The raw fd number of an owned fd (for the public structs' `int` fields).
pub fn raw(fd: &OwnedFd) -> c_int {
    fd.as_raw_fd()
}

#[cfg(test)]
mod ack_tests {
    use super::all_acked;

    #[test]
    fn acknowledgements_caught_up_or_ahead_end_the_wait() {
        assert!(!all_acked("t", 0, 1), "one event still unacknowledged");
        assert!(all_acked("t", 1, 1));
        assert!(all_acked("t", 4, 1), "over-acknowledged: no eternal wait");
        assert!(!all_acked("t", u32::MAX, 1), "behind, across the wrap");
        assert!(all_acked("t", 2, u32::MAX), "ahead, across the wrap");
    }
}
