//! The objects librdmacm hands to C and the registry of the live ones.
//!
//! | C pointer | our object | lifetime |
//! |---|---|---|
//! | `struct rdma_event_channel *` | [`Channel`] (`Arc`) | until `rdma_destroy_event_channel` and the last id on it |
//! | `struct rdma_cm_id *` | [`CmId`] (`Arc`) | until `rdma_destroy_id` (and any call still running on it) |
//! | `struct rdma_cm_event *` | [`Event`] (`Box`) | until `rdma_ack_cm_event` |
//! | (the `uid` of a multicast join) | [`Mc`] (`Arc`) | until `rdma_leave_multicast` / `rdma_destroy_id` |
//!
//! The public C struct is the first field of ours (offset 0, asserted), inside an `UnsafeCell`: the application
//! reads and writes it through its pointer while we do. The kernel echoes our pointers back as event `uid`s. Every
//! pointer an application passes is looked up in the [`registry`](Registry) before use, so a destroyed or foreign
//! pointer is answered with `EINVAL` instead of being dereferenced; the `Arc` the lookup returns keeps the object
//! alive for the call even if another thread destroys it meanwhile.
#![allow(unsafe_code)] // the public structs shared with C, the events handed out as raw pointers

use super::device::{get_device, put_device, with_device, CmaDevice};
use crate::kernel;
use once_cell::sync::Lazy;
use parking_lot::{Condvar, Mutex};
use rdma_common::abi::enums::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::registry::AddrMap;
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::offset_of;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, Weak};

// ---------------------------------------------------------------------------------------------------------------
// Channels.

/// An event channel: the `rdma_event_channel` handed to C, and the rdma_cm descriptor it names.
#[repr(C)]
pub(crate) struct Channel {
    ch: UnsafeCell<rdma_event_channel>,
    fd: OwnedFd,
    /// Made by `rdma_create_event_channel` (not an id's private channel).
    public: bool,
    /// Heap memory for the next event (uninitialised, `Layout::new::<Event>()`), allocated by `rdma_get_cm_event`
    /// before it blocks, as rdma-core allocates its event: a thread's first `malloc` (glibc then makes the
    /// thread's arena: an `mmap`, an `mprotect`, two `munmap`) happens before the wait, not between the kernel's
    /// event and its hand-out. Kept here, not in the waiting frame, so that a cancelled wait leaks nothing.
    spare: AtomicPtr<Event>,
}

impl Drop for Channel {
    fn drop(&mut self) {
        let p = *self.spare.get_mut();
        if !p.is_null() {
            // SAFETY: `spare` holds only memory from `alloc(Layout::new::<Event>())`, never initialised.
            unsafe { std::alloc::dealloc(p.cast(), std::alloc::Layout::new::<Event>()) };
        }
    }
}

const _: () = assert!(offset_of!(Channel, ch) == 0);

// SAFETY: `ch` is only an integer the application may read; the fd is a kernel object.
unsafe impl Send for Channel {}
// SAFETY: as above.
unsafe impl Sync for Channel {}

impl Channel {
    /// Opens `/dev/infiniband/rdma_cm` and registers the channel.
    pub(crate) fn open(public: bool) -> Result<Arc<Channel>> {
        let fd = kernel::open()?;
        let ch = Arc::new(Channel {
            ch: UnsafeCell::new(rdma_event_channel { fd: fd.as_raw_fd() }),
            fd,
            public,
            spare: AtomicPtr::new(null_mut()),
        });
        REG.lock().channels.insert(ch.c(), ch.clone());
        Ok(ch)
    }

