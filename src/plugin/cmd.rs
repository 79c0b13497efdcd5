//! The `ibv_cmd_*` half of `IBVERBS_PRIVATE_34`: the generic uverbs commands rdma-core's provider plug-ins call
//! with their driver data, the ioctl command buffer (`execute_ioctl`, `__ioctl_final_num_attrs`) and
//! `verbs_init_cq`. Prototypes and semantics: rdma-core v44.0 `libibverbs/driver.h`, `cmd_ioctl.h`, `cmd*.c`.
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
//!   straight into the provider's `resp`;
//! * commands rdma-core builds itself (`DECLARE_LEGACY_UHW_BUFS`: CREATE_CQ, CREATE_QP, CREATE_SRQ, CREATE_WQ)
//!   send a core request built from zero, and the kernel's core response lands right before the provider's driver
//!   response (`resp + sizeof(provider's resp struct) - sizeof(kernel's core resp)`), or in a local buffer when
//!   the provider passes no driver response;
//! * the bytes sent are the same; rdma-core writes the header into the provider's `cmd` buffer, we build the
//!   command in our own buffer (`kernel::write_raw`) and leave the provider's `cmd` untouched.
//!
//! # Write or ioctl
//! As everywhere in this library ([`crate::kernel`]'s table): the write command where one exists (rdma-core 44
//! tries the ioctl first and falls back to the same write), the ioctl for GET_CONTEXT and QUERY_PORT (then the
//! write), and the ioctl for the commands that only exist as ioctls (QUERY_CONTEXT, REG_DMABUF_MR, QUERY_MR,
//! ADVISE_MR, DM, flow actions, counters), with the driver's attribute blocks linked after the core attributes.
//!
//! # Conventions
//! Every `int` function returns 0 or a positive errno, and on failure also stores it in `errno` (rdma-core's
//! failures come from a failed `write`/`ioctl`, which set it, or from argument checks, most of which set it too);
//! the exceptions are named on the function (`ibv_cmd_poll_cq`: a count or `-1`). NULL object pointers, which
//! rdma-core dereferences, give `EINVAL`. Nothing panics into C (`rdma_common::ffi::boundary`). Generic object
//! fields are filled as rdma-core fills them (`set_qp`, `set_vsrq`, `verbs_init_cq`, the `verbs_mr` type and
//! access, ...), and the destroys of CQs, QPs, SRQs and WQs wait until the events the kernel reported were
//! acknowledged.
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::context_driver_id;
use crate::kernel::{self, CmdFd, Uverbs};
use crate::object::{self, Context};
use crate::provider::cmd as pcmd;
use crate::provider::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::rdma_user_ioctl_cmds::{ib_uverbs_attr, UVERBS_ATTR_F_MANDATORY};
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};
use std::ptr::{self, addr_of, addr_of_mut};
use std::slice;
use std::sync::atomic::AtomicBool;

pub use rdma_common::abi::driver::*;

// ---------------------------------------------------------------------------------------------------------------
// Plumbing
// ---------------------------------------------------------------------------------------------------------------

/// `sizeof(struct ib_uverbs_cmd_hdr)` and `sizeof(struct ex_hdr)`.
const HDR: usize = size_of::<ib_uverbs_cmd_hdr>();
const EX_HDR: usize = HDR + size_of::<ib_uverbs_ex_cmd_hdr>();

/// `sizeof(struct ibv_<cmd>)` of kern-abi.h: header + the kernel's core request.
const fn abi<T>() -> usize {
    HDR + size_of::<T>()
}
const fn abi_ex<T>() -> usize {
    EX_HDR + size_of::<T>()
}

