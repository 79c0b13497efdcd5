//! The kernel layer of libibverbs: typed uverbs commands, device discovery, sysfs.
//!
//! Each function takes the uverbs command fd (anything implementing [`CmdFd`]; [`Uverbs`] in the library),
//! plain Rust arguments (kernel handles, `user_handle` values, lengths) and, where the kernel passes driver data
//! through, the provider's "udata" as byte slices: `udata_in` (the driver's request struct, appended to the core
//! request) and `udata_out` (filled with the driver's response struct, which the kernel writes right after the core
//! response). It returns the kernel's response struct from [`rdma_common::uapi`]. Nothing here knows the public C
//! structs; the entry layer converts.
//!
//! One file per kernel object: [`device`], [`pd`], [`mr`], [`mw`], [`cq`], [`qp`], [`srq`], [`ah`], [`mcast`],
//! [`comp_channel`], [`async_event`], [`xrcd`]; then [`discover`] (netlink, sysfs fallback), [`sysfs`] and
//! [`netlink`]. Syscalls happen only in `rdma_common::sys`, reached through [`CmdFd`].
//!
//! # Write or ioctl: the table
//!
//! The kernel offers two ABIs on the same fd: `write()` of a command (`ib_uverbs_cmd_hdr`, or `ib_uverbs_cmd_hdr` +
//! `ib_uverbs_ex_cmd_hdr` for extended commands) and `ioctl(RDMA_VERBS_IOCTL)` with typed attributes. Both are
//! stable uverbs ABI and both exist in every kernel we support (6.1 and 6.12). We use **the write commands wherever
//! the kernel offers them** (every object a verbs application creates, and every command rxe and siw implement),
//! because each is one fixed struct, checked byte for byte by the tests here. Like rdma-core 44, we carry them
//! through `ioctl(RDMA_VERBS_IOCTL)`'s `UVERBS_METHOD_INVOKE_WRITE` when the kernel has it (probed once per process
//! with a QUERY_DEVICE that must fail `ENOSPC`; `ENOTTY`/`EPROTONOSUPPORT` means plain `write()`): the kernel
//! refuses `write()` on a uverbs fd from a task whose credentials differ from the opener's (`EACCES`: a forked child,
//! a daemon that dropped privileges after opening the device), and not the ioctl. The data path's doorbell (rxe's
//! POST_SEND with no work request) stays a plain `write()`, as in rdma-core. We use **ioctl where no write command exists, or where only the ioctl answer carries what rdma-core 44
//! reports** (GET_CONTEXT's `core_support`, QUERY_PORT's `port_cap_flags2`), then with the write fallback:
//!
//! | command | ABI | why / fallback |
//! |---|---|---|
//! | GET_CONTEXT | ioctl (+ ASYNC_EVENT_ALLOC), then write | as rdma-core 44: only the ioctl reports `core_support` (whether `ibv_reg_mr` may pass optional access bits); on [`ioctl_unsupported`] the write command, which also returns the async fd |
//! | QUERY_CONTEXT | ioctl | no write command; `EOPNOTSUPP` on rxe/siw (no `query_ucontext`) |
//! | QUERY_DEVICE, QUERY_DEVICE_EX | write, write-ex | |
//! | QUERY_PORT | ioctl, then write | ioctl also returns `port_cap_flags2` (and `active_speed_ex` on 6.12), as rdma-core 44 does; on [`ioctl_unsupported`] the write command |
//! | QUERY_GID_ENTRY, QUERY_GID_TABLE | ioctl | no write command; on [`ioctl_unsupported`] the caller reads sysfs ([`sysfs`]), as rdma-core does |
//! | ALLOC_PD, DEALLOC_PD | write | |
//! | REG_MR (with `hca_va` = iova), REREG_MR, DEREG_MR | write | |
//! | REG_DMABUF_MR | ioctl | no write command (rxe/siw answer `EOPNOTSUPP`) |
//! | ALLOC_MW, DEALLOC_MW | write | |
//! | CREATE_COMP_CHANNEL | write | |
//! | CREATE_CQ / EX_CREATE_CQ, RESIZE_CQ, REQ_NOTIFY_CQ, POLL_CQ, EX_MODIFY_CQ | write / write-ex | EX only when creation flags are given |
//! | DESTROY_CQ, DESTROY_QP | ioctl (`UVERBS_METHOD_CQ_DESTROY` / `QP_DESTROY`), then write | as rdma-core: two attributes (the handle, the events reported) instead of INVOKE_WRITE's four and the core request and response copies; on [`ioctl_unsupported`] the write command |
//! | CREATE_QP / EX_CREATE_QP, OPEN_QP, MODIFY_QP / EX_MODIFY_QP, QUERY_QP, POST_SEND | write / write-ex | EX_MODIFY_QP only for `IB_QP_RATE_LIMIT`; POST_SEND with no work request is rxe's doorbell |
//! | CREATE_SRQ, CREATE_XSRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ | write | |
//! | CREATE_AH, DESTROY_AH | write | |
//! | ATTACH_MCAST, DETACH_MCAST | write | |
//! | OPEN_XRCD, CLOSE_XRCD | write | |
//!
//! The one fallback rule ([`ioctl_unsupported`]): `ENOTTY` (no ioctl framework) or `EPROTONOSUPPORT` (the method or
//! a mandatory attribute is unknown) means "use the other path"; any other error is the answer.
//!
//! # Conventions of the write ABI (kernel `ib_uverbs_write`, 6.1 and 6.12 alike)
//!
//! * legacy command: `ib_uverbs_cmd_hdr { command, in_words, out_words }` then the core request then `udata_in`;
//!   `in_words` counts 4-byte words of the *whole* write including the header, `out_words` the 4-byte words of
//!   core response + `udata_out`. A command with a response starts with `__aligned_u64 response`, the address the
//!   kernel writes `core response | driver response` to. The write returns its full length on success.
//! * extended command: `ib_uverbs_cmd_hdr { command | IB_USER_VERBS_CMD_FLAG_EXTENDED, in_words, out_words }` +
//!   `ib_uverbs_ex_cmd_hdr { response, provider_in_words, provider_out_words, 0 }` then core request then
//!   `udata_in`; here every count is in 8-byte words and excludes both headers; `in_words`/`out_words` count the
//!   core structs, `provider_*_words` the udata.
//! * udata lengths must therefore be multiples of 4 (legacy) or 8 (extended): `EINVAL` otherwise.
#![allow(unsafe_code)]

