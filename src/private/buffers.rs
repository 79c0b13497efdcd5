//! The plumbing every `ibv_cmd_*` of the provider interface shares: the provider's command and response buffers,
//! the context's command fd, rdma-core's return convention and its disassociated-device rule for destroys.
//!
//! # The buffers a provider passes
//! A legacy `ibv_cmd_*` takes the provider's `struct ibv_<cmd>` (kern-abi.h: the write header
//! `ib_uverbs_cmd_hdr`, or that plus `ib_uverbs_ex_cmd_hdr` for the extended commands, then the kernel's core
//! request) followed by the provider's driver request, `cmd_size` bytes in all; and its response, the kernel's core
//! response followed by the driver response, `resp_size` bytes. The provider's udata is therefore
//! `cmd[sizeof(struct ibv_<cmd>)..cmd_size]` and `resp[sizeof(core resp)..resp_size]`. As rdma-core 44 does:
//!
//! * commands rdma-core sends straight from the provider's buffer (`execute_cmd_write`: ALLOC_PD, REG_MR,
//!   MODIFY_QP, ...) send the core request as the provider left it, with the fields rdma-core sets overwritten
//!   (so the unset fields of MODIFY_QP travel as the provider wrote them), and the kernel writes the response
//!   straight into the provider's `resp` ([`write_direct`], [`write_ex_direct`]);
//! * commands rdma-core builds itself (`DECLARE_LEGACY_UHW_BUFS`: CREATE_CQ, CREATE_QP, CREATE_SRQ, CREATE_WQ)
//!   send a core request built from zero, and the kernel's core response lands right before the provider's driver
//!   response (`resp + sizeof(provider's resp struct) - sizeof(kernel's core resp)`), or in a local buffer when
//!   the provider passes no driver response ([`write_uhw`], [`write_uhw_ex`]);
//! * the bytes sent are the same; rdma-core writes the header into the provider's `cmd` buffer, we build the
//!   command in our own buffer (`kernel::write_raw`) and leave the provider's `cmd` untouched.
//!
//! # Conventions
//! Every `int` function returns 0 or a positive errno, and on failure also stores it in `errno` ([`ret`];
//! rdma-core's failures come from a failed `write`/`ioctl`, which set it, or from argument checks, most of which
//! set it too); the exceptions are named on the function (`ibv_cmd_poll_cq`: a count or `-1`). NULL object
//! pointers, which rdma-core dereferences, give `EINVAL` ([`obj`]). Nothing panics into C
//! (`rdma_common::ffi::boundary`). The destroys of CQs, QPs, SRQs and WQs wait until the events the kernel
//! reported were acknowledged ([`wait`]); a destroy failing with `EIO` on a disassociated device may count as done
//! ([`destroyed`]).
#![allow(unsafe_code)]

use crate::kernel::{self, CmdFd, Uverbs};
use crate::object;
use crate::plugin::{context_driver_id, Generation};
use crate::provider::cmd as pcmd;
use crate::provider::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::slice;
use std::sync::atomic::AtomicBool;

/// `sizeof(struct ib_uverbs_cmd_hdr)` and `sizeof(struct ex_hdr)`.
pub(super) const HDR: usize = size_of::<ib_uverbs_cmd_hdr>();
pub(super) const EX_HDR: usize = HDR + size_of::<ib_uverbs_ex_cmd_hdr>();

/// `sizeof(struct ibv_<cmd>)` of kern-abi.h: header + the kernel's core request.
pub(super) const fn abi<T>() -> usize {
    HDR + size_of::<T>()
}
pub(super) const fn abi_ex<T>() -> usize {
    EX_HDR + size_of::<T>()
}

/// Runs the body of an `int` entry point: 0, or a positive errno also stored in `errno`.
pub(super) fn ret(name: &'static str, body: impl FnOnce() -> Result<()>) -> c_int {
    match ffi::boundary(name, body) {
        Ok(()) => 0,
        Err(e) => {
            e.set();
            e.0
        }
    }
}