/// Runs the body of an `int` entry point: 0, or a positive errno also stored in `errno`.
fn ret(name: &'static str, body: impl FnOnce() -> Result<()>) -> c_int {
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
enum Fd<'a> {
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
unsafe fn fd_of<'a>(ctx: *mut ibv_context) -> Result<Fd<'a>> {
    #[cfg(test)]
    if let Some(f) = tests::fake() {
        return Ok(Fd::Fake(f));
    }
    // SAFETY: context_driver_id checks the registry before dereferencing.
    let id = unsafe { context_driver_id(ctx) }?;
    // SAFETY: a live context of ours, kept open by the provider calling us.
    Ok(Fd::Real(unsafe { pcmd::uverbs(ctx, id) }))
}

/// An object pointer a provider passed, which rdma-core dereferences: `EINVAL` for NULL.
fn obj<T>(p: *mut T) -> Result<*mut T> {
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
unsafe fn tail<'a>(p: *const c_void, size: usize, from: usize) -> &'a [u8] {
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
unsafe fn core_of<T: FromBytes>(cmd: *const c_void, cmd_size: usize, hdr: usize) -> Result<T> {
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
unsafe fn resp_bytes<'a>(resp: *mut c_void, len: usize) -> Result<&'a mut [u8]> {
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
unsafe fn write_direct<R: FromBytes>(
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
unsafe fn write_ex_direct<R: FromBytes>(
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
unsafe fn with_uhw_resp<R: FromBytes>(
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
unsafe fn write_uhw<Q: AsBytes, R: FromBytes>(
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
unsafe fn write_uhw_ex<Q: AsBytes, R: FromBytes>(
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
fn allow_disassociate_destroy() -> bool {
    verbs_allow_disassociate_destroy.load(std::sync::atomic::Ordering::Relaxed) || !pcmd::is_destroy_err(Errno::EIO)
}

/// rdma-core's `verbs_is_destroy_err`: `Ok(Some(v))` done, `Ok(None)` an `EIO` forgiven (the caller returns 0 at
/// once, without waiting for events), `Err` the error.
fn destroyed<T>(r: Result<T>) -> Result<Option<T>> {
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
unsafe fn wait(mutex: *mut libc::pthread_mutex_t, cond: *mut libc::pthread_cond_t, done: impl Fn() -> bool) {
    // SAFETY: caller's contract.
    unsafe { object::wait_events(mutex, cond, done) }
}

// ---------------------------------------------------------------------------------------------------------------
// The ioctl engine
// ---------------------------------------------------------------------------------------------------------------

/// At most this many attributes in one command (the kernel's own limit is far lower); guards against a corrupt
/// `next_attr`.
const MAX_ATTRS: usize = 1024;

/// The filled attributes of one C command buffer block (`hdr.attrs[..next_attr]`).
///
/// # Safety
/// `b` points to an initialised `ibv_command_buffer` whose `next_attr` points into (or one past) its attributes.
unsafe fn block_attrs<'a>(b: *mut ibv_command_buffer) -> Result<&'a mut [ib_uverbs_attr]> {
    // SAFETY: caller's contract; only addresses are compared before the slice is made.
    unsafe {
        let base = addr_of_mut!((*b).hdr.attrs).cast::<ib_uverbs_attr>();
        let bytes = ((*b).next_attr as usize).checked_sub(base as usize).ok_or(Errno::EINVAL)?;
        if bytes % size_of::<ib_uverbs_attr>() != 0 || bytes / size_of::<ib_uverbs_attr>() > MAX_ATTRS {
            return Err(Errno::EINVAL);
        }
        Ok(slice::from_raw_parts_mut(base, bytes / size_of::<ib_uverbs_attr>()))
    }
}

/// One `RDMA_VERBS_IOCTL` (rdma-core's `execute_ioctl`): the header and `own` attributes, then those of every
/// block linked from `link`, in one contiguous buffer; afterwards every attribute is copied back where it came
/// from (the kernel sets `UVERBS_ATTR_F_VALID_OUTPUT` and writes new object ids and fds into `data`). `uhw_in`
/// is the index of a `UVERBS_ATTR_UHW_IN` whose `data` still points to its bytes (libibverbs' compat scheme; a
/// linked block may name one with `uhw_in_idx`); at most 8 bytes are inlined before sending, as the kernel wants.
/// Returns the number of attributes sent.
///
/// Errors: `EINVAL` for a block marked `buffer_error` or a corrupt chain; the kernel's errno.
///
/// # Safety
/// Every block of `link` is an initialised command buffer; every attribute's pointer is valid for its length.
unsafe fn run_ioctl(
    u: &(impl CmdFd + ?Sized),
    object_id: u16,
    method_id: u16,
    own: &mut [ib_uverbs_attr],
    mut uhw_in: Option<usize>,
    link: *mut ibv_command_buffer,
) -> Result<usize> {
    let mut blocks: Vec<&mut [ib_uverbs_attr]> = Vec::new();
    let mut seen: Vec<*mut ibv_command_buffer> = Vec::new();
    let mut total = own.len();
    let mut b = link;
    while !b.is_null() {
        // A block linked twice (or the root linked again) would be a cycle, and aliased here.
        // SAFETY: only the address of the block's attribute array is computed.
        let attrs = unsafe { addr_of_mut!((*b).hdr.attrs) }.cast::<ib_uverbs_attr>();
        if seen.contains(&b) || seen.len() >= 64 || attrs == own.as_mut_ptr() {
            return Err(Errno::EINVAL);
        }
        seen.push(b);
        // SAFETY: caller's contract.
        unsafe {
            if (*b).flags & BUFFER_ERROR != 0 {
                return Err(Errno::EINVAL);
            }
            let a = block_attrs(b)?;
            if (*b).uhw_in_idx != UHW_NO_INDEX && uhw_in.is_none() {
                uhw_in = Some(total + (*b).uhw_in_idx as usize);
            }
            total += a.len();
            blocks.push(a);
            b = (*b).next;
        }
    }
    if total > MAX_ATTRS {
        return Err(Errno::EINVAL);
    }
    let hdr_len = size_of::<ib_uverbs_ioctl_hdr>();
    let alen = size_of::<ib_uverbs_attr>();
    let len = hdr_len + alen * total;
    let mut hdr = rdma_common::uapi::rdma_user_ioctl_cmds::ib_uverbs_ioctl_hdr::zeroed();
    hdr.length = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
    hdr.object_id = object_id;
    hdr.method_id = method_id;
    hdr.num_attrs = total as u16;
    hdr.driver_id = u.driver_id();
    let mut buf = vec![0u64; len / 8];
    {
        // SAFETY: u64 memory viewed as bytes, same length.
        let bytes = unsafe { slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), len) };
        bytes[..hdr_len].copy_from_slice(&hdr.as_bytes()[..hdr_len]);
        let all = own.iter().chain(blocks.iter().flat_map(|b| b.iter()));
        for (i, a) in all.enumerate() {
            bytes[hdr_len + i * alen..hdr_len + (i + 1) * alen].copy_from_slice(a.as_bytes());
        }
        if let Some(i) = uhw_in.filter(|&i| i < total) {
            let a = ib_uverbs_attr::from_bytes(&bytes[hdr_len + i * alen..]);
            // SAFETY: both union members are plain integers.
            let p = unsafe { a.__bindgen_anon_1.data } as usize as *const u8;
            if a.attr_id as u32 == UVERBS_ATTR_UHW_IN && a.len <= 8 && !p.is_null() {
                let mut d = [0u8; 8];
                // SAFETY: the attribute's pointer is valid for its length (caller's contract).
                unsafe { ptr::copy_nonoverlapping(p, d.as_mut_ptr(), a.len as usize) };
                bytes[hdr_len + i * alen + 8..hdr_len + (i + 1) * alen].copy_from_slice(&d);
            }
        }
    }
    // SAFETY: every attribute pointer is valid for its length (caller's contract) and the buffers they point to
    // are not touched by us until the call returns.
    unsafe { u.ioctl_verbs(&mut buf) }.inspect_err(|e| {
        log::trace!("plug-in ioctl object {object_id} method {method_id}: {e}");
    })?;
    // SAFETY: as above.
    let bytes = unsafe { slice::from_raw_parts(buf.as_ptr().cast::<u8>(), len) };
    let all = own.iter_mut().chain(blocks.iter_mut().flat_map(|b| b.iter_mut()));
    for (i, a) in all.enumerate() {
        *a = ib_uverbs_attr::from_bytes(&bytes[hdr_len + i * alen..]);
    }
    Ok(total)
}

/// A command built here for the ioctl ABI: rdma-core's `DECLARE_COMMAND_BUFFER(_LINK)` + `fill_attr_*`, the
/// attributes in the order rdma-core adds them (every one `UVERBS_ATTR_F_MANDATORY` unless made optional).
struct Cmdb {
    object_id: u16,
    method_id: u16,
    attrs: Vec<ib_uverbs_attr>,
}

impl Cmdb {
    fn new(object_id: u32, method_id: u32) -> Cmdb {
        Cmdb { object_id: object_id as u16, method_id: method_id as u16, attrs: Vec::with_capacity(16) }
    }

    fn push(&mut self, id: u32, len: u16, data: u64) -> usize {
        let mut a = ib_uverbs_attr::zeroed();
        a.attr_id = id as u16;
        a.len = len;
        a.flags = UVERBS_ATTR_F_MANDATORY as u16;
        a.__bindgen_anon_1.data = data;
        self.attrs.push(a);
        self.attrs.len() - 1
    }

    /// `fill_attr_in_obj`: an existing object by handle.
    fn in_obj(&mut self, id: u32, handle: u32) -> usize {
        self.push(id, 0, handle as u64)
    }

    /// `fill_attr_out_obj`: the kernel writes the new object's id into `data`.
    fn out_obj(&mut self, id: u32) -> usize {
        self.push(id, 0, 0)
    }

    /// `fill_attr_in_uint64` / `fill_attr_const_in`.
    fn in_u64(&mut self, id: u32, v: u64) -> usize {
        self.push(id, 8, v)
    }

    /// `fill_attr_in_uint32`: 4 bytes in `data`'s first bytes.
    fn in_u32(&mut self, id: u32, v: u32) -> usize {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&v.to_ne_bytes());
        self.push(id, 4, u64::from_ne_bytes(b))
    }

    /// `fill_attr_in`: `len` bytes at `p`, inline when at most 8. `EINVAL` over 65535 bytes (rdma-core's
    /// `buffer_error`) or for NULL with a length.
    ///
    /// # Safety
    /// `p` is valid for `len` bytes, and stays so until the command ran when `len > 8`.
    unsafe fn in_ptr(&mut self, id: u32, p: *const c_void, len: usize) -> Result<usize> {
        let l = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
        if len <= 8 {
            let mut b = [0u8; 8];
            if len > 0 {
                if p.is_null() {
                    return Err(Errno::EINVAL);
                }
                // SAFETY: caller's contract.
                unsafe { ptr::copy_nonoverlapping(p.cast::<u8>(), b.as_mut_ptr(), len) };
            }
            Ok(self.push(id, l, u64::from_ne_bytes(b)))
        } else {
            Ok(self.push(id, l, p as usize as u64))
        }
    }

    /// `fill_attr_in_enum`: [`Cmdb::in_ptr`] naming the element `elem_id` of an enum attribute.
    ///
    /// # Safety
    /// As [`Cmdb::in_ptr`].
    unsafe fn in_enum(&mut self, id: u32, elem_id: u8, p: *const c_void, len: usize) -> Result<usize> {
        // SAFETY: caller's contract.
        let i = unsafe { self.in_ptr(id, p, len) }?;
        self.attrs[i].attr_data.enum_data.elem_id = elem_id;
        Ok(i)
    }

    /// `fill_attr_out`: the kernel writes up to `len` bytes at `p`. `EINVAL` over 65535 bytes.
    fn out_ptr(&mut self, id: u32, p: *mut c_void, len: usize) -> Result<usize> {
        let l = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
        Ok(self.push(id, l, p as usize as u64))
    }

    /// The `data` of attribute `i` after the command ran (a new object's id).
    fn data(&self, i: usize) -> u64 {
        // SAFETY: both union members are plain integers.
        unsafe { self.attrs[i].__bindgen_anon_1.data }
    }

    /// Runs the command with the driver's blocks `link` appended (see [`run_ioctl`]).
    ///
    /// # Safety
    /// Every pointer given to the fill functions is still valid; `link` is NULL or a valid chain.
    unsafe fn exec(&mut self, u: &(impl CmdFd + ?Sized), link: *mut ibv_command_buffer) -> Result<()> {
        // SAFETY: caller's contract.
        unsafe { run_ioctl(u, self.object_id, self.method_id, &mut self.attrs, None, link) }.map(|_| ())
    }
}

/// `unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link)`.
///
/// rdma-core: sizes the command buffer of the frame that will execute a command: `num_attrs` plus the attributes
/// already filled in every block of the `link` chain. Pure arithmetic on the caller's buffers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ioctl_final_num_attrs(num_attrs: c_uint, link: *mut ibv_command_buffer) -> c_uint {
    let mut n = num_attrs;
    let mut link = link;
    while !link.is_null() {
        // SAFETY: the caller passes a chain of initialised command buffers; next_attr points into (or one past) the
        // block's own hdr.attrs array. Only addresses are subtracted.
        unsafe {
            let attrs = addr_of_mut!((*link).hdr.attrs) as usize;
            let filled = ((*link).next_attr as usize).wrapping_sub(attrs) / size_of::<ib_uverbs_attr>();
            n = n.wrapping_add(filled as c_uint);
            link = (*link).next;
        }
    }
    n
}

/// `int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)`.
///
/// rdma-core's ioctl executor, which providers also call directly (mlx5's DV commands): sends `RDMA_VERBS_IOCTL`
/// on the context's command fd with `cmd`'s attributes followed by those of every block linked from `cmd->next`,
/// the header carrying the context's driver id; afterwards each attribute (with the kernel's
/// `UVERBS_ATTR_F_VALID_OUTPUT` flags, new object ids and fds) is copied back into the block it came from, and
/// `cmd->hdr` holds the header sent (`length`, `num_attrs`, `driver_id`). Returns 0 or a positive errno (also in
/// `errno`): `EINVAL` for a buffer marked `buffer_error` (a fill function got what the ABI cannot carry), NULL
/// pointers or a context not of this library; otherwise the kernel's (`ENOTTY`/`EPROTONOSUPPORT` where the
/// method is unknown).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execute_ioctl(context: *mut ibv_context, cmd: *mut ibv_command_buffer) -> c_int {
    ret("execute_ioctl", || {
        let cmd = obj(cmd)?;
        // SAFETY: a context from C (checked); the caller's command buffer chain.
        unsafe {
            let u = fd_of(context)?;
            if (*cmd).flags & BUFFER_ERROR != 0 {
                return Err(Errno::EINVAL);
            }
            let own = block_attrs(cmd)?;
            let uhw = ((*cmd).uhw_in_idx != UHW_NO_INDEX).then_some((*cmd).uhw_in_idx as usize);
            let (object_id, method_id) = ((*cmd).hdr.object_id, (*cmd).hdr.method_id);
            let n = run_ioctl(&u, object_id, method_id, own, uhw, (*cmd).next)?;
            let h = addr_of_mut!((*cmd).hdr);
            (*h).num_attrs = n as u16;
            (*h).length = (size_of::<ib_uverbs_ioctl_hdr>() + n * size_of::<ib_uverbs_attr>()) as u16;
            (*h).reserved1 = 0;
            (*h).reserved2 = 0;
            (*h).driver_id = u.driver_id();
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Context and device
// ---------------------------------------------------------------------------------------------------------------

/// `void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context, struct ibv_comp_channel *channel,
/// void *cq_context)`.
///
/// Initialises the generic fields of a CQ a provider allocated: `context`, `channel` (whose `refcnt` it takes,
/// under the context's lock), `cq_context`, the event counters (zero) and the public `mutex`/`cond`. NULL `cq` is
/// ignored. For a context not of this library it still fills the fields, locking the public `context->mutex` as
/// rdma-core does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_init_cq(
    cq: *mut ibv_cq,
    context: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
) {
    let _ = ffi::boundary("verbs_init_cq", || {
        let cq = obj(cq)?;
        // SAFETY: a CQ under construction by the provider; the channel is live (provider contract).
        unsafe {
            match Context::from_ibv(context) {
                Ok(ctx) => object::native::init_cq(ctx, cq, channel, cq_context),
                Err(_) => {
                    (*cq).context = context;
                    (*cq).channel = channel;
                    if !channel.is_null() && !context.is_null() {
                        let m = addr_of_mut!((*context).mutex);
                        libc::pthread_mutex_lock(m);
                        (*channel).refcnt += 1;
                        libc::pthread_mutex_unlock(m);
                    }
                    (*cq).cq_context = cq_context;
                    (*cq).comp_events_completed = 0;
                    (*cq).async_events_completed = 0;
                    object::init_sync(addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond));
                }
            }
        }
        Ok(())
    });
}

/// Records GET_CONTEXT's / QUERY_CONTEXT's `core_support` in our state of context `ctx` (rdma-core keeps it in
/// the `verbs_device`; only the core reads it, in `ibv_reg_mr`).
///
/// # Safety
/// `ctx` is a pointer from C.
unsafe fn set_core_support(ctx: *mut ibv_context, core: u64) {
    // SAFETY: checked against the registry first.
    if let Ok(c) = unsafe { Context::from_ibv(ctx) } {
        c.core_support.store(core, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `int ibv_cmd_get_context(struct verbs_context *context, struct ibv_get_context *cmd, size_t cmd_size,
/// struct ib_uverbs_get_context_resp *resp, size_t resp_size)`.
///
/// GET_CONTEXT with the provider's `alloc_ucontext` request and response: first the ioctl method (which reports
/// `num_comp_vectors` and `core_support`, stored in the context; the async fd is then allocated by whoever opens
/// the device, as rdma-core's `verbs_open_device` does), then, where the kernel has no ioctl for it, the write
/// command, which also sets `context->async_fd`. Errors: the kernel's (`EINVAL` for a second GET_CONTEXT on one
/// fd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_get_context(
    context: *mut verbs_context,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_get_context", || {
        let vctx = obj(context)?;
        // SAFETY: the provider's context (checked to be ours by fd_of) and buffers.
        unsafe {
            let ic = addr_of_mut!((*vctx).context);
            let u = fd_of(ic)?;
            let core_resp = size_of::<ib_uverbs_get_context_resp>();
            let udata_in = tail(cmd, cmd_size, abi::<ib_uverbs_get_context>());
            let mut ncv = 0u32;
            let mut core = 0u64;
            let mut c = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
            c.out_ptr(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, addr_of_mut!(ncv).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, addr_of_mut!(core).cast(), 8)?;
            if !udata_in.is_empty() {
                c.in_ptr(UVERBS_ATTR_UHW_IN, udata_in.as_ptr().cast(), udata_in.len())?;
            }
            if !resp.is_null() && resp_size > core_resp {
                c.out_ptr(UVERBS_ATTR_UHW_OUT, resp.cast::<u8>().add(core_resp).cast(), resp_size - core_resp)?;
            }
            match c.exec(&u, ptr::null_mut()) {
                Ok(()) => {
                    (*ic).num_comp_vectors = ncv as c_int;
                    set_core_support(ic, core);
                    Ok(())
                }
                Err(e) if kernel::ioctl_unsupported(e) => {
                    let req = ib_uverbs_get_context::zeroed();
                    let r: ib_uverbs_get_context_resp =
                        write_uhw(&u, IB_USER_VERBS_CMD_GET_CONTEXT, &req, udata_in, resp, resp_size, core_resp)?;
                    (*ic).async_fd = r.async_fd as c_int;
                    (*ic).num_comp_vectors = r.num_comp_vectors as c_int;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
    })
}

/// `int ibv_cmd_query_context(struct ibv_context *ctx, struct ibv_command_buffer *driver)`.
///
/// QUERY_CONTEXT (ioctl only) with the provider's attributes `driver` linked: writes `ctx->num_comp_vectors` and
/// the context's `core_support`. Errors: the kernel's (`EOPNOTSUPP` from drivers without `query_ucontext`,
/// `ENOTTY`/`EPROTONOSUPPORT` on kernels without the method).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_context(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int {
    ret("ibv_cmd_query_context", || {
        // SAFETY: a context of ours (checked), the provider's attribute chain.
        unsafe {
            let u = fd_of(ctx)?;
            let mut core = 0u64;
            let mut cmd = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
            cmd.out_ptr(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, addr_of_mut!((*ctx).num_comp_vectors).cast(), 4)?;
            cmd.out_ptr(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, addr_of_mut!(core).cast(), 8)?;
            cmd.exec(&u, driver)?;
            set_core_support(ctx, core);
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_device_any(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
/// struct ibv_device_attr_ex *attr, size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp,
/// size_t *resp_size)`.
///
/// Zeroes `attr` (`attr_size` bytes, at least a `struct ibv_device_attr`) and fills it from EX_QUERY_DEVICE when
/// it is larger than that (the response, core then the driver's, straight into the provider's `resp` of
/// `*resp_size` bytes; on `EOPNOTSUPP`/`ENOSYS` the legacy command instead), else from QUERY_DEVICE (into
/// `resp->base`); copies each extended field only when both `attr_size` and the kernel's `response_length`
/// reach it; `phys_port_cnt_ex` is the port count discovery found, else `phys_port_cnt`. `*resp_size` becomes the
/// `response_length`. NULL `resp` uses an internal buffer.
///
/// Errors: `EINVAL` for a non-zero `input->comp_mask`, a too small `attr_size` or `*resp_size`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_device_any(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut ib_uverbs_ex_query_device_resp,
    resp_size: *mut usize,
) -> c_int {
    ret("ibv_cmd_query_device_any", || {
        // SAFETY: the provider's buffers as the prototype describes them; a context of ours (checked).
        unsafe {
            if !input.is_null() && (*input).comp_mask != 0 {
                return Err(Errno::EINVAL);
            }
            let attr = obj(attr)?;
            if attr_size < size_of::<ibv_device_attr>() {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let mut internal = ib_uverbs_ex_query_device_resp::zeroed();
            let mut internal_size = size_of::<ib_uverbs_ex_query_device_resp>();
            let (resp, resp_size) = if resp.is_null() {
                (addr_of_mut!(internal), addr_of_mut!(internal_size))
            } else {
                (resp, obj(resp_size)?)
            };
            let core_resp = size_of::<ib_uverbs_ex_query_device_resp>();
            ptr::write_bytes(attr.cast::<u8>(), 0, attr_size);
            let mut size = attr_size;
            if size > size_of::<ibv_device_attr>() {
                let req = ib_uverbs_ex_query_device::zeroed();
                let r: Result<ib_uverbs_ex_query_device_resp> = write_ex_direct(
                    &u,
                    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
                    req.as_bytes(),
                    &[],
                    resp.cast(),
                    *resp_size,
                    core_resp,
                );
                match r {
                    Ok(_) => {}
                    Err(e) if e == Errno::EOPNOTSUPP || e == Errno::ENOSYS => size = size_of::<ibv_device_attr>(),
                    Err(e) => return Err(e),
                }
            }
            if size == size_of::<ibv_device_attr>() {
                let req = ib_uverbs_query_device::zeroed();
                let _: ib_uverbs_query_device_resp = write_direct(
                    &u,
                    IB_USER_VERBS_CMD_QUERY_DEVICE,
                    req.as_bytes(),
                    &[],
                    resp.cast(),
                    size_of::<ib_uverbs_query_device_resp>(),
                )?;
                (*resp).response_length = size_of::<ib_uverbs_query_device_resp>() as u32;
            }
            *resp_size = (*resp).response_length as usize;
            let r = ptr::read(resp);
            pcmd::fill_device_attr_ex(attr, size, &r);
            if size >= offset_of!(ibv_device_attr_ex, phys_port_cnt_ex) + 4 {
                let ports = Context::from_ibv(context).ok().and_then(|c| c.device.info.num_ports).unwrap_or(0);
                if ports != 0 {
                    (*attr).phys_port_cnt_ex = ports;
                }
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr,
/// struct ibv_query_port *cmd, size_t cmd_size)`.
///
/// QUERY_PORT: the ioctl (which also reports `port_cap_flags2`), then the write command where the kernel has no
/// ioctl for it, as rdma-core 44. Fills every field of `port_attr` the kernel reports. Driver data after the
/// command (`cmd_size` beyond `struct ibv_query_port`), which no provider passes and the kernel ignores, is not
/// sent. Errors: the kernel's (`EINVAL` for a bad port).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_port", || {
        let attr = obj(port_attr)?;
        // SAFETY: a context of ours (checked), the provider's attribute struct.
        unsafe { pcmd::query_port(&fd_of(context)?, port_num, attr) }
    })
}

// ---------------------------------------------------------------------------------------------------------------
// PD, XRCD
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)`.
///
/// ALLOC_PD with the provider's driver data, the response straight into `resp`; fills `pd->handle` and
/// `pd->context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_pd(
    context: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_alloc_pd", || {
        let pd = obj(pd)?;
        // SAFETY: a context of ours (checked) and the provider's buffers.
        unsafe {
            let u = fd_of(context)?;
            let req: ib_uverbs_alloc_pd = core_of(cmd, cmd_size, HDR)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_alloc_pd>());
            let r: ib_uverbs_alloc_pd_resp =
                write_direct(&u, IB_USER_VERBS_CMD_ALLOC_PD, req.as_bytes(), udata, resp, resp_size)?;
            (*pd).handle = r.pd_handle;
            (*pd).context = context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_dealloc_pd(struct ibv_pd *pd)`: DEALLOC_PD. Errors: `EBUSY` while objects use it; `EIO` from a
/// disassociated device counts as success when `verbs_allow_disassociate_destroy` is set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    ret("ibv_cmd_dealloc_pd", || {
        let pd = obj(pd)?;
        // SAFETY: the provider's live PD of a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            destroyed(kernel::pd::dealloc_pd(&u, (*pd).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
/// struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd, size_t cmd_size,
/// struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)`.
///
/// OPEN_XRCD of the inode behind `attr->fd` with `attr->oflags`; fills `xrcd->xrcd.context`, and `handle` with
/// `comp_mask = VERBS_XRCD_HANDLE` when `vxrcd_size` covers it (else `comp_mask` 0). Errors: `EOPNOTSUPP` for
/// unknown `comp_mask` bits, `EINVAL` without the FD and OFLAGS bits; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_xrcd(
    context: *mut ibv_context,
    xrcd: *mut verbs_xrcd,
    vxrcd_size: c_int,
    attr: *mut ibv_xrcd_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_open_xrcd", || {
        let (xrcd, attr) = (obj(xrcd)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let a = &*attr;
            if a.comp_mask >= ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_RESERVED as u32 {
                return Err(Errno::EOPNOTSUPP);
            }
            let need = ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_FD as u32
                | ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_OFLAGS as u32;
            if a.comp_mask & need != need {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let mut req: ib_uverbs_open_xrcd = core_of(cmd, cmd_size, HDR)?;
            req.fd = a.fd as u32;
            req.oflags = a.oflags as u32;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_open_xrcd>());
            let r: ib_uverbs_open_xrcd_resp =
                write_direct(&u, IB_USER_VERBS_CMD_OPEN_XRCD, req.as_bytes(), udata, resp, resp_size)?;
            (*xrcd).xrcd.context = context;
            (*xrcd).comp_mask = 0;
            if offset_of!(verbs_xrcd, handle) < vxrcd_size.max(0) as usize {
                (*xrcd).comp_mask = VERBS_XRCD_HANDLE;
                (*xrcd).handle = r.xrcd_handle;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)`: CLOSE_XRCD. Errors: `EBUSY` while QPs or SRQs use it; a
/// forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_close_xrcd(xrcd: *mut verbs_xrcd) -> c_int {
    ret("ibv_cmd_close_xrcd", || {
        let x = obj(xrcd)?;
        // SAFETY: the provider's live XRCD.
        unsafe {
            let u = fd_of((*x).xrcd.context)?;
            destroyed(kernel::xrcd::close_xrcd(&u, (*x).handle))?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// MR, MW, DM
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
/// struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size, struct ib_uverbs_reg_mr_resp *resp,
/// size_t resp_size)`.
///
/// REG_MR of `length` bytes at `addr`, seen by the device at `hca_va`, with the provider's driver data; an
/// on-demand (`IBV_ACCESS_ON_DEMAND`) region of `SIZE_MAX` bytes at NULL is the implicit ODP MR (length
/// `UINT64_MAX` for the kernel). Fills `handle`, `lkey`, `rkey`, `context`, `mr_type = IBV_MR_TYPE_MR` and
/// `access`. Errors: `EINVAL` for `SIZE_MAX` on-demand bytes at a non-NULL address; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_reg_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let mut req: ib_uverbs_reg_mr = core_of(cmd, cmd_size, HDR)?;
            req.start = addr as usize as u64;
            req.length = length as u64;
            if access as u32 & ibv_access_flags::IBV_ACCESS_ON_DEMAND as u32 != 0 && length == usize::MAX {
                if !addr.is_null() {
                    return Err(Errno::EINVAL);
                }
                req.length = u64::MAX;
            }
            req.hca_va = hca_va;
            req.pd_handle = (*pd).handle;
            req.access_flags = access as u32;
            let u = fd_of((*pd).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_reg_mr>());
            let r: ib_uverbs_reg_mr_resp =
                write_direct(&u, IB_USER_VERBS_CMD_REG_MR, req.as_bytes(), udata, resp, resp_size)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = r.mr_handle;
            (*m).lkey = r.lkey;
            (*m).rkey = r.rkey;
            (*m).context = (*pd).context;
            (*vmr).mr_type = IBV_MR_TYPE_MR;
            (*vmr).access = access;
        }
        Ok(())
    })
}

/// `int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length, uint64_t hca_va,
/// int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
/// size_t resp_sz)`.
///
/// REREG_MR (`flags`: `IBV_REREG_MR_CHANGE_TRANSLATION`/`_PD`/`_ACCESS`; the PD handle is sent only with
/// `_CHANGE_PD`); updates `lkey`, `rkey` and, with `_CHANGE_PD`, `context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_rereg_mr(
    vmr: *mut verbs_mr,
    flags: u32,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_sz: usize,
    resp: *mut c_void,
    resp_sz: usize,
) -> c_int {
    ret("ibv_cmd_rereg_mr", || {
        let vmr = obj(vmr)?;
        let change_pd = flags & ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_PD as u32 != 0;
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let m = addr_of_mut!((*vmr).ibv_mr);
            let mut req: ib_uverbs_rereg_mr = core_of(cmd, cmd_sz, HDR)?;
            req.mr_handle = (*m).handle;
            req.flags = flags;
            req.start = addr as usize as u64;
            req.length = length as u64;
            req.hca_va = hca_va;
            req.pd_handle = if change_pd { (*obj(pd)?).handle } else { 0 };
            req.access_flags = access as u32;
            let u = fd_of((*m).context)?;
            let udata = tail(cmd, cmd_sz, abi::<ib_uverbs_rereg_mr>());
            let r: ib_uverbs_rereg_mr_resp =
                write_direct(&u, IB_USER_VERBS_CMD_REREG_MR, req.as_bytes(), udata, resp, resp_sz)?;
            (*m).lkey = r.lkey;
            (*m).rkey = r.rkey;
            if change_pd {
                (*m).context = (*pd).context;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_dereg_mr(struct verbs_mr *vmr)`: DEREG_MR. Errors: `EBUSY` while memory windows are bound to it;
/// a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dereg_mr(vmr: *mut verbs_mr) -> c_int {
    ret("ibv_cmd_dereg_mr", || {
        let vmr = obj(vmr)?;
        // SAFETY: the provider's live MR.
        unsafe {
            let u = fd_of((*vmr).ibv_mr.context)?;
            destroyed(kernel::mr::dereg_mr(&u, (*vmr).ibv_mr.handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle)`.
///
/// QUERY_MR (ioctl only), what providers' `import_mr` uses: the kernel writes `lkey`, `rkey` and `length` of the
/// MR `mr_handle` straight into `vmr`; then `handle`, `context`, `pd`, `addr = NULL` and
/// `mr_type = IBV_MR_TYPE_IMPORTED_MR` are filled. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> c_int {
    ret("ibv_cmd_query_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
            c.in_obj(UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LKEY, addr_of_mut!((*m).lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_RKEY, addr_of_mut!((*m).rkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, addr_of_mut!((*m).length).cast(), size_of::<usize>())?;
            c.exec(&u, ptr::null_mut())?;
            (*m).handle = mr_handle;
            (*m).context = (*pd).context;
            (*m).pd = pd;
            (*m).addr = ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_IMPORTED_MR;
        }
        Ok(())
    })
}

/// `int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
/// struct ibv_sge *sg_list, uint32_t num_sge)`.
///
/// ADVISE_MR (ioctl only): prefetch advice for on-demand MRs, `num_sge` ranges at `sg_list`. Errors: `EINVAL`
/// for a list over 65535 bytes; the kernel's (`EOPNOTSUPP` without ODP).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_advise_mr(
    pd: *mut ibv_pd,
    advice: u32,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int {
    ret("ibv_cmd_advise_mr", || {
        let pd = obj(pd)?;
        // SAFETY: the provider's PD and SGE array.
        unsafe {
            let u = fd_of((*pd).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
            c.in_obj(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, (*pd).handle);
            c.in_u64(UVERBS_ATTR_ADVISE_MR_ADVICE, advice as u64);
            c.in_u32(UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
            let len = (num_sge as usize).checked_mul(size_of::<ibv_sge>()).ok_or(Errno::EINVAL)?;
            c.in_ptr(UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list.cast(), len)?;
            c.exec(&u, ptr::null_mut())
        }
    })
}

/// `int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
/// int access, struct verbs_mr *vmr)`.
///
/// REG_DMABUF_MR (ioctl only): registers `length` bytes at `offset` of the dma-buf `fd`, seen at `iova`; fills
/// `handle`, `context`, `lkey`, `rkey`, `pd`, `addr = offset`, `length` and `mr_type = IBV_MR_TYPE_DMABUF_MR`.
/// Errors: the kernel's (`EOPNOTSUPP` for drivers without dma-buf support, such as rxe and siw).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut verbs_mr,
) -> c_int {
    ret("ibv_cmd_reg_dmabuf_mr", || {
        let (pd, vmr) = (obj(pd)?, obj(vmr)?);
        // SAFETY: the provider's objects; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let (mut lkey, mut rkey) = (0u32, 0u32);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
            let h = c.out_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
            c.out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, addr_of_mut!(lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, addr_of_mut!(rkey).cast(), 4)?;
            c.in_obj(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, (*pd).handle);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length as u64);
            c.in_u64(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
            c.in_u32(UVERBS_ATTR_REG_DMABUF_MR_FD, fd as u32);
            c.in_u32(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access as u32);
            c.exec(&u, ptr::null_mut())?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = c.data(h) as u32;
            (*m).context = (*pd).context;
            (*m).lkey = lkey;
            (*m).rkey = rkey;
            (*m).pd = pd;
            (*m).addr = offset as usize as *mut c_void;
            (*m).length = length;
            (*vmr).mr_type = IBV_MR_TYPE_DMABUF_MR;
        }
        Ok(())
    })
}

/// `int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
/// size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)`.
///
/// ALLOC_MW of `type` (1 or 2) with the provider's driver data; fills `context`, `pd`, `rkey`, `handle`, `type`.
/// Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_mw(
    pd: *mut ibv_pd,
    r#type: u32,
    mw: *mut ibv_mw,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_alloc_mw", || {
        let (pd, mw) = (obj(pd)?, obj(mw)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let mut req: ib_uverbs_alloc_mw = core_of(cmd, cmd_size, HDR)?;
            req.pd_handle = (*pd).handle;
            req.mw_type = r#type as u8;
            req.reserved = [0; 3];
            let u = fd_of((*pd).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_alloc_mw>());
            let r: ib_uverbs_alloc_mw_resp =
                write_direct(&u, IB_USER_VERBS_CMD_ALLOC_MW, req.as_bytes(), udata, resp, resp_size)?;
            (*mw).context = (*pd).context;
            (*mw).pd = pd;
            (*mw).rkey = r.rkey;
            (*mw).handle = r.mw_handle;
            ffi::enum_store(addr_of_mut!((*mw).r#type), r#type);
        }
        Ok(())
    })
}

/// `int ibv_cmd_dealloc_mw(struct ibv_mw *mw)`: DEALLOC_MW. Errors: the kernel's; a forgiven `EIO` as for
/// [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_dealloc_mw(mw: *mut ibv_mw) -> c_int {
    ret("ibv_cmd_dealloc_mw", || {
        let mw = obj(mw)?;
        // SAFETY: the provider's live MW.
        unsafe {
            let u = fd_of((*mw).context)?;
            destroyed(kernel::mw::dealloc_mw(&u, (*mw).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr, struct verbs_dm *dm,
/// struct ibv_command_buffer *link)`.
///
/// DM_ALLOC (ioctl only) of `dm_attr->length` bytes of device memory aligned to `2^log_align_req`, with the
/// provider's attributes `link`; fills `dm->handle`, `dm->dm.handle`, `dm->dm.comp_mask = IBV_DM_MASK_HANDLE`,
/// `dm->dm.context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_alloc_dm(
    ctx: *mut ibv_context,
    dm_attr: *const ibv_alloc_dm_attr,
    dm: *mut verbs_dm,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_alloc_dm", || {
        let (a, dm) = (obj(dm_attr.cast_mut())?, obj(dm)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of(ctx)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
            let h = c.out_obj(UVERBS_ATTR_ALLOC_DM_HANDLE);
            c.in_u64(UVERBS_ATTR_ALLOC_DM_LENGTH, (*a).length as u64);
            c.in_u32(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, (*a).log_align_req);
            c.exec(&u, link)?;
            (*dm).handle = c.data(h) as u32;
            (*dm).dm.handle = (*dm).handle;
            (*dm).dm.comp_mask = ibv_dm_mask::IBV_DM_MASK_HANDLE as u32;
            (*dm).dm.context = ctx;
        }
        Ok(())
    })
}

/// `int ibv_cmd_free_dm(struct verbs_dm *dm)`: DM_FREE (ioctl only). Errors: the kernel's; a forgiven `EIO` as
/// for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_free_dm(dm: *mut verbs_dm) -> c_int {
    ret("ibv_cmd_free_dm", || {
        let dm = obj(dm)?;
        // SAFETY: the provider's live DM.
        unsafe {
            let u = fd_of((*dm).dm.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE);
            c.in_obj(UVERBS_ATTR_FREE_DM_HANDLE, (*dm).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
/// unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link)`.
///
/// DM_MR_REG (ioctl only): an MR over `length` bytes at `offset` of device memory `dm`, with the provider's
/// attributes `link`; fills `handle`, `context`, `lkey`, `rkey`, `length`, `pd`, `addr = NULL`,
/// `mr_type = IBV_MR_TYPE_MR`. Errors: `EINVAL` without `IBV_ACCESS_ZERO_BASED` (device memory MRs are always zero
/// based); the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_reg_dm_mr(
    pd: *mut ibv_pd,
    dm: *mut verbs_dm,
    offset: u64,
    length: usize,
    access: c_uint,
    vmr: *mut verbs_mr,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_reg_dm_mr", || {
        if access & IBV_ACCESS_ZERO_BASED == 0 {
            return Err(Errno::EINVAL);
        }
        let (pd, dm, vmr) = (obj(pd)?, obj(dm)?, obj(vmr)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of((*pd).context)?;
            let (mut lkey, mut rkey) = (0u32, 0u32);
            let mut c = Cmdb::new(UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG);
            let h = c.out_obj(UVERBS_ATTR_REG_DM_MR_HANDLE);
            c.out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, addr_of_mut!(lkey).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, addr_of_mut!(rkey).cast(), 4)?;
            c.in_obj(UVERBS_ATTR_REG_DM_MR_PD_HANDLE, (*pd).handle);
            c.in_obj(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, (*dm).handle);
            c.in_u64(UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
            c.in_u64(UVERBS_ATTR_REG_DM_MR_LENGTH, length as u64);
            c.in_u32(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
            c.exec(&u, link)?;
            let m = addr_of_mut!((*vmr).ibv_mr);
            (*m).handle = c.data(h) as u32;
            (*m).context = (*pd).context;
            (*m).lkey = lkey;
            (*m).rkey = rkey;
            (*m).length = length;
            (*m).pd = pd;
            (*m).addr = ptr::null_mut();
            (*vmr).mr_type = IBV_MR_TYPE_MR;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// CQ
// ---------------------------------------------------------------------------------------------------------------

/// The legacy CREATE_CQ rdma-core builds (`ibv_icmd_create_cq`, write path).
///
/// # Safety
/// `channel` is NULL or a live completion channel.
unsafe fn create_cq_req(
    cq: *mut ibv_cq,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> ib_uverbs_create_cq {
    let mut req = ib_uverbs_create_cq::zeroed();
    req.user_handle = cq as usize as u64;
    req.cqe = cqe as u32;
    req.comp_vector = comp_vector as u32;
    // SAFETY: caller's contract.
    req.comp_channel = if channel.is_null() { -1 } else { unsafe { (*channel).fd } };
    req
}

/// `int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
/// int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_cq_resp *resp, size_t resp_size)`.
///
/// CREATE_CQ of at least `cqe` entries reporting to `channel` (NULL: none) on `comp_vector`, with the provider's
/// driver data; `user_handle` is `cq`. Sets `cq->context` (first, as rdma-core), then `handle` and `cqe` (the size
/// granted). The other generic fields are `verbs_init_cq`'s. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
    cq: *mut ibv_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let u = fd_of(context)?;
            (*cq).context = context;
            let req = create_cq_req(cq, cqe, channel, comp_vector);
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_create_cq>());
            let r: ib_uverbs_create_cq_resp = write_uhw(
                &u,
                IB_USER_VERBS_CMD_CREATE_CQ,
                &req,
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_create_cq_resp>(),
            )?;
            (*cq).handle = r.cq_handle;
            (*cq).cqe = r.cqe as c_int;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
/// struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
/// size_t resp_size, uint32_t cmd_flags)`.
///
/// As [`ibv_cmd_create_cq`] from `ibv_cq_init_attr_ex`: creation flags are derived from the attributes
/// (completion timestamps, `IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN`). With none, or only the timestamp flag while
/// `cmd_flags` has `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`, the legacy CREATE_CQ is sent (the kernel's response then
/// lands right before the provider's driver response, as rdma-core places it); otherwise EX_CREATE_CQ with the
/// flags. Errors: `EOPNOTSUPP` for `comp_mask` bits beyond FLAGS and PD; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *const ibv_cq_init_attr_ex,
    cq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
) -> c_int {
    ret("ibv_cmd_create_cq_ex", || {
        let (a, vcq) = (obj(cq_attr.cast_mut())?, obj(cq)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let a = &*a;
            let sup = ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_FLAGS as u32
                | ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_PD as u32;
            if a.comp_mask & !sup != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let ts = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
                | ibv_create_cq_wc_flags::IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK as u64;
            let mut flags = 0u32;
            if a.wc_flags & ts != 0 {
                flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
            }
            if a.comp_mask & ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_FLAGS as u32 != 0
                && a.flags & ibv_create_cq_attr_flags::IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN as u32 != 0
            {
                flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
            }
            let u = fd_of(context)?;
            let cq = addr_of_mut!((*vcq).cq_ex).cast::<ibv_cq>();
            (*cq).context = context;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_create_cq>());
            let prov_resp = size_of::<ib_uverbs_ex_create_cq_resp>();
            let legacy = flags == 0
                || (flags & !IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION == 0
                    && cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX != 0);
            let (handle, cqe) = if legacy {
                let req = create_cq_req(cq, a.cqe as c_int, a.channel, a.comp_vector as c_int);
                let r: ib_uverbs_create_cq_resp =
                    write_uhw(&u, IB_USER_VERBS_CMD_CREATE_CQ, &req, udata, resp, resp_size, prov_resp)?;
                (r.cq_handle, r.cqe)
            } else {
                let mut req = ib_uverbs_ex_create_cq::zeroed();
                req.user_handle = cq as usize as u64;
                req.cqe = a.cqe;
                req.comp_vector = a.comp_vector;
                req.comp_channel = if a.channel.is_null() { -1 } else { (*a.channel).fd };
                req.flags = flags;
                let r: ib_uverbs_ex_create_cq_resp =
                    write_uhw_ex(&u, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req, udata, resp, resp_size, prov_resp)?;
                (r.base.cq_handle, r.base.cqe)
            };
            (*cq).handle = handle;
            (*cq).cqe = cqe as c_int;
        }
        Ok(())
    })
}

/// `int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)`.
///
/// POLL_CQ through the kernel (drivers without a user-space CQ): up to `ne` completions into `wc`, each field
/// rdma-core copies (`wr_id`, `status`, `opcode`, `vendor_err`, `byte_len`, `imm_data`, `qp_num`, `src_qp`,
/// `wc_flags`, `pkey_index`, `slid`, `sl`, `dlid_path_bits`). Returns the number of completions, or `-1` with
/// `errno` set (`EINVAL` for NULL pointers or a negative `ne`; the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    let r = ffi::boundary("ibv_cmd_poll_cq", || -> Result<c_int> {
        let cq = obj(cq)?;
        let n = usize::try_from(ne).map_err(|_| Errno::EINVAL)?;
        if n > 0 {
            obj(wc)?;
        }
        // SAFETY: the provider's live CQ and its array of `ne` completions.
        unsafe {
            let u = fd_of((*cq).context)?;
            let mut k = vec![ib_uverbs_wc::zeroed(); n];
            let count = kernel::cq::poll_cq(&u, (*cq).handle, &mut k)?;
            for (i, s) in k.iter().take(count).enumerate() {
                let d = wc.add(i);
                (*d).wr_id = s.wr_id;
                ffi::enum_store(addr_of_mut!((*d).status), s.status);
                ffi::enum_store(addr_of_mut!((*d).opcode), s.opcode);
                (*d).vendor_err = s.vendor_err;
                (*d).byte_len = s.byte_len;
                (*d).imm.imm_data = s.ex.imm_data;
                (*d).qp_num = s.qp_num;
                (*d).src_qp = s.src_qp;
                (*d).wc_flags = s.wc_flags;
                (*d).pkey_index = s.pkey_index;
                (*d).slid = s.slid;
                (*d).sl = s.sl;
                (*d).dlid_path_bits = s.dlid_path_bits;
            }
            Ok(count as c_int)
        }
    });
    ffi::CResult::or_minus_one_errno(r)
}

/// `int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)`: REQ_NOTIFY_CQ (arms the CQ in the kernel
/// for the next completion, or the next solicited one). Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    ret("ibv_cmd_req_notify_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ.
        unsafe { kernel::cq::req_notify_cq(&fd_of((*cq).context)?, (*cq).handle, solicited_only != 0) }
    })
}

/// `int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
/// struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)`.
///
/// RESIZE_CQ to at least `cqe` entries with the provider's driver data, the response straight into `resp`;
/// `cq->cqe` becomes the size granted. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_resize_cq(
    cq: *mut ibv_cq,
    cqe: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_resize_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ and buffers.
        unsafe {
            let mut req: ib_uverbs_resize_cq = core_of(cmd, cmd_size, HDR)?;
            req.cq_handle = (*cq).handle;
            req.cqe = cqe as u32;
            let u = fd_of((*cq).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_resize_cq>());
            let r: ib_uverbs_resize_cq_resp =
                write_direct(&u, IB_USER_VERBS_CMD_RESIZE_CQ, req.as_bytes(), udata, resp, resp_size)?;
            (*cq).cqe = r.cqe as c_int;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_cq(struct ibv_cq *cq)`.
///
/// DESTROY_CQ, then waits (under the CQ's public mutex) until the completion and async events the kernel reported
/// for it were acknowledged. The channel's reference is the caller's to drop. Errors: `EBUSY` while QPs use it; a
/// forgiven `EIO` (see [`ibv_cmd_dealloc_pd`]) returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_cq(cq: *mut ibv_cq) -> c_int {
    ret("ibv_cmd_destroy_cq", || {
        let cq = obj(cq)?;
        // SAFETY: the provider's live CQ, whose mutex/cond were initialised (verbs_init_cq).
        unsafe {
            let u = fd_of((*cq).context)?;
            if let Some(r) = destroyed(kernel::cq::destroy_cq(&u, (*cq).handle))? {
                wait(addr_of_mut!((*cq).mutex), addr_of_mut!((*cq).cond), || {
                    object::all_acked(
                        "ibv_destroy_cq (completion events)",
                        (*cq).comp_events_completed,
                        r.comp_events_reported,
                    ) && object::all_acked(
                        "ibv_destroy_cq (async events)",
                        (*cq).async_events_completed,
                        r.async_events_reported,
                    )
                });
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr, struct ibv_modify_cq *cmd,
/// size_t cmd_size)`.
///
/// EX_MODIFY_CQ (moderation: `cq_count` completions or `cq_period` microseconds) with the provider's driver data.
/// Errors: `EINVAL` for `attr_mask` bits from `IBV_CQ_ATTR_RESERVED` up; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_cq(
    cq: *mut ibv_cq,
    attr: *mut ibv_modify_cq_attr,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_cq", || {
        let (cq, attr) = (obj(cq)?, obj(attr)?);
        // SAFETY: the provider's live CQ, attributes and buffers.
        unsafe {
            let a = &*attr;
            if a.attr_mask >= ibv_cq_attr_mask::IBV_CQ_ATTR_RESERVED as u32 {
                return Err(Errno::EINVAL);
            }
            let mut req: ib_uverbs_ex_modify_cq = core_of(cmd, cmd_size, EX_HDR)?;
            req.cq_handle = (*cq).handle;
            req.attr_mask = a.attr_mask;
            req.attr.cq_count = a.moderate.cq_count;
            req.attr.cq_period = a.moderate.cq_period;
            req.reserved = 0;
            let u = fd_of((*cq).context)?;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_modify_cq>());
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_MODIFY_CQ, req.as_bytes(), udata, None)
        }
    })
}

// ---------------------------------------------------------------------------------------------------------------
// SRQ
// ---------------------------------------------------------------------------------------------------------------

const SRQ_INIT_ATTR_TYPE: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TYPE as u32;
const SRQ_INIT_ATTR_PD: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_PD as u32;
const SRQ_INIT_ATTR_XRCD: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_XRCD as u32;
const SRQ_INIT_ATTR_CQ: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_CQ as u32;
const SRQ_INIT_ATTR_TM: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TM as u32;
const SRQ_INIT_ATTR_RESERVED: u32 = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_RESERVED as u32;
const SRQT_BASIC: u32 = ibv_srq_type::IBV_SRQT_BASIC as u32;
const SRQT_XRC: u32 = ibv_srq_type::IBV_SRQT_XRC as u32;
const SRQT_TM: u32 = ibv_srq_type::IBV_SRQT_TM as u32;

/// rdma-core's `set_vsrq`: the `verbs_srq` fields of an XRC or TM SRQ.
///
/// # Safety
/// `vsrq` and `a` are the provider's.
unsafe fn set_vsrq(vsrq: *mut verbs_srq, a: &ibv_srq_init_attr_ex, srq_num: u32) {
    // SAFETY: caller's contract; `verbs_xrcd` begins with its `ibv_xrcd`.
    unsafe {
        let t = if a.comp_mask & SRQ_INIT_ATTR_TYPE != 0 { ffi::enum_raw(addr_of!(a.srq_type)) } else { SRQT_BASIC };
        (*vsrq).srq_type = t;
        if t == SRQT_XRC {
            (*vsrq).srq_num = srq_num;
            (*vsrq).xrcd = a.xrcd.cast();
        }
        if a.comp_mask & SRQ_INIT_ATTR_CQ != 0 {
            (*vsrq).cq = a.cq;
        }
    }
}

/// rdma-core's `ibv_icmd_create_srq` on the write ABI: sets `context` and the public mutex/cond, then CREATE_SRQ
/// for a basic SRQ or CREATE_XSRQ for an XRC/TM one (whose `verbs_srq` fields it fills), and the granted sizes
/// in `attr.attr`. `prov_cmd` is the size of the provider's `struct ibv_<cmd>`, after which its driver data
/// starts.
///
/// # Safety
/// The provider's objects and buffers.
unsafe fn create_srq(
    pd: *mut ibv_pd,
    vsrq: *mut verbs_srq,
    srq: *mut ibv_srq,
    a: &mut ibv_srq_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    prov_cmd: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: caller's contract.
    unsafe {
        let ctx = (*pd).context;
        let u = fd_of(ctx)?;
        (*srq).context = ctx;
        object::init_sync(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond));
        let srq_type =
            if a.comp_mask & SRQ_INIT_ATTR_TYPE != 0 { ffi::enum_raw(addr_of!(a.srq_type)) } else { SRQT_BASIC };
        match srq_type {
            SRQT_XRC if a.comp_mask & SRQ_INIT_ATTR_XRCD == 0 || a.comp_mask & SRQ_INIT_ATTR_CQ == 0 => {
                return Err(Errno::EINVAL)
            }
            SRQT_TM
                if a.comp_mask & SRQ_INIT_ATTR_CQ == 0
                    || a.comp_mask & SRQ_INIT_ATTR_TM == 0
                    || a.tm_cap.max_num_tags == 0 =>
            {
                return Err(Errno::EINVAL)
            }
            _ => {}
        }
        let udata = tail(cmd, cmd_size, prov_cmd);
        let prov_resp = size_of::<ib_uverbs_create_srq_resp>();
        // As rdma-core, the write path goes by the `srq_type` field itself.
        if ffi::enum_raw(addr_of!(a.srq_type)) == SRQT_BASIC {
            let mut req = ib_uverbs_create_srq::zeroed();
            req.pd_handle = (*pd).handle;
            req.user_handle = srq as usize as u64;
            req.max_wr = a.attr.max_wr;
            req.max_sge = a.attr.max_sge;
            req.srq_limit = a.attr.srq_limit;
            let r: ib_uverbs_create_srq_resp =
                write_uhw(&u, IB_USER_VERBS_CMD_CREATE_SRQ, &req, udata, resp, resp_size, prov_resp)?;
            (*srq).handle = r.srq_handle;
            a.attr.max_wr = r.max_wr;
            a.attr.max_sge = r.max_sge;
        } else {
            let t = ffi::enum_raw(addr_of!(a.srq_type));
            let mut req = ib_uverbs_create_xsrq::zeroed();
            req.pd_handle = (*pd).handle;
            req.user_handle = srq as usize as u64;
            req.max_wr = a.attr.max_wr;
            req.max_sge = a.attr.max_sge;
            req.srq_limit = a.attr.srq_limit;
            req.srq_type = t;
            req.cq_handle = (*obj(a.cq)?).handle;
            if t == SRQT_TM {
                req.max_num_tags = a.tm_cap.max_num_tags;
            } else {
                req.xrcd_handle = (*obj(a.xrcd.cast::<verbs_xrcd>())?).handle;
            }
            let r: ib_uverbs_create_srq_resp =
                write_uhw(&u, IB_USER_VERBS_CMD_CREATE_XSRQ, &req, udata, resp, resp_size, prov_resp)?;
            (*srq).handle = r.srq_handle;
            a.attr.max_wr = r.max_wr;
            a.attr.max_sge = r.max_sge;
            set_vsrq(obj(vsrq)?, a, r.srqn);
        }
    }
    Ok(())
}

/// `int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
/// struct ibv_create_srq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`.
///
/// CREATE_SRQ of a basic SRQ on `pd` with the provider's driver data; `user_handle` is `srq`. Sets `context` and
/// the public mutex/cond, then `handle`; `attr->attr.max_wr`/`max_sge` become the sizes granted. Errors: the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_srq", || {
        let (pd, srq, attr) = (obj(pd)?, obj(srq)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            // All zero is a valid value: its one enum, `srq_type`, is then IBV_SRQT_BASIC.
            let mut a: ibv_srq_init_attr_ex = std::mem::zeroed();
            a.srq_context = (*attr).srq_context;
            a.attr = (*attr).attr;
            create_srq(
                pd,
                ptr::null_mut(),
                srq,
                &mut a,
                cmd,
                cmd_size,
                abi::<ib_uverbs_create_srq>(),
                resp,
                resp_size,
            )?;
            (*attr).attr.max_wr = a.attr.max_wr;
            (*attr).attr.max_sge = a.attr.max_sge;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
/// struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd, size_t cmd_size,
/// struct ib_uverbs_create_srq_resp *resp, size_t resp_size)`.
///
/// As [`ibv_cmd_create_srq`] from extended attributes: a basic SRQ with CREATE_SRQ, an XRC SRQ (on
/// `attr_ex->xrcd`, completions to `attr_ex->cq`) or a tag-matching one with CREATE_XSRQ, filling the
/// `verbs_srq` fields (`srq_type`, `srq_num` and `xrcd` for XRC, `cq`) for those. Errors: `EOPNOTSUPP` for unknown
/// `comp_mask` bits; `EINVAL` without a PD, an XRC SRQ without XRCD or CQ, a TM SRQ without CQ, TM
/// capabilities or tags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_srq_ex(
    _context: *mut ibv_context,
    srq: *mut verbs_srq,
    attr_ex: *mut ibv_srq_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_srq_ex", || {
        let (vsrq, a) = (obj(srq)?, obj(attr_ex)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            if (*a).comp_mask >= SRQ_INIT_ATTR_RESERVED {
                return Err(Errno::EOPNOTSUPP);
            }
            if (*a).comp_mask & SRQ_INIT_ATTR_PD == 0 {
                return Err(Errno::EINVAL);
            }
            // As rdma-core, the SRQ belongs to the PD's context (`context` is not used).
            let pd = obj((*a).pd)?;
            let s = addr_of_mut!((*vsrq).srq);
            create_srq(pd, vsrq, s, &mut *a, cmd, cmd_size, abi::<ib_uverbs_create_xsrq>(), resp, resp_size)
        }
    })
}

/// `int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
/// struct ibv_modify_srq *cmd, size_t cmd_size)`.
///
/// MODIFY_SRQ (`IBV_SRQ_MAX_WR` resize, `IBV_SRQ_LIMIT` arm) with the provider's driver data (rxe passes the
/// address the kernel writes new queue geometry to). Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_srq", || {
        let (srq, attr) = (obj(srq)?, obj(srq_attr)?);
        // SAFETY: the provider's live SRQ and buffers (addresses in its driver data are its own).
        unsafe {
            let u = fd_of((*srq).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_modify_srq>());
            pcmd::modify_srq(&u, srq, attr, srq_attr_mask, udata)
        }
    })
}

/// `int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, struct ibv_query_srq *cmd,
/// size_t cmd_size)`: QUERY_SRQ; fills `max_wr`, `max_sge`, `srq_limit`. Driver data after the command, which no
/// provider passes and the kernel ignores, is not sent. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_srq", || {
        let (srq, attr) = (obj(srq)?, obj(srq_attr)?);
        // SAFETY: the provider's live SRQ.
        unsafe { pcmd::query_srq(&fd_of((*srq).context)?, srq, attr) }
    })
}

/// `int ibv_cmd_destroy_srq(struct ibv_srq *srq)`: DESTROY_SRQ, then waits until the async events the kernel
/// reported for it were acknowledged. Errors: `EBUSY` while QPs use it; a forgiven `EIO` (see
/// [`ibv_cmd_dealloc_pd`]) returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_srq(srq: *mut ibv_srq) -> c_int {
    ret("ibv_cmd_destroy_srq", || {
        let srq = obj(srq)?;
        // SAFETY: the provider's live SRQ, whose mutex/cond were initialised at creation.
        unsafe {
            let u = fd_of((*srq).context)?;
            if let Some(reported) = destroyed(kernel::srq::destroy_srq(&u, (*srq).handle))? {
                wait(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond), || {
                    object::all_acked("ibv_destroy_srq (async events)", (*srq).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// QP
// ---------------------------------------------------------------------------------------------------------------

const QP_INIT_ATTR_IND_TABLE: u32 = ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_IND_TABLE as u32;
const QP_INIT_ATTR_MAX_TSO_HEADER: u32 = ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_MAX_TSO_HEADER as u32;
const QP_INIT_ATTR_RX_HASH: u32 = ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_RX_HASH as u32;
const QPT_RC: u32 = ibv_qp_type::IBV_QPT_RC as u32;
const QPT_UC: u32 = ibv_qp_type::IBV_QPT_UC as u32;
const QPT_UD: u32 = ibv_qp_type::IBV_QPT_UD as u32;
const QPT_RAW_PACKET: u32 = ibv_qp_type::IBV_QPT_RAW_PACKET as u32;
const QPT_XRC_SEND: u32 = ibv_qp_type::IBV_QPT_XRC_SEND as u32;
const QPT_XRC_RECV: u32 = ibv_qp_type::IBV_QPT_XRC_RECV as u32;
const QPT_DRIVER: u32 = ibv_qp_type::IBV_QPT_DRIVER as u32;

/// Creation flags EX_CREATE_QP takes (rdma-core's `CREATE_QP_EX_SUP_CREATE_FLAGS`).
const CREATE_QP_SUP_FLAGS: u32 = ibv_qp_create_flags::IBV_QP_CREATE_BLOCK_SELF_MCAST_LB as u32
    | ibv_qp_create_flags::IBV_QP_CREATE_SCATTER_FCS as u32
    | ibv_qp_create_flags::IBV_QP_CREATE_CVLAN_STRIPPING as u32
    | ibv_qp_create_flags::IBV_QP_CREATE_SOURCE_QPN as u32
    | ibv_qp_create_flags::IBV_QP_CREATE_PCI_WRITE_END_PADDING as u32;

/// rdma-core's `set_qp`: the generic QP fields after creation, and the `verbs_qp` ones when there is one.
///
/// # Safety
/// The provider's objects.
unsafe fn set_qp(vqp: *mut verbs_qp, qp: *mut ibv_qp, a: &ibv_qp_init_attr_ex, vxrcd: *mut verbs_xrcd) {
    // SAFETY: caller's contract.
    unsafe {
        (*qp).qp_context = a.qp_context;
        (*qp).pd = a.pd;
        (*qp).send_cq = a.send_cq;
        (*qp).recv_cq = a.recv_cq;
        (*qp).srq = a.srq;
        ffi::enum_store(addr_of_mut!((*qp).qp_type), ffi::enum_raw(addr_of!(a.qp_type)));
        ffi::enum_store(addr_of_mut!((*qp).state), ibv_qp_state::IBV_QPS_RESET as u32);
        (*qp).events_completed = 0;
        object::init_sync(addr_of_mut!((*qp).mutex), addr_of_mut!((*qp).cond));
        if !vqp.is_null() {
            (*vqp).comp_mask = 0;
            if a.comp_mask & IBV_QP_INIT_ATTR_XRCD != 0 {
                (*vqp).comp_mask |= VERBS_QP_XRCD;
                (*vqp).xrcd = vxrcd;
            }
        }
    }
}

/// rdma-core's `ibv_icmd_create_qp` on the write ABI. Sets `qp->context` first; validates as rdma-core does; sends
/// CREATE_QP, or EX_CREATE_QP when `IBV_QP_INIT_ATTR_CREATE_FLAGS` or `_IND_TABLE` is in `comp_mask`; fills
/// `handle`, `qp_num`, the granted capabilities in `a.cap`, and [`set_qp`]. `prov_cmd` / `prov_resp`: the sizes
/// of the provider's command and response structs, after which its driver data starts.
///
/// # Safety
/// The provider's objects and buffers.
unsafe fn create_qp(
    context: *mut ibv_context,
    vqp: *mut verbs_qp,
    qp: *mut ibv_qp,
    a: &mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    prov_cmd: usize,
    resp: *mut c_void,
    resp_size: usize,
    prov_resp: usize,
) -> Result<()> {
    // SAFETY: caller's contract; object pointers the provider passes are live (NULL ones refused).
    unsafe {
        let u = fd_of(context)?;
        (*qp).context = context;
        let qp_type = ffi::enum_raw(addr_of!(a.qp_type));
        let mut ex = false;
        let mut vxrcd: *mut verbs_xrcd = ptr::null_mut();
        let (mut send_cq_handle, mut recv_cq_handle) = (0u32, 0u32);
        let pd_handle;
        match qp_type {
            QPT_XRC_RECV => {
                if a.comp_mask & IBV_QP_INIT_ATTR_XRCD == 0 {
                    return Err(Errno::EINVAL);
                }
                vxrcd = obj(a.xrcd.cast::<verbs_xrcd>())?;
                pd_handle = (*vxrcd).handle;
            }
            QPT_RC | QPT_UD | QPT_UC | QPT_RAW_PACKET | QPT_XRC_SEND | QPT_DRIVER => {
                if a.comp_mask & IBV_QP_INIT_ATTR_PD == 0 {
                    return Err(Errno::EINVAL);
                }
                pd_handle = (*obj(a.pd)?).handle;
                if a.comp_mask & QP_INIT_ATTR_IND_TABLE != 0 {
                    if a.cap.max_recv_wr != 0 || a.cap.max_recv_sge != 0 || !a.recv_cq.is_null() || !a.srq.is_null() {
                        return Err(Errno::EINVAL);
                    }
                    obj(a.rwq_ind_tbl)?;
                    ex = true;
                    if a.cap.max_send_wr != 0 {
                        send_cq_handle = (*obj(a.send_cq)?).handle;
                    }
                } else {
                    send_cq_handle = (*obj(a.send_cq)?).handle;
                    if qp_type != QPT_XRC_SEND {
                        recv_cq_handle = (*obj(a.recv_cq)?).handle;
                    }
                }
                if qp_type == QPT_XRC_SEND {
                    a.cap.max_recv_wr = 0;
                    a.cap.max_recv_sge = 0;
                }
            }
            _ => return Err(Errno::EINVAL),
        }
        if a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 {
            if a.create_flags & !CREATE_QP_SUP_FLAGS != 0 {
                return Err(Errno::EINVAL);
            }
            ex = true;
        }
        let srq_handle = if a.srq.is_null() { 0 } else { (*a.srq).handle };
        let udata = tail(cmd, cmd_size, prov_cmd);
        let base = if !ex {
            let mut req = ib_uverbs_create_qp::zeroed();
            req.pd_handle = pd_handle;
            req.user_handle = qp as usize as u64;
            req.max_send_wr = a.cap.max_send_wr;
            req.max_recv_wr = a.cap.max_recv_wr;
            req.max_send_sge = a.cap.max_send_sge;
            req.max_recv_sge = a.cap.max_recv_sge;
            req.max_inline_data = a.cap.max_inline_data;
            req.sq_sig_all = a.sq_sig_all as u8;
            req.qp_type = qp_type as u8;
            req.srq_handle = srq_handle;
            req.is_srq = !a.srq.is_null() as u8;
            req.recv_cq_handle = recv_cq_handle;
            req.send_cq_handle = send_cq_handle;
            write_uhw::<_, ib_uverbs_create_qp_resp>(
                &u,
                IB_USER_VERBS_CMD_CREATE_QP,
                &req,
                udata,
                resp,
                resp_size,
                prov_resp,
            )?
        } else {
            let mut req = ib_uverbs_ex_create_qp::zeroed();
            req.pd_handle = pd_handle;
            req.user_handle = qp as usize as u64;
            req.max_send_wr = a.cap.max_send_wr;
            req.max_recv_wr = a.cap.max_recv_wr;
            req.max_send_sge = a.cap.max_send_sge;
            req.max_recv_sge = a.cap.max_recv_sge;
            req.max_inline_data = a.cap.max_inline_data;
            req.sq_sig_all = a.sq_sig_all as u8;
            req.qp_type = qp_type as u8;
            req.srq_handle = srq_handle;
            req.is_srq = !a.srq.is_null() as u8;
            req.recv_cq_handle = recv_cq_handle;
            req.send_cq_handle = send_cq_handle;
            if a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 {
                req.create_flags = a.create_flags;
                if a.create_flags & ibv_qp_create_flags::IBV_QP_CREATE_SOURCE_QPN as u32 != 0 {
                    req.source_qpn = a.source_qpn;
                }
            }
            if a.comp_mask & QP_INIT_ATTR_IND_TABLE != 0 {
                req.rwq_ind_tbl_handle = (*a.rwq_ind_tbl).ind_tbl_handle as u32;
                req.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
            }
            write_uhw_ex::<_, ib_uverbs_ex_create_qp_resp>(
                &u,
                IB_USER_VERBS_EX_CMD_CREATE_QP,
                &req,
                udata,
                resp,
                resp_size,
                prov_resp,
            )?
            .base
        };
        (*qp).handle = base.qp_handle;
        (*qp).qp_num = base.qpn;
        a.cap.max_recv_sge = base.max_recv_sge;
        a.cap.max_send_sge = base.max_send_sge;
        a.cap.max_recv_wr = base.max_recv_wr;
        a.cap.max_send_wr = base.max_send_wr;
        a.cap.max_inline_data = base.max_inline_data;
        set_qp(vqp, qp, a, vxrcd);
    }
    Ok(())
}

/// `int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
/// struct ibv_create_qp *cmd, size_t cmd_size, struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// CREATE_QP on `pd` with the provider's driver data; `user_handle` is `qp`. Fills `context`, `handle`, `qp_num`,
/// the generic fields (`qp_context`, `pd`, CQs, `srq`, `qp_type`, `state = RESET`, the event counter, the public
/// mutex/cond) and the granted capabilities in `attr->cap`. Errors: `EINVAL` for an unknown QP type or missing
/// CQs; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_qp", || {
        let (pd, qp, attr) = (obj(pd)?, obj(qp)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            let i = &*attr;
            // Zeroed memory with the enum written as a number (0 is not a valid `ibv_qp_type` for Rust).
            let mut ma = std::mem::MaybeUninit::<ibv_qp_init_attr_ex>::zeroed();
            let a = &mut *ma.as_mut_ptr();
            a.qp_context = i.qp_context;
            a.send_cq = i.send_cq;
            a.recv_cq = i.recv_cq;
            a.srq = i.srq;
            a.cap = i.cap;
            ffi::enum_store(addr_of_mut!(a.qp_type), ffi::enum_raw(addr_of!(i.qp_type)));
            a.sq_sig_all = i.sq_sig_all;
            a.comp_mask = IBV_QP_INIT_ATTR_PD;
            a.pd = pd;
            create_qp(
                (*pd).context,
                ptr::null_mut(),
                qp,
                a,
                cmd,
                cmd_size,
                abi::<ib_uverbs_create_qp>(),
                resp,
                resp_size,
                size_of::<ib_uverbs_create_qp_resp>(),
            )?;
            (*attr).cap = a.cap;
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// As [`ibv_cmd_create_qp`] from extended attributes with the legacy command struct (XRC QPs included), also
/// filling `verbs_qp.comp_mask`/`xrcd`. Errors: `EINVAL` for `comp_mask` bits beyond PD, XRCD and
/// SEND_OPS_FLAGS, and as [`ibv_cmd_create_qp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_qp_ex", || {
        let (vqp, a) = (obj(qp)?, obj(attr_ex)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            if (*a).comp_mask & !(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0 {
                return Err(Errno::EINVAL);
            }
            let q = addr_of_mut!((*vqp).qp_ex.qp_base);
            create_qp(
                context,
                vqp,
                q,
                &mut *a,
                cmd,
                cmd_size,
                abi::<ib_uverbs_create_qp>(),
                resp,
                resp_size,
                size_of::<ib_uverbs_create_qp_resp>(),
            )
        }
    })
}

/// `int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
/// struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp_ex *cmd, size_t cmd_size,
/// struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size)`.
///
/// As [`ibv_cmd_create_qp_ex`] with the extended command struct: creation flags (`source_qpn` with
/// `IBV_QP_CREATE_SOURCE_QPN`) and receive indirection tables (RSS QPs: no receive queue, the send CQ only with
/// a send queue) go through EX_CREATE_QP; otherwise CREATE_QP is sent with the same driver data and the kernel's
/// response lands right before the provider's driver response. Errors: `EINVAL` for `comp_mask` bits beyond
/// PD, XRCD, CREATE_FLAGS, MAX_TSO_HEADER, IND_TABLE, RX_HASH and SEND_OPS_FLAGS, for unsupported creation flags,
/// for an indirection table with a receive queue, CQ or SRQ; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_qp_ex2", || {
        let (vqp, a) = (obj(qp)?, obj(attr_ex)?);
        // SAFETY: the provider's objects and buffers.
        unsafe {
            let sup = IBV_QP_INIT_ATTR_PD
                | IBV_QP_INIT_ATTR_XRCD
                | IBV_QP_INIT_ATTR_CREATE_FLAGS
                | QP_INIT_ATTR_MAX_TSO_HEADER
                | QP_INIT_ATTR_IND_TABLE
                | QP_INIT_ATTR_RX_HASH
                | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
            if (*a).comp_mask & !sup != 0 {
                return Err(Errno::EINVAL);
            }
            let q = addr_of_mut!((*vqp).qp_ex.qp_base);
            create_qp(
                context,
                vqp,
                q,
                &mut *a,
                cmd,
                cmd_size,
                abi_ex::<ib_uverbs_ex_create_qp>(),
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_create_qp_resp>(),
            )
        }
    })
}

/// `int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
/// struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
/// struct ib_uverbs_create_qp_resp *resp, size_t resp_size)`.
///
/// OPEN_QP: opens the XRC target QP `attr->qp_num` of the XRC domain `attr->xrcd`; `user_handle` is `qp`. Fills
/// `handle`, `context`, `qp_context`, `qp_num`, `qp_type`, `state = IBV_QPS_UNKNOWN`, NULL PD/CQs/SRQ, the
/// event counter and public mutex/cond, and `comp_mask = VERBS_QP_XRCD` with `xrcd` when `vqp_sz` covers it.
/// Errors: `EOPNOTSUPP` for unknown `comp_mask` bits, `EINVAL` without the XRCD, NUM and TYPE bits; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_open_qp(
    context: *mut ibv_context,
    qp: *mut verbs_qp,
    vqp_sz: c_int,
    attr: *mut ibv_qp_open_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_open_qp", || {
        let (vqp, attr) = (obj(qp)?, obj(attr)?);
        // SAFETY: the provider's objects and buffers; `verbs_xrcd` begins with its `ibv_xrcd`.
        unsafe {
            let a = &*attr;
            if a.comp_mask >= ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_RESERVED as u32 {
                return Err(Errno::EOPNOTSUPP);
            }
            let need = ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_XRCD as u32
                | ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_NUM as u32
                | ibv_qp_open_attr_mask::IBV_QP_OPEN_ATTR_TYPE as u32;
            if a.comp_mask & need != need {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let xrcd = obj(a.xrcd.cast::<verbs_xrcd>())?;
            let qp_type = ffi::enum_raw(addr_of!(a.qp_type));
            let q = addr_of_mut!((*vqp).qp_ex.qp_base);
            let mut req: ib_uverbs_open_qp = core_of(cmd, cmd_size, HDR)?;
            req.user_handle = q as usize as u64;
            req.pd_handle = (*xrcd).handle;
            req.qpn = a.qp_num;
            req.qp_type = qp_type as u8;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_open_qp>());
            let r: ib_uverbs_create_qp_resp =
                write_direct(&u, IB_USER_VERBS_CMD_OPEN_QP, req.as_bytes(), udata, resp, resp_size)?;
            (*q).handle = r.qp_handle;
            (*q).context = context;
            (*q).qp_context = a.qp_context;
            (*q).pd = ptr::null_mut();
            (*q).send_cq = ptr::null_mut();
            (*q).recv_cq = ptr::null_mut();
            (*q).srq = ptr::null_mut();
            (*q).qp_num = a.qp_num;
            ffi::enum_store(addr_of_mut!((*q).qp_type), qp_type);
            ffi::enum_store(addr_of_mut!((*q).state), ibv_qp_state::IBV_QPS_UNKNOWN as u32);
            (*q).events_completed = 0;
            object::init_sync(addr_of_mut!((*q).mutex), addr_of_mut!((*q).cond));
            (*vqp).comp_mask = 0;
            if offset_of!(verbs_qp, xrcd) < vqp_sz.max(0) as usize {
                (*vqp).comp_mask = VERBS_QP_XRCD;
                (*vqp).xrcd = xrcd;
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
/// struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size)`.
///
/// QUERY_QP: fills every field of `qp_attr` rdma-core fills (all but `en_sqd_async_notify` and `rate_limit`) and
/// `qp_init_attr` (from the QP and the kernel's answer). Driver data after the command, which no provider passes
/// and the kernel ignores, is not sent. Errors: `EOPNOTSUPP` for mask bits from `IBV_QP_RATE_LIMIT` up; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_qp(
    qp: *mut ibv_qp,
    qp_attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    qp_init_attr: *mut ibv_qp_init_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_qp", || {
        let (qp, attr, init) = (obj(qp)?, obj(qp_attr)?, obj(qp_init_attr)?);
        // SAFETY: the provider's live QP and attribute structs.
        unsafe { pcmd::query_qp(&fd_of((*qp).context)?, qp, attr, attr_mask, init) }
    })
}

/// rdma-core's `copy_modify_qp_fields`: into the provider's core MODIFY_QP request, the handle, the mask, the
/// reserved bytes (zero) and exactly the fields `mask` selects; the other fields keep what the provider left.
///
/// # Safety
/// `qp` and `attr` are the provider's.
unsafe fn copy_modify_qp_fields(qp: *mut ibv_qp, attr: *const ibv_qp_attr, mask: u32, c: &mut ib_uverbs_modify_qp) {
    use ibv_qp_attr_mask::*;
    let has = |b: ibv_qp_attr_mask| mask & b as u32 != 0;
    // SAFETY: caller's contract; a GID is 16 plain bytes; enum fields read as numbers.
    unsafe {
        let a = &*attr;
        c.qp_handle = (*qp).handle;
        c.attr_mask = mask;
        if has(IBV_QP_STATE) {
            c.qp_state = ffi::enum_raw(addr_of!(a.qp_state)) as u8;
        }
        if has(IBV_QP_CUR_STATE) {
            c.cur_qp_state = ffi::enum_raw(addr_of!(a.cur_qp_state)) as u8;
        }
        if has(IBV_QP_EN_SQD_ASYNC_NOTIFY) {
            c.en_sqd_async_notify = a.en_sqd_async_notify;
        }
        if has(IBV_QP_ACCESS_FLAGS) {
            c.qp_access_flags = a.qp_access_flags;
        }
        if has(IBV_QP_PKEY_INDEX) {
            c.pkey_index = a.pkey_index;
        }
        if has(IBV_QP_PORT) {
            c.port_num = a.port_num;
        }
        if has(IBV_QP_QKEY) {
            c.qkey = a.qkey;
        }
        let dest = |d: &mut ib_uverbs_qp_dest, s: &ibv_ah_attr| {
            d.dgid = s.grh.dgid.raw;
            d.flow_label = s.grh.flow_label;
            d.dlid = s.dlid;
            d.reserved = 0;
            d.sgid_index = s.grh.sgid_index;
            d.hop_limit = s.grh.hop_limit;
            d.traffic_class = s.grh.traffic_class;
            d.sl = s.sl;
            d.src_path_bits = s.src_path_bits;
            d.static_rate = s.static_rate;
            d.is_global = s.is_global;
            d.port_num = s.port_num;
        };
        if has(IBV_QP_AV) {
            dest(&mut c.dest, &a.ah_attr);
        }
        if has(IBV_QP_PATH_MTU) {
            c.path_mtu = ffi::enum_raw(addr_of!(a.path_mtu)) as u8;
        }
        if has(IBV_QP_TIMEOUT) {
            c.timeout = a.timeout;
        }
        if has(IBV_QP_RETRY_CNT) {
            c.retry_cnt = a.retry_cnt;
        }
        if has(IBV_QP_RNR_RETRY) {
            c.rnr_retry = a.rnr_retry;
        }
        if has(IBV_QP_RQ_PSN) {
            c.rq_psn = a.rq_psn;
        }
        if has(IBV_QP_MAX_QP_RD_ATOMIC) {
            c.max_rd_atomic = a.max_rd_atomic;
        }
        if has(IBV_QP_ALT_PATH) {
            c.alt_pkey_index = a.alt_pkey_index;
            c.alt_port_num = a.alt_port_num;
            c.alt_timeout = a.alt_timeout;
            dest(&mut c.alt_dest, &a.alt_ah_attr);
        }
        if has(IBV_QP_MIN_RNR_TIMER) {
            c.min_rnr_timer = a.min_rnr_timer;
        }
        if has(IBV_QP_SQ_PSN) {
            c.sq_psn = a.sq_psn;
        }
        if has(IBV_QP_MAX_DEST_RD_ATOMIC) {
            c.max_dest_rd_atomic = a.max_dest_rd_atomic;
        }
        if has(IBV_QP_PATH_MIG_STATE) {
            c.path_mig_state = ffi::enum_raw(addr_of!(a.path_mig_state)) as u8;
        }
        if has(IBV_QP_DEST_QPN) {
            c.dest_qp_num = a.dest_qp_num;
        }
        c.reserved = [0; 2];
    }
}

/// `int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp *cmd, size_t cmd_size)`.
///
/// MODIFY_QP of the fields `attr_mask` selects (the others are sent as the provider left them in `cmd`), with
/// the provider's driver data. Errors: `EOPNOTSUPP` for mask bits from `IBV_QP_RATE_LIMIT` up (the extended
/// command's); the kernel's (`EINVAL` for an invalid transition or attribute).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_qp", || {
        let mask = attr_mask as u32;
        if mask & !(ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as u32 - 1) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let (qp, attr) = (obj(qp)?, obj(attr)?);
        // SAFETY: the provider's live QP, attributes and buffers.
        unsafe {
            let mut req: ib_uverbs_modify_qp = core_of(cmd, cmd_size, HDR)?;
            copy_modify_qp_fields(qp, attr, mask, &mut req);
            let u = fd_of((*qp).context)?;
            let udata = tail(cmd, cmd_size, abi::<ib_uverbs_modify_qp>());
            kernel::write_raw(&u, IB_USER_VERBS_CMD_MODIFY_QP, req.as_bytes(), udata, None)
        }
    })
}