pub mod ah;
pub mod async_event;
pub mod comp_channel;
pub mod cq;
pub mod device;
pub mod discover;
pub mod mcast;
pub mod mr;
pub mod mw;
pub mod neigh;
pub mod netlink;
pub mod pd;
pub mod qp;
pub mod rtnl;
pub mod srq;
pub mod sysfs;
pub mod xrcd;

#[cfg(test)]
pub(crate) mod fake;

use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::uapi::ib_user_ioctl_cmds::{
    UVERBS_ATTR_CORE_IN, UVERBS_ATTR_CORE_OUT, UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT, UVERBS_ATTR_WRITE_CMD,
    UVERBS_METHOD_INVOKE_WRITE, UVERBS_OBJECT_DEVICE,
};
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::rdma_user_ioctl_cmds::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::marker::PhantomData;
use std::mem::{size_of, MaybeUninit};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;

/// The uverbs command file: something commands can be written to and `RDMA_VERBS_IOCTL` issued on.
///
/// # Safety
/// An implementation behaves as the kernel's uverbs fd does towards memory and descriptors: it reads the command
/// buffer, writes only where the command's response pointers and lengths (or ioctl attributes) say, and every file
/// descriptor number it reports in a response is newly installed and owned by the caller. [`Uverbs`] is the real
/// one; the unit tests' recording fake is the other.
pub unsafe trait CmdFd {
    /// `write()` one command; returns the byte count accepted.
    ///
    /// # Safety
    /// As `rdma_common::sys::write_cmd`: every address embedded in `buf` is valid for the kernel's accesses.
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize>;

    /// [`write_cmd`](CmdFd::write_cmd) for the data path's doorbell: on the real fd the raw system call, which is
    /// not a cancellation point (`rdma_common::sys::write_cmd_nocancel`).
    ///
    /// # Safety
    /// As `write_cmd`.
    unsafe fn write_cmd_datapath(&self, buf: &[u8]) -> Result<usize> {
        // SAFETY: forwarded contract.
        unsafe { self.write_cmd(buf) }
    }

    /// `ioctl(RDMA_VERBS_IOCTL)` on `buf`: an 8-byte aligned `ib_uverbs_ioctl_hdr` followed by its attributes.
    ///
    /// # Safety
    /// As `rdma_common::sys::ioctl`: every attribute pointer is valid for its length.
    unsafe fn ioctl_verbs(&self, buf: &mut [u64]) -> Result<()>;

    /// The device's kernel driver id (`RDMA_DRIVER_*`), which every ioctl header must carry (the kernel answers
    /// `EINVAL` to any other).
    fn driver_id(&self) -> u32;

    /// Whether write commands go through `UVERBS_METHOD_INVOKE_WRITE` (the [table](self#write-or-ioctl-the-table)).
    /// The unit tests' fake keeps the default: plain `write()`.
    fn invoke_write(&self) -> bool {
        false
    }
}

/// Whether this kernel carries write commands through `UVERBS_METHOD_INVOKE_WRITE`: 0 not probed yet, 1 yes, 2 no.
static INVOKE_WRITE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// rdma-core's `has_ioctl_write`: INVOKE_WRITE of QUERY_DEVICE without its request, which a kernel with the method
/// refuses with `ENOSPC` (the request is too short); `ENOTTY` / `EPROTONOSUPPORT` mean no such method.
fn probe_invoke_write<F: CmdFd + ?Sized>(fd: &F) -> bool {
    let mut io = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
    io.in_u64(UVERBS_ATTR_WRITE_CMD, u64::from(IB_USER_VERBS_CMD_QUERY_DEVICE));
    !matches!(io.execute(fd), Err(e) if ioctl_unsupported(e))
}

