//! The rdma_ucm kernel layer: typed `write()` commands on `/dev/infiniband/rdma_cm` (the kernel's
//! `drivers/infiniband/core/ucma.c`, ABI `include/uapi/rdma/rdma_user_cm.h`, version 4).
//!
//! Each function takes the event channel's descriptor (anything implementing [`UcmFd`]; a `BorrowedFd` in the
//! library, the recording `fake` in the unit tests), plain Rust arguments (kernel id handles, `uid` values echoed
//! back in events, socket addresses as their bytes) and returns the kernel's response struct from
//! [`rdma_common::uapi::rdma_user_cm`]. Nothing here knows the public C structs (`rdma_cm_id`, ...): the entry layer
//! (`crate::cm`) converts.
//!
//! One file per kernel object: [`id`] (CREATE_ID, DESTROY_ID, MIGRATE_ID, SET_OPTION, NOTIFY), [`addr`] (BIND_IP,
//! BIND, RESOLVE_IP, RESOLVE_ADDR, RESOLVE_ROUTE, QUERY_ROUTE, QUERY, RESOLVE_IB_SERVICE), [`conn`] (CONNECT, LISTEN,
//! ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR), [`event`] (GET_EVENT, WRITE_CM_EVENT), [`mcast`] (JOIN_IP_MCAST,
//! JOIN_MCAST, LEAVE_MCAST).
//!
//! # The write ABI (kernel `ucma_write`, 6.1 and 6.12 alike)
//!
//! A command is `struct rdma_ucm_cmd_hdr { __u32 cmd; __u16 in; __u16 out; }` followed by the command struct;
//! `in` is the byte size of that struct, `out` the byte size of the response buffer. Commands with a response carry
//! its address in a `__u64 response` field (the first field, except CREATE_ID's, which comes after `uid`); the
//! kernel copies at most `out` bytes there. A successful write returns its full length; rdma-core reports a short
//! count as `ENODATA`, and so do we. Unlike uverbs, nothing is counted in words. These are exactly the bytes
//! rdma-core's librdmacm writes (its `struct ucma_abi_*` are the kernel structs with the header in front; 65's
//! WRITE_CM_EVENT is 8 bytes longer than the kernel's struct, and the kernel reads only its own part).
#![allow(unsafe_code)]

pub mod addr;
pub mod conn;
pub mod event;
pub mod id;
pub mod mcast;

#[cfg(test)]
pub(crate) mod fake;

use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::uapi::rdma_user_cm::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::size_of;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;

/// The oldest rdma_ucm ABI rdma-core 44 speaks (`RDMA_USER_CM_MIN_ABI_VERSION`).
pub const ABI_MIN: i32 = 3;
/// The newest rdma_ucm ABI rdma-core 44 speaks (`RDMA_USER_CM_MAX_ABI_VERSION`, the kernel's
/// `RDMA_USER_CM_ABI_VERSION`).
pub const ABI_MAX: i32 = RDMA_USER_CM_ABI_VERSION as i32;

/// The character device every event channel opens.
pub const DEV_PATH: &str = "/dev/infiniband/rdma_cm";

// The rdma_ucm commands and options that rdma-core 65's calls use and the uapi headers `rdma_common::uapi` is
// generated from (Linux 6.1) lack: they continue the kernel's enums. Linux 6.1 and 6.12 answer the two commands with
// `EINVAL` (a command number beyond their table); 7.2 has them.
/// RESOLVE_IB_SERVICE: starts a subnet-administrator look-up of an InfiniBand service record (`rdma_resolve_addrinfo`
/// with `RAI_SA`).
pub const RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE: u32 = RDMA_USER_CM_CMD_JOIN_MCAST + 1;
/// WRITE_CM_EVENT: queues an event written by the process itself on the channel (`rdma_write_cm_event`).
pub const RDMA_USER_CM_CMD_WRITE_CM_EVENT: u32 = RDMA_USER_CM_CMD_JOIN_MCAST + 2;
/// QUERY option: the service records a RESOLVE_IB_SERVICE found.
pub const RDMA_USER_CM_QUERY_IB_SERVICE: u32 = RDMA_USER_CM_QUERY_GID + 1;
/// `rdma_ucm_ib_service::flags`: look the service up by its 64-bit id.
pub const RDMA_USER_CM_IB_SERVICE_FLAG_ID: u32 = 1 << 0;
/// `rdma_ucm_ib_service::flags`: look the service up by its name.
pub const RDMA_USER_CM_IB_SERVICE_FLAG_NAME: u32 = 1 << 1;
/// Bytes of a service name in the command (NUL-terminated within them).
pub const RDMA_USER_CM_IB_SERVICE_NAME_SIZE: usize = 64;