/// `int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
/// struct ibv_modify_qp_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size)`.
///
/// EX_MODIFY_QP: as [`ibv_cmd_modify_qp`] plus `rate_limit` with `IBV_QP_RATE_LIMIT`, the response (and the
/// driver's) straight into `resp`. Errors: `EINVAL` for `IBV_QP_RATE_LIMIT` with a command too short for
/// `rate_limit`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_qp_ex(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_qp_ex", || {
        let (qp, attr) = (obj(qp)?, obj(attr)?);
        let mask = attr_mask as u32;
        // SAFETY: the provider's live QP, attributes and buffers.
        unsafe {
            let mut req: ib_uverbs_ex_modify_qp = core_of(cmd, cmd_size, EX_HDR)?;
            copy_modify_qp_fields(qp, attr, mask, &mut req.base);
            if mask & ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as u32 != 0 {
                if cmd_size < EX_HDR + offset_of!(ib_uverbs_ex_modify_qp, rate_limit) + 4 {
                    return Err(Errno::EINVAL);
                }
                req.rate_limit = (*attr).rate_limit;
            }
            let u = fd_of((*qp).context)?;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_modify_qp>());
            let _: ib_uverbs_ex_modify_qp_resp = write_ex_direct(
                &u,
                IB_USER_VERBS_EX_CMD_MODIFY_QP,
                req.as_bytes(),
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_modify_qp_resp>(),
            )?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_qp(struct ibv_qp *qp)`: DESTROY_QP, then waits until the async events the kernel reported
/// for it were acknowledged. Errors: the kernel's; a forgiven `EIO` (see [`ibv_cmd_dealloc_pd`]) returns 0 at
/// once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_qp(qp: *mut ibv_qp) -> c_int {
    ret("ibv_cmd_destroy_qp", || {
        let qp = obj(qp)?;
        // SAFETY: the provider's live QP, whose mutex/cond were initialised at creation.
        unsafe {
            let u = fd_of((*qp).context)?;
            if let Some(reported) = destroyed(kernel::qp::destroy_qp(&u, (*qp).handle))? {
                wait(addr_of_mut!((*qp).mutex), addr_of_mut!((*qp).cond), || {
                    object::all_acked("ibv_destroy_qp (async events)", (*qp).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Posting through the kernel (drivers without user-space queues)
// ---------------------------------------------------------------------------------------------------------------

/// A byte buffer being filled at struct offsets (the command ABI is the host's byte order).
struct Bytes(Vec<u8>);

impl Bytes {
    fn put(&mut self, at: usize, v: &[u8]) {
        self.0[at..at + v.len()].copy_from_slice(v);
    }
    fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_ne_bytes());
    }
    fn u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_ne_bytes());
    }
}

/// Counts a work-request list (`n`, total SGEs) following `next`. `EINVAL` for a negative `num_sge` or an absurd
/// length.
///
/// # Safety
/// `first` starts a valid list; `next_of`/`sges_of` read one element.
unsafe fn count_wrs<W>(
    first: *mut W,
    next_of: impl Fn(*mut W) -> *mut W,
    sges_of: impl Fn(*mut W) -> c_int,
) -> Result<(usize, usize)> {
    let (mut n, mut sges) = (0usize, 0usize);
    let mut w = first;
    while !w.is_null() {
        let s = usize::try_from(sges_of(w)).map_err(|_| Errno::EINVAL)?;
        n += 1;
        sges += s;
        if n > 1 << 16 || sges > 1 << 20 {
            return Err(Errno::EINVAL);
        }
        w = next_of(w);
    }
    Ok((n, sges))
}

/// rdma-core's tail of `ibv_cmd_post_*`: the kernel's `bad_wr` (1-based index of the failing request; 0 none)
/// becomes `*bad_wr`; a failure without one reports the first request.
///
/// # Safety
/// `first` starts a valid list of at least `bad` elements; `out` is NULL or writable.
unsafe fn report_bad<W>(first: *mut W, next_of: impl Fn(*mut W) -> *mut W, bad: u32, failed: bool, out: *mut *mut W) {
    if out.is_null() {
        return;
    }
    // SAFETY: caller's contract.
    unsafe {
        if bad != 0 {
            let mut w = first;
            for _ in 1..bad {
                if w.is_null() {
                    break;
                }
                w = next_of(w);
            }
            *out = w;
        } else if failed {
            *out = first;
        }
    }
}

/// `int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)`.
///
/// POST_SEND through the kernel: every work request of the list (as `ib_uverbs_send_wr`: id, SGE count, opcode,
/// flags, immediate data, and the RDMA, atomic or UD fields its opcode or the QP type uses; the AH by handle),
/// then all SGEs. Returns 0 or a positive errno (also in `errno`); on failure `*bad_wr` is the request the kernel
/// names, else the first one. Errors: `EINVAL` for NULL pointers or a negative `num_sge`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_send(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_send", || {
        let qp = obj(ibqp)?;
        // SAFETY: the provider's live QP and the caller's work-request list.
        unsafe {
            let (n, sges) = count_wrs(wr, |w| (*w).next, |w| (*w).num_sge)?;
            let head = size_of::<ib_uverbs_post_send>();
            let each = size_of::<ib_uverbs_send_wr>();
            let sge = size_of::<ibv_sge>();
            let mut b = Bytes(vec![0u8; head + n * each + sges * sge]);
            b.u32(offset_of!(ib_uverbs_post_send, qp_handle), (*qp).handle);
            b.u32(offset_of!(ib_uverbs_post_send, wr_count), n as u32);
            b.u32(offset_of!(ib_uverbs_post_send, sge_count), sges as u32);
            b.u32(offset_of!(ib_uverbs_post_send, wqe_size), each as u32);
            let ud = ffi::enum_raw(addr_of!((*qp).qp_type)) == QPT_UD;
            let wro = offset_of!(ib_uverbs_send_wr, wr);
            let (mut w, mut i, mut s) = (wr, 0usize, head + n * each);
            while !w.is_null() {
                let o = head + i * each;
                let x = &*w;
                let opcode = ffi::enum_raw(addr_of!(x.opcode));
                b.u64(o + offset_of!(ib_uverbs_send_wr, wr_id), x.wr_id);
                b.u32(o + offset_of!(ib_uverbs_send_wr, num_sge), x.num_sge as u32);
                b.u32(o + offset_of!(ib_uverbs_send_wr, opcode), opcode);
                b.u32(o + offset_of!(ib_uverbs_send_wr, send_flags), x.send_flags);
                b.u32(o + offset_of!(ib_uverbs_send_wr, ex), x.imm.imm_data);
                if ud {
                    type U = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_3;
                    b.u32(o + wro + offset_of!(U, ah), (*obj(x.wr.ud.ah)?).handle);
                    b.u32(o + wro + offset_of!(U, remote_qpn), x.wr.ud.remote_qpn);
                    b.u32(o + wro + offset_of!(U, remote_qkey), x.wr.ud.remote_qkey);
                } else {
                    use ibv_wr_opcode::*;
                    type R = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_1;
                    type A = ib_uverbs_send_wr__bindgen_ty_2__bindgen_ty_2;
                    match opcode {
                        op if op == IBV_WR_RDMA_WRITE as u32
                            || op == IBV_WR_RDMA_WRITE_WITH_IMM as u32
                            || op == IBV_WR_RDMA_READ as u32 =>
                        {
                            b.u64(o + wro + offset_of!(R, remote_addr), x.wr.rdma.remote_addr);
                            b.u32(o + wro + offset_of!(R, rkey), x.wr.rdma.rkey);
                        }
                        op if op == IBV_WR_ATOMIC_CMP_AND_SWP as u32 || op == IBV_WR_ATOMIC_FETCH_AND_ADD as u32 => {
                            b.u64(o + wro + offset_of!(A, remote_addr), x.wr.atomic.remote_addr);
                            b.u64(o + wro + offset_of!(A, compare_add), x.wr.atomic.compare_add);
                            b.u64(o + wro + offset_of!(A, swap), x.wr.atomic.swap);
                            b.u32(o + wro + offset_of!(A, rkey), x.wr.atomic.rkey);
                        }
                        _ => {}
                    }
                }
                let k = x.num_sge as usize;
                if k > 0 {
                    let list = slice::from_raw_parts(obj(x.sg_list)?.cast::<u8>(), k * sge);
                    b.put(s, list);
                    s += k * sge;
                }
                i += 1;
                w = x.next;
            }
            let u = fd_of((*qp).context)?;
            let mut out = [0u8; size_of::<ib_uverbs_post_send_resp>()];
            let r = kernel::write_raw(&u, IB_USER_VERBS_CMD_POST_SEND, &b.0, &[], Some(&mut out));
            bad = ib_uverbs_post_send_resp::from_bytes(&out).bad_wr;
            r
        }
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

/// The receive-side body of [`ibv_cmd_post_recv`] and [`ibv_cmd_post_srq_recv`]: POST_RECV / POST_SRQ_RECV of
/// every request (`wr_id`, SGE count) then all SGEs; returns the kernel's `bad_wr` with the result.
///
/// # Safety
/// The provider's live object (of `ctx`, named by `handle`) and the caller's list.
unsafe fn post_recv_cmd(ctx: *mut ibv_context, command: u32, handle: u32, wr: *mut ibv_recv_wr) -> (u32, Result<()>) {
    let mut bad = 0u32;
    let r = (|| {
        // SAFETY: caller's contract.
        unsafe {
            let (n, sges) = count_wrs(wr, |w| (*w).next, |w| (*w).num_sge)?;
            let head = size_of::<ib_uverbs_post_recv>();
            let each = size_of::<ib_uverbs_recv_wr>();
            let sge = size_of::<ibv_sge>();
            let mut b = Bytes(vec![0u8; head + n * each + sges * sge]);
            // ib_uverbs_post_recv and ib_uverbs_post_srq_recv have the same layout.
            b.u32(offset_of!(ib_uverbs_post_recv, qp_handle), handle);
            b.u32(offset_of!(ib_uverbs_post_recv, wr_count), n as u32);
            b.u32(offset_of!(ib_uverbs_post_recv, sge_count), sges as u32);
            b.u32(offset_of!(ib_uverbs_post_recv, wqe_size), each as u32);
            let (mut w, mut i, mut s) = (wr, 0usize, head + n * each);
            while !w.is_null() {
                let o = head + i * each;
                let x = &*w;
                b.u64(o + offset_of!(ib_uverbs_recv_wr, wr_id), x.wr_id);
                b.u32(o + offset_of!(ib_uverbs_recv_wr, num_sge), x.num_sge as u32);
                let k = x.num_sge as usize;
                if k > 0 {
                    b.put(s, slice::from_raw_parts(obj(x.sg_list)?.cast::<u8>(), k * sge));
                    s += k * sge;
                }
                i += 1;
                w = x.next;
            }
            let u = fd_of(ctx)?;
            let mut out = [0u8; size_of::<ib_uverbs_post_recv_resp>()];
            let r = kernel::write_raw(&u, command, &b.0, &[], Some(&mut out));
            bad = ib_uverbs_post_recv_resp::from_bytes(&out).bad_wr;
            r
        }
    })();
    (bad, r)
}

/// `int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`.
///
/// POST_RECV through the kernel. Returns 0 or a positive errno (also in `errno`); on failure `*bad_wr` is the
/// request the kernel names, else the first one. Errors: `EINVAL` for NULL pointers or a negative `num_sge`; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_recv(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_recv", || {
        let qp = obj(ibqp)?;
        // SAFETY: the provider's live QP and the caller's list.
        let (b, r) = unsafe { post_recv_cmd((*qp).context, IB_USER_VERBS_CMD_POST_RECV, (*qp).handle, wr) };
        bad = b;
        r
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

/// `int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)`:
/// POST_SRQ_RECV through the kernel, as [`ibv_cmd_post_recv`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    let mut bad = 0u32;
    let r = ret("ibv_cmd_post_srq_recv", || {
        let srq = obj(srq)?;
        // SAFETY: the provider's live SRQ and the caller's list.
        let (b, r) = unsafe { post_recv_cmd((*srq).context, IB_USER_VERBS_CMD_POST_SRQ_RECV, (*srq).handle, wr) };
        bad = b;
        r
    });
    // SAFETY: the caller's list and out-pointer.
    unsafe { report_bad(wr, |w| (*w).next, bad, r != 0, bad_wr) };
    r
}

// ---------------------------------------------------------------------------------------------------------------
// AH, multicast
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
/// struct ib_uverbs_create_ah_resp *resp, size_t resp_size)`.
///
/// CREATE_AH of the address vector `attr` on `pd` (`user_handle` is `ah`), the response and the driver's straight
/// into `resp`; fills `handle` and `context`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_ah", || {
        let (pd, ah, attr) = (obj(pd)?, obj(ah)?, obj(attr)?);
        // SAFETY: the provider's objects and buffer; a GID is 16 plain bytes.
        unsafe {
            let a = &*attr;
            let mut req = ib_uverbs_create_ah::zeroed();
            req.user_handle = ah as usize as u64;
            req.pd_handle = (*pd).handle;
            req.attr.dlid = a.dlid;
            req.attr.sl = a.sl;
            req.attr.src_path_bits = a.src_path_bits;
            req.attr.static_rate = a.static_rate;
            req.attr.is_global = a.is_global;
            req.attr.port_num = a.port_num;
            req.attr.grh.flow_label = a.grh.flow_label;
            req.attr.grh.sgid_index = a.grh.sgid_index;
            req.attr.grh.hop_limit = a.grh.hop_limit;
            req.attr.grh.traffic_class = a.grh.traffic_class;
            req.attr.grh.dgid = a.grh.dgid.raw;
            let u = fd_of((*pd).context)?;
            let r: ib_uverbs_create_ah_resp =
                write_direct(&u, IB_USER_VERBS_CMD_CREATE_AH, req.as_bytes(), &[], resp, resp_size)?;
            (*ah).handle = r.ah_handle;
            (*ah).context = (*pd).context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_ah(struct ibv_ah *ah)`: DESTROY_AH. Errors: the kernel's; a forgiven `EIO` as for
/// [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_ah(ah: *mut ibv_ah) -> c_int {
    ret("ibv_cmd_destroy_ah", || {
        let ah = obj(ah)?;
        // SAFETY: the provider's live AH.
        unsafe {
            let u = fd_of((*ah).context)?;
            destroyed(kernel::ah::destroy_ah(&u, (*ah).handle))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: ATTACH_MCAST of the QP
/// to the group `gid`/`lid`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ret("ibv_cmd_attach_mcast", || {
        let (qp, gid) = (obj(qp)?, obj(gid.cast_mut())?);
        // SAFETY: the provider's live QP; a GID is 16 plain bytes.
        unsafe { kernel::mcast::attach_mcast(&fd_of((*qp).context)?, (*qp).handle, &(*gid).raw, lid) }
    })
}

/// `int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)`: DETACH_MCAST. Errors:
/// the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ret("ibv_cmd_detach_mcast", || {
        let (qp, gid) = (obj(qp)?, obj(gid.cast_mut())?);
        // SAFETY: the provider's live QP; a GID is 16 plain bytes.
        unsafe {
            destroyed(kernel::mcast::detach_mcast(&fd_of((*qp).context)?, (*qp).handle, &(*gid).raw, lid))?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Flow steering
// ---------------------------------------------------------------------------------------------------------------

/// `sizeof(((struct ibv_flow_spec *)0)->hdr)`: the `{enum type; uint16_t size}` every verbs specification starts
/// with (8 bytes with padding).
const IB_SPEC_HDR: usize = 8;
/// The largest kernel specification (`sizeof(struct ibv_kern_spec)`, the IPv6 one).
const KERN_SPEC_MAX: usize = size_of::<ib_uverbs_flow_spec_ipv6>();

/// rdma-core's `get_filters_size` for the specifications whose filter grew over time: the verbs filter size
/// (half the payload), checked against what the kernel's filter has room for (`EINVAL` when shorter than the
/// kernel's minimum, `EOPNOTSUPP` when the mask sets bits past it). Returns (verbs size, bytes to copy).
fn filter_sizes(ib_size: u16, spec: &[u8], val_at: usize, min: usize) -> Result<(usize, usize)> {
    let ib = (ib_size as usize).checked_sub(IB_SPEC_HDR).ok_or(Errno::EINVAL)? / 2;
    if ib < min {
        return Err(Errno::EINVAL);
    }
    if ib > min {
        let mask_tail = spec.get(val_at + ib + min..val_at + 2 * ib).ok_or(Errno::EINVAL)?;
        if mask_tail.iter().any(|&b| b != 0) {
            return Err(Errno::EOPNOTSUPP);
        }
    }
    Ok((ib, ib.min(min)))
}

/// rdma-core's `ib_spec_to_kern_spec`: one verbs flow specification (`spec`, its bytes as `hdr.size` says) as the
/// kernel's, written at the start of `out`. Returns the kernel specification's size. Errors: `EINVAL` for an
/// unknown type or a too short filter, `EOPNOTSUPP` for mask bits the kernel's filter cannot hold.
///
/// # Safety
/// For the action-handle and counter specifications, the pointers they carry are live `verbs_flow_action` /
/// `verbs_counters`.
unsafe fn kern_spec(spec: &[u8], out: &mut [u8]) -> Result<usize> {
    use ibv_flow_spec_type::*;
    let ty = u32::from_ne_bytes(spec[0..4].try_into().unwrap_or_default());
    let ib_size = u16::from_ne_bytes(spec[4..6].try_into().unwrap_or_default());
    let inner = IBV_FLOW_SPEC_INNER as u32;
    let mut kty = ty;
    // (kernel size, [(verbs offset, kernel offset, length)]): val then mask copies.
    let copy = |v: usize, m: usize, len: usize| [(v, 8, len), (m, 8 + len, len)];
    let (ksize, copies): (usize, [(usize, usize, usize); 2]) = match ty {
        t if t & !inner == IBV_FLOW_SPEC_ETH as u32 => (
            size_of::<ib_uverbs_flow_spec_eth>(),
            copy(
                offset_of!(ibv_flow_spec_eth, val),
                offset_of!(ibv_flow_spec_eth, mask),
                size_of::<ibv_flow_eth_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_IPV4 as u32 => (
            8 + 2 * size_of::<ibv_flow_ipv4_filter>(),
            copy(
                offset_of!(ibv_flow_spec_ipv4, val),
                offset_of!(ibv_flow_spec_ipv4, mask),
                size_of::<ibv_flow_ipv4_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_IPV4_EXT as u32 => {
            let min = offset_of!(ib_uverbs_flow_ipv4_filter, flags) + 1;
            let val = offset_of!(ibv_flow_spec_ipv4_ext, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            kty = IBV_FLOW_SPEC_IPV4 as u32 | (t & inner);
            // The kernel's filter is `size_of::<ib_uverbs_flow_ipv4_filter>()` bytes; mask after it.
            let kf = size_of::<ib_uverbs_flow_ipv4_filter>();
            (size_of::<ib_uverbs_flow_spec_ipv4>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t & !inner == IBV_FLOW_SPEC_IPV6 as u32 => {
            let min = offset_of!(ib_uverbs_flow_ipv6_filter, hop_limit) + 1;
            let val = offset_of!(ibv_flow_spec_ipv6, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            let kf = size_of::<ib_uverbs_flow_ipv6_filter>();
            (size_of::<ib_uverbs_flow_spec_ipv6>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t & !inner == IBV_FLOW_SPEC_ESP as u32 => (
            size_of::<ib_uverbs_flow_spec_esp>(),
            copy(
                offset_of!(ibv_flow_spec_esp, val),
                offset_of!(ibv_flow_spec_esp, mask),
                size_of::<ib_uverbs_flow_spec_esp_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_TCP as u32 || t & !inner == IBV_FLOW_SPEC_UDP as u32 => (
            size_of::<ib_uverbs_flow_spec_tcp_udp>(),
            copy(
                offset_of!(ibv_flow_spec_tcp_udp, val),
                offset_of!(ibv_flow_spec_tcp_udp, mask),
                size_of::<ibv_flow_tcp_udp_filter>(),
            ),
        ),
        t if t == IBV_FLOW_SPEC_GRE as u32 => (
            size_of::<ib_uverbs_flow_spec_gre>(),
            copy(
                offset_of!(ibv_flow_spec_gre, val),
                offset_of!(ibv_flow_spec_gre, mask),
                size_of::<ibv_flow_gre_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_MPLS as u32 => (
            size_of::<ib_uverbs_flow_spec_mpls>(),
            copy(
                offset_of!(ibv_flow_spec_mpls, val),
                offset_of!(ibv_flow_spec_mpls, mask),
                size_of::<ibv_flow_mpls_filter>(),
            ),
        ),
        t if t == IBV_FLOW_SPEC_VXLAN_TUNNEL as u32 => {
            let min = offset_of!(ib_uverbs_flow_tunnel_filter, tunnel_id) + 4;
            let val = offset_of!(ibv_flow_spec_tunnel, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            let kf = size_of::<ib_uverbs_flow_tunnel_filter>();
            (size_of::<ib_uverbs_flow_spec_tunnel>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t == IBV_FLOW_SPEC_ACTION_TAG as u32 => {
            let at = offset_of!(ibv_flow_spec_action_tag, tag_id);
            (size_of::<ib_uverbs_flow_spec_action_tag>(), [(at, 8, 4), (0, 0, 0)])
        }
        t if t == IBV_FLOW_SPEC_ACTION_DROP as u32 => (size_of::<ib_uverbs_flow_spec_action_drop>(), [(0, 0, 0); 2]),
        t if t == IBV_FLOW_SPEC_ACTION_HANDLE as u32 || t == IBV_FLOW_SPEC_ACTION_COUNT as u32 => {
            let at = offset_of!(ibv_flow_spec_action_handle, action);
            let p = usize::from_ne_bytes(spec.get(at..at + 8).ok_or(Errno::EINVAL)?.try_into().unwrap_or_default());
            // SAFETY: caller's contract; both objects begin with their public struct, the handle after it.
            let handle = unsafe {
                if t == IBV_FLOW_SPEC_ACTION_HANDLE as u32 {
                    (*obj(p as *mut verbs_flow_action)?).handle
                } else {
                    (*obj(p as *mut verbs_counters)?).handle
                }
            };
            out[8..12].copy_from_slice(&handle.to_ne_bytes());
            (size_of::<ib_uverbs_flow_spec_action_handle>(), [(0, 0, 0); 2])
        }
        _ => return Err(Errno::EINVAL),
    };
    out[0..4].copy_from_slice(&kty.to_ne_bytes());
    out[4..6].copy_from_slice(&(ksize as u16).to_ne_bytes());
    for (from, to, len) in copies {
        if len > 0 {
            out[to..to + len].copy_from_slice(spec.get(from..from + len).ok_or(Errno::EINVAL)?);
        }
    }
    Ok(ksize)
}

/// `int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id, struct ibv_flow_attr *flow_attr,
/// void *ucmd, size_t ucmd_size)`.
///
/// EX_CREATE_FLOW: the rule `flow_attr` and its `num_of_specs` specifications (which follow it in memory), each
/// converted to the kernel's layout, steering to `qp`; `ucmd` is the driver data. Fills `flow_id->context` and
/// `handle`. Errors: `EINVAL` for an unknown specification type or a too short filter, `EOPNOTSUPP` for mask
/// bits the kernel cannot match; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow(
    qp: *mut ibv_qp,
    flow_id: *mut ibv_flow,
    flow_attr: *mut ibv_flow_attr,
    ucmd: *mut c_void,
    ucmd_size: usize,
) -> c_int {
    ret("ibv_cmd_create_flow", || {
        let (qp, flow, attr) = (obj(qp)?, obj(flow_id)?, obj(flow_attr)?);
        // SAFETY: the provider's objects; the specifications follow the attribute struct, each `size` bytes.
        unsafe {
            let a = &*attr;
            let n = a.num_of_specs as usize;
            let head = size_of::<ib_uverbs_create_flow>();
            let mut core = vec![0u8; head + n * KERN_SPEC_MAX];
            let mut k = head;
            let mut ib = attr.cast::<u8>().add(size_of::<ibv_flow_attr>());
            let mut specs_size = 0u16;
            for _ in 0..n {
                let size = u16::from_ne_bytes([*ib.add(4), *ib.add(5)]);
                if (size as usize) < IB_SPEC_HDR {
                    return Err(Errno::EINVAL);
                }
                let spec = slice::from_raw_parts(ib, size as usize);
                let ks = kern_spec(spec, &mut core[k..k + KERN_SPEC_MAX])?;
                specs_size = specs_size.wrapping_add(ks as u16);
                k += ks;
                ib = ib.add(size as usize);
            }
            core.truncate(k);
            let mut c = ib_uverbs_create_flow::zeroed();
            c.qp_handle = (*qp).handle;
            c.flow_attr.type_ = ffi::enum_raw(addr_of!(a.r#type));
            c.flow_attr.size = specs_size;
            c.flow_attr.priority = a.priority;
            c.flow_attr.num_of_specs = a.num_of_specs;
            c.flow_attr.port = a.port;
            c.flow_attr.flags = a.flags;
            core[..head].copy_from_slice(c.as_bytes());
            let udata = tail(ucmd, ucmd_size, 0);
            let u = fd_of((*qp).context)?;
            let mut out = [0u8; size_of::<ib_uverbs_create_flow_resp>()];
            let n_out = out.len();
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_CREATE_FLOW, &core, udata, Some((&mut out, n_out)))?;
            (*flow).context = (*qp).context;
            (*flow).handle = ib_uverbs_create_flow_resp::from_bytes(&out).flow_handle;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)`: EX_DESTROY_FLOW. Errors: the kernel's; a forgiven
/// `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow(flow_id: *mut ibv_flow) -> c_int {
    ret("ibv_cmd_destroy_flow", || {
        let flow = obj(flow_id)?;
        // SAFETY: the provider's live flow.
        unsafe {
            let u = fd_of((*flow).context)?;
            let mut req = ib_uverbs_destroy_flow::zeroed();
            req.flow_handle = (*flow).handle;
            destroyed(kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_FLOW, req.as_bytes(), &[], None))?;
        }
        Ok(())
    })
}

/// rdma-core's `copy_flow_action_esp`: the ESP attributes present in `esp` (ESN, keying material, replay
/// protection, encapsulation, ESP attributes), in that order.
///
/// # Safety
/// The pointers in `esp` are valid for the lengths it states until the command ran.
unsafe fn esp_attrs(c: &mut Cmdb, esp: &ibv_flow_action_esp_attr) -> Result<()> {
    // SAFETY: caller's contract; enum fields read as numbers.
    unsafe {
        if esp.comp_mask & ibv_flow_action_esp_mask::IBV_FLOW_ACTION_ESP_MASK_ESN as u32 != 0 {
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ESN, addr_of!(esp.esn).cast(), 4)?;
        }
        if !esp.keymat_ptr.is_null() {
            let proto = ffi::enum_raw(addr_of!(esp.keymat_proto)) as u8;
            c.in_enum(UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT, proto, esp.keymat_ptr, esp.keymat_len as usize)?;
        }
        if !esp.replay_ptr.is_null() {
            let proto = ffi::enum_raw(addr_of!(esp.replay_proto)) as u8;
            c.in_enum(UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY, proto, esp.replay_ptr, esp.replay_len as usize)?;
        }
        if !esp.esp_encap.is_null() {
            let len = size_of::<rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_flow_action_esp_encap>();
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, esp.esp_encap.cast(), len)?;
        }
        if !esp.esp_attr.is_null() {
            let len = size_of::<rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_flow_action_esp>();
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, esp.esp_attr.cast(), len)?;
        }
    }
    Ok(())
}