/// A borrowed `/dev/infiniband/uverbsN` fd and its device's driver id: the real [`CmdFd`].
#[derive(Clone, Copy, Debug)]
pub struct Uverbs<'fd> {
    fd: BorrowedFd<'fd>,
    driver_id: u32,
}

impl<'fd> Uverbs<'fd> {
    /// `driver_id` is the provider's own `RDMA_DRIVER_*` (rdma-core's providers pass theirs to
    /// `verbs_init_and_alloc_context`: `RDMA_DRIVER_RXE` for rxe), which is what netlink reports as
    /// [`discover::DeviceInfo::driver_id`]. The kernel answers `EINVAL` to ioctls carrying any other id; write
    /// commands do not carry it.
    pub fn new(fd: BorrowedFd<'fd>, driver_id: u32) -> Uverbs<'fd> {
        Uverbs { fd, driver_id }
    }

    /// The fd itself (for `mmap` of provider queues, `poll`, ...).
    pub fn fd(&self) -> BorrowedFd<'fd> {
        self.fd
    }
}

// SAFETY: the real kernel fd; see the trait.
unsafe impl CmdFd for Uverbs<'_> {
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize> {
        // SAFETY: forwarded contract.
        unsafe { sys::write_cmd(self.fd, buf) }
    }

    #[inline]
    unsafe fn write_cmd_datapath(&self, buf: &[u8]) -> Result<usize> {
        // SAFETY: forwarded contract.
        unsafe { sys::write_cmd_nocancel(self.fd, buf) }
    }

    unsafe fn ioctl_verbs(&self, buf: &mut [u64]) -> Result<()> {
        // SAFETY: forwarded contract; `buf` is the header and attributes, writable and 8-byte aligned.
        unsafe { sys::ioctl(self.fd, RDMA_VERBS_IOCTL, buf.as_mut_ptr().cast()) }.map(|_| ())
    }

    fn driver_id(&self) -> u32 {
        self.driver_id
    }

    fn invoke_write(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        match INVOKE_WRITE.load(Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let yes = probe_invoke_write(self);
                log::debug!("uverbs: write commands through {}", if yes { "ioctl INVOKE_WRITE" } else { "write()" });
                INVOKE_WRITE.store(if yes { 1 } else { 2 }, Relaxed);
                yes
            }
        }
    }
}

/// Opens a uverbs character device (`/dev/infiniband/uverbsN`) read-write, close-on-exec, as rdma-core does.
/// Errors: the `open(2)` errno.
pub fn open_uverbs(path: &Path) -> Result<OwnedFd> {
    sys::open_rdwr(path)
}

/// The fallback rule of the [table](self#write-or-ioctl-the-table): true when an ioctl failed because the kernel
/// lacks the ioctl framework (`ENOTTY`) or this method / a mandatory attribute (`EPROTONOSUPPORT`).
pub fn ioctl_unsupported(e: Errno) -> bool {
    e.0 == libc::ENOTTY || e.0 == libc::EPROTONOSUPPORT
}

// ---------------------------------------------------------------------------------------------------------------
// The write ABI.

/// A user address as the kernel ABI carries it (`__aligned_u64`). Exposes the pointer's provenance: the kernel
/// writes through this integer while the call that carries it runs.
fn addr(p: *mut u8) -> u64 {
    p.expose_provenance() as u64
}

#[allow(clippy::manual_is_multiple_of)] // usize::is_multiple_of is newer than our MSRV (1.85)
fn words(len: usize, unit: usize) -> Result<u16> {
    if len % unit != 0 {
        return Err(Errno::EINVAL);
    }
    u16::try_from(len / unit).map_err(|_| Errno::EINVAL)
}

/// Writes `buf` and checks the kernel took all of it (a short count is `EIO`). Logs only at trace level: POST_SEND
/// (rxe's doorbell) is on the data path.
fn write_all<F: CmdFd + ?Sized>(fd: &F, buf: &[u8], what: u32) -> Result<()> {
    // SAFETY: every caller builds `buf` with at most one embedded address, the response buffer it keeps alive and
    // untouched until this returns, sized exactly as the header's word counts say.
    let n = unsafe { fd.write_cmd(buf) }.inspect_err(|e| log::trace!("uverbs write command {what:#x}: {e}"))?;
    if n != buf.len() {
        log::trace!("uverbs write command {what:#x}: short write {n} of {}", buf.len());
        return Err(Errno::EIO);
    }
    Ok(())
}

/// [`write_all`] without its logging, for the data path's doorbell: nothing there may log or unwind.
#[inline(always)]
fn write_all_quiet<F: CmdFd + ?Sized>(fd: &F, buf: &[u8]) -> Result<()> {
    // SAFETY: as in `write_all`: the caller embeds at most one address, a response buffer it keeps alive and
    // untouched until this returns.
    let n = unsafe { fd.write_cmd_datapath(buf) }?;
    if n != buf.len() {
        return Err(Errno::EIO);
    }
    Ok(())
}