    /// A channel on any descriptor, unregistered (unit tests and fuzz targets: no rdma_cm device there).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn for_test(fd: OwnedFd) -> Arc<Channel> {
        Arc::new(Channel {
            ch: UnsafeCell::new(rdma_event_channel { fd: fd.as_raw_fd() }),
            fd,
            public: true,
            spare: AtomicPtr::new(null_mut()),
        })
    }

    /// The pointer handed to C.
    pub(crate) fn c(&self) -> *mut rdma_event_channel {
        self.ch.get()
    }

    /// The descriptor commands are written to.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Makes sure heap memory for the next event is there (see `spare`).
    pub(crate) fn prepare_event(&self) {
        if !self.spare.load(Ordering::Relaxed).is_null() {
            return;
        }
        // SAFETY: `Event` is not zero-sized.
        let p = unsafe { std::alloc::alloc(std::alloc::Layout::new::<Event>()) }.cast::<Event>();
        if !p.is_null() && self.spare.compare_exchange(null_mut(), p, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            // SAFETY: just allocated with this layout, another thread filled the slot first.
            unsafe { std::alloc::dealloc(p.cast(), std::alloc::Layout::new::<Event>()) };
        }
    }

    /// The memory `prepare_event` set aside, if any: uninitialised, for one `Event`.
    pub(crate) fn take_event_memory(&self) -> Option<Box<std::mem::MaybeUninit<Event>>> {
        let p = self.spare.swap(null_mut(), Ordering::AcqRel);
        // SAFETY: `spare` holds only memory from the global allocator with `Event`'s layout (that of
        // `MaybeUninit<Event>`), owned by the slot until swapped out here.
        (!p.is_null()).then(|| unsafe { Box::from_raw(p.cast::<std::mem::MaybeUninit<Event>>()) })
    }

    /// Whether the application created it.
    pub(crate) fn is_public(&self) -> bool {
        self.public
    }

    /// Removes it from the registry (the descriptor closes with the last reference).
    pub(crate) fn unregister(&self) {
        REG.lock().channels.remove(self.c());
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Ids.

/// The mutable private state of an id (rdma-core's `cma_id_private` minus what lives in the public struct).
pub(crate) struct IdState {
    /// Events acknowledged (or discarded) so far; `rdma_destroy_id` waits until it reaches the kernel's count.
    pub events_completed: u32,
    /// Multicast memberships, newest first.
    pub mcs: Vec<Arc<Mc>>,
    /// Connection data from `rdma_getaddrinfo` (`ai_connect`), prepended to the first connect's private data.
    pub connect: Vec<u8>,
    /// `rdma_create_ep`'s QP attributes for the ids `rdma_get_request` returns (passive endpoints).
    pub qp_init_attr: Option<Box<[u8; std::mem::size_of::<ibv_qp_init_attr>()]>>,
    pub initiator_depth: u8,
    pub responder_resources: u8,
    /// (vendor_id, options).
    pub local_ece: (u32, u32),
    pub remote_ece: (u32, u32),
    /// A CONNECT_RESPONSE could not be completed; later REJECTED/DISCONNECTED events are swallowed.
    pub connect_error: bool,
    /// `rdma_resolve_addrinfo` started and its result not yet taken by `rdma_query_addrinfo` (nor failed).
    pub resolving_ai: bool,
    /// The result of `rdma_resolve_addrinfo` (a list of ours, see [`free_addrinfo`]), until `rdma_query_addrinfo`
    /// takes it; NULL before.
    pub resolved_ai: *mut rdma_addrinfo,
}

/// An id: the `rdma_cm_id` handed to C and librdmacm's private state.
#[repr(C)]
pub(crate) struct CmId {
    id: UnsafeCell<rdma_cm_id>,
    /// The kernel's handle (`u32::MAX` until CREATE_ID answered).
    handle: AtomicU32,
    chan: Mutex<Arc<Channel>>,
    /// Created with a NULL channel: calls wait for their own events.
    sync: AtomicBool,
    dev: AtomicPtr<CmaDevice>,
    pub st: Mutex<IdState>,
    pub cond: Condvar,
}

const _: () = assert!(offset_of!(CmId, id) == 0);

// SAFETY: the public struct is shared with C by design (C's own rdma-core has the same races); everything private
// is atomic or behind a mutex.
unsafe impl Send for CmId {}
// SAFETY: as above.
unsafe impl Sync for CmId {}

impl CmId {
    /// A new, unregistered id on `chan` (`sync`: the id's private channel).
    ///
    /// Built in place in zeroed memory (`calloc`, as rdma-core allocates its id), writing only the fields that are
    /// not zero: building the value (over 500 bytes) on the stack and moving it into the `Arc` cost a `memset` and a
    /// `memcpy` of it in every `rdma_create_id` (docs/bench.md, "the cmtime finding").
    pub(crate) fn new(
        chan: Arc<Channel>,
        sync: bool,
        context: *mut c_void,
        ps: rdma_port_space,
        qp_type: ibv_qp_type,
    ) -> Arc<CmId> {
        let mut new = Arc::<CmId>::new_zeroed();
        let p = Arc::get_mut(&mut new).expect("a new Arc is unique").as_mut_ptr();
        // SAFETY: `p` is the new, unshared allocation. Zero is a valid value of every field not written here: the
        // public struct's pointers (NULL), integers and `rdma_addr` (unions of integer structs), the atomics (the
        // handle is then set to "none"), parking_lot's `Mutex` (unlocked) and `Condvar` (no waiter). The fields
        // whose zero is not valid (the channel's `Arc`, the `Vec`s of `IdState`) are written before `assume_init`.
        unsafe {
            let id = addr_of_mut!((*p).id).cast::<rdma_cm_id>();
            addr_of_mut!((*id).channel).write(chan.c());
            addr_of_mut!((*id).context).write(context);
            addr_of_mut!((*id).ps).write(ps);
            addr_of_mut!((*id).qp_type).write(qp_type);
            addr_of_mut!((*p).handle).write(AtomicU32::new(u32::MAX));
            addr_of_mut!((*p).chan).write(Mutex::new(chan));
            addr_of_mut!((*p).sync).write(AtomicBool::new(sync));
            addr_of_mut!((*p).st).write(Mutex::new(IdState {
                events_completed: 0,
                mcs: Vec::new(),
                connect: Vec::new(),
                qp_init_attr: None,
                initiator_depth: 0,
                responder_resources: 0,
                local_ece: (0, 0),
                remote_ece: (0, 0),
                connect_error: false,
                resolving_ai: false,
                resolved_ai: null_mut(),
            }));
            new.assume_init()
        }
    }

    /// The pointer handed to C (and the `uid` the kernel echoes).
    pub(crate) fn c(&self) -> *mut rdma_cm_id {
        self.id.get()
    }

    pub(crate) fn uid(&self) -> u64 {
        self.c().expose_provenance() as u64
    }

    pub(crate) fn handle(&self) -> u32 {
        self.handle.load(Ordering::Acquire)
    }

    pub(crate) fn set_handle(&self, h: u32) {
        self.handle.store(h, Ordering::Release);
    }

    pub(crate) fn channel(&self) -> Arc<Channel> {
        self.chan.lock().clone()
    }

    /// Switches the id to `chan` (updating `id->channel`); returns the previous channel.
    pub(crate) fn set_channel(&self, chan: Arc<Channel>, sync: bool) -> Arc<Channel> {
        let mut g = self.chan.lock();
        // SAFETY: the public struct is ours to write (see the type's docs).
        unsafe { addr_of_mut!((*self.c()).channel).write(chan.c()) };
        self.sync.store(sync, Ordering::Release);
        std::mem::replace(&mut *g, chan)
    }

    pub(crate) fn is_sync(&self) -> bool {
        self.sync.load(Ordering::Acquire)
    }

    pub(crate) fn dev(&self) -> *mut CmaDevice {
        self.dev.load(Ordering::Acquire)
    }

    /// `ucma_get_device` for this id: binds it to the device `guid`/`idx` (sets `verbs` and `pd`) once.
    pub(crate) fn attach_device(&self, guid: u64, idx: u32) -> Result<bool> {
        if !self.dev().is_null() {
            return Ok(false);
        }
        let d = get_device(guid, idx)?;
        let (ctx, pd) = with_device(d, |d| (d.verbs, d.pd));
        if self.dev.compare_exchange(null_mut(), d, Ordering::AcqRel, Ordering::Acquire).is_err() {
            put_device(d); // another thread won
            return Ok(false);
        }
        // SAFETY: the public struct is ours to write.
        unsafe {
            addr_of_mut!((*self.c()).verbs).write(ctx);
            addr_of_mut!((*self.c()).pd).write(pd);
        }
        Ok(true)
    }

    /// Drops the device reference (at free).
    fn detach_device(&self) {
        let d = self.dev.swap(null_mut(), Ordering::AcqRel);
        if !d.is_null() {
            put_device(d);
        }
    }

    // Public fields, read and written through the pointer (the application may touch them too).

    pub(crate) fn verbs(&self) -> *mut ibv_context {
        // SAFETY: the public struct is valid for the id's life.
        unsafe { addr_of!((*self.c()).verbs).read() }
    }
    pub(crate) fn pd(&self) -> *mut ibv_pd {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).pd).read() }
    }
    pub(crate) fn set_pd(&self, pd: *mut ibv_pd) {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*self.c()).pd).write(pd) }
    }
    pub(crate) fn qp(&self) -> *mut ibv_qp {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).qp).read() }
    }
    pub(crate) fn set_qp(&self, qp: *mut ibv_qp) {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*self.c()).qp).write(qp) }
    }
    pub(crate) fn srq(&self) -> *mut ibv_srq {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).srq).read() }
    }
    pub(crate) fn set_srq(&self, srq: *mut ibv_srq) {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*self.c()).srq).write(srq) }
    }
    /// `id->ps` as its integer.
    pub(crate) fn ps(&self) -> u32 {
        // SAFETY: as above; read as the enum's integer.
        unsafe { rdma_common::ffi::enum_raw(addr_of!((*self.c()).ps)) }
    }
    /// `id->qp_type` as its integer.
    pub(crate) fn qp_type(&self) -> u32 {
        // SAFETY: as above.
        unsafe { rdma_common::ffi::enum_raw(addr_of!((*self.c()).qp_type)) }
    }
    pub(crate) fn is_ud(&self) -> bool {
        self.qp_type() == IBV_QPT_UD
    }
    pub(crate) fn port_num(&self) -> u8 {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).port_num).read() }
    }
    pub(crate) fn set_port_num(&self, p: u8) {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*self.c()).port_num).write(p) }
    }
    pub(crate) fn context(&self) -> *mut c_void {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).context).read() }
    }
    pub(crate) fn event(&self) -> *mut rdma_cm_event {
        // SAFETY: as above.
        unsafe { addr_of!((*self.c()).event).read() }
    }
    pub(crate) fn set_event(&self, e: *mut rdma_cm_event) {
        // SAFETY: as above.
        unsafe { addr_of_mut!((*self.c()).event).write(e) }
    }
    /// `id->verbs->device->transport_type` as its integer (`None` before the id is on a device).
    pub(crate) fn transport(&self) -> Option<i32> {
        let ctx = self.verbs();
        if ctx.is_null() {
            return None;
        }
        // SAFETY: an open context and its device are readable; the enum is read as its integer.
        unsafe {
            let dev = addr_of!((*ctx).device).read();
            if dev.is_null() {
                return None;
            }
            Some(rdma_common::ffi::enum_raw(addr_of!((*dev).transport_type)) as i32)
        }
    }

    /// One more event acknowledged: wakes `rdma_destroy_id` / `rdma_migrate_id` waiters.
    pub(crate) fn complete_event(&self) {
        self.st.lock().events_completed += 1;
        self.cond.notify_all();
    }

    /// Waits until `n` events are acknowledged.
    pub(crate) fn wait_events(&self, n: u32) {
        let mut st = self.st.lock();
        while st.events_completed < n {
            self.cond.wait(&mut st);
        }
    }

    /// Frees what the id owns (`ucma_free_id`): device reference, path records, private channel; then unregisters
    /// it. The memory goes with the last `Arc`.
    pub(crate) fn free(self: &Arc<CmId>) {
        REG.lock().ids.remove(self.c());
        let (mcs, ai) = {
            let mut st = self.st.lock();
            (std::mem::take(&mut st.mcs), std::mem::replace(&mut st.resolved_ai, null_mut()))
        };
        if !mcs.is_empty() || !ai.is_null() || !self.dev().is_null() || !self.path_rec().is_null() || self.is_sync() {
            self.free_owned(mcs, ai);
        }
    }

    /// The part of [`free`](Self::free) that an id which never left its channel (no device, path records,
    /// memberships, address resolution or private channel) does not need: out of line, so that a plain
    /// `rdma_create_id` / `rdma_destroy_id` pair runs less code (docs/bench.md, "the cmtime finding").
    #[inline(never)]
    fn free_owned(self: &Arc<CmId>, mcs: Vec<Arc<Mc>>, ai: *mut rdma_addrinfo) {
        // SAFETY: the id's own list (see `IdState::resolved_ai`), no longer reachable.
        unsafe { free_addrinfo(ai) };
        for mc in mcs {
            REG.lock().mcs.remove(Arc::as_ptr(&mc));
        }
        self.detach_device();
        if !self.path_rec().is_null() {
            free_path_rec(self.c());
        }
        if self.is_sync() {
            self.channel().unregister();
        }
    }

    /// `id->route.path_rec`.
    fn path_rec(&self) -> *mut rdma_common::abi::sa::ibv_sa_path_rec {
        // SAFETY: the public struct is valid for the id's life.
        unsafe { addr_of!((*self.c()).route.path_rec).read() }
    }
}