/// The command fd an `ibv_cmd_*` talks to: the context's (in unit tests, the recording fake installed with
/// `tests::with_fake`).
pub(super) enum Fd<'a> {
    Real(Uverbs<'a>),
    #[cfg(test)]
    Fake(&'a kernel::fake::Fake),
}

// SAFETY: forwards to the real uverbs fd or the tests' fake, both `CmdFd`s.
unsafe impl CmdFd for Fd<'_> {
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize> {
        match self {
            // SAFETY: forwarded contract.
            Fd::Real(u) => unsafe { u.write_cmd(buf) },
            #[cfg(test)]
            // SAFETY: forwarded contract.
            Fd::Fake(f) => unsafe { f.write_cmd(buf) },
        }
    }

    unsafe fn ioctl_verbs(&self, buf: &mut [u64]) -> Result<()> {
        match self {
            // SAFETY: forwarded contract.
            Fd::Real(u) => unsafe { u.ioctl_verbs(buf) },
            #[cfg(test)]
            // SAFETY: forwarded contract.
            Fd::Fake(f) => unsafe { f.ioctl_verbs(buf) },
        }
    }

    fn driver_id(&self) -> u32 {
        match self {
            Fd::Real(u) => u.driver_id(),
            #[cfg(test)]
            Fd::Fake(f) => f.driver_id(),
        }
    }
}

/// The command fd of a context of ours, carrying the driver id its provider declared (`EINVAL` for any other
/// pointer).
///
/// # Safety
/// `ctx` is NULL or a pointer from C; the result must not outlive the context.
pub(super) unsafe fn fd_of<'a>(ctx: *mut ibv_context) -> Result<Fd<'a>> {
    #[cfg(test)]
    if let Some(f) = testing::fake() {
        return Ok(Fd::Fake(f));
    }
    // SAFETY: context_driver_id checks the registry before dereferencing.
    let id = unsafe { context_driver_id(ctx) }?;
    // SAFETY: a live context of ours, kept open by the provider calling us.
    Ok(Fd::Real(unsafe { pcmd::uverbs(ctx, id) }))
}

/// The generation of the provider interface a context is served with (its plug-in's; in unit tests, the one
/// installed with `testing::with_generation`).
///
/// # Safety
/// `ctx` is NULL or a pointer from C.
pub(super) unsafe fn generation_of(ctx: *mut ibv_context) -> Generation {
    #[cfg(test)]
    if let Some(g) = testing::generation() {
        return g;
    }
    // SAFETY: forwarded; the plug-in layer checks the registry.
    unsafe { crate::plugin::generation_of(ctx) }
}

/// An object pointer a provider passed, which rdma-core dereferences: `EINVAL` for NULL.
pub(super) fn obj<T>(p: *mut T) -> Result<*mut T> {
    if p.is_null() {
        Err(Errno::EINVAL)
    } else {
        Ok(p)
    }
}

/// `p[from..size]` of a caller's buffer: the driver data after a core struct. Empty when there is none.
///
/// # Safety
/// `p` is NULL or valid for `size` bytes, unchanged while the result is used.
pub(super) unsafe fn tail<'a>(p: *const c_void, size: usize, from: usize) -> &'a [u8] {
    if p.is_null() || size <= from {
        return &[];
    }
    // SAFETY: caller's contract.
    unsafe { slice::from_raw_parts(p.cast::<u8>().add(from), size - from) }
}

/// The core request a provider left in its `struct ibv_<cmd>` (after the `hdr`-byte header): rdma-core overwrites
/// some of its fields and sends the rest as they are. `EINVAL` when `cmd_size` does not cover it.
///
/// # Safety
/// `cmd` is NULL or valid for `cmd_size` bytes.
pub(super) unsafe fn core_of<T: FromBytes>(cmd: *const c_void, cmd_size: usize, hdr: usize) -> Result<T> {
    if cmd.is_null() || cmd_size < hdr + size_of::<T>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: within the caller's buffer (checked above).
    Ok(T::from_bytes(unsafe { slice::from_raw_parts(cmd.cast::<u8>().add(hdr), size_of::<T>()) }))
}

/// A caller's response buffer as bytes (`EINVAL` for NULL).
///
/// # Safety
/// `resp` is NULL or valid for writes of `len` bytes, not otherwise accessed while the result is used.
pub(super) unsafe fn resp_bytes<'a>(resp: *mut c_void, len: usize) -> Result<&'a mut [u8]> {
    if resp.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: caller's contract.
    Ok(unsafe { slice::from_raw_parts_mut(resp.cast::<u8>(), len) })
}