/// The command buffer, `parts` one after the other: on the stack when it fits (every fixed-size command, so the
/// data-path doorbell never allocates), else on the heap. Every byte is one of `parts`', so nothing is zeroed first.
fn with_cmd_buf<R>(parts: [&[u8]; 4], f: impl FnOnce(&mut [u8]) -> R) -> R {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    if len <= 256 {
        let mut stack = std::mem::MaybeUninit::<[u8; 256]>::uninit();
        let base = stack.as_mut_ptr().cast::<u8>();
        let mut at = 0;
        for p in parts {
            // SAFETY: the parts add up to `len <= 256` bytes, so each lands inside the array, after the last.
            unsafe { base.add(at).copy_from_nonoverlapping(p.as_ptr(), p.len()) };
            at += p.len();
        }
        // SAFETY: bytes 0..len were all written just above.
        f(unsafe { std::slice::from_raw_parts_mut(base, len) })
    } else {
        f(&mut parts.concat())
    }
}

/// `f` on `len` zeroed bytes: on the stack when `len <= N` (only those `len` bytes are zeroed, not the whole
/// array: a command is mostly far shorter than its buffer), else on the heap.
#[inline(always)]
fn with_zeroed<const N: usize, R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if len <= N {
        let mut stack = std::mem::MaybeUninit::<[u8; N]>::uninit();
        let p = stack.as_mut_ptr().cast::<u8>();
        // SAFETY: `len <= N` bytes of the array are zeroed before the slice over them is made; nothing reads the
        // rest.
        let buf = unsafe {
            p.write_bytes(0, len);
            std::slice::from_raw_parts_mut(p, len)
        };
        f(buf)
    } else {
        f(&mut vec![0u8; len])
    }
}

/// The response buffer of a write command (core response + driver response), zeroed: on the stack when it fits
/// (every response rxe and siw send), else on the heap.
fn with_resp_buf<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    with_zeroed::<512, R>(len, f)
}