/// An rdma_ucm command file: something commands can be written to.
///
/// # Safety
/// An implementation behaves as the kernel's rdma_cm fd does towards memory: it reads the command buffer, and
/// writes only at the command's `response` address, at most `out` bytes (or, for SET_OPTION, reads `optlen` bytes
/// at `optval`).
pub unsafe trait UcmFd {
    /// `write()` one command; returns the byte count accepted.
    ///
    /// # Safety
    /// As `rdma_common::sys::write_cmd`: every address embedded in `buf` is valid for the kernel's accesses.
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize>;
}

// SAFETY: the real kernel fd.
unsafe impl UcmFd for BorrowedFd<'_> {
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize> {
        // SAFETY: forwarded contract.
        unsafe { sys::write_cmd(*self, buf) }
    }
}

/// Opens `/dev/infiniband/rdma_cm` read-write, close-on-exec, as rdma-core does: one descriptor per event channel.
/// Errors: the `open(2)` errno (`ENOENT` without the `rdma_ucm` module, `EACCES`, ...).
pub fn open() -> Result<OwnedFd> {
    sys::open_rdwr(Path::new(DEV_PATH))
}

/// The rdma_ucm ABI version the kernel speaks, from sysfs (`class/misc/rdma_cm/abi_version`, or the older
/// `class/infiniband_ucma/abi_version`); when neither file exists, rdma-core assumes the newest ABI ([`ABI_MAX`])
/// and so do we. (rdma-core asks netlink's `RDMA_NLDEV_CMD_GET_CHARDEV` first; both report the same number.)
pub fn abi_version() -> i32 {
    abi_version_from(Path::new("/sys"))
}

/// [`abi_version`] under another sysfs root (tests).
pub fn abi_version_from(sysfs: &Path) -> i32 {
    for f in ["class/misc/rdma_cm/abi_version", "class/infiniband_ucma/abi_version"] {
        if let Ok(s) = std::fs::read_to_string(sysfs.join(f)) {
            return parse_abi_version(&s);
        }
    }
    ABI_MAX
}

/// The number an `abi_version` file holds, read with `strtol` semantics: its leading digits, 0 when none.
pub fn parse_abi_version(s: &str) -> i32 {
    let digits: String = s.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(0)
}

/// True when rdma-core 44 accepts ABI version `v`.
pub fn abi_supported(v: i32) -> bool {
    (ABI_MIN..=ABI_MAX).contains(&v)
}

/// A user address as the kernel ABI carries it (`__u64`). Exposes the pointer's provenance: the kernel writes
/// through this integer while the call that carries it runs.
pub(crate) fn addr_of(p: *mut u8) -> u64 {
    p.expose_provenance() as u64
}

/// A command struct as the kernel reads it: `Copy`, and every one of its `size_of` bytes initialised (no padding, no
/// uninitialised bytes), aligned to at most 8. Implemented for the uapi structs the commands send and for byte arrays
/// (the commands holding a `__kernel_sockaddr_storage`, built byte by byte with [`put`]).
///
/// # Safety
/// An implementing type has no padding and no bytes that may be uninitialised.
pub(crate) unsafe trait Body: Copy {}
// SAFETY: bytes.
unsafe impl<const N: usize> Body for [u8; N] {}
macro_rules! bodies {
    ($($t:ty),* $(,)?) => {
        // SAFETY: the uapi structs are `AsBytes` (no padding; tools/gen-uapi.sh lists them).
        $( unsafe impl Body for $t where $t: AsBytes {} )*
    };
}
bodies! {
    rdma_ucm_create_id, rdma_ucm_destroy_id, rdma_ucm_migrate_id, rdma_ucm_set_option, rdma_ucm_notify,
    rdma_ucm_bind_ip, rdma_ucm_resolve_ip, rdma_ucm_resolve_route, rdma_ucm_query, rdma_ucm_get_event,
    rdma_ucm_connect, rdma_ucm_listen, rdma_ucm_accept, rdma_ucm_reject, rdma_ucm_disconnect, rdma_ucm_init_qp_attr,
    rdma_ucm_join_ip_mcast,
}