/// rdma-core's `execute_cmd_write`: a legacy write of `core` (whose first field is `response`) and the provider's
/// driver data, the kernel writing its response straight into the provider's `resp` (`resp_size` bytes).
/// Returns the core response.
///
/// # Safety
/// As [`resp_bytes`].
pub(super) unsafe fn write_direct<R: FromBytes>(
    u: &(impl CmdFd + ?Sized),
    command: u32,
    core: &[u8],
    udata_in: &[u8],
    resp: *mut c_void,
    resp_size: usize,
) -> Result<R> {
    // SAFETY: caller's contract.
    let out = unsafe { resp_bytes(resp, resp_size) }?;
    kernel::write_raw(u, command, core, udata_in, Some(&mut *out))?;
    Ok(R::from_bytes(out))
}

/// rdma-core's `execute_cmd_write_ex` on the provider's buffers: `core` (no response field; the extended header
/// carries it) and the driver data, the response (`core_resp` bytes of core, then the driver's) straight into
/// `resp`, zeroed first.
///
/// # Safety
/// As [`resp_bytes`].
pub(super) unsafe fn write_ex_direct<R: FromBytes>(
    u: &(impl CmdFd + ?Sized),
    command: u32,
    core: &[u8],
    udata_in: &[u8],
    resp: *mut c_void,
    resp_size: usize,
    core_resp: usize,
) -> Result<R> {
    // SAFETY: caller's contract.
    let out = unsafe { resp_bytes(resp, resp_size) }?;
    if resp_size < core_resp {
        return Err(Errno::EINVAL);
    }
    kernel::write_ex_raw(u, command, core, udata_in, Some((&mut *out, core_resp)))?;
    Ok(R::from_bytes(out))
}

/// Where rdma-core's `DECLARE_LEGACY_UHW_BUFS` puts the kernel's response: right before the provider's driver
/// response inside its buffer (`resp + prov_core - size_of::<R>()`) when it passes one, else a local buffer.
/// Runs `send` with that area and returns the core response.
///
/// # Safety
/// `resp` is NULL or valid for writes of `resp_size` bytes.
pub(super) unsafe fn with_uhw_resp<R: FromBytes>(
    resp: *mut c_void,
    resp_size: usize,
    prov_core: usize,
    send: impl FnOnce(&mut [u8]) -> Result<()>,
) -> Result<R> {
    let k = size_of::<R>();
    if !resp.is_null() && resp_size > prov_core {
        if prov_core < k {
            return Err(Errno::EINVAL);
        }
        // SAFETY: within the caller's buffer: from `prov_core - k` to its end.
        let out = unsafe { slice::from_raw_parts_mut(resp.cast::<u8>().add(prov_core - k), k + resp_size - prov_core) };
        send(&mut *out)?;
        Ok(R::from_bytes(out))
    } else {
        let mut out = [0u8; 64];
        let out = &mut out[..k];
        send(&mut *out)?;
        Ok(R::from_bytes(out))
    }
}

/// rdma-core's `DECLARE_LEGACY_UHW_BUFS` + `execute_write_bufs`: the legacy command `req` built here (its
/// `response` field set by the write layer) with the provider's driver data. See [`with_uhw_resp`].
///
/// # Safety
/// As [`with_uhw_resp`].
pub(super) unsafe fn write_uhw<Q: AsBytes, R: FromBytes>(
    u: &(impl CmdFd + ?Sized),
    command: u32,
    req: &Q,
    udata_in: &[u8],
    resp: *mut c_void,
    resp_size: usize,
    prov_core: usize,
) -> Result<R> {
    // SAFETY: caller's contract.
    unsafe {
        with_uhw_resp(resp, resp_size, prov_core, |out| {
            kernel::write_raw(u, command, req.as_bytes(), udata_in, Some(out))
        })
    }
}

/// [`write_uhw`] for an extended command (`DECLARE_LEGACY_UHW_BUFS_EX` + `execute_write_bufs_ex`).
///
/// # Safety
/// As [`with_uhw_resp`].
pub(super) unsafe fn write_uhw_ex<Q: AsBytes, R: FromBytes>(
    u: &(impl CmdFd + ?Sized),
    command: u32,
    req: &Q,
    udata_in: &[u8],
    resp: *mut c_void,
    resp_size: usize,
    prov_core: usize,
) -> Result<R> {
    let k = size_of::<R>();
    // SAFETY: caller's contract.
    unsafe {
        with_uhw_resp(resp, resp_size, prov_core, |out| {
            kernel::write_ex_raw(u, command, req.as_bytes(), udata_in, Some((out, k)))
        })
    }
}