/// Legacy write command with a response: `req` (whose first field is `response`, filled in here) + `udata_in`;
/// returns the core response and copies the driver response into `udata_out`.
pub(crate) fn write_io<F, Req, Resp>(
    fd: &F,
    command: u32,
    req: &Req,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<Resp>
where
    F: CmdFd + ?Sized,
    Req: AsBytes,
    Resp: FromBytes,
{
    with_resp_buf(size_of::<Resp>() + udata_out.len(), |out| {
        if fd.invoke_write() {
            let (core, driver) = out.split_at_mut(size_of::<Resp>());
            invoke_write(fd, command, req.as_bytes(), udata_in, core, driver)?;
        } else {
            write_raw(fd, command, req.as_bytes(), udata_in, Some(&mut *out))?;
        }
        udata_out.copy_from_slice(&out[size_of::<Resp>()..]);
        Ok(Resp::from_bytes(out))
    })
}

/// Legacy write command without a response (`out_words` 0): `req` + `udata_in`.
pub(crate) fn write_in<F: CmdFd + ?Sized, Req: AsBytes>(
    fd: &F,
    command: u32,
    req: &Req,
    udata_in: &[u8],
) -> Result<()> {
    if fd.invoke_write() {
        return invoke_write(fd, command, req.as_bytes(), udata_in, &mut [], &mut []);
    }
    write_raw(fd, command, req.as_bytes(), udata_in, None)
}

/// A write command through `UVERBS_METHOD_INVOKE_WRITE` (rdma-core's `ioctl_write`): `command` (with
/// `IB_USER_VERBS_CMD_FLAG_EXTENDED` for an extended one), the core request (without the command headers; a legacy
/// request's `response` field is carried but ignored), the driver's request, and the buffers for the core and the
/// driver responses. Each non-empty part is one mandatory attribute, as rdma-core sends them.
fn invoke_write<F: CmdFd + ?Sized>(
    fd: &F,
    command: u32,
    core_in: &[u8],
    udata_in: &[u8],
    core_out: &mut [u8],
    udata_out: &mut [u8],
) -> Result<()> {
    core_out.fill(0);
    udata_out.fill(0);
    let mut io = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
    io.in_u64(UVERBS_ATTR_WRITE_CMD, u64::from(command));
    if !core_in.is_empty() {
        io.in_bytes(UVERBS_ATTR_CORE_IN, core_in)?;
    }
    if !core_out.is_empty() {
        io.out_bytes(UVERBS_ATTR_CORE_OUT, core_out)?;
    }
    if !udata_in.is_empty() {
        io.in_bytes(UVERBS_ATTR_UHW_IN, udata_in)?;
    }
    if !udata_out.is_empty() {
        io.out_bytes(UVERBS_ATTR_UHW_OUT, udata_out)?;
    }
    io.execute(fd).map(|_| ()).inspect_err(|e| log::trace!("uverbs write command {command:#x} (ioctl): {e}"))
}

/// The legacy write ABI on bytes. `core` is the core request; when `out` is given, `core` starts with the
/// `response` field, which is set to `out`'s address, and `out` (core response + driver response) receives what the
/// kernel writes.
pub(crate) fn write_raw<F: CmdFd + ?Sized>(
    fd: &F,
    command: u32,
    core: &[u8],
    udata_in: &[u8],
    out: Option<&mut [u8]>,
) -> Result<()> {
    let h = size_of::<ib_uverbs_cmd_hdr>();
    let total = h + core.len() + udata_in.len();
    let mut hdr = ib_uverbs_cmd_hdr::zeroed();
    hdr.command = command;
    hdr.in_words = words(total, 4)?;
    let mut response = None;
    if let Some(out) = out {
        if core.len() < 8 {
            return Err(Errno::EINVAL);
        }
        out.fill(0);
        hdr.out_words = words(out.len(), 4)?;
        response = Some(addr(out.as_mut_ptr()));
    }
    // `out` (when given) stays mutably borrowed by this call: alive and untouched while the kernel writes it.
    with_cmd_buf([hdr.as_bytes(), core, udata_in, &[]], |buf| {
        if let Some(r) = response {
            buf[h..h + 8].copy_from_slice(&r.to_ne_bytes());
        }
        write_all(fd, buf, command)
    })
}

/// Extended write command with a response: `ib_uverbs_ex_cmd_hdr` + `req` + `udata_in`; returns the core response
/// (the kernel zero-fills what it does not write) and copies the driver response into `udata_out`.
pub(crate) fn write_ex_io<F, Req, Resp>(
    fd: &F,
    command: u32,
    req: &Req,
    udata_in: &[u8],
    udata_out: &mut [u8],
) -> Result<Resp>
where
    F: CmdFd + ?Sized,
    Req: AsBytes,
    Resp: FromBytes,
{
    with_resp_buf(size_of::<Resp>() + udata_out.len(), |out| {
        if fd.invoke_write() {
            let (core, driver) = out.split_at_mut(size_of::<Resp>());
            invoke_write(fd, IB_USER_VERBS_CMD_FLAG_EXTENDED | command, req.as_bytes(), udata_in, core, driver)?;
        } else {
            write_ex_raw(fd, command, req.as_bytes(), udata_in, Some((&mut *out, size_of::<Resp>())))?;
        }
        udata_out.copy_from_slice(&out[size_of::<Resp>()..]);
        Ok(Resp::from_bytes(out))
    })
}

/// Extended write command without a response.
pub(crate) fn write_ex_in<F: CmdFd + ?Sized, Req: AsBytes>(
    fd: &F,
    command: u32,
    req: &Req,
    udata_in: &[u8],
) -> Result<()> {
    if fd.invoke_write() {
        return invoke_write(fd, IB_USER_VERBS_CMD_FLAG_EXTENDED | command, req.as_bytes(), udata_in, &mut [], &mut []);
    }
    write_ex_raw(fd, command, req.as_bytes(), udata_in, None)
}

/// The extended write ABI on bytes. `out` is the response buffer and the length of its core part.
pub(crate) fn write_ex_raw<F: CmdFd + ?Sized>(
    fd: &F,
    command: u32,
    core: &[u8],
    udata_in: &[u8],
    out: Option<(&mut [u8], usize)>,
) -> Result<()> {
    let mut hdr = ib_uverbs_cmd_hdr::zeroed();
    hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
    hdr.in_words = words(core.len(), 8)?;
    let mut ex = ib_uverbs_ex_cmd_hdr::zeroed();
    ex.provider_in_words = words(udata_in.len(), 8)?;
    if let Some((out, core_len)) = out {
        out.fill(0);
        hdr.out_words = words(core_len, 8)?;
        ex.provider_out_words = words(out.len().checked_sub(core_len).ok_or(Errno::EINVAL)?, 8)?;
        ex.response = addr(out.as_mut_ptr());
    }
    // `out` (when given) stays mutably borrowed by this call: alive and untouched while the kernel writes it.
    with_cmd_buf([hdr.as_bytes(), ex.as_bytes(), core, udata_in], |buf| write_all(fd, buf, hdr.command))
}

// ---------------------------------------------------------------------------------------------------------------
// The ioctl ABI.

/// One `RDMA_VERBS_IOCTL` call being built: object and method ids, then attributes in the order added (every
/// attribute `UVERBS_ATTR_F_MANDATORY` unless [`Ioctl::optional`] follows it, as in rdma-core). The `'a` borrows
/// keep every buffer an attribute points to alive and untouched until [`Ioctl::execute`] has returned.
///
/// The builder *is* the buffer the kernel reads, on the stack (no allocation per command): each attribute is
/// written once, into its slot after the header, and the kernel's write-back (new object ids, output flags) is read
/// from the same memory; no slot is zeroed or copied before use. At most [`MAX_ATTRS`] attributes, more than any
/// method we send; one more makes [`Ioctl::execute`] answer `EINVAL`.
pub(crate) struct Ioctl<'a> {
    buf: IoctlBuf,
    /// An attribute beyond [`MAX_ATTRS`] was added (and dropped).
    overflow: bool,
    _bufs: PhantomData<&'a mut [u8]>,
}

/// `struct ib_uverbs_ioctl_hdr` followed by its attribute array, as the kernel reads it: the first
/// `hdr.num_attrs` slots are written, the rest never read by anyone.
#[repr(C)]
struct IoctlBuf {
    hdr: ib_uverbs_ioctl_hdr,
    attrs: [MaybeUninit<ib_uverbs_attr>; MAX_ATTRS],
}