/// `int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
/// struct verbs_flow_action *flow_action, struct ibv_command_buffer *driver)`.
///
/// FLOW_ACTION_ESP_CREATE (ioctl only) with the provider's attributes `driver`: an IPsec ESP flow action; fills
/// `action.context`, `type = IBV_FLOW_ACTION_ESP` and `handle`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow_action_esp(
    ctx: *mut ibv_context,
    attr: *mut ibv_flow_action_esp_attr,
    flow_action: *mut verbs_flow_action,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_flow_action_esp", || {
        let (attr, fa) = (obj(attr)?, obj(flow_action)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of(ctx)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
            let h = c.out_obj(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
            esp_attrs(&mut c, &*attr)?;
            c.exec(&u, driver)?;
            (*fa).action.context = ctx;
            (*fa).r#type = IBV_FLOW_ACTION_ESP;
            (*fa).handle = c.data(h) as u32;
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
/// struct ibv_flow_action_esp_attr *attr, struct ibv_command_buffer *driver)`: FLOW_ACTION_ESP_MODIFY (ioctl
/// only) with the provider's attributes. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_flow_action_esp(
    flow_action: *mut verbs_flow_action,
    attr: *mut ibv_flow_action_esp_attr,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_modify_flow_action_esp", || {
        let (fa, attr) = (obj(flow_action)?, obj(attr)?);
        // SAFETY: the provider's live flow action and attribute chain.
        unsafe {
            let u = fd_of((*fa).action.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY);
            c.in_obj(UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, (*fa).handle);
            esp_attrs(&mut c, &*attr)?;
            c.exec(&u, driver)
        }
    })
}