/// `bool verbs_allow_disassociate_destroy` (data, 1 byte, `IBVERBS_PRIVATE_34`).
///
/// rdma-core: when a provider sets it, destroy commands that fail because the device was hot-unplugged
/// (disassociated) report success so the application can clean up. Providers write it (`libmlx5` imports it); the
/// destroy commands below read it. `AtomicBool` has the size, alignment and bit validity of `bool` (so of C's
/// `_Bool`) and lets C write it without a `static mut`.
#[unsafe(no_mangle)]
pub static verbs_allow_disassociate_destroy: AtomicBool = AtomicBool::new(false);
const _: () = assert!(std::mem::size_of::<AtomicBool>() == 1 && std::mem::align_of::<AtomicBool>() == 1);

/// Whether a failed destroy that reports `EIO` (a disassociated device) counts as done: rdma-core's
/// `verbs_allow_disassociate_destroy`, which providers set, or `RDMAV_ALLOW_DISASSOC_DESTROY`.
pub(super) fn allow_disassociate_destroy() -> bool {
    verbs_allow_disassociate_destroy.load(std::sync::atomic::Ordering::Relaxed) || !pcmd::is_destroy_err(Errno::EIO)
}

/// rdma-core's `verbs_is_destroy_err`: `Ok(Some(v))` done, `Ok(None)` an `EIO` forgiven (the caller returns 0 at
/// once, without waiting for events), `Err` the error.
pub(super) fn destroyed<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e == Errno::EIO && allow_disassociate_destroy() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Waits (under the object's public mutex) until `done` holds: the end of rdma-core's `ibv_cmd_destroy_*`.
///
/// # Safety
/// The mutex and cond belong to a live object and were initialised.
pub(super) unsafe fn wait(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t, done: impl Fn() -> bool) {
    // SAFETY: caller's contract.
    unsafe { object::wait_events(mutex, cond, done) }
}

/// A byte buffer being filled at struct offsets (the command ABI is the host's byte order).
pub(super) struct Bytes(pub(super) Vec<u8>);

impl Bytes {
    pub(super) fn put(&mut self, at: usize, v: &[u8]) {
        self.0[at..at + v.len()].copy_from_slice(v);
    }
    pub(super) fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_ne_bytes());
    }
    pub(super) fn u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_ne_bytes());
    }
}

/// What the tests of every `ibv_cmd_*` file share: the recording fake of the command fd, and readers of the bytes
/// it recorded.
#[cfg(test)]
pub(super) mod testing {
    pub(in crate::private) use crate::kernel::fake::{Fake, Reply};

    pub(in crate::private) use rdma_common::abi::driver::Generation;
    use rdma_common::abi::driver::*;
    use rdma_common::uapi::rdma_user_ioctl_cmds::{ib_uverbs_attr, UVERBS_ATTR_F_MANDATORY};
    use rdma_common::uapi::FromBytes;
    use std::cell::Cell;
    use std::ffi::c_int;
    pub(in crate::private) use std::mem::MaybeUninit;
    use std::ptr::{self, addr_of_mut};

    thread_local! {
        static FAKE: Cell<*const Fake> = const { Cell::new(ptr::null()) };
        static GENERATION: Cell<Option<Generation>> = const { Cell::new(None) };
    }

    /// The generation installed by [`with_generation`] on this thread.
    pub(in crate::private) fn generation() -> Option<Generation> {
        GENERATION.with(Cell::get)
    }

    /// Runs `body` with every `ibv_cmd_*` of this thread serving a plug-in of generation `g`.
    pub(in crate::private) fn with_generation<R>(g: Generation, body: impl FnOnce() -> R) -> R {
        GENERATION.with(|c| c.set(Some(g)));
        let r = body();
        GENERATION.with(|c| c.set(None));
        r
    }