impl IoctlBuf {
    /// The written attribute `idx`, if it is one.
    fn attr(&self, idx: usize) -> Option<&ib_uverbs_attr> {
        // SAFETY: the first `num_attrs` slots were written by `Ioctl::push` (and perhaps by the kernel since).
        self.attrs[..usize::from(self.hdr.num_attrs)].get(idx).map(|a| unsafe { a.assume_init_ref() })
    }
}

/// The most attributes one [`Ioctl`] carries (REG_DMABUF_MR, the largest we send, has nine).
pub(crate) const MAX_ATTRS: usize = 12;

/// What the kernel wrote back into the attribute array: new object ids, `UVERBS_ATTR_F_VALID_OUTPUT` flags.
pub(crate) struct IoctlDone {
    buf: IoctlBuf,
}

impl IoctlDone {
    /// The `data` of attribute number `idx` (as returned by the builder): the id of a new object. 0 for an index
    /// no attribute has.
    pub(crate) fn data(&self, idx: usize) -> u64 {
        // SAFETY: both union members are plain 64-bit integers.
        self.buf.attr(idx).map_or(0, |a| unsafe { a.__bindgen_anon_1.data })
    }

    /// Whether the kernel marked output attribute `idx` as written.
    #[allow(dead_code)] // part of the builder's protocol; no command needs it yet
    pub(crate) fn written(&self, idx: usize) -> bool {
        self.buf.attr(idx).is_some_and(|a| a.flags as u32 & UVERBS_ATTR_F_VALID_OUTPUT != 0)
    }
}

impl<'a> Ioctl<'a> {
    pub(crate) fn new(object_id: u32, method_id: u32) -> Ioctl<'a> {
        let mut hdr = ib_uverbs_ioctl_hdr::zeroed();
        hdr.object_id = object_id as u16;
        hdr.method_id = method_id as u16;
        Ioctl {
            buf: IoctlBuf { hdr, attrs: [const { MaybeUninit::uninit() }; MAX_ATTRS] },
            overflow: false,
            _bufs: PhantomData,
        }
    }

    fn push(&mut self, id: u32, len: u16, data: u64) -> usize {
        let n = usize::from(self.buf.hdr.num_attrs);
        let Some(slot) = self.buf.attrs.get_mut(n) else {
            self.overflow = true;
            return MAX_ATTRS - 1;
        };
        let mut a = ib_uverbs_attr::zeroed();
        a.attr_id = id as u16;
        a.len = len;
        a.flags = UVERBS_ATTR_F_MANDATORY as u16;
        a.__bindgen_anon_1.data = data;
        slot.write(a);
        self.buf.hdr.num_attrs += 1;
        n
    }

    /// Clears `UVERBS_ATTR_F_MANDATORY` on the attribute added last.
    #[allow(dead_code)] // part of the builder's protocol; no command needs it yet
    pub(crate) fn optional(&mut self) -> &mut Self {
        if let Some(i) = usize::from(self.buf.hdr.num_attrs).checked_sub(1) {
            // SAFETY: slot `i` is below `num_attrs`: written by `push`.
            unsafe { self.buf.attrs[i].assume_init_mut() }.flags &= !(UVERBS_ATTR_F_MANDATORY as u16);
        }
        self
    }

    /// A `UVERBS_ATTR_CONST_IN` or 64-bit `PTR_IN`: 8 bytes inline in `data`.
    pub(crate) fn in_u64(&mut self, id: u32, v: u64) -> usize {
        self.push(id, 8, v)
    }

    /// A 32-bit `PTR_IN` or `FLAGS_IN`: 4 bytes inline, in `data`'s first bytes (a `memcpy`, as rdma-core does).
    pub(crate) fn in_u32(&mut self, id: u32, v: u32) -> usize {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&v.to_ne_bytes());
        self.push(id, 4, u64::from_ne_bytes(b))
    }

    /// A `PTR_IN` of bytes: inline when at most 8 bytes (the kernel's rule), else by address.
    pub(crate) fn in_bytes(&mut self, id: u32, data: &'a [u8]) -> Result<usize> {
        let len = u16::try_from(data.len()).map_err(|_| Errno::EINVAL)?;
        if data.len() <= 8 {
            let mut b = [0u8; 8];
            b[..data.len()].copy_from_slice(data);
            Ok(self.push(id, len, u64::from_ne_bytes(b)))
        } else {
            Ok(self.push(id, len, data.as_ptr().expose_provenance() as u64))
        }
    }

    /// A `PTR_OUT`: the kernel writes up to `buf.len()` bytes there.
    pub(crate) fn out_bytes(&mut self, id: u32, buf: &'a mut [u8]) -> Result<usize> {
        let len = u16::try_from(buf.len()).map_err(|_| Errno::EINVAL)?;
        Ok(self.push(id, len, addr(buf.as_mut_ptr())))
    }

    /// An `IDR` attribute naming an existing object by handle.
    pub(crate) fn in_obj(&mut self, id: u32, handle: u32) -> usize {
        self.push(id, 0, handle as u64)
    }

    /// An `IDR` attribute with `UVERBS_ACCESS_NEW`: the kernel writes the new object's id into `data`.
    pub(crate) fn new_obj(&mut self, id: u32) -> usize {
        self.push(id, 0, 0)
    }

    /// An `FD` or `RAW_FD` attribute.
    pub(crate) fn in_fd(&mut self, id: u32, fd: BorrowedFd<'a>) -> usize {
        self.push(id, 0, fd.as_raw_fd() as i64 as u64)
    }

    /// Issues the ioctl. Errors: the kernel's errno (see [`ioctl_unsupported`] for the fallback cases); `EINVAL`
    /// when more than [`MAX_ATTRS`] attributes were added.
    pub(crate) fn execute<F: CmdFd + ?Sized>(mut self, fd: &F) -> Result<IoctlDone> {
        let (object_id, method_id) = (self.buf.hdr.object_id, self.buf.hdr.method_id);
        if self.overflow {
            log::debug!("uverbs ioctl object {object_id} method {method_id}: more than {MAX_ATTRS} attributes");
            return Err(Errno::EINVAL);
        }
        const HDR_LEN: usize = size_of::<ib_uverbs_ioctl_hdr>();
        const ATTR_LEN: usize = size_of::<ib_uverbs_attr>();
        const _: () = assert!(HDR_LEN.is_multiple_of(8) && ATTR_LEN.is_multiple_of(8) && align_of::<IoctlBuf>() == 8);
        let len = HDR_LEN + ATTR_LEN * usize::from(self.buf.hdr.num_attrs);
        self.buf.hdr.length = len as u16;
        self.buf.hdr.driver_id = fd.driver_id();
        // SAFETY: `IoctlBuf` is 8-byte aligned, and its first `len` bytes (header and written attributes) are
        // initialised plain integers, so they may be viewed as `len / 8` u64 words.
        let words = unsafe { std::slice::from_raw_parts_mut((&raw mut self.buf).cast::<u64>(), len / 8) };
        // SAFETY: every attribute pointer comes from a buffer borrowed for 'a, alive and unaliased until this
        // returns (this consumes the builder), with the length recorded next to it.
        unsafe { fd.ioctl_verbs(words) }
            .inspect_err(|e| log::trace!("uverbs ioctl object {object_id} method {method_id}: {e}"))?;
        Ok(IoctlDone { buf: self.buf })
    }
}