/// Writes one framed command (`buf`: header and struct) to the rdma_cm fd. A short write is `ENODATA`
/// (rdma-core's answer); failures are logged at debug level with the command's number.
///
/// # Safety
/// As [`UcmFd::write_cmd`]: every address `buf` embeds is valid for the call.
#[inline(always)]
unsafe fn write_frame<F: UcmFd + ?Sized>(fd: &F, cmd: u32, buf: &[u8]) -> Result<()> {
    // SAFETY: the caller's contract.
    let n = unsafe { fd.write_cmd(buf) }.inspect_err(|e| log::debug!("rdma_ucm command {cmd}: {e}"))?;
    if n != buf.len() {
        log::debug!("rdma_ucm command {cmd}: short write {n} of {}", buf.len());
        return Err(Errno::ENODATA);
    }
    Ok(())
}

/// A command and its header as one value: what [`write_framed`] writes.
#[repr(C)]
struct Framed<T> {
    hdr: rdma_ucm_cmd_hdr,
    body: T,
}

/// Writes `body` behind its header as one value built in place: no byte buffer to zero and copy into (that was
/// ~70 instructions a command; docs/bench.md, "the cmtime finding"). `out_len` is the response buffer's length.
///
/// # Safety
/// Every address in `body` is valid for the kernel's accesses during the call (a response address: writable for
/// `out_len` bytes; SET_OPTION's `optval`: readable for its `optlen`).
#[inline(always)]
unsafe fn write_framed<F: UcmFd + ?Sized, T: Body>(fd: &F, cmd: u32, body: T, out_len: u16) -> Result<()> {
    const {
        // The header is 8 bytes and `T` aligned to at most 8: the body starts right after it.
        assert!(std::mem::align_of::<T>() <= 8);
        assert!(std::mem::offset_of!(Framed<T>, body) == size_of::<rdma_ucm_cmd_hdr>());
        assert!(size_of::<rdma_ucm_cmd_hdr>() + size_of::<T>() <= u16::MAX as usize);
    }
    let frame = Framed { hdr: rdma_ucm_cmd_hdr { cmd, in_: size_of::<T>() as u16, out: out_len }, body };
    let len = size_of::<rdma_ucm_cmd_hdr>() + size_of::<T>();
    // SAFETY: the header (no padding) and the body (a `Body`: no padding) are `len` initialised bytes, adjacent
    // (asserted above); the trailing padding of `Framed`, if any, is not part of the slice.
    let buf = unsafe { std::slice::from_raw_parts((&raw const frame).cast::<u8>(), len) };
    // SAFETY: the caller's contract.
    unsafe { write_frame(fd, cmd, buf) }
}

/// A command without a response. The only command struct holding an address is SET_OPTION's (`optval`), whose
/// validity is [`id::set_option`]'s caller's contract.
pub(crate) fn write_in<F: UcmFd + ?Sized, T: Body>(fd: &F, cmd: u32, body: T) -> Result<()> {
    // SAFETY: no address but SET_OPTION's `optval` (above).
    unsafe { write_framed(fd, cmd, body, 0) }
}

/// A command whose response goes to `out`: its address is stored in the first 8 bytes of `body` (the `response`
/// field of every such command but CREATE_ID, which [`id::create_id`] fills itself).
pub(crate) fn write_io<F: UcmFd + ?Sized, T: Body>(fd: &F, cmd: u32, mut body: T, out: &mut [u8]) -> Result<()> {
    const { assert!(size_of::<T>() >= 8) };
    let out_len = u16::try_from(out.len()).map_err(|_| Errno::EINVAL)?;
    // SAFETY: `body` is at least 8 bytes (asserted) of plain data; any bytes written leave a valid `Body`.
    unsafe { (&raw mut body).cast::<u64>().write_unaligned(addr_of(out.as_mut_ptr())) };
    // SAFETY: the one address in `body` is `out`'s, exclusively borrowed (alive, untouched) for the call.
    unsafe { write_framed(fd, cmd, body, out_len) }
}

