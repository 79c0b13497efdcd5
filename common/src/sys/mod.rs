//! The syscall layer: the only code that calls `open`, `read`, `write`, `ioctl`, `mmap` and `munmap` on RDMA file
//! descriptors (`/dev/infiniband/uverbsN`, its completion-channel and async-event fds, `/dev/infiniband/rdma_cm`),
//! that opens `NETLINK_RDMA` sockets ([`netlink`]), and that asks network interfaces what RoCE neighbour resolution
//! needs ([`net`]: the VLAN ioctl, binding a socket to an interface).
//!
//! File descriptors are `OwnedFd` / `BorrowedFd`; failures are the positive [`Errno`] of the call (read right after
//! it, before anything else can touch `errno`). No call is retried on `EINTR`: rdma-core reports it to the
//! application (`ibv_get_cq_event` returns -1 with `errno == EINTR`), and so do we.
//!
//! Writing a command to a uverbs or rdma_cm fd, or issuing `RDMA_VERBS_IOCTL`, makes the kernel read and write user
//! memory at addresses carried *inside* the buffer (response pointers, attribute pointers): those two calls are
//! `unsafe`, and their callers (the kernel layers) state why every embedded address is valid.
#![allow(unsafe_code)]

mod mmap;
pub mod net;
pub mod netlink;

pub use mmap::Mmap;

use crate::errno::{Errno, Result};
use std::ffi::{c_int, c_ulong, c_void};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::Path;

/// `open(path, O_RDWR | O_CLOEXEC)`: how rdma-core opens `/dev/infiniband/uverbsN` and `rdma_cm`.
/// Errors: the `open(2)` errno (`ENOENT`, `EACCES`, `ENXIO` for an unregistered device, ...).
pub fn open_rdwr(path: &Path) -> Result<OwnedFd> {
    // std's `open` is `O_CLOEXEC` and builds the C string on the stack for short paths (no allocation).
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map(OwnedFd::from)
        .map_err(|e| Errno(e.raw_os_error().unwrap_or(libc::EINVAL))) // a NUL inside the path: no OS error
}

/// `write(fd, buf)` of one command to a uverbs or rdma_cm fd. Returns the byte count the kernel accepted (the whole
/// buffer on success: both interfaces answer a command with its full length or an error).
///
/// This is libc's `write`, a cancellation point, as in rdma-core: inside `ffi::boundary` cancellation is held off,
/// and the calls that wait for an event (rdma_cm's `GET_EVENT`) make it outside any boundary so that a thread
/// waiting there can be cancelled (see `ffi`'s notes on thread cancellation).
///
/// # Safety
/// Every user address embedded in `buf` (the `response` pointer of a command, a pointer inside driver udata) must be
/// valid for the reads and writes the kernel makes there for the lengths the command states, and must not be
/// accessed through any Rust reference while the call runs.
#[inline]
pub unsafe fn write_cmd(fd: BorrowedFd<'_>, buf: &[u8]) -> Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes; embedded addresses are the caller's contract.
    let n = unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast::<c_void>(), buf.len()) };
    if n < 0 {
        return Err(Errno::last());
    }
    Ok(n as usize)
}

/// [`write_cmd`] as the raw system call, which is not a cancellation point: for the data path's doorbell, which
/// runs in `ffi::datapath_boundary` (cancellation not held off there, to keep the post free of that cost).
///
/// # Safety
/// As [`write_cmd`].
///
/// On x86-64 the `syscall` instruction is issued inline (glibc's `syscall()` wrapper shuffles six argument registers
/// and goes through `errno`: about a tenth of a one-WR post); elsewhere `libc::syscall`. `errno` is left untouched
/// either way: the error comes back as the result.
#[inline]
pub unsafe fn write_cmd_nocancel(fd: BorrowedFd<'_>, buf: &[u8]) -> Result<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let ret: isize;
        // SAFETY: write(2) with a buffer valid for `buf.len()` bytes (embedded addresses: the caller's contract).
        // The kernel's x86-64 system call convention: number in rax, arguments in rdi/rsi/rdx, result in rax,
        // rcx and r11 clobbered; the kernel reads `buf` (and writes the embedded response), so no `nomem`.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") libc::SYS_write as isize => ret,
                in("rdi") fd.as_raw_fd(),
                in("rsi") buf.as_ptr(),
                in("rdx") buf.len(),
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        // -4095..=-1 are errnos (the kernel's convention); a write never returns anything else negative.
        if ret < 0 {
            return Err(Errno(-(ret.max(-4095)) as c_int));
        }
        Ok(ret as usize)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: as `write_cmd`.
        let n = unsafe { libc::syscall(libc::SYS_write, fd.as_raw_fd(), buf.as_ptr().cast::<c_void>(), buf.len()) };
        if n < 0 {
            return Err(Errno::last());
        }
        Ok(n as usize)
    }
}