#[cfg(test)]
mod tests {
    use super::fake::{Fake, Reply};
    use super::*;

    #[test]
    fn legacy_header_counts_whole_write_in_4_byte_words() {
        let f = Fake::new();
        f.reply(Reply::write(&[1, 0, 0, 0, 2, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd]));
        let mut req = ib_uverbs_create_cq::zeroed();
        req.cqe = 5;
        let mut udata_out = [0u8; 4];
        let r: ib_uverbs_create_cq_resp =
            write_io(&f, IB_USER_VERBS_CMD_CREATE_CQ, &req, &[9, 9, 9, 9, 9, 9, 9, 9], &mut udata_out).unwrap();
        assert_eq!((r.cq_handle, r.cqe), (1, 2));
        assert_eq!(udata_out, [0xaa, 0xbb, 0xcc, 0xdd]);
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 32 + 8);
        assert_eq!(u32::from_ne_bytes(w[0..4].try_into().unwrap()), IB_USER_VERBS_CMD_CREATE_CQ);
        assert_eq!(u16::from_ne_bytes(w[4..6].try_into().unwrap()), 12); // (8 + 32 + 8) / 4
        assert_eq!(u16::from_ne_bytes(w[6..8].try_into().unwrap()), 3); // (8 + 4) / 4
        assert_ne!(u64::from_ne_bytes(w[8..16].try_into().unwrap()), 0); // response address
        assert_eq!(&w[40..], &[9; 8]);
    }

    #[test]
    fn extended_header_counts_8_byte_words_without_headers() {
        let f = Fake::new();
        f.reply(Reply::write(&[0u8; 16]));
        let req = ib_uverbs_ex_create_cq::zeroed();
        let mut udata_out = [0u8; 16];
        let _: ib_uverbs_ex_create_cq_resp =
            write_ex_io(&f, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req, &[1; 8], &mut udata_out).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16 + 32 + 8);
        let cmd = u32::from_ne_bytes(w[0..4].try_into().unwrap());
        assert_eq!(cmd, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ);
        assert_eq!(u16::from_ne_bytes(w[4..6].try_into().unwrap()), 4); // 32 / 8
        assert_eq!(u16::from_ne_bytes(w[6..8].try_into().unwrap()), 2); // 16 / 8
        assert_ne!(u64::from_ne_bytes(w[8..16].try_into().unwrap()), 0);
        assert_eq!(u16::from_ne_bytes(w[16..18].try_into().unwrap()), 1); // provider_in_words
        assert_eq!(u16::from_ne_bytes(w[18..20].try_into().unwrap()), 2); // provider_out_words
        assert_eq!(&w[20..24], &[0; 4]); // cmd_hdr_reserved
    }

    #[test]
    fn extended_without_response_has_null_response_and_zero_out_words() {
        let f = Fake::new();
        f.reply(Reply::write(&[]));
        let req = ib_uverbs_ex_modify_cq::zeroed();
        write_ex_in(&f, IB_USER_VERBS_EX_CMD_MODIFY_CQ, &req, &[]).unwrap();
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16 + 16);
        assert_eq!(&w[6..8], &[0, 0]);
        assert_eq!(&w[8..24], &[0; 16]);
    }

    #[test]
    fn bad_udata_lengths_and_short_writes() {
        let f = Fake::new();
        let req = ib_uverbs_create_cq::zeroed();
        let r: Result<ib_uverbs_create_cq_resp> = write_io(&f, IB_USER_VERBS_CMD_CREATE_CQ, &req, &[1, 2], &mut []);
        assert_eq!(r.unwrap_err(), Errno::EINVAL);
        assert_eq!(write_ex_in(&f, 0, &ib_uverbs_ex_modify_cq::zeroed(), &[0; 4]), Err(Errno::EINVAL));
        assert!(f.writes().is_empty());
        f.reply(Reply::short_write(4));
        assert_eq!(write_in(&f, IB_USER_VERBS_CMD_DESTROY_AH, &ib_uverbs_destroy_ah::zeroed(), &[]), Err(Errno::EIO));
        f.reply(Reply::fail(Errno::EBUSY));
        assert_eq!(write_in(&f, IB_USER_VERBS_CMD_DESTROY_AH, &ib_uverbs_destroy_ah::zeroed(), &[]), Err(Errno::EBUSY));
    }

    #[test]
    fn ioctl_header_and_attributes() {
        let f = Fake::with_driver_id(11);
        f.reply(Reply::ioctl().out(7, &[0x11, 0x22]).new_obj(1, 42));
        let mut out = [0u8; 2];
        let big = [5u8; 12];
        let mut c = Ioctl::new(3, 4);
        let h = c.new_obj(1);
        c.in_u64(2, 0x0102030405060708);
        c.in_u32(3, 0xa0b0c0d0);
        c.optional();
        c.in_bytes(4, &[1, 2, 3]).unwrap();
        c.in_bytes(5, &big).unwrap();
        let o = c.out_bytes(7, &mut out).unwrap();
        let done = c.execute(&f).unwrap();
        assert_eq!(done.data(h), 42);
        assert!(done.written(o));
        assert_eq!(out, [0x11, 0x22]);
        let b = f.ioctl(0);
        assert_eq!(b.len(), 24 + 6 * 16);
        assert_eq!(u16::from_ne_bytes(b[0..2].try_into().unwrap()), 24 + 6 * 16); // length
        assert_eq!(u16::from_ne_bytes(b[2..4].try_into().unwrap()), 3); // object_id
        assert_eq!(u16::from_ne_bytes(b[4..6].try_into().unwrap()), 4); // method_id
        assert_eq!(u16::from_ne_bytes(b[6..8].try_into().unwrap()), 6); // num_attrs
        assert_eq!(&b[8..16], &[0; 8]); // reserved1
        assert_eq!(u32::from_ne_bytes(b[16..20].try_into().unwrap()), 11); // driver_id
        let attr = |i: usize| &b[24 + i * 16..40 + i * 16];
        // attr_id, len, flags (MANDATORY), attr_data, data
        assert_eq!(&attr(1)[..8], &[2, 0, 8, 0, 1, 0, 0, 0]);
        assert_eq!(u64::from_ne_bytes(attr(1)[8..].try_into().unwrap()), 0x0102030405060708);
        assert_eq!(&attr(2)[..8], &[3, 0, 4, 0, 0, 0, 0, 0]); // optional: flags 0
        assert_eq!(&attr(2)[8..], &[0xd0, 0xc0, 0xb0, 0xa0, 0, 0, 0, 0]);
        assert_eq!(&attr(3)[..4], &[4, 0, 3, 0]);
        assert_eq!(&attr(3)[8..], &[1, 2, 3, 0, 0, 0, 0, 0]); // inline
        assert_eq!(&attr(4)[..4], &[5, 0, 12, 0]);
        assert_eq!(u64::from_ne_bytes(attr(4)[8..].try_into().unwrap()), big.as_ptr() as u64); // by address
        assert_eq!(&attr(5)[..4], &[7, 0, 2, 0]);
    }

    #[test]
    fn ioctl_attribute_limit() {
        let f = Fake::new();
        f.reply(Reply::ioctl());
        let mut c = Ioctl::new(3, 4);
        for i in 0..MAX_ATTRS as u32 {
            c.in_u64(i, u64::from(i));
        }
        c.execute(&f).unwrap();
        assert_eq!(f.ioctl(0).len(), 24 + MAX_ATTRS * 16, "the full array is sent");
        let mut c = Ioctl::new(3, 4);
        for i in 0..=MAX_ATTRS as u32 {
            c.in_u64(i, 0);
        }
        assert_eq!(c.execute(&f).err(), Some(Errno::EINVAL), "one attribute too many never reaches the kernel");
    }

    #[test]
    fn fallback_rule() {
        assert!(ioctl_unsupported(Errno(libc::ENOTTY)));
        assert!(ioctl_unsupported(Errno(libc::EPROTONOSUPPORT)));
        assert!(!ioctl_unsupported(Errno::EINVAL));
        assert!(!ioctl_unsupported(Errno::EOPNOTSUPP));
    }
}