/// Frees `id->route.path_rec` (ours, from `calloc`).
pub(crate) fn free_path_rec(id: *mut rdma_cm_id) {
    // SAFETY: the public struct is valid; `path_rec` is NULL or our calloc'd array.
    unsafe {
        let p = addr_of_mut!((*id).route.path_rec);
        libc::free(p.read().cast());
        p.write(null_mut());
        addr_of_mut!((*id).route.num_paths).write(0);
    }
}

/// Frees an `rdma_addrinfo` list whose nodes and fields were all allocated with the C allocator (the lists
/// `rdma_getaddrinfo` and `rdma_resolve_addrinfo` make): `rdma_freeaddrinfo`'s work. NULL is nothing.
///
/// # Safety
/// `p` is NULL or such a list, owned by the caller and not used afterwards.
pub(crate) unsafe fn free_addrinfo(mut p: *mut rdma_addrinfo) {
    while !p.is_null() {
        // SAFETY: every node and every field is NULL or a C allocation of the list's own (the caller's contract).
        unsafe {
            let next = (*p).ai_next;
            libc::free((*p).ai_connect);
            libc::free((*p).ai_route);
            libc::free((*p).ai_src_canonname.cast());
            libc::free((*p).ai_dst_canonname.cast());
            libc::free((*p).ai_src_addr.cast());
            libc::free((*p).ai_dst_addr.cast());
            libc::free(p.cast());
            p = next;
        }
    }
}