/// `ioctl(fd, request, arg)` returning the non-negative result.
///
/// # Safety
/// `arg` must be what `request` expects on this fd; for `RDMA_VERBS_IOCTL` a `struct ib_uverbs_ioctl_hdr` followed by
/// its `num_attrs` attributes, writable (the kernel writes attribute flags and new object ids back), with every
/// attribute pointer valid for its stated length.
pub unsafe fn ioctl(fd: BorrowedFd<'_>, request: u32, arg: *mut c_void) -> Result<c_int> {
    // SAFETY: the caller's contract.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), request as c_ulong, arg) };
    if r < 0 {
        return Err(Errno::last());
    }
    Ok(r)
}

/// `read(fd, buf)`: one event from a completion-channel or async-event fd (the kernel writes only into `buf`).
/// Returns the byte count read. Blocks unless the fd is `O_NONBLOCK` (then `EAGAIN` when empty).
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> Result<usize> {
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast::<c_void>(), buf.len()) };
    if n < 0 {
        return Err(Errno::last());
    }
    Ok(n as usize)
}

/// `fcntl(fd, F_DUPFD_CLOEXEC, 0)`: a new close-on-exec descriptor of the file `fd` (any number: an fd the caller
/// keeps in a C struct, which may be stale) refers to, the lowest free number. Errors: `fcntl(2)`'s (`EBADF`,
/// `EMFILE`).
pub fn dup_cloexec(fd: std::os::fd::RawFd) -> Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC reads no memory; on any number it either fails or installs a new descriptor.
    let r = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if r < 0 {
        return Err(Errno::last());
    }
    // SAFETY: a descriptor fcntl just installed, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(r) })
}

/// Takes ownership of a file descriptor number the kernel just installed for this process and reported in a
/// command response (`async_fd` of GET_CONTEXT, `fd` of CREATE_COMP_CHANNEL).
/// Errors: `EIO` for a negative number (a kernel never reports one on success).
///
/// # Safety
/// `raw` must be an open descriptor that nothing else in the process owns or will close.
pub unsafe fn adopt_fd(raw: i32) -> Result<OwnedFd> {
    if raw < 0 {
        return Err(Errno::EIO);
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: pipe2 just created both and nothing else owns them.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn write_then_read() {
        let (r, w) = pipe();
        // SAFETY: the buffer embeds no address.
        assert_eq!(unsafe { write_cmd(w.as_fd(), b"abcd") }, Ok(4));
        let mut buf = [0u8; 8];
        assert_eq!(read(r.as_fd(), &mut buf), Ok(4));
        assert_eq!(&buf[..4], b"abcd");
    }

    #[test]
    fn errors_are_errno() {
        assert_eq!(open_rdwr(Path::new("/nonexistent/uverbs0")).unwrap_err(), Errno::ENOENT);
        let (r, _w) = pipe();
        // SAFETY: no address embedded; writing to a pipe's read end fails with EBADF.
        assert_eq!(unsafe { write_cmd(r.as_fd(), b"x") }, Err(Errno::EBADF));
        // SAFETY: RDMA_VERBS_IOCTL on a pipe is refused before the argument is looked at.
        let e = unsafe { ioctl(r.as_fd(), crate::uapi::rdma_user_ioctl_cmds::RDMA_VERBS_IOCTL, std::ptr::null_mut()) };
        assert_eq!(e, Err(Errno(libc::ENOTTY)));
        // SAFETY: a negative number is rejected before any ownership is taken.
        assert_eq!(unsafe { adopt_fd(-1) }.unwrap_err(), Errno::EIO);
    }
}