    /// The fake installed by [`with_fake`] on this thread.
    pub(in crate::private) fn fake() -> Option<&'static Fake> {
        // SAFETY: set only for the duration of `with_fake`, which borrows the fake.
        FAKE.with(|f| unsafe { f.get().as_ref() })
    }

    /// Runs `body` with every `ibv_cmd_*` of this thread talking to `f`.
    pub(in crate::private) fn with_fake<R>(f: &Fake, body: impl FnOnce() -> R) -> R {
        FAKE.with(|c| c.set(f));
        let r = body();
        FAKE.with(|c| c.set(ptr::null()));
        r
    }

    /// Runs `call` (which must succeed) against `f` answering `reply`; returns the command it wrote.
    pub(in crate::private) fn run(f: &Fake, reply: Reply, call: &mut dyn FnMut() -> c_int) -> Vec<u8> {
        f.reply(reply);
        assert_eq!(with_fake(f, &mut *call), 0);
        f.writes().last().unwrap().clone()
    }

    pub(in crate::private) fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
    }
    pub(in crate::private) fn u32_at(b: &[u8], o: usize) -> u32 {
        u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
    }
    pub(in crate::private) fn u64_at(b: &[u8], o: usize) -> u64 {
        u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
    }

    /// A zeroed C struct (filled by raw writes only: some hold enums without a zero value).
    pub(in crate::private) fn z<T>() -> MaybeUninit<T> {
        MaybeUninit::zeroed()
    }

    /// Legacy header words: (command, in_words, out_words).
    pub(in crate::private) fn hdr(w: &[u8]) -> (u32, u16, u16) {
        (u32_at(w, 0), u16_at(w, 4), u16_at(w, 6))
    }

    /// A provider's `struct ibv_<cmd>` + driver data: header zero, core `core` bytes of `fill`, then `drv`.
    pub(in crate::private) fn prov_cmd(hdr_len: usize, core: usize, fill: u8, drv: &[u8]) -> Vec<u8> {
        let mut v = vec![0u8; hdr_len];
        v.extend(std::iter::repeat_n(fill, core));
        v.extend_from_slice(drv);
        v
    }

    /// The (attribute id, length) pairs of the `i`-th ioctl `f` recorded.
    pub(in crate::private) fn ids(f: &Fake, i: usize) -> Vec<(u16, u16)> {
        let b = f.ioctl(i);
        (0..u16_at(&b, 6) as usize).map(|k| (u16_at(&b, 24 + 16 * k), u16_at(&b, 26 + 16 * k))).collect()
    }

    /// The (object, method) of the `i`-th ioctl `f` recorded.
    pub(in crate::private) fn obj_method(f: &Fake, i: usize) -> (u32, u32) {
        let b = f.ioctl(i);
        (u16_at(&b, 2) as u32, u16_at(&b, 4) as u32)
    }

    /// A C command buffer with room for 8 attributes.
    #[repr(C)]
    pub(in crate::private) struct CBuf {
        pub(in crate::private) b: ibv_command_buffer,
        room: [ib_uverbs_attr; 8],
    }

    pub(in crate::private) fn cbuf(object_id: u16, method_id: u16) -> Box<CBuf> {
        // SAFETY: all-zero bytes are a valid command buffer (integers and NULL pointers).
        let mut c: Box<CBuf> = Box::new(unsafe { std::mem::zeroed() });
        c.b.hdr.object_id = object_id;
        c.b.hdr.method_id = method_id;
        c.b.uhw_in_idx = UHW_NO_INDEX;
        c.b.uhw_out_idx = UHW_NO_INDEX;
        let base = addr_of_mut!(c.b.hdr.attrs).cast::<ib_uverbs_attr>();
        c.b.next_attr = base;
        c.b.last_attr = base.wrapping_add(8);
        c
    }

    pub(in crate::private) fn add(c: &mut CBuf, id: u16, len: u16, data: u64) {
        let mut a = ib_uverbs_attr::zeroed();
        a.attr_id = id;
        a.len = len;
        a.flags = UVERBS_ATTR_F_MANDATORY as u16;
        a.__bindgen_anon_1.data = data;
        // SAFETY: `next_attr` is within `room` (the tests add at most 8).
        unsafe {
            c.b.next_attr.write(a);
            c.b.next_attr = c.b.next_attr.add(1);
        }
    }

    /// The objects the marshalling tests share: a context `$ctx` (`$c` its address), a PD (handle 2), a CQ
    /// (3), an SRQ (4) and a QP (5) of it, their public mutex/cond initialised, and a channel (fd 9).
    macro_rules! objects {
        ($ctx:ident, $c:ident, $pd:ident, $cq:ident, $srq:ident, $qp:ident, $ch:ident) => {
            let mut $ctx: MaybeUninit<ibv_context> = z();
            let $c = $ctx.as_mut_ptr();
            #[allow(unused_mut, unused_variables)]
            let mut $pd = ibv_pd { context: $c, handle: 2 };
            #[allow(unused_mut, unused_variables)]
            let mut $cq: MaybeUninit<ibv_cq> = z();
            #[allow(unused_mut, unused_variables)]
            let mut $srq: MaybeUninit<ibv_srq> = z();
            #[allow(unused_mut, unused_variables)]
            let mut $qp: MaybeUninit<ibv_qp> = z();
            #[allow(unused_mut, unused_variables)]
            let mut $ch: MaybeUninit<ibv_comp_channel> = z();
            // SAFETY: our zeroed structs.
            unsafe {
                (*$cq.as_mut_ptr()).context = $c;
                (*$cq.as_mut_ptr()).handle = 3;
                (*$srq.as_mut_ptr()).context = $c;
                (*$srq.as_mut_ptr()).handle = 4;
                (*$qp.as_mut_ptr()).context = $c;
                (*$qp.as_mut_ptr()).handle = 5;
                (*$ch.as_mut_ptr()).fd = 9;
                let (cq, srq, qp) = ($cq.as_mut_ptr(), $srq.as_mut_ptr(), $qp.as_mut_ptr());
                crate::object::init_sync(std::ptr::addr_of_mut!((*cq).mutex), std::ptr::addr_of_mut!((*cq).cond));
                crate::object::init_sync(std::ptr::addr_of_mut!((*srq).mutex), std::ptr::addr_of_mut!((*srq).cond));
                crate::object::init_sync(std::ptr::addr_of_mut!((*qp).mutex), std::ptr::addr_of_mut!((*qp).cond));
            }
        };
    }
    pub(in crate::private) use objects;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use crate::private::{cq::*, flow::*, ioctl::*, mr::*, pd::*, qp::*, wq::*};
    use rdma_common::abi::driver::*;
    use std::ptr;
    #[test]
    fn contexts_not_ours_are_ebadf_and_null_objects_einval() {
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 1 };
        unsafe {
            // A context that is not live: EBADF, what rdma-core gets from the kernel for its fd.
            assert_eq!(ibv_cmd_dealloc_pd(&mut pd), libc::EBADF);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(ibv_cmd_dealloc_pd(ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_cmd_poll_cq(ptr::null_mut(), 1, ptr::null_mut()), -1);
            assert_eq!(execute_ioctl(ctx.as_mut_ptr(), ptr::null_mut()), libc::EINVAL);
            let mut bad: *mut ibv_send_wr = ptr::null_mut();
            let mut wr: MaybeUninit<ibv_send_wr> = z();
            assert_eq!(ibv_cmd_post_send(ptr::null_mut(), wr.as_mut_ptr(), &mut bad), libc::EINVAL);
            assert_eq!(bad, wr.as_mut_ptr(), "a failed post names the first request");
        }
    }

    #[test]
    fn the_plain_destroys_send_the_handle() {
        let f = Fake::new();
        objects!(ctx, c, pd, cq, srq, qp, ch);
        // The plain destroys.
        let mut flow = ibv_flow { comp_mask: 0, context: c, handle: 0x31 };
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_flow(&mut flow) });
        assert_eq!(
            (hdr(&w), u32_at(&w, 28)),
            ((IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW, 1, 0), 0x31)
        );
        let mut tbl = ibv_rwq_ind_table { context: c, ind_tbl_handle: 0x32, ind_tbl_num: 0, comp_mask: 0 };
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_rwq_ind_table(&mut tbl) });
        assert_eq!(
            (hdr(&w).0, u32_at(&w, 28)),
            (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL, 0x32)
        );
        let mut mw: MaybeUninit<ibv_mw> = z();
        unsafe {
            (*mw.as_mut_ptr()).context = c;
            (*mw.as_mut_ptr()).handle = 0x33;
        }
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_dealloc_mw(mw.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_DEALLOC_MW, 0x33));
        let mut mr: MaybeUninit<verbs_mr> = z();
        unsafe {
            (*mr.as_mut_ptr()).ibv_mr.context = c;
            (*mr.as_mut_ptr()).ibv_mr.handle = 0x34;
        }
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_dereg_mr(mr.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_DEREG_MR, 0x34));
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        unsafe {
            (*xrcd.as_mut_ptr()).xrcd.context = c;
            (*xrcd.as_mut_ptr()).handle = 0x35;
        }
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_close_xrcd(xrcd.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_CLOSE_XRCD, 0x35));
        let w = run(&f, Reply::write(&[]), &mut || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(w, [IB_USER_VERBS_CMD_DEALLOC_PD as u8, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0]);
    }
}