/// `IBV_TRANSPORT_IB` as the integer [`CmId::transport`] returns.
pub(crate) use rdma_common::abi::enums::IBV_TRANSPORT_IB as TRANSPORT_IB;
/// `IBV_TRANSPORT_IWARP` as the integer [`CmId::transport`] returns.
pub(crate) use rdma_common::abi::enums::IBV_TRANSPORT_IWARP as TRANSPORT_IWARP;

// ---------------------------------------------------------------------------------------------------------------
// Multicast memberships.

/// A multicast membership of an id (rdma-core's `struct cma_multicast`); its address is the join's `uid`.
pub(crate) struct Mc {
    pub id: Weak<CmId>,
    /// The application's context, reported as `param.ud.private_data` of the group's events.
    pub context: *mut c_void,
    pub join_flags: u16,
    /// The group address as given (its family's length).
    pub addr: Vec<u8>,
    pub handle: AtomicU32,
    /// Events acknowledged (under the id's `st` lock).
    pub events_completed: AtomicU32,
    /// The group's MGID and MLID, from its JOIN event.
    pub grp: Mutex<([u8; 16], u16)>,
}

// SAFETY: `context` is the application's opaque pointer, never dereferenced.
unsafe impl Send for Mc {}
// SAFETY: as above.
unsafe impl Sync for Mc {}