/// [`write_io`] whose response is a value of `R`, which the kernel writes straight into the value returned: zeroed
/// first (a shorter answer leaves zeros), `prefill` applied to its bytes before the call (no byte buffer to copy
/// the answer out of: ~60 instructions for the 300-byte responses of GET_EVENT and QUERY).
#[inline(always)]
pub(crate) fn write_resp<F: UcmFd + ?Sized, T: Body, R: FromBytes>(
    fd: &F,
    cmd: u32,
    body: T,
    prefill: impl FnOnce(&mut [u8]),
) -> Result<R> {
    let mut r = std::mem::MaybeUninit::<R>::zeroed();
    // SAFETY: `r` is `size_of::<R>()` bytes, all initialised (zeroed, padding included: a byte-level write).
    let out = unsafe { std::slice::from_raw_parts_mut(r.as_mut_ptr().cast::<u8>(), size_of::<R>()) };
    prefill(out);
    write_io(fd, cmd, body, out)?;
    // SAFETY: every bit pattern is a valid `R` (`FromBytes`).
    Ok(unsafe { r.assume_init() })
}

/// [`write_io`] for a command whose struct `body` already holds the address of `out` elsewhere than at its start
/// (CREATE_ID: `uid` comes first).
///
/// # Safety
/// The only address in `body` is that of `out`, which stays mutably borrowed (alive, untouched) for the call.
pub(crate) unsafe fn write_framed_io<F: UcmFd + ?Sized, T: Body>(
    fd: &F,
    cmd: u32,
    body: T,
    out: &mut [u8],
) -> Result<()> {
    let out_len = u16::try_from(out.len()).map_err(|_| Errno::EINVAL)?;
    // SAFETY: the caller's contract.
    unsafe { write_framed(fd, cmd, body, out_len) }
}

/// Copies `src` (a socket address's bytes) into `dst`, failing with `EINVAL` when it does not fit (the kernel
/// structs hold a `sockaddr_in6` or a `sockaddr_storage`).
pub(crate) fn put_addr(dst: &mut [u8], src: &[u8]) -> Result<()> {
    if src.len() > dst.len() {
        return Err(Errno::EINVAL);
    }
    dst[..src.len()].copy_from_slice(src);
    Ok(())
}

/// Stores `v` at `off` in `buf` (native endian): the byte-level builder for the command structs that contain a
/// `__kernel_sockaddr_storage` (a union with a pointer member, so not `AsBytes`).
pub(crate) fn put<const N: usize>(buf: &mut [u8], off: usize, v: [u8; N]) {
    buf[off..off + N].copy_from_slice(&v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_version_files() {
        let d = std::env::temp_dir().join(format!("rdmacm-abi-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(abi_version_from(&d), ABI_MAX);
        std::fs::create_dir_all(d.join("class/infiniband_ucma")).unwrap();
        std::fs::write(d.join("class/infiniband_ucma/abi_version"), "3\n").unwrap();
        assert_eq!(abi_version_from(&d), 3);
        std::fs::create_dir_all(d.join("class/misc/rdma_cm")).unwrap();
        std::fs::write(d.join("class/misc/rdma_cm/abi_version"), "4\n").unwrap();
        assert_eq!(abi_version_from(&d), 4);
        std::fs::write(d.join("class/misc/rdma_cm/abi_version"), "junk").unwrap();
        assert_eq!(abi_version_from(&d), 0);
        std::fs::remove_dir_all(&d).unwrap();
        assert!(abi_supported(3) && abi_supported(4));
        assert!(!abi_supported(0) && !abi_supported(2) && !abi_supported(5));
    }

    #[test]
    fn short_write_is_enodata() {
        let f = fake::Fake::new();
        f.reply(fake::Reply::short(4));
        assert_eq!(write_in(&f, RDMA_USER_CM_CMD_LISTEN, [0u8; 8]), Err(Errno::ENODATA));
        f.reply(fake::Reply::fail(Errno::EBADF));
        assert_eq!(write_in(&f, RDMA_USER_CM_CMD_LISTEN, [0u8; 8]), Err(Errno::EBADF));
    }
}