/// `int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)`: FLOW_ACTION_DESTROY (ioctl only).
/// Errors: the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow_action(action: *mut verbs_flow_action) -> c_int {
    ret("ibv_cmd_destroy_flow_action", || {
        let fa = obj(action)?;
        // SAFETY: the provider's live flow action.
        unsafe {
            let u = fd_of((*fa).action.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY);
            c.in_obj(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, (*fa).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// WQ, RWQ indirection tables
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
/// struct ibv_create_wq *cmd, size_t cmd_size, struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size)`.
///
/// EX_CREATE_WQ (a receive work queue on `pd` completing to `cq`) with the provider's driver data; `user_handle`
/// is `wq`. Sets `context`, `cq`, `pd`, `wq_type` first, then `handle`, `wq_num`, and the granted `max_wr` /
/// `max_sge` in `wq_init_attr`. Errors: `EINVAL` for unknown `comp_mask` bits, `EOPNOTSUPP` for unknown creation
/// flags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_wq(
    context: *mut ibv_context,
    wq_init_attr: *mut ibv_wq_init_attr,
    wq: *mut ibv_wq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_wq", || {
        let (a, wq) = (obj(wq_init_attr)?, obj(wq)?);
        // SAFETY: the provider's objects and buffers; a context of ours (checked).
        unsafe {
            let a = &mut *a;
            if a.comp_mask >= ibv_wq_init_attr_mask::IBV_WQ_INIT_ATTR_RESERVED as u32 {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let wq_type = ffi::enum_raw(addr_of!(a.wq_type));
            (*wq).context = context;
            (*wq).cq = a.cq;
            (*wq).pd = a.pd;
            ffi::enum_store(addr_of_mut!((*wq).wq_type), wq_type);
            if a.comp_mask & ibv_wq_init_attr_mask::IBV_WQ_INIT_ATTR_FLAGS as u32 != 0
                && a.create_flags & !(ibv_wq_flags::IBV_WQ_FLAGS_RESERVED as u32 - 1) != 0
            {
                return Err(Errno::EOPNOTSUPP);
            }
            let mut req = ib_uverbs_ex_create_wq::zeroed();
            req.user_handle = wq as usize as u64;
            req.pd_handle = (*obj(a.pd)?).handle;
            req.cq_handle = (*obj(a.cq)?).handle;
            req.max_wr = a.max_wr;
            req.max_sge = a.max_sge;
            req.wq_type = wq_type;
            req.create_flags = a.create_flags;
            let udata = tail(cmd, cmd_size, abi_ex::<ib_uverbs_ex_create_wq>());
            let r: ib_uverbs_ex_create_wq_resp = write_uhw_ex(
                &u,
                IB_USER_VERBS_EX_CMD_CREATE_WQ,
                &req,
                udata,
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_create_wq_resp>(),
            )?;
            (*wq).handle = r.wq_handle;
            a.max_wr = r.max_wr;
            a.max_sge = r.max_sge;
            (*wq).wq_num = r.wqn;
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
/// size_t cmd_size)`.
///
/// EX_MODIFY_WQ (state, flags) with the provider's driver data; the core request is built from zero (rdma-core
/// zeroes and fills the provider's struct). `wq->state` follows a successful state change. Errors: `EINVAL` for
/// unknown `attr_mask` bits, `EOPNOTSUPP` for unknown flags; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_wq(
    wq: *mut ibv_wq,
    attr: *mut ibv_wq_attr,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_modify_wq", || {
        let (wq, attr) = (obj(wq)?, obj(attr)?);
        // SAFETY: the provider's live WQ, attributes and buffers.
        unsafe {
            let a = &*attr;
            if a.attr_mask >= ibv_wq_attr_mask::IBV_WQ_ATTR_RESERVED as u32 {
                return Err(Errno::EINVAL);
            }
            let full = abi_ex::<ib_uverbs_ex_modify_wq>();
            if cmd.is_null() || cmd_size < full {
                return Err(Errno::EINVAL);
            }
            let mut req = ib_uverbs_ex_modify_wq::zeroed();
            req.curr_wq_state = ffi::enum_raw(addr_of!(a.curr_wq_state));
            req.wq_state = ffi::enum_raw(addr_of!(a.wq_state));
            if a.attr_mask & ibv_wq_attr_mask::IBV_WQ_ATTR_FLAGS as u32 != 0 {
                if a.flags_mask & !(ibv_wq_flags::IBV_WQ_FLAGS_RESERVED as u32 - 1) != 0 {
                    return Err(Errno::EOPNOTSUPP);
                }
                req.flags = a.flags;
                req.flags_mask = a.flags_mask;
            }
            req.wq_handle = (*wq).handle;
            req.attr_mask = a.attr_mask;
            let u = fd_of((*wq).context)?;
            let udata = tail(cmd, cmd_size, full);
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_MODIFY_WQ, req.as_bytes(), udata, None)?;
            if a.attr_mask & ibv_wq_attr_mask::IBV_WQ_ATTR_STATE as u32 != 0 {
                ffi::enum_store(addr_of_mut!((*wq).state), ffi::enum_raw(addr_of!(a.wq_state)));
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_wq(struct ibv_wq *wq)`: EX_DESTROY_WQ, then waits until the async events the kernel
/// reported for it were acknowledged. Errors: the kernel's; a forgiven `EIO` (see [`ibv_cmd_dealloc_pd`])
/// returns 0 at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_wq(wq: *mut ibv_wq) -> c_int {
    ret("ibv_cmd_destroy_wq", || {
        let wq = obj(wq)?;
        // SAFETY: the provider's live WQ, whose mutex/cond were initialised at creation (`ibv_create_wq`).
        unsafe {
            let u = fd_of((*wq).context)?;
            let mut req = ib_uverbs_ex_destroy_wq::zeroed();
            req.wq_handle = (*wq).handle;
            let mut out = [0u8; size_of::<ib_uverbs_ex_destroy_wq_resp>()];
            let n = out.len();
            let r = kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_WQ, req.as_bytes(), &[], Some((&mut out, n)));
            if destroyed(r)?.is_some() {
                let reported = ib_uverbs_ex_destroy_wq_resp::from_bytes(&out).events_reported;
                wait(addr_of_mut!((*wq).mutex), addr_of_mut!((*wq).cond), || {
                    object::all_acked("ibv_destroy_wq (async events)", (*wq).events_completed, reported)
                });
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
/// struct ibv_rwq_ind_table_init_attr *init_attr, struct ibv_rwq_ind_table *rwq_ind_table,
/// struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size)`.
///
/// EX_CREATE_RWQ_IND_TBL of the `2^log_ind_tbl_size` WQs `init_attr->ind_tbl` (the command padded to 8 bytes),
/// the response straight into `resp`; fills `ind_tbl_handle`, `ind_tbl_num`, `context`. Errors: `EINVAL` for
/// unknown `comp_mask` bits, a table too large for one command, or a response shorter than the kernel's struct;
/// the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_rwq_ind_table(
    context: *mut ibv_context,
    init_attr: *mut ibv_rwq_ind_table_init_attr,
    rwq_ind_table: *mut ibv_rwq_ind_table,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_create_rwq_ind_table", || {
        let (a, t) = (obj(init_attr)?, obj(rwq_ind_table)?);
        // SAFETY: the provider's objects, its array of WQ pointers and its response buffer.
        unsafe {
            let a = &*a;
            if a.comp_mask >= ibv_ind_table_init_attr_mask::IBV_CREATE_IND_TABLE_RESERVED as u32 {
                return Err(Errno::EINVAL);
            }
            if a.log_ind_tbl_size > 16 {
                return Err(Errno::EINVAL);
            }
            let u = fd_of(context)?;
            let n = 1usize << a.log_ind_tbl_size;
            let head = size_of::<ib_uverbs_ex_create_rwq_ind_table>();
            // The whole command (extended header included) is padded to 8 bytes.
            let len = (EX_HDR + head + 4 * n).div_ceil(8) * 8 - EX_HDR;
            let mut core = Bytes(vec![0u8; len]);
            core.u32(offset_of!(ib_uverbs_ex_create_rwq_ind_table, log_ind_tbl_size), a.log_ind_tbl_size);
            let list = obj(a.ind_tbl)?;
            for i in 0..n {
                core.u32(head + 4 * i, (*obj(*list.add(i))?).handle);
            }
            let r: ib_uverbs_ex_create_rwq_ind_table_resp = write_ex_direct(
                &u,
                IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
                &core.0,
                &[],
                resp,
                resp_size,
                size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>(),
            )?;
            if (r.response_length as usize) < size_of::<ib_uverbs_ex_create_rwq_ind_table_resp>() {
                return Err(Errno::EINVAL);
            }
            (*t).ind_tbl_handle = r.ind_tbl_handle as c_int;
            (*t).ind_tbl_num = r.ind_tbl_num as c_int;
            (*t).context = context;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)`: EX_DESTROY_RWQ_IND_TBL. Errors:
/// the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int {
    ret("ibv_cmd_destroy_rwq_ind_table", || {
        let t = obj(rwq_ind_table)?;
        // SAFETY: the provider's live table.
        unsafe {
            let u = fd_of((*t).context)?;
            let mut req = ib_uverbs_ex_destroy_rwq_ind_table::zeroed();
            req.ind_tbl_handle = (*t).ind_tbl_handle as u32;
            destroyed(kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL, req.as_bytes(), &[], None))?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_cmd_create_counters(struct ibv_context *context, struct ibv_counters_init_attr *init_attr,
/// struct verbs_counters *vcounters, struct ibv_command_buffer *link)`.
///
/// COUNTERS_CREATE (ioctl only) with the provider's attributes `link`; fills `counters.context` and `handle`.
/// Errors: `EOPNOTSUPP` for any `comp_mask` bit; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_counters(
    context: *mut ibv_context,
    init_attr: *mut ibv_counters_init_attr,
    vcounters: *mut verbs_counters,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_counters", || {
        let (a, vc) = (obj(init_attr)?, obj(vcounters)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            if (*a).comp_mask != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let u = fd_of(context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
            let h = c.out_obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
            c.exec(&u, link)?;
            (*vc).counters.context = context;
            (*vc).handle = c.data(h) as u32;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)`: COUNTERS_DESTROY (ioctl only). Errors: the
/// kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_counters(vcounters: *mut verbs_counters) -> c_int {
    ret("ibv_cmd_destroy_counters", || {
        let vc = obj(vcounters)?;
        // SAFETY: the provider's live counters object.
        unsafe {
            let u = fd_of((*vc).counters.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY);
            c.in_obj(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, (*vc).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

/// `int ibv_cmd_read_counters(struct verbs_counters *vcounters, uint64_t *counters_value, uint32_t ncounters,
/// uint32_t flags, struct ibv_command_buffer *link)`: COUNTERS_READ (ioctl only) of `ncounters` values into
/// `counters_value`, with the provider's attributes `link`. Errors: `EINVAL` for more than 8191 counters; the
/// kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_read_counters(
    vcounters: *mut verbs_counters,
    counters_value: *mut u64,
    ncounters: u32,
    flags: u32,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_read_counters", || {
        let vc = obj(vcounters)?;
        // SAFETY: the provider's live counters object, its value array and attribute chain.
        unsafe {
            let u = fd_of((*vc).counters.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ);
            c.in_obj(UVERBS_ATTR_READ_COUNTERS_HANDLE, (*vc).handle);
            let len = (ncounters as usize).checked_mul(8).ok_or(Errno::EINVAL)?;
            c.out_ptr(UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value.cast(), len)?;
            c.in_u32(UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
            c.exec(&u, link)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::fake::{Fake, Reply};
    use std::cell::Cell;
    use std::mem::MaybeUninit;

    thread_local! {
        static FAKE: Cell<*const Fake> = const { Cell::new(ptr::null()) };
    }

    /// The fake installed by [`with_fake`] on this thread.
    pub(super) fn fake() -> Option<&'static Fake> {
        // SAFETY: set only for the duration of `with_fake`, which borrows the fake.
        FAKE.with(|f| unsafe { f.get().as_ref() })
    }

    /// Runs `body` with every `ibv_cmd_*` of this thread talking to `f`.
    fn with_fake<R>(f: &Fake, body: impl FnOnce() -> R) -> R {
        FAKE.with(|c| c.set(f));
        let r = body();
        FAKE.with(|c| c.set(ptr::null()));
        r
    }

    fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
    }
    fn u32_at(b: &[u8], o: usize) -> u32 {
        u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], o: usize) -> u64 {
        u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
    }

    /// A zeroed C struct (filled by raw writes only: some hold enums without a zero value).
    fn z<T>() -> MaybeUninit<T> {
        MaybeUninit::zeroed()
    }

    /// Legacy header words: (command, in_words, out_words).
    fn hdr(w: &[u8]) -> (u32, u16, u16) {
        (u32_at(w, 0), u16_at(w, 4), u16_at(w, 6))
    }

    /// A provider's `struct ibv_<cmd>` + driver data: header zero, core `core` bytes of `fill`, then `drv`.
    fn prov_cmd(hdr_len: usize, core: usize, fill: u8, drv: &[u8]) -> Vec<u8> {
        let mut v = vec![0u8; hdr_len];
        v.extend(std::iter::repeat_n(fill, core));
        v.extend_from_slice(drv);
        v
    }

    #[test]
    fn final_num_attrs_counts_the_chain() {
        let mut a: ibv_command_buffer = unsafe { std::mem::zeroed() };
        let mut b: ibv_command_buffer = unsafe { std::mem::zeroed() };
        // Pretend block a filled 3 attributes and block b none (pointers are only subtracted, never read).
        let base_a = addr_of_mut!(a.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next_attr = base_a.wrapping_add(3);
        b.next_attr = addr_of_mut!(b.hdr.attrs).cast::<ib_uverbs_attr>();
        a.next = &mut b;
        assert_eq!(unsafe { __ioctl_final_num_attrs(2, &mut a) }, 5);
        assert_eq!(unsafe { __ioctl_final_num_attrs(7, ptr::null_mut()) }, 7);
    }

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
    fn alloc_pd_writes_the_providers_command_and_response_in_place() {
        let f = Fake::new();
        f.reply(Reply::write(&[7, 0, 0, 0, 0xd1, 0xd2, 0xd3, 0xd4]));
        let mut cmd = prov_cmd(8, 8, 0x55, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut resp = [0u8; 8];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ptr::null_mut(), handle: 0 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_alloc_pd(ctx.as_mut_ptr(), &mut pd, cmd.as_mut_ptr().cast(), cmd.len(), resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(rc, 0);
        assert_eq!((pd.handle, pd.context), (7, ctx.as_mut_ptr()));
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_ALLOC_PD, 6, 2));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64, "response is the provider's buffer");
        assert_eq!(&w[16..], &[1, 2, 3, 4, 5, 6, 7, 8], "driver data appended");
        assert_eq!(&resp[4..], &[0xd1, 0xd2, 0xd3, 0xd4], "driver response in place");
    }

    #[test]
    fn create_cq_ex_without_flags_sends_legacy_create_cq_before_the_driver_response() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_cq_resp::zeroed();
        kresp.cq_handle = 3;
        kresp.cqe = 63;
        let mut bytes = kresp.as_bytes().to_vec();
        bytes.extend_from_slice(&[0xee; 8]);
        f.reply(Reply::write(&bytes));
        // ibv_create_cq_ex (24 + 32) + 8 bytes of driver data; response: ex resp (16) + 8 of driver data.
        let mut cmd = prov_cmd(24, 32, 0x77, &[9; 8]);
        let mut resp = [0u8; 24];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut cq: MaybeUninit<verbs_cq> = z();
        let mut attr: MaybeUninit<ibv_cq_init_attr_ex> = z();
        let mut ch: MaybeUninit<ibv_comp_channel> = z();
        unsafe {
            (*ch.as_mut_ptr()).fd = 42;
            let a = attr.as_mut_ptr();
            (*a).cqe = 10;
            (*a).comp_vector = 2;
            (*a).channel = ch.as_mut_ptr();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_cq_ex(
                ctx.as_mut_ptr(),
                attr.as_ptr(),
                cq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                resp.len(),
                0,
            )
        });
        assert_eq!(rc, 0);
        let c = unsafe { &(*cq.as_ptr()).cq_ex };
        assert_eq!((c.handle, c.cqe, c.context), (3, 63, ctx.as_mut_ptr()));
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_CQ, (8 + 32 + 8) / 4, (8 + 8) / 4));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64 + 8, "kernel response right before the driver's");
        let req = ib_uverbs_create_cq::from_bytes(&w[8..]);
        assert_eq!(req.user_handle, cq.as_ptr() as u64);
        assert_eq!((req.cqe, req.comp_vector, req.comp_channel, req.reserved), (10, 2, 42, 0));
        assert_eq!(&w[40..], &[9; 8]);
        assert_eq!(&resp[16..], &[0xee; 8]);

        // IGNORE_OVERRUN needs the extended command.
        f.reply(Reply::write(&[0u8; 24]));
        unsafe {
            let a = attr.as_mut_ptr();
            (*a).comp_mask = ibv_cq_init_attr_mask::IBV_CQ_INIT_ATTR_MASK_FLAGS as u32;
            (*a).flags = ibv_create_cq_attr_flags::IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN as u32;
            let rc = with_fake(&f, || {
                ibv_cmd_create_cq_ex(
                    ctx.as_mut_ptr(),
                    attr.as_ptr(),
                    cq.as_mut_ptr(),
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    resp.len(),
                    0,
                )
            });
            assert_eq!(rc, 0);
        }
        let w = f.write(1);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ, 4, 2));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!((u16_at(&w, 16), u16_at(&w, 18)), (1, 1), "provider in/out words");
        let req = ib_uverbs_ex_create_cq::from_bytes(&w[24..]);
        assert_eq!(req.flags, IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN);

        // Unknown comp_mask bits.
        unsafe {
            (*attr.as_mut_ptr()).comp_mask = 1 << 5;
            let rc = with_fake(&f, || {
                ibv_cmd_create_cq_ex(
                    ctx.as_mut_ptr(),
                    attr.as_ptr(),
                    cq.as_mut_ptr(),
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    0,
                    0,
                )
            });
            assert_eq!(rc, libc::EOPNOTSUPP);
        }
    }

    #[test]
    fn create_qp_ex2_legacy_and_extended() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_qp_resp::zeroed();
        kresp.qp_handle = 11;
        kresp.qpn = 0x123;
        kresp.max_send_wr = 64;
        kresp.max_inline_data = 32;
        let mut bytes = kresp.as_bytes().to_vec();
        bytes.extend_from_slice(&[0xab; 8]);
        f.reply(Reply::write(&bytes));
        let ex_core = size_of::<ib_uverbs_ex_create_qp>();
        let mut cmd = prov_cmd(24, ex_core, 0x33, &[4; 8]);
        let ex_resp = size_of::<ib_uverbs_ex_create_qp_resp>();
        let mut resp = vec![0u8; ex_resp + 8];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 5 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut qp: MaybeUninit<verbs_qp> = z();
        let mut a: MaybeUninit<ibv_qp_init_attr_ex> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 6;
            let x = a.as_mut_ptr();
            (*x).send_cq = cq.as_mut_ptr();
            (*x).recv_cq = cq.as_mut_ptr();
            (*x).cap.max_send_wr = 10;
            (*x).qp_context = 0x1234 as *mut c_void;
            ffi::enum_store(addr_of_mut!((*x).qp_type), QPT_RC);
            (*x).comp_mask = IBV_QP_INIT_ATTR_PD;
            (*x).pd = &mut pd;
        }
        let ctxp = ctx.as_mut_ptr();
        let call = |qp: *mut verbs_qp, a: *mut ibv_qp_init_attr_ex, cmd: &mut Vec<u8>, resp: &mut Vec<u8>| unsafe {
            with_fake(&f, || {
                ibv_cmd_create_qp_ex2(
                    ctxp,
                    qp,
                    a,
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    resp.len(),
                )
            })
        };
        assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_QP, ((8 + 56 + 8) / 4) as u16, ((32 + 8) / 4) as u16));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64 + (ex_resp - 32) as u64);
        let req = ib_uverbs_create_qp::from_bytes(&w[8..]);
        assert_eq!((req.pd_handle, req.send_cq_handle, req.recv_cq_handle, req.qp_type), (5, 6, 6, QPT_RC as u8));
        assert_eq!(&w[64..], &[4; 8]);
        unsafe {
            let q = &(*qp.as_ptr()).qp_ex.qp_base;
            assert_eq!((q.handle, q.qp_num, q.context, q.pd), (11, 0x123, ctxp, &mut pd as *mut _));
            assert_eq!(q.qp_context, 0x1234 as *mut c_void);
            assert_eq!(ffi::enum_raw(addr_of!(q.state)), ibv_qp_state::IBV_QPS_RESET as u32);
            assert_eq!((*a.as_ptr()).cap.max_send_wr, 64);
            assert_eq!((*qp.as_ptr()).comp_mask, 0);
        }

        // The CREATE_FLAGS bit alone (even with no flag) selects EX_CREATE_QP.
        f.reply(Reply::write(&vec![0u8; ex_resp + 8]));
        unsafe {
            let x = a.as_mut_ptr();
            (*x).comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
            (*x).create_flags = ibv_qp_create_flags::IBV_QP_CREATE_SOURCE_QPN as u32;
            (*x).source_qpn = 0x77;
        }
        assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), 0);
        let w = f.write(1);
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP);
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        let req = ib_uverbs_ex_create_qp::from_bytes(&w[24..]);
        assert_eq!(
            (req.create_flags, req.source_qpn, req.user_handle),
            (ibv_qp_create_flags::IBV_QP_CREATE_SOURCE_QPN as u32, 0x77, qp.as_ptr() as u64)
        );
        assert_eq!(&w[24 + ex_core..], &[4; 8]);

        unsafe {
            (*a.as_mut_ptr()).create_flags = 1 << 30;
            assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), libc::EINVAL);
            (*a.as_mut_ptr()).comp_mask |= 1 << 12;
            assert_eq!(call(qp.as_mut_ptr(), a.as_mut_ptr(), &mut cmd, &mut resp), libc::EINVAL);
        }
        assert_eq!(f.writes().len(), 2);
    }

    #[test]
    fn modify_qp_sends_only_masked_fields_over_the_providers_bytes() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        let core = size_of::<ib_uverbs_modify_qp>();
        let mut cmd = prov_cmd(8, core, 0xcc, &[]);
        let mut qp: MaybeUninit<ibv_qp> = z();
        let mut attr: MaybeUninit<ibv_qp_attr> = z();
        unsafe {
            (*qp.as_mut_ptr()).handle = 9;
            ffi::enum_store(addr_of_mut!((*attr.as_mut_ptr()).qp_state), 3);
            (*attr.as_mut_ptr()).qkey = 0xdead;
            (*attr.as_mut_ptr()).sq_psn = 0x42;
        }
        let mask = ibv_qp_attr_mask::IBV_QP_STATE as c_int | ibv_qp_attr_mask::IBV_QP_SQ_PSN as c_int;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp(qp.as_mut_ptr(), attr.as_mut_ptr(), mask, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_MODIFY_QP, ((8 + core) / 4) as u16, 0));
        let c = ib_uverbs_modify_qp::from_bytes(&w[8..]);
        assert_eq!((c.qp_handle, c.attr_mask, c.qp_state, c.sq_psn), (9, mask as u32, 3, 0x42));
        assert_eq!(c.qkey, 0xcccc_cccc, "not in the mask: the provider's bytes");
        assert_eq!(c.reserved, [0, 0]);
        let rl = ibv_qp_attr_mask::IBV_QP_RATE_LIMIT as c_int;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp(qp.as_mut_ptr(), attr.as_mut_ptr(), rl, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, libc::EOPNOTSUPP);

        // The extended command carries the rate limit and its response lands in the provider's buffer.
        f.reply(Reply::write(&[1, 0, 0, 0, 8, 0, 0, 0]));
        let ex = size_of::<ib_uverbs_ex_modify_qp>();
        let mut cmd = prov_cmd(24, ex, 0, &[]);
        let mut resp = [0u8; 8];
        unsafe { (*attr.as_mut_ptr()).rate_limit = 1000 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_qp_ex(
                qp.as_mut_ptr(),
                attr.as_mut_ptr(),
                rl | ibv_qp_attr_mask::IBV_QP_STATE as c_int,
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(1);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_QP, (ex / 8) as u16, 1));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!(ib_uverbs_ex_modify_qp::from_bytes(&w[24..]).rate_limit, 1000);
        assert_eq!(resp, [1, 0, 0, 0, 8, 0, 0, 0]);
    }

    #[test]
    fn create_srq_ex_xrc_and_its_verbs_srq_fields() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_create_srq_resp::zeroed();
        kresp.srq_handle = 4;
        kresp.max_wr = 128;
        kresp.srqn = 0x99;
        f.reply(Reply::write(kresp.as_bytes()));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_create_xsrq>(), 0, &[]);
        let mut resp = [0u8; 16];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 2 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        let mut srq: MaybeUninit<verbs_srq> = z();
        let mut a: MaybeUninit<ibv_srq_init_attr_ex> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 8;
            (*xrcd.as_mut_ptr()).handle = 12;
            let x = a.as_mut_ptr();
            (*x).attr.max_wr = 100;
            (*x).comp_mask = SRQ_INIT_ATTR_TYPE | SRQ_INIT_ATTR_PD | SRQ_INIT_ATTR_XRCD | SRQ_INIT_ATTR_CQ;
            ffi::enum_store(addr_of_mut!((*x).srq_type), SRQT_XRC);
            (*x).pd = &mut pd;
            (*x).cq = cq.as_mut_ptr();
            (*x).xrcd = xrcd.as_mut_ptr().cast();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_srq_ex(
                ctx.as_mut_ptr(),
                srq.as_mut_ptr(),
                a.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_CREATE_XSRQ);
        assert_ne!(u64_at(&w, 8), resp.as_ptr() as u64, "no driver response: a local buffer, as rdma-core");
        let req = ib_uverbs_create_xsrq::from_bytes(&w[8..]);
        assert_eq!(
            (req.srq_type, req.pd_handle, req.cq_handle, req.xrcd_handle, req.max_wr),
            (SRQT_XRC, 2, 8, 12, 100)
        );
        unsafe {
            let s = &*srq.as_ptr();
            assert_eq!((s.srq.handle, s.srq.context, s.srq_type, s.srq_num), (4, ctx.as_mut_ptr(), SRQT_XRC, 0x99));
            assert_eq!((s.xrcd, s.cq), (xrcd.as_mut_ptr(), cq.as_mut_ptr()));
            assert_eq!((*a.as_ptr()).attr.max_wr, 128);
            (*a.as_mut_ptr()).comp_mask = SRQ_INIT_ATTR_RESERVED;
            assert_eq!(
                with_fake(&f, || ibv_cmd_create_srq_ex(
                    ctx.as_mut_ptr(),
                    srq.as_mut_ptr(),
                    a.as_mut_ptr(),
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    0
                )),
                libc::EOPNOTSUPP
            );
        }
    }

    #[test]
    fn open_xrcd_and_open_qp() {
        let f = Fake::new();
        f.reply(Reply::write(&[0x21, 0, 0, 0]));
        let mut cmd = prov_cmd(8, 16, 0, &[]);
        let mut resp = [0u8; 4];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        let mut attr = ibv_xrcd_init_attr {
            comp_mask: ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_FD as u32
                | ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_OFLAGS as u32,
            fd: -1,
            oflags: libc::O_CREAT,
        };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_open_xrcd(
                ctx.as_mut_ptr(),
                xrcd.as_mut_ptr(),
                size_of::<verbs_xrcd>() as c_int,
                &mut attr,
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                4,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_OPEN_XRCD, 6, 1));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (u32::MAX, libc::O_CREAT as u32));
        unsafe {
            let x = &*xrcd.as_ptr();
            assert_eq!((x.handle, x.comp_mask, x.xrcd.context), (0x21, VERBS_XRCD_HANDLE, ctx.as_mut_ptr()));
        }

        let mut kresp = ib_uverbs_create_qp_resp::zeroed();
        kresp.qp_handle = 17;
        f.reply(Reply::write(kresp.as_bytes()));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_open_qp>(), 0xaa, &[]);
        let mut resp = [0u8; 32];
        let mut qp: MaybeUninit<verbs_qp> = z();
        let mut oa: MaybeUninit<ibv_qp_open_attr> = z();
        unsafe {
            let o = oa.as_mut_ptr();
            (*o).comp_mask = 0xf;
            (*o).qp_num = 0x456;
            (*o).xrcd = xrcd.as_mut_ptr().cast();
            ffi::enum_store(addr_of_mut!((*o).qp_type), QPT_XRC_RECV);
            let rc = with_fake(&f, || {
                ibv_cmd_open_qp(
                    ctx.as_mut_ptr(),
                    qp.as_mut_ptr(),
                    size_of::<verbs_qp>() as c_int,
                    o,
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    32,
                )
            });
            assert_eq!(rc, 0);
            let w = f.write(1);
            let req = ib_uverbs_open_qp::from_bytes(&w[8..]);
            assert_eq!((req.pd_handle, req.qpn, req.qp_type), (0x21, 0x456, QPT_XRC_RECV as u8));
            assert_eq!(req.reserved, [0xaa; 7], "left as the provider wrote them, as rdma-core");
            let q = &*qp.as_ptr();
            assert_eq!((q.qp_ex.qp_base.handle, q.qp_ex.qp_base.qp_num, q.comp_mask), (17, 0x456, VERBS_QP_XRCD));
            assert_eq!(ffi::enum_raw(addr_of!(q.qp_ex.qp_base.state)), ibv_qp_state::IBV_QPS_UNKNOWN as u32);
        }
    }

    #[test]
    fn reg_rereg_mr_and_alloc_mw() {
        let f = Fake::new();
        f.reply(Reply::write(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_reg_mr>(), 0, &[]);
        let mut resp = [0u8; 12];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 5 };
        let mut mr: MaybeUninit<verbs_mr> = z();
        let access = ibv_access_flags::IBV_ACCESS_ON_DEMAND as c_int | 1;
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_mr(
                &mut pd,
                ptr::null_mut(),
                usize::MAX,
                0,
                access,
                mr.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                12,
            )
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_reg_mr::from_bytes(&f.write(0)[8..]);
        assert_eq!((req.length, req.pd_handle, req.access_flags), (u64::MAX, 5, access as u32), "implicit ODP");
        unsafe {
            let m = &*mr.as_ptr();
            assert_eq!((m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.rkey, m.mr_type, m.access), (1, 2, 3, 0, access));
            let rc = with_fake(&f, || {
                ibv_cmd_reg_mr(
                    &mut pd,
                    8 as *mut c_void,
                    usize::MAX,
                    0,
                    access,
                    mr.as_mut_ptr(),
                    cmd.as_mut_ptr().cast(),
                    cmd.len(),
                    resp.as_mut_ptr().cast(),
                    12,
                )
            });
            assert_eq!(rc, libc::EINVAL);
        }

        f.reply(Reply::write(&[7, 0, 0, 0, 8, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_rereg_mr>(), 0, &[]);
        let mut resp = [0u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_rereg_mr(
                mr.as_mut_ptr(),
                1,
                0x1000 as *mut c_void,
                64,
                0x1000,
                1,
                ptr::null_mut(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_rereg_mr::from_bytes(&f.write(1)[8..]);
        assert_eq!((req.mr_handle, req.flags, req.start, req.pd_handle), (1, 1, 0x1000, 0));
        unsafe { assert_eq!(((*mr.as_ptr()).ibv_mr.lkey, (*mr.as_ptr()).ibv_mr.rkey), (7, 8)) };

        f.reply(Reply::write(&[4, 0, 0, 0, 5, 0, 0, 0]));
        let mut cmd = prov_cmd(8, size_of::<ib_uverbs_alloc_mw>(), 0xff, &[]);
        let mut mw: MaybeUninit<ibv_mw> = z();
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_alloc_mw(
                &mut pd,
                2,
                mw.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(2);
        let req = ib_uverbs_alloc_mw::from_bytes(&w[8..]);
        assert_eq!((req.pd_handle, req.mw_type, req.reserved), (5, 2, [0; 3]));
        unsafe { assert_eq!(((*mw.as_ptr()).handle, (*mw.as_ptr()).rkey), (4, 5)) };
    }

    #[test]
    fn wq_lifecycle_and_indirection_table() {
        let f = Fake::new();
        let mut kresp = ib_uverbs_ex_create_wq_resp::zeroed();
        kresp.wq_handle = 3;
        kresp.max_wr = 256;
        kresp.wqn = 0x31;
        f.reply(Reply::write(kresp.as_bytes()));
        let core = size_of::<ib_uverbs_ex_create_wq>();
        let mut cmd = prov_cmd(24, core, 0, &[6; 8]);
        let mut resp = vec![0u8; size_of::<ib_uverbs_ex_create_wq_resp>()];
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 1 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut wq: MaybeUninit<ibv_wq> = z();
        let mut a: MaybeUninit<ibv_wq_init_attr> = z();
        unsafe {
            (*cq.as_mut_ptr()).handle = 2;
            let x = a.as_mut_ptr();
            (*x).max_wr = 200;
            (*x).max_sge = 1;
            (*x).pd = &mut pd;
            (*x).cq = cq.as_mut_ptr();
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_wq(
                ctx.as_mut_ptr(),
                a.as_mut_ptr(),
                wq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                cmd.len(),
                resp.as_mut_ptr().cast(),
                resp.len(),
            )
        });
        assert_eq!(rc, 0);
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_WQ, (core / 8) as u16, 3));
        assert_eq!(u16_at(&w, 16), 1, "driver data words");
        let req = ib_uverbs_ex_create_wq::from_bytes(&w[24..]);
        assert_eq!((req.user_handle, req.pd_handle, req.cq_handle, req.max_wr), (wq.as_ptr() as u64, 1, 2, 200));
        unsafe {
            assert_eq!(((*wq.as_ptr()).handle, (*wq.as_ptr()).wq_num, (*a.as_ptr()).max_wr), (3, 0x31, 256));
        }

        f.reply(Reply::write(&[]));
        let mut cmd = prov_cmd(24, size_of::<ib_uverbs_ex_modify_wq>(), 0x5a, &[]);
        let mut wa = ibv_wq_attr {
            attr_mask: ibv_wq_attr_mask::IBV_WQ_ATTR_STATE as u32,
            wq_state: ibv_wq_state::IBV_WQS_RDY,
            curr_wq_state: ibv_wq_state::IBV_WQS_RESET,
            flags: 0,
            flags_mask: 0,
        };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_modify_wq(wq.as_mut_ptr(), &mut wa, cmd.as_mut_ptr().cast(), cmd.len())
        });
        assert_eq!(rc, 0);
        let req = ib_uverbs_ex_modify_wq::from_bytes(&f.write(1)[24..]);
        assert_eq!((req.attr_mask, req.wq_handle, req.wq_state, req.flags), (1, 3, 1, 0));
        unsafe { assert_eq!(ffi::enum_raw(addr_of!((*wq.as_ptr()).state)), 1) };

        // Destroy waits until the reported events were acknowledged (here: already).
        let mut d = ib_uverbs_ex_destroy_wq_resp::zeroed();
        d.events_reported = 2;
        f.reply(Reply::write(d.as_bytes()));
        unsafe {
            let p = wq.as_mut_ptr();
            object::init_sync(addr_of_mut!((*p).mutex), addr_of_mut!((*p).cond));
            (*p).events_completed = 2;
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_wq(p)), 0);
        }

        // An indirection table of 2^1 WQs: 8 + 2 * 4 bytes, padded to 8 with the 24-byte header.
        let mut r = ib_uverbs_ex_create_rwq_ind_table_resp::zeroed();
        r.response_length = 16;
        r.ind_tbl_handle = 9;
        f.reply(Reply::write(r.as_bytes()));
        let mut wqs = [wq.as_mut_ptr(), wq.as_mut_ptr()];
        let mut ia = ibv_rwq_ind_table_init_attr { log_ind_tbl_size: 1, ind_tbl: wqs.as_mut_ptr(), comp_mask: 0 };
        let mut t: MaybeUninit<ibv_rwq_ind_table> = z();
        let mut resp = [0u8; 16];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_rwq_ind_table(ctx.as_mut_ptr(), &mut ia, t.as_mut_ptr(), resp.as_mut_ptr().cast(), 16)
        });
        assert_eq!(rc, 0);
        let w = f.write(3);
        assert_eq!(w.len(), 24 + 16);
        assert_eq!(hdr(&w).1, 2);
        assert_eq!((u32_at(&w, 28), u32_at(&w, 32), u32_at(&w, 36)), (1, 3, 3));
        unsafe { assert_eq!((*t.as_ptr()).ind_tbl_handle, 9) };
    }

    #[test]
    fn create_flow_converts_specifications() {
        #[repr(C)]
        struct Rule {
            attr: ibv_flow_attr,
            eth: ibv_flow_spec_eth,
            ipv6: ibv_flow_spec_ipv6,
            tag: ibv_flow_spec_action_tag,
        }
        let mut rule: MaybeUninit<Rule> = z();
        let r = rule.as_mut_ptr();
        // SAFETY: our zeroed struct, enum fields written as numbers.
        unsafe {
            use ibv_flow_spec_type::*;
            (*r).attr.num_of_specs = 3;
            (*r).attr.priority = 2;
            (*r).attr.port = 1;
            ffi::enum_store(addr_of_mut!((*r).eth.r#type), IBV_FLOW_SPEC_ETH as u32);
            (*r).eth.size = size_of::<ibv_flow_spec_eth>() as u16;
            (*r).eth.val.ether_type = 0x0800;
            (*r).eth.mask.ether_type = 0xffff;
            ffi::enum_store(addr_of_mut!((*r).ipv6.r#type), IBV_FLOW_SPEC_IPV6 as u32);
            (*r).ipv6.size = size_of::<ibv_flow_spec_ipv6>() as u16;
            (*r).ipv6.val.hop_limit = 64;
            (*r).ipv6.mask.hop_limit = 0xff;
            ffi::enum_store(addr_of_mut!((*r).tag.r#type), IBV_FLOW_SPEC_ACTION_TAG as u32);
            (*r).tag.size = size_of::<ibv_flow_spec_action_tag>() as u16;
            (*r).tag.tag_id = 0x1234;
        }
        let f = Fake::new();
        f.reply(Reply::write(&[0, 0, 0, 0, 0x66, 0, 0, 0]));
        let mut qp: MaybeUninit<ibv_qp> = z();
        let mut flow: MaybeUninit<ibv_flow> = z();
        unsafe { (*qp.as_mut_ptr()).handle = 3 };
        let mut ucmd = [1u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_flow(
                qp.as_mut_ptr(),
                flow.as_mut_ptr(),
                addr_of_mut!((*r).attr),
                ucmd.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        unsafe { assert_eq!((*flow.as_ptr()).handle, 0x66) };
        let w = f.write(0);
        let specs = 40 + 88 + 16;
        assert_eq!(w.len(), 24 + 24 + specs + 8);
        assert_eq!(
            hdr(&w),
            (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_FLOW, ((24 + specs) / 8) as u16, 1)
        );
        assert_eq!(u16_at(&w, 16), 1);
        let c = &w[24..];
        assert_eq!(u32_at(c, 4), 3, "qp_handle");
        assert_eq!((u16_at(c, 12), u16_at(c, 14), c[16], c[19]), (specs as u16, 2, 3, 1), "flow_attr");
        let s = &c[24..];
        assert_eq!((u32_at(s, 0), u16_at(s, 4)), (0x20, 40));
        assert_eq!(u16_at(s, 8 + 12), 0x0800, "eth val.ether_type");
        let s6 = &s[40..];
        assert_eq!((u32_at(s6, 0), u16_at(s6, 4)), (0x31, 88));
        assert_eq!((s6[8 + 38], s6[48 + 38]), (64, 0xff), "hop_limit in val and mask");
        let t = &s6[88..];
        assert_eq!((u32_at(t, 0), u16_at(t, 4), u32_at(t, 8)), (0x1000, 16, 0x1234));
        assert_eq!(&w[24 + 24 + specs..], &[1; 8]);

        // SAFETY: as above.
        unsafe {
            (*r).attr.num_of_specs = 1;
            ffi::enum_store(addr_of_mut!((*r).eth.r#type), ibv_flow_spec_type::IBV_FLOW_SPEC_INNER as u32);
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_flow(qp.as_mut_ptr(), flow.as_mut_ptr(), addr_of_mut!((*r).attr), ptr::null_mut(), 0)
        });
        assert_eq!(rc, libc::EINVAL);
    }

    #[test]
    fn post_send_layout_and_bad_wr() {
        let f = Fake::new();
        // The kernel names the second request and fails (a short count here: EIO).
        f.reply(Reply::Write { resp: vec![2, 0, 0, 0], accepted: Some(4) });
        let mut qp: MaybeUninit<ibv_qp> = z();
        unsafe {
            (*qp.as_mut_ptr()).handle = 5;
            ffi::enum_store(addr_of_mut!((*qp.as_mut_ptr()).qp_type), QPT_RC);
        }
        let mut sge = [ibv_sge { addr: 0x1000, length: 64, lkey: 7 }, ibv_sge { addr: 0x2000, length: 8, lkey: 9 }];
        let mut w2: MaybeUninit<ibv_send_wr> = z();
        let mut w1: MaybeUninit<ibv_send_wr> = z();
        unsafe {
            let a = w2.as_mut_ptr();
            (*a).wr_id = 2;
            (*a).num_sge = 1;
            (*a).sg_list = sge.as_mut_ptr().add(1);
            ffi::enum_store(addr_of_mut!((*a).opcode), ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD as u32);
            (*a).wr.atomic = ibv_send_wr_atomic { remote_addr: 0x8000, compare_add: 1, swap: 2, rkey: 3 };
            let b = w1.as_mut_ptr();
            (*b).wr_id = 1;
            (*b).num_sge = 1;
            (*b).sg_list = sge.as_mut_ptr();
            (*b).next = a;
            (*b).send_flags = 2;
            ffi::enum_store(addr_of_mut!((*b).opcode), ibv_wr_opcode::IBV_WR_RDMA_WRITE as u32);
            (*b).wr.rdma = ibv_send_wr_rdma { remote_addr: 0x9000, rkey: 4 };
        }
        let mut bad: *mut ibv_send_wr = ptr::null_mut();
        let rc = with_fake(&f, || unsafe { ibv_cmd_post_send(qp.as_mut_ptr(), w1.as_mut_ptr(), &mut bad) });
        assert_eq!(rc, libc::EIO);
        assert_eq!(bad, w2.as_mut_ptr(), "the kernel's bad_wr (1-based) names the second request");
        let w = f.write(0);
        let each = size_of::<ib_uverbs_send_wr>();
        assert_eq!(w.len(), 8 + 24 + 2 * each + 2 * 16);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POST_SEND, (w.len() / 4) as u16, 1));
        let c = &w[8..];
        assert_eq!((u32_at(c, 8), u32_at(c, 12), u32_at(c, 16), u32_at(c, 20)), (5, 2, 2, each as u32));
        let r0 = &c[24..];
        assert_eq!((u64_at(r0, 0), u32_at(r0, 8), u32_at(r0, 16)), (1, 1, 2));
        assert_eq!((u64_at(r0, 24), u32_at(r0, 32)), (0x9000, 4));
        let r1 = &c[24 + each..];
        assert_eq!((u64_at(r1, 24), u64_at(r1, 32), u64_at(r1, 40), u32_at(r1, 48)), (0x8000, 1, 2, 3));
        let s = &c[24 + 2 * each..];
        assert_eq!((u64_at(s, 0), u32_at(s, 8), u64_at(s, 16)), (0x1000, 64, 0x2000));
    }

    #[test]
    fn poll_cq_converts_completions() {
        let f = Fake::new();
        let mut kwc = ib_uverbs_wc::zeroed();
        kwc.wr_id = 77;
        kwc.status = 5;
        kwc.byte_len = 100;
        kwc.qp_num = 0x10;
        let mut bytes = 1u32.to_ne_bytes().to_vec();
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(kwc.as_bytes());
        f.reply(Reply::write(&bytes));
        let mut cq: MaybeUninit<ibv_cq> = z();
        unsafe { (*cq.as_mut_ptr()).handle = 2 };
        let mut wc: [MaybeUninit<ibv_wc>; 2] = [z(), z()];
        let n = with_fake(&f, || unsafe { ibv_cmd_poll_cq(cq.as_mut_ptr(), 2, wc.as_mut_ptr().cast()) });
        assert_eq!(n, 1);
        unsafe {
            let w = &*wc[0].as_ptr();
            assert_eq!((w.wr_id, w.byte_len, w.qp_num), (77, 100, 0x10));
            assert_eq!(ffi::enum_raw(addr_of!(w.status)), 5);
        }
        let w = f.write(0);
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POLL_CQ, 6, ((8 + 2 * size_of::<ib_uverbs_wc>()) / 4) as u16));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (2, 2));
    }

    /// A C command buffer with room for `n` attributes.
    #[repr(C)]
    struct CBuf {
        b: ibv_command_buffer,
        room: [ib_uverbs_attr; 8],
    }

    fn cbuf(object_id: u16, method_id: u16) -> Box<CBuf> {
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

    fn add(c: &mut CBuf, id: u16, len: u16, data: u64) {
        let mut a = ib_uverbs_attr::zeroed();
        a.attr_id = id;
        a.len = len;
        a.flags = UVERBS_ATTR_F_MANDATORY as u16;
        a.__bindgen_anon_1.data = data;
        unsafe {
            c.b.next_attr.write(a);
            c.b.next_attr = c.b.next_attr.add(1);
        }
    }

    #[test]
    fn execute_ioctl_linearises_the_chain_and_copies_back() {
        let f = Fake::with_driver_id(4);
        let mut out = [0u8; 4];
        f.reply(Reply::ioctl().new_obj(1, 0x55).out(0x1000, &[9, 8, 7, 6]));
        let mut root = cbuf(7, 3);
        add(&mut root, 1, 0, 0);
        let mut drv = cbuf(7, 3);
        add(&mut drv, 0x1000, 4, out.as_mut_ptr() as u64);
        drv.b.flags = 0;
        root.b.next = &mut drv.b;
        let mut ctx: MaybeUninit<ibv_context> = z();
        let rc = with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) });
        assert_eq!(rc, 0);
        let b = f.ioctl(0);
        assert_eq!(b.len(), 24 + 2 * 16);
        assert_eq!((u16_at(&b, 2), u16_at(&b, 4), u16_at(&b, 6), u32_at(&b, 16)), (7, 3, 2, 4));
        assert_eq!(u16_at(&b, 24 + 16), 0x1000, "the driver's attribute after the core one");
        unsafe {
            let own = &*addr_of!(root.b.hdr.attrs).cast::<ib_uverbs_attr>();
            assert_eq!(own.__bindgen_anon_1.data, 0x55, "new object id copied back");
            let d = &*addr_of!(drv.b.hdr.attrs).cast::<ib_uverbs_attr>();
            assert_ne!(d.flags as u32 & rdma_common::uapi::rdma_user_ioctl_cmds::UVERBS_ATTR_F_VALID_OUTPUT, 0);
        }
        assert_eq!(out, [9, 8, 7, 6]);
        assert_eq!((root.b.hdr.num_attrs, root.b.hdr.length, root.b.hdr.driver_id), (2, 56, 4));

        root.b.flags = BUFFER_ERROR;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
        // A chain that links back to a block already in it.
        root.b.flags = 0;
        drv.b.next = &mut drv.b;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
        drv.b.next = &mut root.b;
        assert_eq!(with_fake(&f, || unsafe { execute_ioctl(ctx.as_mut_ptr(), &mut root.b) }), libc::EINVAL);
    }

    #[test]
    fn ioctl_only_commands_link_the_drivers_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 6));
        let mut drv = cbuf(UVERBS_OBJECT_COUNTERS as u16, UVERBS_METHOD_COUNTERS_CREATE as u16);
        add(&mut drv, 0x1000, 8, 0x0102030405060708);
        let mut vc: MaybeUninit<verbs_counters> = z();
        let mut ia = ibv_counters_init_attr { comp_mask: 0 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_counters(ctx.as_mut_ptr(), &mut ia, vc.as_mut_ptr(), &mut drv.b)
        });
        assert_eq!(rc, 0);
        unsafe { assert_eq!(((*vc.as_ptr()).handle, (*vc.as_ptr()).counters.context), (6, ctx.as_mut_ptr())) };
        let b = f.ioctl(0);
        assert_eq!(u16_at(&b, 6), 2);
        assert_eq!(
            (u16_at(&b, 24), u16_at(&b, 40), u64_at(&b, 48)),
            (UVERBS_ATTR_CREATE_COUNTERS_HANDLE as u16, 0x1000, 0x0102030405060708)
        );

        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ALLOC_DM_HANDLE, 3));
        let mut dm: MaybeUninit<verbs_dm> = z();
        let da = ibv_alloc_dm_attr { length: 4096, log_align_req: 12, comp_mask: 0 };
        let rc = with_fake(&f, || unsafe { ibv_cmd_alloc_dm(ctx.as_mut_ptr(), &da, dm.as_mut_ptr(), ptr::null_mut()) });
        assert_eq!(rc, 0);
        unsafe {
            let d = &*dm.as_ptr();
            assert_eq!((d.handle, d.dm.handle, d.dm.comp_mask), (3, 3, 1));
        }
        let b = f.ioctl(1);
        assert_eq!((u16_at(&b, 40), u16_at(&b, 42), u64_at(&b, 48)), (UVERBS_ATTR_ALLOC_DM_LENGTH as u16, 8, 4096));
        assert_eq!((u16_at(&b, 58), u32_at(&b, 64)), (4, 12));

        let mut pd = ibv_pd { context: ctx.as_mut_ptr(), handle: 2 };
        let mut mr: MaybeUninit<verbs_mr> = z();
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_QUERY_MR_RESP_LKEY, &[1, 0, 0, 0])
                .out(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &[0, 0x10, 0, 0, 0, 0, 0, 0]),
        );
        let rc = with_fake(&f, || unsafe { ibv_cmd_query_mr(&mut pd, mr.as_mut_ptr(), 44) });
        assert_eq!(rc, 0);
        unsafe {
            let m = &*mr.as_ptr();
            assert_eq!(
                (m.ibv_mr.handle, m.ibv_mr.lkey, m.ibv_mr.length, m.mr_type),
                (44, 1, 0x1000, IBV_MR_TYPE_IMPORTED_MR)
            );
        }

        f.reply(Reply::fail(Errno(libc::EOPNOTSUPP)));
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, dm.as_mut_ptr(), 0, 64, 0, mr.as_mut_ptr(), ptr::null_mut())
        });
        assert_eq!(rc, libc::EINVAL, "device memory MRs must be zero based");
    }

    #[test]
    fn get_context_falls_back_to_write_and_destroys_wait_or_forgive() {
        let f = Fake::new();
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        let mut r = ib_uverbs_get_context_resp::zeroed();
        r.async_fd = 33;
        r.num_comp_vectors = 4;
        f.reply(Reply::write(r.as_bytes()));
        let mut vctx: MaybeUninit<verbs_context> = z();
        let mut cmd = prov_cmd(8, 8, 0, &[]);
        let mut resp = [0u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_get_context(vctx.as_mut_ptr(), cmd.as_mut_ptr().cast(), 16, resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(rc, 0);
        unsafe {
            let c = &(*vctx.as_ptr()).context;
            assert_eq!((c.async_fd, c.num_comp_vectors), (33, 4));
        }
        assert_eq!(u16_at(&f.ioctl(0), 6), 2, "ioctl tried first");
        assert_eq!(hdr(&f.write(0)), (IB_USER_VERBS_CMD_GET_CONTEXT, 4, 2));

        // DESTROY_CQ waits for the acknowledgements (already there); EIO is an error unless forgiven.
        let mut d = ib_uverbs_destroy_cq_resp::zeroed();
        d.comp_events_reported = 1;
        f.reply(Reply::write(d.as_bytes()));
        let mut cq: MaybeUninit<ibv_cq> = z();
        unsafe {
            let p = cq.as_mut_ptr();
            object::init_sync(addr_of_mut!((*p).mutex), addr_of_mut!((*p).cond));
            (*p).comp_events_completed = 1;
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), 0);
            f.reply(Reply::fail(Errno::EIO));
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), libc::EIO);
            verbs_allow_disassociate_destroy.store(true, std::sync::atomic::Ordering::Relaxed);
            f.reply(Reply::fail(Errno::EIO));
            assert_eq!(with_fake(&f, || ibv_cmd_destroy_cq(p)), 0);
            verbs_allow_disassociate_destroy.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[test]
    fn query_device_any_writes_the_providers_response() {
        let f = Fake::new();
        let mut x = ib_uverbs_ex_query_device_resp::zeroed();
        x.base.max_qp = 9;
        x.base.phys_port_cnt = 2;
        x.response_length = offset_of!(ib_uverbs_ex_query_device_resp, xrc_odp_caps) as u32;
        x.hca_core_clock = 77;
        let mut bytes = x.as_bytes().to_vec();
        bytes.extend_from_slice(&[0x42; 8]);
        f.reply(Reply::write(&bytes));
        let mut resp = vec![0u8; size_of::<ib_uverbs_ex_query_device_resp>() + 8];
        let mut resp_size = resp.len();
        let mut attr: MaybeUninit<ibv_device_attr_ex> = z();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_query_device_any(
                ctx.as_mut_ptr(),
                ptr::null(),
                attr.as_mut_ptr(),
                size_of::<ibv_device_attr_ex>(),
                resp.as_mut_ptr().cast(),
                &mut resp_size,
            )
        });
        assert_eq!(rc, 0);
        assert_eq!(resp_size, x.response_length as usize);
        unsafe {
            let a = &*attr.as_ptr();
            assert_eq!((a.orig_attr.max_qp, a.hca_core_clock, a.phys_port_cnt_ex), (9, 77, 2));
        }
        assert_eq!(&resp[resp.len() - 8..], &[0x42; 8], "driver response in the provider's buffer");
        let w = f.write(0);
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!(u16_at(&w, 18), 1, "provider_out_words");
    }

    /// The command each remaining legacy/extended write sends: header words, the core fields set from the
    /// arguments, the provider's driver data appended.
    #[test]
    fn the_other_write_commands_marshal_as_the_kernel_expects() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut pd = ibv_pd { context: c, handle: 2 };
        let mut cq: MaybeUninit<ibv_cq> = z();
        let mut srq: MaybeUninit<ibv_srq> = z();
        let mut qp: MaybeUninit<ibv_qp> = z();
        let mut ch: MaybeUninit<ibv_comp_channel> = z();
        unsafe {
            (*cq.as_mut_ptr()).context = c;
            (*cq.as_mut_ptr()).handle = 3;
            (*srq.as_mut_ptr()).context = c;
            (*srq.as_mut_ptr()).handle = 4;
            (*qp.as_mut_ptr()).context = c;
            (*qp.as_mut_ptr()).handle = 5;
            (*ch.as_mut_ptr()).fd = 9;
            object::init_sync(addr_of_mut!((*cq.as_mut_ptr()).mutex), addr_of_mut!((*cq.as_mut_ptr()).cond));
            object::init_sync(addr_of_mut!((*srq.as_mut_ptr()).mutex), addr_of_mut!((*srq.as_mut_ptr()).cond));
            object::init_sync(addr_of_mut!((*qp.as_mut_ptr()).mutex), addr_of_mut!((*qp.as_mut_ptr()).cond));
        }
        let run = |reply: Reply, call: &mut dyn FnMut() -> c_int| -> Vec<u8> {
            f.reply(reply);
            assert_eq!(with_fake(&f, &mut *call), 0);
            f.writes().last().unwrap().clone()
        };

        // CREATE_CQ: the channel's fd, the CQ as user handle, driver data; the response in the provider's buffer.
        let mut cmd = prov_cmd(8, 32, 0x5a, &[7; 8]);
        let mut resp = [0u8; 16];
        let w = run(Reply::write(&[1, 0, 0, 0, 64, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]), &mut || unsafe {
            ibv_cmd_create_cq(
                c,
                50,
                ch.as_mut_ptr(),
                1,
                cq.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                48,
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_CQ, 12, 4));
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        let r = ib_uverbs_create_cq::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.cqe, r.comp_vector, r.comp_channel), (cq.as_ptr() as u64, 50, 1, 9));
        assert_eq!(&w[40..], &[7; 8]);
        unsafe { assert_eq!(((*cq.as_ptr()).handle, (*cq.as_ptr()).cqe), (1, 64)) };
        unsafe { (*cq.as_mut_ptr()).handle = 3 };

        // RESIZE_CQ, REQ_NOTIFY_CQ, EX_MODIFY_CQ.
        let mut cmd = prov_cmd(8, 16, 0x5a, &[]);
        let w = run(Reply::write(&[200, 0, 0, 0, 0, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_resize_cq(cq.as_mut_ptr(), 128, cmd.as_mut_ptr().cast(), 24, resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_RESIZE_CQ, 6, 2));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20)), (3, 128));
        unsafe { assert_eq!((*cq.as_ptr()).cqe, 200) };
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_req_notify_cq(cq.as_mut_ptr(), 2) });
        assert_eq!(w, [IB_USER_VERBS_CMD_REQ_NOTIFY_CQ as u8, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0]);
        let mut ma = ibv_modify_cq_attr { attr_mask: 1, moderate: ibv_moderate_cq { cq_count: 7, cq_period: 9 } };
        let mut cmd = prov_cmd(24, 16, 0x5a, &[6; 8]);
        let w = run(Reply::write(&[]), &mut || unsafe {
            ibv_cmd_modify_cq(cq.as_mut_ptr(), &mut ma, cmd.as_mut_ptr().cast(), 48)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_CQ, 2, 0));
        assert_eq!(u16_at(&w, 16), 1);
        assert_eq!((u32_at(&w, 24), u32_at(&w, 28), u16_at(&w, 32), u16_at(&w, 34), u32_at(&w, 36)), (3, 1, 7, 9, 0));

        // CREATE_SRQ (basic), MODIFY_SRQ with driver data, QUERY_SRQ, DESTROY_SRQ.
        let mut sa = ibv_srq_init_attr {
            srq_context: ptr::null_mut(),
            attr: ibv_srq_attr { max_wr: 10, max_sge: 1, srq_limit: 2 },
        };
        let mut cmd = prov_cmd(8, 32, 0x5a, &[]);
        let w = run(Reply::write(&[8, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_create_srq(
                &mut pd,
                srq.as_mut_ptr(),
                &mut sa,
                cmd.as_mut_ptr().cast(),
                40,
                resp.as_mut_ptr().cast(),
                16,
            )
        });
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_CREATE_SRQ);
        let r = ib_uverbs_create_srq::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.pd_handle, r.max_wr, r.max_sge, r.srq_limit), (srq.as_ptr() as u64, 2, 10, 1, 2));
        assert_eq!((sa.attr.max_wr, sa.attr.max_sge), (16, 2));
        unsafe { (*srq.as_mut_ptr()).handle = 4 };
        let mut sattr = ibv_srq_attr { max_wr: 30, max_sge: 0, srq_limit: 3 };
        let mut cmd = prov_cmd(8, 16, 0x5a, &[1; 8]);
        let w = run(Reply::write(&[]), &mut || unsafe {
            ibv_cmd_modify_srq(srq.as_mut_ptr(), &mut sattr, 3, cmd.as_mut_ptr().cast(), 32)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_MODIFY_SRQ, 8, 0));
        assert_eq!((u32_at(&w, 8), u32_at(&w, 12), u32_at(&w, 16), u32_at(&w, 20)), (4, 3, 30, 3));
        assert_eq!(&w[24..], &[1; 8]);
        let w = run(Reply::write(&[40, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_query_srq(srq.as_mut_ptr(), &mut sattr, ptr::null_mut(), 0)
        });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_QUERY_SRQ, 4));
        assert_eq!((sattr.max_wr, sattr.max_sge, sattr.srq_limit), (40, 2, 5));
        let w = run(Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_destroy_srq(srq.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_DESTROY_SRQ, 4));

        // CREATE_QP (legacy), QUERY_QP, DESTROY_QP.
        let mut ia: MaybeUninit<ibv_qp_init_attr> = z();
        unsafe {
            let i = ia.as_mut_ptr();
            (*i).send_cq = cq.as_mut_ptr();
            (*i).recv_cq = cq.as_mut_ptr();
            (*i).cap.max_send_wr = 4;
            ffi::enum_store(addr_of_mut!((*i).qp_type), QPT_UC);
        }
        let mut q2: MaybeUninit<ibv_qp> = z();
        let mut cmd = prov_cmd(8, 56, 0x5a, &[3; 8]);
        let mut qresp = [0u8; 32];
        let w = run(Reply::write(&[6, 0, 0, 0, 0x10, 0, 0, 0, 8, 0, 0, 0]), &mut || unsafe {
            ibv_cmd_create_qp(
                &mut pd,
                q2.as_mut_ptr(),
                ia.as_mut_ptr(),
                cmd.as_mut_ptr().cast(),
                72,
                qresp.as_mut_ptr().cast(),
                32,
            )
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_QP, 18, 8));
        let r = ib_uverbs_create_qp::from_bytes(&w[8..]);
        assert_eq!((r.pd_handle, r.send_cq_handle, r.qp_type, r.max_send_wr), (2, 3, QPT_UC as u8, 4));
        assert_eq!(&w[64..], &[3; 8]);
        unsafe {
            let q = &*q2.as_ptr();
            assert_eq!((q.handle, q.qp_num, q.pd, (*ia.as_ptr()).cap.max_send_wr), (6, 0x10, &mut pd as *mut _, 8));
        }
        let mut qa: MaybeUninit<ibv_qp_attr> = z();
        let mut qi: MaybeUninit<ibv_qp_init_attr> = z();
        let w = run(Reply::write(ib_uverbs_query_qp_resp::zeroed().as_bytes()), &mut || unsafe {
            ibv_cmd_query_qp(qp.as_mut_ptr(), qa.as_mut_ptr(), 1, qi.as_mut_ptr(), ptr::null_mut(), 0)
        });
        assert_eq!((hdr(&w).0, u32_at(&w, 16), u32_at(&w, 20)), (IB_USER_VERBS_CMD_QUERY_QP, 5, 1));
        let w = run(Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_destroy_qp(qp.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_DESTROY_QP, 5));

        // POST_RECV: header, one request, its SGE.
        let mut sge = ibv_sge { addr: 0x1000, length: 8, lkey: 1 };
        let mut rw = ibv_recv_wr { wr_id: 9, next: ptr::null_mut(), sg_list: &mut sge, num_sge: 1 };
        let mut bad: *mut ibv_recv_wr = ptr::null_mut();
        let w = run(Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_post_recv(qp.as_mut_ptr(), &mut rw, &mut bad) });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_POST_RECV, ((8 + 24 + 16 + 16) / 4) as u16, 1));
        assert_eq!((u32_at(&w, 16), u32_at(&w, 20), u32_at(&w, 24), u32_at(&w, 28)), (5, 1, 1, 16));
        assert_eq!((u64_at(&w, 32), u32_at(&w, 40), u64_at(&w, 48)), (9, 1, 0x1000));
        let w =
            run(Reply::write(&[0; 4]), &mut || unsafe { ibv_cmd_post_srq_recv(srq.as_mut_ptr(), &mut rw, &mut bad) });
        assert_eq!((hdr(&w).0, u32_at(&w, 16)), (IB_USER_VERBS_CMD_POST_SRQ_RECV, 4));

        // CREATE_AH (response and driver response in the provider's buffer), DESTROY_AH, multicast.
        let mut ah: MaybeUninit<ibv_ah> = z();
        let mut aa: MaybeUninit<ibv_ah_attr> = z();
        unsafe {
            (*aa.as_mut_ptr()).dlid = 0x77;
            (*aa.as_mut_ptr()).grh.dgid.raw = [1; 16];
        }
        let mut aresp = [0u8; 8];
        let w = run(Reply::write(&[0x21, 0, 0, 0, 5, 5, 5, 5]), &mut || unsafe {
            ibv_cmd_create_ah(&mut pd, ah.as_mut_ptr(), aa.as_mut_ptr(), aresp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_CREATE_AH, 16, 2));
        assert_eq!(u64_at(&w, 8), aresp.as_ptr() as u64);
        let r = ib_uverbs_create_ah::from_bytes(&w[8..]);
        assert_eq!((r.user_handle, r.pd_handle, r.attr.dlid, r.attr.grh.dgid), (ah.as_ptr() as u64, 2, 0x77, [1; 16]));
        assert_eq!(aresp, [0x21, 0, 0, 0, 5, 5, 5, 5]);
        unsafe { (*ah.as_mut_ptr()).context = c };
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_ah(ah.as_mut_ptr()) });
        assert_eq!(w, [IB_USER_VERBS_CMD_DESTROY_AH as u8, 0, 0, 0, 3, 0, 0, 0, 0x21, 0, 0, 0]);
        let gid = ibv_gid { raw: [2; 16] };
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_attach_mcast(qp.as_mut_ptr(), &gid, 0xc001) });
        assert_eq!(
            (hdr(&w), &w[8..24], u32_at(&w, 24), u16_at(&w, 28)),
            ((IB_USER_VERBS_CMD_ATTACH_MCAST, 8, 0), &[2u8; 16][..], 5, 0xc001)
        );
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_detach_mcast(qp.as_mut_ptr(), &gid, 0xc001) });
        assert_eq!(hdr(&w).0, IB_USER_VERBS_CMD_DETACH_MCAST);

        // The plain destroys.
        let mut flow = ibv_flow { comp_mask: 0, context: c, handle: 0x31 };
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_flow(&mut flow) });
        assert_eq!(
            (hdr(&w), u32_at(&w, 28)),
            ((IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW, 1, 0), 0x31)
        );
        let mut tbl = ibv_rwq_ind_table { context: c, ind_tbl_handle: 0x32, ind_tbl_num: 0, comp_mask: 0 };
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_destroy_rwq_ind_table(&mut tbl) });
        assert_eq!(
            (hdr(&w).0, u32_at(&w, 28)),
            (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL, 0x32)
        );
        let mut mw: MaybeUninit<ibv_mw> = z();
        unsafe {
            (*mw.as_mut_ptr()).context = c;
            (*mw.as_mut_ptr()).handle = 0x33;
        }
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_dealloc_mw(mw.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_DEALLOC_MW, 0x33));
        let mut mr: MaybeUninit<verbs_mr> = z();
        unsafe {
            (*mr.as_mut_ptr()).ibv_mr.context = c;
            (*mr.as_mut_ptr()).ibv_mr.handle = 0x34;
        }
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_dereg_mr(mr.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_DEREG_MR, 0x34));
        let mut xrcd: MaybeUninit<verbs_xrcd> = z();
        unsafe {
            (*xrcd.as_mut_ptr()).xrcd.context = c;
            (*xrcd.as_mut_ptr()).handle = 0x35;
        }
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_close_xrcd(xrcd.as_mut_ptr()) });
        assert_eq!((hdr(&w).0, u32_at(&w, 8)), (IB_USER_VERBS_CMD_CLOSE_XRCD, 0x35));
        let w = run(Reply::write(&[]), &mut || unsafe { ibv_cmd_dealloc_pd(&mut pd) });
        assert_eq!(w, [IB_USER_VERBS_CMD_DEALLOC_PD as u8, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0]);
    }

    /// The ioctl-only commands: object and method, the attributes in rdma-core's order.
    #[test]
    fn the_other_ioctl_commands_carry_rdma_cores_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut pd = ibv_pd { context: c, handle: 2 };
        let ids = |i: usize| -> Vec<(u16, u16)> {
            let b = f.ioctl(i);
            (0..u16_at(&b, 6) as usize).map(|k| (u16_at(&b, 24 + 16 * k), u16_at(&b, 26 + 16 * k))).collect()
        };
        let obj_method = |i: usize| {
            let b = f.ioctl(i);
            (u16_at(&b, 2) as u32, u16_at(&b, 4) as u32)
        };

        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &[4, 0, 0, 0]));
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_context(c, ptr::null_mut()) }), 0);
        assert_eq!(obj_method(0), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT));
        assert_eq!(
            ids(0),
            [
                (UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS as u16, 4),
                (UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT as u16, 8)
            ]
        );
        unsafe { assert_eq!((*c).num_comp_vectors, 4) };

        let mut sge = [ibv_sge { addr: 1, length: 2, lkey: 3 }; 2];
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_advise_mr(&mut pd, 1, 1, sge.as_mut_ptr(), 2) }), 0);
        assert_eq!(obj_method(1), (UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR));
        assert_eq!(ids(1)[3], (UVERBS_ATTR_ADVISE_MR_SGE_LIST as u16, 32));

        let mut mr: MaybeUninit<verbs_mr> = z();
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0x41));
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_reg_dmabuf_mr(&mut pd, 8, 4096, 0, 5, 1, mr.as_mut_ptr()) }), 0);
        assert_eq!(obj_method(2), (UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR));
        assert_eq!(ids(2).len(), 9);
        unsafe {
            assert_eq!(
                ((*mr.as_ptr()).ibv_mr.handle, (*mr.as_ptr()).mr_type, (*mr.as_ptr()).ibv_mr.addr as usize),
                (0x41, IBV_MR_TYPE_DMABUF_MR, 8)
            )
        };

        let mut dm: MaybeUninit<verbs_dm> = z();
        unsafe {
            (*dm.as_mut_ptr()).dm.context = c;
            (*dm.as_mut_ptr()).handle = 0x42;
        }
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_REG_DM_MR_HANDLE, 0x43));
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_reg_dm_mr(&mut pd, dm.as_mut_ptr(), 0, 64, IBV_ACCESS_ZERO_BASED, mr.as_mut_ptr(), ptr::null_mut())
        });
        assert_eq!(rc, 0);
        assert_eq!(obj_method(3), (UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG));
        assert_eq!(ids(3)[4], (UVERBS_ATTR_REG_DM_MR_DM_HANDLE as u16, 0));
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_free_dm(dm.as_mut_ptr()) }), 0);
        assert_eq!((obj_method(4), u64_at(&f.ioctl(4), 32)), ((UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE), 0x42));

        let mut fa: MaybeUninit<verbs_flow_action> = z();
        let mut esp: MaybeUninit<ibv_flow_action_esp_attr> = z();
        let mut keymat = [0x4bu8; 32];
        unsafe {
            let e = esp.as_mut_ptr();
            (*e).keymat_ptr = keymat.as_mut_ptr().cast();
            (*e).keymat_len = 32;
            (*e).comp_mask = 1;
            (*e).esn = 7;
        }
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0x44));
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_create_flow_action_esp(c, esp.as_mut_ptr(), fa.as_mut_ptr(), ptr::null_mut())
            }),
            0
        );
        assert_eq!(obj_method(5), (UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE));
        assert_eq!(
            ids(5),
            [
                (UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE as u16, 0),
                (UVERBS_ATTR_FLOW_ACTION_ESP_ESN as u16, 4),
                (UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT as u16, 32)
            ]
        );
        unsafe { assert_eq!(((*fa.as_ptr()).handle, (*fa.as_ptr()).r#type), (0x44, IBV_FLOW_ACTION_ESP)) };
        f.reply(Reply::ioctl());
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_modify_flow_action_esp(fa.as_mut_ptr(), esp.as_mut_ptr(), ptr::null_mut())
            }),
            0
        );
        assert_eq!(ids(6)[0], (UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE as u16, 0));
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_destroy_flow_action(fa.as_mut_ptr()) }), 0);
        assert_eq!(obj_method(7), (UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY));

        let mut vc: MaybeUninit<verbs_counters> = z();
        let mut vals = [0u64; 2];
        unsafe { (*vc.as_mut_ptr()).counters.context = c };
        f.reply(Reply::ioctl().out(UVERBS_ATTR_READ_COUNTERS_BUFF, &[1, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_read_counters(vc.as_mut_ptr(), vals.as_mut_ptr(), 2, 1, ptr::null_mut())
            }),
            0
        );
        assert_eq!(
            ids(8),
            [
                (UVERBS_ATTR_READ_COUNTERS_HANDLE as u16, 0),
                (UVERBS_ATTR_READ_COUNTERS_BUFF as u16, 16),
                (UVERBS_ATTR_READ_COUNTERS_FLAGS as u16, 4)
            ]
        );
        assert_eq!(vals[0], 1);
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_destroy_counters(vc.as_mut_ptr()) }), 0);
        assert_eq!(obj_method(9), (UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY));

        // QUERY_PORT: the ioctl, then (no ioctl framework) the write.
        let mut pa: MaybeUninit<ibv_port_attr> = z();
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        let mut pr = ib_uverbs_query_port_resp::zeroed();
        pr.lid = 7;
        f.reply(Reply::write(pr.as_bytes()));
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_port(c, 1, pa.as_mut_ptr(), ptr::null_mut(), 0) }), 0);
        assert_eq!(obj_method(10), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT));
        let w = f.write(0);
        assert_eq!((hdr(&w).0, w[16]), (IB_USER_VERBS_CMD_QUERY_PORT, 1));
        unsafe { assert_eq!((*pa.as_ptr()).lid, 7) };
    }
}