// ---------------------------------------------------------------------------------------------------------------
// Events.

/// An event handed to C (rdma-core's `struct cma_event`): the public event and the private data it points to.
#[repr(C)]
pub(crate) struct Event {
    pub ev: UnsafeCell<rdma_cm_event>,
    pub private_data: UnsafeCell<[u8; kernel_max_private_data()]>,
    /// The id whose `events_completed` the acknowledgement counts (the listening id for a connect request).
    pub id_priv: Arc<CmId>,
    pub mc: Option<Arc<Mc>>,
}

const fn kernel_max_private_data() -> usize {
    rdma_common::uapi::rdma_user_cm::RDMA_MAX_PRIVATE_DATA as usize
}

const _: () = assert!(offset_of!(Event, ev) == 0);

impl Event {
    pub(crate) fn c(&self) -> *mut rdma_cm_event {
        self.ev.get()
    }
}

/// Registers a new event and returns the pointer handed to C.
pub(crate) fn publish_event(ev: Box<Event>) -> *mut rdma_cm_event {
    let p = Box::into_raw(ev);
    REG.lock().events.insert(p, ());
    p.cast()
}

/// Takes back an event from C (`rdma_ack_cm_event`). Errors: `EINVAL` for NULL, foreign or already acknowledged.
pub(crate) fn take_event(p: *mut rdma_cm_event) -> Result<Box<Event>> {
    if p.is_null() || REG.lock().events.remove(p).is_none() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: registered pointers come from Box::into_raw in publish_event, and were just unregistered: we own it.
    Ok(unsafe { Box::from_raw(p.cast::<Event>()) })
}

// ---------------------------------------------------------------------------------------------------------------
// The registry.

#[derive(Default)]
struct Registry {
    channels: AddrMap<Arc<Channel>>,
    /// Every live id, by the address handed to C (which is also its events' `uid`). The rare event without a
    /// `uid` finds its id by kernel handle through a scan of this map ([`lookup_handle`]), rather than a second map
    /// that every create and destroy would have to update.
    ids: AddrMap<Arc<CmId>>,
    events: AddrMap<()>,
    mcs: AddrMap<Arc<Mc>>,
}

static REG: Lazy<Mutex<Registry>> = Lazy::new(|| Mutex::new(Registry::default()));

/// Registers a new id (after CREATE_ID gave it a handle).
pub(crate) fn register_id(id: &Arc<CmId>) {
    REG.lock().ids.insert(id.c(), id.clone());
}

/// The live id behind a C pointer. Errors: `EINVAL` for NULL, destroyed or foreign pointers.
pub(crate) fn lookup_id(p: *mut rdma_cm_id) -> Result<Arc<CmId>> {
    REG.lock().ids.get(p).cloned().ok_or(Errno::EINVAL)
}

/// The live id an event `uid` names.
pub(crate) fn lookup_uid(uid: u64) -> Option<Arc<CmId>> {
    REG.lock().ids.get(uid as usize as *const rdma_cm_id).cloned()
}

/// The live id with kernel handle `h`: a scan of the live ids, for the events that come without a `uid` (older
/// kernels, for a connection's events before its accept set the `uid`), which are too rare to keep a second map
/// that every create and destroy would update.
#[cold]
pub(crate) fn lookup_handle(h: u32) -> Option<Arc<CmId>> {
    REG.lock().ids.values().find(|id| id.handle() == h).cloned()
}

/// The live channel behind a C pointer. Errors: `EINVAL` for NULL, destroyed or foreign pointers.
pub(crate) fn lookup_channel(p: *mut rdma_event_channel) -> Result<Arc<Channel>> {
    REG.lock().channels.get(p).cloned().ok_or(Errno::EINVAL)
}

/// [`lookup_channel`] for the calls where rdma-core writes its command to `channel->fd` without checking the
/// channel: a non-NULL channel we do not know (destroyed or garbage) is `EBADF`, what that `write` answers
/// rdma-core (measured by guest case 55-reliability); NULL stays `EINVAL`.
pub(crate) fn lookup_channel_fd(p: *mut rdma_event_channel) -> Result<Arc<Channel>> {
    lookup_channel(p).map_err(|e| if p.is_null() { e } else { Errno::EBADF })
}

/// Registers a membership; returns its `uid`.
pub(crate) fn register_mc(mc: &Arc<Mc>) -> u64 {
    let p = Arc::as_ptr(mc);
    REG.lock().mcs.insert(p, mc.clone());
    p as usize as u64
}

pub(crate) fn unregister_mc(mc: &Arc<Mc>) {
    REG.lock().mcs.remove(Arc::as_ptr(mc));
}

/// The membership a multicast event `uid` names.
pub(crate) fn lookup_mc(uid: u64) -> Option<Arc<Mc>> {
    REG.lock().mcs.get(uid as usize as *const Mc).cloned()
}
